#!/usr/bin/env bash
# The quick start: installs dependencies, fetches and builds llama.cpp once (into a cache
# outside the source tree), builds crux (release), writes the tiny random-weight Qwen3 model
# (crux smoke-model: a real vocabulary and chat template, random weights) and serves it with
# `crux serve --model`. Stop it with Ctrl-C.
#   PORT (default 8000), HOST (default 127.0.0.1)  where it listens
#   MODEL=path.gguf                                serve this model instead of the tiny one
#   scripts/run.sh --mock                          the mock engine instead: scripted outputs
#                                                  (tests/e2e/scripts), no llama.cpp needed
set -euo pipefail
cd "$(dirname "$0")/.."

mock=0
[[ "${1:-}" == "--mock" ]] && mock=1
port="${PORT:-8000}"
host="${HOST:-127.0.0.1}"

scripts/install-deps.sh
# The chat page's libraries and bundler (web/package-lock.json); without them crux builds with
# no page at / (the API is the same).
(cd web && npm ci --no-audit --no-fund --loglevel=error) || echo "run: the chat page is not built" >&2
if [[ $mock == 1 ]]; then
  cmake --preset release -DCRUX_BUILD_TESTS=OFF -DCRUX_BUILD_BENCH=OFF >/dev/null
  cmake --build --preset release --target crux
  echo "crux serve (mock engine) on http://$host:$port — open it in a browser for the chat page"
  exec build/release/apps/crux/crux serve --engine mock --script tests/e2e/scripts \
    --reasoning-parser qwen3 --tool-call-parser hermes --host "$host" --port "$port"
fi

prefix="$(scripts/build-llama-cpp.sh)"
cmake --preset release -DCRUX_BUILD_TESTS=OFF -DCRUX_BUILD_BENCH=OFF \
  -DCRUX_LLAMA=ON -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build --preset release --target crux
crux=build/release/apps/crux/crux
model="${MODEL:-build/release/models/tiny-qwen3.gguf}"
[[ -n "${MODEL:-}" ]] || scripts/tiny-model.sh "$crux" "$model"
[[ -s "$model" ]] || { echo "run: no model at $model" >&2; exit 1; }
name="$(basename "$model" .gguf)"

cat <<TXT
crux serve on http://$host:$port with $model — open it in a browser for the chat page, or try:
  curl -N http://$host:$port/v1/chat/completions -H 'content-type: application/json' -d '{
    "model": "$name", "stream": true, "max_tokens": 200, "thinking_token_budget": 16,
    "messages": [{"role": "user", "content": "Weather in Paris?"}], "tool_choice": "required",
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
      "properties": {"city": {"type": "string", "maxLength": 20}}, "required": ["city"],
      "additionalProperties": false}}}]}'
  (random weights: the words are noise, the structure is real)
TXT
exec "$crux" serve --model "$model" --host "$host" --port "$port"
