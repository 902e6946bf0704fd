"""Compiles the devset MLP (Linear 256->512, LayerNorm, GELU, Linear 512->10,
log_softmax; a batch of 64) with torch.compile in a fresh cache dir, runs one
training step, and prints the Inductor cache counters as JSON.

    python3 bundle_load_check.py CACHE_DIR [BUNDLE]

With BUNDLE, torch.compiler.load_cache_artifacts() loads it first (PyTorch's
own loader), so the counters say whether the graphs then came from it.
"""

import json
import os
import sys


def main() -> int:
    cache_dir = sys.argv[1]
    bundle = sys.argv[2] if len(sys.argv) > 2 else None
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "1")
    os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "1")

    import torch
    import torch.nn.functional as F
    from torch import nn
    from torch._dynamo.utils import counters

    loaded = None
    if bundle:
        with open(bundle, "rb") as f:
            info = torch.compiler.load_cache_artifacts(f.read())
        loaded = {kind: len(keys) for kind, keys in vars(info).items() if isinstance(keys, list)} if info else None

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Linear(256, 512)
            self.norm = nn.LayerNorm(512)
            self.fc2 = nn.Linear(512, 10)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return F.log_softmax(self.fc2(F.gelu(self.norm(self.fc1(x)))), dim=-1)

    torch.manual_seed(0)
    model = MLP().cuda()
    compiled = torch.compile(model)
    x = torch.randn(64, 256, device="cuda")
    compiled(x).sum().backward()
    torch.cuda.synchronize()

    inductor = counters["inductor"]
    aot = counters["aot_autograd"]
    print(json.dumps({
        "cache_dir": cache_dir,
        "bundle": bundle,
        "loaded": loaded,
        "fxgraph_cache_hit": inductor["fxgraph_cache_hit"],
        "fxgraph_cache_miss": inductor["fxgraph_cache_miss"],
        "autograd_cache_hit": aot["autograd_cache_hit"],
        "autograd_cache_miss": aot["autograd_cache_miss"],
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
