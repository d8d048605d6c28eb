#!/usr/bin/env bash
# Installs dependencies, builds crux (release) and runs the main job: `crux serve` with the
# mock engine replaying the scripted model outputs in tests/e2e/scripts (one model per file),
# with the qwen3 reasoning parser and the hermes tool-call parser. Stop it with Ctrl-C.
# PORT (default 8000) and HOST (default 127.0.0.1) choose where it listens.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release -DCRUX_BUILD_TESTS=OFF -DCRUX_BUILD_BENCH=OFF >/dev/null
cmake --build --preset release --target crux

port="${PORT:-8000}"
host="${HOST:-127.0.0.1}"
cat <<TXT
crux serve on http://$host:$port — try:
  curl -N http://$host:$port/v1/chat/completions -H 'content-type: application/json' \\
    -d '{"model": "weather", "stream": true, "messages": [{"role": "user", "content": "Weather in Paris?"}],
         "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]}'
  curl http://$host:$port/v1/messages -H 'content-type: application/json' \\
    -d '{"model": "reasoning", "max_tokens": 200, "messages": [{"role": "user", "content": "hi"}]}'
TXT
exec build/release/apps/crux/crux serve --engine mock --script tests/e2e/scripts \
  --reasoning-parser qwen3 --tool-call-parser hermes --host "$host" --port "$port"
