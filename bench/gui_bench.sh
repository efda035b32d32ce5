#!/usr/bin/env bash
# The GUI on large traces: opens a generated trace (the inspector benchmark's
# generator: 5,000 runs = 1,005,000 profile events; 50,000 runs = 10M) in
# etinspect-gui and draws frames of the timeline fitted to the whole trace
# at 1600x1000, under xvfb with Mesa's software GL when there is no display.
#
#   bench/gui_bench.sh BUILD_DIR [RUNS...] [-- FRAMES]
# Prints the app's JSON line per trace.
set -euo pipefail
build=${1:?usage: bench/gui_bench.sh BUILD_DIR [RUNS...]}
shift
runs=("$@")
[[ ${#runs[@]} -eq 0 ]] && runs=(5000 50000)
frames=${FRAMES:-60}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run_gui=("$(dirname "$0")/../scripts/with-display" "$build/gui/etinspect-gui")
for n in "${runs[@]}"; do
  for layout in same per-run; do
    trace="$dir/trace_${n}_${layout}.etdp"
    flag=()
    [[ $layout == per-run ]] && flag=(--per-run-blocks)
    "$build/bench/make_trace" "$trace" "$n" "${flag[@]}" >&2
    echo -n "$n runs, $layout: "
    "${run_gui[@]}" "$trace" --bench-frames "$frames" --size 1600x1000 2>/dev/null
  done
done
