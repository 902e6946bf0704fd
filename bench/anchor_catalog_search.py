#!/usr/bin/env python3
"""Anchor for catalog search: the same queries through Python's sqlite3.

Reads bench_catalog's JSON (the catalog file and the queries it timed) and runs
each query as a Python tool over the same catalog would, the way
Catalog::search (engine/src/catalog/search.cpp) does: FTS5 per column the
query's kinds fill, debug lines by FTS5 then a scan of the FX entries'
line-id lists, the kinds kept by the (root_id, kind) index, a temporary table
of the matched ids, the query that orders the page's ids (its SQL recorded by
bench_catalog as cachelens ran it), then each id's columns. The page's entry ids are checked against cachelens', so both sides did
the same work.

Usage: anchor_catalog_search.py BENCH_CATALOG_JSON
Prints JSON: per query, median and p95 milliseconds.
"""

import json
import math
import platform
import sqlite3
import sys
import time


def fts_query(text):
    """FTS5 MATCH syntax: every word (between spaces) required, each a quoted
    phrase of its runs of letters and digits, the last one a prefix."""
    phrases = []
    for word in text.split():
        parts, part = [], ""
        for c in word:
            if c.isascii() and c.isalnum() or ord(c) >= 0x80:
                part += c
            elif part:
                parts.append(part)
                part = ""
        if part:
            parts.append(part)
        if parts:
            phrases.append('"' + " ".join(parts) + '"*')
    return " AND ".join(phrases)


# The entry_search columns each kind fills (search_columns in
# engine/src/catalog/entry_rows.cpp); every kind fills keys.
NAMES_KINDS = {"fxgraph", "triton", "module", "benchmark_cache", "triton_autotune"}
BODY_KINDS = {"module", "benchmark_cache", "triton_autotune", "best_config"}


def line_ids(blob):
    """fx_debug_lines.line_ids: ascending ids as LEB128 varints of their gaps."""
    ids, value, gap, shift = [], 0, 0, 0
    for byte in blob:
        gap |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            value += gap
            ids.append(value)
            gap, shift = 0, 0
    return ids


def text_matches(db, text, kinds):
    match = fts_query(text)
    if not match:
        return None
    columns = [("keys", "key")]
    if not kinds or NAMES_KINDS & set(kinds):
        columns.append(("names", "name"))
    if not kinds or BODY_KINDS & set(kinds):
        columns.append(("body", "source"))
    matches = []
    for column, label in columns:
        rows = db.execute("SELECT rowid FROM entry_search WHERE entry_search MATCH ?",
                          (f"{{{column}}} : ({match})",))
        matches += [(rowid, label) for (rowid,) in rows]
    if not kinds or "fxgraph" in kinds:
        lines = {rowid for (rowid,) in db.execute(
            "SELECT rowid FROM debug_lines_fts WHERE debug_lines_fts MATCH ?", (match,))}
        if lines:
            for entry_id, blob in db.execute("SELECT entry_id, line_ids FROM fx_debug_lines"):
                if not lines.isdisjoint(line_ids(blob)):
                    matches.append((entry_id, "debug line"))
    if kinds and matches:
        # Kinds kept from the (root_id, kind) index, as search.cpp does.
        marks = ", ".join("?" * len(kinds))
        allowed = {i for (i,) in db.execute(
            "SELECT e.id FROM entries e INDEXED BY entries_by_root_kind WHERE "
            f"e.root_id IN (SELECT id FROM roots) AND e.kind IN ({marks})", kinds)}
        matches = [m for m in matches if m[0] in allowed]
    return matches


FIELDS = ("key", "name", "source", "debug line")


def search(db, query):
    # One read, as Catalog::search makes it (the temporary table's inserts commit once).
    db.execute("BEGIN")
    try:
        return search_read(db, query)
    finally:
        db.execute("COMMIT")


def search_read(db, query):
    matches = text_matches(db, query["text"], query["kinds"])
    fields = {}
    if matches is not None:
        for entry_id, label in matches:
            fields.setdefault(entry_id, set()).add(label)
        db.execute("CREATE TEMP TABLE IF NOT EXISTS search_ids (id INTEGER PRIMARY KEY)")
        db.execute("DELETE FROM search_ids")
        db.executemany("INSERT INTO search_ids VALUES (?)", ((i,) for i in sorted(fields)))
    # The page's ids in order by the query cachelens ran (its values bound in),
    # so that the anchor follows search.cpp as it changes; then each one's
    # columns and where the text matched it.
    page = [row[0] for row in db.execute(query["page_sql"])]
    rows = []
    for entry_id in page:
        row = db.execute(query["rows_sql"], (entry_id,)).fetchone()
        if row is not None:
            rows.append(row + (",".join(f for f in FIELDS if f in fields.get(entry_id, ())),))
    return rows


def percentile(samples, fraction):
    """Nearest rank, as bench_catalog computes it."""
    ordered = sorted(samples)
    return ordered[min(max(math.ceil(fraction * len(ordered)), 1), len(ordered)) - 1]


def main():
    with open(sys.argv[1]) as f:
        bench = json.load(f)
    # The connection settings Catalog::open uses that matter to a read.
    db = sqlite3.connect(bench["catalog"], isolation_level=None)
    db.execute("PRAGMA temp_store = MEMORY")
    out = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "queries": []}
    for query in bench["search"]:
        page = [row[0] for row in search(db, query)]  # warm-up, as bench_catalog does
        if page != query["hit_ids"]:
            sys.exit(f"anchor_catalog_search: {query['name']!r}: a page of {len(page)} entries "
                     f"that is not the {len(query['hit_ids'])} cachelens found")
        hits = len(page)
        samples = []
        for _ in range(query["runs"]):
            start = time.perf_counter()
            search(db, query)
            samples.append((time.perf_counter() - start) * 1e3)
        out["queries"].append({"name": query["name"], "hits": hits,
                               "median_ms": percentile(samples, 0.5),
                               "p95_ms": percentile(samples, 0.95)})
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
