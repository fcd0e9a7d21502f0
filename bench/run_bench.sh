#!/usr/bin/env bash
# Whole-run benchmarks of gputwin: for each size, generate a scenario (gputwin-bench-gen), validate it,
# run it once with --format json and once with --format json,md,h5 under /usr/bin/time -v (one
# process per run: SimGrid allows one engine per process), and print Markdown tables. Optionally
# (BASELINE=1, the default) run plain SimGrid for comparison. See docs/PERFORMANCE.md.
#
#   bench/run_bench.sh [BUILD_DIR]          (default BUILD_DIR: build)
#
# Environment: SIZES (default "8 128 1024"), DURATION (simulated seconds of arrivals, default 60; the
# engine adds max(30 s, 25%) of drain), SEED (default 1), OUT (default BUILD_DIR/bench-out), REPEAT (runs per
# point, the one with the least CPU time is reported; default 1), WRITERS=0 to skip the json,md,h5
# runs, BASELINE=0 to skip the SimGrid baseline, COMPLIANCE=1 to add the compliance runs: each size
# again with `gputwin-bench-gen --compliance` (two regions, tagged data on shared file systems, audit,
# an identity graph per tenant, the 16 compliance rules), with --format json and --format all, next to
# the plain scenario with --format all (docs/PERFORMANCE.md, "Compliance, identity and audit"). The
# compliance scenario's storage traffic is super-linear in the engine today: 50 CPU s at 256 GPUs, an estimated
# hour at 1024, so use e.g. SIZES="128 256" with it.
set -euo pipefail

BUILD=${1:-build}
SIZES=${SIZES:-"8 128 1024"}
DURATION=${DURATION:-60}
SEED=${SEED:-1}
OUT=${OUT:-$BUILD/bench-out}
REPEAT=${REPEAT:-1}
WRITERS=${WRITERS:-1}
BASELINE=${BASELINE:-1}
COMPLIANCE=${COMPLIANCE:-0}

GEN=$BUILD/bench/gputwin-bench-gen
GTW=$BUILD/sim/apps/cli/gputwin
SGB=$BUILD/bench/gputwin-simgrid-baseline
for exe in "$GEN" "$GTW"; do
  [[ -x $exe ]] || { echo "run_bench.sh: $exe not found; build with -DGPUTWIN_BENCH=ON first" >&2; exit 2; }
done
for tool in jq /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "run_bench.sh: needs $tool" >&2; exit 2; }
done
mkdir -p "$OUT"

# Seconds from /usr/bin/time's "Elapsed (wall clock) time (h:mm:ss or m:ss): ..." line.
elapsed_s() {
  grep 'Elapsed (wall clock)' "$1" | awk '{print $NF}' |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }'
}
cpu_s() {  # user + system
  awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1"
}
peak_rss_mb() { grep 'Maximum resident set size' "$1" | awk '{printf "%.0f", $NF / 1024}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print "-" }'; }

# run SIZE FORMATS TAG [VARIANT]: REPEAT gputwin processes on bench-SIZE[VARIANT].yaml, one after the
# other; keeps the output directory DIR (report.json when json is asked) and, in DIR.time, the
# /usr/bin/time output of the run with the least CPU time.
run() {
  local size=$1 formats=$2 tag=$3 variant=${4:-}
  local dir=$OUT/run-$size-$tag best=-1
  for ((i = 0; i < REPEAT; i++)); do
    rm -rf "$dir.$i"
    /usr/bin/time -v -o "$dir.$i.time" "$GTW" run "$OUT/bench-$size$variant.yaml" -o "$dir.$i" --progress none \
      --format "$formats" > "$dir.$i.stdout"
    if ((best < 0)) || awk -v a="$(cpu_s "$dir.$i.time")" -v b="$(cpu_s "$dir.$best.time")" 'BEGIN { exit !(a < b) }'
    then
      best=$i
    fi
  done
  rm -rf "$dir"
  mv "$dir.$best" "$dir"
  mv "$dir.$best.time" "$dir.time"
  mv "$dir.$best.stdout" "$dir.stdout"
  for ((i = 0; i < REPEAT; i++)); do rm -rf "$dir.$i" "$dir.$i.time" "$dir.$i.stdout"; done
}

echo "# gputwin whole-run benchmark: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPU(s)," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), duration ${DURATION}s, seed $SEED," \
  "load average before: $(cut -d' ' -f1-3 /proc/loadavg), best of $REPEAT run(s) per point"
echo
for size in $SIZES; do
  "$GEN" --gpus "$size" --duration "$DURATION" --seed "$SEED" -o "$OUT/bench-$size.yaml"
  "$GTW" validate "$OUT/bench-$size.yaml" > /dev/null
  if [[ $COMPLIANCE == 1 ]]; then
    "$GEN" --gpus "$size" --duration "$DURATION" --seed "$SEED" --compliance -o "$OUT/bench-$size-c.yaml"
    "$GTW" validate "$OUT/bench-$size-c.yaml" > /dev/null
  fi
done

echo "## Runs with --format json"
echo
echo "| GPUs | simulated s | events | kernels | context switches | wall s | CPU s | engine wall s | kernels/wall s |" \
  "events/wall s | kernels/CPU s | events/CPU s | peak RSS MB |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for size in $SIZES; do
  run "$size" json json
  r=$OUT/run-$size-json/report.json
  sim=$(jq -r .summary.simulated_end_s "$r")
  events=$(jq -r .summary.events "$r")
  kernels=$(jq -r .summary.kernels "$r")
  switches=$(jq -r .summary.context_switches "$r")
  engine=$(jq -r '.provenance.wall_seconds | . * 100 | round / 100' "$r")
  wall=$(elapsed_s "$OUT/run-$size-json.time")
  rss=$(peak_rss_mb "$OUT/run-$size-json.time")
  cpu=$(cpu_s "$OUT/run-$size-json.time")
  echo "| $size | $sim | $events | $kernels | $switches | $wall | $cpu | $engine | $(ratio "$kernels" "$wall") |" \
    "$(ratio "$events" "$wall") | $(ratio "$kernels" "$cpu") | $(ratio "$events" "$cpu") | $rss |"
done

if [[ $WRITERS == 1 ]]; then
  echo
  echo "## Cost of the writers: --format json vs --format json,md,h5"
  echo
  echo "(CPU seconds are user + system: on a shared machine the wall-clock difference can be noise.)"
  echo
  echo "| GPUs | wall s (json) | wall s (json,md,h5) | CPU s (json) | CPU s (json,md,h5) | md+h5 CPU s |" \
    "peak RSS MB (json) | peak RSS MB (json,md,h5) | results.h5 MB |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for size in $SIZES; do
    run "$size" json,md,h5 all
    c1=$(cpu_s "$OUT/run-$size-json.time")
    c2=$(cpu_s "$OUT/run-$size-all.time")
    h5=$(du -m --apparent-size "$OUT/run-$size-all/results.h5" | cut -f1)
    echo "| $size | $(elapsed_s "$OUT/run-$size-json.time") | $(elapsed_s "$OUT/run-$size-all.time") | $c1 | $c2 |" \
      "$(awk -v a="$c1" -v b="$c2" 'BEGIN { printf "%.2f", b - a }') | $(peak_rss_mb "$OUT/run-$size-json.time") |" \
      "$(peak_rss_mb "$OUT/run-$size-all.time") | $h5 |"
  done
fi

if [[ $COMPLIANCE == 1 ]]; then
  echo
  echo "## Compliance, identity and audit: the same sizes with gputwin-bench-gen --compliance"
  echo
  echo "(plain: the scenario above; compliance: --compliance. CPU seconds are user + system.)"
  echo
  echo "| GPUs | events (plain / compliance) | audit records | identity paths | rules pass / fail |" \
    "CPU s json (plain / compliance) | CPU s all (plain / compliance) | wall s all (plain / compliance) |" \
    "peak RSS MB all (plain / compliance) | audit.jsonl MB |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for size in $SIZES; do
    [[ -f $OUT/run-$size-json.time ]] || run "$size" json json
    run "$size" all plain-all
    run "$size" json c-json -c
    run "$size" all c-all -c
    p=$OUT/run-$size-json/report.json
    c=$OUT/run-$size-c-json/report.json
    records=$(wc -l < "$OUT/run-$size-c-all/audit.jsonl")
    jsonl=$(du -m --apparent-size "$OUT/run-$size-c-all/audit.jsonl" | cut -f1)
    echo "| $size | $(jq -r .summary.events "$p") / $(jq -r .summary.events "$c") | $records |" \
      "$(jq -r '.leakage.identity_paths | length' "$c") |" \
      "$(jq -r '"\(.compliance.summary.pass) / \(.compliance.summary.fail)"' "$c") |" \
      "$(cpu_s "$OUT/run-$size-json.time") / $(cpu_s "$OUT/run-$size-c-json.time") |" \
      "$(cpu_s "$OUT/run-$size-plain-all.time") / $(cpu_s "$OUT/run-$size-c-all.time") |" \
      "$(elapsed_s "$OUT/run-$size-plain-all.time") / $(elapsed_s "$OUT/run-$size-c-all.time") |" \
      "$(peak_rss_mb "$OUT/run-$size-plain-all.time") / $(peak_rss_mb "$OUT/run-$size-c-all.time") | $jsonl |"
  done
fi

if [[ $BASELINE == 1 && -x $SGB ]]; then
  echo
  echo "## Plain SimGrid on this machine (gputwin-simgrid-baseline, one process per line)"
  echo
  echo "| workload | activities | wall s | CPU s | activities/wall s | activities/CPU s | simulated s | peak RSS MB |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  baseline() {
    local label=$1
    shift
    local line
    line=$("$SGB" "$@")  # mode=M activities=N wall_s=W act_per_s=R sim_s=S peak_rss_mb=P
    field() { tr ' ' '\n' <<< "$line" | sed -n "s/^$1=//p"; }
    echo "| $label | $(field activities) | $(field wall_s) | $(field cpu_s) | $(field act_per_s) |" \
      "$(field act_per_cpu_s) | $(field sim_s) | $(field peak_rss_mb) |"
  }
  baseline "1 actor x 1e6 sequential execs, 1 host" seq 1000000
  baseline "1000 actors x 100 execs, 100 hosts" actors 1000 100 100
  baseline "128 GPU actors x 1000 roofline kernels (2 execs each)" kernels 128 1000
  baseline "1024 GPU actors x 200 roofline kernels (2 execs each)" kernels 1024 200
  baseline "64 actors x 100k sleeps of 2 ms (quantum timers)" sleeps 64 100000
  baseline "512 actors x 10k sleeps of 2 ms (quantum timers)" sleeps 512 10000
  baseline "64 actors x 100k mutex + condition-variable waits, 2 ms deadline" cvwaits 64 100000
  baseline "512 actors x 10k mutex + condition-variable waits, 2 ms deadline" cvwaits 512 10000
fi
