#!/usr/bin/env python3
"""Anchor for bench_tune: the CPU work `cachelens tune` does per config besides
compiling and timing it, the Python way: json.dumps of the request and
json.loads of the compile server's answer, json.load of the Triton dir's
metadata and the PTX .entry parameters found by regex (what a launcher needs
to know of a cubin), and triton_config_to_hashable's sorted tuple. Prints JSON.

Usage: anchor_tune.py TRITON_DIR"""
import glob
import json
import os
import platform
import re
import sys
import time

PARAM = re.compile(r"\.param\s+\.(\w+)\s+(?:\.ptr\s+[^\n]*?)?(\w+)\s*[,)\n]")


def per_config(triton_dir, config):
    request = json.dumps({"id": 1, "kwargs": config["kwargs"], "num_warps": config["num_warps"],
                          "num_stages": config["num_stages"]})
    answer = json.loads('{"event":"compiled","id":1,"triton_dir":"%s","triton_hash":"ab",'
                        '"seconds":1.25}' % triton_dir)
    directory = answer["triton_dir"]
    metadata = None
    ptx = None
    for path in glob.glob(os.path.join(directory, "*")):
        name = os.path.basename(path)
        if name.endswith(".json") and not name.startswith("__grp__"):
            with open(path) as f:
                metadata = json.load(f)
        elif name.endswith(".ptx"):
            with open(path) as f:
                ptx = f.read()
    entry = ptx[ptx.index(".entry"):ptx.index("{", ptx.index(".entry"))]
    params = PARAM.findall(entry)
    key = tuple(sorted(config["kwargs"].items())) + (config["num_warps"], config["num_stages"])
    return request, metadata["num_warps"], metadata["shared"], len(params), key


def main():
    triton_dir = sys.argv[1]
    config = {"kwargs": {"XBLOCK": 256}, "num_warps": 4, "num_stages": 1}
    per_config(triton_dir, config)
    rounds = 2000
    start = time.perf_counter()
    for _ in range(rounds):
        per_config(triton_dir, config)
    elapsed = time.perf_counter() - start
    print(json.dumps({"python": platform.python_version(), "configs": rounds,
                      "us_per_config": elapsed / rounds * 1e6}))


if __name__ == "__main__":
    main()
