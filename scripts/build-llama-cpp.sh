#!/usr/bin/env bash
# Builds llama.cpp once — libllama + ggml only, static, CPU — from the tree that
# scripts/fetch-llama-cpp.sh pins, installs it into a cache outside the source tree and prints
# the install prefix (give it to CMake as CMAKE_PREFIX_PATH; crux finds it with
# find_package(llama)). Idempotent: a finished build of the same source and options is reused.
#
#   --server            build llama.cpp's own llama-server instead (the upstream of the
#                       --engine upstream tests, and side-by-side benchmarks; several more
#                       minutes): PREFIX/bin/llama-server
#   CRUX_LLAMA_CUDA=ON  build ggml's CUDA backend (needs the CUDA toolkit)
#   CRUX_LLAMA_CPP_BUILD_DIR  where builds go (default: $XDG_CACHE_HOME/crux/llama.cpp-build,
#                       or ~/.cache/crux/llama.cpp-build); one subfolder per option set
#   CRUX_JOBS           parallel compile jobs (default: the number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."

server=OFF
for arg in "$@"; do
  case "$arg" in
    --server) server=ON ;;
    *) echo "build-llama-cpp: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

src="$(scripts/fetch-llama-cpp.sh)"
cuda="${CRUX_LLAMA_CUDA:-OFF}"
root="${CRUX_LLAMA_CPP_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crux/llama.cpp-build}"
variant="cpu"
[[ "$cuda" == ON ]] && variant="cuda"
[[ "$server" == ON ]] && variant="$variant-server"
prefix="$root/$variant"
stamp="$prefix/.crux-built"
want="$(cat "$src/.crux-source" 2>/dev/null || echo unknown) cuda=$cuda server=$server"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "$prefix"
  exit 0
fi

command -v cmake >/dev/null || { echo "build-llama-cpp: cmake not found" >&2; exit 1; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

build="$root/build-$variant"
echo "build-llama-cpp: building llama.cpp ($variant) into $prefix" >&2
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON -DGGML_CUDA="$cuda" -DLLAMA_OPENSSL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
  -DLLAMA_BUILD_COMMON="$server" -DLLAMA_BUILD_TOOLS="$server" -DLLAMA_BUILD_SERVER="$server" \
  -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
targets=(--target llama)
[[ "$server" == ON ]] && targets=(--target llama llama-server)
cmake --build "$build" -j "${CRUX_JOBS:-$(nproc)}" "${targets[@]}" >&2
rm -rf "$prefix"
if [[ "$server" == ON ]]; then
  # The benchmark build: only the llama-server binary is kept (the libraries crux links come
  # from the build without --server).
  mkdir -p "$prefix/bin"
  cp "$build/bin/llama-server" "$prefix/bin/"
else
  cmake --install "$build" --prefix "$prefix" >/dev/null
fi
echo "$want" > "$stamp"
echo "$prefix"
