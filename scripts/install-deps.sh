#!/usr/bin/env bash
# Installs the Debian 12 packages gputwin builds against, if any is missing.
# Runs apt-get directly as root, through sudo otherwise. CUDA (nvcc) is optional and not installed here.
# Open MPI is for `mpirun -n N gputwin sweep`; the build works without it (sweeps then run on one machine).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libsimgrid-dev libboost-graph-dev libyaml-cpp-dev libhdf5-dev
  qt6-charts-dev libqt6opengl6-dev libxkbcommon-dev fonts-dejavu-core
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  libssl-dev                 # OpenSSL's EVP SHA-256 (audit hash chain, provenance hashes)
  libopenmpi-dev openmpi-bin
  libjemalloc-dev            # the simulation programs' allocator (docs/PERFORMANCE.md, "Allocator")
  clang libclang-rt-14-dev   # the libFuzzer targets (scripts/fuzz.sh)
  python3                    # the layering test (scripts/check-layering.py), the trace.json check
  prometheus                 # promtool: the metrics.prom tests lint and load the file as Prometheus would
  python3-jsonschema         # report.json and findings.sarif against their schemas (scripts/check-json-schema.py)
  libxml2-utils              # xmllint: both junit.xml writers against the strict JUnit XSD
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null; then
  SUDO=(sudo)
else
  echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
