#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang under AddressSanitizer + UndefinedBehaviorSanitizer in
# build-fuzz/, replays the kept findings (tests/fuzz/regressions/<target>/), then fuzzes each target for a
# bounded time from a seed corpus made of the repository's inputs (scenarios/, tests/fixtures/, data/; each
# seed cut to 64 KiB). Exits non-zero on any finding: a regression that still fails, or a crash, leak,
# timeout or out-of-memory found now (artifacts in build-fuzz/findings/<target>/).
#
#   scripts/fuzz.sh --ci                 what CI runs: every target deterministically (seed 1, a fixed number of
#                                        executions per target, about a minute each, from a fresh corpus), so a
#                                        CI finding reproduces here with the same command
#   scripts/fuzz.sh                      every target, 60 s each (exploratory: differs from run to run)
#   scripts/fuzz.sh --time 600 csv       one target, 10 minutes
#   scripts/fuzz.sh --runs 1000000       every target, 1,000,000 executions each (no time limit)
#   scripts/fuzz.sh --keep-going ...     fork mode: keep fuzzing after a crash, timeout or OOM (local runs)
#   scripts/fuzz.sh --no-build ...       reuse build-fuzz as it is
#
# Targets: scenario (scenario loader), nvidia-smi (topo -m / mig -lgi / mig -lci), csv (CsvTable, request
# traces, openb lists), audit (audit.jsonl reader). Environment: CC/CXX (default clang/clang++),
# GTW_FUZZ_BUILD (default <repo>/build-fuzz), CMAKE_BUILD_PARALLEL_LEVEL (build jobs).
# Findings are kept as regression tests: minimise (`build-fuzz/tests/fuzz/gputwin-fuzz-<t> -minimize_crash=1
# -runs=100000 <artifact>`), then copy the reproducer to tests/fuzz/regressions/<t>/ with a descriptive name;
# ctest -R fuzz_replay replays it in the ordinary build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GTW_FUZZ_BUILD:-$root/build-fuzz}
all_targets=(scenario nvidia-smi csv audit)

time_s=""
runs=""
keep_going=0
do_build=1
ci=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_s=$2; shift 2 ;;
    --time=*) time_s=${1#--time=}; shift ;;
    --runs) runs=$2; shift 2 ;;
    --runs=*) runs=${1#--runs=}; shift ;;
    --keep-going) keep_going=1; shift ;;
    --no-build) do_build=0; shift ;;
    --ci) ci=1; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  case " ${all_targets[*]} " in *" $t "*) ;; *) echo "fuzz.sh: unknown target '$t' (${all_targets[*]})" >&2; exit 2 ;; esac
done
# Bounded by time unless only --runs (or --ci) was given.
if [ -z "$time_s" ] && [ -z "$runs" ] && [ $ci = 0 ]; then time_s=60; fi

# --ci: executions per target, about a minute each on a CI machine (CI measured 1,200 / 800 / 260 / 15,500
# exec/s for scenario / nvidia-smi / csv / audit); a 5-minute cap per target guards a slower machine (then the
# run is no longer the same as CI's, and the summary says it stopped on time).
ci_runs() {
  case "$1" in
    scenario) echo 60000 ;;
    nvidia-smi) echo 40000 ;;
    csv) echo 12000 ;;
    audit) echo 600000 ;;
  esac
}

# Largest input per target: the biggest seeds fit (scenario files are a few KiB); the CSV readers take 8 KiB (a 64 KiB seed
# is read cut to it: larger inputs only repeat rows and slow the fuzzer tenfold).
max_len() {
  case "$1" in
    scenario) echo 16384 ;;
    nvidia-smi) echo 32768 ;;
    csv) echo 8192 ;;
    audit) echo 16384 ;;
  esac
}

# Seeds per target: the repository's files of the kinds that target reads.
seed_files() {
  case "$1" in
    scenario) find "$root/scenarios" "$root/tests/fixtures" "$root/data" -type f \( -name '*.yaml' -o -name '*.yml' \) ;;
    nvidia-smi) find "$root/tests/fixtures/nvidia-smi" -type f -name '*.txt'
                find "$root/scenarios" "$root/data" -type f -name '*.txt' ;;
    csv) find "$root/scenarios" "$root/tests/fixtures" "$root/data" -type f -name '*.csv' ;;
    audit) find "$root/scenarios" "$root/tests/fixtures" "$root/data" -type f \( -name '*.jsonl' -o -name '*.json' \)
           find "$root/tests/fuzz/seeds/audit" -type f ;;
  esac
  find "$root/tests/fuzz/seeds/$1" -type f 2>/dev/null || true
}

cc=${CC:-clang}
cxx=${CXX:-clang++}
if [ $do_build = 1 ]; then
  command -v "$cxx" > /dev/null || { echo "fuzz.sh: $cxx not found (apt-get install clang)" >&2; exit 2; }
  rt=$("$cxx" -print-runtime-dir 2>/dev/null || true)
  if ! ls "$rt"/libclang_rt.fuzzer*.a > /dev/null 2>&1 &&
     ! "$cxx" -fsanitize=fuzzer -x c++ - -o /dev/null <<< 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' 2> /dev/null; then
    echo "fuzz.sh: no libFuzzer runtime for $cxx (Debian: apt-get install libclang-rt-14-dev)" >&2
    exit 2
  fi
  generator=()
  if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja > /dev/null; then generator=(-G Ninja); fi
  echo "== configure $build ($cxx, libFuzzer + address,undefined)"
  # No GPUTWIN_WERROR: clang warns where gcc (the -Werror build) does not. Line tables only (-g1): findings still
  # print file:line, and the build takes a third less time than with full debug information.
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DGPUTWIN_FUZZ=ON -DGPUTWIN_SANITIZE=address,undefined \
    -DGPUTWIN_WERROR=OFF -DGPUTWIN_GUI=OFF -DGPUTWIN_CUDA=OFF -DGPUTWIN_BENCH=OFF > "$build.configure.log" 2>&1 ||
    { cat "$build.configure.log" >&2; exit 2; }
  echo "== build ${targets[*]}"
  build_targets=()
  for t in "${targets[@]}"; do build_targets+=("gputwin-fuzz-$t"); done
  cmake --build "$build" --target "${build_targets[@]}"
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:handle_abort=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
summary=()
for t in "${targets[@]}"; do
  exe="$build/tests/fuzz/gputwin-fuzz-$t"
  [ -x "$exe" ] || { echo "fuzz.sh: $exe not built" >&2; exit 2; }
  corpus="$build/fuzz-corpus/$t"
  findings="$build/findings/$t"
  rm -rf "$corpus/seeds"
  mkdir -p "$corpus/seeds" "$corpus/work" "$findings"

  # 1. The kept findings: each must now run clean.
  regressions=0
  failed_regressions=0
  while IFS= read -r f; do
    regressions=$((regressions + 1))
    # timeout(1) as well: after an out-of-memory, the sanitizer's exit-time work on a huge heap can take minutes.
    if ! timeout -k 10 120 "$exe" -rss_limit_mb=2048 -timeout=10 "$f" > "$findings/regression-$(basename "$f").log" 2>&1; then
      echo "FAIL regression $t: ${f#"$root"/} (log: $findings/regression-$(basename "$f").log)"
      failed_regressions=$((failed_regressions + 1))
    fi
  done < <(find "$root/tests/fuzz/regressions/$t" -type f ! -name '.*' ! -name 'README*' 2>/dev/null | sort)
  [ $failed_regressions = 0 ] || status=1

  # 2. Seeds: the repository's inputs (64 KiB each at most) and the regressions.
  n=0
  while IFS= read -r f; do
    n=$((n + 1))
    rel=${f#"$root"/}
    head -c 65536 "$f" > "$corpus/seeds/$(printf '%04d' $n)-${rel//\//_}"
  done < <({ seed_files "$t"; find "$root/tests/fuzz/regressions/$t" -type f ! -name '.*' 2>/dev/null; } | sort -u)

  # 3. Fuzz. New inputs go to the first corpus directory (work/, kept between runs of this build).
  args=(-max_len="$(max_len "$t")" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
        -artifact_prefix="$findings/")
  [ -z "$time_s" ] || args+=(-max_total_time="$time_s")
  [ -z "$runs" ] || args+=(-runs="$runs")
  if [ $ci = 1 ]; then
    # The same inputs every time: a fixed seed, a fixed budget, and no corpus left by an earlier run.
    rm -rf "$corpus/work" && mkdir -p "$corpus/work"
    args+=(-seed=1 -runs="$(ci_runs "$t")" -max_total_time=300)
  fi
  [ ! -f "$root/tests/fuzz/dicts/$t.dict" ] || args+=(-dict="$root/tests/fuzz/dicts/$t.dict")
  [ $keep_going = 0 ] || args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  echo "== fuzz $t: $n seeds, $regressions regression(s), ${time_s:+${time_s} s}${time_s:+${runs:+, }}${runs:+$runs runs}$([ $ci = 0 ] || echo "seed 1, $(ci_runs "$t") runs")"
  before=$(find "$findings" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  rc=0
  "$exe" "${args[@]}" "$corpus/work" "$corpus/seeds" > "$findings/fuzz.log" 2>&1 || rc=$?
  after=$(find "$findings" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$findings/fuzz.log" | tail -1 | awk '{print $2}' || true)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$findings/fuzz.log" | tail -1 | awk '{print $2}' || true)
  if [ -z "$execs" ]; then  # fork mode prints no final stats: its last "#N: ... exec/s N" line
    last=$(grep -E '^#[0-9]+: cov:' "$findings/fuzz.log" | tail -1 || true)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<< "$last")
    speed=$(sed -nE 's/.*exec\/s ([0-9]+).*/\1/p' <<< "$last")
  fi
  new=$((after - before))
  if [ $rc != 0 ] || [ $new -gt 0 ]; then
    status=1
    echo "FINDING $t: libFuzzer exit $rc, $new new artifact(s) in $findings/ (log: $findings/fuzz.log)"
    grep -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|deadly signal|terminate called|what\(\)' "$findings/fuzz.log" | head -5 || true
  fi
  summary+=("$(printf '%-11s %10s execs %7s exec/s  regressions %d/%d failed  new findings %d%s' "$t" "${execs:-?}" \
    "${speed:-?}" "$failed_regressions" "$regressions" "$new" "$([ $rc = 0 ] || echo "  (exit $rc)")")")
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
