#!/usr/bin/env bash
# Issue 21's scale table: the day load (gputwin-bench-gen --day-load: per GPU and day 1,000 requests and 100
# batch jobs, one training job per node) at each size x simulated duration, one process per run, under
# /usr/bin/time; prints a Markdown table (CPU s, peak RSS, events, CPU µs per event) and the growth exponents.
# See docs/PERFORMANCE.md, "The scale table".
#
#   bench/day_bench.sh [BUILD_DIR]        (default BUILD_DIR: build)
#
# Environment: SIZES (default "128 1024 4096 10000"), HOURS (default "1 6 24"), SEED (default 1), GEN_ARGS
# (more gputwin-bench-gen options, e.g. --continuous for continuous batching),
# GTW (the gputwin binary to time; default BUILD_DIR/sim/apps/cli/gputwin, e.g. another build to compare),
# OUT (default BUILD_DIR/day-bench-out). A 10,000-GPU day takes about 15 minutes and 3.6 GB; the spilled
# event log needs ~8 GB in $TMPDIR.
set -euo pipefail

BUILD=${1:-build}
SIZES=${SIZES:-"128 1024 4096 10000"}
HOURS=${HOURS:-"1 6 24"}
SEED=${SEED:-1}
GEN=$BUILD/bench/gputwin-bench-gen
GTW=${GTW:-$BUILD/sim/apps/cli/gputwin}
OUT=${OUT:-$BUILD/day-bench-out}
for exe in "$GEN" "$GTW"; do
  [[ -x $exe ]] || { echo "day_bench.sh: $exe not found; build with -DGPUTWIN_BENCH=ON first" >&2; exit 2; }
done
command -v jq > /dev/null || { echo "day_bench.sh: needs jq" >&2; exit 2; }
mkdir -p "$OUT"

cpu_s() { awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1"; }
peak_mb() { grep 'Maximum resident set size' "$1" | awk '{printf "%.0f", $NF / 1024}'; }

echo "| GPUs | simulated | events | CPU s | peak RSS MB | CPU µs per event | allocator |"
echo "|---:|---:|---:|---:|---:|---:|---|"
declare -A cpu
for size in $SIZES; do
  for h in $HOURS; do
    scenario=$OUT/day-$size-${h}h.yaml
    # shellcheck disable=SC2086 # GEN_ARGS is a list of options
    "$GEN" --gpus "$size" --duration $((h * 3600)) --seed "$SEED" --day-load ${GEN_ARGS:-} -o "$scenario" > /dev/null
    dir=$OUT/run-$size-${h}h
    rm -rf "$dir"
    /usr/bin/time -v -o "$dir.time" "$GTW" run "$scenario" -o "$dir" --format json --progress none \
      --max-events 1e10 --max-memory 100000GiB > /dev/null
    events=$(jq '.summary.events' "$dir/report.json")
    c=$(cpu_s "$dir.time")
    cpu[$size,$h]=$c
    printf "| %s | %s h | %s | %s | %s | %s | %s |\n" "$size" "$h" "$events" "$c" "$(peak_mb "$dir.time")" \
      "$(awk -v c="$c" -v e="$events" 'BEGIN { printf "%.2f", c * 1e6 / e }')" \
      "$(jq -r '.provenance.allocator // "unknown"' "$dir/report.json")"
    rm -rf "$dir"  # a day's report.json is ~350 MB
  done
done

# Growth exponents: CPU ~ GPUs^a between the smallest and largest size, per duration; and against the
# issue's criterion, the largest size's CPU over the linear extrapolation from the smallest.
sizes=($SIZES)
lo=${sizes[0]} hi=${sizes[${#sizes[@]} - 1]}
echo
for h in $HOURS; do
  awk -v a="${cpu[$lo,$h]}" -v b="${cpu[$hi,$h]}" -v lo="$lo" -v hi="$hi" -v h="$h" 'BEGIN {
    printf "- %s h: CPU grows as GPUs^%.2f from %s to %s GPUs; %.2fx the linear extrapolation\n",
      h, log(b / a) / log(hi / lo), lo, hi, b / (a * hi / lo) }'
done
