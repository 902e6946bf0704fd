#!/usr/bin/env python3
"""`cachelens search` as a user runs it: the whole process (start, open the
catalog, search, print a page), each query run RUNS times after one warm-up,
the median and p95 of the wall times. Prints Markdown table rows against the
goal (issue #21: every CLI search under 100 ms on the 100,000-entry catalog).

Usage: cli-search-timing.py CLI CATALOG [RUNS]
"""
import json
import statistics
import subprocess
import sys
import time

GOAL_MS = 100


def run(cli, catalog, args):
    start = time.perf_counter()
    done = subprocess.run([cli, "search", *args, "--catalog", catalog],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = (time.perf_counter() - start) * 1000
    if done.returncode not in (0, 1):  # 1: nothing matched
        sys.exit(f"cli-search-timing: search {args} exited {done.returncode}: "
                 f"{done.stderr.decode(errors='replace')}")
    return took


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cli, catalog = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    listing = subprocess.run([cli, "search", "", "--kind", "fxgraph", "--limit", "1", "--json",
                              "--catalog", catalog], capture_output=True, check=True)
    key = json.loads(listing.stdout)["hits"][0]["key"][:8]
    queries = [
        ("kernel name prefix", ["triton_poi"]),
        ("debug-line word", ["cudagraphs"]),
        ("key prefix", [key]),
        ("text + kind filter", ["triton_per", "--kind", "fxgraph"]),
        ("filters only", ["", "--kind", "fxgraph", "--device", "cuda"]),
        ("a word matching nothing", ["zqxjkvbnomatch"]),
    ]
    for name, args in queries:
        run(cli, catalog, args)
        times = sorted(run(cli, catalog, args) for _ in range(runs))
        median = statistics.median(times)
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        shown = " ".join(f"`{a}`" if a else '`""`' for a in args)
        print(f"| CLI `cachelens search` whole process, {name}: {shown} "
              f"| median {median:.0f} ms, p95 {p95:.0f} ms of {runs} | goal < {GOAL_MS} ms "
              f"| {'met' if median < GOAL_MS else 'not met'} |")


if __name__ == "__main__":
    main()
