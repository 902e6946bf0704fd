"""`cachelens tune --strategy coordesc` against Inductor's own coordinate
descent, one kernel at a time, in the same call (issue #35's GPU table).

    python3 tune_check.py CLI CACHE_DIR KERNEL...

For each kernel (a name or module key with a benchmark harness in CACHE_DIR):

- cachelens: `CLI tune CACHE_COPY KERNEL --json-lines` with this Python as the
  compiler; its wall time, its final config (tune_end) and that config's
  median (its result record);
- Inductor: the kernel module imported in a fresh process with a fresh
  TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR (no .best_config to start
  from), coordinate descent switched on in the autotuner's inductor_meta,
  then the harness's `call(get_args())` once: Inductor benchmarks its
  configs and runs coordinate descent from the fastest; its wall time, the
  config the autotuner launches afterwards, and that config timed with
  triton.testing.do_bench (warmup 25 ms, rep 100 ms, median), as
  cachelens times.

Prints one JSON line per kernel. Not yet run on a GPU: the first session
with one runs it (scripts/gpu-session.sh tune) and records the table in
docs/PERFORMANCE.md, "The explorer".
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

INDUCTOR_SIDE = r"""
import importlib.util, json, os, sys, time
started = time.perf_counter()
import torch, triton.testing
path, kernel = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("tuned_module", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
autotuner = getattr(module, kernel)
autotuner.inductor_meta["coordinate_descent_tuning"] = True
args = module.get_args()
imported = time.perf_counter()
module.call(args)
torch.cuda.synchronize()
tuned = time.perf_counter()
config = autotuner.launchers[0].config
ms = triton.testing.do_bench(lambda: module.call(args), warmup=25, rep=100, return_mode="median")
print(json.dumps({"config": dict(config.kwargs, num_warps=config.num_warps,
                                 num_stages=config.num_stages),
                  "found_by_coordesc": bool(getattr(config, "found_by_coordesc", False)),
                  "median_ms": ms, "tune_s": tuned - imported, "wall_s": tuned - started}))
"""


def module_of(cache_dir, kernel):
    for path in sorted(glob.glob(os.path.join(cache_dir, "??", "c*.py"))):
        name = os.path.basename(path)[:-3]
        with open(path) as f:
            text = f.read()
        if "def get_args" in text and (name.startswith(kernel) or f"def {kernel}(" in text):
            return path, name
    return None, None


def kernel_name(path, kernel):
    with open(path) as f:
        for line in f:
            if line.startswith("def triton_"):
                return line[4:line.index("(")]
    return kernel


def cachelens_side(cli, cache_dir, kernel, work):
    copy = os.path.join(work, "cache")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(cache_dir, copy)
    started = time.perf_counter()
    run = subprocess.run([cli, "tune", copy, kernel, "--json-lines", "--python", sys.executable,
                          "--catalog", os.path.join(work, "catalog.sqlite")],
                         capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - started
    records = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    end = next((r for r in records if r.get("event") == "tune_end"), None)
    if end is None:
        return {"exit": run.returncode, "error": run.stderr[-2000:], "wall_s": wall}
    best = end["best_config_text"]
    medians = [r["median_ms"] for r in records
               if r.get("event") == "result" and r.get("config_text") == best
               and r.get("status") == "ok"]
    return {"exit": run.returncode, "answer": end["answer"], "config": best,
            "median_ms": medians[-1] if medians else None, "tried": end["tried"],
            "compiled": end["compiled"], "wall_s": wall}


def inductor_side(path, kernel, work):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(work, "inductor"),
               TRITON_CACHE_DIR=os.path.join(work, "triton"))
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", INDUCTOR_SIDE, path, kernel], env=env,
                         capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - started
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if run.returncode != 0 or not lines:
        return {"exit": run.returncode, "error": run.stderr[-2000:], "wall_s": wall}
    result = json.loads(lines[-1])
    result["process_wall_s"] = wall
    return result


def main():
    cli, cache_dir, kernels = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    for kernel in kernels:
        path, key = module_of(cache_dir, kernel)
        if path is None:
            print(json.dumps({"kernel": kernel, "error": "no module with a harness"}))
            continue
        name = kernel if kernel.startswith("triton_") else kernel_name(path, kernel)
        with tempfile.TemporaryDirectory() as work:
            ours = cachelens_side(cli, cache_dir, kernel, os.path.join(work, "ours"))
            theirs = inductor_side(path, name, os.path.join(work, "inductor"))
        print(json.dumps({"kernel": name, "module": key, "cachelens": ours, "inductor": theirs}),
              flush=True)


if __name__ == "__main__":
    main()
