"""The rounds of a benchmark that alternates cachelens and its anchor: each
round a Google Benchmark JSON file (cachelens) and an anchor JSON file
({"python": version, "results": [{"op", "input", ...}]}), paired in order.

    ours, theirs, python = load_rounds(paths)

ours and theirs map (op, input) to that pair's figures of every round:
Google Benchmark runs named "<op>/<input>/..." (their repetitions, not the
aggregates) and the anchor's results. A benchmark that reported an error
stops the table: its figure would be meaningless.
"""
import json
import sys


def load_rounds(paths):
    ours, theirs = {}, {}
    python = ""
    for ours_path, anchor_path in zip(paths[0::2], paths[1::2]):
        with open(ours_path) as f:
            for run in json.load(f)["benchmarks"]:
                if run.get("run_type") == "aggregate":
                    continue
                if run.get("error_occurred"):
                    sys.exit(f"bench: {run['run_name']}: {run.get('error_message')}")
                op, name = run["run_name"].split("/")[:2]
                ours.setdefault((op, name), []).append(run)
        with open(anchor_path) as f:
            anchor = json.load(f)
        python = anchor["python"]
        for run in anchor["results"]:
            theirs.setdefault((run["op"], run["input"]), []).append(run)
    return ours, theirs, python
