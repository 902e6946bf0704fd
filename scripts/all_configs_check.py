"""The Python way of re-benchmarking a cache's kernels: import each kernel
module that has a benchmark harness and time it with PyTorch's own harness.
Prints one JSON line per timing and a last line with the wall time, torch
import included, so it can stand beside `cachelens bench`.

    python3 all_configs_check.py CACHE_DIR          # every config
    python3 all_configs_check.py CACHE_DIR --call   # the cached winner

Every config: the module's `benchmark_all_configs(get_args())`. CACHE_DIR
should be a copy whose .best_config files are removed: they narrow each
autotuner to the cached winner. --call: what golden.json's `rebench` holds,
`triton.testing.do_bench(lambda: call(args), warmup=25, rep=100,
return_mode="median")` three times, .best_config files left in place.
"""

import glob
import importlib.util
import json
import os
import sys
import time


def main() -> int:
    started = time.perf_counter()
    cache_dir = os.path.abspath(sys.argv[1])
    call_only = "--call" in sys.argv[2:]
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(cache_dir, "triton", "0"))

    import torch
    import triton.testing
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    modules = 0
    for path in sorted(glob.glob(os.path.join(cache_dir, "??", "c*.py"))):
        with open(path) as f:
            if "def benchmark_all_configs" not in f.read():
                continue
        name = os.path.basename(path)[:-3]
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            args = module.get_args()
            if call_only:
                medians = [triton.testing.do_bench(lambda: module.call(args), warmup=25, rep=100,
                                                   return_mode="median") for _ in range(3)]
                launched = [{"kernel": k.fn.__name__, "kwargs": dict(k.launchers[0].config.kwargs),
                             "num_warps": k.launchers[0].config.num_warps,
                             "num_stages": k.launchers[0].config.num_stages}
                            for k in vars(module).values()
                            if isinstance(k, CachingAutotuner) and k.launchers]
                print(json.dumps({"event": "call", "module": name, "do_bench_median_ms": medians,
                                  "launched": launched}), flush=True)
                modules += 1
                continue
            for kernel in vars(module).values():
                if isinstance(kernel, CachingAutotuner) and not kernel.launchers:
                    kernel.precompile()
            timings = module.benchmark_all_configs(args)
            torch.cuda.synchronize()
        except Exception as error:  # a module that cannot run is a result too
            print(json.dumps({"event": "error", "module": name, "message": repr(error)[:400]}),
                  flush=True)
            continue
        modules += 1
        for launcher, ms in (timings or {}).items():
            config = launcher.config
            print(json.dumps({
                "event": "result",
                "module": name,
                "kwargs": dict(config.kwargs),
                "num_warps": config.num_warps,
                "num_stages": config.num_stages,
                "ms": float(ms),
            }), flush=True)
    print(json.dumps({"event": "end", "modules": modules,
                      "wall_s": time.perf_counter() - started}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
