#!/usr/bin/env bash
# Writes the tiny random-weight Qwen3 model (crux smoke-model) from llama.cpp's Qwen2/3
# vocabulary and the Qwen3 chat template in the pinned llama.cpp tree, unless it is already
# there. Usage: scripts/tiny-model.sh CRUX_BINARY OUT.gguf
# Exits 0 without writing when llama.cpp's tree is absent and cannot be fetched (offline):
# callers then skip what needs the model.
set -euo pipefail
cd "$(dirname "$0")/.."
crux="$1"
out="$2"
[[ -s "$out" ]] && exit 0
tree="$(scripts/fetch-llama-cpp.sh 2>/dev/null)" || { echo "tiny-model: llama.cpp tree unavailable" >&2; exit 0; }
mkdir -p "$(dirname "$out")"
"$crux" smoke-model --vocab "$tree/models/ggml-vocab-qwen2.gguf" \
  --template "$tree/models/templates/Qwen-Qwen3-0.6B.jinja" --out "$out"
