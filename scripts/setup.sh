#!/usr/bin/env bash
# scripts/setup.sh: installs the Debian packages fovea needs (only the
# missing ones) and configures + builds one build directory.
#
#   scripts/setup.sh BUILD_DIR [extra cmake args...]
#
# Sourced knowledge lives here once; scripts/demo.sh and scripts/test.sh
# call it. Needs root (or sudo) only when a package is missing.
set -euo pipefail

PACKAGES=(
  build-essential clang libclang-rt-dev cmake pkg-config
  libwebsockets-dev libcjson-dev libcurl4-openssl-dev libpng-dev
  libturbojpeg0-dev libjpeg62-turbo-dev libstb-dev libomp-dev libdeflate-dev
  libpcre2-dev
  libtesseract-dev libleptonica-dev tesseract-ocr-eng python3-doc
  chromium fonts-dejavu-core fonts-liberation
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

build="${1:?usage: setup.sh BUILD_DIR [cmake args]}"
shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
