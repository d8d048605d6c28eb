#!/usr/bin/env bash
# Installs dependencies, builds crux (release) and runs the main job: `crux parse` on a
# streamed Qwen3-style output with reasoning, printing the parsed JSON.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release -DCRUX_BUILD_TESTS=OFF -DCRUX_BUILD_BENCH=OFF >/dev/null
cmake --build --preset release --target crux

printf '%s' '["<th", "ink>\nThe user wants 2+2.", " That is 4.\n</th", "ink>\n\nThe answer", " is 4."]' |
  build/release/apps/crux/crux parse --reasoning-parser qwen3 --chunks
