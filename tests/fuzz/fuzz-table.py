#!/usr/bin/env python3
"""The fuzzing table of docs/SECURITY.md from tests/fuzz/ledger.tsv.

Each line of the ledger is one run of tests/fuzz/run-fuzzers.sh with FUZZ_KEEP=1:
date, target, wall seconds, CPU seconds, executions, edges, features, inputs kept,
result. Runs of a target add up: CPU time and executions are summed; edges and
features are the last run's (each run starts from the kept corpus, so they only grow).

Usage: tests/fuzz/fuzz-table.py [LEDGER]
"""

import collections
import pathlib
import sys

ledger = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                      pathlib.Path(__file__).with_name("ledger.tsv"))
targets = collections.OrderedDict()
for line in ledger.read_text().splitlines():
    if not line.strip() or line.startswith("#"):
        continue
    date, target, wall, cpu, execs, edges, features, inputs, result = line.split("\t")
    row = targets.setdefault(target, {"runs": 0, "cpu": 0, "execs": 0, "failed": 0})
    row["runs"] += 1
    row["cpu"] += int(cpu)
    row["execs"] += int(execs)
    row["failed"] += result != "ok"
    row.update(last=date, edges=int(edges), features=int(features), inputs=int(inputs))

print("| target | runs | CPU time | executions | edges | features | corpus kept | last run |")
print("|---|---|---|---|---|---|---|---|")
for target, row in sorted(targets.items()):
    minutes = row["cpu"] / 60
    failed = f" ({row['failed']} failed: below)" if row["failed"] else ""
    print(f"| `{target}` | {row['runs']}{failed} | {minutes:.0f} min | {row['execs']:,} "
          f"| {row['edges']:,} | {row['features']:,} | {row['inputs']:,} inputs | {row['last']} |")
