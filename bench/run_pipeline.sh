#!/bin/sh
# bench/run_pipeline.sh [BUILD_DIR [REPS]]: builds the overlay benchmark and
# the libvips baseline, then runs fovea, Pillow and libvips on the same
# 1280x800 screenshot with 50 marks and prints medians and ratios.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
reps=${2:-50}
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" -j2 --target bench_overlay >/dev/null
cmake --build "$build" -j2 --target vips_pipeline >/dev/null 2>&1 || true
exec /usr/bin/python3 "$root/bench/pipeline_baselines.py" "$build" "$reps"
