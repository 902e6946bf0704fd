#!/usr/bin/env python3
"""Builds a large synthetic Inductor cache for the catalog benchmark.

Real FX graph entries of a fixture cache are copied under fresh keys
(fxgraph/<key[1:3]>/<key>/<name>), and the fixture's generated modules under
fresh c-keys (<key[1:3]>/<key>.py), about `--modules-per-entry` per entry, so
the indexer parses and stores real content at a realistic scale. Only the
smaller entries are used (`--max-entry-bytes`), which keeps the cache a few GB.

The cache is reused when it was already built with the same parameters: a
manifest beside it (never inside it, where it would be indexed) records them.
When the disk is short of space, the entry count is scaled down and the
manifest and the output say so.

Usage: make-synthetic-cache.py SOURCE_CACHE OUT_DIR [--entries N]
Prints the manifest (JSON) on stdout.
"""

import argparse
import base64
import hashlib
import json
import os
import shutil
import sys

# Free space left on the disk after the cache is written.
DISK_MARGIN_BYTES = 2 * 1024**3


def sha256_hash(data: bytes) -> str:
    """PyTorch's name for content: lowercase base32 of sha256, first 51 chars."""
    return base64.b32encode(hashlib.sha256(data).digest())[:51].decode().lower()


def fresh_key(prefix: str, index: int) -> str:
    return prefix + sha256_hash(f"cachelens synthetic {prefix} {index}".encode())


def files_under(root: str):
    for dirpath, _, names in os.walk(root):
        for name in names:
            yield os.path.join(dirpath, name)


def source_entries(source: str, max_bytes: int):
    """The FX entry files of `source` no larger than max_bytes, smallest first."""
    found = [path for path in files_under(os.path.join(source, "fxgraph"))
             if os.path.getsize(path) <= max_bytes]
    return sorted(found, key=lambda path: (os.path.getsize(path), path))


def source_modules(source: str):
    """The generated modules <xx>/c<hash>.py at the top of `source`."""
    modules = []
    for shard in sorted(os.listdir(source)):
        shard_dir = os.path.join(source, shard)
        if len(shard) != 2 or not os.path.isdir(shard_dir):
            continue
        modules += [os.path.join(shard_dir, name) for name in sorted(os.listdir(shard_dir))
                    if name.startswith("c") and name.endswith(".py")]
    return modules


def plan(source: str, out: str, entries: int, modules_per_entry: int, max_bytes: int):
    fx_files = source_entries(source, max_bytes)
    modules = source_modules(source)
    if not fx_files or not modules:
        sys.exit(f"make-synthetic-cache: no FX entries <= {max_bytes} bytes or no modules "
                 f"in {source}")
    fx_sizes = [os.path.getsize(path) for path in fx_files]
    module_sizes = [os.path.getsize(path) for path in modules]
    per_entry = (sum(fx_sizes) / len(fx_sizes)
                 + modules_per_entry * sum(module_sizes) / len(module_sizes))
    requested = entries
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    free = shutil.disk_usage(os.path.dirname(os.path.abspath(out))).free
    if os.path.isdir(out):
        free += sum(os.path.getsize(path) for path in files_under(out))
    affordable = int(max(0, free - DISK_MARGIN_BYTES) / per_entry)
    note = ""
    if affordable == 0:
        sys.exit(f"make-synthetic-cache: {free / 1e9:.1f} GB free, too little for one entry")
    if affordable < entries:
        entries = affordable
        note = (f"scaled down from {requested} to {entries} FX entries: "
                f"{free / 1e9:.1f} GB free, {per_entry / 1e3:.0f} kB per entry")
        print(f"make-synthetic-cache: {note}", file=sys.stderr)
    return {
        "source": os.path.abspath(source),
        "fx_entries": entries,
        "requested_fx_entries": requested,
        "modules": entries * modules_per_entry,
        "max_entry_bytes": max_bytes,
        "source_fx_entries": len(fx_files),
        "source_modules": len(modules),
        "note": note,
    }, fx_files, modules


def build(out: str, manifest: dict, fx_files, modules):
    if os.path.isdir(out):
        shutil.rmtree(out)
    total = 0
    for i in range(manifest["fx_entries"]):
        source = fx_files[i % len(fx_files)]
        key = fresh_key("f", i)
        key_dir = os.path.join(out, "fxgraph", key[1:3], key)
        os.makedirs(key_dir, exist_ok=True)
        # The content is unchanged, so its name (sha256_hash of the bytes) is too.
        shutil.copyfile(source, os.path.join(key_dir, os.path.basename(source)))
        total += os.path.getsize(source)
    for i in range(manifest["modules"]):
        source = modules[i % len(modules)]
        key = fresh_key("c", i)
        shard = os.path.join(out, key[1:3])
        os.makedirs(shard, exist_ok=True)
        shutil.copyfile(source, os.path.join(shard, key + ".py"))
        total += os.path.getsize(source)
    manifest["files"] = manifest["fx_entries"] + manifest["modules"]
    manifest["bytes"] = total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a real cache dir (the devset)")
    parser.add_argument("out", help="the synthetic cache dir to make (under build/bench/)")
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--modules-per-entry", type=int, default=2)
    parser.add_argument("--max-entry-bytes", type=int, default=300_000)
    args = parser.parse_args()

    out = os.path.abspath(args.out)
    manifest_path = out + ".json"
    manifest, fx_files, modules = plan(args.source, out, args.entries, args.modules_per_entry,
                                       args.max_entry_bytes)
    if os.path.isfile(manifest_path) and os.path.isdir(out):
        with open(manifest_path) as f:
            built = json.load(f)
        if all(built.get(k) == v for k, v in manifest.items() if k != "note"):
            print(json.dumps(built))
            return
    # Write the manifest last: a build that was interrupted is never reused.
    if os.path.exists(manifest_path):
        os.remove(manifest_path)
    build(out, manifest, fx_files, modules)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
