#!/usr/bin/env bash
# `make bench`: each cachelens figure next to its Python/PyTorch anchor, measured
# in the same run on the same files, pinned to one core (but the catalog's index,
# which parses on every core). Prints a Markdown table for docs/PERFORMANCE.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/default}"
shared="${CACHELENS_SHARED_DIR:-$root/../shared}"

devset="$shared/fixtures/torch-2.11-cu130-h100/devset/cache"
if [[ -d "$devset" ]]; then
    mapfile -t entries < <(find "$devset/fxgraph" -type f | sort)
else
    echo "bench: $devset not found; using the sample cache" >&2
    mapfile -t entries < <(find "$root/resources/sample-cache/fxgraph" -type f | sort)
fi

pin=()
if command -v taskset >/dev/null; then
    pin=(taskset -c 0)
fi

out="$build/bench"
mkdir -p "$out"
"${pin[@]}" "$build/bench/bench_metadata" --benchmark_format=json \
    --benchmark_out="$out/metadata.json" --benchmark_out_format=json -- "${entries[@]}" >/dev/null
"${pin[@]}" python3 "$root/bench/anchor_unpickle.py" "${entries[@]}" > "$out/metadata-anchor.json"

python3 - "$out/metadata.json" "$out/metadata-anchor.json" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["benchmarks"][0]
anchor = json.load(open(sys.argv[2]))
entries = anchor["entries"]
our_us = ours["real_time"] / entries  # one iteration decodes every entry
our_mbs = ours["bytes_per_second"] / 1e6
print("| benchmark | cachelens | anchor | ratio |")
print("|---|---|---|---|")
print(f"| FX entry metadata ({entries} devset entries, {anchor['bytes']/1e6:.1f} MB), one core "
      f"| {our_us:.0f} us/entry, {our_mbs:.0f} MB/s "
      f"| Python {anchor['python']} stub-class unpickle: {anchor['us_per_entry']:.0f} us/entry, "
      f"{anchor['mb_per_s']:.0f} MB/s "
      f"| {anchor['us_per_entry']/our_us:.1f}x |")
PY

# Guard checks: every guard of the golden files with the hint vectors PyTorch evaluated.
golden=()
for set in devset cpu_dev; do
    file="$shared/fixtures/torch-2.11-cu130-h100/$set/golden.json"
    if [[ -f "$file" ]]; then
        golden+=("$file")
    fi
done
if [[ ${#golden[@]} -eq 0 ]]; then
    echo "bench: no golden.json in $shared; skipping the guard benchmark" >&2
else
    "${pin[@]}" "$build/bench/bench_guards" --benchmark_format=json \
        --benchmark_out="$out/guards.json" --benchmark_out_format=json -- "${golden[@]}" >/dev/null
    "${pin[@]}" python3 "$root/bench/anchor_guards.py" "${golden[@]}" > "$out/guards-anchor.json"
    python3 - "$out/guards.json" "$out/guards-anchor.json" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["benchmarks"][0]
anchor = json.load(open(sys.argv[2]))
our_rate = ours["items_per_second"]  # one item is one check() of a guard on one hint vector
print(f"| Guard check ({anchor['guards']} golden guards x their hint vectors: "
      f"{anchor['evaluations']} evaluations), one core "
      f"| {our_rate/1e6:.1f} M evals/s, {1e9/our_rate:.0f} ns/eval "
      f"| Python {anchor['python']} eval(guards_expr, SYMPY_INTERP, {{\"L\": ...}}): "
      f"{anchor['evals_per_s']/1e3:.0f} k evals/s, {anchor['us_per_eval']:.1f} us/eval "
      f"| {our_rate/anchor['evals_per_s']:.0f}x |")
PY
fi

# cachelens tune: the CPU work per config besides compiling and timing it
# (request, answer, launch plan from the Triton dir, the config's key),
# against Python doing the same reading and bookkeeping.
"${pin[@]}" "$build/bench/bench_tune" --benchmark_format=json \
    --benchmark_out="$out/tune.json" --benchmark_out_format=json -- \
    "$devset" triton_poi_fused_mm_t_2 >/dev/null
tune_dir=$(dirname "$(grep -l '"name": "triton_poi_fused_mm_t_2"' "$devset"/triton/0/*/triton_poi_fused_mm_t_2.json | head -1)")
"${pin[@]}" python3 "$root/bench/anchor_tune.py" "$tune_dir" > "$out/tune-anchor.json"
python3 - "$out/tune.json" "$out/tune-anchor.json" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["benchmarks"][0]
anchor = json.load(open(sys.argv[2]))
our_us = ours["real_time"]
print(f"| tune: CPU work per config besides compiling and timing it (request, answer, launch "
      f"plan from its Triton dir, the config's key), one core | {our_us:.0f} us "
      f"| Python {anchor['python']} json + regex of the same dir: {anchor['us_per_config']:.0f} us "
      f"| {anchor['us_per_config']/our_us:.1f}x |")
PY

# Bundles: decode, import and export of mega-cache bundles against CPython
# doing the same with PyTorch's format logic (three alternating rounds, ~3 min).
"$root/bench/run-bundle-benchmark.sh" "$build"

# Redis remote cache: push and pull of cache dirs through a redis-server
# started on a free loopback port, against CPython doing the same GETs and
# SETs of the same values, and redis-benchmark as a ceiling (~2 min).
"$root/bench/run-remote-benchmark.sh" "$build"

# Catalog: index, re-index and search a synthetic cache of 20,000 FX entries
# (the devset's, copied under fresh keys) and two modules per entry. Not pinned:
# the index parses on every core, as `cachelens index` does.
source_cache="$devset"
if [[ ! -d "$source_cache" ]]; then
    echo "bench: $devset not found; the synthetic cache copies the sample cache" >&2
    source_cache="$root/resources/sample-cache"
fi
synthetic="$out/synthetic-cache"
python3 "$root/bench/make-synthetic-cache.py" "$source_cache" "$synthetic" --entries 20000 \
    > "$out/synthetic-cache-manifest.json"
echo "bench: load average before the catalog benchmark: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# The anchor: `cat` of the same files. The page cache cannot be dropped
# without root, so the first pass loads it and three timed passes read from it,
# as the index right after does.
cat_files() { find "$synthetic" -type f -print0 | xargs -0 cat >/dev/null; }
cat_files
cat_passes=() # "start end" of each pass, in seconds
for _ in 1 2 3; do
    start=$EPOCHREALTIME
    cat_files
    cat_passes+=("$start $EPOCHREALTIME")
done

"$build/bench/bench_catalog" "$synthetic" "$out/catalog-scratch" > "$out/catalog.json"
python3 "$root/bench/anchor_catalog_search.py" "$out/catalog.json" > "$out/catalog-search-anchor.json"

python3 - "$out/catalog.json" "$out/catalog-search-anchor.json" "$out/synthetic-cache-manifest.json" \
    "${cat_passes[@]}" <<'PY'
import json, statistics, sys
ours = json.load(open(sys.argv[1]))
anchor = json.load(open(sys.argv[2]))
manifest = json.load(open(sys.argv[3]))
cat_s = statistics.median(float(end) - float(start) for start, end in map(str.split, sys.argv[4:]))
mb = ours["bytes"] / 1e6
full, again = ours["full_index"], ours["reindex"]
cat_mbs = mb / cat_s
entries = f"{manifest['fx_entries']} FX entries + {manifest['modules']} modules"
if manifest.get("note"):
    entries += f" ({manifest['note']})"
print(f"| Catalog full index ({entries}: {full['entries']} entries, {mb:.0f} MB), "
      f"fresh catalog, {full['threads']} parse threads, files in page cache "
      f"| {full['entries_per_s']:.0f} entries/s, {full['mb_per_s']:.0f} MB/s ({full['seconds']:.1f} s) "
      f"| `cat` of the same files from page cache: {cat_mbs:.0f} MB/s ({cat_s:.1f} s) "
      f"| {full['mb_per_s'] / cat_mbs:.2f}x |")
goal_s = 1.0
print(f"| Catalog no-change re-index ({again['unchanged']} entries), open + index "
      f"| median {again['median_s']:.2f} s of {len(again['runs'])} "
      f"(min {again['min_s']:.2f} s; first after the full index {again['first_s']:.2f} s) "
      f"| goal < {goal_s:.0f} s "
      f"| {'met' if again['median_s'] < goal_s else 'not met'} |")
theirs = {q["name"]: q for q in anchor["queries"]}
for query in ours["search"]:
    filters = "".join(f", --kind {k}" for k in query["kinds"])
    if query["device"]:
        filters += f", --device {query['device']}"
    other = theirs[query["name"]]
    text = f"`{query['text']}`" if query["text"] else "no text"
    matches = f"{query['total']} match" + ("" if query["total"] == 1 else "es")
    print(f"| Catalog search, {query['name']}: {text}{filters} "
          f"({matches}, page of {query['limit']}), one thread "
          f"| median {query['search_median_ms']:.1f} ms, p95 {query['search_p95_ms']:.1f} ms "
          f"of {query['runs']}; "
          f"count() {query['count_median_ms']:.1f} ms; "
          f"search_page() (page + count, the CLI's call) {query['search_page_median_ms']:.1f} ms "
          f"| Python {anchor['python']} sqlite3 (SQLite {anchor['sqlite']}), the same statements: "
          f"median {other['median_ms']:.1f} ms, p95 {other['p95_ms']:.1f} ms "
          f"| {other['median_ms'] / query['search_median_ms']:.2f}x |")
PY

# GUI: the first painted table and filter latency on a 100,000-entry catalog
# (bench/make-gui-catalog.py: the devset indexed, then its rows copied in SQL
# under fresh keys; 30 s, reused while its manifest matches). bench_gui starts
# itself once per startup run, under QT_QPA_PLATFORM=offscreen. Not pinned: the
# table's query runs on the job pool beside the GUI thread, as in the app.
if [[ ! -x "$build/bench/bench_gui" ]]; then
    echo "bench: no $build/bench/bench_gui (a build without the GUI); skipping the GUI benchmark" >&2
else
    gui_source="$devset"
    if [[ ! -d "$gui_source" ]]; then
        gui_source="$root/resources/sample-cache"
    fi
    python3 "$root/bench/make-gui-catalog.py" "$build/app/cli/cachelens" "$gui_source" \
        "$out/gui-catalog/catalog.sqlite" --entries 100000 > "$out/gui-catalog-manifest.json"
    echo "bench: load average before the CLI search timing: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    # `cachelens search` on the same catalog, the whole process as a user runs it.
    python3 "$root/bench/cli-search-timing.py" "$build/app/cli/cachelens" \
        "$out/gui-catalog/catalog.sqlite"
    echo "bench: load average before the GUI benchmark: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    QT_QPA_PLATFORM=offscreen "$build/bench/bench_gui" "$out/gui-catalog/catalog.sqlite" \
        > "$out/gui.json" 2> "$out/gui.log"
    python3 - "$out/gui.json" <<'PY'
import json, sys
gui = json.load(open(sys.argv[1]))
start, runs = gui["startup"], gui["filter"]
entries = f"{gui['entries']:,}"

def latency(series):
    lat = series["latency"]
    return f"median {lat['median_ms']:.0f} ms, p95 {lat['p95_ms']:.0f} ms of {len(lat['runs'])}"

def verdict(ms, goal_ms):
    return "met" if ms < goal_ms else "not met"

first = start["first_paint_from_window"]
print(f"| GUI first painted table ({entries} entries), a fresh process each run "
      f"| median {first['median_ms']:.0f} ms, p95 {first['p95_ms']:.0f} ms of {start['runs']}; "
      f"from main() {start['first_paint_from_main']['median_ms']:.0f} ms, from the spawn "
      f"{start['first_paint_from_spawn']['median_ms']:.0f} ms "
      f"| goal < 1 s | {verdict(first['median_ms'], 1000)} |")
goal = 100
rows = [(f"filter, {f['name']} `{f['text']}`", f) for f in runs["filters"]]
rows.append(("filter cleared", runs["clear"]))
rows.append(("sort by size, descending", runs["sort_size_desc"]))
for what, series in rows:
    print(f"| GUI {what} ({series['rows']:,} of {entries} rows) | {latency(series)} "
          f"| goal < {goal} ms | {verdict(series['latency']['median_ms'], goal)} |")
typed = runs["typed"]
print(f"| GUI search field, `{typed['text']}` typed (the 150 ms debounce included) "
      f"| {latency(typed)} | goal < {goal} ms after the debounce "
      f"| {verdict(typed['latency']['median_ms'] - 150, goal)} |")
phases = start["phases"]
print(f"bench: GUI startup phases (median ms): construct {phases['construct_window']['median_ms']:.0f}, "
      f"to loaded {phases['window_to_loaded']['median_ms']:.0f}, "
      f"first paint {phases['first_paint']['median_ms']:.0f}", file=sys.stderr)
for query in gui["engine"]:
    print(f"bench: GUI engine phases, {query['name']} ({query['rows']} rows): "
          f"load_index {query['load_index_median_ms']:.0f} ms, "
          f"text_match_ids {query['text_match_median_ms']:.0f} ms, "
          f"select {query['select_median_ms']:.0f} ms, "
          f"first page {query['first_page_median_ms']:.1f} ms", file=sys.stderr)
PY
fi

# Peak memory of import, export, scan and index on the synthetic bundle and
# caches, beside the Python anchor's import and export (~1 min; the catalog's
# 4.2 GB cache rows need the catalog section above to have made it).
"$root/bench/run-memory-benchmark.sh" "$build"

# A million files (issue #37): index, re-index, search, stats, prune --dry-run,
# ls and scan, and the GUI, against cat, find and CPython on the same files
# (bench/make-million-cache.py; ~4 min once the cache exists).
"$root/bench/run-scale-benchmark.sh" "$build"
