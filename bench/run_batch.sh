#!/usr/bin/env bash
# bench/run_batch.sh: tasks per minute of `fovea batch` on the demo task
# (assets/tasks/demo.json on assets/site, as scripts/demo.sh runs it, with
# --overlays none), at WORKERS (default "1 2 4") workers, each launching its
# own Chromium and each through a local browserless pool (scripts/pool.sh,
# CONCURRENT = the largest worker count, QUEUED=8, 300 s per session), in the
# same run: for every worker count the local and the pool batch run back to
# back, ROUNDS times (default 1), so both see the same machine state.
#   bench/run_batch.sh [BUILD_DIR]        K tasks per batch: K=4 (env)
# Prints one line per batch and a table: tasks/min (K / batch wall time, the
# median over rounds), its ratio to 1 local worker, and fovea's own memory
# per worker (peak RSS of each `fovea run` process, from wait4: the browser is
# not counted; median over the batch's tasks).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
cd "$root"
[ -x "$build/tools/fovea" ] || cmake --build "$build" -j2 --target fovea
k="${K:-4}"
workers="${WORKERS:-1 2 4}"
rounds="${ROUNDS:-1}"
max=1
for n in $workers; do [ "$n" -gt "$max" ] && max="$n"; done
tmp="$(mktemp -d)"
pooldir="$tmp/pool"
cleanup() { scripts/pool.sh stop --dir "$pooldir" || true; rm -rf "$tmp"; }
trap cleanup EXIT
ep="$(scripts/pool.sh start --dir "$pooldir" --concurrent "$max" --queued 8 --timeout-s 300)"
tasks=()
for _ in $(seq 1 "$k"); do tasks+=(assets/tasks/demo.json); done
echo "load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cpus; K=$k tasks per batch" >&2
for r in $(seq 1 "$rounds"); do
  for n in $workers; do
    for mode in local pool; do
      out="$tmp/$mode.$n.$r"
      extra=()
      [ "$mode" = pool ] && extra=(--cdp "$ep" --cdp-wait 300)
      t0="$(date +%s.%N)"
      "$build/tools/fovea" batch "${tasks[@]}" --site assets/site --overlays none \
        --workers "$n" --out "$out" --retries 0 "${extra[@]}" 2>"$out.log" || {
        echo "batch $mode N=$n failed:" >&2; tail -5 "$out.log" >&2; exit 1; }
      t1="$(date +%s.%N)"
      echo "$mode $n $r $(echo "$t1 - $t0" | bc)" >> "$tmp/walls"
      echo "round $r $mode N=$n: $(tail -1 "$out.log" | sed 's/; index.*//')" >&2
    done
  done
done
node - "$tmp" "$k" <<'JS'
const fs = require('fs');
const [dir, k] = [process.argv[2], Number(process.argv[3])];
const med = (v) => { const s = [...v].sort((a, b) => a - b), n = s.length; return n % 2 ? s[n >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const rows = {};
for (const line of fs.readFileSync(`${dir}/walls`, 'utf8').trim().split('\n')) {
  const [mode, n, r, wall] = line.split(' ');
  const key = `${mode} ${n}`;
  rows[key] = rows[key] || { mode, n: Number(n), tpm: [], rss: [] };
  rows[key].tpm.push(k / Number(wall) * 60);
  for (const l of fs.readFileSync(`${dir}/${mode}.${n}.${r}/results.jsonl`, 'utf8').trim().split('\n'))
    rows[key].rss.push(JSON.parse(l).max_rss_kb / 1024);
}
const base = med(rows['local 1'].tpm);
console.log('| browsers | workers | tasks/min (median) | vs 1 local worker | fovea MiB per worker (median peak RSS) |');
console.log('|---|---:|---:|---:|---:|');
for (const r of Object.values(rows).sort((a, b) => a.n - b.n || a.mode.localeCompare(b.mode)))
  console.log(`| ${r.mode === 'pool' ? 'browserless pool' : 'own Chromium each'} | ${r.n} | ${med(r.tpm).toFixed(2)} | ${(med(r.tpm) / base).toFixed(2)}x | ${med(r.rss).toFixed(0)} |`);
JS
