#!/usr/bin/env bash
# scripts/demo.sh: the README's first command. Installs what is missing,
# builds, then serves the bundled demo site (assets/site) on loopback,
# opens it in headless Chromium and writes a screenshot under out/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup.sh build
mkdir -p out
build/tools/fovea capture --site assets/site --out out/demo.png "$@"
echo "demo: screenshot written to $root/out/demo.png" >&2
