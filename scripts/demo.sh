#!/usr/bin/env bash
# scripts/demo.sh: the README's first command. Installs what is missing,
# builds, then runs the demo task (assets/tasks/demo.json) on the bundled
# "Travel Finder" site (assets/site, served by fovea on two loopback origins)
# in headless Chromium through the whole engine. Writes out/demo/:
# report.html (open it in a browser), trace.jsonl, steps/NNN.png.
# Extra arguments go to `fovea run` (e.g. --headful, --no-humanize,
# --vision openai).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup.sh build
status=0
build/tools/fovea run assets/tasks/demo.json --site assets/site --out out/demo "$@" || status=$?
if [ -f out/demo/report.html ]; then
  echo "demo: report at $root/out/demo/report.html" >&2
fi
exit "$status"
