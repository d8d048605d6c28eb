#!/usr/bin/env bash
# Installs what crux needs to build and test on Debian 12 (run as root, or with sudo present).
# Quick when everything is already installed.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev libomp-14-dev clang-format clang-tidy ccache
  pkg-config
  nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev libboost1.81-dev
  chromium python3-jinja2
)

# python3-jinja2 is the reference renderer the chat-template tests compare crux against.
# Chromium runs the browser end-to-end tests (web pages against a local crux).
# Node.js and npm run the end-to-end tests; the machine's own Node 20 is used when present.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  echo "installing: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
