// The pickle policy table (pickle_policy.h). Rows come from reading PyTorch's
// and Triton's source (tests/data/pytorch-inventory/classes.tsv lists every
// class of the inventoried modules; tst_pickle_policy fails when one has no
// row here). A row's `versions` says which read snapshots hold the class, which
// read snapshots do not, and which of 2.5-2.11 were not read; classes.tsv lists
// the snapshots. docs/SECURITY.md renders this table:
// regenerate it with `scripts/pytorch-inventory.py markdown` (tst_pickle_policy
// checks every row is there).

#include "pickle_policy_table.h"

namespace cachelens::safety::table {

namespace {

constexpr std::string_view kSource = "torch._dynamo.source";
constexpr std::string_view kGuards = "torch._guards";
constexpr std::string_view kPgo = "torch._dynamo.pgo";
constexpr std::string_view kSchemas = "torch._functorch._aot_autograd.schemas";
constexpr std::string_view kDescriptors = "torch._functorch._aot_autograd.descriptors";
constexpr std::string_view kResult = "torch._functorch._aot_autograd.aot_autograd_result";
constexpr std::string_view kAutogradCache = "torch._functorch._aot_autograd.autograd_cache";
constexpr std::string_view kWrappers = "torch._functorch._aot_autograd.runtime_wrappers";
constexpr std::string_view kOutputCode = "torch._inductor.output_code";
constexpr std::string_view kBundler = "torch._inductor.triton_bundler";
constexpr std::string_view kHints = "torch._inductor.runtime.hints";
constexpr std::string_view kHeuristics = "torch._inductor.runtime.triton_heuristics";
constexpr std::string_view kAutotuneCache = "torch._inductor.runtime.autotune_cache";

constexpr PolicyRow row(std::string_view module, std::string_view name, GlobalRole role,
                        std::string_view versions, std::string_view why,
                        CallRule call = CallRule::None) {
    return PolicyRow{.module = module,
                     .name = name,
                     .role = role,
                     .call = call,
                     .in_entry = true,
                     .in_pgo = false,
                     .versions = versions,
                     .why = why};
}
constexpr PolicyRow built(std::string_view m, std::string_view n, std::string_view v,
                          std::string_view why) {
    return row(m, n, GlobalRole::Built, v, why);
}
constexpr PolicyRow record(std::string_view m, std::string_view n, std::string_view v,
                           std::string_view why) {
    return row(m, n, GlobalRole::Record, v, why);
}
constexpr PolicyRow enumeration(std::string_view m, std::string_view n, std::string_view v,
                                std::string_view why) {
    return row(m, n, GlobalRole::Enum, v, why);
}
constexpr PolicyRow callable(std::string_view m, std::string_view n, CallRule rule,
                             std::string_view v, std::string_view why) {
    return row(m, n, GlobalRole::Callable, v, why, rule);
}
constexpr PolicyRow constant(std::string_view m, std::string_view n, std::string_view v,
                             std::string_view why) {
    return row(m, n, GlobalRole::Constant, v, why);
}
constexpr PolicyRow refused(std::string_view m, std::string_view n, std::string_view v,
                            std::string_view why) {
    return row(m, n, GlobalRole::Refused, v, why);
}
// Python's own data types: allowed in entries, PGO pickles and cache values.
constexpr PolicyRow both(PolicyRow r) {
    r.in_pgo = true;
    r.in_value = true;
    return r;
}
// Allowed only in the values of torch/_inductor/cache.py's caches.
constexpr PolicyRow value_only(PolicyRow r) {
    r.in_entry = false;
    r.in_value = true;
    return r;
}
// Allowed only in precompiled functions and DynamoCache entries.
constexpr PolicyRow precompile_only(PolicyRow r) {
    r.in_entry = false;
    r.in_precompile = true;
    return r;
}
// Allowed only in PGO pickles.
constexpr PolicyRow pgo_only(PolicyRow r) {
    r.in_entry = false;
    r.in_pgo = true;
    return r;
}

constexpr std::string_view kSourceWhy =
    "a guard's Source, pickled in an entry's guards and input sources; a frozen dataclass "
    "(main's dataclass_with_cached_hash pickles it as a call with its field values; the plain "
    "frozen dataclasses of rocm-2.7+2.8 and rocm-2.9 pickle as NEWOBJ + BUILD)";
constexpr std::string_view kDescriptorWhy =
    "an AOTAutograd input/output descriptor in the entry's ViewAndMutationMeta; a frozen "
    "dataclass";
constexpr std::string_view kContextWhy = "tracing-time state, never pickled into an entry";
constexpr std::string_view kDispatchWrapperWhy =
    "one of the two dispatch wrappers an AOTAutograd entry keeps (_create_wrappers_for_dispatch, "
    "the same in old and new sources); main's post_compile generates Python source from its index "
    "fields and execs it, so a non-int index there is code PyTorch runs";
constexpr std::string_view kLoadTimeWrapperWhy =
    "constructed when an entry is loaded, never pickled: dispatch_wrappers holds only "
    "AOTDedupeWrapper and AOTSyntheticBaseWrapper (old-008ec6b, rocm-2.9, main), and a pickled one "
    "would have its post_compile run, which in main generates Python from its fields";
constexpr std::string_view kWrapperStateWhy =
    "runtime state of the wrappers built when an entry is loaded; never pickled";
constexpr std::string_view kGridWhy =
    "built from inductor_meta['grid_type'] when a launcher is generated (GridExpr.from_meta) and "
    "never pickled; the grid strings it returns are Python the launcher execs";

// clang-format off
constexpr PolicyRow kRows[] = {
    // ---- Python builtins and the standard library PyTorch's pickles use.
    both(callable("builtins", "getattr", CallRule::Getattr, "all",
        "Python >= 3.12 pickles enum members and PyTorch bound methods (defaultdict factories) as getattr(obj, 'name')")),
    both(callable("builtins", "int", CallRule::NoArgsOrData, "all", "a builtin type: a defaultdict factory, a type named as data")),
    both(callable("builtins", "str", CallRule::NoArgsOrData, "all", "a builtin type: a defaultdict factory, a type named as data")),
    both(callable("builtins", "float", CallRule::NoArgsOrData, "all", "a builtin type named as data")),
    both(callable("builtins", "bool", CallRule::NoArgsOrData, "all", "a builtin type named as data")),
    both(callable("builtins", "list", CallRule::NoArgsOrData, "all", "a builtin type: a defaultdict factory")),
    both(callable("builtins", "dict", CallRule::NoArgsOrData, "all", "a builtin type: a defaultdict factory")),
    both(callable("builtins", "tuple", CallRule::NoArgsOrData, "all", "a builtin type named as data")),
    both(callable("builtins", "set", CallRule::NoArgsOrData, "all", "protocols < 4 pickle a set as set([items])")),
    both(callable("builtins", "frozenset", CallRule::NoArgsOrData, "all", "protocols < 4 pickle a frozenset as frozenset([items])")),
    both(callable("builtins", "bytearray", CallRule::NoArgsOrData, "all", "protocols < 5 pickle a bytearray as bytearray(bytes)")),
    both(callable("builtins", "complex", CallRule::NoArgsOrData, "all", "a complex constant pickles as complex(re, im)")),
    both(callable("builtins", "slice", CallRule::NoArgsOrData, "all", "GetItemSource keeps a slice index as (slice, (start, stop, step))")),
    both(constant("builtins", "object", "all", "the base argument of copyreg._reconstructor")),
    refused("builtins", "eval", "all", "evaluates a string as Python: never in a PyTorch pickle"),
    refused("builtins", "exec", "all", "executes a string as Python: never in a PyTorch pickle"),
    refused("builtins", "compile", "all", "compiles a string to code: never in a PyTorch pickle"),
    refused("builtins", "__import__", "all", "imports any module: never in a PyTorch pickle"),
    refused("builtins", "open", "all", "opens a file: never in a PyTorch pickle"),
    refused("builtins", "setattr", "all", "sets any attribute of any object: never in a PyTorch pickle"),
    refused("builtins", "type", "all", "type(name, bases, dict) creates classes: never in a PyTorch pickle"),
    both(callable("collections", "OrderedDict", CallRule::NoArgsOrData, "all", "nn.Module hook dicts in a GraphModule's state; Python pickles it as OrderedDict() + SETITEMS")),
    both(callable("collections", "defaultdict", CallRule::DefaultDict, "all", "Triton's JITFunction caches, PGO's code states; pickled as defaultdict(factory)")),
    both(callable("collections", "Counter", CallRule::NoArgsOrData, "all", "Inductor's metrics counters (CachedMetricsDeltas)")),
    both(callable("copyreg", "__newobj__", CallRule::NewObj, "all", "protocol 0/1 form of NEWOBJ: cls.__new__(cls, *args)")),
    both(callable("copyreg", "_reconstructor", CallRule::Reconstructor, "all", "protocol 0/1 form of building a plain class instance")),
    callable("inspect", "Parameter", CallRule::NoArgsOrData, "public API; not read per version", "a kernel's signature (JITFunction.signature): Parameter(name, kind) + its default/annotation"),
    callable("inspect", "Signature", CallRule::NoArgsOrData, "public API; not read per version", "a Triton kernel's signature: Signature(parameters)"),
    enumeration("inspect", "_ParameterKind", "public API; not read per version", "the kind of a signature Parameter"),
    constant("inspect", "_empty", "public API; not read per version", "a signature Parameter without a default or annotation"),

    // ---- torch: values metadata pickles carry.
    callable("torch", "device", CallRule::Device, "public API; not read per version", "a device in DeviceProperties, CurrentStreamSource, tensor metadata: device(type[, index])"),
    callable("torch", "Size", CallRule::NoArgsOrData, "public API; not read per version", "a tensor shape in metadata: Size([ints])"),
    constant("torch", "Tensor", "public API; not read per version", "a class named as data (a signature annotation)"),
    constant("torch", "SymInt", "public API; not read per version", "a class named as data (an annotation); never constructed by a pickle"),
    constant("torch", "float16", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "float32", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "float64", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "bfloat16", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "float8_e4m3fn", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "float8_e5m2", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "complex64", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "complex128", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "int8", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "int16", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "int32", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "int64", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "uint8", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "bool", "public API; not read per version", "a dtype in tensor metadata"),
    constant("torch", "strided", "public API; not read per version", "a layout in tensor metadata"),
    constant("torch", "contiguous_format", "public API; not read per version", "a memory format in tensor metadata"),
    constant("torch", "channels_last", "public API; not read per version", "a memory format in tensor metadata"),
    constant("torch", "channels_last_3d", "public API; not read per version", "a memory format in tensor metadata"),
    constant("torch", "preserve_format", "public API; not read per version", "a memory format in tensor metadata"),
    constant("torch._utils", "torch.contiguous_format", "public API; not read per version", "torch.memory_format pickles by qualified name under torch._utils (MemoryFormatMeta)"),
    constant("torch._utils", "torch.channels_last", "public API; not read per version", "torch.memory_format pickles by qualified name under torch._utils (MemoryFormatMeta)"),
    refused("torch._utils", "_rebuild_tensor_v2", "all", "rebuilds a tensor from storage: only the constants of a cpp_wrapper or frozen graph's entry hold one (2.6), loaded through torch.storage._load_from_bytes"),
    refused("torch.storage", "_load_from_bytes", "2.6 cpp_wrapper and frozen graphs' constants", "runs torch.load on bytes inside the entry (weights_only=False), a pickle this audit does not read"),
    refused("torch._utils", "_rebuild_parameter", "all", "rebuilds a Parameter from storage: tensor data is never in an entry"),
    refused("torch._utils", "_rebuild_from_type_v2", "all", "calls a tensor subclass's rebuild function: never in an entry"),
    constant("torch._subclasses.functional_tensor", "FunctionalTensor", "public API; not read per version", "a class named as data in AOTAutograd metadata"),
    // ---- torch.fx: a GraphModule pickles as reduce_graph_module(body, import_block).
    row("torch.fx.graph_module", "reduce_graph_module", GlobalRole::CodePath, "public API; not read per version",
        "execs import_block + body['_code'] to rebuild a GraphModule: the code goes to the code audit"),
    refused("torch.fx.graph_module", "reduce_package_graph_module", "public API; not read per version", "imports code from a torch.package archive: never in a cache entry"),
    refused("torch.fx.graph_module", "reduce_deploy_graph_module", "public API; not read per version", "imports code through torch::deploy: never in a cache entry"),
    refused("torch.fx.graph_module", "GraphModule", "public API; not read per version", "pickles through reduce_graph_module; never named itself"),

    // ---- torch/_guards.py
    built(kGuards, "CompileId", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the compile id recorded in a CompiledFxGraph and its cached metrics"),
    record(kGuards, "TraceId", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a NamedTuple of a CompileId and an attempt"),
    enumeration(kGuards, "GuardSource", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "where a guarded value comes from"),
    record(kGuards, "Source", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the base of every Source; a frozen dataclass"),
    record(kGuards, "ChainedSource", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the base of sources with a base source; a frozen dataclass"),
    record(kGuards, "GuardEnvExpr", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the base of AOTAutograd's guard expressions; a frozen dataclass"),
    record(kGuards, "DuplicateInputs", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "an AOTAutograd guard on two deduplicated inputs"),
    record(kGuards, "StorageOverlap", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "an AOTAutograd guard on inputs sharing storage"),
    precompile_only(built(kGuards, "Guard", "in 2.7/2.8, main 2.15a0; 2.11 read for precompile (guards.py GuardsStatePickler); 2.5, 2.6 not read", "one guard of a precompiled function's GuardsState: its source, guard kinds, code_list and create_fn (a GuardBuilder method PyTorch calls on load against the live objects to rebuild the guard); BUILD sets its slots. Never in a cache entry")),
    refused(kGuards, "SLoc", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds a traceback frame; never in an entry"),
    refused(kGuards, "ShapeGuard", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds a sympy expression; entries keep guards as strings"),
    refused(kGuards, "GuardBuilderBase", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "Checkpointable", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "GuardsCheckpointState", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "ModuleContextCheckpointState", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "ModuleContext", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "GlobalContextCheckpointState", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "GlobalContext", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "restore_graphstate calls the functions it holds; tracing-time state"),
    precompile_only(built(kGuards, "GuardsSet", "in 2.7/2.8, main 2.15a0; 2.11 read for precompile; 2.5, 2.6 not read", "the guards of a precompiled function's OutputGraphGuardsState (an OrderedSet of Guard); BUILD stores it. Never in a cache entry")),
    refused(kGuards, "GuardsContext", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "HopSubgraphCache", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "InvokeSubgraphCache", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "InvokeSubgraphReuseEntry", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds a GraphModule; tracing-time state"),
    refused(kGuards, "InvokeSubgraphReuseCondition", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "HopDispatchSetCache", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "_TLSStorage", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "CompileContext", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),
    refused(kGuards, "InlinedCodeCache", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds bytecode instructions; tracing-time state"),
    refused(kGuards, "TracingContext", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kContextWhy),

    // ---- torch/_dynamo/source.py: every Source subclass (guards and input sources).
    record(kSource, "LocalSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "TempLocalSource", "in main 2.15a0; not in 2.5-era, 2.7/2.8, 2.9/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "SyntheticLocalSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "RandomValueSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "GlobalSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "GlobalWeakRefSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "WeakRefCallSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "CallFunctionNoArgsSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "AttrSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "CellContentsSource", "in main 2.15a0; not in 2.5-era, 2.7/2.8, 2.9/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "GenericAttrSource", "in 2.7/2.8, 2.9/2.8, main 2.15a0; not in 2.5-era; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "TypeDictSource", "in 2.9/2.8, main 2.15a0; not in 2.5-era, 2.7/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "TypeMROSource", "in 2.9/2.8, main 2.15a0; not in 2.5-era, 2.7/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "LocalCellSource", "in 2.7/2.8, 2.9/2.8, main 2.15a0; not in 2.5-era; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "CodeSource", "in 2.9/2.8, main 2.15a0; not in 2.5-era, 2.7/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ClosureSource", "in 2.9/2.8, main 2.15a0; not in 2.5-era, 2.7/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "AutoDerefLocalSource", "in 2.5-era; not in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "GradSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ParamBufferSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "UnspecializedParamBufferSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "EphemeralSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "SkipGuardSource", "in 2.9/2.8, main 2.15a0; not in 2.5-era, 2.7/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    enumeration(kSource, "TensorProperty", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", "which tensor property (size, stride, storage offset) a TensorPropertySource reads"),
    record(kSource, "TensorPropertySource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "IndexedSource", "in 2.7/2.8, 2.9/2.8, main 2.15a0; not in 2.5-era; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "NegateSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ConvertIntSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "DynamicScalarSource", "in main 2.15a0; not in 2.5-era, 2.7/2.8, 2.9/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "FlattenScriptObjectSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ScriptObjectQualifiedNameSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "AttrProxySource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "DefaultsSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "GetItemSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ConstDictKeySource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "NonSerializableSetGetItemSource", "in 2.9/2.8, main 2.15a0; not in 2.5-era, 2.7/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "DictGetItemSource", "in 2.7/2.8, 2.9/2.8, main 2.15a0; not in 2.5-era; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "DictSubclassGetItemSource", "in 2.7/2.8, 2.9/2.8, main 2.15a0; not in 2.5-era; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ListGetItemSource", "in 2.7/2.8, 2.9/2.8, main 2.15a0; not in 2.5-era; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "TupleIteratorGetItemSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "NamedTupleFieldsSource", "in 2.9/2.8, main 2.15a0; not in 2.5-era, 2.7/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "DataclassFieldsSource", "in 2.7/2.8, 2.9/2.8, main 2.15a0; not in 2.5-era; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "TypeSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ODictGetItemSource", "in 2.5-era; not in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "OptimizerSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "NNModuleSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "UnspecializedNNModuleSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "UnspecializedBuiltinNNModuleSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "FSDPNNModuleSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "GlobalStateSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    built(kSource, "TorchSource", "in 2.9/2.8; not in 2.5-era, 2.7/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", "2.9's Source for the torch module itself (rocm-2.9, HEAD side): a plain frozen dataclass without fields, pickled NEWOBJ + BUILD; calling it runs __init__, which installs an ID_MATCH guard, so only building is allowed"),
    record(kSource, "ImportSource", "in main 2.15a0; not in 2.5-era, 2.7/2.8, 2.9/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "HopUnspecializedIntSource", "in 2.5-era; not in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "TorchFunctionModeStackSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ConstantSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "NumpyTensorSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "SubclassAttrListSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "UnwrapCollectiveTensorSource", "in main 2.15a0; not in 2.5-era, 2.7/2.8, 2.9/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "FloatTensorSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "CallMethodItemSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ContextVarGetSource", "in main 2.15a0; not in 2.5-era, 2.7/2.8, 2.9/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "ShapeEnvSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "CurrentStreamSource", "in main 2.15a0; not in 2.5-era, 2.7/2.8, 2.9/2.8; 2.6, 2.10, 2.11 not read", kSourceWhy),
    record(kSource, "BackwardStateSource", "in 2.5-era, 2.7/2.8, 2.9/2.8, main 2.15a0; 2.6, 2.10, 2.11 not read", kSourceWhy),

    // ---- torch/_dynamo/pgo.py: a PGO pickle is a defaultdict(CodeId -> CodeState).
    pgo_only(record(kPgo, "CodeId", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the key of a profile: file, line, name (and file hash)")),
    pgo_only(built(kPgo, "CodeState", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a code object's profile: automatic_dynamic per source")),
    pgo_only(built(kPgo, "FrameStateSizeEntry", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "observed sizes/strides of one input; also the defaultdict factory")),
    pgo_only(record(kPgo, "InferStride", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a stride inferred from the next dimension")),
    pgo_only(enumeration(kPgo, "AutoUnset", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the 'nothing observed' element")),
    pgo_only(enumeration(kPgo, "AutoDynamic", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the 'dynamic' element")),
    refused(kPgo, "ReservedWorkflowIdUserError", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "an exception, never pickled"),
    refused(kPgo, "PGOCacheArtifact", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a mega-cache artifact whose populate_cache writes a profile file; never pickled into a profile"),

    // ---- AOTAutograd: schemas, descriptors, the cache entry, its wrappers.
    // schemas.py: main 2.15a0 read in full.
    built(kSchemas, "AOTConfig", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "sanitized_aot_config of a GenericAOTAutogradCacheEntry (rocm-2.9 read) and of 2.11 entries (fixtures), its compilers set to None; not a field of the 2.5-era entry (old-008ec6b)"),
    built(kSchemas, "CacheableAOTConfig", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the serializable subset of AOTConfig that newer entries keep as sanitized_aot_config (not in the 2.11 fixtures)"),
    refused(kSchemas, "AOTAutogradCacheInfo", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the compile's cache key and forward SymInts (list[torch.SymInt] in rocm-2.9 and main), which cannot be pickled: no entry holds one"),
    built(kSchemas, "InputAliasInfo", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "per-input mutation/alias metadata (a frozen dataclass; its cached mutation_type may be pickled with it)"),
    built(kSchemas, "OutputAliasInfo", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "per-output alias metadata; main interpolates its base_idx into generated Python, so a non-int base_idx is code PyTorch runs (see ViewAndMutationMeta)"),
    built(kSchemas, "MemoryFormatMeta", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "an output's memory format"),
    built(kSchemas, "PlainTensorMeta", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a plain tensor's metadata in subclass handling"),
    built(kSchemas, "OpaqueMeta", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "an opaque (custom class) slot in a subclass's flattened attributes; no fields"),
    built(kSchemas, "SubclassCreationMeta", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "how to rebuild a tensor subclass output; at run time PyTorch calls original_subclass_type.__tensor_unflatten__, so that type must itself be an allowed global"),
    built(kSchemas, "SubclassMeta", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "maybe_subclass_meta of an AOTAutograd entry (old-008ec6b, rocm-2.9, main): fw_metadata and grad_input_metas, set after an argument-less __init__"),
    built(kSchemas, "ViewAndMutationMeta", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the forward metadata of a compiled graph. Unpickling does not run __post_init__: its derived index fields (mutated_inp_runtime_indices, aliased_out_indices, num_*) are pickled values, and main's runtime wrappers interpolate them into Python source they exec, so a string there is code PyTorch runs; check_pickle requires the ints PyTorch writes there"),
    refused(kSchemas, "TensorAlias", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "wraps a real output tensor while the compiled forward runs; entries carry no tensors"),
    refused(kSchemas, "BackwardSignature", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "part of an exported joint graph's signature (aot_export); not a field of any cache entry"),
    refused(kSchemas, "GraphSignature", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "an exported joint graph's signature with pytree specs (aot_export); not a field of any cache entry"),
    refused(kSchemas, "SubclassTracingInfo", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a NamedTuple of tracing functions and fake args; tracing-time state"),
    refused(kSchemas, "AOTState", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds fake args, an ExitStack and a FakeTensorMode; tracing-time state"),
    refused(kSchemas, "AOTGraphCapture", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds a GraphModule and fake args; tracing-time state"),
    refused(kSchemas, "JointWithDescriptors", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds tracing state and a GraphModule; never in an entry"),
    refused(kSchemas, "CompilerWrapper", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the base of the dispatch wrappers; entries keep instances of AOTDedupeWrapper and AOTSyntheticBaseWrapper only"),
    refused(kSchemas, "InductorWrapper", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the base of FunctionalizedRngRuntimeWrapper/FakifiedOutWrapper, which are never pickled"),
    refused(kSchemas, "AOTDispatchCompiler", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a typing Protocol; never instantiated"),
    refused(kSchemas, "SerializableAOTDispatchCompiler", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds the compiler function; compile-time only"),
    refused(kSchemas, "FlatFn", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a typing Protocol; never instantiated"),
    refused(kSchemas, "TraceFn", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a typing Protocol; never instantiated"),
    refused(kSchemas, "PreppedForAutogradTraceFn", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a typing Protocol; never instantiated"),
    refused(kSchemas, "JointTraceFn", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a typing Protocol; never instantiated"),
    enumeration(kSchemas, "MutationType", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "how an input is mutated"),
    enumeration(kSchemas, "OutputType", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "how an output aliases (a functional Enum(...) in schemas.py)"),
    // descriptors.py: main 2.15a0 read in full (class definitions).
    record(kDescriptors, "AOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "DifferentiableAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "AOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "DifferentiableAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "ParamAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "BufferAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "DummyAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "PlainAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SubclassGetAttrAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SubclassSizeAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SubclassStrideAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "ViewBaseAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SyntheticBaseAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "PhiloxForwardSeedAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "PhiloxForwardBaseOffsetAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "PhiloxBackwardSeedAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "PhiloxBackwardBaseOffsetAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "ForwardTokenAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "BackwardTokenAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "TangentAOTInput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "PlainAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "InputMutationAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "IntermediateBaseAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "MetadataMutationAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "GradAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "PhiloxUpdatedForwardOffsetAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "PhiloxUpdatedBackwardOffsetAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "ForwardTokenAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "BackwardTokenAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "DummyAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SubclassGetAttrAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SubclassSizeAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SubclassStrideAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SavedForBackwardsAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    record(kDescriptors, "SavedForBackwardsNoVcCheckAOTOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (no ROCm snapshot in the index holds descriptors.py)", kDescriptorWhy),
    // aot_autograd_result.py: main 2.15a0 read in full.
    built(kResult, "AOTAutogradResult", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "the AOTAutograd entry itself (main read)"),
    built(kResult, "BundledAOTAutogradResult", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "an AOTAutograd entry bundling its compiled graphs (main read)"),
    built(kResult, "CompiledForward", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "the forward graph's FX cache key"),
    built(kResult, "CompiledBackward", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "the backward graph's FX cache key and signature; main interpolates backward_state_indices[0] into generated Python"),
    built(kResult, "BundledCompiledForward", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "a forward graph kept inside the entry"),
    built(kResult, "BundledCompiledBackward", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "a backward graph kept inside the entry"),
    built(kResult, "BundledOutputCodeLoadable", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "the generic base of BundledCompiledForward/Backward; CompiledFxGraphLoadable is an alias of it, so a graph bundled through the alias pickles under this name"),
    built(kResult, "SerializedGraphModule", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "holds reduce_graph_module and its args for later (its code goes to the audit)"),
    refused(kResult, "InductorOutput", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "an abstract base; entries pickle its subclasses"),
    refused(kResult, "FxGraphCacheLoadable", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "the base of CompiledForward/CompiledBackward; entries pickle the subclasses"),
    refused(kResult, "GenericCompiledBackward", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "a generic base; entries pickle CompiledBackward/BundledCompiledBackward"),
    refused(kResult, "GenericAOTAutogradResult", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "a generic base; entries pickle AOTAutogradResult/BundledAOTAutogradResult"),
    precompile_only(built(kResult, "BundledAOTAutogradCacheArtifact", "in main 2.15a0, 2.11 read (precompile: in the real DynamoCache entry); 2.5-2.8 not read (in 2.10a0/2.8 these classes are still defined in autograd_cache.py)", "a DynamoCache backend: its key and the BundledAOTAutogradResult inline, which after_deserialization turns into a callable on load; never inside a cache entry")),
    // autograd_cache.py: read in full at old-008ec6b (2.5-era) and rocm-2.9 (2.9 with 2.8 merge markers).
    built(kAutogradCache, "AOTAutogradCacheEntry", "in 2.5-era, 2.7/2.8, 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "the AOTAutograd entry before aot_autograd_result.py (a dataclass in old-008ec6b, a GenericAOTAutogradCacheEntry subclass in rocm-2.9)"),
    built(kAutogradCache, "BundledAOTAutogradCacheEntry", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "the bundled AOTAutograd entry before aot_autograd_result.py (rocm-2.9 read)"),
    built(kAutogradCache, "CompiledForward", "in 2.5-era, 2.7/2.8, 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "the forward graph's FX cache key (old-008ec6b, rocm-2.9)"),
    built(kAutogradCache, "CompiledBackward", "in 2.5-era, 2.7/2.8, 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "the backward graph's FX cache key and signature (old-008ec6b, rocm-2.9)"),
    built(kAutogradCache, "BundledCompiledForward", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "a forward graph kept inside a bundled entry (rocm-2.9 read)"),
    built(kAutogradCache, "BundledCompiledBackward", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "a backward graph kept inside a bundled entry (rocm-2.9 read)"),
    built(kAutogradCache, "SerializedGraphModule", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "holds reduce_graph_module and its args for later (its code goes to the audit)"),
    refused(kAutogradCache, "GenericAOTAutogradCacheEntry", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "a generic base (rocm-2.9); entries pickle AOTAutogradCacheEntry/BundledAOTAutogradCacheEntry"),
    refused(kAutogradCache, "FXGraphCacheLoadable", "in 2.5-era, 2.7/2.8; not in 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "the base of CompiledForward/CompiledBackward; entries pickle the subclasses"),
    refused(kAutogradCache, "FxGraphCacheLoadable", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "the base of CompiledForward/CompiledBackward; entries pickle the subclasses"),
    refused(kAutogradCache, "CompiledFxGraphLoadable", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "the base of BundledCompiledForward/Backward; entries pickle the subclasses"),
    refused(kAutogradCache, "GenericCompiledBackward", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "a generic base; entries pickle CompiledBackward/BundledCompiledBackward"),
    refused(kAutogradCache, "InductorOutput", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "an abstract base; entries pickle its subclasses"),
    refused(kAutogradCache, "AOTAutogradCache", "in 2.5-era, 2.7/2.8, 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "the cache's load/save logic (static methods); never pickled"),
    refused(kAutogradCache, "AOTAutogradCacheDetails", "in 2.5-era, 2.7/2.8, 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "the cache-key inputs, hashed at compile time and never stored"),
    refused(kAutogradCache, "AOTAutogradCachePickler", "in 2.5-era, 2.7/2.8, 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "the pickler that hashes cache keys; never pickled"),
    refused(kAutogradCache, "AOTAutogradCacheArtifact", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "a mega-cache artifact whose populate_cache writes an entry file; never inside an entry"),
    precompile_only(built(kAutogradCache, "BundledAOTAutogradCacheArtifact", "in 2.7/2.8, 2.9/2.8, 2.10a0/2.8; not in 2.5-era; 2.6, 2.11 not read", "a DynamoCache backend of 2.9: its key and the bundled entry as pickled bytes, which after_deserialization unpickles and wraps into a callable; never inside a cache entry")),
    refused(kAutogradCache, "BypassAOTAutogradCache", "in 2.5-era, 2.7/2.8, 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "an exception, never pickled"),
    refused(kAutogradCache, "FXGraphCacheMiss", "in 2.5-era, 2.7/2.8, 2.9/2.8, 2.10a0/2.8; 2.6, 2.11 not read", "an exception, never pickled"),
    // runtime_wrappers.py: rocm-2.7+2.8 and main 2.15a0 read in full; _create_wrappers_for_dispatch read in old and new copies.
    built(kWrappers, "AOTDedupeWrapper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kDispatchWrapperWhy),
    built(kWrappers, "AOTSyntheticBaseWrapper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kDispatchWrapperWhy),
    refused(kWrappers, "RuntimeWrapper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kLoadTimeWrapperWhy),
    refused(kWrappers, "FunctionalizedRngRuntimeWrapper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kLoadTimeWrapperWhy),
    refused(kWrappers, "FakifiedOutWrapper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kLoadTimeWrapperWhy),
    refused(kWrappers, "AOTDispatchSubclassWrapper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kLoadTimeWrapperWhy),
    refused(kWrappers, "EffectTokensWrapper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kLoadTimeWrapperWhy),
    refused(kWrappers, "DebugAssertWrapper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kLoadTimeWrapperWhy),
    refused(kWrappers, "CompilerWrapper", "in 2.7/2.8; not in main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read (main defines it in schemas.py)", "the base of the dispatch wrappers where it lived before schemas.py; entries keep instances of AOTDedupeWrapper and AOTSyntheticBaseWrapper only"),
    refused(kWrappers, "AOTDispatchAutograd", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "static helpers that build the autograd.Function at load; never pickled"),
    refused(kWrappers, "AOTDispatchAutogradCompileSpec", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds the compiled callables while the autograd.Function is built; never pickled"),
    refused(kWrappers, "AutogradLazyBackwardCompileInfo", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds the backward GraphModule and tracing contexts for a lazy compile; never pickled"),
    refused(kWrappers, "CachedAutogradLazyBackwardCompileInfo", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "wraps SerializedGraphModule.deserialize at load; never pickled"),
    refused(kWrappers, "SerializableCompiledFunction", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "wraps the loaded callable (precompile); never pickled"),
    refused(kWrappers, "NoopAliasHandler", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "AliasOfInputHandler", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "IsInputHandler", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "AliasOfIntermediateHandler", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "_AnalyzeCustomOpInputOutputMode", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a TorchDispatchMode active on the first call; never pickled"),
    refused(kWrappers, "_FirstInvocationContext", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "_RuntimeCompiledFnInvoker", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "_RuntimeForwardEpilogue", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "_AutogradSavedState", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "_AutogradForwardEpilogue", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "_AutogradRngStateTracker", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "_AutogradBackwardCompiler", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),
    refused(kWrappers, "_AOTDispatchAutogradFunctionFactory", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", kWrapperStateWhy),

    // ---- Inductor: the FX graph entry and what it holds.
    built("torch._inductor.codecache", "CompiledFxGraph", "2.5-era (old-008ec6b imports it from codecache; codecache.py not read); in output_code.py from 2.7/2.8", "the FX graph entry before output_code.py (old-008ec6b imports it from codecache; codecache.py itself not read)"),
    // output_code.py: main 2.15a0 read in full.
    built(kOutputCode, "CompiledFxGraph", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "the FX graph entry itself: no __setstate__, BUILD stores its fields; its source_code goes to the audit. main's post_compile also unpickles _serialized_original_gm with GraphPickler, a second pickle check_pickle decodes and checks under this policy"),
    refused(kOutputCode, "CompiledAOTI", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "post_compile runs __post_init__ (main read), which loads the .so its filename names through AOTIModelContainerRunner and writes its _cached_files bytes to the paths that are their keys: native code and file writes chosen by the pickle"),
    refused(kOutputCode, "RegionalOutputCode", "in main 2.15a0; not in 2.7/2.8, 2.9/2.8; 2.5, 2.6, 2.10, 2.11 not read", "post_compile unpickles _serialized_graph_module with GraphPickler (a second pickle this policy does not see) and calls the (fn, kwargs) pairs of _serialized_wrappers"),
    refused(kOutputCode, "MockFXGraphCacheOutput", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "a test double that calls the GraphModule it holds; never in a real entry"),
    refused(kOutputCode, "OutputCode", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "the abstract base; entries pickle CompiledFxGraph"),
    refused(kOutputCode, "CompiledFxGraphConstants", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "passed to post_compile at load; never pickled"),
    refused(kOutputCode, "CompiledFxGraphConstantsWithGm", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "holds the live GraphModule at load; never pickled"),
    // triton_bundler.py: main 2.15a0 read in full.
    built(kBundler, "TritonBundle", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "the Triton kernels saved with an FX entry"),
    built(kBundler, "TritonKernelArtifacts", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "one kernel's compiled files"),
    built(kBundler, "TritonKernelArtifact", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "one compiled file (cubin, ptx, json, ...) as bytes; read_and_emit writes it into Triton's cache dir on a hit, and a cubin there is GPU machine code no audit can read"),
    built(kBundler, "StaticallyLaunchedAutotuner", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "a kernel launched without Triton at load: its CachingAutotuner goes to CompiledTritonKernels"),
    refused(kBundler, "TritonBundler", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "process-wide bundling state; never pickled"),
    refused(kBundler, "TritonBundleEntry", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "a compile-time note of a kernel's hash and cache directory, kept in memory; the bundle holds TritonKernelArtifacts"),
    refused(kBundler, "TritonBundlerMetadata", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "kernel names returned for logging; never pickled"),
    built("torch._inductor.runtime.static_cuda_launcher", "StaticallyLaunchedCudaKernel", "in 2.9/2.8; 2.5, 2.6, 2.7, 2.10, 2.11 not read", "a kernel's cubin and launch metadata (rocm-2.9 read: __getstate__ only); its cubin_raw is written to a file and loaded onto the GPU when launched"),
    built("torch._inductor.runtime.static_triton_launcher", "StaticallyLaunchedCudaKernel", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "a kernel's cubin and launch metadata (main read: __getstate__ only; __del__ unloads nothing after unpickling); its cubin_raw is written to a file and loaded onto the GPU when launched"),
    built("torch._inductor.runtime.static_triton_launcher", "StaticallyLaunchedXpuKernel", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "an XPU kernel's zebin and launch metadata; loaded onto the device when launched"),
    refused("torch._inductor.runtime.static_triton_launcher", "StaticallyLaunchedTritonKernel", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "the base of the CUDA/XPU kernels (its C_impl raises); entries pickle the subclasses"),
    // hints.py: main 2.15a0 read in full.
    record(kHints, "DeviceProperties", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "the GPU a kernel was tuned for; a NamedTuple"),
    enumeration(kHints, "HeuristicType", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "which Inductor heuristic made a kernel"),
    enumeration(kHints, "ReductionHint", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "a reduction kernel's hint"),
    enumeration(kHints, "TileHint", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "a pointwise kernel's hint"),
    enumeration(kHints, "AutotuneHint", "in 2.7/2.8, 2.9/2.8, main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "an autotuning hint"),
    built(kHints, "AttrsDescriptor", "2.7/2.8, 2.9/2.8: hints.py names a fallback namedtuple AttrsDescriptor, made only without Triton; not in main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "Triton's argument attributes (divisibility), Inductor's copy (not a class in main, where it is a wrapper function)"),
    refused(kHints, "TritonMeta", "in main 2.15a0; not in 2.7/2.8, 2.9/2.8; 2.5, 2.6, 2.10, 2.11 not read", "a TypedDict: its values are plain dicts, the class is never pickled"),
    refused(kHints, "InductorMeta", "in main 2.15a0; not in 2.7/2.8, 2.9/2.8; 2.5, 2.6, 2.10, 2.11 not read", "a TypedDict: its values are plain dicts, the class is never pickled"),
    refused(kHints, "HalideInputSpec", "in 2.7/2.8, 2.9/2.8; not in main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "a Halide kernel argument's compile-time description (a NamedTuple in HalideMeta); no FX, AOTAutograd or PGO entry field holds one"),
    refused(kHints, "HalideMeta", "in 2.7/2.8, 2.9/2.8; not in main 2.15a0; 2.5, 2.6, 2.10, 2.11 not read", "a Halide kernel's compile-time metadata (a NamedTuple); no FX, AOTAutograd or PGO entry field holds one"),
    // triton_heuristics.py: main 2.15a0 read in full.
    built(kHeuristics, "CachingAutotuner", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "a static autotuner kept in a TritonBundle. Its __setstate__ (main) stores the fields, makes a Lock and rebuilds its plugins (importing the fixed torch._inductor.runtime.fb.incremental only if inductor_meta asks; absent from OSS builds). Its pickled fields steer what runs later: triton_interpret routes run() into JITFunction.run, dump_launch_params/tensors write files, and its compile results' launchers are Python generated from pickled strings (StaticTritonCompileResult)"),
    built(kHeuristics, "DebugAutotuner", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "the CachingAutotuner subclass used with profile_bandwidth; same state and launch path"),
    built(kHeuristics, "InductorConfig", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "a triton Config subclass; Config.__setstate__ stores the known fields"),
    built(kHeuristics, "StaticTritonCompileResult", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "a statically launched compiled kernel (main read). make_launcher loads its cubin onto the GPU and execs a launcher built from pickled fields: kernel.arg_names, inductor_meta grid_type/fixed_grid/precomputed_grids/extra_launcher_args and compile_meta constants (str constants quoted as r'...'); a string there is Python PyTorch runs, so check_pickle requires identifiers, Inductor's grid arithmetic and unquoted constants there"),
    built(kHeuristics, "_ConstRepr", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "a kernel repr's text kept by prepare_for_pickle; __call__ returns it"),
    refused(kHeuristics, "TritonCompileResult", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "never in a cache entry (main read): TritonBundler keeps an autotuner only when every compile result is a StaticTritonCompileResult; this one only crosses the compile-worker pipe. Its __setstate__ rebuilds a Triton CompiledKernel and makes a namedtuple class from the pickled metadata keys, and make_launcher loads that binary"),
    refused(kHeuristics, "CompileResult", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "the base of the compile results; entries pickle StaticTritonCompileResult"),
    refused(kHeuristics, "CachingAutotunerPlugin", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "plugins are rebuilt by CachingAutotuner.__setstate__ (__getstate__ stores an empty list)"),
    refused(kHeuristics, "BenchmarkFailureReason", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "prepare_for_pickle empties benchmark_failure_reasons before an autotuner is pickled"),
    refused(kHeuristics, "NoTritonConfigsError", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "an exception, never pickled"),
    refused(kHeuristics, "CannotStaticallyLaunchKernel", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "an exception, never pickled"),
    refused(kHeuristics, "GridExpr", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "Grid1D", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "Grid2D", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "Grid3D", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "BatchMatmulGrid3D", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "Grid2DWithYZOverflow", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "MixOrderReductionGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "CooperativeReductionGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "SplitScanGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "FixedGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "PrecomputedGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "ComboKernelGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "SequentialComboKernelGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "SequentialFlattenComboKernelGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    refused(kHeuristics, "RoundRobinComboKernelGrid", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", kGridWhy),
    built("torch._inductor.runtime.coordinate_descent_tuner", "CoordescTuner", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the coordinate descent tuner kept by an autotuner (main read: fields only)"),
    // autotune_cache.py: read in full from seed-002 (version not stated).
    built(kAutotuneCache, "AutotuneCache", "in seed-002; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "a kept autotuner's save_cache_hook is AutotuneCache.save bound to one. Its __setstate__ (seed-002) reconnects the remote autotune cache through create_cache when remote_cache is set: network access chosen by the loading process's config, not code from the pickle"),
    built(kAutotuneCache, "LocalAutotuneCache", "in seed-002; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "the local best-config cache (seed-002 read)"),
    built(kAutotuneCache, "_LocalAutotuneCacheBackend", "in seed-002; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "the local best-config backend (seed-002 read)"),
    refused(kAutotuneCache, "AutotuneCacheArtifact", "in seed-002; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "a mega-cache artifact whose populate_cache writes a best-config file; never inside an entry"),
    refused(kAutotuneCache, "AutotuneCacheBundler", "in seed-002; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "process-wide bundling state (class methods); never pickled"),
    refused(kAutotuneCache, "_AutotuneCacheBundlerImpl", "in seed-002; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "holds a remote cache handle; process-wide state, never pickled"),
    built("torch._inductor.remote_cache", "RemoteCacheJsonSerde", "imported by autotune_cache.py (seed-002); remote_cache.py not read", "the serializer of the best-config cache (inside a pickled LocalAutotuneCache)"),
    // cudagraph_utils.py: main 2.15a0 read in full.
    built("torch._inductor.cudagraph_utils", "BoxedDeviceIndex", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the cudagraph device index of an entry"),
    built("torch._inductor.cudagraph_utils", "CudagraphCachedInfo", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "why an entry cannot use cudagraphs (placeholders, stack traces, reasons)"),
    built("torch._inductor.cudagraph_utils", "PlaceholderInfo", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a graph input's description for cudagraph messages; a frozen slots dataclass whose generated __setstate__ only sets its fields"),
    refused("torch._inductor.cudagraph_utils", "CudagraphMetadata", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "built in post_compile from CudagraphCachedInfo and holds constant tensors; never pickled"),
    refused("torch._inductor.cudagraph_utils", "CUDAGraphPolicy", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a config hook object; never pickled into an entry"),
    refused("torch._inductor.cudagraph_utils", "FunctionID", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a cudagraph-tree runtime id; never pickled"),
    refused("torch._inductor.cudagraph_utils", "WrappedFunction", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "holds the function a cudagraph tree records; never pickled"),
    refused("torch._inductor.cudagraph_utils", "InputStorageMutationInfo", "in main 2.15a0; not in 2.7/2.8; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "computed from the GraphModule at compile time; only its reason string is kept"),
    refused("torch._inductor.cudagraph_utils", "CheckInvariantStatus", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a cudagraph-tree runtime status; never pickled"),
    // metrics.py: main 2.15a0 read in full.
    built("torch._inductor.metrics", "CachedMetricsDeltas", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "the metrics an entry replays on a hit"),
    refused("torch._inductor.metrics", "CachedMetricsHelper", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "computes deltas at compile time; never pickled"),
    refused("torch._inductor.metrics", "MetricTable", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a process-wide table that writes CSV files; never pickled"),
    refused("torch._inductor.metrics", "CppOuterLoopFusedCount", "in 2.7/2.8, main 2.15a0; 2.5, 2.6, 2.9, 2.10, 2.11 not read", "a compile-time counter; never pickled"),
    // utils.py: inventoried in full at rocm-2.10a0+2.8; only BoxedBool and GraphPartitionMap are in entries.
    built("torch._inductor.utils", "BoxedBool", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read (output_code.py imports it from utils in 2.7/2.8 and main)", "a boxed flag (cudagraphs) of an entry"),
    built("torch._inductor.utils", "GraphPartitionMap", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read (output_code.py imports it from utils on the 2.8.0 side of 2.7/2.8, not the 2.7.1 side, and in main)", "CompiledFxGraph.partition_maps with graph partitioning on; a frozen dataclass of indices and constant names"),
    refused("torch._inductor.utils", "align", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "a sympy function used while generating code; never in an entry"),
    refused("torch._inductor.utils", "CachedMethod", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "a typing Protocol; never instantiated"),
    refused("torch._inductor.utils", "LineContext", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "a line-map marker in generated code buffers; never in an entry"),
    refused("torch._inductor.utils", "ValueWithLineMap", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "generated code with its line map, before it is written; never in an entry"),
    refused("torch._inductor.utils", "IndentedBuffer", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "never in an entry: compile-time state of Inductor's code generation"),
    refused("torch._inductor.utils", "FakeIndentedBuffer", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "never in an entry: compile-time state of Inductor's code generation"),
    refused("torch._inductor.utils", "DeferredLineBase", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "never in an entry: compile-time state of Inductor's code generation"),
    refused("torch._inductor.utils", "DelayReplaceLine", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "holds a value_fn callable; never in an entry: compile-time state of Inductor's code generation"),
    refused("torch._inductor.utils", "DelayMaybeLine", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "holds a pred_fn callable; never in an entry: compile-time state of Inductor's code generation"),
    refused("torch._inductor.utils", "DebugDirManager", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "a context manager that deletes a debug directory on exit; never in an entry"),
    refused("torch._inductor.utils", "Placeholder", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "kernel-name placeholders in generated code; never in an entry"),
    refused("torch._inductor.utils", "OpDtypeRule", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "a dtype propagation rule registered at import; never in an entry"),
    refused("torch._inductor.utils", "ScopedDict", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "never in an entry: compile-time state of Inductor's code generation"),
    refused("torch._inductor.utils", "TritonAttrsDescriptorVersion", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "which Triton AttrsDescriptor API is installed, computed at run time; never in an entry"),
    refused("torch._inductor.utils", "CUDAGraphWrapperMetadata", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "passed to a user's cudagraph partition wrapper at run time; never in an entry"),
    refused("torch._inductor.utils", "CUDAGraphWrapper", "in 2.10a0/2.8; 2.5, 2.6, 2.7, 2.9, 2.11 not read", "holds a user-supplied wrapper function (process-wide); never in an entry"),
    record("torch.utils._ordered_set", "OrderedSet", "in main 2.15a0; 2.5, 2.6, 2.7, 2.8, 2.9, 2.10, 2.11 not read", "an ordered set; __reduce__ (main read) returns (OrderedSet, (list,)) and __init__ only builds a dict"),

    // ---- Dynamo precompile: save_compiled_function files and DynamoCache entries (cachedir/precompile.h);
    // read in 2.11's torch/_dynamo/package.py, aot_compile.py, aot_compile_types.py, precompile_context.py
    // and in the three real 2.11 files of tests/data/real-fixtures (every global of their pickles and nested pickles).
    precompile_only(built("torch._dynamo.package", "SerializedCode", "2.9 (source notes), 2.10, 2.11 read", "a code object's 19 co_* fields as data (frozen dataclass). PyTorch makes a types.CodeType of it on load and runs it: cachelens audits its names (docs/SECURITY.md, Precompiled code)")),
    precompile_only(built("torch._dynamo.package", "SourceInfo", "2.10, 2.11 read", "the source spans a precompiled function checks on load (a set of InlinedSource)")),
    precompile_only(built("torch._dynamo.package", "InlinedSource", "2.9 (without content), 2.10, 2.11 read", "one module span: module name, first and last line, sha256 checksum, the module's source; frozen dataclass")),
    precompile_only(built("torch._dynamo.package", "SystemInfo", "2.11 read (2.10: precompile_context.SystemInfo with cuda_version)", "Python, torch, toolkit and Triton versions and GPU name, which load compares with the running machine; frozen dataclass")),
    precompile_only(built("torch._dynamo.precompile_context", "SystemInfo", "2.10 (source notes)", "SystemInfo before it moved to package.py, with cuda_version")),
    precompile_only(built("torch._dynamo.package", "PrecompileCacheEntry", "2.10, 2.11 read", "a DynamoCache entry: the dynamo record and its backends by id; dataclass")),
    precompile_only(built("torch._dynamo.package", "_DynamoCacheEntry", "2.9 (source notes), 2.10, 2.11 read", "a DynamoCache entry's codes, sources, system info, function name and first line; dataclass")),
    precompile_only(built("torch._dynamo.package", "_DynamoCodeCacheEntry", "2.9 (source notes), 2.10, 2.11 read", "one code of a DynamoCache entry: its code, module, imports, backend ids and guarded codes; dataclass")),
    precompile_only(built("torch._dynamo.package", "_GuardedCodeCacheEntry", "2.9 (source notes), 2.10, 2.11 read", "Dynamo's bytecode for one set of guards, and the guards as a nested pickle; dataclass")),
    precompile_only(built("torch._dynamo.convert_frame", "GraphRuntimeEnv", "2.11 read", "what the bytecode of a save_compiled_function file runs with: the bytecode, its imports, used globals, closure, defaults, external references; dataclass")),
    precompile_only(built("torch.torch_version", "TorchVersion", "2.11 read", "the torch version in SystemInfo: a str subclass built from its text")),
    precompile_only(constant("torch._dynamo.aot_compile_types", "BundledAOTAutogradSerializableCallable", "2.11 read", "named only to getattr its deserialize_compile_artifacts")),
    precompile_only(constant("torch._dynamo.aot_compile_types", "BundledAOTAutogradSerializableCallable.deserialize_compile_artifacts", "2.11 read", "compiled_fn's deserializer, kept as data and called by load with the bytes beside it: cachelens decodes and checks those bytes as a pickle of their own")),
    precompile_only(constant("torch._dynamo.aot_compile_types", "GraphModuleSerializableCallable", "2.11 read", "named only to getattr its deserialize_compile_artifacts")),
    precompile_only(constant("torch._dynamo.aot_compile_types", "GraphModuleSerializableCallable.deserialize_compile_artifacts", "2.11 read", "an eager backend's deserializer: the bytes beside it hold a GraphPickler graph module, checked as their own pickle")),
    precompile_only(built("torch._dynamo.precompile_context", "EagerCacheArtifact", "2.11 read", "a DynamoCache backend compiled by the eager backend: a GraphModule, whose code PyTorch execs (reduce_graph_module)")),
    precompile_only(built("torch._dynamo.guards", "GuardsState", "2.11 read", "a precompiled function's guards: the output graph's guard state and the shape guards' code parts")),
    precompile_only(built("torch._dynamo.guards", "ShapeCodeParts", "2.11 read", "the shape guards as Python (and C++) expressions, which PyTorch compiles on load: cachelens shows them and audits them")),
    precompile_only(constant("torch._dynamo.guards", "GuardsStatePickler", "2.11 read", "named only to getattr _unpickle_tensor")),
    precompile_only(callable("torch._dynamo.guards", "GuardsStatePickler._unpickle_tensor", CallRule::NoArgsOrData, "2.11 read", "makes a FakeTensor from a meta tensor, device, Python type, dispatch key bits and grad: no storage, no code")),
    precompile_only(record("torch._dynamo.guards", "_Missing", "2.11 read", "stands for an attribute Dynamo did not guard on (_Missing('missing values'))")),
    precompile_only(built("torch._dynamo.output_graph", "OutputGraphGuardsState", "2.11 read", "the scopes, input sizes and guards a precompiled function's guards are rebuilt from")),
    precompile_only(built("torch._C._dynamo.guards", "GlobalStateGuard", "2.11 read", "the global state guard; BUILD hands its JSON text to its C++ __setstate__, which parses it")),
    precompile_only(built("torch.fx.experimental.symbolic_shapes", "_ShapeGuardsHelper", "2.11 read", "shape guard expressions (a slots dataclass)")),
    precompile_only(built("torch.fx.experimental.symbolic_shapes", "_CppShapeGuardsHelper", "2.11 read", "shape guard expressions for the C++ guard, which PyTorch compiles on load; audited")),
    precompile_only(built("torch.utils._traceback", "CapturedTraceback", "2.11 read", "where a guard was made, for its error messages")),
    precompile_only(built("traceback", "StackSummary", "Python's own", "the user stack of a guard (a list of FrameSummary)")),
    precompile_only(built("traceback", "FrameSummary", "Python's own", "one frame of a guard's user stack: file, line, name")),
    precompile_only(callable("torch._utils", "_rebuild_meta_tensor_no_storage", CallRule::NoArgsOrData, "2.11 read", "a meta tensor from dtype, size, stride and requires_grad: no storage, no data")),
    precompile_only(constant("torch.nn.parameter", "Parameter", "public API", "the Python type of a guarded parameter (_unpickle_tensor's pytype)")),
    precompile_only(callable("functools", "partial", CallRule::NoArgsOrData, "Python's own", "a guard's create_fn as partial(GuardBuilder.TENSOR_MATCH) with its value: BUILD sets (func, args, keywords, dict)")),

    // ---- torch/_inductor/runtime/caching: what its on-disk store keeps under cache/<sub_dir>/ (keyed_cache.h).
    value_only(record("torch._inductor.runtime.caching.interfaces", "CacheEntry", "in main (Dec 2025, PR #170228); 2.10, 2.11 not read", "a memoized call's encoded parameters and result (dicts, lists, str, int, bool); a dataclass whose __init__ only stores them")),

    // ---- Triton (kept in CachingAutotuner and TritonBundle); triton-main read in full for autotuner.py and jit.py.
    built("triton.runtime.autotuner", "Config", "in triton main; Triton releases not read", "one autotuning config. __setstate__ (triton-main) only stores its fields; pre_hook is a callable and ir_override names an IR file Triton would compile, and PyTorch's configs set neither"),
    refused("triton.runtime.autotuner", "Autotuner", "in triton main; Triton releases not read", "holds the kernel function and benchmarks it; never in an entry"),
    refused("triton.runtime.autotuner", "Heuristics", "in triton main; Triton releases not read", "holds callables; never in an entry"),
    built("triton.runtime.jit", "JITFunction", "in triton main; Triton releases not read", "a kernel's source and signature: no __setstate__/__reduce__ (triton-main), BUILD stores fields. Later code: Triton compiles its src if PyTorch recompiles with fn.fn set (PyTorch's own entries clear it and reload the kernel from source), and its device_caches factory getattr(fn, 'create_binder') execs a binder generated from its signature when run() is reached"),
    built("triton.runtime.jit", "KernelParam", "in triton main; Triton releases not read", "one kernel parameter (an inspect.Parameter and flags)"),
    refused("triton.runtime.jit", "JitFunctionInfo", "in triton main; Triton releases not read", "passed to Triton's compile hooks; never pickled"),
    refused("triton.runtime.jit", "DependenciesFinder", "in triton main; Triton releases not read", "an AST visitor used to hash a kernel; never pickled"),
    refused("triton.runtime.jit", "KernelInterface", "in triton main; Triton releases not read", "the base of JITFunction and the autotuners; never pickled itself"),
    refused("triton.runtime.jit", "MockTensor", "in triton main; Triton releases not read", "a warmup placeholder; never pickled"),
    refused("triton.runtime.jit", "TensorWrapper", "in triton main; Triton releases not read", "wraps a live tensor; never pickled"),
    built("triton.language.core", "constexpr", "named by kernel signatures; core.py not read", "a constexpr kernel argument; named as a signature annotation (core.py not inventoried in full)"),
    built("triton.backends.compiler", "AttrsDescriptor", "hints.py in 2.7/2.8 imports it here when Triton has it (its comment: Triton 3.2); Triton not read", "argument attributes (divisibility)"),
    built("triton.compiler.compiler", "AttrsDescriptor", "hints.py in 2.7/2.8 falls back to it here (its comment: Triton 3.0); Triton not read", "argument attributes (divisibility)"),
    refused("triton.compiler.compiler", "CompiledKernel", "Triton not read", "loads a compiled binary; entries keep kernels as files"),
};
// clang-format on

} // namespace

std::span<const PolicyRow> rows() {
    return kRows;
}

} // namespace cachelens::safety::table
