"""Which config does PyTorch launch? Compiles a small model whose kernels
Inductor autotunes (a row norm of a 4096x3000 matrix, like the devset's
`triton_red_fused_mul_sqrt_sum_0`, a column sum, and a pointwise sine, which
keeps two cached configs without coordinate descent), runs it, and prints as JSON what each
Triton kernel's autotuner launched: the autotuner's own state, read from the
CachingAutotuner objects, not from any file.

    python3 accept_check.py CACHE_DIR [--no-coordesc] [--threads1 [--trace]]

Run it once to fill CACHE_DIR, let `cachelens bench accept` rewrite a
.best_config there, then run it again in a fresh process: the second run's
FX graph comes from the cache and its kernels read their .best_config, so the
printed launcher config is the one PyTorch honoured. --no-coordesc compiles
with coordinate descent tuning off (it is on by default here, as in the
devset). --threads1 compiles in this process (TORCHINDUCTOR_COMPILE_THREADS=1)
rather than in Inductor's worker processes.
"""

import gc
import json
import os
import sys
import weakref


def main() -> int:
    cache_dir = sys.argv[1]
    coordesc = "--no-coordesc" not in sys.argv[2:]
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    if "--threads1" in sys.argv[2:]:
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "1"
    # cachelens bench needs the module's benchmark harness (get_args/call).
    os.environ["TORCHINDUCTOR_BENCHMARK_KERNEL"] = "1"

    import torch
    import torch._inductor.config as inductor_config
    from torch._dynamo.utils import counters
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    inductor_config.coordinate_descent_tuning = coordesc

    # --trace (with --threads1, so that kernels load in this process): what the
    # autotune cache returned and where coordinate descent started.
    trace = []
    if "--trace" in sys.argv[2:]:
        import torch._inductor.runtime.autotune_cache as autotune_cache
        import torch._inductor.runtime.triton_heuristics as heuristics

        load_cached = autotune_cache._load_cached_autotuning

        def traced_load(best_config, configs_hash, configs, inductor_meta):
            read = dict(best_config) if isinstance(best_config, dict) else best_config
            config = load_cached(best_config, configs_hash, configs, inductor_meta)
            trace.append({"call": "_load_cached_autotuning", "file": read,
                          "candidates": len(configs), "returned": repr(config),
                          "found_by_coordesc": getattr(config, "found_by_coordesc", None)})
            return config

        autotune_cache._load_cached_autotuning = traced_load
        coordinate_descent = heuristics.CachingAutotuner.coordinate_descent_tuning

        def traced_coordinate_descent(self, launcher, *args, **kwargs):
            trace.append({"call": "coordinate_descent_tuning", "kernel": self.fn.__name__,
                          "start": repr(launcher.config),
                          "start_found_by_coordesc":
                              getattr(launcher.config, "found_by_coordesc", None)})
            return coordinate_descent(self, launcher, *args, **kwargs)

        heuristics.CachingAutotuner.coordinate_descent_tuning = traced_coordinate_descent

    def norms(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # An inner reduction (one heuristic config), an outer one (several)
        # and, on its own input so that it is not fused into them, a
        # pointwise kernel (two heuristic configs).
        return (x * x).sum(dim=-1).sqrt(), (x * x).sum(dim=0), y.sin() + 1

    torch.manual_seed(0)
    x = torch.randn(4096, 3000, device="cuda")
    y = torch.randn(1 << 22, device="cuda")
    compiled = torch.compile(norms)
    out = compiled(x, y)
    torch.cuda.synchronize()
    for ours, eager in zip(out, norms(x, y)):
        assert torch.allclose(ours, eager, rtol=1e-3, atol=1e-3)

    launched = []
    for obj in gc.get_objects():
        if isinstance(obj, (weakref.ProxyType, weakref.CallableProxyType)):
            continue  # isinstance() on a dead proxy raises
        if isinstance(obj, CachingAutotuner) and obj.launchers:
            config = obj.launchers[0].config
            launched.append({
                "kernel": obj.fn.__name__,
                "module": os.path.basename(obj.filename or ""),
                "launchers": len(obj.launchers),
                "kwargs": dict(config.kwargs),
                "num_warps": config.num_warps,
                "num_stages": config.num_stages,
                "found_by_coordesc": bool(getattr(config, "found_by_coordesc", False)),
                # What the autotune cache said when the kernel was made
                # (hit/miss, the config it gave) and the configs it kept.
                "autotune_cache_info": {k: repr(v) for k, v in
                                        (getattr(obj, "autotune_cache_info", None) or {}).items()},
                "configs": [repr(c) for c in (obj.configs or [])],
            })
    best_configs = {}
    for root, _, files in os.walk(cache_dir):
        for name in files:
            if name.endswith(".best_config"):
                with open(os.path.join(root, name)) as f:
                    best_configs[os.path.relpath(os.path.join(root, name), cache_dir)] = json.load(f)
    print(json.dumps({
        "torch": torch.__version__,
        "coordinate_descent_tuning": coordesc,
        "fxgraph_cache_hit": counters["inductor"]["fxgraph_cache_hit"],
        "fxgraph_cache_miss": counters["inductor"]["fxgraph_cache_miss"],
        "launched": launched,
        "trace": trace,
        "best_configs": best_configs,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
