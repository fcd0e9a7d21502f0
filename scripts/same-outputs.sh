#!/usr/bin/env bash
# Proves that a change kept every shipped scenario's outputs byte-identical: runs each scenario under
# scenarios/ (not the .test.yaml files, fragments or sweep files) with every output format, with the
# provenance clock pinned (SOURCE_DATE_EPOCH), and either records the folders or compares them.
#   scripts/same-outputs.sh record DIR [GPUTWIN]   run all scenarios, keep the outputs in DIR
#   scripts/same-outputs.sh check DIR [GPUTWIN]    run them again, compare byte for byte with DIR
# GPUTWIN defaults to build/sim/apps/cli/gputwin (or build/sim/cli/gputwin before the layer move).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?record|check}; dir=${2:?output folder}
bin=${3:-}
if [ -z "$bin" ]; then
  for candidate in "$root/build/sim/apps/cli/gputwin" "$root/build/sim/cli/gputwin"; do
    [ -x "$candidate" ] && { bin=$candidate; break; }
  done
fi
[ -x "$bin" ] || { echo "same-outputs: no gputwin binary (give its path)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export SOURCE_DATE_EPOCH=0

cd "$root"
mapfile -t scenarios < <(find scenarios -name '*.yaml' -not -name '*.test.yaml' -not -path '*/fragments/*' \
  -not -path 'scenarios/sweeps/*' | LC_ALL=C sort)
failed=0; compared=0
for scenario in "${scenarios[@]}"; do
  name=${scenario%.yaml}
  # The same relative output path every time: it is part of the recorded command line.
  out=out-same/$name
  rm -rf "$out"
  rc=0
  # argv[0] is "gputwin" whichever binary runs: the command line is recorded in the provenance.
  (exec -a gputwin "$bin" run "$scenario" --format all -o "$out" --progress none) > "$scratch/stdout" \
    2> "$scratch/stderr" || rc=$?
  mkdir -p "$out"
  echo "$rc" > "$out/exit-code"
  # The summary line's wall time is the one thing in stdout that is not the model's.
  sed -E 's/ in [0-9.]+ [a-z]+ wall/ in (wall) wall/' "$scratch/stdout" > "$out/stdout"
  if [ "$mode" = record ]; then
    rm -rf "${dir:?}/$name"; mkdir -p "$(dirname "$dir/$name")"; cp -r "$out" "$dir/$name"
  else
    compared=$((compared + 1))
    if ! diff -r -q "$dir/$name" "$out" > "$scratch/diff"; then
      failed=$((failed + 1)); echo "DIFFERENT $scenario"; sed 's/^/  /' "$scratch/diff"
    fi
  fi
done
rm -rf out-same
if [ "$mode" = record ]; then
  echo "same-outputs: recorded ${#scenarios[@]} scenarios in $dir"
else
  echo "same-outputs: $((compared - failed)) of $compared scenarios byte-identical"
  [ $failed = 0 ]
fi
