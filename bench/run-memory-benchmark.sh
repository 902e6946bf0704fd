#!/usr/bin/env bash
# Peak memory (part of `make bench`, or on its own): the maximum resident set
# size of `cachelens import`, `export`, `scan` and `index` on the synthetic
# bundle and caches, each a fresh process, beside the Python anchor doing the
# same import and export (bench/anchor_bundle.py's functions). The figure is
# the child's ru_maxrss, the number `/usr/bin/time -v` prints as "Maximum
# resident set size" (bench/peak-memory.py, so no extra package is needed).
# Prints Markdown table rows.
#
# Usage: run-memory-benchmark.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/default}"
shared="${CACHELENS_SHARED_DIR:-$root/../shared}"

devset="$shared/fixtures/torch-2.11-cu130-h100/devset"
if [[ ! -d "$devset/cache" ]]; then
    echo "bench: no $devset/cache; skipping the memory benchmark" >&2
    exit 0
fi
cli="$build/app/cli/cachelens"
if [[ ! -x "$cli" ]]; then
    echo "bench: no $cli; build it first" >&2
    exit 1
fi
out="$build/bench"
scratch="$out/memory-scratch"
rm -rf "$scratch"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT

# The bundle benchmark's synthetic bundle (made again when absent: 15 s).
synthetic="$out/bundle-synthetic.bin"
if [[ ! -f "$synthetic" ]]; then
    python3 "$root/bench/make-synthetic-bundle.py" "$devset/cache" "$synthetic" --copies 10 \
        > /dev/null
fi
peak() { python3 "$root/bench/peak-memory.py" "$@"; }

echo "bench: load average before the memory benchmark: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rows=()
rows+=("$(peak "import" "synthetic bundle" "$synthetic" -- \
    "$cli" import "$synthetic" --into "$scratch/imported")")
rows+=("$(peak "import-anchor" "synthetic bundle" "$synthetic" -- python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from anchor_bundle import import_bundle
import_bundle(open(sys.argv[2], "rb").read(), sys.argv[3], durable=True)' \
    "$root/bench" "$synthetic" "$scratch/imported-anchor")")
rows+=("$(peak "export" "synthetic cache dir (the bundle imported)" "$scratch/imported" -- \
    "$cli" export "$scratch/imported" -o "$scratch/exported.bin")")
rows+=("$(peak "export-anchor" "synthetic cache dir (the bundle imported)" "$scratch/imported" -- \
    python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from anchor_bundle import export_dir
open(sys.argv[3], "wb").write(export_dir(sys.argv[2]))' \
    "$root/bench" "$scratch/imported" "$scratch/exported-anchor.bin")")
rows+=("$(peak "scan" "synthetic cache dir (the bundle imported)" "$scratch/imported" -- \
    "$cli" scan "$scratch/imported")")
rows+=("$(peak "index" "synthetic cache dir (the bundle imported)" "$scratch/imported" -- \
    "$cli" index "$scratch/imported" --catalog "$scratch/imported.sqlite")")
# The catalog benchmark's 4.2 GB cache, when it has been made.
if [[ -d "$out/synthetic-cache" ]]; then
    rows+=("$(peak "scan" "catalog synthetic cache (60,000 entries)" "$out/synthetic-cache" -- \
        "$cli" scan "$out/synthetic-cache")")
    rows+=("$(peak "index" "catalog synthetic cache (60,000 entries)" "$out/synthetic-cache" -- \
        "$cli" index "$out/synthetic-cache" --catalog "$scratch/synthetic.sqlite")")
else
    echo "bench: no $out/synthetic-cache (the catalog benchmark makes it); its rows skipped" >&2
fi
echo "bench: load average after the memory benchmark: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "${rows[@]}" <<'PY'
import json, sys

runs = [json.loads(row) for row in sys.argv[1:]]
by = {(r["label"], r["input"]): r for r in runs}
what = {"import": "`cachelens import` into an empty dir", "export": "`cachelens export` of the dir",
        "scan": "`cachelens scan`", "index": "`cachelens index` into a fresh catalog"}
anchors = {"import": "Python anchor_bundle.import_bundle (durable)",
           "export": "Python anchor_bundle.export_dir + write"}
for run in runs:
    label = run["label"]
    if label.endswith("-anchor"):
        continue
    mb = run["max_rss_kb"] / 1024
    size = run["input_bytes"] / 1e6
    anchor = by.get((label + "-anchor", run["input"]))
    if anchor:
        theirs = anchor["max_rss_kb"] / 1024
        other = f"{anchors[label]}: {theirs:.0f} MB ({anchor['seconds']:.2f} s)"
        ratio = f"{theirs / mb:.2f}x less"
    else:
        other, ratio = "(no anchor)", "-"
    print(f"| Peak memory, {what[label]}: {run['input']} ({size:,.1f} MB) "
          f"| {mb:.0f} MB max RSS ({run['seconds']:.2f} s) | {other} | {ratio} |")
PY
