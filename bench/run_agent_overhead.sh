#!/bin/sh
# bench/run_agent_overhead.sh: per-step overhead of the agent layer, model time
# excluded, on the demo site against the REPLAY of a recorded conversation
# (tests/fixtures/replay/agent/demo: 13 model calls, 10 tool steps; the replay
# answers in ~1 ms, so nearly all time is fovea's). Runs the demo case of
# build/tests/agent/plan/test_goal N times (default 5) and prints the median
# of each part of the run from its "agent:" summary line:
#   tools         the tools' own work (grounding, the hand, settling)
#   observations  reading the page for each model call (get_outline)
#   agent layer   the rest: eviction, ledger writes (fsync'ed), trace lines, JSON,
#                 page URL reads (a CDP round trip before and after each call)
# Usage: bench/run_agent_overhead.sh [BUILD_DIR] [N]
set -eu
B=${1:-build}
N=${2:-5}
T="$B/tests/agent/plan/test_goal"
E="$B/tests/agent/plan/out_agent/demo.stderr"
rows=""
i=0
while [ "$i" -lt "$N" ]; do
    "$T" demo > /dev/null 2>&1 || { echo "run $i failed" >&2; exit 1; }
    rows="$rows$(grep '^agent:' "$E")
"
    i=$((i + 1))
done
printf '%s' "$rows" | awk '
{
    for (k = 1; k <= NF; k++) {
        if ($k == "steps,") steps = $(k - 1)
        if ($k == "model") { v = $(k + 1); sub(",", "", v); model[NR] = v }
        if ($k == "tools") { v = $(k + 1); sub(",", "", v); tools[NR] = v }
        if ($k == "observations") { v = $(k + 1); sub(",", "", v); obs[NR] = v }
        if ($k == "layer") layer[NR] = $(k + 1)
        if ($k == "writes") { v = $(k + 1); sub(",", "", v); ledger[NR] = v }
        if ($k == "eviction") { v = $(k + 1); sub("\\)", "", v); evict[NR] = v }
        if ($k == "calls,") { v = $(k + 1); total[NR] = v }
    }
}
function med(a, n,   i, j, t, b) {
    for (i = 1; i <= n; i++) b[i] = a[i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
    return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
END {
    n = NR
    for (i = 1; i <= n; i++) { sub("ms:", "", total[i]); ex[i] = total[i] - model[i] }
    printf "runs %d, steps %d per run (medians, ms per step)\n", n, steps
    printf "  run excluding model time  %7.1f\n", med(ex, n) / steps
    printf "  tools                     %7.1f\n", med(tools, n) / steps
    printf "  observations (outline)    %7.1f\n", med(obs, n) / steps
    printf "  agent layer               %7.1f\n", med(layer, n) / steps
    printf "    of which ledger writes  %7.1f\n", med(ledger, n) / steps
    printf "    of which eviction       %7.2f\n", med(evict, n) / steps
    printf "  model (replay)            %7.1f\n", med(model, n) / steps
}'
