#!/usr/bin/env python3
"""Writes small synthetic torch.compile caches, one per PyTorch release form.

    python3 tests/data/releases/make_release_caches.py OUTDIR [--check]

The tests of cachelens read real caches that users of PyTorch 2.0 to 2.12
committed to public repositories (tests/data/real-world/facts.py says what
each holds). Those caches are third-party data and are not committed here, so
CI runs the same tests against these miniatures instead: each reproduces the
FORMAT of one release as the real cache has it (class paths, field names and
their order, file and dir names and the hash rules behind them, decorator and
import forms of the generated code, Triton's metadata keys, the trace log and
mega-cache framing) around content of our own: a pointwise add, a mul, a relu,
a sum, on tensors of a few thousand elements. No third-party code or text is
copied beyond that boilerplate; the "binaries" (cubin, hsaco, .so) are ELF
headers followed by a line saying they are fakes.

Each source is written to OUTDIR/<source>/cache/ (the real corpus's layout;
facts.py reads OUTDIR/<source>), replacing what an earlier run left there.
The output is the same bytes on every run: no clock, no randomness, every key
is a hash of a fixed string, every set pickled holds at most one string.

    torch20-cuda-modules            PyTorch 2.0: kernel and wrapper modules only,
                                    named by the hash of their text as written.
                                    Modelled on torch20-cuda-multigpu-nanogpt-kernels.
    torch21-cuda-lenet              PyTorch 2.1 + Triton 2.1: modules, md5-named
                                    Triton dirs, launcher .so dirs, a best_config,
                                    the cache/ benchmark JSON.
                                    Modelled on torch21-sm86-rtx3060-lenet.
    torch21-cpu-cpp                 PyTorch 2.1 CPU: .cpp kernels including the
                                    cache dir's cpp_prefix .h copy, locks/, wrapper.
                                    Modelled on torch21-cpu-x86-mobilenet-cpp.
    torch23-cuda-dynamic            PyTorch 2.3 + Triton 2.3: triton_meta /
                                    inductor_meta split, a ks0 kernel, modules named
                                    by the hash of the stripped text, list targets.
                                    Modelled on torch23-sm89-rtx6000ada-dynamic-inpaint.
    torch24-cuda-train-fxgraph      PyTorch 2.4 + Triton 3.0: codecache.CompiledFxGraph
                                    forward and backward entries, 64-hex Triton dirs.
                                    Modelled on torch24-sm80-a100x4-titan-train-fxgraph.
    torch26-cuda-inference-fxgraph  PyTorch 2.6 + Triton 3.2: output_code.CompiledFxGraph
                                    with a list _triton_bundle, 43-char base64url dirs;
                                    one graph compiled for two shapes and another graph.
                                    Modelled on torch26-sm89-rtx4090-diffulex-fxgraph.
    torch27-cuda-train-fxgraph      PyTorch 2.7 + Triton 3.3: OrderedSet fields,
                                    frozen_param_names, 52-char base32 dirs, shard and
                                    root best_configs, the benchmark JSON, a guarded
                                    dynamic entry.
                                    Modelled on torch27-sm86-rtx3090-flowmo-train
                                    (the guards on torch29-windows-sm89-rtx4090-logsnrcat-fxgraph-aot).
    torch27rocm-vllm-tree           an older vLLM tree on ROCm: vllm_compile_cache.py,
                                    inductor_cache/ with fxgraph and aotautograd
                                    `entry` files, triton_cache/ with hsaco kernels.
                                    Modelled on torch27rocm-gfx90a-mi210-vllm-v0-inductor-cache
                                    (hip_utils.so on torch27rocm-gfx90a-mi210-vllm-backbone).
    torch28-cuda-debuglines         PyTorch 2.8 + Triton 3.4: _fx_graph_cache_debug_lines,
                                    a TritonBundle, runnable_graph_str.
                                    Modelled on torch28-sm75-vllm-standalone-artifacts.
    traces                          TORCH_TRACE logs: 2.4 (fx_graph_cache_hash without
                                    cache_state), 2.5 (with it, miss then hit), 2.6
                                    (fx_graph_cache_miss/hit, aotautograd_cache_bypass),
                                    two ranks' dedicated logs.
                                    Modelled on torch25-cpu-torch-trace-logs-codespace-tlparse
                                    and torch-trace-logs-2024-2025-nightlies-tlparse.
    torch27-mega-bundle             mega.bin: the bytes of save_cache_artifacts(), crc32 +
                                    version 1 + grouped artifacts (an inductor entry of
                                    2.7 form, an autotune best_config). No real bundle is
                                    in the corpus; the framing is facts.py's parse_bundle's.
    torch24-debug-dump              a torch_compile_debug run dir of 2.4 (CPU).
                                    Modelled on torch24-cpu-torch_compile_debug-run-blogpost.

Forms taken from the real caches where one might guess otherwise:
  - 2.4's fx_kwargs has user_visible_outputs and aot_mode, and no
    boxed_forward_device_index (that is a field of the entry); 2.6's has
    boxed_forward_device_index and aot_mode; 2.7's neither aot_mode nor
    user_visible_outputs.
  - 2.6 pickles device_types, device_idxs and mutated_* as builtins sets and
    allocated_constant_name as None; 2.7 and 2.8 as OrderedSet (REDUCE of
    OrderedSet with a list) and frozen_param_names as {}.
  - best_configs are named <module>.best_config beside the module up to 2.5,
    and sha256('<module>.py:').hexdigest() + '.best_config' in the module's
    shard dir from 2.6 (AutotuneCache, an empty cache_key_tag).
  - the benchmark cache file is named by sha256 of its "system" dict dumped
    with sorted keys; from 2.5 its Triton version is the release followed by
    the hashes of triton_key() joined by "-" (2.7: "3.3.0<hex>-<hex>-...";
    four fake hashes here, the real one has 25).
  - .lock files of 2.1's C++ kernels are under locks/, named as the .cpp.

With --check, facts.py is run on every source written and what it reports is
compared with what was meant (roles, bundle kernel counts, module name rules,
Triton targets, trace events, bundle artifacts); a table is printed and the
exit status is 1 on a difference. stdlib only.
"""

import argparse
import base64
import collections
import hashlib
import io
import json
import os
import pathlib
import pickle
import pprint
import shutil
import struct
import sys
import types
import zlib

HERE = pathlib.Path(__file__).resolve().parent
FACTS = HERE.parent / "real-world" / "facts.py"

USER_DIR = "torchinductor_user"
TMP = "/tmp/" + USER_DIR  # the cache dir the generated code names


# ---------------------------------------------------------------------------
# Hashes and names


def sha256_hash(data):
    """PyTorch's name for content: lowercase base32 of sha256, 51 chars."""
    return base64.b32encode(hashlib.sha256(data).digest())[:51].decode().lower()


def as_written_name(text):
    """PyTorch 2.0 and 2.1 (codecache.write): the hash of the text itself."""
    return "c" + sha256_hash(text.encode())


def stripped_name(text):
    """PyTorch 2.2 on: the hash of the text without its surrounding white space."""
    return "c" + sha256_hash(text.strip().encode())


def cpp_name(text, command):
    """PyTorch 2.1 CppCodeCache: code_hash(source + '||' + repr(compile command))."""
    return "c" + sha256_hash((text + "||" + command).encode())


def fake_key(prefix, seed):
    """A key that looks like PyTorch's (prefix + 51 base32 chars), from a fixed seed."""
    return prefix + sha256_hash(("cachelens miniature key %s %s" % (prefix, seed)).encode())


def hex64(seed):
    return hashlib.sha256(("cachelens miniature hex " + seed).encode()).hexdigest()


def md5_hex(seed):
    return hashlib.md5(("cachelens miniature md5 " + seed).encode()).hexdigest()


def triton_dir_name(hash_hex, form):
    """Triton's cache dir name for a kernel hash: md5 hex (2.x), the hex itself
    (3.0), base64url (3.1, 3.2) or base32 (3.3 on, and AMD's 3.2 fork)."""
    raw = bytes.fromhex(hash_hex)
    if form == "hex":
        return hash_hex
    if form == "b64":
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    if form == "b32":
        return base64.b32encode(raw).decode().rstrip("=")
    raise ValueError(form)


def best_config_name(module_name):
    """PyTorch 2.6 on (AutotuneCache._prepare_key): sha256 hex of
    '<module file name>:<cache_key_tag>', the tag empty."""
    return hashlib.sha256((module_name + ".py:").encode()).hexdigest() + ".best_config"


def fake_elf(machine, what):
    """An ELF header (64-bit, little-endian, e_machine `machine`) and a note:
    enough for a reader to see a binary, nothing that runs."""
    header = b"\x7fELF\x02\x01\x01" + bytes(9)
    header += struct.pack("<HHI", 2, machine, 1) + bytes(64 - 24)
    return header + ("cachelens miniature: not a real %s\n" % what).encode()


CUBIN = 190  # EM_CUDA
HSACO = 224  # EM_AMDGPU
X86_64 = 62


# ---------------------------------------------------------------------------
# Files


class Tree:
    """Files of one source, under OUTDIR/<source>/cache/."""

    def __init__(self, root):
        self.root = root
        self.files = 0
        self.bytes = 0

    def write(self, rel, data):
        if isinstance(data, str):
            data = data.encode()
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        self.files += 1
        self.bytes += len(data)
        return rel


def fill(template, **values):
    """`<<name>>` markers replaced: the templates are full of braces."""
    for name, value in values.items():
        template = template.replace("<<%s>>" % name, str(value))
    assert "<<" not in template, template[template.index("<<") :][:60]
    return template


# ---------------------------------------------------------------------------
# Stand-ins for PyTorch's classes: registered under PyTorch's module names so
# that pickle writes the same globals PyTorch's pickles hold.


def stub_module(name):
    if name in sys.modules and getattr(sys.modules[name], "__cachelens_stub__", False):
        return sys.modules[name]
    module = types.ModuleType(name)
    module.__cachelens_stub__ = True
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(stub_module(parent), child, module)
    return module


def torch_class(module, name, reduce_args=None):
    """A class pickled as `module.name`. Instances pickle as PyTorch's
    dataclasses and plain objects do (NEWOBJ of the class with no args, BUILD
    of the attribute dict), or, with reduce_args, as REDUCE(cls, args(self))."""
    namespace = {"__module__": module, "__qualname__": name}
    if reduce_args is not None:
        namespace["__reduce__"] = lambda self: (type(self), reduce_args(self))
    cls = type(name, (), namespace)
    setattr(stub_module(module), name, cls)
    return cls


def make(cls, **state):
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    return obj


class OrderedSet:
    """torch.utils._ordered_set.OrderedSet: pickled as REDUCE(OrderedSet, ([items],))."""

    def __init__(self, items=()):
        self._dict = dict.fromkeys(items)

    def __iter__(self):
        return iter(self._dict)

    def __reduce__(self):
        return (OrderedSet, (list(self),))


OrderedSet.__module__ = "torch.utils._ordered_set"
stub_module("torch.utils._ordered_set").OrderedSet = OrderedSet

CompiledFxGraph24 = torch_class("torch._inductor.codecache", "CompiledFxGraph")
CompiledFxGraph = torch_class("torch._inductor.output_code", "CompiledFxGraph")
CachedMetricsDeltas = torch_class("torch._inductor.metrics", "CachedMetricsDeltas")
BoxedBool = torch_class("torch._inductor.utils", "BoxedBool")
BoxedDeviceIndex = torch_class("torch._inductor.cudagraph_utils", "BoxedDeviceIndex")
TritonKernelArtifacts = torch_class("torch._inductor.triton_bundler", "TritonKernelArtifacts")
TritonKernelArtifact = torch_class("torch._inductor.triton_bundler", "TritonKernelArtifact")
TritonBundle = torch_class("torch._inductor.triton_bundler", "TritonBundle")
AOT = "torch._functorch._aot_autograd.autograd_cache"
AOTAutogradCacheEntry = torch_class(AOT, "AOTAutogradCacheEntry")
CompiledForward = torch_class(AOT, "CompiledForward")
SCHEMAS = "torch._functorch._aot_autograd.schemas"
ViewAndMutationMeta = torch_class(SCHEMAS, "ViewAndMutationMeta")
InputAliasInfo = torch_class(SCHEMAS, "InputAliasInfo")
OutputAliasInfo = torch_class(SCHEMAS, "OutputAliasInfo")
PlainTensorMeta = torch_class(SCHEMAS, "PlainTensorMeta")
MutationType = torch_class(SCHEMAS, "MutationType", lambda self: (self.value,))
OutputType = torch_class(SCHEMAS, "OutputType", lambda self: (self.value,))
WRAPPERS = "torch._functorch._aot_autograd.runtime_wrappers"
AOTDedupeWrapper = torch_class(WRAPPERS, "AOTDedupeWrapper")
AOTSyntheticBaseWrapper = torch_class(WRAPPERS, "AOTSyntheticBaseWrapper")
FunctionalTensor = torch_class("torch._subclasses.functional_tensor", "FunctionalTensor")


def enum_value(cls, value):
    obj = cls.__new__(cls)
    obj.value = value
    return obj


def dumps(obj):
    """As FxGraphCache and AOTAutogradCache write them: pickle.dumps at the
    default protocol of the Pythons PyTorch 2.4 to 2.8 run on (4)."""
    return pickle.dumps(obj, protocol=4)


# ---------------------------------------------------------------------------
# Triton kernels: the metadata JSON and the compiler's files, per Triton release


def ptr_params(params):
    return [(n, t) for n, t in params if t.startswith("*")]


def mlir_type(t, triton2=False):
    if t.startswith("*"):
        return "!tt.ptr<%s%s>" % (t[1:].replace("fp", "f"), ", 1" if triton2 else "")
    return "i32"


def ttir_text(name, params, module_path, triton2=False):
    if triton2:
        args = ", ".join(
            "%%arg%d: %s {tt.divisibility = 16 : i32}" % (i, mlir_type(t, True)) for i, (_, t) in enumerate(params)
        )
        return fill(
            "module {\n  tt.func public @<<name>>(<<args>>) attributes {noinline = false} {\n"
            "    %0 = tt.get_program_id x : i32\n    tt.return\n  }\n}\n",
            name=name,
            args=args,
        )
    args = ", ".join(
        "%%arg%d: %s {tt.divisibility = 16 : i32} loc(#loc)" % (i, mlir_type(t)) for i, (_, t) in enumerate(params)
    )
    return fill(
        '#loc = loc("<<path>>":18:0)\nmodule {\n  tt.func public @<<name>>(<<args>>) attributes {noinline = false} {\n'
        "    %0 = tt.get_program_id x : i32 loc(#loc)\n    tt.return loc(#loc)\n  } loc(#loc)\n} loc(#loc)\n",
        name=name,
        args=args,
        path=module_path,
    )


def ttgir_text(name, params, num_warps, warp_size, dialect, attrs, triton2=False):
    args = ", ".join(
        "%%arg%d: %s {tt.divisibility = 16 : i32}" % (i, mlir_type(t, triton2)) for i, (_, t) in enumerate(params)
    )
    return fill(
        'module attributes {<<attrs>>"<<d>>.num-warps" = <<nw>> : i32, "<<d>>.threads-per-warp" = <<ws>> : i32} {\n'
        "  tt.func public @<<name>>(<<args>>) attributes {noinline = false} {\n"
        "    %0 = tt.get_program_id x : i32\n    tt.return\n  }\n}\n",
        d=dialect,
        ws=warp_size,
        nw=num_warps,
        attrs=attrs,
        name=name,
        args=args,
    )


def llir_text(name, params, target=""):
    args = ", ".join(
        ("ptr addrspace(1) %%%d" if t.startswith("*") else "i32 %%%d") % i for i, (_, t) in enumerate(params)
    )
    return fill(
        "; ModuleID = 'LLVMDialectModule'\nsource_filename = \"LLVMDialectModule\"\n<<target>>\n"
        "define void @<<name>>(<<args>>) local_unnamed_addr {\n  ret void\n}\n",
        target=target,
        name=name,
        args=args,
    )


def ptx_text(name, params, version, sm, max_threads):
    plist = ",\n".join(
        "\t.param .%s %s_param_%d" % ("u64" if t.startswith("*") else "u32", name, i) for i, (_, t) in enumerate(params)
    )
    return fill(
        "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version <<v>>\n.target sm_<<sm>>\n.address_size 64\n\n"
        "\t// .globl\t<<name>>\n\n.visible .entry <<name>>(\n<<plist>>\n)\n.maxntid <<mt>>, 1, 1\n{\n\tret;\n\n}\n",
        v=version,
        sm=sm,
        name=name,
        plist=plist,
        mt=max_threads,
    )


def amdgcn_text(name, arch):
    return fill(
        '\t.text\n\t.amdgcn_target "amdgcn-amd-amdhsa--<<arch>>"\n\t.amdhsa_code_object_version 5\n'
        "\t.globl\t<<name>>\n\t.p2align\t8\n\t.type\t<<name>>,@function\n<<name>>:\n\ts_endpgm\n"
        ".Lfunc_end0:\n\t.size\t<<name>>, .Lfunc_end0-<<name>>\n",
        arch=arch,
        name=name,
    )


LIBDEVICE = "/usr/lib/python3/dist-packages/triton/backends/nvidia/lib/libdevice.10.bc"


def triton_metadata(form, name, hash_hex, arch, num_warps, constants=None):
    """The kernel's <name>.json as each Triton release writes it (key order too)."""
    common_30 = {"num_ctas": 1, "num_stages": 1}
    if form == "2.1":
        return {
            "num_warps": num_warps, "num_ctas": 1, "num_stages": 1,
            "enable_warp_specialization": False, "enable_persistent": False,
            "constants": constants or {}, "debug": True,
            "target": {"capability": arch, "num_warps": num_warps, "enable_fp_fusion": True},
            "AMDGCN_ENABLE_DUMP": False, "DISABLE_FAST_REDUCTION": False, "DISABLE_MMA_V3": False,
            "ENABLE_TMA": False, "LLVM_IR_ENABLE_DUMP": False, "MLIR_ENABLE_DUMP": False,
            "TRITON_DISABLE_LINE_INFO": False, "device_type": "cuda", "shared": 0, "name": name,
            "clusterDims": [1, 1, 1],
        }  # fmt: skip
    if form == "2.3":
        return {
            "target": ["cuda", arch], "num_warps": num_warps, "num_ctas": 1, "num_stages": 1,
            "cluster_dims": [1, 1, 1], "ptx_version": None, "enable_warp_specialization": False,
            "enable_persistent": False, "optimize_epilogue": False, "enable_fp_fusion": True,
            "allow_fp8e4nv": True, "max_num_imprecise_acc_default": 0, "extern_libs": None,
            "debug": True, "AMDGCN_ENABLE_DUMP": False, "DISABLE_FAST_REDUCTION": False,
            "DISABLE_MMA_V3": False, "ENABLE_TMA": False, "LLVM_IR_ENABLE_DUMP": False,
            "MLIR_ENABLE_DUMP": False, "TRITON_DISABLE_LINE_INFO": False,
            "ids_of_folded_args": [], "ids_of_tensormaps": None, "shared": 0, "name": name,
        }  # fmt: skip
    target = {"backend": "cuda", "arch": arch, "warp_size": 32}
    if form == "3.0":
        return {
            "hash": hash_hex, "target": target, "num_warps": num_warps, **common_30,
            "maxnreg": None, "cluster_dims": [1, 1, 1], "ptx_version": None,
            "enable_fp_fusion": True, "allow_fp8e4nv": False, "allow_fp8e4b15": True,
            "default_dot_input_precision": "tf32",
            "allowed_dot_input_precisions": ["tf32", "tf32x3", "ieee"],
            "max_num_imprecise_acc_default": 0, "extern_libs": [["libdevice", LIBDEVICE]],
            "debug": True, "backend_name": "cuda", "shared": 0, "name": name,
        }  # fmt: skip
    warp_spec = {"num_buffers_warp_spec": 0, "num_consumer_groups": 0, "reg_dec_producer": 0, "reg_inc_consumer": 0}
    if form == "3.2":
        return {
            "hash": hash_hex, "target": target, "num_warps": num_warps, **common_30, **warp_spec,
            "maxnreg": None, "cluster_dims": [1, 1, 1], "ptx_version": None,
            "enable_fp_fusion": True, "supported_fp8_dtypes": ["fp8e4b15", "fp8e4nv", "fp8e5"],
            "deprecated_fp8_dtypes": [], "default_dot_input_precision": "tf32",
            "allowed_dot_input_precisions": ["tf32", "tf32x3", "ieee"],
            "max_num_imprecise_acc_default": 0, "extern_libs": [["libdevice", LIBDEVICE]],
            "debug": True, "backend_name": "cuda", "sanitize_overflow": False, "shared": 0,
            "name": name,
        }  # fmt: skip
    if form == "3.3":
        return {
            "hash": hash_hex, "target": target, "num_warps": num_warps, **common_30, **warp_spec,
            "maxnreg": None, "cluster_dims": [1, 1, 1], "ptx_version": None,
            "enable_fp_fusion": True, "launch_cooperative_grid": False,
            "supported_fp8_dtypes": ["fp8e4b15", "fp8e5"], "deprecated_fp8_dtypes": [],
            "default_dot_input_precision": "tf32",
            "allowed_dot_input_precisions": ["tf32", "tf32x3", "ieee"],
            "max_num_imprecise_acc_default": 0, "extern_libs": [["libdevice", LIBDEVICE]],
            "debug": True, "backend_name": "cuda", "sanitize_overflow": False,
            "arch": "sm%d" % arch, "triton_version": "3.3.0", "shared": 0, "tmem_size": 0,
            "global_scratch_size": 0, "global_scratch_align": 1, "name": name,
        }  # fmt: skip
    if form == "3.4":
        return {
            "hash": hash_hex, "target": target, "num_warps": num_warps, **common_30,
            "maxnreg": None, "cluster_dims": [1, 1, 1], "ptx_version": None, "ptx_options": None,
            "ir_override": None, "enable_fp_fusion": True, "launch_cooperative_grid": False,
            "launch_pdl": False, "supported_fp8_dtypes": ["fp8e4b15", "fp8e5"],
            "deprecated_fp8_dot_operand_dtypes": [], "default_dot_input_precision": "tf32",
            "allowed_dot_input_precisions": ["tf32", "tf32x3", "ieee"],
            "max_num_imprecise_acc_default": 0, "extern_libs": [["libdevice", LIBDEVICE]],
            "debug": True, "backend_name": "cuda", "sanitize_overflow": False,
            "arch": "sm%d" % arch, "triton_version": "3.4.0", "tensordesc_meta": [], "shared": 0,
            "tmem_size": 0, "global_scratch_size": 0, "global_scratch_align": 1, "name": name,
        }  # fmt: skip
    if form == "hip3.2":
        amd = "/usr/local/lib/python3.12/dist-packages/triton/backends/amd/lib/"
        return {
            "hash": hash_hex, "target": {"backend": "hip", "arch": arch, "warp_size": 64},
            "num_warps": num_warps, "waves_per_eu": 1, "num_stages": 1, "num_ctas": 1,
            "extern_libs": [["ocml", amd + "ocml.bc"], ["ockl", amd + "ockl.bc"]],
            "cluster_dims": [1, 1, 1], "debug": False, "sanitize_overflow": False, "arch": arch,
            "supported_fp8_dtypes": ["fp8e5"], "deprecated_fp8_dtypes": [],
            "default_dot_input_precision": "ieee", "allowed_dot_input_precisions": ["ieee"],
            "enable_fp_fusion": True, "matrix_instr_nonkdim": 0, "kpack": 1,
            "allow_flush_denorm": False, "max_num_imprecise_acc_default": 0, "backend_name": "hip",
            "instruction_sched_variant": "none", "warp_size": 64, "shared": 0, "name": name,
        }  # fmt: skip
    raise ValueError(form)


class TritonKernel:
    """One compiled kernel: its dir under the Triton cache and its files."""

    def __init__(self, dir_name, files):
        self.dir_name = dir_name
        self.files = files  # [(file name, bytes)], __grp__ last


def triton_kernel(form, name, params, module_path, cache_path, seed, arch, num_warps=4, constants=None):
    """The files Triton writes for one kernel, in the dir its release names.

    form: "2.1", "2.3" (md5 dirs, files named triton_.*), "3.0", "3.2", "3.3",
    "3.4" (CUDA), "hip3.2" (AMD's fork). cache_path: where the Triton cache
    dir is, as the group file names it."""
    file_stem = "triton_" if form in ("2.1", "2.3") else name
    if form in ("2.1", "2.3"):
        hash_hex, dir_name = None, md5_hex(seed)
    else:
        hash_hex = hex64("triton kernel " + seed)
        dir_name = triton_dir_name(hash_hex, {"3.0": "hex", "3.2": "b64"}.get(form, "b32"))
    meta = triton_metadata(form, name, hash_hex, arch, num_warps, constants)
    triton2 = form in ("2.1", "2.3")
    files = [(file_stem + ".json", json.dumps(meta).encode())]
    files.append((file_stem + ".ttir", ttir_text(name, params, module_path, triton2).encode()))
    if form == "hip3.2":
        attrs = '"ttg.target" = "hip:%s", ' % arch
        files.append((file_stem + ".ttgir", ttgir_text(name, params, num_warps, 64, "ttg", attrs).encode()))
        files.append((file_stem + ".llir", llir_text(name, params, 'target triple = "amdgcn-amd-amdhsa"\n').encode()))
        files.append((file_stem + ".amdgcn", amdgcn_text(name, arch).encode()))
        files.append((file_stem + ".hsaco", fake_elf(HSACO, "hsaco")))
    else:
        dialect = "ttg" if form in ("3.3", "3.4") else "triton_gpu"
        attrs = '"%s.compute-capability" = %d : i32, ' % (dialect, arch) if triton2 else '"%s.target" = "cuda:%d", ' % (dialect, arch)
        files.append((file_stem + ".ttgir", ttgir_text(name, params, num_warps, 32, dialect, attrs, triton2).encode()))
        files.append((file_stem + ".llir", llir_text(name, params).encode()))
        ptx_version = {"2.1": "8.2", "2.3": "8.1", "3.0": "8.4", "3.2": "8.4", "3.3": "8.7", "3.4": "8.7"}[form]
        files.append((file_stem + ".ptx", ptx_text(name, params, ptx_version, arch, num_warps * 32).encode()))
        files.append((file_stem + ".cubin", fake_elf(CUBIN, "cubin")))
        if form == "3.4":
            files.append((file_stem + ".source", ttir_text(name, params, module_path).encode()))
    names = sorted(f for f, _ in files)
    if triton2:
        group = {"child_paths": names}
    else:
        group = {"child_paths": {f: "%s/%s/%s" % (cache_path, dir_name, f) for f, _ in files}}
    group_text = json.dumps(group, indent=2) if form == "hip3.2" else json.dumps(group)
    files.append(("__grp__%s.json" % file_stem, group_text.encode()))
    return TritonKernel(dir_name, files)


def write_triton(tree, rel_dir, kernel):
    for f, data in kernel.files:
        tree.write("%s/%s/%s" % (rel_dir, kernel.dir_name, f), data)


def bundle_entry(kernel, device=0):
    """A TritonKernelArtifacts of the FX entry's bundle: the kernel dir's files."""
    return make(
        TritonKernelArtifacts,
        kernel_hash=kernel.dir_name,
        device=device,
        artifacts=[make(TritonKernelArtifact, filename=f, payload=data) for f, data in kernel.files],
    )


def benchmark_cache(device, versions, other, entries):
    """cache/<hash>: the system's description and the benchmark results
    (pad_mm's decisions); the file is named by the hash of the description."""
    system = {"device": {"name": device}, "version": versions}
    if other is not None:
        system["other"] = other
    digest = hashlib.sha256(json.dumps(system, sort_keys=True).encode()).hexdigest()
    system["hash"] = digest
    return digest, json.dumps({"system": system, "cache": entries}, indent=4)


def triton_key_tail(seed, count):
    """The hashes Inductor's triton_key() appends to Triton's version."""
    return "-".join(hex64("%s %d" % (seed, i)) for i in range(count))


# ---------------------------------------------------------------------------
# Kernel bodies (our own small kernels, in the code Inductor generates for them)


def body_add(xnumel, masked=True, const=None, dynamic=False):
    """out = in0 + in1 (or in0 + const)."""
    mask = "xmask" if masked else "None"
    lines = []
    if not dynamic:
        lines.append("    xnumel = %d" % xnumel)
    lines += [
        "    xoffset = tl.program_id(0) * XBLOCK",
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:]",
        "    xmask = xindex < xnumel" if masked else "    xmask = tl.full([XBLOCK], True, tl.int1)",
        "    x0 = xindex",
        "    tmp0 = tl.load(in_ptr0 + (x0), %s)" % mask,
    ]
    if const is None:
        lines += ["    tmp1 = tl.load(in_ptr1 + (x0), %s)" % mask, "    tmp2 = tmp0 + tmp1"]
    else:
        lines += ["    tmp1 = %s" % const, "    tmp2 = tmp0 + tmp1"]
    lines.append("    tl.store(out_ptr0 + (x0), tmp2, %s)" % mask)
    return "\n".join(lines) + "\n"


def body_mul(xnumel, masked=True, const=None, dynamic=False):
    mask = "xmask" if masked else "None"
    lines = [] if dynamic else ["    xnumel = %d" % xnumel]
    lines += [
        "    xoffset = tl.program_id(0) * XBLOCK",
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:]",
        "    xmask = xindex < xnumel" if masked else "    xmask = tl.full([XBLOCK], True, tl.int1)",
        "    x0 = xindex",
        "    tmp0 = tl.load(in_ptr0 + (x0), %s)" % mask,
    ]
    if const is not None:
        lines += ["    tmp1 = %s" % const, "    tmp2 = tmp0 * tmp1", "    tl.store(out_ptr0 + (x0), tmp2, %s)" % mask]
    else:
        lines += [
            "    tmp1 = tl.load(in_ptr1 + (x0), %s)" % mask,
            "    tmp2 = tmp0 * tmp1",
            "    tl.store(out_ptr0 + (x0), tmp2, %s)" % mask,
        ]
    return "\n".join(lines) + "\n"


def body_relu(xnumel):
    return (
        "    xnumel = %d\n"
        "    xoffset = tl.program_id(0) * XBLOCK\n"
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:]\n"
        "    xmask = xindex < xnumel\n"
        "    x0 = xindex\n"
        "    tmp0 = tl.load(in_ptr0 + (x0), xmask)\n"
        "    tmp1 = triton_helpers.maximum(0, tmp0)\n"
        "    tl.store(out_ptr0 + (x0), tmp1, xmask)\n" % xnumel
    )


def body_sum_loop(xnumel, rnumel, zeros="tl.zeros([XBLOCK, RBLOCK], tl.float32) + 0", where_old=True):
    """A looped reduction over the last dim (2.0 to 2.6 names)."""
    acc = (
        "        _tmp1 = tl.where(rmask & xmask, _tmp1 + tmp0, _tmp1)\n"
        if where_old
        else "        tmp2 = _tmp1 + tmp0\n        _tmp1 = tl.where(rmask & xmask, tmp2, _tmp1)\n"
    )
    return (
        "    xnumel = %d\n"
        "    rnumel = %d\n"
        "    xoffset = tl.program_id(0) * XBLOCK\n"
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]\n"
        "    xmask = xindex < xnumel\n"
        "    rbase = tl.arange(0, RBLOCK)[None, :]\n"
        "    x0 = xindex\n"
        "    _tmp1 = %s\n"
        "    for roffset in range(0, rnumel, RBLOCK):\n"
        "        rindex = roffset + rbase\n"
        "        rmask = rindex < rnumel\n"
        "        r1 = rindex\n"
        "        tmp0 = tl.load(in_ptr0 + (%s), rmask & xmask, eviction_policy='evict_first', other=0.0)\n"
        "%s"
        "    tmp1 = tl.sum(_tmp1, 1)[:, None]\n"
        "    tl.store(out_ptr0 + (x0), tmp1, xmask)\n"
        % (xnumel, rnumel, zeros, ("r1 + (%d*x0)" if where_old else "r1 + %d*x0") % rnumel, acc)
    )


def body_sum_persistent_27(xnumel, rnumel):
    """A persistent reduction as 2.7 writes it (r0_ names)."""
    return fill(
        "    xnumel = <<x>>\n"
        "    r0_numel = <<r>>\n"
        "    R0_BLOCK: tl.constexpr = <<r>>\n"
        "    rnumel = r0_numel\n"
        "    RBLOCK: tl.constexpr = R0_BLOCK\n"
        "    xoffset = tl.program_id(0) * XBLOCK\n"
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]\n"
        "    xmask = xindex < xnumel\n"
        "    r0_index = tl.arange(0, R0_BLOCK)[None, :]\n"
        "    r0_offset = 0\n"
        "    r0_mask = tl.full([XBLOCK, R0_BLOCK], True, tl.int1)\n"
        "    roffset = r0_offset\n"
        "    rindex = r0_index\n"
        "    r0_1 = r0_index\n"
        "    x0 = xindex\n"
        "    tmp0 = tl.load(in_ptr0 + (r0_1 + <<r>>*x0), xmask, other=0.0)\n"
        "    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])\n"
        "    tmp3 = tl.where(xmask, tmp1, 0)\n"
        "    tmp4 = tl.sum(tmp3, 1)[:, None]\n"
        "    tl.store(out_ptr0 + (x0), tmp4, xmask)\n",
        x=xnumel,
        r=rnumel,
    )


def sig_indexed(params):
    return "{" + ", ".join("%d: '%s'" % (i, t) for i, (_, t) in enumerate(params)) + "}"


def sig_named(params, constexprs=()):
    items = ["'%s': '%s'" % (n, t) for n, t in params] + ["'%s': 'constexpr'" % c for c in constexprs]
    return "{" + ", ".join(items) + "}"


def tup(items):
    items = list(items)
    if len(items) == 1:
        return "(%s,)" % items[0]
    return "(" + ", ".join(str(i) for i in items) + ")"


def def_line(fn_name, params, reduction):
    names = [n for n, _ in params]
    tail = "XBLOCK : tl.constexpr, RBLOCK : tl.constexpr" if reduction else "XBLOCK : tl.constexpr"
    return "def %s(%s, %s):\n" % (fn_name, ", ".join(names), tail)


INDUCTOR_META_TAIL = (
    "'are_deterministic_algorithms_enabled': False, 'assert_indirect_indexing': True, "
    "'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, "
    "'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, "
    "'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, "
    "'store_cubin': False"
)


# ---- PyTorch 2.0


def kernel_20(params, heuristic, size_hints, device, body, reduction=False):
    head = (
        "\nimport triton\nimport triton.language as tl\n"
        "from torch._inductor.ir import ReductionHint\nfrom torch._inductor.ir import TileHint\n"
        "from torch._inductor.triton_ops.autotune import %s\n"
        "from torch._inductor.utils import instance_descriptor\n\n" % heuristic
    )
    meta = "meta={'signature': %s, 'device': %d, 'constants': {}, 'mutated_arg_names': [], 'configs': [instance_descriptor(divisible_by_16=%s, equal_to_1=())]}" % (
        sig_indexed(params),
        device,
        tup(range(len(params))),
    )
    if reduction:
        deco = "@reduction(\n    size_hints=%s,\n    reduction_hint=ReductionHint.INNER,\n    filename=__file__,\n    %s\n)\n" % (size_hints, meta)
    else:
        deco = "@pointwise(size_hints=%s, filename=__file__, %s)\n" % (size_hints, meta)
    return head + deco + "@triton.jit\n" + def_line("triton_", params, reduction) + body


# ---- PyTorch 2.1


def kernel_21(params, heuristic, size_hints, kernel_name, body, div8, reduction=False, mutated=()):
    head = (
        "\nimport triton\nimport triton.language as tl\n"
        "from torch._inductor.ir import ReductionHint\nfrom torch._inductor.ir import TileHint\n"
        "from torch._inductor.triton_heuristics import AutotuneHint, %s\n"
        "from torch._inductor.utils import instance_descriptor\n"
        "from torch._inductor import triton_helpers\n\n" % heuristic
    )
    meta = (
        "meta={'signature': %s, 'device': 0, 'device_type': 'cuda', 'constants': {}, 'mutated_arg_names': %s, "
        "'autotune_hints': set(), 'kernel_name': '%s', 'configs': [instance_descriptor(divisible_by_16=%s, "
        "equal_to_1=(), ids_of_folded_args=(), divisible_by_8=%s)]}"
        % (sig_indexed(params), list(mutated), kernel_name, tup(range(len(params))), tup(div8) if div8 else "()")
    )
    if reduction:
        deco = "@%s(\n    size_hints=%s,\n    reduction_hint=ReductionHint.INNER,\n    filename=__file__,\n    %s\n)\n" % (
            heuristic,
            size_hints,
            meta,
        )
    else:
        deco = "@%s(size_hints=%s, filename=__file__, %s)\n" % (heuristic, size_hints, meta)
    return head + deco + "@triton.jit\n" + def_line("triton_", params, reduction) + body


# ---- PyTorch 2.3


def kernel_23(params, size_hints, kernel_name, body, div16, backend_hash):
    head = (
        "\nimport triton\nimport triton.language as tl\nfrom triton.compiler.compiler import AttrsDescriptor\n\n"
        "from torch._inductor import triton_helpers, triton_heuristics\n"
        "from torch._inductor.ir import ReductionHint, TileHint\n"
        "from torch._inductor.triton_helpers import libdevice, math as tl_math\n"
        "from torch._inductor.triton_heuristics import AutotuneHint\n"
        "from torch._inductor.utils import instance_descriptor\n\n"
    )
    deco = (
        "@triton_heuristics.pointwise(\n    size_hints=%s, \n    filename=__file__,\n"
        "    triton_meta={'signature': %s, 'device': 0, 'device_type': 'cuda', 'constants': {}, "
        "'configs': [AttrsDescriptor(divisible_by_16=%s, equal_to_1=(), ids_of_folded_args=(), divisible_by_8=())]},\n"
        "    inductor_meta={'autotune_hints': set(), 'kernel_name': '%s', 'mutated_arg_names': [], "
        "'no_x_dim': False, 'backend_hash': '%s'},\n    min_elem_per_thread=0\n)\n"
        % (size_hints, sig_indexed(params), tup(div16), kernel_name, backend_hash)
    )
    return head + deco + "@triton.jit\n" + def_line("triton_", params, False) + body


# ---- PyTorch 2.4


def device_props_24(index):
    return (
        "DeviceProperties(type='cuda', index=%d, cc=80, major=8, regs_per_multiprocessor=65536, "
        "max_threads_per_multi_processor=2048, multi_processor_count=108)" % index
    )


def kernel_24(params, size_hints, kernel_name, body, backend_hash, num_load, mutated=()):
    head = (
        "\nimport triton\nimport triton.language as tl\nfrom triton.compiler.compiler import AttrsDescriptor\n\n"
        "from torch._inductor.runtime import triton_helpers, triton_heuristics\n"
        "from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math\n"
        "from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, instance_descriptor, DeviceProperties\n\n"
    )
    deco = (
        "@triton_heuristics.pointwise(\n    size_hints=%s, \n    filename=__file__,\n"
        "    triton_meta={'signature': %s, 'device': %s, 'constants': {}, "
        "'configs': [AttrsDescriptor(divisible_by_16=%s, equal_to_1=())]},\n"
        "    inductor_meta={'autotune_hints': set(), 'kernel_name': '%s', 'mutated_arg_names': %s, "
        "'no_x_dim': False, 'num_load': %d, 'num_reduction': 0, 'backend_hash': '%s', %s},\n"
        "    min_elem_per_thread=0\n)\n"
        % (
            size_hints,
            sig_indexed(params),
            device_props_24(0),
            tup(range(len(params))),
            kernel_name,
            list(mutated),
            num_load,
            backend_hash,
            INDUCTOR_META_TAIL,
        )
    )
    return head + deco + "@triton.jit\n" + def_line("triton_", params, False) + body


# ---- PyTorch 2.6, 2.7 (CUDA and ROCm), 2.8


class Device:
    def __init__(self, kind, mp, cc, major, max_threads, warp_size=32):
        self.kind, self.mp, self.cc, self.major, self.max_threads, self.warp_size = (
            kind,
            mp,
            cc,
            major,
            max_threads,
            warp_size,
        )

    def props(self):
        cc = "'%s'" % self.cc if isinstance(self.cc, str) else self.cc
        return (
            "DeviceProperties(type='%s', index=0, multi_processor_count=%d, cc=%s, major=%d, "
            "regs_per_multiprocessor=65536, max_threads_per_multi_processor=%d, warp_size=%d)"
            % (self.kind, self.mp, cc, self.major, self.max_threads, self.warp_size)
        )


RTX4090 = Device("cuda", 128, 89, 8, 1536)
RTX3090 = Device("cuda", 82, 86, 8, 1536)
MI210 = Device("hip", 104, "gfx90a", 9, 2048, 64)
RTX2080TI = Device("cuda", 68, 75, 7, 1024)


def kernel_new(release, device, params, kernel_name, body, backend_hash, num_load, size_hints,
               heuristic="pointwise", reduction_kind=None, num_reduction=0, mutated=(), hip=False):
    """Kernel modules of 2.6 (AttrsDescriptor.from_dict), 2.7 and 2.8 (config
    dicts, 'XBLOCK': 'constexpr' in the signature, grid_type), and of the
    ROCm 2.7-era build (AttrsDescriptor.from_dict with grid_type and is_hip)."""
    attrs_import = release in ("2.6", "rocm")
    head = "\nimport triton\nimport triton.language as tl\n"
    if attrs_import:
        head += "from triton.compiler.compiler import AttrsDescriptor\n"
    head += (
        "\nfrom torch._inductor.runtime import triton_helpers, triton_heuristics\n"
        "from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math\n"
        "from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties\n"
        "triton_helpers.set_driver_to_gpu()\n\n"
    )
    n = len(params)
    if attrs_import:
        configs = "[AttrsDescriptor.from_dict({'arg_properties': {'tt.divisibility': %s, 'tt.equal_to': ()}, 'cls': 'AttrsDescriptor'})]" % tup(range(n))
        signature = sig_named(params)
    else:
        configs = "[{" + ", ".join("(%d,): [['tt.divisibility', 16]]" % i for i in range(n)) + "}]"
        signature = sig_named(params, ("XBLOCK",))
    meta = "'autotune_hints': set(), 'kernel_name': '%s', 'mutated_arg_names': %s, 'optimize_mem': True, 'no_x_dim': False, 'num_load': %d, 'num_reduction': %d, 'backend_hash': '%s', %s" % (
        kernel_name,
        list(mutated),
        num_load,
        num_reduction,
        backend_hash,
        INDUCTOR_META_TAIL,
    )
    if release != "2.6":
        meta = "'grid_type': 'Grid1D', " + meta
    if hip:
        meta += ", 'is_hip': True"
    if reduction_kind:
        deco = "@triton_heuristics.%s(\n    size_hints=%s,\n    reduction_hint=ReductionHint.INNER,\n" % (reduction_kind, size_hints)
    else:
        deco = "@triton_heuristics.%s(\n    size_hints=%s, \n" % (heuristic, size_hints)
    deco += "    filename=__file__,\n    triton_meta={'signature': %s, 'device': %s, 'constants': {}, 'configs': %s},\n" % (
        signature,
        device.props(),
        configs,
    )
    deco += "    inductor_meta={%s}" % meta
    deco += "\n)\n" if reduction_kind else ",\n    min_elem_per_thread=0\n)\n"
    names = ", ".join(p for p, _ in params)
    if reduction_kind == "reduction":
        tail = "XBLOCK : tl.constexpr, RBLOCK : tl.constexpr"
    else:
        tail = "XBLOCK : tl.constexpr"
    return head + deco + "@triton.jit\ndef %s(%s, %s):\n" % (kernel_name, names, tail) + body


# ---------------------------------------------------------------------------
# Wrapper modules (the graph's `call`), per release

HEADER_20 = """
from ctypes import c_void_p, c_long
import torch
import math
import random
from torch import empty_strided, as_strided, device
from torch._inductor.codecache import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels

aten = torch.ops.aten
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
async_compile = AsyncCompile()

import triton
import triton.language as tl
from torch._inductor.triton_ops.autotune import grid
from torch._C import _cuda_getCurrentRawStream as get_cuda_stream

"""

HEADER_21 = """
from ctypes import c_void_p, c_long
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile

from torch import empty_strided, device
from torch._inductor.codecache import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels

aten = torch.ops.aten
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
reinterpret_tensor = torch.ops.inductor._reinterpret_tensor
async_compile = AsyncCompile()

"""

HEADER_23 = """
from ctypes import c_void_p, c_long
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align

from torch import device, empty_strided
from torch._inductor.codecache import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
from torch._inductor.codegen.multi_kernel import MultiKernelCall

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
alloc_from_pool = torch.ops.inductor._alloc_from_pool
reinterpret_tensor = torch.ops.inductor._reinterpret_tensor
async_compile = AsyncCompile()

"""

HEADER_24 = """# AOT ID: ['<<aot_id>>']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
from torch._inductor.codegen.multi_kernel import MultiKernelCall
<<triton_imports>>
aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
<<p2p>>

"""

TRITON_IMPORTS = {
    "2.4": "import triton\nimport triton.language as tl\n"
    "from torch._inductor.runtime.triton_heuristics import grid, split_scan_grid, grid_combo_kernels, start_graph, end_graph\n"
    "from torch._C import _cuda_getCurrentRawStream as get_raw_stream\n",
    "2.6": "import triton\nimport triton.language as tl\n"
    "from torch._inductor.runtime.triton_heuristics import (\n    grid,\n    split_scan_grid,\n    grid_combo_kernels,\n"
    "    start_graph,\n    end_graph,\n    cooperative_reduction_grid,\n)\n"
    "from torch._C import _cuda_getCurrentRawStream as get_raw_stream\n"
    "from torch._C import _cuda_getCurrentRawStream as get_raw_stream\n",
    "2.7": "import triton\nimport triton.language as tl\n"
    "from torch._inductor.runtime.triton_heuristics import start_graph, end_graph\n"
    "from torch._C import _cuda_getCurrentRawStream as get_raw_stream\n"
    "from torch._C import _cuda_getCurrentRawStream as get_raw_stream\n",
}

FOOTER_BENCH = """

if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    compiled_module_main('None', benchmark_compiled_module)
"""


def header_new(release, aot_id):
    """The header of a wrapper of 2.4 on (`# AOT ID` first, no leading newline)."""
    text = fill(
        HEADER_24,
        aot_id=aot_id,
        triton_imports=TRITON_IMPORTS["2.4" if release == "2.4" else "2.6" if release == "2.6" else "2.7"],
        p2p="" if release == "2.4" else "empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p\n",
    )
    if release in ("2.7", "2.8"):
        text = text.replace("from math import inf, nan\n", "from math import inf, nan\nfrom cmath import nanj\n")
    return text


def kernel_block_new(module_path, nodes, aten_ops, mapping, fragment, var, name_arg, source, device_str=True):
    """# kernel path / Topologically Sorted Source Nodes / mapping / fragment, then the call."""
    lines = [
        "# kernel path: %s" % module_path,
        "# Topologically Sorted Source Nodes: [%s], Original ATen: [%s]" % (", ".join(nodes), ", ".join(aten_ops)),
        "# Source node to ATen node mapping:",
    ]
    lines += ["#   %s" % m for m in mapping]
    lines.append("# Graph fragment:")
    lines += ["#   %s" % f for f in fragment]
    tail = ", device_str='cuda')" if device_str else ")"
    return "\n".join(lines) + "\n%s = async_compile.triton('%s', '''%s'''%s\n" % (var, name_arg, source, tail)


def benchmark_new(args):
    """def benchmark_compiled_module: `args` is [(name, 'rand_strided(...)' or '8')]."""
    lines = [
        "def benchmark_compiled_module(times=10, repeat=10):",
        "    from torch._dynamo.testing import rand_strided",
        "    from torch._inductor.utils import print_performance",
    ]
    lines += ["    %s = %s" % (n, v) for n, v in args]
    lines.append("    fn = lambda: call([%s])" % ", ".join(n for n, _ in args))
    lines.append("    return print_performance(fn, times=times, repeat=repeat)")
    return "\n".join(lines) + "\n"


def rand(shape, stride, device="cuda:0", dtype="torch.float32"):
    return "rand_strided(%s, %s, device='%s', dtype=%s)" % (shape, stride, device, dtype)


def shape_text(dims):
    return "(%s, )" % dims[0] if len(dims) == 1 else "(" + ", ".join(str(d) for d in dims) + ")"


# ---------------------------------------------------------------------------
# FX graph entries


def metrics(kernels, nodes, nbytes):
    return make(
        CachedMetricsDeltas,
        generated_kernel_count=kernels,
        generated_cpp_vec_kernel_count=0,
        ir_nodes_pre_fusion=nodes,
        cpp_to_dtype_count=0,
        num_bytes_accessed=nbytes,
        num_matches_for_scatter_upon_const_tensor=0,
    )


def linemap(line, source_line):
    return [(line, '  File "/home/user/model.py", line %d, in forward\n    %s\n' % (source_line, "y = x + 1"))]


def line_of(text, needle):
    return text[: text.index(needle)].count("\n") + 1


def fx_kwargs(release, role, static_idxs, boxed):
    backward = role == "backward"
    inference = role == "inference"
    cudagraphs = make(BoxedBool, value=False)
    if release == "2.4":
        return {
            "cudagraphs": cudagraphs,
            "static_input_idxs": static_idxs,
            "is_backward": backward,
            "graph_id": 0,
            "cpp_wrapper": False,
            "aot_mode": False,
            "is_inference": inference,
            "user_visible_outputs": {} if backward else {"mul": None},
            "layout_opt": None,
            "extern_node_serializer": None,
        }
    if backward:  # 2.7's order for a backward graph
        return {
            "static_input_idxs": static_idxs,
            "cudagraphs": cudagraphs,
            "is_backward": True,
            "graph_id": 0,
            "boxed_forward_device_index": boxed,
            "cpp_wrapper": False,
            "is_inference": False,
            "layout_opt": None,
            "extern_node_serializer": None,
        }
    kwargs = {
        "static_input_idxs": static_idxs,
        "cudagraphs": cudagraphs,
        "graph_id": 0,
        "is_inference": inference,
        "boxed_forward_device_index": boxed,
        "is_backward": False,
        "cpp_wrapper": False,
    }
    if release == "2.6":
        kwargs["aot_mode"] = False
    kwargs["layout_opt"] = None
    kwargs["extern_node_serializer"] = None
    return kwargs


def fx_entry(release, key, wrapper_key, source, role, output_strides, inputs_to_check, kernels=(),
             static_idxs=(), guards_expr=None, counter=None, metrics_args=(1, 2, 16384), time_ns=123456789,
             linemap_entries=None, extra_28=None, device_types=("cuda",)):
    """The pickled CompiledFxGraph of `release` ("2.4", "2.6", "2.7", "2.8")."""
    boxed = make(BoxedDeviceIndex, value=None)
    sets = OrderedSet if release in ("2.7", "2.8") else set
    fields = {"current_callable": None}
    if release == "2.8":
        fields["compiled_fn_runner"] = None
        fields["recursively_apply_fns"] = None
    fields["cache_key"] = wrapper_key
    fields["source_code"] = source
    if release == "2.8":
        fields["runnable_graph_str"] = extra_28["runnable_graph_str"]
        fields["inductor_post_grad_graph_str"] = extra_28["inductor_post_grad_graph_str"]
    fields["cache_linemap"] = linemap_entries if linemap_entries is not None else []
    fields["device_types"] = sets(device_types)
    fields["device_idxs"] = sets([0])
    fields["mutated_inputs"] = sets()
    fields["mutated_input_idxs"] = sets()
    if release == "2.6":
        fields["allocated_constant_name"] = None
    fields["constants"] = {}
    if release in ("2.7", "2.8"):
        fields["frozen_param_names"] = {}
    fields["torchbind_constants"] = {}
    fields["output_strides"] = list(output_strides)
    fields["disabled_cudagraphs_reason"] = None
    fields["metrics_deltas"] = metrics(*metrics_args)
    fields["counter_deltas"] = collections.Counter(counter or {})
    fields["guards_expr"] = guards_expr
    fields["cudagraph_info"] = None
    if release == "2.8":
        fields["partition_maps"] = None
    fields["fx_kwargs"] = fx_kwargs(release, role, list(static_idxs), boxed)
    fields["inputs_to_check"] = list(inputs_to_check)
    if release != "2.8":
        fields["boxed_forward_device_index"] = boxed
    if release != "2.4":
        fields["_boxed_call"] = True
    fields["_time_taken_ns"] = time_ns
    if release != "2.4":
        fields["_fx_graph_cache_key"] = key
    if release == "2.8":
        fields["_fx_graph_cache_debug_lines"] = extra_28["debug_lines"]
        fields["_triton_bundle"] = make(
            TritonBundle, kernel_artifacts=[bundle_entry(k) for k in kernels], static_autotuners=[]
        )
    elif release != "2.4":
        fields["_triton_bundle"] = [bundle_entry(k) for k in kernels]
    cls = CompiledFxGraph24 if release == "2.4" else CompiledFxGraph
    return dumps(make(cls, **fields))


def write_fx_entry(tree, inductor_rel, key, data):
    """fxgraph/<key[1:3]>/<key>/<sha256_hash of the bytes>."""
    return tree.write("%s/fxgraph/%s/%s/%s" % (inductor_rel, key[1:3], key, sha256_hash(data)), data)


def write_module(tree, inductor_rel, name, text):
    return tree.write("%s/%s/%s.py" % (inductor_rel, name[1:3], name), text)


# ---------------------------------------------------------------------------
# 1. PyTorch 2.0


def make_torch20(tree):
    root = "torchinductor_user"
    add_params = [("in_ptr0", "*fp32"), ("in_ptr1", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
    sum_params = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32"), ("rnumel", "i32")]
    for device in (0, 1):
        add = kernel_20(add_params, "pointwise", "[8192]", device, body_add(8192))
        write_module(tree, root, as_written_name(add), add)
        kernels = [("triton__0", add)]
        launches = [
            "        buf0 = empty_strided((64, 128), (128, 1), device='cuda', dtype=torch.float32)",
            "        stream%d = get_cuda_stream(%d)" % (device, device),
            "        triton__0.run(arg0_1, arg1_1, buf0, 8192, grid=grid(8192), stream=stream%d)" % device,
            "        del arg0_1",
            "        del arg1_1",
        ]
        outputs = "buf0, "
        if device == 0:
            total = kernel_20(sum_params, "reduction", "[64, 128]", 0, body_sum_loop(64, 128), reduction=True)
            write_module(tree, root, as_written_name(total), total)
            kernels.append(("triton__1", total))
            launches += [
                "        buf1 = empty_strided((64, ), (1, ), device='cuda', dtype=torch.float32)",
                "        triton__1.run(buf0, buf1, 64, 128, grid=grid(64), stream=stream0)",
            ]
            outputs = "buf0, buf1, "
        text = HEADER_20
        for var, source in kernels:
            text += "\n%s = async_compile.triton('''%s''')\n\n" % (var, source)
        text += "\nasync_compile.wait(globals())\ndel async_compile\n\ndef call(args):\n"
        text += "    arg0_1, arg1_1 = args\n    args.clear()\n"
        text += "    with torch.cuda._DeviceGuard(%d):\n" % device
        text += "        torch.cuda.set_device(%d) # no-op to ensure context\n" % device
        text += "\n".join(launches) + "\n        return (%s)\n\n\n" % outputs
        text += 'if __name__ == "__main__":\n'
        text += "    from torch._dynamo.testing import rand_strided\n    from torch._inductor.utils import print_performance\n"
        for arg in ("arg0_1", "arg1_1"):
            text += "    %s = %s\n" % (arg, rand("(64, 128)", "(128, 1)", "cuda:%d" % device))
        text += "    print_performance(lambda: call([arg0_1, arg1_1]))\n"
        write_module(tree, root, as_written_name(text), text)


# ---------------------------------------------------------------------------
# 2. PyTorch 2.1, CUDA


def make_torch21_cuda(tree):
    root = "torchinductor_user"
    relu_params = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
    sum_params = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32"), ("rnumel", "i32")]
    relu = kernel_21(relu_params, "pointwise", "[4096]", "triton_poi_fused_relu_0", body_relu(4096), div8=(2,))
    total = kernel_21(
        sum_params,
        "reduction",
        "[64, 64]",
        "triton_red_fused_relu_sum_1",
        body_sum_loop(64, 64),
        div8=(2, 3),
        reduction=True,
    )
    relu_name, sum_name = as_written_name(relu), as_written_name(total)
    write_module(tree, root, relu_name, relu)
    write_module(tree, root, sum_name, total)
    text = HEADER_21
    text += "\n# kernel path: %s/%s/%s.py\n# Source Nodes: [relu], Original ATen: [aten.relu]\n# relu => relu\n" % (
        TMP,
        relu_name[1:3],
        relu_name,
    )
    text += "triton_poi_fused_relu_0 = async_compile.triton('triton_', '''%s''')\n\n" % relu
    text += (
        "import triton\nimport triton.language as tl\n"
        "from torch._inductor.triton_heuristics import grid, start_graph, end_graph\n"
        "from torch._C import _cuda_getCurrentRawStream as get_cuda_stream\n\n"
    )
    text += "\n# kernel path: %s/%s/%s.py\n# Source Nodes: [relu, sum_1], Original ATen: [aten.relu, aten.sum]\n# sum_1 => sum_1\n" % (
        TMP,
        sum_name[1:3],
        sum_name,
    )
    text += "triton_red_fused_relu_sum_1 = async_compile.triton('triton_', '''%s''')\n\n" % total
    text += "\nasync_compile.wait(globals())\ndel async_compile\n\n"
    text += (
        "def call(args):\n"
        "    primals_1, = args\n"
        "    args.clear()\n"
        "    assert_size_stride(primals_1, (64, 64), (64, 1))\n"
        "    with torch.cuda._DeviceGuard(0):\n"
        "        torch.cuda.set_device(0) # no-op to ensure context\n"
        "        buf0 = empty_strided((64, 64), (64, 1), device='cuda', dtype=torch.float32)\n"
        "        # Source Nodes: [relu], Original ATen: [aten.relu]\n"
        "        stream0 = get_cuda_stream(0)\n"
        "        triton_poi_fused_relu_0.run(primals_1, buf0, 4096, grid=grid(4096), stream=stream0)\n"
        "        del primals_1\n"
        "        buf1 = empty_strided((64, ), (1, ), device='cuda', dtype=torch.float32)\n"
        "        # Source Nodes: [sum_1], Original ATen: [aten.sum]\n"
        "        triton_red_fused_relu_sum_1.run(buf0, buf1, 64, 64, grid=grid(64), stream=stream0)\n"
        "        return (buf1, buf0, )\n\n\n"
        "def benchmark_compiled_module(times=10, repeat=10):\n"
        "    from torch._dynamo.testing import rand_strided\n"
        "    from torch._inductor.utils import print_performance\n"
        "    primals_1 = %s\n"
        "    return print_performance(lambda: call([primals_1]), times=times, repeat=repeat)\n" % rand("(64, 64)", "(64, 1)")
    )
    text += FOOTER_BENCH
    write_module(tree, root, as_written_name(text), text)
    # best_config beside the kernel module, same name (2.1 to 2.5)
    tree.write(
        "%s/%s/%s.best_config" % (root, relu_name[1:3], relu_name),
        json.dumps({"XBLOCK": 256, "num_warps": 4, "num_stages": 1, "configs_hash": hex64("21 pointwise configs"), "found_by_coordesc": False}),
    )
    # Triton 2.1: md5 dirs, files named triton_.*, a launcher .so per kernel, one cuda_utils.so
    relu_k = triton_kernel("2.1", "triton__0d1d2de", relu_params, None, None, "21 relu", 86, constants={"3": 256})
    sum_k = triton_kernel("2.1", "triton__0d1d2de3de", sum_params, None, None, "21 sum", 86, num_warps=2, constants={"4": 1, "5": 64})
    for k in (relu_k, sum_k):
        write_triton(tree, root + "/triton/0", k)
    tree.write("%s/triton/0/%s/triton_.so" % (root, md5_hex("21 relu launcher")), fake_elf(X86_64, "launcher .so"))
    tree.write("%s/triton/0/%s/cuda_utils.so" % (root, md5_hex("21 cuda_utils")), fake_elf(X86_64, "cuda_utils.so"))
    digest, text = benchmark_cache(
        "NVIDIA GeForce RTX 3060",
        {"cuda": "12.1", "triton": "2.1.0"},
        {"allow_tf32": False},
        {
            "((torch.Size([64, 1]), (1, 64), torch.float32), (torch.Size([1, 64]), (64, 1), torch.float32), <OpOverloadPacket(op='aten.mm')>, None, False)": False,
        },
    )
    tree.write("%s/cache/%s" % (root, digest), text)


# ---------------------------------------------------------------------------
# 3. PyTorch 2.1, CPU

CPP_COMMAND_21 = repr(
    "g++ i -shared -fPIC -Wall -std=c++17 -Wno-unused-variable -Wno-unknown-pragmas -D_GLIBCXX_USE_CXX11_ABI=0 "
    "-I/usr/lib/python3/dist-packages/torch/include -I/usr/include/python3.10 -lgomp -lc10 -ltorch -ltorch_cpu "
    "-mavx2 -mfma -DCPU_CAPABILITY_AVX2 -O3 -ffast-math -fno-finite-math-only -fno-unsafe-math-optimizations "
    "-march=native -fopenmp -D C10_USING_CUSTOM_GENERATED_MACROS -o o"
)

CPP_PREFIX_21 = """#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <omp.h>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

typedef at::Half half;
typedef at::BFloat16 bfloat16;
"""


def make_torch21_cpu(tree):
    root = "torchinductor_user"
    header_name = as_written_name(CPP_PREFIX_21)
    tree.write("%s/%s/%s.h" % (root, header_name[1:3], header_name), CPP_PREFIX_21)
    kernels = []
    for index, (label, op, extra) in enumerate(
        (("relu", "std::max(tmp0, decltype(tmp0)(0))", ""), ("add", "tmp0 + tmp1", "in_ptr1"))
    ):
        params = ["const float* in_ptr0"] + (["const float* in_ptr1"] if extra else []) + ["float* out_ptr0"]
        sig = (",\n" + " " * 23).join(params)
        loads = "                auto tmp0 = in_ptr0[static_cast<long>(i0)];\n"
        if extra:
            loads += "                auto tmp1 = in_ptr1[static_cast<long>(i0)];\n"
        source = fill(
            '\n#include "<<inc>>"\nextern "C" void kernel(<<sig>>)\n{\n    #pragma omp parallel num_threads(8)\n    {\n'
            "        {\n            #pragma omp for \n"
            "            for(long i0=static_cast<long>(0L); i0<static_cast<long>(4096L); i0+=static_cast<long>(1L))\n"
            "            {\n<<loads>>                auto tmp2 = <<op>>;\n"
            "                out_ptr0[static_cast<long>(i0)] = tmp2;\n            }\n        }\n    }\n}\n",
            inc="%s/%s/%s.h" % (TMP, header_name[1:3], header_name),
            sig=sig,
            loads=loads,
            op=op,
        )
        name = cpp_name(source, CPP_COMMAND_21)
        tree.write("%s/%s/%s.cpp" % (root, name[1:3], name), source)
        tree.write("%s/locks/%s.lock" % (root, name), b"")
        kernels.append(("cpp_fused_%s_%d" % (label, index), source, bool(extra)))
    text = HEADER_21
    for var, source, _ in kernels:
        text += "\n%s = async_compile.cpp('''%s''')\n\n" % (var, source)
    text += "\nasync_compile.wait(globals())\ndel async_compile\n\n"
    text += (
        "def call(args):\n"
        "    arg0_1, arg1_1 = args\n"
        "    args.clear()\n"
        "    assert_size_stride(arg0_1, (64, 64), (64, 1))\n"
        "    assert_size_stride(arg1_1, (64, 64), (64, 1))\n"
        "    buf0 = empty_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)\n"
        "    cpp_fused_relu_0(c_void_p(arg0_1.data_ptr()), c_void_p(buf0.data_ptr()))\n"
        "    del arg0_1\n"
        "    buf1 = empty_strided((64, 64), (64, 1), device='cpu', dtype=torch.float32)\n"
        "    cpp_fused_add_1(c_void_p(buf0.data_ptr()), c_void_p(arg1_1.data_ptr()), c_void_p(buf1.data_ptr()))\n"
        "    del arg1_1\n"
        "    return (buf1, )\n\n\n"
        "def benchmark_compiled_module(times=10, repeat=10):\n"
        "    from torch._dynamo.testing import rand_strided\n"
        "    from torch._inductor.utils import print_performance\n"
        "    arg0_1 = %s\n"
        "    arg1_1 = %s\n"
        "    return print_performance(lambda: call([arg0_1, arg1_1]), times=times, repeat=repeat)\n"
        % (rand("(64, 64)", "(64, 1)", "cpu"), rand("(64, 64)", "(64, 1)", "cpu"))
    )
    text += FOOTER_BENCH
    write_module(tree, root, as_written_name(text), text)


# ---------------------------------------------------------------------------
# 4. PyTorch 2.3, dynamic shapes


def make_torch23(tree):
    root = "torchinductor_user"
    params = [("in_ptr0", "*fp32"), ("in_ptr1", "*fp32"), ("out_ptr0", "*fp32"), ("ks0", "i32"), ("xnumel", "i32")]
    body = (
        "    xoffset = tl.program_id(0) * XBLOCK\n"
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:]\n"
        "    xmask = xindex < xnumel\n"
        "    x2 = xindex\n"
        "    x1 = (xindex // ks0)\n"
        "    tmp0 = tl.load(in_ptr0 + (x2), xmask)\n"
        "    tmp1 = tl.load(in_ptr1 + (x1), xmask, eviction_policy='evict_last')\n"
        "    tmp2 = tmp0 + tmp1\n"
        "    tl.store(out_ptr0 + (x2), tmp2, xmask)\n"
    )
    backend_hash = hex64("23 backend")
    kernel = kernel_23(params, "[128]", "triton_poi_fused_add_0", body, (0, 1, 2), backend_hash)
    kname = stripped_name(kernel)
    write_module(tree, root, kname, kernel)
    text = HEADER_23
    text += "\n# kernel path: %s/%s/%s.py\n# Source Nodes: [add], Original ATen: [aten.add]\n# add => add\n" % (TMP, kname[1:3], kname)
    text += "triton_poi_fused_add_0 = async_compile.triton('triton_', '''%s''', device_str='cuda')\n\n" % kernel
    text += (
        "import triton\nimport triton.language as tl\n"
        "from torch._inductor.triton_heuristics import grid, split_scan_grid, start_graph, end_graph\n"
        "from torch._C import _cuda_getCurrentRawStream as get_raw_stream\n\n"
    )
    text += "\nasync_compile.wait(globals())\ndel async_compile\n\n"
    text += (
        "def call(args):\n"
        "    arg0_1, arg1_1, arg2_1 = args\n"
        "    args.clear()\n"
        "    s0 = arg0_1\n"
        "    assert_size_stride(arg1_1, (16, s0), (s0, 1))\n"
        "    assert_size_stride(arg2_1, (16, ), (1, ))\n"
        "    with torch.cuda._DeviceGuard(0):\n"
        "        torch.cuda.set_device(0)\n"
        "        buf0 = empty_strided_cuda((16, s0), (s0, 1), torch.float32)\n"
        "        # Source Nodes: [add], Original ATen: [aten.add]\n"
        "        triton_poi_fused_add_0_xnumel = 16*s0\n"
        "        stream0 = get_raw_stream(0)\n"
        "        triton_poi_fused_add_0.run(arg1_1, arg2_1, buf0, s0, triton_poi_fused_add_0_xnumel, "
        "grid=grid(triton_poi_fused_add_0_xnumel), stream=stream0)\n"
        "        del arg1_1\n"
        "        del arg2_1\n"
        "    return (buf0, )\n\n\n"
    )
    text += benchmark_new([("arg0_1", "8"), ("arg1_1", rand("(16, 8)", "(8, 1)")), ("arg2_1", rand("(16, )", "(1, )"))])
    text += FOOTER_BENCH
    write_module(tree, root, stripped_name(text), text)
    tree.write(
        "%s/%s/%s.best_config" % (root, kname[1:3], kname),
        json.dumps({"XBLOCK": 128, "num_warps": 4, "num_stages": 1, "configs_hash": hex64("23 configs"), "found_by_coordesc": False}),
    )
    k = triton_kernel("2.3", "triton__0d1d2d34", params, None, None, "23 add", 89)
    write_triton(tree, root + "/triton/0", k)
    tree.write("%s/triton/0/%s/triton_.so" % (root, md5_hex("23 launcher")), fake_elf(X86_64, "launcher .so"))
    digest, text = benchmark_cache(
        "NVIDIA RTX 6000 Ada Generation",
        {"cuda": "11.8", "triton": "2.3.1"},
        None,
        {
            "((torch.Size([16, 1]), (1, 16), torch.float32), (torch.Size([1, 32]), (32, 1), torch.float32), <OpOverloadPacket(op='aten.mm')>, None, False)": False,
        },
    )
    tree.write("%s/cache/%s" % (root, digest), text)


# ---------------------------------------------------------------------------
# Training graphs shared by 2.4 and 2.7: forward add-then-mul, backward mul


def train_graph_text(release, role, modules, launch_extra="grid", size=(64, 32)):
    """The wrapper of the forward (y = (x + 1) * w) or the backward graph.
    modules: {kernel var: (module path, source)}."""
    rows, cols = size
    n = rows * cols
    shape, stride = "(%d, %d)" % (rows, cols), "(%d, 1)" % cols
    grid = (lambda numel: ", grid=grid(%d)" % numel) if launch_extra == "grid" else (lambda numel: "")
    name_arg = (lambda var: "triton_") if release == "2.4" else (lambda var: var)
    text = header_new(release, "0_%s" % role)
    if role == "forward":
        add_path, add_src = modules["triton_poi_fused_add_0"]
        mul_path, mul_src = modules["triton_poi_fused_mul_1"]
        text += kernel_block_new(
            add_path, ["add"], ["aten.add"], ["add => add"],
            ["%add : [num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_1, 1), kwargs = {})"],
            "triton_poi_fused_add_0", name_arg("triton_poi_fused_add_0"), add_src,
        )  # fmt: skip
        text += "\n\n"
        text += kernel_block_new(
            mul_path, ["mul"], ["aten.mul"], ["mul => mul"],
            ["%mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add, %primals_2), kwargs = {})"],
            "triton_poi_fused_mul_1", name_arg("triton_poi_fused_mul_1"), mul_src,
        )  # fmt: skip
        call = fill(
            "def call(args):\n"
            "    primals_1, primals_2 = args\n"
            "    args.clear()\n"
            "    assert_size_stride(primals_1, <<shape>>, <<stride>>)\n"
            "    assert_size_stride(primals_2, <<shape>>, <<stride>>)\n"
            "    with torch.cuda._DeviceGuard(0):\n"
            "        torch.cuda.set_device(0)\n"
            "        buf0 = empty_strided_cuda(<<shape>>, <<stride>>, torch.float32)\n"
            "        # Topologically Sorted Source Nodes: [add], Original ATen: [aten.add]\n"
            "        stream0 = get_raw_stream(0)\n"
            "        triton_poi_fused_add_0.run(primals_1, buf0, <<n>><<grid>>, stream=stream0)\n"
            "        del primals_1\n"
            "        buf1 = empty_strided_cuda(<<shape>>, <<stride>>, torch.float32)\n"
            "        # Topologically Sorted Source Nodes: [mul], Original ATen: [aten.mul]\n"
            "        stream0 = get_raw_stream(0)\n"
            "        triton_poi_fused_mul_1.run(buf0, primals_2, buf1, <<n>><<grid>>, stream=stream0)\n"
            "    return (buf1, primals_2, )\n",
            shape=shape, stride=stride, n=n, grid=grid(n),
        )  # fmt: skip
        args = [("primals_1", rand(shape, stride)), ("primals_2", rand(shape, stride))]
    else:
        path, src = modules["triton_poi_fused_mul_0"]
        text += kernel_block_new(
            path, [], ["aten.mul"], [],
            ["%mul_2 : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%tangents_1, %primals_2), kwargs = {})"],
            "triton_poi_fused_mul_0", name_arg("triton_poi_fused_mul_0"), src,
        )  # fmt: skip
        call = fill(
            "def call(args):\n"
            "    primals_2, tangents_1 = args\n"
            "    args.clear()\n"
            "    assert_size_stride(primals_2, <<shape>>, <<stride>>)\n"
            "    assert_size_stride(tangents_1, <<shape>>, <<stride>>)\n"
            "    with torch.cuda._DeviceGuard(0):\n"
            "        torch.cuda.set_device(0)\n"
            "        buf0 = empty_strided_cuda(<<shape>>, <<stride>>, torch.float32)\n"
            "        # Topologically Sorted Source Nodes: [], Original ATen: [aten.mul]\n"
            "        stream0 = get_raw_stream(0)\n"
            "        triton_poi_fused_mul_0.run(tangents_1, primals_2, buf0, <<n>><<grid>>, stream=stream0)\n"
            "        del primals_2\n"
            "        del tangents_1\n"
            "    return (buf0, None, )\n",
            shape=shape, stride=stride, n=n, grid=grid(n),
        )  # fmt: skip
        args = [("primals_2", rand(shape, stride)), ("tangents_1", rand(shape, stride))]
    text += "\n\nasync_compile.wait(globals())\ndel async_compile\n\n" + call + "\n\n" + benchmark_new(args) + FOOTER_BENCH
    return text


# ---------------------------------------------------------------------------
# 5. PyTorch 2.4


def make_torch24(tree):
    root = "torchinductor_user"
    n = 64 * 32
    bh = hex64("24 backend").upper()
    p1 = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
    p2 = [("in_ptr0", "*fp32"), ("in_ptr1", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
    sources = {
        "triton_poi_fused_add_0": (p1, kernel_24(p1, "[2048]", "triton_poi_fused_add_0", body_add(n, False, "1.0"), bh, 1)),
        "triton_poi_fused_mul_1": (p2, kernel_24(p2, "[2048]", "triton_poi_fused_mul_1", body_mul(n, False), bh, 2)),
        "triton_poi_fused_mul_0": (p2, kernel_24(p2, "[2048]", "triton_poi_fused_mul_0", body_mul(n, False), bh, 2)),
    }
    paths = {}
    for var, (params, src) in sources.items():
        name = stripped_name(src)
        write_module(tree, root, name, src)
        paths[var] = "%s/%s/%s.py" % (TMP, name[1:3], name)
        tree.write(
            "%s/%s/%s.best_config" % (root, name[1:3], name),
            json.dumps({"XBLOCK": 1024, "num_warps": 4, "num_stages": 1, "configs_hash": hex64("24 configs"), "found_by_coordesc": False, "time_taken_ms": 31}),
        )
        k = triton_kernel("3.0", "triton_", params, paths[var], TMP + "/triton/0", "24 " + var, 80)
        write_triton(tree, root + "/triton/0", k)
    tree.write("%s/triton/0/%s/__triton_launcher.so" % (root, hex64("24 launcher")), fake_elf(X86_64, "launcher .so"))
    modules = {var: (paths[var], sources[var][1]) for var in sources}
    entries = []
    for role, key_seed, strides, check, static, counter in (
        ("forward", "24 forward", [("32", "1"), ("32", "1")], [0], [], {"extern_calls": 0}),
        ("backward", "24 backward", [("32", "1"), None], [], [], {"extern_calls": 0}),
    ):
        text = train_graph_text("2.4", role, modules)
        wrapper = stripped_name(text)
        write_module(tree, root, wrapper, text)
        key = fake_key("f", key_seed)
        data = fx_entry(
            "2.4", key, wrapper, text, role, strides, check, static_idxs=static, counter=counter,
            metrics_args=(2 if role == "forward" else 1, 4, 3 * n * 4), time_ns=2208175287 if role == "forward" else 3190448871,
            linemap_entries=linemap(line_of(text, ".run("), 7),
        )  # fmt: skip
        write_fx_entry(tree, root, key, data)
        entries.append(role)
    return entries


# ---------------------------------------------------------------------------
# 6. PyTorch 2.6


def inference_graph_text(release, aot_id, kernels, call_body, args):
    """A wrapper of an inference graph: kernels = [(var, module path, source, block comments)]."""
    text = header_new(release, aot_id)
    blocks = []
    for var, path, source, (nodes, aten, mapping, fragment) in kernels:
        blocks.append(kernel_block_new(path, nodes, aten, mapping, fragment, var, var, source))
    text += "\n\n".join(blocks)
    text += "\n\nasync_compile.wait(globals())\ndel async_compile\n\n" + call_body + "\n\n" + benchmark_new(args) + FOOTER_BENCH
    return text


def make_torch26(tree):
    root = "torchinductor_user"
    bh = hex64("26 backend").upper()
    cache_path = TMP + "/triton/0"
    results = []

    def add_graph(aot_id, rows, key_seed, time_ns):
        n = rows * 32
        params = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
        src = kernel_new("2.6", RTX4090, params, "triton_poi_fused_add_0", body_add(n, False, "1.0"), bh, 1, "{'x': %d}" % n)
        name = stripped_name(src)
        write_module(tree, root, name, src)
        path = "%s/%s/%s.py" % (TMP, name[1:3], name)
        kernel = triton_kernel("3.2", "triton_poi_fused_add_0", params, path, cache_path, "26 add %d" % rows, 89)
        write_triton(tree, root + "/triton/0", kernel)
        tree.write(
            "%s/%s/%s" % (root, name[1:3], best_config_name(name)),
            json.dumps({"XBLOCK": 1024, "num_warps": 4, "num_stages": 1, "configs_hash": hex64("26 configs"), "found_by_coordesc": False, "time_taken_ms": 41}),
        )
        shape, stride = "(%d, 32)" % rows, "(32, 1)"
        call = fill(
            "def call(args):\n"
            "    arg0_1, = args\n"
            "    args.clear()\n"
            "    assert_size_stride(arg0_1, <<shape>>, <<stride>>)\n"
            "    with torch.cuda._DeviceGuard(0):\n"
            "        torch.cuda.set_device(0)\n"
            "        buf0 = empty_strided_cuda(<<shape>>, <<stride>>, torch.float32)\n"
            "        # Topologically Sorted Source Nodes: [add], Original ATen: [aten.add]\n"
            "        stream0 = get_raw_stream(0)\n"
            "        triton_poi_fused_add_0.run(arg0_1, buf0, <<n>>, grid=grid(<<n>>), stream=stream0)\n"
            "        del arg0_1\n"
            "    return (buf0, )\n",
            shape=shape, stride=stride, n=n,
        )  # fmt: skip
        comments = (
            ["add"], ["aten.add"], ["add => add"],
            ["%add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%arg0_1, 1), kwargs = {})"],
        )  # fmt: skip
        text = inference_graph_text("2.6", aot_id, [("triton_poi_fused_add_0", path, src, comments)], call, [("arg0_1", rand(shape, stride))])
        wrapper = stripped_name(text)
        write_module(tree, root, wrapper, text)
        key = fake_key("f", key_seed)
        data = fx_entry(
            "2.6", key, wrapper, text, "inference", [("32", "1")], [0], kernels=[kernel], static_idxs=[],
            metrics_args=(1, 2, 2 * n * 4), time_ns=time_ns, linemap_entries=linemap(line_of(text, ".run("), 9),
        )  # fmt: skip
        write_fx_entry(tree, root, key, data)
        results.append(("inference", 1))

    add_graph("0_inference", 64, "26 add 64x32", 1133019611)
    add_graph("1_inference", 128, "26 add 128x32", 1087331204)

    # another graph: a row sum
    params = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32"), ("rnumel", "i32")]
    body = body_sum_loop(64, 512, "tl.full([XBLOCK, RBLOCK], 0, tl.float32)", where_old=False)
    src = kernel_new("2.6", RTX4090, params, "triton_red_fused_sum_0", body, bh, 1, "{'x': 64, 'r': 512}",
                     reduction_kind="reduction", num_reduction=1)  # fmt: skip
    name = stripped_name(src)
    write_module(tree, root, name, src)
    path = "%s/%s/%s.py" % (TMP, name[1:3], name)
    kernel = triton_kernel("3.2", "triton_red_fused_sum_0", params, path, cache_path, "26 sum", 89, num_warps=8)
    write_triton(tree, root + "/triton/0", kernel)
    call = (
        "def call(args):\n"
        "    arg0_1, = args\n"
        "    args.clear()\n"
        "    assert_size_stride(arg0_1, (64, 512), (512, 1))\n"
        "    with torch.cuda._DeviceGuard(0):\n"
        "        torch.cuda.set_device(0)\n"
        "        buf0 = empty_strided_cuda((64, ), (1, ), torch.float32)\n"
        "        # Topologically Sorted Source Nodes: [sum_1], Original ATen: [aten.sum]\n"
        "        stream0 = get_raw_stream(0)\n"
        "        triton_red_fused_sum_0.run(arg0_1, buf0, 64, 512, grid=grid(64), stream=stream0)\n"
        "        del arg0_1\n"
        "    return (buf0, )\n"
    )
    comments = (
        ["sum_1"], ["aten.sum"], ["sum_1 => sum_1"],
        ["%sum_1 : [num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%arg0_1, [1]), kwargs = {})"],
    )  # fmt: skip
    text = inference_graph_text("2.6", "2_inference", [("triton_red_fused_sum_0", path, src, comments)], call,
                                [("arg0_1", rand("(64, 512)", "(512, 1)"))])  # fmt: skip
    wrapper = stripped_name(text)
    write_module(tree, root, wrapper, text)
    key = fake_key("f", "26 sum 64x512")
    data = fx_entry(
        "2.6", key, wrapper, text, "inference", [("1",)], [0], kernels=[kernel], static_idxs=[],
        metrics_args=(1, 2, 64 * 513 * 4), time_ns=1241870332, linemap_entries=linemap(line_of(text, ".run("), 12),
    )  # fmt: skip
    write_fx_entry(tree, root, key, data)
    tree.write("%s/triton/0/%s/__triton_launcher.so" % (root, triton_dir_name(hex64("26 launcher"), "b64")), fake_elf(X86_64, "launcher .so"))
    tree.write("%s/triton/0/%s/cuda_utils.so" % (root, triton_dir_name(hex64("26 cuda_utils"), "b64")), fake_elf(X86_64, "cuda_utils.so"))
    results.append(("inference", 1))
    return results


# ---------------------------------------------------------------------------
# 7. PyTorch 2.7


def make_torch27_entries(tree, root, device, cache_path, module_root_path, seed, triton_form="3.3", hip=False,
                         release="2.7", graphs=("forward", "backward", "inference", "dynamic")):
    """The 2.7 forms (also the ROCm tree's and the mega bundle's): returns
    [(role, key, wrapper name, bytes, kernels)]."""
    bh = hex64(seed + " backend").upper()
    n = 64 * 32
    out = []
    arch = device.cc

    def module(var, params, src, kseed, num_warps=4, best=None):
        name = stripped_name(src)
        write_module(tree, root, name, src)
        path = "%s/%s/%s.py" % (module_root_path, name[1:3], name)
        kernel = triton_kernel(triton_form, var, params, path, cache_path, seed + " " + kseed, arch, num_warps)
        if best is not None:
            tree.write("%s/%s/%s" % (root, name[1:3], best_config_name(name)), json.dumps(best))
        return path, kernel

    def best(x, ms):
        return {"XBLOCK": x, "num_warps": 4, "num_stages": 1, "configs_hash": hex64("27 configs %d" % x), "found_by_coordesc": False, "time_taken_ms": ms}

    p1 = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
    p2 = [("in_ptr0", "*fp32"), ("in_ptr1", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
    kw = dict(hip=hip)
    rel = "rocm" if hip else release

    def new_kernel(params, name, body, num_load, hints, **extra):
        return kernel_new(rel, device, params, name, body, bh, num_load, hints, **kw, **extra)

    if "forward" in graphs or "backward" in graphs:
        add_src = new_kernel(p1, "triton_poi_fused_add_0", body_add(n, False, "1.0"), 1, "{'x': 2048}")
        mul_src = new_kernel(p2, "triton_poi_fused_mul_1", body_mul(n, False), 2, "{'x': 2048}")
        bwd_src = new_kernel(p2, "triton_poi_fused_mul_0", body_mul(n, False), 2, "{'x': 2048}")
        add_path, add_k = module("triton_poi_fused_add_0", p1, add_src, "add", best=best(1024, 14))
        mul_path, mul_k = module("triton_poi_fused_mul_1", p2, mul_src, "mul", best=best(1024, 12))
        bwd_path, bwd_k = module("triton_poi_fused_mul_0", p2, bwd_src, "mul backward", best=best(512, 17))
        modules = {
            "triton_poi_fused_add_0": (add_path, add_src),
            "triton_poi_fused_mul_1": (mul_path, mul_src),
            "triton_poi_fused_mul_0": (bwd_path, bwd_src),
        }
        for role, kernels, strides, check, counter, t in (
            ("forward", [add_k, mul_k], [("32", "1"), ("32", "1")], [0], {"async_compile_cache_miss": 2, "async_compile_cache_hit": 2}, 1280483002),
            ("backward", [bwd_k], [("32", "1"), None], [], {"async_compile_cache_miss": 1, "async_compile_cache_hit": 1}, 920533063),
        ):
            if role not in graphs:
                continue
            text = train_graph_text("2.7", role, modules, launch_extra="none")
            wrapper = stripped_name(text)
            write_module(tree, root, wrapper, text)
            key = fake_key("f", seed + " " + role)
            data = fx_entry(
                "2.7", key, wrapper, text, role, strides, check, kernels=kernels,
                static_idxs=[] if role == "forward" else [0, 1], counter=counter,
                metrics_args=(len(kernels), 4, 3 * n * 4), time_ns=t, linemap_entries=linemap(line_of(text, ".run("), 7),
                device_types=("cuda",),
            )  # fmt: skip
            out.append((role, key, wrapper, data, kernels))

    if "inference" in graphs:
        params = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32"), ("r0_numel", "i32")]
        src = new_kernel(params, "triton_per_fused_sum_0", body_sum_persistent_27(64, 32), 1, "{'x': 64, 'r0_': 32}",
                         reduction_kind="persistent_reduction", num_reduction=1)  # fmt: skip
        path, kernel = module("triton_per_fused_sum_0", params, src, "sum", best={**best(8, 9), "XBLOCK": 8})
        call = (
            "def call(args):\n"
            "    arg0_1, = args\n"
            "    args.clear()\n"
            "    assert_size_stride(arg0_1, (64, 32), (32, 1))\n"
            "    with torch.cuda._DeviceGuard(0):\n"
            "        torch.cuda.set_device(0)\n"
            "        buf0 = empty_strided_cuda((64, ), (1, ), torch.float32)\n"
            "        # Topologically Sorted Source Nodes: [sum_1], Original ATen: [aten.sum]\n"
            "        stream0 = get_raw_stream(0)\n"
            "        triton_per_fused_sum_0.run(arg0_1, buf0, 64, 32, stream=stream0)\n"
            "        del arg0_1\n"
            "    return (buf0, )\n"
        )
        comments = (
            ["sum_1"], ["aten.sum"], ["sum_1 => sum_1"],
            ["%sum_1 : [num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%arg0_1, [1]), kwargs = {})"],
        )  # fmt: skip
        text = inference_graph_text("2.7", "1_inference", [("triton_per_fused_sum_0", path, src, comments)], call,
                                    [("arg0_1", rand("(64, 32)", "(32, 1)"))])  # fmt: skip
        wrapper = stripped_name(text)
        write_module(tree, root, wrapper, text)
        key = fake_key("f", seed + " inference")
        data = fx_entry(
            "2.7", key, wrapper, text, "inference", [("1",)], [0], kernels=[kernel],
            counter={"async_compile_cache_miss": 1}, metrics_args=(1, 2, 64 * 33 * 4), time_ns=871220561,
            linemap_entries=linemap(line_of(text, ".run("), 12),
        )  # fmt: skip
        out.append(("inference", key, wrapper, data, [kernel]))

    if "dynamic" in graphs:
        params = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
        body = body_mul(0, True, const="2.0", dynamic=True)
        src = new_kernel(params, "triton_poi_fused_mul_0", body, 1, "{'x': 128}")
        path, kernel = module("triton_poi_fused_mul_0", params, src, "dynamic mul", best=best(128, 8))
        call = (
            "def call(args):\n"
            "    arg0_1, arg1_1 = args\n"
            "    args.clear()\n"
            "    s0 = arg0_1\n"
            "    assert_size_stride(arg1_1, (s0, 16), (16, 1))\n"
            "    with torch.cuda._DeviceGuard(0):\n"
            "        torch.cuda.set_device(0)\n"
            "        buf0 = empty_strided_cuda((s0, 16), (16, 1), torch.float32)\n"
            "        # Topologically Sorted Source Nodes: [mul], Original ATen: [aten.mul]\n"
            "        triton_poi_fused_mul_0_xnumel = 16*s0\n"
            "        stream0 = get_raw_stream(0)\n"
            "        triton_poi_fused_mul_0.run(arg1_1, buf0, triton_poi_fused_mul_0_xnumel, stream=stream0)\n"
            "        del arg1_1\n"
            "    return (buf0, s0, )\n"
        )
        comments = (
            ["mul"], ["aten.mul"], ["mul => mul"],
            ["%mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%arg1_1, 2), kwargs = {})"],
        )  # fmt: skip
        text = inference_graph_text("2.7", "2_forward", [("triton_poi_fused_mul_0", path, src, comments)], call,
                                    [("arg0_1", "8"), ("arg1_1", rand("(8, 16)", "(16, 1)"))])  # fmt: skip
        wrapper = stripped_name(text)
        write_module(tree, root, wrapper, text)
        key = fake_key("f", seed + " dynamic")
        data = fx_entry(
            "2.7", key, wrapper, text, "forward", [("16", "1"), None], [1], kernels=[kernel],
            guards_expr="2 <= L['t0']", counter={"async_compile_cache_miss": 1}, metrics_args=(1, 2, 0),
            time_ns=655143870, linemap_entries=linemap(line_of(text, ".run("), 4),
        )  # fmt: skip
        out.append(("forward", key, wrapper, data, [kernel]))
    return out


def make_torch27(tree):
    root = "torchinductor_user"
    entries = make_torch27_entries(tree, root, RTX3090, TMP + "/triton/0", TMP, "27")
    for role, key, wrapper, data, kernels in entries:
        write_fx_entry(tree, root, key, data)
        for k in kernels:
            write_triton(tree, root + "/triton/0", k)
    # a best_config at the cache root, named by a 64-hex key
    tree.write(
        "%s/%s.best_config" % (root, hex64("27 root best_config")),
        json.dumps({"XBLOCK": 256, "num_warps": 4, "num_stages": 1, "configs_hash": hex64("27 root configs"), "found_by_coordesc": False, "time_taken_ms": 11}),
    )
    digest, text = benchmark_cache(
        "NVIDIA GeForce RTX 3090",
        {"triton": "3.3.0" + triton_key_tail("27 triton key", 4), "cuda": "12.6"},
        None,
        {
            "base mm time: ((torch.Size([1, 64, 64]), (4096, 64, 1), torch.bfloat16), (torch.Size([1, 64, 9]), (576, 9, 1), torch.bfloat16), None, None, <OpOverloadPacket(op='aten.bmm')>, None, None)": 0.0123,
        },
    )
    tree.write("%s/cache/%s" % (root, digest), text)
    return [(role, len(kernels)) for role, _, _, _, kernels in entries]


# ---------------------------------------------------------------------------
# 8. vLLM tree on ROCm (PyTorch 2.7 era)


def make_vllm_rocm(tree):
    tree_hash = hex64("vllm rocm tree")[:10]
    base = "vllm-cache/torch_compile_cache/%s/rank_0_0" % tree_hash
    home = "/home/vllm/.cache/vllm/torch_compile_cache/%s/rank_0_0" % tree_hash
    ind_rel, ind_abs = base + "/inductor_cache", home + "/inductor_cache"
    bh = hex64("rocm backend").upper()
    index = {}
    aot = []
    for piece, (label, body, params, num_load) in enumerate(
        (
            ("add", body_add(0, True, None, dynamic=True), [("in_ptr0", "*bf16"), ("in_ptr1", "*bf16"), ("out_ptr0", "*bf16"), ("xnumel", "i32")], 2),
            ("mul", body_mul(0, True, const="0.5", dynamic=True), [("in_ptr0", "*bf16"), ("out_ptr0", "*bf16"), ("xnumel", "i32")], 1),
        )
    ):
        kname = "triton_poi_fused_%s_0" % label
        src = kernel_new("rocm", MI210, params, kname, body.replace("tmp0 = tl.load(in_ptr0 + (x0), xmask)", "tmp0 = tl.load(in_ptr0 + (x0), xmask).to(tl.float32)"),
                         bh, num_load, "{'x': 131072}", hip=True)  # fmt: skip
        mname = stripped_name(src)
        write_module(tree, ind_rel, mname, src)
        path = "%s/%s/%s.py" % (ind_abs, mname[1:3], mname)
        kernel = triton_kernel("hip3.2", kname, params, path, home + "/triton_cache", "rocm " + label, "gfx90a")
        for f, data in kernel.files:
            tree.write("%s/triton_cache/%s/%s" % (base, kernel.dir_name, f), data)
        tree.write(
            "%s/%s/%s" % (ind_rel, mname[1:3], best_config_name(mname)),
            json.dumps({"XBLOCK": 1024, "num_warps": 4, "num_stages": 1, "configs_hash": hex64("rocm configs"), "found_by_coordesc": False, "time_taken_ms": 52}),
        )
        inputs = "arg0_1, arg1_1, arg2_1" if label == "add" else "arg0_1, arg1_1"
        run_args = "arg1_1, arg2_1, buf0" if label == "add" else "arg1_1, buf0"
        call = fill(
            "def call(args):\n"
            "    <<inputs>> = args\n"
            "    args.clear()\n"
            "    s0 = arg0_1\n"
            "    assert_size_stride(arg1_1, (s0, 1024), (1024, 1))\n"
            "<<second>>"
            "    with torch.cuda._DeviceGuard(0):\n"
            "        torch.cuda.set_device(0)\n"
            "        buf0 = empty_strided_cuda((s0, 1024), (1024, 1), torch.bfloat16)\n"
            "        # Topologically Sorted Source Nodes: [<<label>>], Original ATen: [aten.<<label>>]\n"
            "        <<k>>_xnumel = 1024*s0\n"
            "        stream0 = get_raw_stream(0)\n"
            "        <<k>>.run(<<run_args>>, <<k>>_xnumel, stream=stream0)\n"
            "    return (buf0, )\n",
            inputs=inputs, label=label, k=kname, run_args=run_args,
            second="    assert_size_stride(arg2_1, (s0, 1024), (1024, 1))\n" if label == "add" else "",
        )  # fmt: skip
        comments = ([label], ["aten." + label], ["%s => %s" % (label, label)],
                    ["%%%s : [num_users=1] = call_function[target=torch.ops.aten.%s.Tensor](args = (%%arg1_1, %s), kwargs = {})"
                     % (label, label, "%arg2_1" if label == "add" else "0.5")])  # fmt: skip
        bench = [("arg0_1", "16"), ("arg1_1", rand("(16, 1024)", "(1024, 1)", dtype="torch.bfloat16"))]
        if label == "add":
            bench.append(("arg2_1", rand("(16, 1024)", "(1024, 1)", dtype="torch.bfloat16")))
        text = inference_graph_text("2.7", "%d_inference" % piece, [(kname, path, src, comments)], call, bench)
        wrapper = stripped_name(text)
        write_module(tree, ind_rel, wrapper, text)
        key = fake_key("f", "rocm piece %d" % piece)
        data = fx_entry(
            "2.7", key, wrapper, text, "inference", [("1024", "1")], [1, 2] if label == "add" else [1], kernels=[kernel],
            guards_expr="", counter={"extern_calls": 0, "async_compile_cache_miss": 1}, metrics_args=(1, 2, 0),
            time_ns=912184023 + piece, linemap_entries=linemap(line_of(text, ".run("), 30 + piece),
        )  # fmt: skip
        write_fx_entry(tree, ind_rel, key, data)
        index[(None, piece, "inductor")] = (key, "%s/%s/%s.py" % (ind_abs, wrapper[1:3], wrapper))
        aot.append((piece, label, key, len(params) - 1))
    # one AOTAutograd entry per piece, each naming its forward graph
    for piece, label, key, n_inputs in aot:
        input_info = []
        for i in range(n_inputs + 1):
            input_info.append(make(
                InputAliasInfo, is_leaf=True, mutates_data=False, mutates_metadata=False,
                mutations_hidden_from_autograd=True, mutations_under_no_grad_or_inference_mode=False,
                mutation_inductor_storage_resize=False, mutates_storage_metadata=False, requires_grad=False,
                keep_input_mutations=True, mutation_type=enum_value(MutationType, 1),
            ))  # fmt: skip
        output = make(
            OutputAliasInfo, output_type=enum_value(OutputType, 1), raw_type=FunctionalTensor, base_idx=None,
            dynamic_dims={0}, requires_grad=False, functional_tensor=None,
        )  # fmt: skip
        meta = make(
            ViewAndMutationMeta, input_info=input_info, output_info=[output], num_intermediate_bases=0,
            keep_input_mutations=True, traced_tangents=[],
            subclass_inp_meta=[make(PlainTensorMeta, unwrapped_idx=i, memory_format=None) for i in range(n_inputs + 1)],
            subclass_fw_graph_out_meta=[make(PlainTensorMeta, unwrapped_idx=0, memory_format=None)],
            subclass_tangent_meta=[], is_train=False, traced_tangent_metas=[], num_symints_saved_for_bw=None,
            grad_enabled_mutation=None, deterministic=None, static_input_indices=[], tokens={},
            indices_of_inputs_that_requires_grad_with_mutations_in_bw=[], bw_donated_idxs=None,
            num_backward_tokens=0, num_graphsafe_rng_states=0, graphsafe_rng_state_index=None,
            mutated_graph_handled_indices=[], num_mutated_graph_handled_indices=0,
            mutated_graph_handled_indices_seen_by_autograd=[], num_mutated_graph_handled_indices_seen_by_autograd=0,
            mutated_inp_runtime_indices=[], num_mutated_inp_runtime_indices=0, aliased_out_indices=[],
            unsafe_view_out_indices=[], num_outputs=1, num_outputs_non_aliased=1, num_outputs_aliased_to_inputs=0,
            num_unsafe_view_outputs=0, num_outputs_aliased_to_intermediates=0, num_outputs_aliased=0,
            dynamic_outputs=True, output_types=[], is_rng_op_functionalized=False, num_outputs_rng_offset=0,
            num_forward_returns=1, num_forward=1,
        )  # fmt: skip
        graph_args = ['arg0_1: "Sym(s0)"'] + ['arg%d_1: "bf16[s0, 1024][1024, 1]cuda:0"' % i for i in range(1, n_inputs + 1)]
        op = "torch.ops.aten.add.Tensor(arg1_1, arg2_1);  arg1_1 = arg2_1 = None" if label == "add" else "torch.ops.aten.mul.Tensor(arg1_1, 0.5);  arg1_1 = None"
        graph = (
            "class <lambda>(torch.nn.Module):\n    def forward(self, %s):\n"
            '        %s: "bf16[s0, 1024][1024, 1]cuda:0" = %s\n        return (%s,)\n        ' % (", ".join(graph_args), label, op, label)
        )
        entry = make(
            AOTAutogradCacheEntry, compiled_fw=make(CompiledForward, fx_graph_cache_key=key), compiled_bw=None,
            aot_joint_graph_str=None, aot_forward_graph_str=graph, aot_backward_graph_str=None,
            runtime_metadata=meta,
            dispatch_wrappers=[
                make(AOTDedupeWrapper, keep_arg_mask=[], add_dupe_map=[], old_input_metadata=[], needs_post_compile=False),
                make(AOTSyntheticBaseWrapper, trace_joint=False, needs_post_compile=False, aliased_arg_idx_with_metadata_mutations=[]),
            ],
            maybe_subclass_meta=None, num_fw_outs_saved_for_bw=None, indices_of_inps_to_detach=[],
            forward_time_taken_ns=262587241 + piece, backward_time_taken_ns=0,
        )  # fmt: skip
        tree.write("%s/aotautograd/%s/entry" % (ind_rel, fake_key("a", "rocm aot %d" % piece)), dumps(entry))
    tree.write("%s/triton_cache/%s/hip_utils.so" % (base, hex64("rocm hip_utils")), fake_elf(X86_64, "hip_utils.so"))
    tree.write("%s/vllm_compile_cache.py" % base, pprint.pformat(index, indent=4))
    tree.write(
        "%s/computation_graph.py" % base,
        "from __future__ import annotations\nimport torch\nclass GraphModule(torch.nn.Module):\n"
        '    def forward(self, s0: "Sym(s0)", L_x_: "bf16[s0, 1024]", L_y_: "bf16[s0, 1024]"):\n'
        "        l_x_ = L_x_\n        l_y_ = L_y_\n"
        '        add: "bf16[s0, 1024]" = l_x_ + l_y_;  l_x_ = l_y_ = None\n'
        '        mul: "bf16[s0, 1024]" = add * 0.5;  add = None\n'
        "        return (mul,)\n",
    )
    tree.write(
        "%s/transformed_code.py" % base,
        "def forward(self, x, y):\n    tmp_0 = __import_torch_dot__dynamo_dot_utils.call_size\n"
        "    tmp_1 = __compiled_fn_1\n    __temp_2 = tmp_1(tmp_0(x, 0), x, y)\n    return __temp_2[0]\n",
    )
    return [("inference", 1), ("inference", 1)]


# ---------------------------------------------------------------------------
# 9. PyTorch 2.8, with debug lines


def debug_hash(value):
    """The [hash] of a debug line: sha256_hash of the value pickled (protocol 4, no memo)."""
    stream = io.BytesIO()
    pickler = pickle.Pickler(stream, protocol=4)
    pickler.fast = True
    pickler.dump(value)
    return sha256_hash(stream.getvalue())


def make_torch28(tree):
    root = "torchinductor_user"
    bh = hex64("28 backend").upper()
    n = 64 * 32
    params = [("in_ptr0", "*fp32"), ("out_ptr0", "*fp32"), ("xnumel", "i32")]
    src = kernel_new("2.8", RTX2080TI, params, "triton_poi_fused_add_0", body_add(n, False, "1.0"), bh, 1, "{'x': 2048}")
    name = stripped_name(src)
    write_module(tree, root, name, src)
    path = "%s/%s/%s.py" % (TMP, name[1:3], name)
    kernel = triton_kernel("3.4", "triton_poi_fused_add_0", params, path, TMP + "/triton/0", "28 add", 75)
    write_triton(tree, root + "/triton/0", kernel)
    tree.write(
        "%s/%s/%s" % (root, name[1:3], best_config_name(name)),
        json.dumps({"XBLOCK": 1024, "num_warps": 4, "num_stages": 1, "configs_hash": hex64("28 configs"), "found_by_coordesc": False, "time_taken_ms": 22, "triton_cache_hash": kernel.dir_name}),
    )
    call = (
        "def call(args):\n"
        "    arg0_1, = args\n"
        "    args.clear()\n"
        "    assert_size_stride(arg0_1, (64, 32), (32, 1))\n"
        "    with torch.cuda._DeviceGuard(0):\n"
        "        torch.cuda.set_device(0)\n"
        "        buf0 = empty_strided_cuda((64, 32), (32, 1), torch.float32)\n"
        "        # Topologically Sorted Source Nodes: [add], Original ATen: [aten.add]\n"
        "        stream0 = get_raw_stream(0)\n"
        "        triton_poi_fused_add_0.run(arg0_1, buf0, 2048, stream=stream0)\n"
        "        del arg0_1\n"
        "    return (buf0, )\n"
    )
    comments = (
        ["add"], ["aten.add"], ["add => add"],
        ["%add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%arg0_1, 1), kwargs = {})"],
    )  # fmt: skip
    text = inference_graph_text("2.8", "0_inference", [("triton_poi_fused_add_0", path, src, comments)], call,
                                [("arg0_1", rand("(64, 32)", "(32, 1)"))])  # fmt: skip
    wrapper = stripped_name(text)
    write_module(tree, root, wrapper, text)
    gm = (
        "<lambda>()\n\n\n\ndef forward(self, arg0_1):\n"
        "    add = torch.ops.aten.add.Tensor(arg0_1, 1);  arg0_1 = None\n    return (add,)\n    \n"
        "# To see more debug info, please use `graph_module.print_readable()`"
    )
    tensor = (
        "TensorMetadata(dtype=torch.float32, shape=torch.Size([64, 32]), stride=(32, 1), device=device(type='cuda', index=0), "
        "layout=torch.strided, memory_format=torch.contiguous_format, storage_offset=0, storage_bytes=None, "
        "requires_grad=False, is_quantized=False, is_conj=False, is_neg=False, is_inference=False, is_sparse=False, "
        "is_coalesced=None, dense_dim=None, sparse_dim=None)"
    )
    version = {"triton": "3.4.0" + triton_key_tail("28 triton key", 3), "cuda": "12.6"}
    system_hash = hashlib.sha256(json.dumps({"device": {"name": "NVIDIA GeForce RTX 2080 Ti"}, "version": version}, sort_keys=True).encode()).hexdigest()
    lines = [
        ("gm", gm, debug_hash(gm)),
        ("example_inputs[0]", tensor, debug_hash(tensor)),
        ("cache_key_tag", "", debug_hash("")),
        ("fx_kwargs[boxed_forward_device_index]", "BoxedDeviceIndex(value=None)", debug_hash("BoxedDeviceIndex(value=None)")),
        ("fx_kwargs[cpp_wrapper]", "False", debug_hash(False)),
        ("fx_kwargs[cudagraphs]", "BoxedBool(value=False)", debug_hash("BoxedBool(value=False)")),
        ("fx_kwargs[extern_node_serializer]", "None", debug_hash(None)),
        ("fx_kwargs[is_backward]", "False", debug_hash(False)),
        ("fx_kwargs[is_inference]", "True", debug_hash(True)),
        ("fx_kwargs[layout_opt]", "None", debug_hash(None)),
        ("fx_kwargs[static_input_idxs]", "[]", debug_hash([])),
        ("inputs_to_check[0]", "0", debug_hash(0)),
        ("deterministic_algorithms_settings", "(False, False, True)", debug_hash((False, False, True))),
        ("cuda_matmul_settings", "(False, True, True)", debug_hash((False, True, True))),
        ("torch_version", "<bytes>", debug_hash(b"2.8.0+cu126")),
        ("system_info[device]", "{'name': 'NVIDIA GeForce RTX 2080 Ti'}", debug_hash({"name": "NVIDIA GeForce RTX 2080 Ti"})),
        ("system_info[version]", repr(version), debug_hash(version)),
        ("system_info[hash]", system_hash, debug_hash(system_hash)),
        ("inductor_config[bundle_triton_into_fx_graph_cache]", "True", debug_hash(True)),
        ("inductor_config[fx_graph_cache]", "True", debug_hash(True)),
        ("inductor_config[max_autotune]", "False", debug_hash(False)),
        ("inductor_config[triton.cudagraphs]", "False", debug_hash(False)),
        ("post_grad_custom_pre_pass", "None", debug_hash(None)),
        ("post_grad_custom_post_pass", "None", debug_hash(None)),
        ("custom_backend_passes", "(None, None, None, None)", debug_hash((None, None, None, None))),
    ]
    debug_lines = ["[%s] %s: %s" % (h, attr, value) for attr, value, h in lines]
    runnable = (
        "\nimport os\nos.environ['TORCHINDUCTOR_CACHE_DIR'] = '%s'\n\nimport torch\nfrom torch import tensor, device\n"
        "import torch.fx as fx\nfrom torch._dynamo.testing import rand_strided\nfrom math import inf\n"
        "import torch._inductor.inductor_prims\n\nimport torch._dynamo.config\nimport torch._inductor.config\n"
        "import torch._functorch.config\nimport torch.fx.experimental._config\n\n\n\n"
        "isolate_fails_code_str = None\n\n\n\n\n"
        "# torch version: 2.8.0+cu126\n# torch cuda version: 12.6\n# torch git version: %s\n\n\n"
        "# CUDA Info: \n# nvcc: NVIDIA (R) Cuda compiler driver \n# Cuda compilation tools, release 12.6, V12.6.20 \n\n"
        "# GPU Hardware Info: \n# NVIDIA GeForce RTX 2080 Ti : 1 \n\n\n"
        "from torch.nn import *\nclass Repro(torch.nn.Module):\n    def __init__(self) -> None:\n        super().__init__()\n\n"
        "    \n    \n    def forward(self, arg0_1):\n        add = torch.ops.aten.add.Tensor(arg0_1, 1);  arg0_1 = None\n"
        "        return (add,)\n        \ndef load_args(reader):\n"
        "    buf0 = reader.storage(None, 8192, device=device(type='cuda', index=0))\n"
        "    reader.tensor(buf0, (64, 32), is_leaf=True)  # arg0_1\n"
        "load_args._version = 0\nmod = Repro()\nif __name__ == '__main__':\n"
        "    from torch._dynamo.repro.after_aot import run_repro\n    with torch.no_grad():\n"
        "        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', check_str=None)\n"
        % (TMP, hashlib.sha1(b"cachelens miniature 28").hexdigest())
    )
    post_grad = (
        "class <lambda>(torch.nn.Module):\n"
        '    def forward(self, arg0_1: "f32[64, 32][32, 1]cuda:0"):\n'
        '        add: "f32[64, 32][32, 1]cuda:0" = torch.ops.aten.add.Tensor(arg0_1, 1);  arg0_1 = None\n'
        "        return (add,)\n        "
    )
    key = fake_key("f", "28 add")
    data = fx_entry(
        "2.8", key, wrapper, text, "inference", [("32", "1")], [0], kernels=[kernel],
        counter={"async_compile_cache_miss": 1}, metrics_args=(1, 2, 16384), time_ns=2790712229,
        linemap_entries=linemap(line_of(text, ".run("), 3),
        extra_28={"runnable_graph_str": runnable, "inductor_post_grad_graph_str": post_grad, "debug_lines": debug_lines},
    )  # fmt: skip
    write_fx_entry(tree, root, key, data)
    return len(debug_lines)


# ---------------------------------------------------------------------------
# 10. TORCH_TRACE logs


class TraceLog:
    """Lines `<glog prefix>] {json}` with the payload after them, each line a tab first."""

    def __init__(self, pid, source_of, when, extra=None):
        self.lines = []
        self.pid = pid
        self.source_of = source_of  # record kind -> 'torch/...py:NNN'
        self.when = when  # (month-day, seconds)
        self.extra = extra or {}  # metadata keys after the record's own (rank, compiled_autograd_id)
        self.tick = 0

    def stamp(self):
        """glog's time: microseconds, the last three digits 0 as the logs have them."""
        self.tick += 1
        md, base = self.when
        ms = int(round(base * 1000)) + self.tick * 13
        return "V%s %02d:%02d:%02d.%03d000" % (md, ms // 3600000, ms // 60000 % 60, ms // 1000 % 60, ms % 1000)

    def record(self, kind, value, compile_id=None, payload=None, where=None):
        meta = {kind: value}
        if kind != "str":
            meta.update(self.extra)
        if compile_id is not None:
            meta.update({"frame_id": compile_id[0], "frame_compile_id": compile_id[1], "attempt": 0})
        if payload is not None:
            meta["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
        line = "%s %d %s] %s" % (self.stamp(), self.pid, where or self.source_of[kind], json.dumps(meta))
        self.lines.append(line)
        if payload is not None:
            self.lines.extend("\t" + l for l in payload.split("\n"))

    def artifact(self, name, compile_id, payload, where):
        self.record("artifact", {"name": name, "encoding": "json"}, compile_id, payload, where)

    def text(self):
        return "\n".join(self.lines) + "\n"


def components(gm_lines, split):
    tensor = (
        "[%s] example_inputs[0]: TensorMetadata(dtype=torch.float32, shape=torch.Size([8, 8]), stride=(8, 1), "
        "device=device(type='cpu'), layout=torch.strided, memory_format=torch.contiguous_format, storage_offset=0, "
        "storage_bytes=None, requires_grad=False, is_quantized=False, is_conj=False, is_neg=False, is_inference=False, "
        "is_sparse=False, is_coalesced=None, dense_dim=None, sparse_dim=None)" % debug_hash("example 8x8")
    )
    gm = "[%s] gm: <lambda>()\n\n\n\n" % debug_hash(gm_lines) + gm_lines
    head = gm.split("\n") if split else [gm]
    return head + [
        tensor,
        "[%s] fx_kwargs[aot_mode]: False" % debug_hash(False),
        "[%s] fx_kwargs[cpp_wrapper]: False" % debug_hash(False),
        "[%s] fx_kwargs[is_backward]: False" % debug_hash(False),
        "[%s] fx_kwargs[is_inference]: True" % debug_hash(True),
        "[%s] torch_version: <bytes>" % debug_hash(b"torch"),
    ]


GM_ADD = "def forward(self, arg0_1):\n    add = torch.ops.aten.add.Tensor(arg0_1, 1);  arg0_1 = None\n    return (add,)\n    \n# To see more debug info, please use `graph_module.print_readable()`"


def metrics_25(cid, frame_key, start, hit):
    return {
        "compile_id": "%d/%d" % cid, "frame_key": frame_key, "co_name": "forward",
        "co_filename": "/home/user/model.py", "co_firstlineno": 5, "cache_size": 0,
        "accumulated_cache_size": 0, "guard_count": 9, "shape_env_guard_count": 0,
        "graph_op_count": 1, "graph_node_count": 3, "graph_input_count": 1, "start_time": start,
        "entire_frame_compile_time_s": 0.41 if hit else 1.93, "backend_compile_time_s": 0.12 if hit else 1.61,
        "inductor_compile_time_s": 0.05 if hit else 1.37, "code_gen_time_s": None if hit else 1.02,
        "fail_type": None, "fail_reason": None, "fail_user_frame_filename": None,
        "fail_user_frame_lineno": None, "non_compliant_ops": [], "compliant_custom_ops": [],
        "restart_reasons": [], "dynamo_time_before_restart_s": 0.0, "has_guarded_code": True,
    }  # fmt: skip


def make_traces(tree):
    strs = [("/home/user/train.py", 0), ("/usr/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", 1)]
    stack = {"stack": [{"line": 12, "name": "<module>", "filename": 0}, {"line": 465, "name": "_fn", "filename": 1}]}
    key = fake_key("f", "trace add")
    results = {}

    # (a) PyTorch 2.5: fx_graph_cache_hash with cache_state, a miss then a hit
    log = TraceLog(663, {"str": "torch/_logging/structured.py:22", "dynamo_start": "torch/_dynamo/convert_frame.py:894",
                         "compilation_metrics": "torch/_dynamo/utils.py:810"}, ("1122", 10 * 3600 + 48 * 60 + 13.8))  # fmt: skip
    for s in strs:
        log.record("str", list(s))
    for frame, state in ((0, "miss"), (1, "hit")):
        cid = (frame, 0)
        log.record("dynamo_start", stack, cid)
        payload = {"key": key, "components": components(GM_ADD, False)}
        payload["time_saved_ns" if state == "hit" else "time_taken_ns"] = 812345678
        payload["cache_state"] = state
        log.artifact("fx_graph_cache_hash", cid, json.dumps(payload), "torch/_inductor/codecache.py:1379")
        m = metrics_25(cid, str(frame + 1), 1732272493.8 + frame, state == "hit")
        m["possibly_missed_reinplacing_opportunities"] = 0
        log.record("compilation_metrics", m, cid)
    tree.write("torch25/dedicated_log_torch_trace_q3r7xk2b.log", log.text())
    results["torch25/dedicated_log_torch_trace_q3r7xk2b.log"] = [("fx_graph_cache_hash", "miss"), ("fx_graph_cache_hash", "hit")]

    # (b) PyTorch 2.4: fx_graph_cache_hash without cache_state, the gm split into lines
    log = TraceLog(140144363024384, {"str": "torch/_logging/structured.py:19", "dynamo_start": "torch/_dynamo/convert_frame.py:824",
                                     "compilation_metrics": "torch/_dynamo/utils.py:719"}, ("0524", 12 * 3600 + 48 * 60 + 47.9))  # fmt: skip
    for s in strs:
        log.record("str", list(s))
    log.record("dynamo_start", stack, (0, 0))
    log.artifact("fx_graph_cache_hash", (0, 0), json.dumps({"key": key, "components": components(GM_ADD, True)}), "torch/_inductor/codecache.py:689")
    log.record("compilation_metrics", metrics_25((0, 0), "1", 1716554928.1, False), (0, 0))
    tree.write("torch24/dedicated_log_torch_trace_7w2mzp0d.log", log.text())
    results["torch24/dedicated_log_torch_trace_7w2mzp0d.log"] = [("fx_graph_cache_hash", None)]

    # (c) PyTorch 2.6: fx_graph_cache_miss / _hit, aotautograd_cache_bypass with a two-line reason
    log = TraceLog(1667746, {"str": "torch/_logging/structured.py:27", "dynamo_start": "torch/_dynamo/convert_frame.py:961",
                             "compilation_metrics": "torch/_dynamo/utils.py:1045"}, ("1206", 15 * 3600 + 24 * 60 + 45.4),
                   extra={"compiled_autograd_id": None})  # fmt: skip
    for s in strs:
        log.record("str", list(s))
    reason = "Unsupported call_function target my_op. \n Function module: torch.ops.mylib, \nFunction name: my_op"
    for frame, state in ((0, "miss"), (1, "hit")):
        cid = (frame, 0)
        log.record("dynamo_start", stack, cid)
        payload = {"key": key, "components": components(GM_ADD, False), "cache_event_time": 1733527486949451176 + frame,
                   "cache_state": state, "triton_bundler_meta": "TritonBundlerMetadata(cached_kernel_names=[])"}  # fmt: skip
        payload["time_saved_ns" if state == "hit" else "time_taken_ns"] = 409141776
        payload["compile_id"] = "%d/0" % frame
        log.artifact("fx_graph_cache_" + state, cid, json.dumps(payload), "torch/_inductor/compile_fx.py:751")
        bypass = {"cache_bypass_reason": reason, "cache_bypass_hard_exception": False, "key": None,
                  "cache_state": "bypass", "components": [], "compile_id": "%d/0" % frame}  # fmt: skip
        log.artifact("aotautograd_cache_bypass", cid, json.dumps(bypass), "torch/_functorch/_aot_autograd/autograd_cache.py:763")
        m = {"pre_grad_pass_time_us": 521, "joint_graph_pass_time_us": 1048,
             "inductor_cumulative_compile_time_us": 77456 if state == "hit" else 2409141,
             "aot_autograd_cumulative_compile_time_us": 88329, "dynamo_cumulative_compile_time_us": 142473,
             "frame_key": str(frame + 1), "co_name": "forward", "co_filename": "/home/user/model.py",
             "co_firstlineno": 5, "cache_size": 0, "accumulated_cache_size": 0, "guard_count": 9,
             "shape_env_guard_count": 0, "graph_op_count": 1, "graph_node_count": 3, "graph_input_count": 1,
             "fail_type": None, "fail_reason": None, "has_guarded_code": True,
             "compile_id": "%d/0" % frame}  # fmt: skip
        log.record("compilation_metrics", m, cid)
    tree.write("torch26/dedicated_log_torch_trace_c8n5v1ts.log", log.text())
    results["torch26/dedicated_log_torch_trace_c8n5v1ts.log"] = [
        ("fx_graph_cache_miss", "miss"), ("aotautograd_cache_bypass", "bypass"),
        ("fx_graph_cache_hit", "hit"), ("aotautograd_cache_bypass", "bypass"),
    ]  # fmt: skip

    # (d) two ranks' dedicated logs, "rank" in every record
    for rank, suffix in ((0, "abc"), (1, "def")):
        log = TraceLog(28009 + rank, {"str": "torch/_logging/structured.py:28", "dynamo_start": "torch/_dynamo/convert_frame.py:246",
                                      "compilation_metrics": "torch/_dynamo/utils.py:1641"}, ("0728", 21 * 3600 + 43 * 60 + 59.8),
                       extra={"rank": rank})  # fmt: skip
        for s in strs:
            log.record("str", list(s))
        cid = (0, 0)
        log.record("dynamo_start", stack, cid)
        aot_key = fake_key("a", "trace rank aot")
        log.artifact("aotautograd_cache_miss", cid,
                     json.dumps({"key": aot_key, "cache_state": "miss", "components": ["[%s] aot_config: (0, True, False, False, False)" % debug_hash("aot")], "compile_id": "0/0"}),
                     "torch/_functorch/_aot_autograd/autograd_cache.py:1268")  # fmt: skip
        payload = {"key": key, "components": components(GM_ADD, False), "cache_event_time": 1753764240123456789,
                   "cache_state": "miss", "triton_bundler_meta": "TritonBundlerMetadata(cached_kernel_names=[])",
                   "time_taken_ns": 503214876, "compile_id": "0/0"}  # fmt: skip
        log.artifact("fx_graph_cache_miss", cid, json.dumps(payload), "torch/_inductor/compile_fx.py:1150")
        log.record("compilation_metrics", metrics_25(cid, "1", 1753764239.8, False), cid)
        rel = "ranks/dedicated_log_torch_trace_rank_%d_%s.log" % (rank, suffix)
        tree.write(rel, log.text())
        results[rel] = [("aotautograd_cache_miss", "miss"), ("fx_graph_cache_miss", "miss")]
    return results


# ---------------------------------------------------------------------------
# 11. Mega-cache bundle


def pack_str(text):
    data = base64.b64encode(text.encode())
    return struct.pack(">Q", len(data)) + data


def pack_bytes(data):
    return struct.pack(">Q", len(data)) + data


class MemoryTree(Tree):
    """A Tree that writes nothing and keeps the files in memory: for content
    that only goes into a bundle."""

    def __init__(self):
        super().__init__(None)
        self.kept = {}

    def write(self, rel, data):
        self.kept[rel] = data.encode() if isinstance(data, str) else data
        return rel


def make_mega(tree):
    scratch = MemoryTree()
    entries = make_torch27_entries(scratch, "x", RTX3090, TMP + "/triton/0", TMP, "mega", graphs=("forward",))
    role, key, _, data, kernels = entries[0]
    # the autotune artifact: the first kernel module's best_config, keyed by
    # its path in the cache dir (<xx>/<sha256 of '<module>.py:'>.best_config)
    autotune_key = sorted(rel for rel in scratch.kept if rel.endswith(".best_config"))[0]
    best = scratch.kept[autotune_key]
    autotune_key = autotune_key.split("/", 1)[1]
    body = struct.pack(">Q", 1)
    for kind, items in (("inductor", [(key, data)]), ("autotune", [(autotune_key, best)])):
        body += pack_str(kind) + struct.pack(">Q", len(items))
        for k, content in items:
            body += pack_str(k) + pack_bytes(content)
    blob = struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF) + body
    tree.write("mega.bin", blob)
    return role, len(kernels)


# ---------------------------------------------------------------------------
# 12. torch_compile_debug run dir (PyTorch 2.4, CPU)


def make_debug_dump(tree):
    run = "torch_compile_debug/run_2024_09_21_09_28_39_611516-pid_90469"
    model = run + "/torchinductor/model__0_inference_0.0"
    header_name = as_written_name(CPP_PREFIX_21)
    kernel = fill(
        '\n#include "<<inc>>"\nextern "C" void kernel(const float* in_ptr0,\n                       float* out_ptr0)\n{\n'
        "    {\n        #pragma GCC ivdep\n"
        "        for(long x0=static_cast<long>(0L); x0<static_cast<long>(1024L); x0+=static_cast<long>(1L))\n"
        "        {\n            auto tmp0 = in_ptr0[static_cast<long>(x0)];\n"
        "            auto tmp1 = std::max(tmp0, decltype(tmp0)(0));\n"
        "            out_ptr0[static_cast<long>(x0)] = tmp1;\n        }\n    }\n}\n",
        inc="/tmp/torchinductor_user/%s/%s.h" % (header_name[1:3], header_name),
    )
    text = fill(HEADER_24, aot_id="0_inference", triton_imports="", p2p="").replace("empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu\n", "")
    text = text.replace("from torch import device, empty_strided\n", "\nfrom torch import device, empty_strided\n").replace("\nfrom ctypes import c_void_p, c_long, c_int\n", "\nfrom ctypes import c_void_p, c_long\n")
    text += "cpp_fused_relu_0 = async_compile.cpp_pybinding(['const float*', 'float*'], '''%s''')\n\n\n" % kernel
    text += (
        "async_compile.wait(globals())\ndel async_compile\n\n"
        "def call(args):\n    arg0_1, = args\n    args.clear()\n    assert_size_stride(arg0_1, (32, 32), (32, 1))\n"
        "    buf0 = empty_strided_cpu((32, 32), (32, 1), torch.float32)\n"
        "    cpp_fused_relu_0(arg0_1, buf0)\n    del arg0_1\n    return (buf0, )\n\n\n"
    )
    text += benchmark_new([("arg0_1", rand("(32, 32)", "(32, 1)", "cpu"))]) + FOOTER_BENCH
    tree.write(model + "/output_code.py", text)
    tree.write(
        model + "/fx_graph_readable.py",
        "class <lambda>(torch.nn.Module):\n"
        '    def forward(self, arg0_1: "f32[32, 32]"):\n'
        "        # File: /home/user/relu.py:5 in fn, code: return torch.relu(x)\n"
        '        relu: "f32[32, 32]" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None\n'
        "        return (relu,)\n        ",
    )
    tree.write(
        model + "/ir_pre_fusion.txt",
        "buf0: SchedulerNode(ComputedBuffer)\n"
        "buf0.writes = [MemoryDep('buf0', c0, {c0: 1024}, None)]\n"
        "buf0.unmet_dependencies = []\n"
        "buf0.met_dependencies = [MemoryDep('arg0_1', c0, {c0: 1024}, None)]\n"
        "buf0.users = [NodeUser(node=OUTPUT, can_inplace=False, is_weak=False)]\n"
        "buf0.group.device = cpu\n"
        "buf0.group.iteration = ((1024,), ())\n"
        "buf0.sizes = ([1024], [])\n"
        "arg0_1_layout = FixedLayout('cpu', torch.float32, size=[32, 32], stride=[32, 1])\n"
        "buf0_layout = FixedLayout('cpu', torch.float32, size=[32, 32], stride=[32, 1])\n"
        "class buf0_loop_body:\n"
        "    var_ranges = {z0: 1024}\n"
        "    index0 = z0\n"
        "    def body(self, ops):\n"
        "        get_index = self.get_index('index0')\n"
        "        load = ops.load('arg0_1', get_index)\n"
        "        relu = ops.relu(load)\n"
        "        get_index_1 = self.get_index('index0')\n"
        "        store = ops.store('buf0', get_index_1, relu, None)\n"
        "        return store\n\n\n",
    )
    tree.write(run + "/torchinductor/aot_model___0_debug.log", b"")
    tree.write(run + "/torchdynamo/debug.log", b"")


# ---------------------------------------------------------------------------
# Driver

SOURCES = [
    ("torch20-cuda-modules", make_torch20),
    ("torch21-cuda-lenet", make_torch21_cuda),
    ("torch21-cpu-cpp", make_torch21_cpu),
    ("torch23-cuda-dynamic", make_torch23),
    ("torch24-cuda-train-fxgraph", make_torch24),
    ("torch26-cuda-inference-fxgraph", make_torch26),
    ("torch27-cuda-train-fxgraph", make_torch27),
    ("torch27rocm-vllm-tree", make_vllm_rocm),
    ("torch28-cuda-debuglines", make_torch28),
    ("traces", make_traces),
    ("torch27-mega-bundle", make_mega),
    ("torch24-debug-dump", make_debug_dump),
]


def write_all(outdir):
    os.makedirs(outdir, exist_ok=True)
    written = []
    for name, maker in SOURCES:
        source_dir = os.path.join(outdir, name)
        if os.path.isdir(source_dir):
            shutil.rmtree(source_dir)
        tree = Tree(os.path.join(source_dir, "cache"))
        maker(tree)
        written.append((name, tree.files, tree.bytes))
    return written


# ---------------------------------------------------------------------------
# --check: what facts.py reads back


def load_facts_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("cachelens_facts", FACTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def summarize(facts):
    """One line of what a source's facts hold."""
    parts = []
    for d in facts["inductor_dirs"]:
        roles = collections.Counter(e.get("role") for e in d["fx_entries"])
        rules = collections.Counter("%s/%s" % (m["role"], m["name_rule"]) for m in d["modules"])
        targets = collections.Counter(
            "%s:%s:%s" % (k.get("backend"), k.get("arch"), k.get("triton_version")) for k in d["triton_kernels"] if "name" in k
        )
        parts.append(
            "fx %s bundles %s aot %d modules %s triton %s best_config %s bench %s"
            % (
                dict(roles) or "-",
                [e.get("bundle_kernels") for e in d["fx_entries"]] or "-",
                len(d["aot_entries"]),
                dict(rules) or "-",
                dict(targets) or "-",
                dict(collections.Counter(b["location"] for b in d["best_configs"])) or "-",
                [b["device"] for b in d["benchmark_caches"]] or "-",
            )
        )
    for t in facts["triton_caches"]:
        parts.append(
            "triton_cache %s"
            % dict(collections.Counter("%s:%s:%s" % (k.get("backend"), k.get("arch"), k.get("warp_size")) for k in t["kernels"]))
        )
    for s in facts["serving_indexes"]:
        parts.append("index %d entries, %d graphs" % (s["entries"], len(s["graph_keys"])))
    for b in facts["bundles"]:
        parts.append("bundle %s %s graphs %s" % (b["form"], b["artifacts"], [(g.get("role"), g.get("bundle_kernels")) for g in b["fx_graphs"]]))
    for t in facts["traces"]:
        parts.append("%s: %s ranks %s" % (os.path.basename(t["path"]), [(e["artifact"], e["state"]) for e in t["cache_events"]], t["ranks"]))
    return "; ".join(parts) or "(no facts)"


def expect(name, facts):
    """What each source is meant to yield: a list of problems, empty when all is right."""
    problems = []

    def check(cond, what):
        if not cond:
            problems.append(what)

    dirs = facts["inductor_dirs"]

    def only_dir():
        check(len(dirs) == 1, "one inductor dir, found %d" % len(dirs))
        return dirs[0] if dirs else {"fx_entries": [], "modules": [], "triton_kernels": [], "best_configs": [],
                                     "benchmark_caches": [], "aot_entries": [], "other_files": []}  # fmt: skip

    def rules(d):
        return collections.Counter((m["role"], m["name_rule"]) for m in d["modules"])

    def fx(d):
        return [(e.get("role"), e.get("bundle_kernels")) for e in d["fx_entries"]]

    def fx_common(d, cls):
        keys = set()
        modules = {m["name"] for m in d["modules"]}
        for e in d["fx_entries"]:
            check("error" not in e, "fx entry unreadable: %s" % e.get("error"))
            check(e.get("class") == cls, "class %s" % e.get("class"))
            check(e.get("name_is_hash"), "entry file not named by its hash: %s" % e.get("path"))
            check(e.get("wrapper_key") in modules, "wrapper module %s not in the dir" % e.get("wrapper_key"))
            check(e.get("device_types") == ["cuda"], "device_types %s" % e.get("device_types"))
            check(e.get("launches"), "no kernel launch in the wrapper")
            keys.add(e.get("key"))
        check(len(keys) == len(d["fx_entries"]), "duplicate FX keys")

    def triton_named(d, encode):
        for k in d["triton_kernels"]:
            if "name" not in k:
                continue
            check(k.get("hash") and encode(k["hash"]) == k["path"].split("/")[-1], "Triton dir not named by its hash: %s" % k["path"])

    if name == "torch20-cuda-modules":
        d = only_dir()
        check(rules(d) == {("kernels", "as written"): 3, ("wrapper", "as written"): 2}, "module rules %s" % rules(d))
        check(all("torch._inductor.triton_ops.autotune" in m["inductor_imports"] for m in d["modules"]), "2.0 imports")
    elif name == "torch21-cuda-lenet":
        d = only_dir()
        check(rules(d) == {("kernels", "as written"): 2, ("wrapper", "as written"): 1}, "module rules %s" % rules(d))
        check([b["location"] for b in d["best_configs"]] == ["shard"], "best_configs %s" % d["best_configs"])
        check([b["device"] for b in d["benchmark_caches"]] == ["NVIDIA GeForce RTX 3060"], "benchmark %s" % d["benchmark_caches"])
        named = [k for k in d["triton_kernels"] if "name" in k]
        check(len(named) == 2 and all(len(k["path"].split("/")[-1]) == 32 and k["hash"] is None for k in named), "Triton 2.1 dirs")
        check(len(d["triton_kernels"]) == 4, "Triton dirs %d" % len(d["triton_kernels"]))
    elif name == "torch21-cpu-cpp":
        d = only_dir()
        check(rules(d) == {("wrapper", "as written"): 1}, "module rules %s" % rules(d))
    elif name == "torch23-cuda-dynamic":
        d = only_dir()
        check(rules(d) == {("kernels", "stripped"): 1, ("wrapper", "stripped"): 1}, "module rules %s" % rules(d))
        check([b["device"] for b in d["benchmark_caches"]] == ["NVIDIA RTX 6000 Ada Generation"], "benchmark")
        check(sum(1 for k in d["triton_kernels"] if "name" in k) == 1, "Triton dirs")
        check(not d["fx_entries"], "no fxgraph in 2.3")
    elif name == "torch24-cuda-train-fxgraph":
        d = only_dir()
        check(fx(d) == [("backward", 0), ("forward", 0)] or sorted(fx(d)) == [("backward", 0), ("forward", 0)], "fx %s" % fx(d))
        fx_common(d, "torch._inductor.codecache.CompiledFxGraph")
        for e in d["fx_entries"]:
            check("_triton_bundle" not in e["fields"] and "_fx_graph_cache_key" not in e["fields"], "2.4 fields %s" % e["fields"])
        check(rules(d) == {("kernels", "stripped"): 3, ("wrapper", "stripped"): 2}, "module rules %s" % rules(d))
        check({(k.get("backend"), k.get("arch"), k.get("warp_size")) for k in d["triton_kernels"] if "name" in k} == {("cuda", "80", 32)}, "targets")
        triton_named(d, lambda h: h)
    elif name == "torch26-cuda-inference-fxgraph":
        d = only_dir()
        check(sorted(fx(d)) == [("inference", 1)] * 3, "fx %s" % fx(d))
        fx_common(d, "torch._inductor.output_code.CompiledFxGraph")
        for e in d["fx_entries"]:
            check(e["stored_key"] == e["key"], "stored key")
            check("allocated_constant_name" in e["fields"] and "frozen_param_names" not in e["fields"], "2.6 fields")
            check(e["bundle_files"] == 7, "bundle files %s" % e["bundle_files"])
        check(sorted(len(e["launches"]) for e in d["fx_entries"]) == [1, 1, 1], "launches")
        check(rules(d) == {("kernels", "stripped"): 3, ("wrapper", "stripped"): 3}, "module rules %s" % rules(d))
        triton_named(d, lambda h: triton_dir_name(h, "b64"))
        check({k.get("triton_version") for k in d["triton_kernels"] if "name" in k} == {None}, "no triton_version in 3.2")
    elif name == "torch27-cuda-train-fxgraph":
        d = only_dir()
        check(sorted(fx(d)) == sorted([("forward", 2), ("backward", 1), ("inference", 1), ("forward", 1)]), "fx %s" % fx(d))
        fx_common(d, "torch._inductor.output_code.CompiledFxGraph")
        check(sorted(str(e["guards_expr"]) for e in d["fx_entries"]) == sorted(["None", "None", "None", "2 <= L['t0']"]), "guards")
        for e in d["fx_entries"]:
            check("frozen_param_names" in e["fields"] and "allocated_constant_name" not in e["fields"], "2.7 fields")
        triton_named(d, lambda h: triton_dir_name(h, "b32"))
        check({k.get("triton_version") for k in d["triton_kernels"] if "name" in k} == {"3.3.0"}, "triton_version")
        check({(k.get("backend"), k.get("arch")) for k in d["triton_kernels"] if "name" in k} == {("cuda", "86")}, "targets")
        check(sorted(b["location"] for b in d["best_configs"]) == ["root"] + ["shard"] * 5, "best_configs %s" % [b["location"] for b in d["best_configs"]])
        check([b["device"] for b in d["benchmark_caches"]] == ["NVIDIA GeForce RTX 3090"], "benchmark")
        check([b["versions"].get("cuda") for b in d["benchmark_caches"]] == ["12.6"], "benchmark versions")
    elif name == "torch27rocm-vllm-tree":
        d = only_dir()
        check(sorted(fx(d)) == [("inference", 1)] * 2, "fx %s" % fx(d))
        fx_common(d, "torch._inductor.output_code.CompiledFxGraph")
        check(len(d["aot_entries"]) == 2 and all(a["forward_present"] and a["backward"] is None for a in d["aot_entries"]), "aot links")
        check(all(a["class"] == AOT + ".AOTAutogradCacheEntry" for a in d["aot_entries"]), "aot class")
        idx = facts["serving_indexes"]
        check(len(idx) == 1 and idx[0]["entries"] == 2 and len(idx[0]["graph_keys"]) == 2, "serving index %s" % idx)
        check(set(idx[0]["graph_keys"]) == {e["key"] for e in d["fx_entries"]} if idx else False, "index keys = fx keys")
        tc = facts["triton_caches"]
        kinds = collections.Counter((k.get("backend"), k.get("arch"), k.get("warp_size")) for t in tc for k in t["kernels"])
        check(kinds == {("hip", "gfx90a", 64): 2, (None, None, None): 1}, "triton_cache %s" % kinds)
    elif name == "torch28-cuda-debuglines":
        d = only_dir()
        check(fx(d) == [("inference", 1)], "fx %s" % fx(d))
        fx_common(d, "torch._inductor.output_code.CompiledFxGraph")
        e = d["fx_entries"][0] if d["fx_entries"] else {}
        check(e.get("debug_lines", 0) > 20 and e.get("torch_version_line") == "<bytes>", "debug lines")
        check([b["triton_cache_hash"] is not None for b in d["best_configs"]] == [True], "best_config triton_cache_hash")
        check({k.get("triton_version") for k in d["triton_kernels"] if "name" in k} == {"3.4.0"}, "triton_version")
    elif name == "traces":
        got = {t["path"]: [(e["artifact"], e["state"]) for e in t["cache_events"]] for t in facts["traces"]}
        check(len(got) == 5, "five logs, found %d" % len(got))
        ranks = {t["path"]: t["ranks"] for t in facts["traces"]}
        for path, events in make_traces_expected().items():
            check(got.get(path) == events, "%s: %s" % (path, got.get(path)))
        check(ranks.get("ranks/dedicated_log_torch_trace_rank_0_abc.log") == [0], "rank 0")
        check(ranks.get("ranks/dedicated_log_torch_trace_rank_1_def.log") == [1], "rank 1")
    elif name == "torch27-mega-bundle":
        b = facts["bundles"]
        check(len(b) == 1 and b[0]["form"] == "crc32+version", "bundle form")
        if b:
            check(b[0]["artifacts"] == {"inductor": 1, "autotune": 1}, "artifacts %s" % b[0]["artifacts"])
            check([(g.get("role"), g.get("bundle_kernels")) for g in b[0]["fx_graphs"]] == [("forward", 2)], "graphs")
    elif name == "torch24-debug-dump":
        check(not any(facts[k] for k in facts), "a debug dump holds no cache facts")
    return problems


_TRACES_EXPECTED = {}


def make_traces_expected():
    if not _TRACES_EXPECTED:
        _TRACES_EXPECTED.update(make_traces(MemoryTree()))
    return _TRACES_EXPECTED


def run_check(outdir, written):
    facts_module = load_facts_module()
    failed = False
    print("%-32s %6s %8s  %s" % ("source", "files", "bytes", "facts"))
    for name, files, size in written:
        facts = facts_module.walk(os.path.join(outdir, name, "cache"))
        problems = expect(name, facts)
        if size >= 100_000:
            problems.append("larger than 100 KB")
        print("%-32s %6d %8d  %s" % (name, files, size, summarize(facts)))
        for p in problems:
            print("    PROBLEM: %s" % p)
        failed |= bool(problems)
    total = sum(size for _, _, size in written)
    print("%-32s %6d %8d" % ("total", sum(f for _, f, _ in written), total))
    if total >= 1_500_000:
        print("    PROBLEM: larger than 1.5 MB in all")
        failed = True
    return not failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--check", action="store_true", help="read the sources back with facts.py and compare")
    args = parser.parse_args()
    written = write_all(args.outdir)
    if args.check:
        sys.exit(0 if run_check(args.outdir, written) else 1)
    for name, files, size in written:
        print("%s: %d files, %d bytes" % (name, files, size))


if __name__ == "__main__":
    main()
