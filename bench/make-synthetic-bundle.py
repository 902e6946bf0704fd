#!/usr/bin/env python3
"""Builds a large mega-cache bundle for the bundle benchmark: every artifact
of a cache dir (as `cachelens export DIR` collects them), repeated --copies
times under fresh keys, so throughput is not dominated by fixed costs.

In each copy every FX key, AOT key and best_config hash is replaced, inside
the keys and inside every content, by a fresh one of the same length: an FX
entry still names its own key, an AOT entry its FX graphs, an FX entry its
kernels' best_configs, and the pickles keep their lengths. The bundle imports
cleanly (nothing refused, nothing shared between copies) and the cache dir it
imports to exports again.

Usage: make-synthetic-bundle.py SOURCE_CACHE OUT_FILE [--copies N]
Prints {"copies", "artifacts", "bytes"} as JSON.
"""
import argparse
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anchor_bundle import collect, encode, sha256_hash  # noqa: E402


def fresh_names(sections, copy: int):
    """{old: new} for every key and best_config hash, each of the same length."""
    def salted(name: str) -> bytes:
        return f"cachelens synthetic bundle {name} {copy}".encode()

    names = {}
    for kind, artifacts in sections:
        for key, _ in artifacts:
            if kind in ("inductor", "aot_autograd"):
                names[key] = key[0] + sha256_hash(salted(key))
            elif kind == "autotune":
                digest = os.path.basename(key)[:-len(".best_config")]
                names[digest] = hashlib.sha256(salted(digest)).hexdigest()
    return names


def copy_sections(sections, copy: int):
    names = fresh_names(sections, copy)
    by_bytes = {old.encode(): new.encode() for old, new in names.items()}
    pattern = re.compile(b"|".join(re.escape(old) for old in by_bytes))

    def rename(text: str) -> str:
        return pattern.sub(lambda m: by_bytes[m.group(0)], text.encode()).decode()

    copied = []
    for kind, artifacts in sections:
        if kind == "pgo":
            renamed = [(f"{key}_copy{copy}", content) for key, content in artifacts]
        else:
            renamed = [(rename(key), pattern.sub(lambda m: by_bytes[m.group(0)], content))
                       for key, content in artifacts]
        copied.append((kind, renamed))
    return copied


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a real cache dir (the devset)")
    parser.add_argument("out", help="the bundle to write")
    parser.add_argument("--copies", type=int, default=10)
    args = parser.parse_args()

    sections = collect(args.source)
    merged = {kind: [] for kind, _ in sections}
    for copy in range(args.copies):
        for kind, artifacts in copy_sections(sections, copy):
            merged[kind] += artifacts
    bundle = encode(list(merged.items()))
    with open(args.out, "wb") as f:
        f.write(bundle)
    print(json.dumps({
        "copies": args.copies,
        "artifacts": sum(len(a) for a in merged.values()),
        "bytes": len(bundle),
    }))


if __name__ == "__main__":
    main()
