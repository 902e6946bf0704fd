#!/usr/bin/env bash
# gpu-bundle-check.sh: do bundles written by cachelens load in PyTorch, and do
# the graphs then hit the FX graph cache? On a machine with a CUDA GPU and
# PyTorch (no display needed), with the self-contained CLI from
# `scripts/gpu-check.sh build` carried in gpu-bin/:
#
#   scripts/gpu-bundle-check.sh
#
# 1. devset: `cachelens export` of the devset MLP's forward graph (it brings
#    the AOT entry, the backward graph and the best_configs) is loaded with
#    torch.compiler.load_cache_artifacts; the same MLP is compiled in a fresh
#    cache dir and the counters are printed.
# 2. round trip: the MLP is compiled into a fresh dir A (misses); cachelens
#    exports A whole; a new process with an empty dir B loads that bundle with
#    PyTorch's loader and compiles again: every FX graph must hit.
# 3. import: cachelens signs the bundle of 2, imports it into an empty dir C
#    with --require-signature; PyTorch compiles with C as its cache dir: every
#    FX graph must hit.
# Exit 0 when 2 and 3 hit (1 and its numbers are reported: its keys only match
# when this PyTorch and model code equal the fixture's), 1 otherwise.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="${CACHELENS_SHARED_DIR:-$root/../shared}/fixtures/torch-2.11-cu130-h100/devset"
cli="$root/gpu-bin/cachelens"
[[ -x "$cli" ]] || cli="$root/build/static-cli/app/cli/cachelens"
check="$root/scripts/bundle_load_check.py"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== 1. devset bundle exported by cachelens"
if [[ -d "$fixtures/cache" ]]; then
    "$cli" export "$fixtures/cache" flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e -o "$work/devset.bin"
    cmp "$work/devset.bin" "$fixtures/mega_mlp_train.bin" && echo "identical to PyTorch's own bundle"
    python3 "$check" "$work/devset-cache" "$work/devset.bin"
else
    echo "no fixtures at $fixtures: skipped"
fi

echo "== 2. round trip: compile, export with cachelens, load with PyTorch"
python3 "$check" "$work/a"
"$cli" export "$work/a" -o "$work/a.bin"
second="$(python3 "$check" "$work/b" "$work/a.bin")"
echo "$second"

echo "== 3. signed, imported by cachelens, used by PyTorch"
"$cli" keygen -o "$work/key" >/dev/null
"$cli" export "$work/a" -o "$work/a-signed.bin" --sign "$work/key.key"
"$cli" verify "$work/a-signed.bin" --trust "$work/key.pub"
"$cli" import "$work/a-signed.bin" --into "$work/c" --require-signature "$work/key.pub"
third="$(python3 "$check" "$work/c")"
echo "$third"

python3 - "$second" "$third" <<'PY'
import json, sys
ok = True
for label, line in zip(("round trip", "import"), sys.argv[1:]):
    counts = json.loads(line)
    hit, miss = counts["fxgraph_cache_hit"], counts["fxgraph_cache_miss"]
    good = hit > 0 and miss == 0
    ok &= good
    print(f"{label}: fxgraph_cache_hit={hit} fxgraph_cache_miss={miss} -> {'ok' if good else 'FAILED'}")
sys.exit(0 if ok else 1)
PY
