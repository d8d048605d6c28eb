#!/usr/bin/env bash
# Installs dependencies, builds crux with clang + ASan/UBSan (tests and libFuzzer targets),
# and runs every test: unit tests, fixture every-split tests, and short fuzz runs.
# The output ends with ctest's summary; the exit status is non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan -j2
