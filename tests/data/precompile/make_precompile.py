#!/usr/bin/env python3
"""Makes the precompiled-function files tst_precompile reads besides the real
ones (tests/data/real-fixtures: precompile, dynamo_cache): torch.compile's AOT
precompile file (save_compiled_function) in each layout PyTorch wrote, the
DynamoCache (cache_dir()/dynamo/<key>/entry, and the two-file layout of about
2.9), and every way such a file can be hostile or damaged (README.md lists them).

Taken from PyTorch's source (2.11: torch/_dynamo/package.py, aot_compile.py,
aot_compile_types.py, guards.py, precompile_context.py; the older layouts from
the 2.9/2.10-era copies of the same files) and checked against what 2.11 wrote
on an H200: the module and class names, the field names and their order, how
each object pickles (a dataclass as NEWOBJ + BUILD(__dict__); Guard and
FrameSummary with a slots state (None, {...}); torch._dynamo.source's sources
as REDUCE(cls, fields); _ShapeGuardsHelper with a list state; tensors as
getattr(GuardsStatePickler, '_unpickle_tensor')(meta, device, type, keys,
grad); TorchVersion as NEWOBJ(TorchVersion, (str,))), where a pickle nests in
bytes (guards_state, compiled_fn[1], an old backend's content), the DynamoCache
key sha256(qualname + str(firstlineno)), InlinedSource.checksum and
CompiledFxGraph.cache_key (codecache.code_hash).

Not from PyTorch: the values. The functions, shapes, backend ids, sources and
the Inductor wrapper are made up; code objects are compiled here from small
sources and never run, so co_code is this Python's bytecode: run it with
Python 3.12 (as the fixtures' producer was) to get the checked-in bytes.

Nothing here imports PyTorch: stand-in classes with PyTorch's module and
qualified names are put in sys.modules, so pickle writes the globals and the
shapes PyTorch's objects have. Output is deterministic (the script re-runs
itself with PYTHONHASHSEED=0, for the order of sets). Run from anywhere:

    python3.12 make_precompile.py [--out DIR]     # DIR: this script's folder
"""

import argparse
import base64
import collections
import copyreg
import functools
import hashlib
import inspect
import io
import os
import pickle
import pickletools
import random
import shutil
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = "/tmp/cachelens-precompile-marker"
TOUCH = "touch " + MARKER

IMPORT_ALIAS = "__import_torch_dot__dynamo_dot_utils"
FN_ID = "__compiled_fn_1_73d33ae1_68ab_4fd8_8e10_12b8d5010613"    # fn.bin's own id
FN32_ID = "__compiled_fn_2_4b1f0e6a_93c2_4d57_a0be_21f3c8d95e47"  # model_list's second
MLP_ID = "__compiled_fn_1_9a6c3f02_5e1d_4b8a_b7f4_0c2e8d61a935"
FLAT_ID = "__compiled_fn_1_2f8e4c1a_07b3_4e9d_8c65_d1a3b9e07f24"
G_ID = "__compiled_fn_1_c414598f_20f0_4738_9478_05e28649675a"     # the DynamoCache fixture's
H_ID = "__compiled_fn_3_5e0d8a9c_41b2_4c7f_9e36_8f2a1d0c7b54"     # named, never stored
G_KEY = "239261316e505a034abae9a2c9f0f69e94af25d0c2253f753d10824ac5c9c34d"
DISPATCH_KEYS = 281646775468034  # DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA)
GLOBAL_STATE = (
    '{"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":'
    '{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,'
    'false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":'
    'false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":16,'
    '"torch_function":true,"torch_function_all_disabled":false}')


# ---- stand-ins: PyTorch's names, none of its code ------------------------------

def module(name):
    parts = name.split(".")
    assert parts[0] == "torch", name  # never shadow a real module
    for i in range(1, len(parts) + 1):
        full = ".".join(parts[:i])
        sys.modules.setdefault(full, types.ModuleType(full))
        if i > 1:
            setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], sys.modules[full])
    return sys.modules[name]


# traceback is real Python; its stand-in is in sys.modules only while pickling
# (dumps()), so FrameSummary's state does not depend on this Python's version.
TRACEBACK = types.ModuleType("traceback")


def place(owner_module, qualname, obj):
    owner = TRACEBACK if owner_module == "traceback" else module(owner_module)
    *outer, name = qualname.split(".")
    for part in outer:
        owner = getattr(owner, part)
    setattr(owner, name, obj)
    obj.__module__, obj.__qualname__, obj.__name__ = owner_module, qualname, name
    return obj


def stand_in(owner_module, qualname, base=None):
    return place(owner_module, qualname, type("_", (base or Record,), {}))


def stub(owner_module, qualname):
    def function(*args, **kwargs):
        raise RuntimeError("a stand-in: nothing here is ever called")
    return place(owner_module, qualname, function)


class Record:
    """NEWOBJ(cls, ()) + BUILD(__dict__): how a dataclass pickles."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


class FrozenRecord(Record):
    """A frozen dataclass: hashed by its fields (it goes in sets)."""

    def __hash__(self):
        return hash(tuple(self.__dict__.values()))

    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__


class SlotsRecord(Record):
    """BUILD((None, {slot: value})): a class with __slots__ (Guard, FrameSummary)."""

    def __reduce_ex__(self, protocol):
        return copyreg.__newobj__, (type(self),), (None, dict(self.__dict__))


class ListStateRecord(Record):
    """BUILD([values]): a dataclass(slots=True) (_ShapeGuardsHelper)."""

    def __reduce_ex__(self, protocol):
        return copyreg.__newobj__, (type(self),), list(self.__dict__.values())


class StrStateRecord(Record):
    """BUILD(<str>): GlobalStateGuard, whose C++ __getstate__ gives JSON."""

    def __reduce_ex__(self, protocol):
        return copyreg.__newobj__, (type(self),), self.state


class FieldsRecord(Record):
    """REDUCE(cls, (fields...)): torch._dynamo.source's frozen dataclasses."""

    def __reduce_ex__(self, protocol):
        return type(self), tuple(self.__dict__.values())


class ListArg:
    """REDUCE(cls, ([items],)): OrderedSet."""

    def __init__(self, items):
        self.items = list(items)

    def __reduce_ex__(self, protocol):
        return type(self), (self.items,)


class Args:
    """REDUCE(cls, args): torch.device('cuda', 0)."""

    def __init__(self, *args):
        self.args = args

    def __reduce__(self):
        return type(self), self.args


class ByName:
    """A global reached by name: torch.float32 (torch.dtype.__reduce__ gives 'float32')."""

    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return self.name


class Getattr:
    """REDUCE(builtins.getattr, (target, name)): how a bound classmethod pickles."""

    def __init__(self, target, name):
        self.target, self.name = target, name

    def __reduce__(self):
        return getattr, (self.target, self.name)

    def __call__(self, *args):  # pickle wants a callable; never called
        raise RuntimeError("a stand-in: nothing here is ever called")


class Call:
    """REDUCE(func, args); pickling it never calls func."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


# torch
TorchVersion = place("torch.torch_version", "TorchVersion", type("_", (str,), {}))
Tensor = stand_in("torch", "Tensor")
device = stand_in("torch", "device", Args)
dtype = stand_in("torch", "dtype", ByName)
module("torch").float32 = dtype("float32")
rebuild_meta_tensor = stub("torch._utils", "_rebuild_meta_tensor_no_storage")
OrderedSet = stand_in("torch.utils._ordered_set", "OrderedSet", ListArg)
CapturedTraceback = stand_in("torch.utils._traceback", "CapturedTraceback", SlotsRecord)
StackSummary = place("traceback", "StackSummary", type("_", (list,), {}))
FrameSummary = stand_in("traceback", "FrameSummary", SlotsRecord)

# torch._dynamo
SerializedCode = stand_in("torch._dynamo.package", "SerializedCode")
SourceInfo = stand_in("torch._dynamo.package", "SourceInfo")
InlinedSource = stand_in("torch._dynamo.package", "InlinedSource", FrozenRecord)
SystemInfo = stand_in("torch._dynamo.package", "SystemInfo")
PrecompileCacheEntry = stand_in("torch._dynamo.package", "PrecompileCacheEntry")
DynamoCacheEntry = stand_in("torch._dynamo.package", "_DynamoCacheEntry")
DynamoCodeCacheEntry = stand_in("torch._dynamo.package", "_DynamoCodeCacheEntry")
GuardedCodeCacheEntry = stand_in("torch._dynamo.package", "_GuardedCodeCacheEntry")
SystemInfo210 = stand_in("torch._dynamo.precompile_context", "SystemInfo")
GraphRuntimeEnv = stand_in("torch._dynamo.convert_frame", "GraphRuntimeEnv")
BundledCallable = stand_in("torch._dynamo.aot_compile_types",
                           "BundledAOTAutogradSerializableCallable")
GuardsState = stand_in("torch._dynamo.guards", "GuardsState")
ShapeCodeParts = stand_in("torch._dynamo.guards", "ShapeCodeParts")
GuardsStatePickler = stand_in("torch._dynamo.guards", "GuardsStatePickler")
GuardBuilder = stand_in("torch._dynamo.guards", "GuardBuilder")
GUARD_KINDS = ("TENSOR_MATCH", "AUTOGRAD_SAVED_TENSORS_HOOKS", "GRAD_MODE",
               "DETERMINISTIC_ALGORITHMS", "GLOBAL_STATE", "TORCH_FUNCTION_STATE",
               "DEFAULT_DEVICE", "SHAPE_ENV")
BUILD_FN = {kind: stub("torch._dynamo.guards", "GuardBuilder." + kind) for kind in GUARD_KINDS}
OutputGraphGuardsState = stand_in("torch._dynamo.output_graph", "OutputGraphGuardsState")
LocalSource = stand_in("torch._dynamo.source", "LocalSource", FieldsRecord)
GlobalStateSource = stand_in("torch._dynamo.source", "GlobalStateSource", FieldsRecord)
ShapeEnvSource = stand_in("torch._dynamo.source", "ShapeEnvSource", FieldsRecord)
Guard = stand_in("torch._guards", "Guard", SlotsRecord)
GuardsSet = stand_in("torch._guards", "GuardsSet")
GlobalStateGuard = stand_in("torch._C._dynamo.guards", "GlobalStateGuard", StrStateRecord)
ShapeGuardsHelper = stand_in("torch.fx.experimental.symbolic_shapes", "_ShapeGuardsHelper",
                             ListStateRecord)

# AOTAutograd / Inductor: 2.11, and the 2.9 names the old backends file uses
RESULT = "torch._functorch._aot_autograd.aot_autograd_result"
BundledAOTAutogradResult = stand_in(RESULT, "BundledAOTAutogradResult")
BundledCompiledForward = stand_in(RESULT, "BundledCompiledForward")
BundledAOTAutogradCacheArtifact = stand_in(RESULT, "BundledAOTAutogradCacheArtifact")
OLD_CACHE = "torch._functorch._aot_autograd.autograd_cache"
BundledAOTAutogradCacheEntry29 = stand_in(OLD_CACHE, "BundledAOTAutogradCacheEntry")
BundledCompiledForward29 = stand_in(OLD_CACHE, "BundledCompiledForward")
BundledAOTAutogradCacheArtifact29 = stand_in(OLD_CACHE, "BundledAOTAutogradCacheArtifact")
CompiledFxGraph = stand_in("torch._inductor.output_code", "CompiledFxGraph")
TritonBundle = stand_in("torch._inductor.triton_bundler", "TritonBundle")
TritonKernelArtifacts = stand_in("torch._inductor.triton_bundler", "TritonKernelArtifacts")
TritonKernelArtifact = stand_in("torch._inductor.triton_bundler", "TritonKernelArtifact")


class System:
    """Pickles as os.system(<touch MARKER>) (posix.system on Linux): a hostile value."""

    def __reduce__(self):
        return os.system, (TOUCH,)


class Eval:
    """Pickles as builtins.eval(<an expression that runs os.system>)."""

    def __reduce__(self):
        return eval, ("__import__('os').system(%r)" % TOUCH,)


def dumps(obj):
    """pickle.dumps as PyTorch calls it on Python 3.12 (DEFAULT_PROTOCOL 4)."""
    real = sys.modules.get("traceback")
    sys.modules["traceback"] = TRACEBACK
    try:
        return pickle.dumps(obj, protocol=4)
    finally:
        sys.modules["traceback"] = real


# ---- code objects: compiled here, stored as data, never run --------------------

CODE_KEYS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals",
             "co_stacksize", "co_flags", "co_code", "co_consts", "co_names", "co_varnames",
             "co_filename", "co_name", "co_firstlineno", "co_cellvars", "co_freevars",
             "co_linetable", "co_qualname", "co_exceptiontable", "co_lnotab")


def find_code(code, qualname):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if getattr(const, "co_qualname", const.co_name) == qualname:
                return const
            found = find_code(const, qualname)
            if found is not None:
                return found
    return None


def compiled(source, qualname, filename="<string>"):
    """The code object of `qualname` in `source`: compile() only, no exec."""
    code = find_code(compile(source, filename, "exec"), qualname)
    assert code is not None, qualname
    return code


def serialized(code):
    """SerializedCode.from_code_object: every field, nested code objects too;
    co_lnotab is None since 3.11 (get_code_keys leaves it out)."""
    fields = {}
    for key in CODE_KEYS:
        value = None if key == "co_lnotab" else getattr(code, key, None)
        if key == "co_consts":
            value = tuple(serialized(c) if isinstance(c, types.CodeType) else c for c in value)
        fields[key] = value
    return SerializedCode(**fields)


def at_line(lineno, text):
    return "\n" * (lineno - 1) + text


def dynamo_code(name, params, backend, lineno, hostile=False, filename="<string>"):
    """Code shaped as Dynamo's transformed bytecode: co_names are the backend id,
    the torch._dynamo.utils alias and its two record_pregraph_bytecode_* calls
    (and os, system when hostile)."""
    args = ", ".join(params)
    lines = [f"def {name}({args}):",
             f"    graph_out_0 = {backend}(*({IMPORT_ALIAS}.record_pregraph_bytecode_enter(), "
             f"{args}, {IMPORT_ALIAS}.record_pregraph_bytecode_exit(None))[1:{len(params) + 1}])",
             "    tmp_1 = graph_out_0[0]"]
    if hostile:
        lines.append(f"    os.system({TOUCH!r})")
    lines.append("    return tmp_1")
    return serialized(compiled(at_line(lineno, "\n".join(lines) + "\n"), name, filename))


def import_sources(hostile=False):
    sources = {IMPORT_ALIAS: "torch._dynamo.utils"}
    if hostile:
        sources["os"] = "os"
    return sources


def external_refs(backend, hostile=False):
    return {IMPORT_ALIAS, backend} | ({"os"} if hostile else set())


# ---- sources that InlinedSource hashes -------------------------------------------

MLP_SOURCE = '''"""A two-layer MLP: the module whose source the precompile fixtures inline."""
import torch
from torch import nn


def gelu_tanh(x):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + torch.tanh(inner))


class MLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, d_out=8):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        h = self.fc1(x)
        h = gelu_tanh(h)
        return self.fc2(h)
'''
# One line inside MLP.forward's span changed (the second InlinedSource as pickled).
MLP_CHANGED = MLP_SOURCE.replace("        h = gelu_tanh(h)\n", "        h = torch.relu(h)\n")
assert MLP_CHANGED != MLP_SOURCE
MLP_FILENAME = "/home/user/project/mymodels/mlp.py"


def inlined_source(content, qualname, module_name="mymodels.mlp", with_content=True):
    """SourceInfo.add_code: the span inspect.getsourcelines gives, hashed as
    _hash_source("".join(lines[first-1:last-1])); content is the whole module."""
    code = compiled(content, qualname)
    lines = content.splitlines(keepends=True)
    first = code.co_firstlineno
    last = first + len(inspect.getblock(lines[first - 1:]))
    checksum = hashlib.sha256("".join(lines[first - 1:last - 1]).encode()).hexdigest()
    fields = dict(module=module_name, firstlineno=first, lastlineno=last, checksum=checksum)
    if with_content:
        fields["content"] = content
    return InlinedSource(**fields)


# ---- guards -------------------------------------------------------------------------

def signed_hash(text):
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little", signed=True)


def tensor(size, stride):
    """GuardsStatePickler's reducer for a tensor: a fake tensor rebuilt from meta."""
    meta = Call(rebuild_meta_tensor, module("torch").float32, size, stride, False)
    return Call(Getattr(GuardsStatePickler, "_unpickle_tensor"),
                meta, device("cuda", 0), Tensor, DISPATCH_KEYS, None)


def guard(source, kind, create_fn=None, types_=None, code=None, stack=None, user_stack=None):
    return Guard(originating_source=source, create_fn=create_fn or BUILD_FN[kind],
                 guard_types=types_, code_list=code, obj_weakref=None,
                 guarded_class_weakref=None, stack=stack, user_stack=user_stack,
                 _hash=signed_hash(f"{kind}:{getattr(source, 'local_name', '')}"),
                 _unserializable=False)


def guards_state(inputs, fn_name, lineno, shape_exprs=(), hostile=False):
    """inputs: [(name, size, stride)]. The first input's TENSOR_MATCH names the
    function itself; the others a functools.partial with value=<tensor>, as 2.11
    wrote them, with a user_stack."""
    local_scope, sizes, guards = {}, {}, []
    for i, (name, size, stride) in enumerate(inputs):
        value = local_scope[name] = tensor(size, stride)
        source = LocalSource(local_name=name, is_input=True, dynamism=None,
                             is_derefed_cell_contents=False)
        sizes[source] = {"size": size, "stride": stride}
        code = [f"check_tensor(L['{name}'], Tensor, DispatchKeySet(CUDA, BackendSelect, "
                f"ADInplaceOrView, AutogradCUDA), torch.float32, device=0, requires_grad=False, "
                f"size={list(size)}, stride={list(stride)})",
                f"hasattr(L['{name}'], '_dynamo_dynamic_indices') == False"]
        if i == 0:
            guards.append(guard(source, "TENSOR_MATCH", types_=["TENSOR_MATCH"], code=code))
        else:
            frame = FrameSummary(filename="<string>", lineno=lineno + 1, end_lineno=None,
                                 colno=None, end_colno=None, name=fn_name, _line="",
                                 locals=None)
            guards.append(guard(source, "TENSOR_MATCH",
                                create_fn=functools.partial(BUILD_FN["TENSOR_MATCH"],
                                                            value=value),
                                types_=["TENSOR_MATCH"], code=code,
                                user_stack=StackSummary([frame])))
    texts = {"AUTOGRAD_SAVED_TENSORS_HOOKS":
             ["torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None"],
             "DEFAULT_DEVICE": ["utils_device.CURRENT_DEVICE == None"]}
    for kind in GUARD_KINDS[1:-1]:
        guards.append(guard(GlobalStateSource(), kind,
                            types_=[kind] if kind in texts else None, code=texts.get(kind),
                            stack=CapturedTraceback(tb=None, skip=2)))
    guards.append(guard(ShapeEnvSource(), "SHAPE_ENV", stack=CapturedTraceback(tb=None, skip=2)))

    builtins_key = "__builtins_dict___0"
    global_scope = {builtins_key: {}}
    if hostile:
        global_scope["__cachelens_hostile"] = Eval()
    output_graph = OutputGraphGuardsState(
        local_scope=local_scope, global_scope=global_scope, torch_function_mode_stack=[],
        guard_on_key_order=set(), input_source_to_sizes_strides=sizes, dual_level=-1,
        functorch_layers=[], current_device=None,
        global_state_guard=GlobalStateGuard(state=GLOBAL_STATE),
        _guards=GuardsSet(inner=OrderedSet(guards)), _aotautograd_guards=[], export=False,
        skip_guards_check=True, export_constraints=None,
        name_of_builtins_dict_key_in_fglobals=builtins_key)
    shape = ShapeCodeParts(
        python_code_parts=ShapeGuardsHelper(exprs=list(shape_exprs)),
        verbose_code_parts=ShapeGuardsHelper(exprs=list(shape_exprs)),
        cpp_code_parts=None, python_fallback=True, shape_env_sources=[])
    return dumps(GuardsState(output_graph=output_graph, shape_code_parts=shape))


# ---- the compiled graph: a bundled AOTAutograd result ---------------------------

def wrapper(rows):
    """An Inductor wrapper module for (x @ y.T).relu(), x: [rows, 32], y: [8, 32]."""
    n = rows * 8
    return f'''# AOT ID: ['0_inference']
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
import triton
import triton.language as tl
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
async_compile = AsyncCompile()


# Topologically Sorted Source Nodes: [relu], Original ATen: [aten.relu]
triton_poi_fused_relu_0 = async_compile.triton('triton_poi_fused_relu_0', \'\'\'
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={{'x': {max(n, 128)}}},
    filename=__file__,
    triton_meta={{'signature': {{'in_out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {{}}}},
    inductor_meta={{'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_relu_0', 'mutated_arg_names': ['in_out_ptr0']}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_relu_0(in_out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = {n}
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_out_ptr0 + (x0), xmask)
    tmp1 = tl.full([1], 0, tl.int32)
    tmp2 = triton_helpers.maximum(tmp1, tmp0)
    tl.store(in_out_ptr0 + (x0), tmp2, xmask)
\'\'\', device_str='cuda')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, arg1_1 = args
    args.clear()
    assert_size_stride(arg0_1, ({rows}, 32), (32, 1))
    assert_size_stride(arg1_1, (8, 32), (32, 1))
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        buf0 = empty_strided_cuda(({rows}, 8), (8, 1), torch.float32)
        # Topologically Sorted Source Nodes: [matmul], Original ATen: [aten.mm]
        extern_kernels.mm(arg0_1, reinterpret_tensor(arg1_1, (32, 8), (1, 32), 0), out=buf0)
        del arg0_1
        del arg1_1
        buf1 = buf0; del buf0  # reuse
        # Topologically Sorted Source Nodes: [relu], Original ATen: [aten.relu]
        stream0 = get_raw_stream(0)
        triton_poi_fused_relu_0.run(buf1, {n}, stream=stream0)
    return (buf1, )


def benchmark_compiled_module(times=10, repeat=10):
    from torch._dynamo.testing import rand_strided
    from torch._inductor.utils import print_performance
    arg0_1 = rand_strided(({rows}, 32), (32, 1), device='cuda:0', dtype=torch.float32)
    arg1_1 = rand_strided((8, 32), (32, 1), device='cuda:0', dtype=torch.float32)
    fn = lambda: call([arg0_1, arg1_1])
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    compiled_module_main('None', benchmark_compiled_module)
'''


def code_hash(source):
    """codecache.code_hash: what CompiledFxGraph.cache_key is of its source_code."""
    digest = hashlib.sha256(source.strip().encode()).digest()
    return "c" + base64.b32encode(digest).decode().lower()[:51]


def cubin_stub():
    header = bytearray(64)
    header[0:4], header[4], header[5], header[7], header[8] = b"\x7fELF", 2, 1, 0x41, 8
    header[18:20] = (190).to_bytes(2, "little")  # EM_CUDA
    return bytes(header)


def fx_graph(rows):
    source = wrapper(rows)
    kernel_hash = base64.b32encode(hashlib.sha256(source.encode()).digest()).decode()[:52]
    meta = ('{"hash": "%s", "target": {"backend": "cuda", "arch": 90, "warp_size": 32}, '
            '"num_warps": 4, "num_stages": 1, "name": "triton_poi_fused_relu_0"}'
            % hashlib.sha256(kernel_hash.encode()).hexdigest())
    bundle = TritonBundle(
        kernel_artifacts=[TritonKernelArtifacts(
            kernel_hash=kernel_hash, device=0,
            artifacts=[TritonKernelArtifact(filename="triton_poi_fused_relu_0.json",
                                            payload=meta.encode()),
                       TritonKernelArtifact(filename="triton_poi_fused_relu_0.cubin",
                                            payload=cubin_stub())])],
        static_autotuners=[])
    return CompiledFxGraph(
        current_callable=None, compiled_fn_runner=None, recursively_apply_fns=None,
        cache_key=code_hash(source), source_code=source,
        runnable_graph_str=("\nimport os\nos.environ['TORCHINDUCTOR_CACHE_DIR'] = "
                            "'/tmp/torchinductor_user'\nimport torch\n"),
        inductor_post_grad_graph_str=(
            "class <lambda>(torch.nn.Module):\n    def forward(self, arg0_1: "
            f"\"f32[{rows}, 32][32, 1]cuda:0\", arg1_1: \"f32[8, 32][32, 1]cuda:0\"):\n"
            "        permute = torch.ops.aten.permute.default(arg1_1, [1, 0])\n"
            "        mm = torch.ops.aten.mm.default(arg0_1, permute)\n"
            "        relu = torch.ops.aten.relu.default(mm)\n        return (relu,)\n"),
        inductor_provenance_mapping_str=None, inductor_provenance_stack_traces_str=None,
        cache_linemap=[], device_types=OrderedSet(["cuda"]), device_idxs=OrderedSet([0]),
        mutated_inputs=OrderedSet([]), mutated_input_idxs=OrderedSet([]), constants={},
        frozen_param_names={}, torchbind_constants={}, output_strides=[("8", "1")],
        disabled_cudagraphs_reason=None,
        counter_deltas=collections.Counter({"extern_calls": 1, "async_compile_cache_miss": 1}),
        guards_expr=None, cudagraph_info=None, partition_maps=[],
        fx_kwargs={"static_input_idxs": [], "is_inference": True, "is_backward": False,
                   "cpp_wrapper": False},
        inputs_to_check=[0, 1], _boxed_call=True, _wrap_compiled_regions=False,
        _triton_bundle=bundle, _fx_graph_cache_key=None, _fx_graph_cache_debug_lines=None)


def bundled_result(rows, result_cls=BundledAOTAutogradResult, forward_cls=BundledCompiledForward):
    return result_cls(
        compiled_fw=forward_cls(result=fx_graph(rows)), compiled_bw=None,
        aot_joint_graph_str=None,
        aot_forward_graph_str=("class GraphModule(torch.nn.Module):\n    def forward(self, "
                               "arg0_1, arg1_1):\n        ...\n"),
        aot_backward_graph_str=None, dispatch_wrappers=[], maybe_subclass_meta=None,
        num_fw_outs_saved_for_bw=None, indices_of_inps_to_detach=[],
        forward_time_taken_ns=31250000, backward_time_taken_ns=0, guards_expr=None,
        serialized_bw_module=None)


def compiled_fn(rows):
    """(getattr(BundledAOTAutogradSerializableCallable, 'deserialize_compile_artifacts'),
    pickle of (result, triton_kernels, triton_constant_args)) as 2.11 writes it."""
    return (Getattr(BundledCallable, "deserialize_compile_artifacts"),
            dumps((bundled_result(rows), {}, {})))


# ---- the AOT precompile file --------------------------------------------------------

FN_SOURCE = at_line(3, "def fn(x, y):\n    return (x @ y.T).relu()\n")


def signature(*names):
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature([inspect.Parameter(name, kind) for name in names])


def system_info():
    return SystemInfo(python_version="3.12.3", torch_version=TorchVersion("2.11.0+cu130"),
                      toolkit_version="13.0", triton_version=(3, 6), gpu_name="NVIDIA H200")


def aot_state(rows=16, backend=FN_ID, hostile_code=False, hostile_guards=False):
    """CompileArtifacts.__dict__ as AOTCompiledFunction.serialize dumps it (2.11, G-A)."""
    return {
        "signature": signature("x", "y"),
        "guard_manager": None,
        "guards_state": guards_state([("x", (rows, 32), (32, 1)), ("y", (8, 32), (32, 1))],
                                     "fn", 3, [f"L['x'].size()[0] == {rows}"],
                                     hostile=hostile_guards),
        "backend_id": backend,
        "compiled_fn": compiled_fn(rows),
        "original_code": serialized(compiled(FN_SOURCE, "fn")),
        "runtime_env": GraphRuntimeEnv(
            bytecode=dynamo_code("fn", ["x", "y"], backend, 3, hostile=hostile_code),
            import_sources=import_sources(hostile_code), used_globals={}, closure=(),
            argdefs=None, kwdefaults=None, external_refs=external_refs(backend, hostile_code)),
        "source_info": SourceInfo(inlined_sources=set()),
        "device_type": "cuda",
        "backend_name": "inductor",
        "system_info": system_info(),
    }


def mlp_state():
    """model.forward compiled: two InlinedSources of mymodels.mlp (forward, gelu_tanh)."""
    state = aot_state(backend=MLP_ID)
    forward = compiled(MLP_SOURCE, "MLP.forward", MLP_FILENAME)
    state.update(
        signature=signature("self", "x"),
        guards_state=guards_state([("x", (16, 32), (32, 1))], "forward", forward.co_firstlineno),
        original_code=serialized(forward),
        source_info=SourceInfo(inlined_sources={inlined_source(MLP_SOURCE, "MLP.forward"),
                                                inlined_source(MLP_SOURCE, "gelu_tanh")}))
    state["runtime_env"].bytecode = dynamo_code("forward", ["self", "x"], MLP_ID,
                                                forward.co_firstlineno, filename=MLP_FILENAME)
    state["runtime_env"].external_refs = external_refs(MLP_ID)
    return state


def flat_state():
    """G-B (about 2.10): one flat dict, bytecode beside the original code,
    SystemInfo from precompile_context with cuda_version."""
    a = aot_state(backend=FLAT_ID)
    env = a["runtime_env"]
    return {
        "signature": a["signature"], "bytecode": env.bytecode, "guard_manager": None,
        "guards_state": a["guards_state"], "import_sources": env.import_sources,
        "backend_id": FLAT_ID, "compiled_fn": a["compiled_fn"],
        "original_code": a["original_code"], "closure": (), "argdefs": None,
        "source_info": a["source_info"], "device_type": "cuda", "backend_name": "inductor",
        "system_info": SystemInfo210(python_version="3.12.3",
                                     torch_version=TorchVersion("2.10.0+cu128"),
                                     cuda_version="12.8", triton_version=(3, 5),
                                     gpu_name="NVIDIA H200"),
    }


# ---- the DynamoCache ----------------------------------------------------------------

G_SOURCE = at_line(5, "def g(x):\n    return (x.cos() * 2).sum(dim=-1)\n")
H_SOURCE = at_line(7, "def h(x, y):\n    return x * y + 1\n")


def dynamo_key(fn_name, lineno):
    """CompilePackage.source_id_from_fn: sha256(qualname, then str(firstlineno))."""
    return hashlib.sha256(fn_name.encode() + str(lineno).encode()).hexdigest()


def code_entry(source, name, params, lineno, backend, hostile=False):
    return DynamoCodeCacheEntry(
        python_code=serialized(compiled(source, name)), python_module="__main__",
        function_names=[],
        guarded_codes=[GuardedCodeCacheEntry(
            guards_state=guards_state([(p, (16, 32), (32, 1)) for p in params], name, lineno),
            dynamo_code=dynamo_code(name, params, backend, lineno, hostile=hostile))],
        import_sources=import_sources(hostile), backend_ids=[backend], code_source=None,
        install_to_global=False, has_compile_id=True, bypassed=False)


def cache_entry(source, name, params, lineno, backend, stored_backends, hostile=False):
    """PrecompileCacheEntry as DiskDynamoStore.write pickles it (2.11): the backend
    inline, not bytes."""
    dynamo = DynamoCacheEntry(
        codes=[code_entry(source, name, params, lineno, backend, hostile)],
        source_info=SourceInfo(inlined_sources=set()), device_type="cuda",
        system_info=system_info(), fn_name=name, fn_first_lineno=lineno)
    backends = {b: BundledAOTAutogradCacheArtifact(key=b, content=bundled_result(16))
                for b in stored_backends}
    return dumps(PrecompileCacheEntry(dynamo=dynamo, backends=backends))


def legacy_entry():
    """About 2.9: <key>/dynamo (a _DynamoCacheEntry with inlined_sources and
    versions) and <key>/backends ({id: PrecompileCacheArtifact whose content is
    the pickled BundledAOTAutogradCacheEntry})."""
    code = DynamoCodeCacheEntry(
        python_code=serialized(compiled(G_SOURCE, "g")), python_module="__main__",
        function_names=[],
        guarded_codes=[GuardedCodeCacheEntry(
            guards_state=guards_state([("x", (16, 32), (32, 1))], "g", 5),
            dynamo_code=dynamo_code("g", ["x"], G_ID, 5))],
        import_sources=import_sources(), backend_ids=[G_ID])
    dynamo = DynamoCacheEntry(
        codes=[code],
        inlined_sources={inlined_source(MLP_SOURCE, "gelu_tanh", with_content=False)},
        python_version="3.12.3", torch_version=TorchVersion("2.9.0+cu128"))
    content = dumps(bundled_result(16, BundledAOTAutogradCacheEntry29, BundledCompiledForward29))
    backends = {G_ID: BundledAOTAutogradCacheArtifact29(key=G_ID, content=content)}
    return dumps(dynamo), dumps(backends)


# ---- writing and checking -----------------------------------------------------------

def write(out, relpath, data):
    path = os.path.join(out, relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(path, "wb") as handle:
        handle.write(data)
    return relpath


def nested(data):
    """Every bytes value that is itself a pickle (PROTO 4 + FRAME), at any depth."""
    for op, arg, _ in pickletools.genops(data):
        if op.name in ("BINBYTES", "SHORT_BINBYTES", "BINBYTES8") and arg[:3] == b"\x80\x04\x95":
            yield arg
            yield from nested(arg)


def disassembly(data):
    text = io.StringIO()
    pickletools.dis(data, out=text)
    return text.getvalue()


def check(out, good, hostile):
    """Every file parses to STOP, nested pickles too; each hostile file names what
    it would run, and no good file does; nothing ran."""
    for relpath in good + list(hostile):
        with open(os.path.join(out, relpath), "rb") as handle:
            data = handle.read()
        if data.startswith(b"PT2AOT"):
            assert data[6] == 1, relpath
            data = data[7:]
        text = "\n".join([disassembly(data)] + [disassembly(inner) for inner in nested(data)])
        for needle in hostile.get(relpath, ()):
            assert needle in text, (relpath, needle)
        if relpath in good:
            assert "'system'" not in text and MARKER not in text and "'eval'" not in text, relpath
    with open(os.path.join(out, "truncated.bin"), "rb") as handle:
        try:
            disassembly(handle.read())
        except Exception:
            pass
        else:
            raise AssertionError("truncated.bin parses")
    assert not os.path.exists(MARKER), MARKER


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":  # sets pickle in hash order
        os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]],
                  dict(os.environ, PYTHONHASHSEED="0"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=HERE, help="where to write (default: beside this script)")
    out = parser.parse_args().out
    if sys.version_info[:2] != (3, 12):
        print(f"warning: Python {sys.version.split()[0]}: co_code is this Python's bytecode; "
              "the checked-in files were made by 3.12", file=sys.stderr)
    assert not os.path.exists(MARKER), f"{MARKER} exists before the run: remove it"
    assert dynamo_key("g", 5) == G_KEY

    for name in ("cache_dir", "legacy_2_9", "hostile_entry", "source_tree", "source_tree_changed"):
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    os.makedirs(out, exist_ok=True)

    fn = dumps(aot_state())
    good, hostile = [], {}
    good.append(write(out, "fn_2_11.bin", fn))
    good.append(write(out, "mlp_sources_2_11.bin", dumps(mlp_state())))
    write(out, "source_tree/mymodels/mlp.py", MLP_SOURCE)
    write(out, "source_tree_changed/mymodels/mlp.py", MLP_CHANGED)
    good.append(write(out, "pt2aot_header.bin", b"PT2AOT" + bytes([1]) + fn))
    good.append(write(out, "flat_2_10.bin", dumps(flat_state())))
    good.append(write(out, "model_list.bin",
                      dumps([fn, dumps(aot_state(rows=32, backend=FN32_ID))])))
    good.append(write(out, f"cache_dir/dynamo/{G_KEY}/entry",
                      cache_entry(G_SOURCE, "g", ["x"], 5, G_ID, [G_ID])))
    good.append(write(out, f"cache_dir/dynamo/{dynamo_key('h', 7)}/entry",
                      cache_entry(H_SOURCE, "h", ["x", "y"], 7, H_ID, [])))
    old_dynamo, old_backends = legacy_entry()
    good.append(write(out, f"legacy_2_9/dynamo/{G_KEY}/dynamo", old_dynamo))
    good.append(write(out, f"legacy_2_9/dynamo/{G_KEY}/backends", old_backends))

    names_os_system = ["'os'", "'system'", repr(TOUCH)]
    hostile[write(out, "hostile_code.bin", dumps(aot_state(hostile_code=True)))] = names_os_system
    hostile[write(out, "hostile_pickle.bin", dumps(dict(aot_state(), post_load_hook=System())))] = [
        "'post_load_hook'", f"'{os.system.__module__}'", "'system'", repr(TOUCH)]
    hostile[write(out, "hostile_guards.bin", dumps(aot_state(hostile_guards=True)))] = [
        "'builtins'", "'eval'", "__import__('os').system"]
    hostile[write(out, f"hostile_entry/dynamo/{G_KEY}/entry",
                  cache_entry(G_SOURCE, "g", ["x"], 5, G_ID, [G_ID], hostile=True))] = names_os_system

    write(out, "truncated.bin", fn[:len(fn) // 2])
    write(out, "not_a_pickle.bin", b"PT2AOT\x02" + random.Random(20261127).randbytes(249))

    check(out, good, hostile)
    for relpath in good + list(hostile) + ["truncated.bin", "not_a_pickle.bin"]:
        print(f"{os.path.getsize(os.path.join(out, relpath)):8d}  {relpath}")


if __name__ == "__main__":
    main()
