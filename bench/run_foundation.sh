#!/usr/bin/env bash
# bench/run_foundation.sh: the foundation figures of bench/RESULTS.md.
# Installs the Node baseline client (ws) from npm, then runs `fovea bench`
# on the realistic fixture page at 1280x800 with the raw-CDP baseline
# interleaved in the same run against the same page.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[ -x build/tools/fovea ] || scripts/setup.sh build
(cd bench && [ -d node_modules/ws ] || npm install --silent --no-audit --no-fund >/dev/null)
cat /proc/loadavg >&2
build/tools/fovea bench --site tests/fixtures/pages --url /realistic.html \
  --width 1280 --height 800 --reps "${REPS:-50}" --rounds "${ROUNDS:-3}" \
  --baseline "node bench/cdp_rtt.js" "$@"
