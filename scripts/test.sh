#!/usr/bin/env bash
# Installs dependencies, builds crux with clang + ASan/UBSan (tests and libFuzzer targets),
# installs the pinned SDKs for the end-to-end tests, fetches llama.cpp's source once into a
# cache (scripts/fetch-llama-cpp.sh: its real vocabularies; when that fails, e.g. offline, the
# tests that read them skip) and builds libllama once (scripts/build-llama-cpp.sh), and runs
# every test: unit tests, fixture every-split tests, short fuzz runs, the SDK end-to-end tests
# against `crux serve` on the mock engine and on the tiny Qwen3 model (in-process, and behind
# `--engine upstream` in front of llama-server, built once like libllama), and the lint checks
# (formatting, clang-tidy naming and function length, unit-test layout), and the chat page:
# ESLint, its unit tests, and the page in Chromium against the mock engine and the tiny model.
# The output ends with ctest's summary; the exit status is non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
# The chat page's libraries, bundler and linter (web/package-lock.json): the build embeds the
# page, the tests lint it and run its unit tests.
(cd web && npm ci --no-audit --no-fund --loglevel=error)
scripts/fetch-llama-cpp.sh >/dev/null || echo "llama.cpp not fetched: the real-vocabulary tests skip" >&2
# libllama + ggml, built once into a cache and reused: the llama.cpp engine, `crux smoke-model`
# and the tests on the tiny model. Without it (offline) crux builds with the mock engine only.
llama=()
if prefix="$(scripts/build-llama-cpp.sh)"; then
  llama=(-DCRUX_LLAMA=ON -DCMAKE_PREFIX_PATH="$prefix")
  # llama.cpp's own llama-server: the upstream the --engine upstream tests put crux in front of.
  if server="$(scripts/build-llama-cpp.sh --server)"; then
    llama+=(-DCRUX_LLAMA_SERVER="$server/bin/llama-server")
  else
    echo "llama-server not built: the upstream tests skip" >&2
  fi
else
  echo "llama.cpp not built: the engine tests are not registered" >&2
fi
cmake --preset asan "${llama[@]}" >/dev/null
cmake --build --preset asan
ctest --preset asan -j2
