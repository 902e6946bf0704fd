#!/usr/bin/env python3
"""Runs a command and prints, as one JSON line, its peak resident set size:
the ru_maxrss of the child (what `/usr/bin/time -v` prints as "Maximum
resident set size"), its wall time, and the size of its input.

Usage: peak-memory.py LABEL INPUT_NAME INPUT_PATH -- COMMAND...
INPUT_PATH (a file or a dir) is only measured: its bytes go in the record.
A command that fails stops the benchmark with its exit code.
"""
import json
import os
import resource
import subprocess
import sys
import time


def size_of(path: str) -> int:
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for parent, _, files in os.walk(path):
        for name in files:
            file = os.path.join(parent, name)
            if not os.path.islink(file):
                total += os.path.getsize(file)
    return total


def main() -> None:
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.exit(__doc__)
    label, input_name, input_path = sys.argv[1:4]
    command = sys.argv[5:]
    input_bytes = size_of(input_path)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"peak-memory: {' '.join(command)} exited with {done.returncode}")
    # Only this one child has been waited for, so the maximum is its own.
    max_rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"label": label, "input": input_name, "input_bytes": input_bytes,
                      "max_rss_kb": max_rss_kb, "seconds": seconds}))


if __name__ == "__main__":
    main()
