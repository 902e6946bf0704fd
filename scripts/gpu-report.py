"""Tables for docs/PERFORMANCE.md from what scripts/gpu-session.sh brought back
(its results.tar.gz, unpacked): the cached winners against golden.json and
against PyTorch's own harness in the same run, and every config ranked by
cachelens and by the modules' benchmark_all_configs.

    python3 scripts/gpu-report.py RESULTS_DIR [GOLDEN_JSON]
"""

import itertools
import json
import os
import statistics
import sys


def lines(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                yield json.loads(line)


def config_key(kwargs, num_warps, num_stages):
    return (tuple(sorted(kwargs.items())), num_warps, num_stages)


def winners_table(results, golden_path):
    """1: each cached winner's median, cachelens against golden (H100) and
    against do_bench of the module's call() in the same run."""
    golden = json.load(open(golden_path))
    ours = {}
    for event in lines(os.path.join(results, "check.jsonl")):
        if event.get("event") == "result" and event["was_best"]:
            ours.setdefault(event["module"], []).append(event)
    python = {e["module"]: e for e in lines(os.path.join(results, "check-python-call.jsonl"))
              if e.get("event") == "call"}
    print("| kernel (module) | golden H100 do_bench (µs) | this GPU: do_bench of call() (µs) "
          "| cachelens (µs) | vs same-run do_bench | within 10% or 2 µs |")
    print("|---|---|---|---|---|---|")
    within = total = 0
    for entry in golden["rebench"]:
        if not entry.get("do_bench_median_ms"):
            continue
        module = os.path.basename(entry["path"]).removesuffix(".py")
        name = ", ".join(entry["kernels"]) or "(template candidate)"
        reference = statistics.median(python[module]["do_bench_median_ms"]) if module in python else None
        measured = ours.get(module, [])
        total += 1
        if not measured or any(r["status"] != "ok" for r in measured):
            why = measured[0]["status"] if measured else "not run (no cubin in the cache)"
            print(f"| {name} (`{module[:8]}`) | {statistics.median(entry['do_bench_median_ms']) * 1000:.1f} "
                  f"| {reference * 1000 if reference else float('nan'):.1f} | {why} | | no |")
            continue
        median = sum(r["median_ms"] for r in measured)
        if reference is None:
            print(f"| {name} (`{module[:8]}`) | {statistics.median(entry['do_bench_median_ms']) * 1000:.1f} "
                  f"| — | {median * 1000:.1f} | | |")
            continue
        ok = abs(median - reference) <= max(0.1 * reference, 0.002)
        within += ok
        print(f"| {name} (`{module[:8]}`) | {statistics.median(entry['do_bench_median_ms']) * 1000:.1f} "
              f"| {reference * 1000:.1f} | {median * 1000:.1f} | {(median / reference - 1) * 100:+.0f}% "
              f"| {'yes' if ok else 'no'} |")
    print(f"\n{within} of {total} within tolerance of the same-run do_bench.\n")


def ranking_table(results):
    """2: per kernel, the pairs of configs cachelens sets apart (p20-p80 bands
    disjoint) and whether benchmark_all_configs orders them the same."""
    python = {}
    if not os.path.exists(os.path.join(results, "all-python.jsonl")):
        print("(no all-configs step in these results: no ranking table)")
        return
    for event in lines(os.path.join(results, "all-python.jsonl")):
        if event.get("event") == "result":
            python.setdefault(event["module"], {})[
                config_key(event["kwargs"], event["num_warps"], event["num_stages"])] = event["ms"]
    for run in ("all-cachelens-1.jsonl", "all-cachelens-2.jsonl"):
        path = os.path.join(results, run)
        if not os.path.exists(path):
            continue
        ours = {}
        for event in lines(path):
            if event.get("event") == "result" and event["status"] == "ok":
                c = event["config"]
                ours.setdefault(event["module"], []).append(
                    (config_key(c["kwargs"], c["num_warps"], c["num_stages"]), event))
        compared = agreeing = within_bands = unmatched = 0
        rows = []
        for module, candidates in sorted(ours.items()):
            timed = python.get(module, {})
            for (key_a, a), (key_b, b) in itertools.combinations(candidates, 2):
                if key_a not in timed or key_b not in timed:
                    unmatched += 1
                    continue
                if a["p80_ms"] < b["p20_ms"] or b["p80_ms"] < a["p20_ms"]:
                    compared += 1
                    same = (a["median_ms"] < b["median_ms"]) == (timed[key_a] < timed[key_b])
                    agreeing += same
                    rows.append(f"| {a['kernel']} | {a['config_text']} vs {b['config_text']} | "
                                f"{a['median_ms'] * 1000:.2f} / {b['median_ms'] * 1000:.2f} | "
                                f"{timed[key_a] * 1000:.2f} / {timed[key_b] * 1000:.2f} | "
                                f"{'yes' if same else 'no'} |")
                else:
                    within_bands += 1
        print(f"{run}: {compared} pairs of configs with disjoint p20–p80 bands, "
              f"{agreeing} ordered the same by benchmark_all_configs; {within_bands} pairs "
              f"within each other's bands; {unmatched} pairs not both timed by Python.\n")
        print("| kernel | configs | cachelens medians (µs) | benchmark_all_configs (µs) | same order |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))
        print()


def main():
    results = sys.argv[1]
    golden = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "..", "..", "shared", "fixtures", "torch-2.11-cu130-h100",
        "devset", "golden.json")
    winners_table(results, golden)
    ranking_table(results)


if __name__ == "__main__":
    main()
