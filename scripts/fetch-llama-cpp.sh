#!/usr/bin/env bash
# Obtains llama.cpp's source once, into a cache outside the source tree, and prints its
# directory. The source comes from the node-llama-cpp npm package, which bundles the llama.cpp
# release it builds as a git bundle (package/llama/gitRelease.bundle; see the llama.cpp
# reference notes, §0). The real-vocabulary tests read models/ggml-vocab-*.gguf from it.
#
#   CRUX_LLAMA_CPP_DIR   where the tree goes (default: $XDG_CACHE_HOME/crux/llama.cpp,
#                        or ~/.cache/crux/llama.cpp)
#
# Idempotent: does nothing but print the directory when the tree is already there. Needs npm,
# tar and git; exits non-zero (and leaves no partial tree behind) when any step fails.
set -euo pipefail

readonly package="node-llama-cpp@3.22.1"  # bundles llama.cpp v0.5.0 (commit de3ff815)
dir="${CRUX_LLAMA_CPP_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crux/llama.cpp}"

# The tree records which package it came from; a tree from another pin is replaced.
if [[ -f "$dir/models/ggml-vocab-llama-bpe.gguf" && "$(cat "$dir/.crux-source" 2>/dev/null)" == "$package" ]]; then
  echo "$dir"
  exit 0
fi

for tool in npm tar git; do
  command -v "$tool" >/dev/null || { echo "fetch-llama-cpp: $tool not found" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent --loglevel=error --fetch-retries=1 "$package" >/dev/null)
tar xzf "$work"/node-llama-cpp-*.tgz -C "$work" package/llama/gitRelease.bundle

mkdir -p "$(dirname "$dir")"
rm -rf "$dir.partial"
git -c advice.detachedHead=false clone --quiet "$work/package/llama/gitRelease.bundle" "$dir.partial"
echo "$package" > "$dir.partial/.crux-source"
rm -rf "$dir"
mv "$dir.partial" "$dir"
echo "$dir"
