#!/usr/bin/env bash
# Bundles (part of `make bench`, or on its own): decode, import and export
# throughput of mega-cache bundles next to CPython doing the same work with
# PyTorch's format logic (bench/anchor_bundle.py), on the same inputs, pinned
# to one core, both writing into the same scratch dir. Rounds alternate
# cachelens and the anchor (BUNDLE_BENCH_ROUNDS, 3 by default); the table
# gives the median of the rounds. Prints Markdown table rows.
#
# Usage: run-bundle-benchmark.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/default}"
shared="${CACHELENS_SHARED_DIR:-$root/../shared}"
rounds="${BUNDLE_BENCH_ROUNDS:-3}"

devset="$shared/fixtures/torch-2.11-cu130-h100/devset"
if [[ ! -f "$devset/mega_mlp_train.bin" || ! -d "$devset/cache" ]]; then
    echo "bench: no $devset/mega_mlp_train.bin or cache/; skipping the bundle benchmark" >&2
    exit 0
fi
cli="$build/app/cli/cachelens"
if [[ ! -x "$cli" ]]; then
    echo "bench: no $cli; build it first" >&2
    exit 1
fi

pin=()
if command -v taskset >/dev/null; then
    pin=(taskset -c 0)
fi

out="$build/bench"
scratch="$out/bundle-scratch"
mkdir -p "$out" "$scratch"

# The larger inputs: the devset cache's artifacts ten times under fresh keys
# (~116 MB), and the cache dir that bundle imports to, for export.
synthetic="$out/bundle-synthetic.bin"
python3 "$root/bench/make-synthetic-bundle.py" "$devset/cache" "$synthetic" --copies 10 \
    > "$out/bundle-synthetic.json"
synthetic_cache="$out/bundle-synthetic-cache"
rm -rf "$synthetic_cache"
"$cli" import "$synthetic" --into "$synthetic_cache" --json > "$out/bundle-synthetic-import.json"

inputs=("$scratch" "$devset/mega_mlp_train.bin" "$synthetic" "$devset/cache" "$synthetic_cache")
echo "bench: load average before the bundle benchmark: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
results=()
for round in $(seq 1 "$rounds"); do
    "${pin[@]}" "$build/bench/bench_bundle" --benchmark_format=json \
        --benchmark_out="$out/bundle-$round.json" --benchmark_out_format=json \
        -- "${inputs[@]}" >/dev/null
    "${pin[@]}" python3 "$root/bench/anchor_bundle.py" "${inputs[@]}" \
        > "$out/bundle-anchor-$round.json"
    results+=("$out/bundle-$round.json" "$out/bundle-anchor-$round.json")
done
echo "bench: load average after the bundle benchmark: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# The disk's durable bandwidth in the same scratch dir, the ceiling of a
# durable import: 256 MiB written and fdatasynced, three times.
dd_seconds=()
for _ in 1 2 3; do
    start=$EPOCHREALTIME
    dd if=/dev/zero of="$scratch/dd.bin" bs=1M count=256 conv=fdatasync status=none
    dd_seconds+=("$start $EPOCHREALTIME")
    rm -f "$scratch/dd.bin"
done
rm -rf "$scratch" "$synthetic_cache"

python3 - "$root/bench" "${dd_seconds[*]}" "${results[@]}" <<'PY'
import statistics, sys

sys.path.insert(0, sys.argv[1])
from rounds import load_rounds  # noqa: E402

ours, theirs, python = load_rounds(sys.argv[3:])  # (op, input) -> [figures of each round]
times = [float(t) for t in sys.argv[2].split()]
dd_mbs = statistics.median(256 * 1048576 / (end - start) / 1e6
                           for start, end in zip(times[0::2], times[1::2]))

inputs = {
    "mega_mlp_train.bin": "devset mega_mlp_train.bin",
    "bundle-synthetic.bin": "synthetic bundle (the devset cache x10, fresh keys)",
    "cache": "devset cache dir",
    "bundle-synthetic-cache": "synthetic cache dir (the synthetic bundle imported)",
}
what = {
    "decode": ("decode from memory", "BytesReader logic (zlib.crc32, struct, base64, slices)"),
    "import": ("import into an empty dir, durable (one flush per batch)",
               "populate_cache paths, write_atomic + fsync per file and dir"),
    "export": ("export of the whole dir, page cache warm",
               "walk, read, name check, BytesWriter encode"),
}
for op in ("decode", "import", "export"):
    for (kind, name), runs in ours.items():
        if kind != op:
            continue
        other = theirs[(op, name)]
        if runs[0]["artifacts"] != other[0]["artifacts"] or runs[0]["bytes"] != other[0]["bytes"]:
            sys.exit(f"bench: {op} {name}: cachelens and the anchor did not see the same bundle")
        our_mbs = statistics.median(r["bytes_per_second"] for r in runs) / 1e6
        our_ms = statistics.median(r["real_time"] for r in runs)  # ms: the benchmarks' unit
        their_mbs = statistics.median(r["mb_per_s"] for r in other)
        their_ms = statistics.median(r["ms"] for r in other)
        ours_text, theirs_text = what[op]
        print(f"| Bundle {ours_text}: {inputs.get(name, name)} "
              f"({int(runs[0]['artifacts'])} artifacts, {runs[0]['bytes'] / 1e6:.1f} MB), one core "
              f"| {our_mbs:.0f} MB/s ({our_ms:.1f} ms) "
              f"| Python {python} {theirs_text}: {their_mbs:.0f} MB/s ({their_ms:.1f} ms) "
              f"| {our_mbs / their_mbs:.2f}x |")
# The same cachelens import next to PyTorch's write_atomic as it is (no fsync).
for (kind, name), runs in ours.items():
    if kind != "import":
        continue
    other = theirs[("import_nofsync", name)]
    our_mbs = statistics.median(r["bytes_per_second"] for r in runs) / 1e6
    our_ms = statistics.median(r["real_time"] for r in runs)
    their_mbs = statistics.median(r["mb_per_s"] for r in other)
    their_ms = statistics.median(r["ms"] for r in other)
    print(f"| Bundle import, as above, against PyTorch's own writes: {inputs.get(name, name)} "
          f"({int(runs[0]['artifacts'])} artifacts, {runs[0]['bytes'] / 1e6:.1f} MB), one core "
          f"| {our_mbs:.0f} MB/s ({our_ms:.1f} ms), durable "
          f"| Python {python} populate_cache paths, write_atomic as PyTorch has it (no fsync): "
          f"{their_mbs:.0f} MB/s ({their_ms:.1f} ms) "
          f"| {our_mbs / their_mbs:.2f}x |")
    write_ms = statistics.median(r["write_ms"] for r in runs)
    write_mbs = runs[0]["bytes"] / 1e6 / (write_ms / 1000)
    print(f"| Bundle import, as above, against the disk's durable bandwidth: "
          f"{inputs.get(name, name)} | {our_mbs:.0f} MB/s in all; its write phase (temp files, "
          f"flushes, renames) {write_mbs:.0f} MB/s ({write_ms:.1f} ms) "
          f"| `dd bs=1M count=256 conv=fdatasync` in the same scratch dir, median of 3: "
          f"{dd_mbs:.0f} MB/s | {our_mbs / dd_mbs:.2f}x in all, {write_mbs / dd_mbs:.2f}x "
          f"writing |")
print(f"bench: bundle figures are medians of {len(sys.argv[3:]) // 2} rounds", file=sys.stderr)
PY
