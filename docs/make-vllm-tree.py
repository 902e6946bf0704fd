#!/usr/bin/env python3
"""Lays out a vLLM torch_compile_cache tree around an Inductor cache, as vLLM
>= 0.12 with its Inductor adaptor writes one (docs/FORMATS.md §5): one hash
dir per set of factors, rank_0_0 holding inductor_cache/ (a copy of the
cache) and triton_cache/ (its Triton dirs), and the prefix dir backbone/ with
vllm_compile_cache.py (pprint of the index), cache_key_factors.json and
computation_graph.py. The index's module paths stand in for the modules'
(vLLM loads by the FX key; the path is only what it recorded). Two hash dirs
that differ in one env variable, so that `cachelens why` has something to
say. For the user guide's screenshots (docs/make-screenshots.sh).

Usage: docs/make-vllm-tree.py INDUCTOR_CACHE OUT_DIR   (prints the tree's root)
"""
import hashlib
import json
import os
import pprint
import shutil
import sys

cache, out = sys.argv[1], sys.argv[2]
root = os.path.join(out, "torch_compile_cache")
fx_keys = sorted(key for shard in os.listdir(os.path.join(cache, "fxgraph"))
                 for key in os.listdir(os.path.join(cache, "fxgraph", shard)))


def factors_of(backend):
    return {"code_hash": hashlib.sha256(b"model code").hexdigest(),
            "compiler_hash": "a92dbc9a80", "config_hash": "84b7dc96bd",
            "env": {"VLLM_ATTENTION_BACKEND": backend, "VLLM_DP_SIZE": 1,
                    "VLLM_FUSED_MOE_CHUNK_SIZE": 32768, "VLLM_USE_STANDALONE_COMPILE": False}}


def dir_name(factors):  # vllm/compilation/backends.py, vLLM >= 0.12
    env_hash = hashlib.sha256(json.dumps(factors["env"], sort_keys=True).encode()).hexdigest()
    listed = [env_hash, factors["config_hash"], factors["code_hash"], factors["compiler_hash"]]
    return hashlib.sha256(str(listed).encode()).hexdigest()[:10]


for backend in ("FLASH_ATTN", "FLASHINFER"):
    factors = factors_of(backend)
    rank = os.path.join(root, dir_name(factors), "rank_0_0")
    shutil.copytree(cache, os.path.join(rank, "inductor_cache"), ignore=shutil.ignore_patterns("triton"))
    triton = os.path.join(cache, "triton", "0")
    if os.path.isdir(triton):
        shutil.copytree(triton, os.path.join(rank, "triton_cache"))
    prefix = os.path.join(rank, "backbone")
    os.makedirs(prefix)
    index = {}
    for graph, key in enumerate(fx_keys):
        for shape in (None, 8):
            index[(shape, graph, "inductor")] = (
                key, os.path.join(rank, "inductor_cache", key[1:3], "c" + key[1:] + ".py"))
    with open(os.path.join(prefix, "vllm_compile_cache.py"), "w") as f:
        f.write(pprint.PrettyPrinter(indent=4).pformat(index))
    with open(os.path.join(prefix, "cache_key_factors.json"), "w") as f:
        json.dump(factors, f, indent=2, sort_keys=True)
    with open(os.path.join(prefix, "computation_graph.py"), "w") as f:
        f.write("from __future__ import annotations\nimport torch\n"
                "class GraphModule(torch.nn.Module):\n    def forward(self, s0: \"Sym(s0)\"):\n"
                "        pass\n")
print(root)
