#!/usr/bin/env python3
"""`cachelens watch DIR --index` on a large cache (issue #39): how soon an FX
graph PyTorch writes is in the catalog. The watch first brings the catalog's
rows of DIR up to date whole (a no-change re-index when the catalog already
holds DIR); then this script writes GRAPHS new FX entries as PyTorch does
(a temp name, then a rename into a new key dir), one at a time, and times
each from its rename to the watch's {"kind": "indexed"} line that wrote it.
The graphs are deleted afterwards (the catalog keeps their rows until the
next `cachelens index DIR`). Prints one JSON object.

Usage: follow-index.py CLI DIR CATALOG FX_ENTRY_FILE [--graphs 20]
"""
import argparse, json, os, random, statistics, string, subprocess, time

parser = argparse.ArgumentParser()
parser.add_argument("cli")
parser.add_argument("dir")
parser.add_argument("catalog")
parser.add_argument("entry", help="an FX entry file to copy under new keys")
parser.add_argument("--graphs", type=int, default=20)
args = parser.parse_args()

watch = subprocess.Popen([args.cli, "watch", args.dir, "--index", "--catalog", args.catalog,
                          "--json-lines", "--seconds", "600"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

def next_indexed():
    for line in watch.stdout:
        item = json.loads(line)
        if item.get("kind") == "indexed":
            return item
    raise SystemExit("the watch ended before it indexed")

started = time.monotonic()
json.loads(watch.stdout.readline())  # {"watching": ...}
whole = next_indexed()
whole_s = time.monotonic() - started

payload = open(args.entry, "rb").read()
alphabet = string.ascii_lowercase + "234567"
rng = random.Random(39)
written, latencies, index_s = [], [], []
for _ in range(args.graphs):
    key = "f" + "".join(rng.choice(alphabet) for _ in range(51))
    key_dir = os.path.join(args.dir, "fxgraph", key[1:3], key)
    os.makedirs(key_dir, exist_ok=True)
    final = os.path.join(key_dir, os.path.basename(args.entry))
    temp = os.path.join(key_dir, "." + os.path.basename(args.entry) + ".tmp")
    with open(temp, "wb") as f:
        f.write(payload)
    renamed = time.monotonic()
    os.rename(temp, final)
    written.append(key_dir)
    item = next_indexed()
    while item["written"] < 1:
        item = next_indexed()
    latencies.append(time.monotonic() - renamed)
    index_s.append(item["seconds"])
watch.terminate()
watch.communicate()
for key_dir in written:
    for name in os.listdir(key_dir):
        os.remove(os.path.join(key_dir, name))
    os.rmdir(key_dir)
print(json.dumps({"whole_index_s": round(whole_s, 3), "entries": whole["entries"],
                  "graphs": args.graphs,
                  "latency_median_s": round(statistics.median(latencies), 3),
                  "latency_max_s": round(max(latencies), 3),
                  "index_paths_median_ms": round(1000 * statistics.median(index_s), 2),
                  "index_paths_max_ms": round(1000 * max(index_s), 2)}))
