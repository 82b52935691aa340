#!/usr/bin/env bash
# bench/run_click.sh: click latency of the hand vs Playwright, in one run.
#   bench/run_click.sh [BUILD_DIR]     (default: build)
# Builds bench_click if needed, installs playwright-core (npm) if missing, then
# runs the C half (fovea's cascade_click, no humanization and humanized) and
# the Node half (Playwright's page.mouse.click and locator.click) one after
# the other on the same fixture page with the same Chromium and flags.
# REPS (default 200) and HUMAN (default 30) set the sample sizes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
cd "$root"
[ -x "$build/bench/bench_click" ] || cmake --build "$build" -j2 --target bench_click
(cd bench && [ -d node_modules/playwright-core ] || npm install --silent --no-audit --no-fund >/dev/null)
cat /proc/loadavg >&2
echo "== fovea (C, cascade_click) ==" >&2
"$build/bench/bench_click" --reps "${REPS:-200}" --human "${HUMAN:-30}"
echo "== Playwright (Node, playwright-core) ==" >&2
node bench/click_bench.js "${REPS:-200}"
