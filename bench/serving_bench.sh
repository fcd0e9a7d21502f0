#!/usr/bin/env bash
# Serving benchmark (issue 19, docs/PERFORMANCE.md "Continuous batching at scale"): REPLICAS replicas of
# Llama 3.1 8B with continuous batching, one H100 each, in SERVICES services that each replay the Azure
# LLM inference trace (conversation and code services alternately, data/azure-llm-2023/, one hour at
# speedup 1) for HOURS simulated hours of arrivals (the trace repeats from its start by offset 0: every
# copy of a service sees the same requests). Prints CPU seconds, peak RSS, events and requests.
#
#   bench/serving_bench.sh [BUILD_DIR]      (REPLICAS=1000 SERVICES=40 DURATION=3600 by default)
set -euo pipefail
BUILD=${1:-build}
REPLICAS=${REPLICAS:-1000}
SERVICES=${SERVICES:-40}
DURATION=${DURATION:-3600}
OUT=${OUT:-$BUILD/bench-out/serving}
GTW=$BUILD/sim/apps/cli/gputwin
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
per=$(( REPLICAS / SERVICES ))
nodes=$(( (REPLICAS + 7) / 8 ))
scenario=$OUT/serving-$REPLICAS.yaml
{
  echo "apiVersion: gputwin.dev/v1alpha1"
  echo "kind: Scenario"
  echo "metadata: {name: serving-bench-$REPLICAS}"
  echo "spec:"
  echo "  seed: 1"
  echo "  duration: ${DURATION}s"
  echo "  slaWindow: 60s"
  echo "  cluster:"
  echo "    nodePools:"
  echo "      - {name: serve, count: $nodes, gpu: H100-80GB-SXM, gpusPerNode: 8, sharing: {mode: exclusive}}"
  echo "  tenants:"
  echo "    - name: chat"
  echo "      slos:"
  echo "        - {name: ttft, kind: ttft, percentile: 99, threshold: 500ms}"
  echo "        - {name: tpot, kind: tpot, percentile: 99, threshold: 50ms}"
  echo "  workloads:"
  for (( s = 0; s < SERVICES; s++ )); do
    kind=conv; (( s % 2 )) && kind=code
    echo "    - name: svc-$s"
    echo "      kind: inference"
    echo "      tenant: chat"
    echo "      replicas: $per"
    echo "      model: {id: llama-3.1-8b}"
    echo "      arrival: {process: trace, file: $ROOT/data/azure-llm-2023/AzureLLMInferenceTrace_$kind.csv, format: azure-llm}"
  done
  echo "  policies:"
  echo "    placement: {name: packing}"
} > "$scenario"
/usr/bin/time -v "$GTW" run "$scenario" -o "$OUT/run" --progress none --format json > "$OUT/stdout.txt" 2> "$OUT/time.txt" || {
  cat "$OUT/time.txt" >&2; exit 1; }
cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.1f", u + s}' "$OUT/time.txt")
rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$OUT/time.txt")
events=$(grep -o '[0-9]* events' "$OUT/stdout.txt" | head -1)
requests=$(jq '[.tenants[].workloads[].requests.completed] | add' "$OUT/run/report.json")
plans=$(jq '[.tenants[].workloads[].serving.steps] | add' "$OUT/run/report.json")
echo "| replicas | services | simulated | CPU s | peak RSS MB | $events | completed requests | engine steps |"
echo "| $REPLICAS | $SERVICES | ${DURATION}s | $cpu | $rss | | $requests | $plans |"
