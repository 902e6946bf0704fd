"""Stand-in for an Inductor kernel module, for cachelens's tune_compile test.

triton_poi_fake_0 plays the CachingAutotuner: its _precompile_config(cfg)
"compiles" by writing a Triton-cache-like dir under $TRITON_CACHE_DIR (and
nowhere else), copied from $CACHELENS_FAKE_TRITON_TEMPLATE when that is set.
Some XBLOCK values misbehave on purpose:
  4096  out of resources      8192  hangs (60 s)      16384  the process dies
  3     a compile error       64    returns (binary, None) like PyTorch <= 2.5
  32    writes its dir under a name Triton's cache manager does not give
Other compiles sleep $CACHELENS_FAKE_COMPILE_DELAY seconds and record in the
metadata ("fake_max_active") how many compiles they saw running at once.
"""
import hashlib
import json
import os
import re
import time

import triton

NAME = "triton_poi_fake_0"


class FakeCompiledKernel(object):
    def __init__(self, hash_, metadata):
        self.hash = hash_
        self.metadata = metadata


class FakeCompileResult(object):
    def __init__(self, kernel, config):
        self.kernel = kernel
        self.config = config


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data):
    if isinstance(data, str):
        data = data.encode()
    if os.path.exists(path):
        os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(data)


def _active_dir():
    d = os.path.join(os.environ["TRITON_CACHE_DIR"], ".fake_active")
    os.makedirs(d, exist_ok=True)
    return d


def _write_cache_dir(dest, cfg, hash_, extra):
    os.makedirs(dest, exist_ok=True)
    template = os.environ.get("CACHELENS_FAKE_TRITON_TEMPLATE")
    if not template:
        md = {"hash": hash_, "num_warps": cfg.num_warps, "name": NAME}
        if cfg.num_stages is not None:
            md["num_stages"] = cfg.num_stages
        md.update(extra)
        _write(os.path.join(dest, NAME + ".json"), json.dumps(md))
        _write(os.path.join(dest, NAME + ".cubin"), b"")
        return md
    md = None
    for n in sorted(os.listdir(template)):
        data = _read(os.path.join(template, n))
        if n.endswith(".json") and n.startswith("__grp__"):
            grp = json.loads(data)
            paths = grp.get("child_paths") or {}
            for k in list(paths):
                paths[k] = os.path.join(dest, os.path.basename(paths[k]))
            data = json.dumps(grp)
        elif n.endswith(".json"):
            md = json.loads(data)
            md["hash"] = hash_
            md["num_warps"] = cfg.num_warps
            if cfg.num_stages is not None:
                md["num_stages"] = cfg.num_stages
            md.update(extra)
            data = json.dumps(md)
        elif n.endswith(".ptx"):
            text = data.decode("utf-8", "replace")
            text = re.sub(r"(\.reqntid\s+)\d+", lambda m: m.group(1) + str(cfg.num_warps * 32), text)
            data = text
        _write(os.path.join(dest, n), data)
    return md


class FakeAutotuner(object):
    heuristic_type = "pointwise"

    def __init__(self):
        self.configs = [triton.Config({"XBLOCK": 1024}, num_warps=4, num_stages=1)]

    def _precompile_config(self, cfg):
        xblock = cfg.kwargs.get("XBLOCK")
        if xblock == 4096:
            raise RuntimeError("out of resource: shared memory, Required: 262144, "
                               "Hardware limit: 232448")
        if xblock == 8192:
            time.sleep(60)
        if xblock == 16384:
            os._exit(1)
        if xblock == 3:
            raise ValueError("XBLOCK must be a power of 2\n(it was 3)")
        # A slow compiler, for stopping a run midway.
        time.sleep(float(os.environ.get("CACHELENS_FAKE_COMPILE_SECONDS", "0")))
        hash_ = hashlib.sha256(repr(cfg).encode()).hexdigest()
        root = os.environ["TRITON_CACHE_DIR"]
        extra = {}
        if xblock not in (32, 64):
            marker = os.path.join(_active_dir(), str(os.getpid()))
            _write(marker, b"")
            delay = float(os.environ.get("CACHELENS_FAKE_COMPILE_DELAY", "0"))
            time.sleep(delay / 2)
            extra["fake_max_active"] = len(os.listdir(_active_dir()))
            time.sleep(delay / 2)
            os.remove(marker)
        dest = os.path.join(root, ("odd-" + hash_[:16]) if xblock == 32 else hash_)
        md = _write_cache_dir(dest, cfg, hash_, extra)
        kernel = FakeCompiledKernel(hash_, md)
        if xblock == 64:
            return kernel, None
        return FakeCompileResult(kernel, cfg)


triton_poi_fake_0 = FakeAutotuner()
NOT_A_KERNEL = 42
