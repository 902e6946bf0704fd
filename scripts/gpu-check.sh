#!/usr/bin/env bash
# gpu-check.sh: re-benchmark every devset kernel that has a benchmark harness
# with cachelens on a CUDA GPU, and compare each cached winner's median with
# golden.json `rebench` (Triton's do_bench medians of the module's call() on
# the H100 that made the fixtures): each within 10% or 2 µs, whichever is
# larger. Prints a Markdown table for docs/PERFORMANCE.md.
#
#   scripts/gpu-check.sh build          # here (Debian, no GPU needed): the
#                                       # self-contained CLI into gpu-bin/
#   scripts/gpu-check.sh run            # on the GPU machine (carry gpu-bin):
#                                       # bench, then compare
#   scripts/gpu-check.sh compare FILE   # compare saved `bench --json-lines` output
#
# `run` uses gpu-bin/cachelens when it is there (the GPU machine has no Qt and
# may lack SQLite/OpenSSL/CLI11 headers), else builds the CLI there with the
# static-cli preset. Exit code 1 when a kernel is outside the tolerance or
# failed, 2 when nothing could run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${CACHELENS_SHARED_DIR:-}"
if [[ -z "$shared" ]]; then
    for candidate in "$root/shared" "$root/../shared"; do
        if [[ -d "$candidate/fixtures" ]]; then
            shared="$candidate"
            break
        fi
    done
fi
fixtures="${shared:-$root/../shared}/fixtures/torch-2.11-cu130-h100/devset"

build_cli() {
    cmake --preset static-cli >/dev/null
    cmake --build --preset static-cli --target cachelens
    mkdir -p "$root/gpu-bin"
    cp "$root/build/static-cli/app/cli/cachelens" "$root/gpu-bin/cachelens"
    echo "gpu-check: $root/gpu-bin/cachelens (carry gpu-bin to the GPU machine)" >&2
}

compare() {
    python3 - "$1" "$fixtures/golden.json" <<'PY'
import json, os, statistics, sys

results_file, golden_file = sys.argv[1], sys.argv[2]
golden = json.load(open(golden_file))
events = []
for number, line in enumerate(open(results_file), 1):
    line = line.strip()
    if line:
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as error:
            sys.exit(f"gpu-check: {results_file}:{number}: not JSON: {error}")
errors = [e for e in events if e.get("event") == "error"]
if errors:
    sys.exit(f"gpu-check: the run failed: {errors[0]['message']}")
start = next((e for e in events if e.get("event") == "start"), None)
results = [e for e in events if e.get("event") == "result"]
# The cached winner of each module: what the module's call() runs.
winner = {}
for result in results:
    if result["was_best"]:
        winner.setdefault(result["module"], []).append(result)

rows, failures = [], 0
for entry in golden["rebench"]:
    medians = entry.get("do_bench_median_ms")
    if not medians:
        continue  # a wrapper module: golden has no kernel timing for it
    module = os.path.basename(entry["path"]).removesuffix(".py")
    reference = statistics.median(medians)
    tolerance = max(0.10 * reference, 0.002)
    ours = winner.get(module, [])
    name = ", ".join(entry["kernels"]) or "(template candidate)"
    if not ours:
        failures += 1
        rows.append(f"| `{module[:12]}` {name} | {reference * 1000:.1f} | not run | | no |")
        continue
    failed = [r for r in ours if r["status"] != "ok"]
    if failed:
        failures += 1
        rows.append(f"| `{module[:12]}` {name} | {reference * 1000:.1f} | "
                    f"{failed[0]['status']}: {failed[0]['message']} | | no |")
        continue
    # A module with several kernels runs them all in call(): their sum.
    median = sum(r["median_ms"] for r in ours)
    ok = abs(median - reference) <= tolerance
    failures += 0 if ok else 1
    rows.append(f"| `{module[:12]}` {name} | {reference * 1000:.1f} | {median * 1000:.1f} | "
                f"{(median / reference - 1) * 100:+.0f}% | {'yes' if ok else 'no'} |")

device = start["device"]["name"] if start else "unknown GPU"
print(f"GPU: {device}; protocol: {start['protocol'] if start else '?'}")
print()
print("| module, kernel | golden do_bench median (µs) | cachelens median (µs) | difference | within 10% or 2 µs |")
print("|---|---|---|---|---|")
print("\n".join(rows))
print()
print(f"{len(rows) - failures} of {len(rows)} within tolerance")
sys.exit(1 if failures else 0)
PY
}

case "${1:-}" in
build)
    build_cli
    ;;
run)
    if [[ ! -x "$root/gpu-bin/cachelens" ]]; then
        build_cli
    fi
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    cp -r "$fixtures/cache" "$out/cache" # accept or a crash must not touch the fixtures
    status=0
    "$root/gpu-bin/cachelens" bench "$out/cache" --json-lines --catalog "$out/catalog.sqlite" \
        > "$out/results.jsonl" || status=$?
    if [[ $status -ge 2 ]]; then
        cat "$out/results.jsonl" >&2
        exit 2
    fi
    cp "$out/results.jsonl" "$root/gpu-bin/last-results.jsonl"
    compare "$out/results.jsonl"
    ;;
compare)
    compare "${2:?usage: gpu-check.sh compare RESULTS.jsonl}"
    ;;
*)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
