#!/usr/bin/env bash
# bench/run_steps.sh: per-step latency of fovea vs Playwright, in one run.
#   bench/run_steps.sh [BUILD_DIR]     (default: build)
# Runs `fovea bench steps` (dom provider, no humanization, no overlays) and
# bench/step_bench.js (playwright-core: screenshot + DOM probe + hit test +
# click per step) on the same task (assets/tasks/bench.json), the same site
# served by fovea's loopback server, the same viewport and Debian's Chromium,
# alternating ROUNDS times (default 3) so both see the same machine state.
# Prints each round's medians, the median over rounds, and the ratio
# fovea / Playwright (target: <= 0.5). N (default 24) steps per round.
# CLICK=locator times locator.click instead of page.mouse.click.
# Each round also runs `fovea bench steps --procedural both` (procedural steps
# find their element through the vision epoch or through the snapper probe,
# drawn per step) and prints the two paths' snap and step medians.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
cd "$root"
[ -x "$build/tools/fovea" ] || cmake --build "$build" -j2 --target fovea
(cd bench && [ -d node_modules/playwright-core ] || npm install --silent --no-audit --no-fund >/dev/null)
n="${N:-24}"
rounds="${ROUNDS:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat /proc/loadavg >&2
for r in $(seq 1 "$rounds"); do
  "$build/tools/fovea" bench steps --n "$n" --json --out "$tmp/out" > "$tmp/fovea.$r.json"
  node bench/step_bench.js --n "$n" --fovea "$build/tools/fovea" --click "${CLICK:-mouse}" > "$tmp/pw.$r.json"
  "$build/tools/fovea" bench steps --n "$((4 * n))" --json --procedural both --seed "$r" \
    --out "$tmp/out" > "$tmp/both.$r.json"
done
node - "$tmp" "$rounds" <<'JS'
const fs = require('fs');
const [dir, rounds] = [process.argv[2], Number(process.argv[3])];
const med = (v) => { const s = [...v].sort((a, b) => a - b), k = s.length; return k % 2 ? s[k >> 1] : (s[k / 2 - 1] + s[k / 2]) / 2; };
const f = [], p = [];
for (let r = 1; r <= rounds; r++) {
  f.push(JSON.parse(fs.readFileSync(`${dir}/fovea.${r}.json`, 'utf8')));
  p.push(JSON.parse(fs.readFileSync(`${dir}/pw.${r}.json`, 'utf8')));
}
const fx = (x) => x.toFixed(2).padStart(8);
console.log(`fovea ${f[0].browser}, vision ${f[0].vision}, humanize ${f[0].humanize}, overlays ${f[0].overlays}; ` +
  `playwright-core ${p[0].playwright} (${p[0].click}); ${f[0].n} steps x ${rounds} rounds, task: ${f[0].task}`);
console.log('fovea stage     ' + f.map((_, i) => `  round ${i + 1}`).join('') + '    median');
for (const k of Object.keys(f[0].stages)) {
  const v = f.map((x) => x.stages[k].median);
  console.log(k.padEnd(16) + v.map(fx).join(' ') + '  ' + fx(med(v)));
}
console.log('playwright stage' + p.map((_, i) => `  round ${i + 1}`).join('') + '    median');
for (const k of Object.keys(p[0].stages)) {
  const v = p.map((x) => x.stages[k].median);
  console.log(k.padEnd(16) + v.map(fx).join(' ') + '  ' + fx(med(v)));
}
const ft = med(f.map((x) => x.stages.total.median)), pt = med(p.map((x) => x.stages.total.median));
console.log(`step median: fovea ${ft.toFixed(2)} ms, Playwright ${pt.toFixed(2)} ms, ` +
  `ratio fovea/Playwright ${(ft / pt).toFixed(2)} (target <= 0.50)`);
// Procedural steps, epoch path vs snapper probe, drawn per step in one run.
const b = [];
for (let r = 1; r <= rounds; r++) b.push(JSON.parse(fs.readFileSync(`${dir}/both.${r}.json`, 'utf8')));
console.log('procedural steps (--procedural both)' + b.map((_, i) => `  round ${i + 1}`).join('') + '    median');
const rows = [['epoch mode n', (x) => x.procedural_paths.epoch_mode.n],
  ['  of which fallback', (x) => x.procedural_paths.fallback.n],
  ['epoch snap ms', (x) => x.procedural_paths.epoch_mode.snap_median],
  ['snapper snap ms', (x) => x.procedural_paths.snapper.snap_median],
  ['epoch step ms', (x) => x.procedural_paths.epoch_mode.step_median],
  ['snapper step ms', (x) => x.procedural_paths.snapper.step_median],
  ['snapper n', (x) => x.procedural_paths.snapper.n]];
for (const [name, get] of rows) {
  const v = b.map(get);
  console.log(name.padEnd(36) + v.map(fx).join(' ') + '  ' + fx(med(v)));
}
const sv = med(b.map((x) => x.procedural_paths.snapper.snap_median - x.procedural_paths.epoch_mode.snap_median));
const tv = med(b.map((x) => x.procedural_paths.snapper.step_median - x.procedural_paths.epoch_mode.step_median));
console.log(`saving per procedural step (snapper - epoch, median over rounds): snap ${sv.toFixed(2)} ms, step ${tv.toFixed(2)} ms`);
JS
