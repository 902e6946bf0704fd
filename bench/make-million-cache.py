#!/usr/bin/env python3
"""Builds a cache of about a million files for the scale benchmark (issue #37).

Each "unit" is a whole real Inductor cache (the fixture's devset: FX entries,
AOT entries, generated modules, Triton kernel dirs with their group files,
best_configs, kernel_perf files, an OnDiskCache value) laid out again under
fresh names, as another run's compiles would be: every hash-like name (keys,
c-module names, Triton dir hashes, best_config names) gets a fresh one of the
same length and alphabet, and shard dirs follow the new names the way PyTorch
derives them (fxgraph/<key[1:3]>/<key>, <name[1:3]>/c<name>.py). Files are
hard links to the fixture's files, so a million of them take inodes and
directory blocks, not gigabytes, and every byte the indexer reads is a real
file PyTorch wrote. A vLLM tree (0.8 layout: hash dirs, rank_0_0 with its index
and its inner Inductor and Triton caches, built the same way) sits beside it,
so a run that indexes both roots sees the serving kinds too.

Layout under OUT:
  OUT/inductor/                      the Inductor cache (units 0..N-1)
  OUT/vllm/torch_compile_cache/      the vLLM tree
The manifest (JSON, printed on stdout) is written beside OUT, never inside it;
a tree already built with the same parameters is reused.

Usage: make-million-cache.py DEVSET_CACHE OUT [--files 1000000] [--vllm-dirs 20]
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import sys

LOWER32 = "abcdefghijklmnopqrstuvwxyz234567"
UPPER32 = LOWER32.upper()
HEX = "0123456789abcdef"
HASHLIKE = re.compile(r"^([A-Za-z0-9]{20,})((?:\.[a-z_]+)?)$")
MANIFEST_VERSION = 1


def alphabet_of(token: str) -> str:
    if all(c in HEX for c in token):
        return HEX
    if token.upper() == token:
        return UPPER32
    return LOWER32


class Renamer:
    """Fresh names for one unit, the same fresh name for the same old one."""

    def __init__(self, seed: str):
        self.random = random.Random(seed)
        self.names = {}

    def token(self, old: str) -> str:
        if old not in self.names:
            alphabet = alphabet_of(old[1:])
            # Keep PyTorch's one-letter prefixes (f for FX keys, c for modules).
            keep = old[0] if alphabet is not HEX and old[0] in "cfa" else ""
            fresh = "".join(self.random.choice(alphabet) for _ in range(len(old) - len(keep)))
            self.names[old] = keep + fresh
        return self.names[old]

    def name(self, component: str) -> str:
        match = HASHLIKE.match(component)
        if not match:
            return component
        return self.token(match.group(1)) + match.group(2)


def unit_paths(source: str):
    """Every file of the source cache, relative, sorted; locks and temp files left out."""
    out = []
    for dirpath, dirnames, names in os.walk(source):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, source)
        if rel_dir.split(os.sep)[0] == "locks":
            continue
        for name in sorted(names):
            if name.startswith(".") or name.startswith("tmp"):
                continue
            out.append(os.path.normpath(os.path.join(rel_dir, name)))
    return out


def target_of(relative: str, renamer: Renamer, module_shard_for: dict) -> str:
    parts = relative.split(os.sep)
    new = [renamer.name(part) for part in parts]
    if parts[0] == "fxgraph" and len(parts) >= 4:
        new[1] = new[2][1:3]
    elif len(parts) == 2 and len(parts[0]) == 2:
        # Top-level shard: a module's shard is its fresh name's [1:3]; other files of
        # the shard (best_configs, kernel_perf) follow the shard's first module.
        new[0] = module_shard_for.get(parts[0], new[1][:2])
    return os.path.join(*new)


def build_unit(source: str, paths, out_root: str, seed: str, prefix_map=None):
    """Links one unit's files under out_root; returns (files, fx keys, module paths)."""
    renamer = Renamer(seed)
    module_shard_for = {}
    for relative in paths:
        parts = relative.split(os.sep)
        if len(parts) == 2 and len(parts[0]) == 2 and parts[1].startswith("c") and parts[1].endswith(".py"):
            module_shard_for.setdefault(parts[0], renamer.name(parts[1])[1:3])
    made_dirs = set()
    fx_keys, modules = [], []
    for relative in paths:
        target_relative = target_of(relative, renamer, module_shard_for)
        if prefix_map:
            target_relative = prefix_map(target_relative)
            if target_relative is None:
                continue
        target = os.path.join(out_root, target_relative)
        parent = os.path.dirname(target)
        if parent not in made_dirs:
            os.makedirs(parent, exist_ok=True)
            made_dirs.add(parent)
        os.link(os.path.join(source, relative), target)
        parts = target_relative.split(os.sep)
        if parts[0] == "fxgraph" and len(parts) == 4:
            fx_keys.append(parts[2])
        elif len(parts) == 2 and parts[1].endswith(".py"):
            modules.append(target_relative)
    return fx_keys, modules


def count_files(root: str) -> int:
    return sum(len(names) for _, _, names in os.walk(root))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--files", type=int, default=1_000_000)
    parser.add_argument("--vllm-dirs", type=int, default=20)
    args = parser.parse_args()

    source = os.path.abspath(args.source)
    out = os.path.abspath(args.out)
    paths = unit_paths(source)
    if not paths:
        sys.exit(f"make-million-cache: no files in {source}")
    triton_paths = [p for p in paths if p.startswith("triton" + os.sep)]
    inductor_paths = [p for p in paths if not p.startswith("triton" + os.sep)]
    # A vLLM 0.8 rank dir: the inner Inductor cache without triton/, Triton's cache
    # (triton/0/<hash> -> triton_cache/<hash>) and three vLLM files.
    vllm_unit_files = len(paths) + 3
    vllm_files = args.vllm_dirs * vllm_unit_files
    units = max(1, (args.files - vllm_files + len(paths) - 1) // len(paths))

    manifest_path = out.rstrip("/") + ".manifest.json"
    fingerprint = hashlib.sha256("\n".join(paths).encode()).hexdigest()[:16]
    wanted = {"version": MANIFEST_VERSION, "source": source, "source_files": fingerprint,
              "files_requested": args.files, "units": units, "vllm_dirs": args.vllm_dirs}
    if os.path.exists(manifest_path) and os.path.isdir(out):
        with open(manifest_path) as f:
            manifest = json.load(f)
        if all(manifest.get(k) == v for k, v in wanted.items()):
            manifest["reused"] = True
            print(json.dumps(manifest))
            return
    if os.path.exists(out):
        shutil.rmtree(out)
    if os.path.exists(manifest_path):
        os.remove(manifest_path)

    inductor_root = os.path.join(out, "inductor")
    for unit in range(units):
        build_unit(source, paths, inductor_root, f"unit {unit}")
        if unit % 100 == 0:
            print(f"make-million-cache: unit {unit} of {units}", file=sys.stderr)

    tree = os.path.join(out, "vllm", "torch_compile_cache")
    for index in range(args.vllm_dirs):
        hash_dir = hashlib.sha256(f"vllm dir {index}".encode()).hexdigest()[:10]
        rank = os.path.join(tree, hash_dir, "rank_0_0")

        def into_rank(relative):
            parts = relative.split(os.sep)
            if parts[0] == "triton":
                return os.path.join("triton_cache", *parts[2:])
            return os.path.join("inductor_cache", relative)

        fx_keys, modules = build_unit(source, paths, rank, f"vllm {index}", into_rank)
        lines = []
        for graph, key in enumerate(fx_keys):
            module = os.path.join("/home/vllm/.cache/vllm/torch_compile_cache", hash_dir,
                                  "rank_0_0", modules[graph % len(modules)])
            lines.append(f" (None, {graph}, 'inductor'): ({key!r}, {module!r})")
        with open(os.path.join(rank, "vllm_compile_cache.py"), "w") as f:
            f.write("{" + ",\n".join(lines).lstrip() + "}")
        with open(os.path.join(rank, "computation_graph.py"), "w") as f:
            f.write("from __future__ import annotations\nimport torch\n"
                    "class GraphModule(torch.nn.Module):\n"
                    "    def forward(self, s0: \"Sym(s0)\", L_input_ids_: \"i32[s0]\"):\n"
                    "        pass\n")
        with open(os.path.join(rank, "transformed_code.py"), "w") as f:
            f.write("def forward(self, input_ids):\n    pass\n")

    manifest = dict(wanted)
    manifest["files"] = count_files(out)
    manifest["inductor_files"] = count_files(inductor_root)
    manifest["vllm_files"] = count_files(os.path.join(out, "vllm"))
    manifest["dirs"] = sum(len(d) for _, d, _ in os.walk(out))
    manifest["bytes"] = sum(os.path.getsize(os.path.join(d, n))
                            for d, _, names in os.walk(out) for n in names)
    manifest["unit"] = {"files": len(paths), "triton_files": len(triton_paths),
                        "inductor_files": len(inductor_paths)}
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
    manifest["reused"] = False
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
