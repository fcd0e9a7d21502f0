#!/usr/bin/env bash
# Benchmark of the openb packing experiment (ATC'23 "Beware of Fragmentation", 10,866 arrivals on 6,212 GPUs):
# one `gputwin pack` process per policy under /usr/bin/time -v, so the wall time and peak RSS include
# reading the CSV files, the replay with its per-arrival fragmentation metric and writing the reports.
# Prints a Markdown table (docs/PERFORMANCE.md, "Packing experiment").
#
#   bench/pack_bench.sh [BUILD_DIR] [TRACE_DIR]   (defaults: build, data/openb)
#
# Environment: REPEAT (runs per policy; the fastest is reported, default 3), OUT (default BUILD_DIR/pack-bench).
set -euo pipefail

BUILD=${1:-build}
TRACE=${2:-data/openb}
REPEAT=${REPEAT:-3}
OUT=${OUT:-$BUILD/pack-bench}
GTW=$BUILD/sim/apps/cli/gputwin
[[ -x $GTW ]] || { echo "pack_bench.sh: $GTW not found; build the gputwin target first" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "pack_bench.sh: needs /usr/bin/time (GNU time)" >&2; exit 2; }
mkdir -p "$OUT"

elapsed_s() {  # seconds from GNU time's "Elapsed (wall clock) time (h:mm:ss or m:ss): ..." line
  grep 'Elapsed (wall clock)' "$1" | awk '{print $NF}' |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }'
}
rss_mb() { grep 'Maximum resident set size' "$1" | awk '{printf "%.1f", $NF / 1024}'; }

echo "| policy | replay (s) | process wall (s) | peak RSS (MB) | GPU allocated (%) | failed pods |"
echo "|---|---:|---:|---:|---:|---:|"
for policy in random-fit dot-product gpu-clustering gpu-packing best-fit fgd; do
  best_wall=""
  for ((i = 0; i < REPEAT; i++)); do
    /usr/bin/time -v -o "$OUT/$policy.time" "$GTW" pack --trace "$TRACE" --policy "$policy" -o "$OUT/$policy" \
      > "$OUT/$policy.out"
    wall=$(elapsed_s "$OUT/$policy.time")
    if [[ -z $best_wall ]] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then
      best_wall=$wall
      cp "$OUT/$policy.time" "$OUT/$policy.best.time"
      cp "$OUT/$policy.out" "$OUT/$policy.best.out"
    fi
  done
  # The summary line printed by gputwin pack: POLICY ARRIVALS FAILED FAILED(GPU) GPU-ALLOC% FRAG%CAP FRAG%IDLE WALL
  read -r _ _ failed _ alloc _ _ replay < <(grep "^$policy " "$OUT/$policy.best.out")
  echo "| $policy | ${replay%s} | $best_wall | $(rss_mb "$OUT/$policy.best.time") | $alloc | $failed |"
done
