#!/usr/bin/env bash
# Installs dependencies, builds crux with clang + ASan/UBSan (tests and libFuzzer targets),
# installs the pinned SDKs for the end-to-end tests, fetches llama.cpp's source once into a
# cache (scripts/fetch-llama-cpp.sh: its real vocabularies; when that fails, e.g. offline, the
# tests that read them skip), and runs every test: unit tests, fixture every-split tests, short
# fuzz runs, the SDK end-to-end tests against `crux serve`, and the lint checks (formatting,
# clang-tidy naming and function length, unit-test layout).
# The output ends with ctest's summary; the exit status is non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
scripts/fetch-llama-cpp.sh >/dev/null || echo "llama.cpp not fetched: the real-vocabulary tests skip" >&2
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan -j2
