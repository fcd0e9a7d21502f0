#!/usr/bin/env bash
# One prepared run of the calibration on a GPU machine (docs/calibration.md, "Running on a GPU").
#
#   calibration/run-on-gpu.sh [OUT_DIR]        (OUT_DIR defaults to $OUT, else /tmp/gputwin-calibration-out)
#
# 1. builds gputwin-calibrate-kernels with nvcc alone (no CMake, SimGrid or HDF5 needed),
# 2. records provenance (nvidia-smi, driver, clocks before and after, the tree's commit),
# 3. runs the quick suite (co-run pairs in streams and processes included: the GPU half of the
#    validation loop) and writes the raw samples,
# 4. if the machine can also build gputwin (CMake finds SimGrid, yaml-cpp, HDF5, ...), runs
#    `gputwin calibrate --raw ... --validate` there; otherwise prints the command that finishes the
#    fit and the validation on any CPU machine.
# Everything lands flat in OUT_DIR (at most 8 files): provenance.txt, run.log, <name>.raw.json and,
# with gputwin, <name>.yaml, <name>.samples.h5, <name>.fit.md, <name>.validation.{md,json}.
# Budget: about 1 minute to build, 1-2 minutes to measure; the whole script stays under 8 minutes.
# Exit: 0 measured (and validated when possible), 4 no GPU, 3 build or run failure.
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT_DIR=${1:-${OUT:-/tmp/gputwin-calibration-out}}
mkdir -p "$OUT_DIR"
LOG="$OUT_DIR/run.log"
: >"$LOG"
log() { echo "[run-on-gpu $(date -u +%H:%M:%S)] $*" | tee -a "$LOG"; }
T0=$(date +%s)
BUILD=${GTW_CALIB_BUILD:-/tmp/gtw-calib-build}
mkdir -p "$BUILD"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)

# ---- provenance ----
{
  echo "gputwin calibration run, $STAMP"
  echo "host: $(hostname)  kernel: $(uname -r)  cpus: $(nproc)"
  echo "tree: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo 'not a git checkout') $(git -C "$ROOT" status --porcelain 2>/dev/null | wc -l | tr -d ' ') changed files"
  echo "nvcc: $("$NVCC" --version 2>/dev/null | tail -1)"
  echo "--- nvidia-smi before ---"
  nvidia-smi --query-gpu=name,uuid,driver_version,pci.bus_id,memory.total,clocks.sm,clocks.mem,clocks.max.sm,power.draw,power.limit,temperature.gpu,compute_mode,mig.mode.current --format=csv 2>&1
} >"$OUT_DIR/provenance.txt"

# ---- 1. kernels, with nvcc alone (one TU per job, in parallel) ----
ARCH=${GTW_CALIB_ARCH:-"-gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80"}
log "building the kernels with $NVCC ($ARCH)"
pids=()
for tu in main memory compute corun; do
  # shellcheck disable=SC2086
  "$NVCC" -O3 -std=c++17 $ARCH -c "calibration/kernels/calib_$tu.cu" -o "$BUILD/calib_$tu.o" >>"$LOG" 2>&1 &
  pids+=($!)
done
ok=1
for p in "${pids[@]}"; do wait "$p" || ok=0; done
if [[ $ok == 1 ]]; then
  "$NVCC" -o "$BUILD/gputwin-calibrate-kernels" "$BUILD"/calib_{main,memory,compute,corun}.o -ldl >>"$LOG" 2>&1 || ok=0
fi
if [[ $ok != 1 ]]; then
  log "kernel build FAILED (see run.log)"
  exit 3
fi
log "kernels built in $(($(date +%s) - T0)) s"
KERNELS="$BUILD/gputwin-calibrate-kernels"
"$KERNELS" --probe | tee -a "$LOG"
rc=${PIPESTATUS[0]}
if [[ $rc == 4 ]]; then
  log "no GPU here: nothing measured"
  exit 4
fi
[[ $rc == 0 ]] || exit 3

# cuBLAS for the GEMM (dlopen'ed by the kernels; without it they fall back to a WMMA kernel).
if [[ -z ${GTW_CUBLAS:-} ]]; then
  GTW_CUBLAS=$(find /usr/local/cuda/lib64 /usr/local/cuda*/lib64 /usr/lib/x86_64-linux-gnu /opt -maxdepth 9 \
    -name 'libcublas.so.1[23]*' 2>/dev/null | head -1)
fi
if [[ -n ${GTW_CUBLAS:-} ]]; then
  export GTW_CUBLAS
  export LD_LIBRARY_PATH="$(dirname "$GTW_CUBLAS")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  log "cuBLAS: $GTW_CUBLAS"
else
  log "cuBLAS not found: the GEMM uses the WMMA fallback (far from the tensor peak)"
fi

# ---- 2. the quick suite ----
DEV=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr -c 'A-Za-z0-9\n' '-' | sed 's/-\+/-/g; s/^-//; s/-$//')
NAME="${DEV:-gpu}-${STAMP}"
RAW="$OUT_DIR/$NAME.raw.json"
log "quick suite -> $RAW"
T1=$(date +%s)
timeout 420 "$KERNELS" --quick -o "$RAW" --tmp /tmp 2>&1 | tee -a "$LOG"
rc=${PIPESTATUS[0]}
log "suite exit $rc after $(($(date +%s) - T1)) s"
{
  echo "--- nvidia-smi after ---"
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv 2>&1
  echo "suite exit $rc, raw samples $(basename "$RAW"), total $(($(date +%s) - T0)) s"
} >>"$OUT_DIR/provenance.txt"
[[ $rc == 0 ]] || exit 3

# ---- 3. fit and validate here if gputwin builds, else say how to finish on a CPU machine ----
if [[ ${GTW_CALIB_SKIP_GPUTWIN:-0} != 1 ]] && command -v cmake >/dev/null &&
  timeout 60 cmake -S "$ROOT" -B "$BUILD/gputwin" -G Ninja -DGPUTWIN_GUI=OFF -DGPUTWIN_BENCH=OFF -DGPUTWIN_CUDA=OFF \
    -DBUILD_TESTING=OFF >>"$LOG" 2>&1 &&
  timeout 240 cmake --build "$BUILD/gputwin" --target gputwin -j "$(nproc)" >>"$LOG" 2>&1; then
  log "gputwin built: fitting and validating here"
  "$BUILD/gputwin/sim/apps/cli/gputwin" calibrate --raw "$RAW" --validate -o "$OUT_DIR/$NAME.yaml" \
    --work "$BUILD/validation" 2>&1 | tee -a "$LOG"
  log "gputwin calibrate exit ${PIPESTATUS[0]}"
else
  log "gputwin does not build here (CMake or its libraries are missing): the raw samples are the result."
  log "Finish on any machine with gputwin:  gputwin calibrate --raw $(basename "$RAW") --validate -o calibration/data/$NAME.yaml"
fi
log "done in $(($(date +%s) - T0)) s"
exit 0
