#!/usr/bin/env python3
"""The truth about a compile cache, read without cachelens.

    facts.py SOURCE_DIR [-o facts.json]

SOURCE_DIR is one source of the real-world corpus (its cache files under
SOURCE_DIR/cache/) or any cache tree. Writes what the files say, read with the
Python standard library alone: pickles through an unpickler that resolves every
global to an inert stub (nothing is imported or called), names checked against
the hashes of the bytes, JSON and Python literals read with json and
ast.literal_eval, trace logs split line by line. The tests hold cachelens's
CLI and GUI models against this file (tests/engine/tst_real_world.cpp); it
shares no code with the readers it checks.

What it records, per Inductor cache dir found in the tree:
  - every FX graph entry: its class, key, role (fx_kwargs is_backward /
    is_inference, else the fx_kwargs debug lines), debug line count, Triton
    kernels and files in its bundle, device types, the wrapper module's key;
  - every AOTAutograd entry: class, the forward and backward FX keys it names
    and whether they are in fxgraph/;
  - every generated module: which hash of its bytes its name is (of the text
    as written, of the text stripped, or none), the Triton kernels it defines;
  - every .best_config (in a shard dir or at the root), Triton kernel dir
    (target backend, arch, warp size, Triton version) and benchmark cache
    (the GPU's name);
per Triton cache, vLLM/SGLang tree, mega-cache bundle and TORCH_TRACE log too.
"""

import argparse
import ast
import base64
import hashlib
import io
import json
import os
import pickle
import re
import struct
import sys
import zlib

# ---------------------------------------------------------------------------
# Inert unpickling


class Stub:
    """An object of a class the pickle names; holds what the pickle gave it."""

    qualname = "?"

    def __init__(self, *args, **kwargs):
        self.stub_args = args
        self.stub_kwargs = kwargs
        self.stub_state = None
        self.stub_items = []
        self.stub_dict = {}

    def __setstate__(self, state):
        self.stub_state = state

    # list/dict-like BUILD targets (APPENDS, SETITEMS on an object)
    def append(self, item):
        self.stub_items.append(item)

    def extend(self, items):
        self.stub_items.extend(items)

    def __setitem__(self, key, value):
        self.stub_dict[key] = value

    def __repr__(self):
        return "<%s>" % self.qualname


_stub_classes = {}


def stub_class(module, name):
    qualname = module + "." + name
    cls = _stub_classes.get(qualname)
    if cls is None:
        cls = type(name, (Stub,), {"qualname": qualname})
        _stub_classes[qualname] = cls
    return cls


def reconstructor(cls, base=None, state=None):
    # copyreg._reconstructor(cls, object, None): an instance of cls
    return cls() if isinstance(cls, type) and issubclass(cls, Stub) else Stub(cls, base, state)


SAFE_BUILTINS = {
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "list"): list,
    ("builtins", "dict"): dict,
    ("builtins", "tuple"): tuple,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "slice"): slice,
    ("builtins", "complex"): complex,
    ("collections", "OrderedDict"): dict,
    ("copyreg", "_reconstructor"): reconstructor,
}


class InertUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        safe = SAFE_BUILTINS.get((module, name))
        return safe if safe is not None else stub_class(module, name)

    def persistent_load(self, pid):
        return ("persistent", pid)


def unpickle(data):
    return InertUnpickler(io.BytesIO(data)).load()


def qualname(value):
    return value.qualname if isinstance(value, Stub) else type(value).__name__


def state_of(obj):
    """The attribute dict of a stub: its state dict (or the dict of a
    (dict, slots) pair), else its kwargs."""
    if not isinstance(obj, Stub):
        return {}
    state = obj.stub_state
    if isinstance(state, tuple) and len(state) == 2:
        merged = {}
        for part in state:
            if isinstance(part, dict):
                merged.update(part)
        return merged
    if isinstance(state, dict):
        return state
    return dict(obj.stub_kwargs)


def elements(value):
    """Items of a list/tuple/set, or of a stub wrapping one (OrderedSet([...]))."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if isinstance(value, Stub):
        if value.stub_items:
            return list(value.stub_items)
        if value.stub_args and isinstance(value.stub_args[0], (list, tuple, set, frozenset)):
            return list(value.stub_args[0])
        state = value.stub_state
        if isinstance(state, dict):
            for name in ("_dict", "_data", "data"):
                if isinstance(state.get(name), dict):
                    return list(state[name].keys())
        if isinstance(state, (list, tuple, set)):
            return list(state)
    return []


def text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None


# ---------------------------------------------------------------------------
# Hashes of names


def sha256_hash(data):
    return base64.b32encode(hashlib.sha256(data).digest())[:51].decode().lower()


def code_hash(data):
    return "c" + sha256_hash(data)


def name_rule(name, data):
    """Which hash of the bytes names the file: 'stripped' (of the text without
    its surrounding white space, what PyTorch names most modules by), 'as
    written', or None."""
    if name == code_hash(data.strip()):
        return "stripped"
    if name == code_hash(data):
        return "as written"
    return None


# ---------------------------------------------------------------------------
# Inductor entries

DEBUG_KWARG = re.compile(r"^\[[a-z0-9]+\] fx_kwargs\[(is_backward|is_inference)\]: (True|False)$")


def role_of(fields, debug_lines):
    kwargs = fields.get("fx_kwargs")
    flags = {}
    if isinstance(kwargs, dict):
        for name in ("is_backward", "is_inference"):
            if isinstance(kwargs.get(name), bool):
                flags[name] = kwargs[name]
    if not flags:
        for line in debug_lines:
            m = DEBUG_KWARG.match(line)
            if m:
                flags[m.group(1)] = m.group(2) == "True"
    if not flags:
        return "unknown"
    if flags.get("is_backward"):
        return "backward"
    if flags.get("is_inference"):
        return "inference"
    return "forward"


def bundle_kernels(bundle):
    """The TritonKernelArtifacts of a _triton_bundle: a list of them (PyTorch
    2.6, 2.7) or a TritonBundle holding them in kernel_artifacts (2.8 on)."""
    if isinstance(bundle, Stub) and not bundle.qualname.endswith("TritonKernelArtifacts"):
        return elements(state_of(bundle).get("kernel_artifacts"))
    return elements(bundle)


def fx_entry_facts(path, data, fxgraph_key):
    obj = unpickle(data)
    fields = state_of(obj)
    debug = [l for l in elements(fields.get("_fx_graph_cache_debug_lines")) if isinstance(l, str)]
    kernels = bundle_kernels(fields.get("_triton_bundle"))
    files = 0
    kernel_hashes = []
    for kernel in kernels:
        kernel_fields = state_of(kernel)
        files += len(elements(kernel_fields.get("artifacts")))
        kernel_hashes.append(text(kernel_fields.get("kernel_hash")))
    source = text(fields.get("source_code")) or ""
    guards = fields.get("guards_expr")
    torch_version = None
    for line in debug:
        if "] torch_version: " in line:
            torch_version = line.split("] torch_version: ", 1)[1][:80]
    return {
        "path": path,
        "key": fxgraph_key,
        "class": qualname(obj),
        "stored_key": text(fields.get("_fx_graph_cache_key")),
        "role": role_of(fields, debug),
        "has_fx_kwargs": isinstance(fields.get("fx_kwargs"), dict),
        "debug_lines": len(debug),
        "bundle_kernels": len(kernels),
        "bundle_files": files,
        "bundle_kernel_hashes": sorted(h for h in kernel_hashes if h),
        "device_types": sorted(str(t) for t in elements(fields.get("device_types"))),
        "wrapper_key": text(fields.get("cache_key")),
        "source_inline": bool(source),
        "launches": sorted(set(re.findall(r"\b(triton_\w+)\.run\(", source))),
        "guards_expr": guards if isinstance(guards, str) and guards else None,
        "name_is_hash": os.path.basename(path) == sha256_hash(data),
        "fields": sorted(fields.keys()),
        "torch_version_line": torch_version,
    }


def graph_key_of(compiled):
    """The FX key an AOTAutograd entry's compiled_fw/compiled_bw names."""
    fields = state_of(compiled)
    key = text(fields.get("fx_graph_cache_key"))
    if key:
        return key
    info = fields.get("fx_graph_cache_info")
    if isinstance(info, (tuple, list)) and info and isinstance(info[0], str):
        return info[0]
    return None


def aot_entry_facts(path, data, key, fx_keys):
    obj = unpickle(data)
    fields = state_of(obj)
    forward = graph_key_of(fields.get("compiled_fw"))
    backward = graph_key_of(fields.get("compiled_bw"))
    return {
        "path": path,
        "key": key,
        "class": qualname(obj),
        "forward": forward,
        "backward": backward,
        "forward_present": forward in fx_keys if forward else None,
        "backward_present": backward in fx_keys if backward else None,
        "name_is_hash": os.path.basename(path) == sha256_hash(data),
        "fields": sorted(fields.keys()),
    }


KERNEL_DEF = re.compile(r"^def (triton_\w+)\(", re.M)


def module_facts(path, data):
    name = os.path.splitext(os.path.basename(path))[0]
    source = data.decode("utf-8", "replace")
    if re.search(r"^def call\(", source, re.M) or "\ncall = " in source:
        role = "wrapper"
    elif re.search(r"^@triton\.jit", source, re.M):
        role = "kernels"
    else:
        role = "other"
    names = []
    for n in KERNEL_DEF.findall(source):
        if n not in names:
            names.append(n)
    # Up to PyTorch 2.5 every kernel's def is `triton_`: its name is the
    # kernel_name its meta records (2.1 on).
    if not names and re.search(r"^def triton_\(", source, re.M):
        for n in re.findall(r"'kernel_name': '(triton_\w+)'", source):
            if n not in names:
                names.append(n)
    imports = sorted(set(re.findall(r"^\s*from (torch\._inductor[\w.]*) import", source, re.M)))
    return {
        "path": path,
        "name": name,
        "name_rule": name_rule(name, data) if name.startswith("c") else None,
        "role": role,
        "kernels": names,
        "has_get_args": "def get_args()" in source,
        "inductor_imports": imports,
    }


def best_config_facts(path, data, at_root):
    try:
        value = json.loads(data)
    except ValueError:
        value = None
    return {
        "path": path,
        "location": "root" if at_root else "shard",
        "fields": sorted(value.keys()) if isinstance(value, dict) else None,
        "triton_cache_hash": value.get("triton_cache_hash") if isinstance(value, dict) else None,
    }


def triton_kernel_facts(path, files, read):
    """One Triton kernel dir: its metadata JSON (not the __grp__ one)."""
    facts = {"path": path, "files": sorted(files)}
    for f in sorted(files):
        if f.endswith(".json") and not f.startswith("__grp__"):
            try:
                meta = json.loads(read(f))
            except ValueError:
                continue
            if not isinstance(meta, dict) or "name" not in meta:
                continue
            # The target as each Triton release wrote it: {"backend", "arch",
            # "warp_size"} (3.x), ["cuda", 89] (2.2, 2.3), {"capability": 86}
            # beside "device_type" (2.1).
            raw = meta.get("target")
            target = raw if isinstance(raw, dict) else {}
            backend = target.get("backend")
            arch = target.get("arch", target.get("capability", meta.get("arch", meta.get("cc"))))
            if isinstance(raw, list) and len(raw) == 2:
                backend, arch = raw
            if backend is None and arch is not None:
                backend = meta.get("device_type") or ("hip" if str(arch).startswith("gfx") else "cuda")
            facts.update(
                {
                    "name": meta.get("name"),
                    "backend": backend,
                    "arch": arch if arch is None or isinstance(arch, str) else str(arch),
                    "warp_size": target.get("warp_size", meta.get("warp_size")),
                    "num_warps": meta.get("num_warps"),
                    "triton_version": meta.get("triton_version"),
                    "hash": meta.get("hash"),
                }
            )
            break
    return facts


def benchmark_cache_facts(path, data):
    try:
        value = json.loads(data)
    except ValueError:
        return {"path": path, "device": None}
    system = value.get("system", {}) if isinstance(value, dict) else {}
    device = system.get("device")
    if isinstance(device, dict):
        device = device.get("name")
    version = system.get("version", {}) if isinstance(system.get("version"), dict) else {}
    return {
        "path": path,
        "device": device,
        "versions": {k: v for k, v in version.items() if isinstance(v, (str, int))},
    }


SHARD = re.compile(r"^[a-z0-9]{2}$")
SHA_HEX = re.compile(r"^[0-9a-f]{64}\.best_config$")


def is_inductor_dir(path):
    try:
        names = os.listdir(path)
    except OSError:
        return False
    if "fxgraph" in names or "aotautograd" in names:
        return True
    shards = sorted(n for n in names if SHARD.match(n) and os.path.isdir(os.path.join(path, n)))
    for shard in shards:
        for f in os.listdir(os.path.join(path, shard)):
            if re.match(r"^c[a-z0-9]{51}\.(py|cpp|best_config)$", f) or SHA_HEX.match(f):
                return True
    return False


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def inductor_dir_facts(root, base):
    rel = lambda p: os.path.relpath(p, root)
    out = {
        "path": os.path.relpath(root, base),
        "fx_entries": [],
        "aot_entries": [],
        "modules": [],
        "best_configs": [],
        "triton_kernels": [],
        "benchmark_caches": [],
        "other_files": [],
    }
    fx_root = os.path.join(root, "fxgraph")
    fx_keys = set()
    if os.path.isdir(fx_root):
        for shard in sorted(os.listdir(fx_root)):
            for key in sorted(os.listdir(os.path.join(fx_root, shard))):
                key_dir = os.path.join(fx_root, shard, key)
                if not os.path.isdir(key_dir):
                    continue
                fx_keys.add(key)
                for name in sorted(os.listdir(key_dir)):
                    p = os.path.join(key_dir, name)
                    if name.startswith(".") or not os.path.isfile(p):
                        continue
                    try:
                        out["fx_entries"].append(fx_entry_facts(rel(p), read_bytes(p), key))
                    except Exception as e:  # a damaged pickle is a fact too
                        out["fx_entries"].append({"path": rel(p), "key": key, "error": repr(e)[:200]})
    aot_root = os.path.join(root, "aotautograd")
    if os.path.isdir(aot_root):
        for key in sorted(os.listdir(aot_root)):
            key_dir = os.path.join(aot_root, key)
            if not os.path.isdir(key_dir):
                continue
            for name in sorted(os.listdir(key_dir)):
                p = os.path.join(key_dir, name)
                if name.startswith(".") or not os.path.isfile(p):
                    continue
                try:
                    out["aot_entries"].append(aot_entry_facts(rel(p), read_bytes(p), key, fx_keys))
                except Exception as e:
                    out["aot_entries"].append({"path": rel(p), "key": key, "error": repr(e)[:200]})
    for name in sorted(os.listdir(root)):
        p = os.path.join(root, name)
        if os.path.isfile(p):
            if SHA_HEX.match(name):
                out["best_configs"].append(best_config_facts(rel(p), read_bytes(p), True))
            elif not name.startswith("."):
                out["other_files"].append(rel(p))
            continue
        if SHARD.match(name):
            for f in sorted(os.listdir(p)):
                fp = os.path.join(p, f)
                if not os.path.isfile(fp) or f.startswith("."):
                    continue
                if f.endswith(".py"):
                    out["modules"].append(module_facts(rel(fp), read_bytes(fp)))
                elif f.endswith(".best_config"):
                    out["best_configs"].append(best_config_facts(rel(fp), read_bytes(fp), False))
        elif name == "cache":
            paths = [p] if os.path.isfile(p) else [os.path.join(p, f) for f in sorted(os.listdir(p))]
            for fp in paths:
                if os.path.isfile(fp):
                    out["benchmark_caches"].append(benchmark_cache_facts(rel(fp), read_bytes(fp)))
        elif name == "triton":
            for device in sorted(os.listdir(p)):
                device_dir = os.path.join(p, device)
                if os.path.isdir(device_dir):
                    out["triton_kernels"].extend(triton_dir_facts(device_dir, root))
    return out


def triton_dir_facts(cache, base):
    kernels = []
    for name in sorted(os.listdir(cache)):
        d = os.path.join(cache, name)
        if not os.path.isdir(d):
            continue
        files = [f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f))]
        facts = triton_kernel_facts(
            os.path.relpath(d, base), files, lambda f, d=d: read_bytes(os.path.join(d, f))
        )
        kernels.append(facts)
    return kernels


def is_triton_cache(path):
    try:
        names = os.listdir(path)
    except OSError:
        return False
    dirs = [n for n in names if os.path.isdir(os.path.join(path, n))]
    if not dirs:
        return False
    for n in sorted(dirs):
        files = os.listdir(os.path.join(path, n))
        has_kernel = any(f.endswith(".json") for f in files) or any(
            f.endswith("_utils.so") for f in files
        )
        if has_kernel and len(n) >= 32:
            return True
    return False


# ---------------------------------------------------------------------------
# vLLM / SGLang


def serving_index_facts(path):
    raw = read_bytes(path).decode("utf-8", "replace")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return {"path": path, "error": "not a Python literal"}
    rows = []
    items = value.items() if isinstance(value, dict) else enumerate(value or [])
    for k, v in items:
        rows.append({"key": repr(k), "value": repr(v)[:300]})
    graph_keys = sorted(
        {v[0] for _, v in (value.items() if isinstance(value, dict) else []) if isinstance(v, tuple) and v}
        | {v for _, v in (value.items() if isinstance(value, dict) else []) if isinstance(v, str)}
    )
    return {"entries": len(rows), "graph_keys": graph_keys, "form": type(value).__name__}


# ---------------------------------------------------------------------------
# Mega-cache bundles


def read_str(data, at):
    (n,) = struct.unpack_from(">Q", data, at)
    return data[at + 8 : at + 8 + n], at + 8 + n


ARTIFACT_TYPES = {0: "inductor", 1: "autotune", 2: "aot_autograd", 3: "pgo"}


def parse_bundle(data):
    """(form, [(type, key, content)]) of the bundle forms PyTorch wrote."""

    def grouped(body):
        at, out = 0, []
        while at < len(body):
            t, at = read_str(body, at)
            kind = base64.b64decode(t).decode()
            (count,) = struct.unpack_from(">Q", body, at)
            at += 8
            for _ in range(count):
                k, at = read_str(body, at)
                c, at = read_str(body, at)
                out.append((kind, base64.b64decode(k).decode(), c))
        return out

    def per_artifact(body):
        at, out = 0, []
        while at < len(body):
            (t,) = struct.unpack_from(">Q", body, at)
            at += 8
            k, at = read_str(body, at)
            c, at = read_str(body, at)
            out.append((ARTIFACT_TYPES.get(t, str(t)), base64.b64decode(k).decode(), c))
        return out

    if len(data) >= 12:
        (crc,) = struct.unpack_from(">I", data, 0)
        if crc == zlib.crc32(data[4:]) & 0xFFFFFFFF:
            return "crc32+version", grouped(data[12:])
    for form, reader in (("type-enum", per_artifact), ("grouped, no crc", grouped)):
        try:
            return form, reader(data[8:] if form == "grouped, no crc" else data)
        except Exception:
            continue
    raise ValueError("not a mega-cache bundle")


def bundle_facts(path):
    form, artifacts = parse_bundle(read_bytes(path))
    out = {"form": form, "artifacts": {}, "fx_graphs": []}
    for kind, key, content in artifacts:
        out["artifacts"][kind] = out["artifacts"].get(kind, 0) + 1
        if kind == "inductor":
            try:
                obj = unpickle(content)
                fields = state_of(obj)
                kernels = bundle_kernels(fields.get("_triton_bundle"))
                out["fx_graphs"].append(
                    {
                        "key": key,
                        "class": qualname(obj),
                        "bundle_kernels": len(kernels),
                        "role": role_of(fields, []),
                    }
                )
            except Exception as e:
                out["fx_graphs"].append({"key": key, "error": repr(e)[:200]})
    return out


def looks_like_bundle(path):
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    if len(head) < 24 or head[:2] == b"\x80\x04":
        return False
    try:
        parse_bundle(read_bytes(path))
        return True
    except Exception:
        return False


# ---------------------------------------------------------------------------
# TORCH_TRACE logs

GLOG = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ [^\]]*\] (\{.*\})\s*$")
CACHE_ARTIFACT = re.compile(r"^(fx_graph_cache|aotautograd_cache|autograd_cache)_(hit|miss|bypass|hash)$")


def trace_facts(path):
    artifacts = {}
    events = []
    ranks = set()
    compiles = set()
    lines = read_bytes(path).decode("utf-8", "replace").split("\n")
    i = 0
    while i < len(lines):
        m = GLOG.match(lines[i])
        i += 1
        if not m:
            continue
        try:
            meta = json.loads(m.group(1))
        except ValueError:
            continue
        payload = []
        while i < len(lines) and lines[i].startswith("\t"):
            payload.append(lines[i][1:])
            i += 1
        if "rank" in meta:
            ranks.add(meta["rank"])
        compile_key = [
            meta.get("frame_id"), meta.get("frame_compile_id"), meta.get("attempt", 0),
            meta.get("compiled_autograd_id"),
        ]  # fmt: skip
        if isinstance(meta.get("frame_id"), int):
            compiles.add(tuple(compile_key))
        art = meta.get("artifact")
        if not isinstance(art, dict):
            continue
        name = art.get("name")
        artifacts[name] = artifacts.get(name, 0) + 1
        cm = CACHE_ARTIFACT.match(name or "")
        if not cm:
            continue
        state = cm.group(2)
        if state == "hash":
            try:
                state = json.loads("\n".join(payload)).get("cache_state")
            except (ValueError, AttributeError):
                state = None
        events.append(
            {
                "cache": "fx_graph" if cm.group(1) == "fx_graph_cache" else "aot_autograd",
                "state": state,
                "artifact": name,
                # frame_id, frame_compile_id, attempt, compiled_autograd_id
                "compile": compile_key,
            }
        )
    return {
        "artifacts": dict(sorted(artifacts.items())),
        "cache_events": events,
        "ranks": sorted(ranks),
        "compiles": len(compiles),
    }


def is_trace_log(path):
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return False
    return any(GLOG.match(l) for l in head.split("\n")[:5])


# ---------------------------------------------------------------------------
# The tree


def walk(base):
    facts = {"inductor_dirs": [], "triton_caches": [], "serving_indexes": [], "bundles": [], "traces": []}
    taken = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        if any(dirpath == t or dirpath.startswith(t + os.sep) for t in taken):
            dirnames[:] = []
            continue
        rel = os.path.relpath(dirpath, base)
        if is_inductor_dir(dirpath):
            facts["inductor_dirs"].append(inductor_dir_facts(dirpath, base))
            taken.append(dirpath)
            dirnames[:] = []
            continue
        if os.path.basename(dirpath) in ("triton_cache", "triton") or is_triton_cache(dirpath):
            kernels = triton_dir_facts(dirpath, base)
            if kernels:
                facts["triton_caches"].append({"path": rel, "kernels": kernels})
                taken.append(dirpath)
                dirnames[:] = []
                continue
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            r = os.path.relpath(p, base)
            if f in ("vllm_compile_cache.py", "sglang_compile_cache.py", "inductor_hash_cache.py"):
                entry = serving_index_facts(p)
                entry["path"] = r
                facts["serving_indexes"].append(entry)
            elif is_trace_log(p):
                entry = trace_facts(p)
                entry["path"] = r
                facts["traces"].append(entry)
            elif os.path.getsize(p) < (64 << 20) and looks_like_bundle(p):
                entry = bundle_facts(p)
                entry["path"] = r
                facts["bundles"].append(entry)
    return facts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    base = os.path.join(args.source, "cache")
    if not os.path.isdir(base):
        base = args.source
    facts = walk(base)
    text_out = json.dumps(facts, indent=1, sort_keys=True, default=repr) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text_out)
    else:
        sys.stdout.write(text_out)


if __name__ == "__main__":
    main()
