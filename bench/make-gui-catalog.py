#!/usr/bin/env python3
"""Builds a 100,000-entry catalog for the GUI benchmark, in seconds.

The GUI's table reads only catalog rows, never the cache's files, so this
indexes a real cache (the devset) with `cachelens index` and then copies its
rows in SQL until the catalog holds `--entries` entries: every per-entry table
(entries, files, fx_entries, aot_entries, modules, kernels, triton_refs,
triton_kernels, best_configs, benchmark_choices) and the full-text rows
(entry_search: keys, kernel names, source). Each copy gets fresh keys, hashes
and paths (a deterministic function of the original and the copy number, with
the original's length and alphabet, so cross-references between entries stay
consistent) under one of a few fake roots, and older mtimes. Debug lines are
shared between copies, as in real caches where keys share almost all of
theirs: copies keep the same debug-line ids.

The catalog is reused when a manifest beside it records the same parameters.

Usage: make-gui-catalog.py CACHELENS_CLI SOURCE_CACHE OUT_CATALOG [--entries N] [--roots R]
Prints the manifest (JSON) on stdout.
"""

import argparse
import base64
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import time

# Bump when the way copies are made changes, so that old catalogs are rebuilt.
FORMAT = 2  # 2: debug-line ids in fx_debug_lines (catalog schema 5)

# Keys, hashes and entry file names: long runs of letters and digits.
TOKEN = re.compile(r"[A-Za-z0-9]{20,}")
HEX = set("0123456789abcdef")
LOWER32 = "abcdefghijklmnopqrstuvwxyz234567"
UPPER32 = LOWER32.upper()

# Per-entry tables and their columns (the first is the entry id). Columns in
# REWRITE hold keys, hashes or cache-relative paths that get the copy's tokens.
TABLES = {
    "files": ["entry_id", "root_id", "path", "kind", "size", "mtime_ns", "inode"],
    "fx_entries": ["entry_id", "guards_expr", "cache_key", "device_types", "time_taken_ns",
                   "debug_line_count", "source_sha256"],
    "fx_debug_lines": ["entry_id", "line_ids"],
    "aot_entries": ["entry_id", "guards_expr", "forward_key", "backward_key", "forward_time_ns",
                    "backward_time_ns"],
    "modules": ["entry_id", "role", "has_benchmark_harness", "autotune_candidate"],
    "kernels": ["entry_id", "name", "heuristic", "grid_type", "module_key", "best_config",
                "candidates"],
    "triton_refs": ["entry_id", "triton_hash"],
    "triton_kernels": ["entry_id", "device", "module_key", "num_warps", "num_stages", "shared",
                       "arch"],
    "best_configs": ["entry_id", "config", "num_warps", "num_stages", "triton_cache_hash",
                     "found_by_coordesc", "time_taken_ms"],
    "benchmark_choices": ["entry_id", "op", "inputs", "precision", "choice", "ms"],
}
REWRITE = {"path", "cache_key", "forward_key", "backward_key", "module_key", "best_config",
           "triton_hash", "triton_cache_hash", "source_sha256"}
HOUR_NS = 3600 * 10**9


def fresh_token(token: str, copy: int) -> str:
    """A new token for copy `copy`: same length and alphabet, same first
    character (PyTorch's kind prefix: c, f, a, ...), otherwise pseudo-random."""
    if token.islower() and set(token) <= HEX:
        alphabet = "0123456789abcdef"
    elif token.isupper() or token.isdigit():
        alphabet = UPPER32
    else:
        alphabet = LOWER32
    digest = b""
    counter = 0
    while len(digest) < len(token):
        digest += hashlib.sha256(f"cachelens gui {copy} {counter} {token}".encode()).digest()
        counter += 1
    body = "".join(alphabet[b % len(alphabet)] for b in digest[: len(token) - 1])
    return token[0] + body


def rewrite(text, copy: int):
    """Every token in `text` replaced by its copy; a shard dir (`xx/` before a
    key whose characters 1-2 it repeats) follows its key."""
    if text is None or not isinstance(text, str):
        return text
    out = TOKEN.sub(lambda m: fresh_token(m.group(0), copy), text)
    if "/" in text:
        old_parts, new_parts = text.split("/"), out.split("/")
        for i in range(len(old_parts) - 1):
            nxt = old_parts[i + 1]
            if len(old_parts[i]) == 2 and TOKEN.fullmatch(nxt.split(".")[0] or "") and \
                    nxt[1:3] == old_parts[i]:
                new_parts[i] = new_parts[i + 1][1:3]
        out = "/".join(new_parts)
    return out


def index_seed(cli: str, source: str, catalog: str):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(catalog + suffix):
            os.remove(catalog + suffix)
    subprocess.run([cli, "index", "--catalog", catalog, source], check=True,
                   stdout=subprocess.DEVNULL)


def multiply(catalog: str, entries: int, roots: int) -> dict:
    db = sqlite3.connect(catalog)
    db.create_function("fresh", 2, rewrite, deterministic=True)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = OFF")
    seed_count, stride = db.execute("SELECT COUNT(*), MAX(id) FROM entries").fetchone()
    if seed_count == 0:
        sys.exit("make-gui-catalog: the source cache has no entries")
    (location,) = db.execute("SELECT location FROM roots").fetchone()
    base = os.path.join(os.path.dirname(os.path.abspath(catalog)), "fake-roots")
    root_ids = []
    now = time.time_ns()
    for r in range(roots):
        cursor = db.execute("INSERT INTO roots (location, added_ns, index_started_ns, "
                            "index_completed_ns) VALUES (?, ?, ?, ?)",
                            (f"{base}/cache-{r}", now, now, now))
        root_ids.append(cursor.lastrowid)
    entry_columns = ["kind", "key", "path", "name", "size", "mtime_ns", "file_count",
                     "parse_status", "parse_error"]
    copy = 0
    total = seed_count
    while total < entries:
        copy += 1
        offset = copy * stride
        take = min(seed_count, entries - total)
        # The first `take` seed entries (all of them but in the last copy).
        limit = db.execute("SELECT id FROM entries WHERE id <= ? ORDER BY id LIMIT 1 OFFSET ?",
                           (stride, take - 1)).fetchone()[0]
        root_id = root_ids[copy % roots]
        values = ", ".join(
            f"fresh({c}, {copy})" if c in ("key", "path") else
            f"{c} - {copy} * {HOUR_NS}" if c == "mtime_ns" else c for c in entry_columns)
        db.execute(f"INSERT INTO entries (id, root_id, {', '.join(entry_columns)}) "
                   f"SELECT id + {offset}, {root_id}, {values} FROM entries "
                   f"WHERE id <= {limit}")
        for table, columns in TABLES.items():
            selected = ", ".join(
                f"entry_id + {offset}" if c == "entry_id" else
                str(root_id) if c == "root_id" else
                f"fresh({c}, {copy})" if c in REWRITE else
                f"{c} - {copy} * {HOUR_NS}" if c == "mtime_ns" else c for c in columns)
            db.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {selected} "
                       f"FROM {table} WHERE entry_id <= {limit}")
        db.execute(f"INSERT INTO entry_search (rowid, keys, names, body) "
                   f"SELECT rowid + {offset}, fresh(keys, {copy}), names, body "
                   f"FROM entry_search WHERE rowid <= {limit}")
        total += take
        if copy % 50 == 0:
            db.commit()
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    counts = dict(db.execute("SELECT kind, COUNT(*) FROM entries GROUP BY kind").fetchall())
    (count,) = db.execute("SELECT COUNT(*) FROM entries").fetchone()
    (fx_count,) = db.execute("SELECT COUNT(*) FROM fx_entries").fetchone()
    (lines,) = db.execute("SELECT COUNT(*) FROM debug_lines").fetchone()
    db.close()
    return {"entries": count, "seed_entries": seed_count, "copies": copy,
            "seed_root": location, "fake_roots": roots, "kinds": counts,
            "fx_entries": fx_count, "debug_lines": lines}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli", help="the cachelens CLI, to index the source cache")
    parser.add_argument("source", help="a real cache dir (the devset)")
    parser.add_argument("out", help="the catalog to make (under build/<dir>/bench/)")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--roots", type=int, default=4, help="fake roots the copies go under")
    args = parser.parse_args()

    wanted = {"format": FORMAT, "source": os.path.abspath(args.source),
              "requested_entries": args.entries, "fake_roots": args.roots}
    manifest_path = args.out + ".json"
    if os.path.exists(args.out) and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
        if {k: manifest.get(k) for k in wanted} == wanted:
            manifest["reused"] = True
            print(json.dumps(manifest))
            return
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    if os.path.exists(manifest_path):
        os.remove(manifest_path)
    start = time.monotonic()
    index_seed(args.cli, args.source, args.out)
    manifest = dict(wanted)
    manifest.update(multiply(args.out, args.entries, args.roots))
    manifest["seconds"] = round(time.monotonic() - start, 1)
    manifest["bytes"] = os.path.getsize(args.out)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f)
    manifest["reused"] = False
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
