#!/usr/bin/env bash
# Where SimGrid itself stops being linear: plain SimGrid (gputwin-simgrid-baseline, no gputwin code) doing the
# same number of activities with 128 to 10,000 GPU actors, each GPU running pseudo-random kernels with idle gaps
# (`staggered`), the same work driven from completion callbacks without actors (`callbacks`, smaller: it is
# quadratic in SimGrid 3.32), and the staggered work under other context settings. Prints Markdown tables.
# See docs/PERFORMANCE.md, "Where SimGrid itself is the limit".
#
#   bench/simgrid_scaling.sh [BUILD_DIR]     (default BUILD_DIR: build)
#
# Environment: SIZES (default "128 1024 4096 10000"), KERNELS (total kernels per run, default 1280000),
# CALLBACK_KERNELS (default 128000), CONFIGS=1 to add the context-settings rows at the largest size (~2 min).
set -euo pipefail

BUILD=${1:-build}
SIZES=${SIZES:-"128 1024 4096 10000"}
KERNELS=${KERNELS:-1280000}
CALLBACK_KERNELS=${CALLBACK_KERNELS:-128000}
BASE=$BUILD/bench/gputwin-simgrid-baseline
[[ -x $BASE ]] || { echo "simgrid_scaling.sh: $BASE not found; build with -DGPUTWIN_BENCH=ON first" >&2; exit 2; }

field() { tr ' ' '\n' <<< "$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }

table() {  # mode, total kernels, gap
  local mode=$1 total=$2 gap=$3 first=""
  echo "| $mode, gap x$gap: GPU actors | activities | CPU s | us per activity | x the smallest | peak RSS MB |"
  echo "|---:|---:|---:|---:|---:|---:|"
  for g in $SIZES; do
    local line us
    line=$("$BASE" "$mode" "$g" $((total / g)) "$gap")
    us=$(awk -v c="$(field "$line" cpu_s)" -v n="$(field "$line" activities)" 'BEGIN { printf "%.2f", 1e6 * c / n }')
    first=${first:-$us}
    printf '| %s | %s | %s | %s | %s | %s |\n' "$g" "$(field "$line" activities)" "$(field "$line" cpu_s)" "$us" \
      "$(awk -v a="$us" -v b="$first" 'BEGIN { printf "%.2f", a / b }')" "$(field "$line" peak_rss_mb)"
  done
  echo
}

table staggered "$KERNELS" 1
table staggered "$KERNELS" 19
table callbacks "$CALLBACK_KERNELS" 1

if [[ ${CONFIGS:-0} == 1 ]]; then
  largest=${SIZES##* }
  echo "| staggered, $largest GPU actors: SimGrid settings | CPU s |"
  echo "|---|---:|"
  for cfg in "" "contexts/stack-size:64" "contexts/stack-size:64 contexts/guard-size:0" "contexts/factory:ucontext" \
    "contexts/factory:boost"; do
    line=$(GTW_BASELINE_CFG="$cfg" "$BASE" staggered "$largest" $((KERNELS / largest)) 1)
    printf '| %s | %s |\n' "${cfg:-defaults (raw contexts, 8 MiB stacks)}" "$(field "$line" cpu_s)"
  done
fi
