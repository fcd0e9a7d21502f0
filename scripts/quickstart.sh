#!/usr/bin/env bash
# Installs what is missing, builds gputwin, runs the default scenario and shows its report.
#   scripts/quickstart.sh [SCENARIO] [OUTPUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scenario=${1:-$root/scenarios/examples/default.yaml}
out=${2:-$root/out/default}
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$root/build" --target gputwin -j "$(nproc)"
"$root/build/sim/apps/cli/gputwin" run "$scenario" -o "$out"
echo
cat "$out/report.md"
echo
echo "Report: $out/report.md (also report.json and results.h5 in $out)"
