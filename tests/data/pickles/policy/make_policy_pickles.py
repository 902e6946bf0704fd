#!/usr/bin/env python3
"""Makes the pickles tst_pickle_policy checks against the pickle policy.

Stub modules registered in sys.modules stand in for torch and triton, so
pickle.dumps emits the real module and class names without either installed;
nothing here imports PyTorch. Hostile pickles are written opcode by opcode
where pickle.dumps cannot express them. Run from this directory:

    python3 make_policy_pickles.py

Each output is named for what it holds; tst_pickle_policy says which rule each
hostile one must trigger.
"""

import copyreg
import dataclasses
import enum
import os
import pickle
import sys
import types


def stub_module(name):
    module = types.ModuleType(name)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(stub_module_get(parent), child, module)
    return module


def stub_module_get(name):
    return sys.modules.get(name) or stub_module(name)


def place(module_name, cls):
    module = stub_module_get(module_name)
    cls.__module__ = module_name
    cls.__qualname__ = cls.__name__
    setattr(module, cls.__name__, cls)
    return cls


GUARDS = "torch._guards"
SOURCE = "torch._dynamo.source"
RESULT = "torch._functorch._aot_autograd.aot_autograd_result"
SCHEMAS = "torch._functorch._aot_autograd.schemas"
PGO = "torch._dynamo.pgo"


# PyTorch >= 2.10 pickles a Source as (cls, field values): dataclass_with_cached_hash.
def source_class(name, *fields, base=None):
    def reduce(self):
        return (type(self), tuple(getattr(self, f) for f in fields))

    namespace = {"__reduce__": reduce, "__annotations__": {f: object for f in fields}}
    cls = dataclasses.dataclass(frozen=True)(type(name, (base or object,), namespace))
    return place(SOURCE, cls)


LocalSource = source_class("LocalSource", "local_name", "is_input")
GlobalSource = source_class("GlobalSource", "global_name")
AttrSource = source_class("AttrSource", "base", "member")
GlobalWeakRefSource = source_class("GlobalWeakRefSource", "global_name")
CurrentStreamSource = source_class("CurrentStreamSource", "device")
DefaultsSource = source_class("DefaultsSource", "base", "idx_key", "is_kw")
GetItemSource = source_class("GetItemSource", "base", "index", "index_is_slice")
TensorPropertySource = source_class("TensorPropertySource", "base", "prop", "idx")
TensorProperty = place(SOURCE, enum.Enum("TensorProperty", {"SIZE": 0, "STRIDE": 1}))
GuardSource = place(GUARDS, enum.Enum("GuardSource", {"LOCAL": 0, "GLOBAL": 1}))


class Device:
    def __init__(self, kind, index):
        self.kind, self.index = kind, index

    def __reduce__(self):
        return (Device, (self.kind, self.index))


place("torch", Device)
Device.__name__ = Device.__qualname__ = "device"
sys.modules["torch"].device = Device


@dataclasses.dataclass
class CompileId:
    frame_id: int
    frame_compile_id: int


place(GUARDS, CompileId)


class AOTAutogradResult:
    pass


place(RESULT, AOTAutogradResult)


class ViewAndMutationMeta:
    pass


place(SCHEMAS, ViewAndMutationMeta)

# The PGO-only classes.
CodeId = place(PGO, dataclasses.make_dataclass("CodeId", ["filename", "firstlineno", "name"], frozen=True))
FrameStateSizeEntry = place(PGO, dataclasses.make_dataclass("FrameStateSizeEntry", ["scalar"]))
CodeState = place(PGO, dataclasses.make_dataclass("CodeState", ["automatic_dynamic"]))


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


def realistic_aot_entry():
    """An AOTAutograd-like entry whose guards name Source classes no fixture has."""
    entry = AOTAutogradResult()
    meta = ViewAndMutationMeta()
    base = LocalSource("x", True)
    meta.sources = [
        GlobalSource("MODEL_SCALE"),
        AttrSource(GlobalSource("torch"), "float32"),
        GlobalWeakRefSource("ref"),
        CurrentStreamSource(Device("cuda", 0)),
        DefaultsSource(base, 0, False),
        GetItemSource(base, (slice, (1, 4, None)), True),
        TensorPropertySource(base, TensorProperty.STRIDE, 1),
    ]
    meta.guard_source = GuardSource.GLOBAL
    entry.runtime_metadata = meta
    entry.compile_id = CompileId(0, 1)
    return pickle.dumps(entry, protocol=4)


def pgo_profile():
    import collections

    state = CodeState(collections.defaultdict(FrameStateSizeEntry))
    state.automatic_dynamic["L['x']"] = FrameStateSizeEntry(3)
    return pickle.dumps(collections.defaultdict(int, {CodeId("m.py", 1, "f"): state}), protocol=4)


# Opcode-level helpers (protocol 2 framing-free) for what dumps cannot express.
PROTO2 = b"\x80\x02"


def glob(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def text(s):
    data = s.encode()
    return b"X" + len(data).to_bytes(4, "little") + data


def build(module, name, state):
    """NEWOBJ module.name, then BUILD with `state` (a pickled dict)."""
    return glob(module, name) + b")\x81" + state + b"b"


def pdict(*items):
    """A dict from (key bytes, value bytes) pairs."""
    return b"}" + b"".join(k + v + b"s" for k, v in items)


def plist(*items):
    return b"]" + b"".join(i + b"a" for i in items)


def pint(n):
    return b"J" + n.to_bytes(4, "little", signed=True)


TRUE = b"\x88"
NONE = b"N"
WRAPPERS = "torch._functorch._aot_autograd.runtime_wrappers"
HEURISTICS = "torch._inductor.runtime.triton_heuristics"
LAUNCHER = "torch._inductor.runtime.static_triton_launcher"


def static_autotuner(inductor_meta, config_kwargs=None, constants=None, arg_names=None):
    """A CachingAutotuner holding one StaticTritonCompileResult, as TritonBundle keeps it."""
    names = arg_names or [text("in_ptr0"), text("xnumel"), text("XBLOCK")]
    kernel = build(LAUNCHER, "StaticallyLaunchedCudaKernel", pdict(
        (text("name"), text("triton_poi_fused_0")),
        (text("arg_names"), plist(*names)),
        (text("cubin_raw"), NONE)))
    config = build("triton.runtime.autotuner", "Config", pdict(
        (text("kwargs"), pdict(*(config_kwargs or [(text("XBLOCK"), pint(1024))]))),
        (text("num_warps"), pint(4))))
    compile_meta = pdict((text("constants"), pdict(*(constants or [(text("XBLOCK"), pint(1024))]))))
    result = build(HEURISTICS, "StaticTritonCompileResult", pdict(
        (text("kernel"), kernel), (text("config"), config),
        (text("compile_meta"), compile_meta), (text("inductor_meta"), inductor_meta)))
    jit = build("triton.runtime.jit", "JITFunction", pdict((text("fn"), NONE),
                                                          (text("arg_names"), plist(*names))))
    return PROTO2 + build(HEURISTICS, "CachingAutotuner", pdict(
        (text("fn"), jit), (text("inductor_meta"), inductor_meta),
        (text("compile_results"), plist(result)),
        (text("triton_interpret"), b"\x89"), (text("dump_launch_params"), b"\x89"))) + b"."


def main():
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    write("aot_entry_sources.pkl", realistic_aot_entry())
    write("pgo_profile.pkl", pgo_profile())
    # os.system('id')
    write("os_system.pkl", PROTO2 + glob("os", "system") + text("id") + b"\x85R.")
    # getattr(LocalSource, '__class__')
    write("getattr_dunder.pkl",
          PROTO2 + glob("builtins", "getattr") + glob(SOURCE, "LocalSource")
          + text("__class__") + b"\x86R.")
    # getattr(LocalSource, 7): a name that is not a str
    write("getattr_computed.pkl",
          PROTO2 + glob("builtins", "getattr") + glob(SOURCE, "LocalSource") + b"K\x07\x86R.")
    # getattr(subprocess.Popen, 'wait'): a class outside the table
    write("getattr_foreign_class.pkl",
          PROTO2 + glob("builtins", "getattr") + glob("subprocess", "Popen")
          + text("wait") + b"\x86R.")
    # TensorProperty(os.getcwd): an enum called with a callable
    write("enum_with_callable.pkl",
          PROTO2 + glob(SOURCE, "TensorProperty") + glob("os", "getcwd") + b"\x85R.")
    # NEWOBJ collections.OrderedDict: a callable built as a class
    write("newobj_callable.pkl",
          PROTO2 + glob("collections", "OrderedDict") + b")\x81.")
    # builtins.eval('1') and builtins.exec('pass')
    write("builtins_eval.pkl", PROTO2 + glob("builtins", "eval") + text("1") + b"\x85R.")
    write("builtins_exec.pkl", PROTO2 + glob("builtins", "exec") + text("pass") + b"\x85R.")
    # EXT1 1, then called
    write("extension.pkl", PROTO2 + b"\x82\x01)R.")
    # CodeId (allowed only in PGO profiles) in an entry
    write("pgo_class_in_entry.pkl", PROTO2 + glob(PGO, "CodeId") + b")\x81.")
    # CompiledAOTI: its post_compile loads the .so it names and writes _cached_files
    write("compiled_aoti.pkl",
          PROTO2 + glob("torch._inductor.output_code", "CompiledAOTI") + b")\x81"
          + b"}" + text("filename") + text("/tmp/payload.so") + b"s"
          + text("device_type") + text("cpu") + b"s"
          + text("_cached_files") + b"}" + text("/tmp/payload.so") + b"C\x04\x7fELF" + b"s"
          + b"s" + b"b.")
    # TritonCompileResult: only crosses the compile-worker pipe; rebuilds a CompiledKernel
    write("triton_compile_result.pkl",
          PROTO2 + glob("torch._inductor.runtime.triton_heuristics", "TritonCompileResult")
          + b")\x81" + b"}" + text("kernel") + b"}" + b"s" + b"b.")
    # RuntimeWrapper in dispatch_wrappers: PyTorch builds it at load, never pickles it;
    # main's post_compile would exec Python built from this index
    write("runtime_wrapper_in_entry.pkl",
          PROTO2 + glob("torch._functorch._aot_autograd.runtime_wrappers", "RuntimeWrapper")
          + b")\x81" + b"}" + text("indices_of_inps_to_detach") + b"]"
          + text("0]; __import__('os').system('id'); _ = [0") + b"a" + b"s" + b"b.")
    # ---- field shapes: allowed classes whose fields PyTorch turns into code
    # A static autotuner with every grid kind Inductor writes: no finding.
    precomputed = pdict(
        (text("config"), pdict((text("XBLOCK"), pint(1024)))),
        (text("python"), plist(text("-((xnumel) // -(1024))"), text("max(ks0, 2) * 3"), pint(1))),
        (text("cpp"), plist(text("((xnumel + 1023L) / 1024L)"), text("std::max(ks0, 2L)"), text("1L"))),
        (text("python_slow"), plist(text("50176"), text("1"), text("1"))))
    combo = pdict((text("num_kernels"), pint(2)), (text("xnumel_0"), NONE),
                  (text("xnumel_1"), pint(64)), (text("no_x_dim_0"), b"\x89"),
                  (text("default_config"), pdict((text("XBLOCK"), pint(8)))))
    meta = pdict(
        (text("grid_type"), text("PrecomputedGrid")),
        (text("precomputed_grids"), plist(precomputed)),
        (text("fixed_grid"), plist(text("_grid_0"), text("_grid_1"), text("_grid_2"))),
        (text("extra_launcher_args"), plist(text("_grid_0"), text("_grid_1"), text("_grid_2"))),
        (text("combo_grid_meta"), combo))
    write("static_autotuner_grids.pkl", static_autotuner(
        meta, constants=[(text("XBLOCK"), pint(1024)), (text("MODE"), text("ieee")), (text("p"), NONE)]))
    # base_groups with a str where PyTorch writes ints
    write("field_base_groups_str.pkl",
          PROTO2 + build(WRAPPERS, "AOTSyntheticBaseWrapper", pdict(
              (text("trace_joint"), b"\x89"),
              (text("base_groups"), plist(pint(0), text("0]; __import__('os').system('id'); _ = [0"))))) + b".")
    # a kernel argument name that closes the launcher's def and runs code
    write("field_arg_name_code.pkl", PROTO2 + build(LAUNCHER, "StaticallyLaunchedCudaKernel", pdict(
        (text("name"), text("triton_poi_fused_0")),
        (text("arg_names"), plist(text("in_ptr0"), text('x); import os; os.system("id"); ('))))) + b".")
    # a fixed grid that calls something
    write("field_fixed_grid_call.pkl", PROTO2 + build(HEURISTICS, "StaticTritonCompileResult", pdict(
        (text("inductor_meta"), pdict(
            (text("grid_type"), text("FixedGrid")),
            (text("fixed_grid"), plist(text("__import__('os').system('id')"), text("1"), text("1"))))))) + b".")
    # triton_interpret=True: run() goes through JITFunction.run's generated binder
    write("field_triton_interpret.pkl", PROTO2 + build(HEURISTICS, "CachingAutotuner", pdict(
        (text("triton_interpret"), TRUE))) + b".")
    # JITFunction.fn set: Triton would compile it again from source
    write("field_jit_fn.pkl", PROTO2 + build("triton.runtime.jit", "JITFunction", pdict(
        (text("fn"), text("def kernel(x):\n    import os\n")))) + b".")
    # a compile_meta str constant that leaves its r'...' quotes
    write("field_constant_quote.pkl", PROTO2 + build(HEURISTICS, "StaticTritonCompileResult", pdict(
        (text("compile_meta"), pdict((text("constants"), pdict(
            (text("num_warps"), text("' + __import__('os').getcwd() + '")))))))) + b".")
    # a nested pickle PyTorch loads in post_compile, holding os.system
    inner = PROTO2 + glob("os", "system") + text("id") + b"\x85R."
    write("field_nested_pickle.pkl", PROTO2 + build("torch._inductor.output_code", "CompiledFxGraph", pdict(
        (text("_serialized_original_gm"), b"C" + bytes([len(inner)]) + inner))) + b".")
    # reduce_graph_module({'_code': ...}, import_block): code for the audit
    write("graph_module.pkl",
          PROTO2 + glob("torch.fx.graph_module", "reduce_graph_module")
          + b"}" + text("_code") + text("def forward(self, x):\n    return x\n") + b"s"
          + text("import torch") + b"\x86R.")


if __name__ == "__main__":
    main()
