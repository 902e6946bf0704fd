#!/usr/bin/env python3
"""Makes real caches of PyTorch's newer formats on a machine with a CUDA GPU
and PyTorch (issue #38), each with golden data of what PyTorch itself read
back, the way ../shared/fixtures/torch-2.11-cu130-h100/*/golden.json were made:

    scripts/real_fixtures.py OUT_DIR [NAME...] [--timeout S] [--jobs N]

Fixtures (each in OUT_DIR/NAME/, its own fresh TORCHINDUCTOR_CACHE_DIR in
NAME/cache, its golden data in NAME/golden.json):
  aoti_cuda, aoti_cpu   aoti_compile_and_package of a small MLP (.pt2), and
                        what aoti_load_package reports and computes
  precompile            torch.compile(...).aot_compile, save_compiled_function,
                        load_compiled_function in a fresh process
  dynamo_cache          caching_precompile: PrecompileContext's DynamoCache
                        entries, and a fresh process that loads them
  on_disk_cache         which PyTorch code fills InductorOnDiskCache, and
                        entries written and read back through it
  transformer           a transformer encoder layer's training step at two
                        sequence lengths (automatic dynamic), then again in a
                        fresh process (what hit)
  cnn                   conv + batch norm in eval, channels_last, then again
                        in a fresh process
  gpt2_shapes           (#33) a small GPT-2's training step, model and loss
                        compiled apart, at three (batch, seq) shapes: twelve
                        FX graphs in four families, each key's family
                        recorded as Inductor hashed it; again in a fresh
                        process; a mega-cache bundle of it loaded into
                        cache_from_bundle/ by a third process
  yz_overflow           (#33) 2D-tiled pointwise kernels (transposes) with a
                        symbolic and a large y extent, and the launch grid
                        Inductor's own GridExpr computes for each config

Each fixture runs in its own process (they run side by side, --jobs) under a
time limit, so one that hangs or fails leaves the others' results; a failure
is recorded in that fixture's golden.json ("error") rather than lost.
OUT_DIR/sources/ gets this PyTorch's own source of the formats (reference for
the readers, not for the repository).
"""
import argparse
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import traceback
import zipfile

FIXTURES = ["aoti_cuda", "aoti_cpu", "precompile", "dynamo_cache", "on_disk_cache", "transformer", "cnn",
            "gpt2_shapes", "yz_overflow"]
HERE = os.path.abspath(__file__)


def short_repr(value, limit=2000):
    try:
        text = repr(value)
    except Exception as error:  # a repr that fails is itself a fact
        text = f"<repr failed: {type(error).__name__}: {error}>"
    return text if len(text) <= limit else text[:limit] + f"...<{len(text)} chars>"


def qualname(value):
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest(root):
    rows = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            rows.append({"path": os.path.relpath(path, root), "size": os.path.getsize(path)})
    return sorted(rows, key=lambda row: row["path"])


def env_facts():
    import torch
    import triton

    facts = {"torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
             "python": sys.version.split()[0]}
    if torch.cuda.is_available():
        facts["gpu"] = torch.cuda.get_device_name(0)
    return facts


def counters_snapshot():
    from torch._dynamo.utils import counters

    return {group: dict(values) for group, values in counters.items() if values}


def run_fresh(code, cache_dir, timeout=240):
    """Runs CODE in a fresh Python with CACHE_DIR as Inductor's cache dir;
    returns the JSON its last stdout line prints."""
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir, PYTHONUNBUFFERED="1")
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], env=env, capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    report = json.loads(lines[-1]) if lines else {}
    if done.returncode != 0:
        report.update(error=f"exit {done.returncode}", stderr_tail=done.stderr[-3000:])
    return report


# --- Inductor cache entries, read as PyTorch reads them -------------------

BIG_FX_FIELDS = {"source_code", "runnable_graph_str", "inductor_post_grad_graph_str", "_triton_bundle",
                 "_fx_graph_cache_debug_lines", "cache_linemap"}


def harvest_inductor_cache(root, cache):
    """The golden sections of an Inductor cache dir, as ../shared's golden.json
    has them: each FX and AOTAutograd entry unpickled with pickle (what
    FxGraphCache and AOTAutogradCache do), modules, best_configs, Triton
    metadata and the guards evaluated by FxGraphCache's own shape env."""
    import pickle

    from torch._inductor.codecache import sha256_hash

    golden = {"fxgraph": [], "aotautograd": [], "modules": [], "best_configs": [], "triton_cache": [],
              "dynamo": [], "other_files": []}
    guard_exprs = []
    for folder, _, files in os.walk(cache):
        for name in sorted(files):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            parts = os.path.relpath(path, cache).split(os.sep)
            try:
                if parts[0] in ("fxgraph", "aotautograd") and len(parts) >= 3:
                    data = open(path, "rb").read()
                    record = {"path": rel, "name_is_sha256_hash_of_content": sha256_hash(data) == name,
                              "pickle_protocol": data[1] if data[:1] == b"\x80" else None}
                    entry = pickle.loads(data)
                    record["type"] = qualname(entry)
                    fields = vars(entry) if hasattr(entry, "__dict__") else {}
                    record["attrs"] = sorted(fields)
                    record["key_dir"] = parts[-2]
                    if parts[0] == "fxgraph":
                        record["fx_graph_cache_key"] = fields.get("_fx_graph_cache_key")
                        record["guards_expr"] = fields.get("guards_expr")
                        record["debug_lines"] = fields.get("_fx_graph_cache_debug_lines")
                        source = fields.get("source_code") or ""
                        record["source_code_sha256"] = hashlib.sha256(source.encode()).hexdigest()
                        record["source_code_len"] = len(source)
                        record["cache_key"] = fields.get("cache_key")
                        record["device_types"] = sorted(fields.get("device_types") or [])
                        record["time_taken_ns"] = fields.get("_time_taken_ns")
                        record["triton_bundle"] = short_repr(fields.get("_triton_bundle"), 4000)
                        if record["guards_expr"]:
                            guard_exprs.append(record["guards_expr"])
                    else:
                        if fields.get("guards_expr"):
                            guard_exprs.append(fields["guards_expr"])
                    record["small_fields"] = {k: short_repr(v) for k, v in fields.items() if k not in BIG_FX_FIELDS}
                    golden[parts[0]].append(record)
                elif name.endswith(".best_config"):
                    golden["best_configs"].append({"path": rel, "json": json.load(open(path))})
                elif parts[0] == "triton" and name.endswith(".json") and not name.startswith("__grp__"):
                    meta = json.load(open(path))
                    golden["triton_cache"].append({
                        "path": rel, "keys": sorted(meta), "name": meta.get("name"),
                        "num_warps": meta.get("num_warps"), "num_stages": meta.get("num_stages"),
                        "shared": meta.get("shared"), "target": meta.get("target")})
                elif name.endswith(".py") and len(parts) == 2:
                    text = open(path, encoding="utf-8", errors="replace").read()
                    golden["modules"].append({
                        "path": rel, "kernels": re.findall(r"^def (triton_\w+)\(", text, re.M),
                        "has_get_args": "def get_args(" in text,
                        "has_benchmark_all_configs": "def benchmark_all_configs(" in text,
                        "has_call": "def call(" in text})
                elif parts[0] == "dynamo" or "code_state" in name:
                    golden["dynamo"].append({"path": rel, "size": os.path.getsize(path),
                                          "head_hex": open(path, "rb").read(16).hex()})
                elif parts[0] != "triton":
                    golden["other_files"].append({"path": rel, "size": os.path.getsize(path)})
            except Exception as error:
                golden.setdefault("unreadable", []).append({"path": rel, "error": f"{type(error).__name__}: {error}"})
    golden["guards"] = evaluate_guards(guard_exprs)
    return golden


def evaluate_guards(exprs):
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    hint_values = [0, 1, 2, 3, 8, 16, 24, 32, 48, 64, 1024, 2147483648]
    results = []
    for expr in dict.fromkeys(exprs):
        num_args = len(set(re.findall(r"L\['t(\d+)'\]", expr)))
        record = {"expr": expr, "num_args": num_args, "evals": []}
        try:
            # FxGraphCache's own evaluator (its _get_shape_env() is None
            # outside a compile, so a fresh ShapeEnv, as the guard check uses).
            shape_env = ShapeEnv()
            for value in hint_values:
                hints = [value] * num_args
                result = shape_env.evaluate_guards_expression(expr, hints)
                record["evals"].append({"hints": hints, "result": bool(result)})
            if num_args > 1:
                hints = list(range(2, 2 + num_args))
                record["evals"].append({"hints": hints, "result": bool(shape_env.evaluate_guards_expression(expr, hints))})
        except Exception as error:
            record["error"] = f"{type(error).__name__}: {error}"
        results.append(record)
    return results


# --- the fixtures ---------------------------------------------------------

MLP_CODE = """
import torch
class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 8)
    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))
"""


def make_aoti(out, device):
    import torch
    import torch._inductor

    exec(MLP_CODE, globals())
    torch.manual_seed(0)
    model = MLP().to(device).eval()  # noqa: F821 (defined by MLP_CODE)
    example = (torch.randn(4, 32, device=device),)
    batch = torch.export.Dim("batch", min=2, max=1024)
    exported = torch.export.export(model, example, dynamic_shapes={"x": {0: batch}})
    package = os.path.join(out, f"mlp_{device}.pt2")
    started = time.time()
    written = torch._inductor.aoti_compile_and_package(exported, package_path=package)
    golden = {"package": os.path.basename(package), "returned_path_is_package": os.path.abspath(written) == os.path.abspath(package),
              "compile_s": round(time.time() - started, 2), "size": os.path.getsize(package),
              "sha256": sha256_file(package)}
    with zipfile.ZipFile(package) as archive:
        golden["zip"] = [{"name": info.filename, "size": info.file_size, "compress_type": info.compress_type,
                          "crc": info.CRC} for info in archive.infolist()]
        golden["zip_text"] = {}
        for info in archive.infolist():
            if info.file_size <= 4096:
                data = archive.read(info.filename)
                try:
                    golden["zip_text"][info.filename] = data.decode("utf-8")
                except UnicodeDecodeError:
                    golden["zip_text"][info.filename] = "hex:" + data[:256].hex()
    torch.save({"model": model.state_dict(), "x": example[0].cpu()}, os.path.join(out, "reference.pt"))
    golden["load"] = load_aoti_fresh(out, package, device)
    return golden


def load_aoti_fresh(out, package, device):
    """What aoti_load_package reports and computes, in a fresh process."""
    return run_fresh(f"import sys; sys.path.insert(0, {os.path.dirname(HERE)!r}); import real_fixtures; "
                     f"real_fixtures.aoti_load_report({package!r}, {device!r}, {os.path.join(out, 'reference.pt')!r})",
                     os.path.join(out, "cache"))


def aoti_load_report(package, device, reference):
    """Prints the report as JSON after every step: a crash (the loader is
    native code) keeps what ran before it."""
    import torch
    import torch._inductor

    exec(MLP_CODE, globals())
    report = {}

    def step(name, action):
        try:
            value = action()
            report[name] = value if isinstance(value, (dict, list, str, int, float, bool)) else repr(value)
        except Exception as error:
            report[name + "_error"] = f"{type(error).__name__}: {error}"[:1500]
        report["last_step"] = name
        print(json.dumps(report, default=repr), flush=True)

    loaded = {}
    step("type", lambda: qualname(loaded.setdefault("model", torch._inductor.aoti_load_package(package))))
    if "model" not in loaded:
        return
    model_package = loaded["model"]
    step("get_metadata", lambda: dict(model_package.get_metadata()))
    step("get_constant_fqns", lambda: list(model_package.get_constant_fqns()))
    step("call_spec", lambda: list(model_package.loader.get_call_spec()))
    saved = torch.load(reference)
    model = MLP().to(device).eval()  # noqa: F821
    model.load_state_dict(saved["model"])
    for rows in (4, 7):
        x = torch.randn(rows, 32, device=device)
        step(f"max_abs_diff_batch_{rows}", lambda: float((model_package(x) - model(x)).abs().max()))


def make_precompile(out):
    import torch

    code = """
import torch
def fn(x, y):
    return torch.relu(x.sin() @ y) + 1
"""
    exec(code, globals())
    if hasattr(torch._dynamo.config, "enable_aot_compile"):
        torch._dynamo.config.enable_aot_compile = True
    x = torch.randn(16, 32, device="cuda")
    y = torch.randn(32, 8, device="cuda")
    compiled = torch.compile(fn, fullgraph=True)  # noqa: F821
    started = time.time()
    aot = compiled.aot_compile(((x, y), {}))
    path = os.path.join(out, "fn.bin")
    saved = aot.save_compiled_function(path)
    torch.save({"x": x.cpu(), "y": y.cpu()}, os.path.join(out, "inputs.pt"))
    golden = {"file": "fn.bin", "size": os.path.getsize(path), "sha256": sha256_file(path),
              "compile_s": round(time.time() - started, 2), "aot_type": qualname(aot),
              "save_result": short_repr(saved), "head_hex": open(path, "rb").read(16).hex(),
              "counters_compile": counters_snapshot()}
    # A module's forward, as vLLM saves its model (torch_aot_compile/.../model).
    try:
        exec(MLP_CODE, globals())
        torch.manual_seed(0)
        model = MLP().cuda()  # noqa: F821
        forward = torch.compile(model, fullgraph=True).forward.aot_compile(((x[:, :32],), {}))
        forward_path = os.path.join(out, "mlp_forward.bin")
        forward.save_compiled_function(forward_path)
        torch.save(model.state_dict(), os.path.join(out, "mlp_state.pt"))
        golden["module_forward"] = {"file": "mlp_forward.bin", "size": os.path.getsize(forward_path),
                                    "sha256": sha256_file(forward_path)}
        golden["module_forward"]["load"] = run_fresh(MLP_CODE + f"""
import json
report = {{}}
with open({forward_path!r}, "rb") as handle:
    loaded = torch.compiler.load_compiled_function(handle)
model = MLP().cuda()
model.load_state_dict(torch.load({os.path.join(out, "mlp_state.pt")!r}))
x = torch.randn(16, 32, device="cuda")
report["type"] = type(loaded).__module__ + "." + type(loaded).__qualname__
report["max_abs_diff"] = float((loaded(model, x) - model(x)).abs().max())
print(json.dumps(report, default=repr))
""", os.path.join(out, "cache"))
    except Exception:
        golden["module_forward_error"] = traceback.format_exc()[-3000:]
    golden["load"] = run_fresh(code + f"""
import json, pickletools, io
from torch._dynamo.utils import counters
report = {{}}
with open({path!r}, "rb") as handle:
    loaded = torch.compiler.load_compiled_function(handle)
report["type"] = type(loaded).__module__ + "." + type(loaded).__qualname__
artifacts = getattr(loaded, "_artifacts", None)
if artifacts is not None:
    report["artifacts_type"] = type(artifacts).__module__ + "." + type(artifacts).__qualname__
    report["artifacts"] = {{k: {{"type": type(v).__module__ + "." + type(v).__qualname__, "repr": repr(v)[:1500]}}
                           for k, v in vars(artifacts).items()}}
try:
    report["source_info"] = repr(loaded.source_info())[:3000]
except Exception as error:
    report["source_info_error"] = repr(error)
saved = torch.load({os.path.join(out, "inputs.pt")!r})
x, y = saved["x"].cuda(), saved["y"].cuda()
report["max_abs_diff"] = float((loaded(x, y) - fn(x, y)).abs().max())
try:
    loaded(x.double(), y.double())
    report["guard_failure"] = "accepted"
except Exception as error:
    report["guard_failure"] = type(error).__name__ + ": " + str(error)[:1500]
# The file's pickle opcodes' globals, as PyTorch wrote them.
data = open({path!r}, "rb").read()
names = []
try:
    for opcode, arg, _ in pickletools.genops(io.BytesIO(data)):
        if opcode.name in ("GLOBAL", "STACK_GLOBAL", "SHORT_BINUNICODE", "BINUNICODE") and isinstance(arg, str) and len(arg) < 200:
            names.append(arg)
    report["pickle_strings_head"] = names[:400]
except Exception as error:
    report["pickle_error"] = repr(error)
report["counters"] = {{g: dict(v) for g, v in counters.items() if v}}
print(json.dumps(report, default=repr))
""", os.path.join(out, "cache"))
    return golden


def make_dynamo_cache(out):
    code = """
import json, torch
torch._dynamo.config.caching_precompile = True
from torch._dynamo.utils import counters
def g(x):
    return (x.cos() * 2).sum(dim=-1)
compiled = torch.compile(g)
x = torch.randn(64, 128, device="cuda")
result = compiled(x)
report = {"max_abs_diff": float((result - g(x)).abs().max())}
try:
    from torch._dynamo.precompile_context import PrecompileContext
    report["save_to_dynamo_cache"] = PrecompileContext.save_to_dynamo_cache()
except Exception as error:
    report["save_error"] = repr(error)
report["counters"] = {g: dict(v) for g, v in counters.items() if v}
print(json.dumps(report, default=repr))
"""
    cache = os.path.join(out, "cache")
    golden = {"first": run_fresh(code, cache), "second": run_fresh(code, cache)}
    return golden


def make_on_disk_cache(out):
    import importlib
    import inspect

    import torch

    golden = {}
    torch_dir = os.path.dirname(torch.__file__)
    users = {}
    pattern = re.compile(r"InductorOnDiskCache|OnDiskCache|inductor_on_disk_cache|_inductor\.cache import|"
                         r"from torch\._inductor import cache\b|_inductor\.cache\.")
    for folder, _, files in os.walk(torch_dir):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                try:
                    text = open(path, encoding="utf-8", errors="replace").read()
                except OSError:
                    continue
                hits = sorted({m.group(0) for m in pattern.finditer(text)})
                if hits:
                    users[os.path.relpath(path, torch_dir)] = hits
    golden["users_in_torch"] = users
    try:
        module = importlib.import_module("torch._inductor.cache")
    except Exception as error:
        golden["import_error"] = repr(error)
        return golden
    golden["module_file"] = os.path.relpath(module.__file__, torch_dir)
    golden["classes"] = {}
    for name, obj in vars(module).items():
        if inspect.isclass(obj) and obj.__module__ == module.__name__:
            bases = [qualname(base)[len("builtins."):] if base.__module__ == "builtins" else base.__qualname__
                     for base in obj.__bases__]
            methods = sorted(k for k, v in vars(obj).items() if callable(v) or isinstance(v, (property, classmethod)))
            golden["classes"][name] = {"bases": bases, "methods": methods}
    golden["OnDiskCache_version"] = getattr(getattr(module, "OnDiskCache", None), "version", None)
    cache = module.InductorOnDiskCache()
    golden["base_dir"] = os.path.relpath(str(cache.base_dir), os.path.join(out, "cache"))
    values = [
        ("a string key", {"XBLOCK": 128, "num_warps": 4}),
        (("tuple", 3, 2.5), [1, 2, 3]),
        (42, b"\x00\x01raw bytes"),
        ("unicode κλειδί", "value with ünïcode"),
        (("nested", ("k", 1)), {"list": [1.5, None, True], "tuple": (1, "two")}),
    ]
    entries = []
    for key, value in values:
        entry = {"key_repr": repr(key), "value_repr": repr(value)}
        try:
            entry["inserted"] = cache.insert(key, value)
            entry["second_insert"] = cache.insert(key, "another value")
            path = cache._fpath_from_key(key)
            entry.update(path=os.path.relpath(str(path), out), size=os.path.getsize(path),
                         head_hex=open(path, "rb").read(12).hex())
        except Exception as error:
            entry["error"] = f"{type(error).__name__}: {error}"
        entries.append(entry)
    golden["entries"] = entries
    fresh = module.InductorOnDiskCache()
    for entry, (key, value) in zip(entries, values):
        try:
            got = fresh.get(key)
            entry["read_back_repr"] = repr(got)
            entry["read_back_equal"] = got == value
        except Exception as error:
            entry["read_back_error"] = f"{type(error).__name__}: {error}"
    prefix = getattr(cache, "version_prefix", getattr(cache, "_version_prefix", None))
    golden["version_prefix_hex"] = prefix.hex() if isinstance(prefix, bytes) else short_repr(prefix)
    # InMemoryCache.from_file_path: a pickled dict.
    in_memory = getattr(module, "InMemoryCache", None)
    if in_memory is not None and hasattr(in_memory, "from_file_path"):
        import pathlib
        import pickle

        path = os.path.join(out, "in_memory_cache.pkl")
        with open(path, "wb") as handle:
            pickle.dump({"k1": 1, ("k", 2): [3, 4]}, handle)
        loaded = in_memory.from_file_path(pathlib.Path(path))
        golden["in_memory_from_file"] = {"path": "in_memory_cache.pkl", "k1": loaded.get("k1"),
                                         "k2": loaded.get(("k", 2))}
    return golden


TRANSFORMER_CODE = """
import json, torch
from torch._dynamo.utils import counters
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True).cuda()
compiled = torch.compile(layer)
report = {}
for seq in (16, 24):
    x = torch.randn(2, seq, 64, device="cuda")
    compiled(x).sum().backward()
    report[f"after_seq_{seq}"] = {g: dict(v) for g, v in counters.items() if v}
print(json.dumps(report, default=repr))
"""

CNN_CODE = """
import json, torch
from torch._dynamo.utils import counters
torch.manual_seed(0)
net = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 32, 3, padding=1, stride=2), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 10)).cuda().eval()
net = net.to(memory_format=torch.channels_last)
x = torch.randn(8, 3, 32, 32, device="cuda").to(memory_format=torch.channels_last)
with torch.no_grad():
    got = torch.compile(net)(x)
    report = {"max_abs_diff": float((got - net(x)).abs().max()),
              "counters": {g: dict(v) for g, v in counters.items() if v}}
print(json.dumps(report, default=repr))
"""


GPT2_CODE = r"""
import json, math, os, sys, torch
import torch.nn.functional as F
from torch._dynamo.utils import counters

RECORD = os.environ.get("GPT2_RECORD")
records, phase = [], {}
if RECORD:
    import torch._inductor.codecache as codecache
    original = codecache.compiled_fx_graph_hash
    def recording_hash(gm, example_inputs, fx_kwargs, inputs_to_check, *rest, **kw):
        key, lines = original(gm, example_inputs, fx_kwargs, inputs_to_check, *rest, **kw)
        compile_id = torch._guards.CompileContext.current_compile_id()
        shapes = []
        for value in example_inputs:
            shape = getattr(value, "shape", None)
            shapes.append([str(d) for d in shape] if shape is not None else repr(value))
        records.append({"key": key, "phase": dict(phase), "is_backward": bool(fx_kwargs.get("is_backward")),
                        "is_inference": bool(fx_kwargs.get("is_inference")),
                        "compile_id": str(compile_id), "input_shapes": shapes,
                        "nodes": len(gm.graph.nodes)})
        return key, lines
    codecache.compiled_fx_graph_hash = recording_hash

torch.manual_seed(0)
V, C, H, L = 512, 64, 4, 2

class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(C), torch.nn.LayerNorm(C)
        self.qkv, self.proj = torch.nn.Linear(C, 3 * C), torch.nn.Linear(C, C)
        self.fc, self.out = torch.nn.Linear(C, 4 * C), torch.nn.Linear(4 * C, C)
    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

class GPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = torch.nn.Embedding(V, C), torch.nn.Embedding(256, C)
        self.blocks = torch.nn.ModuleList(Block() for _ in range(L))
        self.ln_f, self.head = torch.nn.LayerNorm(C), torch.nn.Linear(C, V, bias=False)
    def forward(self, idx):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

def loss_fn(logits, targets):
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

model = torch.compile(GPT().cuda())
loss_c = torch.compile(loss_fn)
report = {}
for B, T in ((2, 64), (4, 64), (4, 96)):
    idx = torch.randint(0, V, (B, T), device="cuda")
    targets = torch.randint(0, V, (B, T), device="cuda")
    phase.update(function="model", pass_="forward", shape=[B, T])
    logits = model(idx)
    phase.update(function="loss", pass_="forward", shape=[B, T])
    loss = loss_c(logits, targets)
    phase.update(function="?", pass_="backward", shape=[B, T])
    loss.backward()
    torch.cuda.synchronize()
    report[f"after_{B}x{T}"] = {g: dict(v) for g, v in counters.items() if v}
report["loss"] = float(loss)
if RECORD:
    report["fx_keys"] = records
BUNDLE = os.environ.get("GPT2_BUNDLE")
if BUNDLE:
    artifacts = torch.compiler.save_cache_artifacts()
    if artifacts is not None:
        data, info = artifacts
        open(BUNDLE, "wb").write(data)
        report["bundle"] = {"bytes": len(data), "info": repr(info)[:3000]}
print(json.dumps(report, default=repr))
"""

GPT2_LOAD_CODE = r"""
import json, os, sys, torch
info = torch.compiler.load_cache_artifacts(open(os.environ["GPT2_LOAD"], "rb").read())
print(json.dumps({"loaded": repr(info)[:3000]}))
"""


def make_gpt2_shapes(out):
    cache = os.path.join(out, "cache")
    bundle = os.path.join(out, "gpt2_train.bin")
    golden = {}
    os.environ["GPT2_RECORD"] = "1"
    os.environ["GPT2_BUNDLE"] = bundle
    golden["first"] = run_fresh(GPT2_CODE, cache)
    del os.environ["GPT2_RECORD"], os.environ["GPT2_BUNDLE"]
    golden["second"] = run_fresh(GPT2_CODE, cache)
    # PyTorch fills a fresh dir from the bundle, then compiles from it.
    from_bundle = os.path.join(out, "cache_from_bundle")
    if os.path.isfile(bundle):
        os.environ["GPT2_LOAD"] = bundle
        golden["bundle_load"] = run_fresh(GPT2_LOAD_CODE + "\n" + GPT2_CODE.replace(
            "import json, math, os, sys, torch", "import math"), from_bundle)
        del os.environ["GPT2_LOAD"]
    return golden


YZ_CODE = r"""
import json, os, sys, torch
from torch._dynamo.utils import counters
torch.manual_seed(0)
report = {"calls": []}
def transpose_add(x, y):
    return x.t() + y
def permute_mul(x):
    return (x.permute(0, 2, 1) * 2).contiguous()
dyn = torch.compile(transpose_add, dynamic=True)
for M, N in ((96, 200), (128, 300)):
    x, y = torch.randn(M, N, device="cuda"), torch.randn(N, M, device="cuda")
    torch.testing.assert_close(dyn(x, y), x.t() + y)
    report["calls"].append({"fn": "transpose_add dynamic", "x": [M, N]})
big = torch.compile(permute_mul)
x = torch.randn(2, 16, 300000, device="cuda")
torch.testing.assert_close(big(x), (x.permute(0, 2, 1) * 2).contiguous())
report["calls"].append({"fn": "permute_mul static", "x": [2, 16, 300000]})
torch.cuda.synchronize()

from torch._inductor.runtime import triton_heuristics as th
kernels = []
for name, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None) or ""
    if not path.startswith(os.environ["TORCHINDUCTOR_CACHE_DIR"]):
        continue
    for attr, value in vars(module).items():
        meta = getattr(value, "inductor_meta", None)
        if not attr.startswith("triton_") or not isinstance(meta, dict):
            continue
        record = {"module": os.path.relpath(path, os.environ["TORCHINDUCTOR_CACHE_DIR"]), "kernel": attr,
                  "grid_type": meta.get("grid_type"), "triton_meta_signature": repr(getattr(value, "triton_meta", {}).get("signature")),
                  "configs": []}
        configs = [launcher.config for launcher in getattr(value, "launchers", [])] or list(getattr(value, "configs", []))
        for cfg in configs:
            entry = {"kwargs": dict(cfg.kwargs), "num_warps": cfg.num_warps, "num_stages": cfg.num_stages, "grids": []}
            for xnumel, ynumel in ((200, 96), (300, 128), (16, 600000), (16, 65535 * 64 + 1), (1000, 10**7), (7, 1)):
                meta_args = dict(cfg.kwargs, xnumel=xnumel, ynumel=ynumel)
                try:
                    expr = th.GridExpr.from_meta(meta, cfg)
                    entry["grids"].append({"xnumel": xnumel, "ynumel": ynumel, "grid": list(expr.eval_slow(meta_args)),
                                           "prefix": list(getattr(expr, "prefix", [])),
                                           "exprs": [str(expr.x_grid), str(expr.y_grid), str(expr.z_grid)]})
                except Exception as error:
                    entry["grids"].append({"xnumel": xnumel, "ynumel": ynumel, "error": f"{type(error).__name__}: {error}"})
            record["configs"].append(entry)
        kernels.append(record)
report["kernels"] = kernels
report["max_y_grid"] = th.get_max_y_grid() if hasattr(th, "get_max_y_grid") else None
report["counters"] = {g: dict(v) for g, v in counters.items() if v}
print(json.dumps(report, default=repr))
"""


def make_twice(out, code):
    cache = os.path.join(out, "cache")
    return {"first": run_fresh(code, cache), "second": run_fresh(code, cache)}


def make_one(name, out):
    os.makedirs(out, exist_ok=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(out, "cache")
    golden = {"set": name}
    started = time.time()
    try:
        golden["env"] = env_facts()
        if name == "aoti_cuda":
            golden["aoti"] = make_aoti(out, "cuda")
        elif name == "aoti_cpu":
            golden["aoti"] = make_aoti(out, "cpu")
        elif name == "precompile":
            golden["precompile"] = make_precompile(out)
        elif name == "dynamo_cache":
            golden["dynamo_cache"] = make_dynamo_cache(out)
        elif name == "on_disk_cache":
            golden["on_disk_cache"] = make_on_disk_cache(out)
        elif name == "transformer":
            golden["runs"] = make_twice(out, TRANSFORMER_CODE)
        elif name == "cnn":
            golden["runs"] = make_twice(out, CNN_CODE)
        elif name == "gpt2_shapes":
            # Kernel modules with a benchmark harness, as the devset's.
            os.environ["TORCHINDUCTOR_BENCHMARK_KERNEL"] = "1"
            golden["runs"] = make_gpt2_shapes(out)
        elif name == "yz_overflow":
            os.environ["TORCHINDUCTOR_BENCHMARK_KERNEL"] = "1"
            golden["runs"] = {"first": run_fresh(YZ_CODE, os.path.join(out, "cache"))}
    except Exception:
        golden["error"] = traceback.format_exc()[-4000:]
    cache = os.path.join(out, "cache")
    if os.path.isdir(cache):
        try:
            golden.update(harvest_inductor_cache(out, cache))
        except Exception:
            golden["harvest_error"] = traceback.format_exc()[-4000:]
    golden["manifest"] = manifest(out)
    golden["wall_s"] = round(time.time() - started, 1)
    with open(os.path.join(out, "golden.json"), "w") as handle:
        json.dump(golden, handle, indent=1, default=repr)
    return 0 if "error" not in golden else 1


def copy_sources(out):
    """This PyTorch's own source of the formats the fixtures hold."""
    import shutil

    import torch

    torch_dir = os.path.dirname(torch.__file__)
    target = os.path.join(out, "sources")
    for rel in ["_inductor/cache.py", "_inductor/codecache.py", "_dynamo/package.py", "_dynamo/precompile_context.py",
                "_dynamo/aot_compile.py", "_dynamo/aot_compile_types.py", "_inductor/package/package.py",
                "_inductor/package/__init__.py", "export/pt2_archive/constants.py", "export/pt2_archive/_package.py",
                "compiler/__init__.py", "_inductor/cpp_builder.py", "_dynamo/pgo.py", "_inductor/standalone_compile.py",
                "_inductor/runtime/triton_heuristics.py", "_inductor/codegen/triton.py",
                "_inductor/codegen/triton_combo_kernel.py", "_inductor/runtime/coordinate_descent_tuner.py",
                "_inductor/config.py", "_functorch/_aot_autograd/autograd_cache.py"]:
        path = os.path.join(torch_dir, rel)
        if os.path.isfile(path):
            os.makedirs(os.path.dirname(os.path.join(target, rel)), exist_ok=True)
            shutil.copy(path, os.path.join(target, rel))


# What the repository keeps of each fixture (--pack) besides its cache dir and
# golden.json: every file PyTorch wrote, byte for byte (zstd's long window
# packs the repeated .so files and Triton IR to a few MB).
PACK_EXTRA = {"aoti_cuda": ["mlp_cuda.pt2"], "aoti_cpu": ["mlp_cpu.pt2"],
              "precompile": ["fn.bin", "mlp_forward.bin"], "on_disk_cache": ["in_memory_cache.pkl"],
              "gpt2_shapes": ["gpt2_train.bin"]}
# The cache dirs packed of each fixture.
PACK_DIRS = {"gpt2_shapes": ["cache", "cache_from_bundle"]}


def on_disk_values(golden):
    """InductorOnDiskCache's value files, written again from the golden record
    by 2.11's rule (file name sha256(pickle.dumps(key))[:32], content the
    version prefix then pickle.dump(value)): PyTorch wrote them outside the
    fixture dir, under default_cache_dir(), which ignores
    TORCHINDUCTOR_CACHE_DIR. Each must come out with the name, size and head
    PyTorch's had, or the pack fails."""
    import ast
    import pickle

    record = golden["on_disk_cache"]
    prefix = bytes.fromhex(record["version_prefix_hex"])
    files = {}
    for entry in record["entries"]:
        key, value = ast.literal_eval(entry["key_repr"]), ast.literal_eval(entry["value_repr"])
        name = hashlib.sha256(pickle.dumps(key)).hexdigest()[:32]
        data = prefix + pickle.dumps(value)
        written = entry["path"].split("/cache/", 1)[1]
        if (written.rsplit("/", 1)[1] != name or len(data) != entry["size"]
                or data[:12].hex() != entry["head_hex"]):
            raise SystemExit(f"real_fixtures: {entry['key_repr']}: not the file PyTorch wrote")
        files["torchinductor_root/cache/" + written] = data
    return files


def pack(real_dir, archive, names):
    import io
    import tarfile

    members = {}
    for name in names:
        folder = os.path.join(real_dir, name)
        golden_path = os.path.join(folder, "golden.json")
        if not os.path.isfile(golden_path):
            raise SystemExit(f"real_fixtures: {golden_path} is missing")
        kept = list(PACK_EXTRA.get(name, []))
        for cache_dir in PACK_DIRS.get(name, ["cache"]):
            for root, _, files in os.walk(os.path.join(folder, cache_dir)):
                kept += [os.path.relpath(os.path.join(root, file), folder) for file in files]
        for rel in kept:
            members[f"{name}/{rel}"] = open(os.path.join(folder, rel), "rb").read()
        if name == "on_disk_cache":
            for rel, data in on_disk_values(json.load(open(golden_path))).items():
                members[f"{name}/{rel}"] = data
        members[f"{name}/golden.json"] = open(golden_path, "rb").read()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(members):
            info = tarfile.TarInfo(rel)
            info.size, info.mtime, info.mode = len(members[rel]), 0, 0o644
            tar.addfile(info, io.BytesIO(members[rel]))
    subprocess.run(["zstd", "-q", "-19", "--long=27", "-f", "-o", archive], input=buffer.getvalue(), check=True)
    print(f"real_fixtures: {archive}: {len(members)} files, {len(buffer.getvalue()) / 1e6:.1f} MB, "
          f"{os.path.getsize(archive) / 1e6:.1f} MB packed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("names", nargs="*")
    parser.add_argument("--timeout", type=int, default=240)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--make", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--pack", metavar="ARCHIVE",
                        help="pack OUT (a finished run) for the repository's test data, as a .tar.zst")
    parser.add_argument("--reload-aoti", action="store_true",
                        help="load the .pt2 of OUT/NAME (aoti_cuda, aoti_cpu) again and update its golden.json")
    args = parser.parse_args()
    if args.make:  # one fixture, in this process
        return make_one(args.names[0], args.out)
    if args.pack:  # #38's archive holds the first seven, #33's the last two
        return pack(args.out, args.pack, args.names or FIXTURES[:7])
    if args.reload_aoti:  # packages made by an earlier run: load them again
        for name in args.names:
            folder = os.path.join(args.out, name)
            golden = json.load(open(os.path.join(folder, "golden.json")))
            device = name.removeprefix("aoti_")
            golden["aoti"]["load"] = load_aoti_fresh(folder, os.path.join(folder, golden["aoti"]["package"]), device)
            with open(os.path.join(folder, "golden.json"), "w") as handle:
                json.dump(golden, handle, indent=1, default=repr)
            print(f"real_fixtures: {name}: {json.dumps(golden['aoti']['load'])[:3000]}", flush=True)
        return 0
    names = args.names or FIXTURES
    os.makedirs(args.out, exist_ok=True)
    try:
        copy_sources(args.out)
    except Exception as error:
        print(f"real_fixtures: sources not copied: {error}", file=sys.stderr)
    pending = list(names)
    running = {}
    status = {}
    while pending or running:
        while pending and len(running) < args.jobs:
            name = pending.pop(0)
            log = open(os.path.join(args.out, f"{name}.log"), "w")
            running[name] = (subprocess.Popen([sys.executable, HERE, "--make", os.path.join(args.out, name), name],
                                              stdout=log, stderr=subprocess.STDOUT), time.time(), log)
        time.sleep(0.5)
        for name, (process, started, log) in list(running.items()):
            elapsed = time.time() - started
            if process.poll() is None and elapsed < args.timeout:
                continue
            if process.poll() is None:
                process.kill()
                process.wait()
                status[name] = f"killed after {args.timeout} s"
            else:
                status[name] = f"exit {process.returncode}"
            log.close()
            print(f"real_fixtures: {name}: {status[name]}, {elapsed:.0f} s", flush=True)
            del running[name]
    return 0 if all(value == "exit 0" for value in status.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
