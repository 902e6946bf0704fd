// The pickle policy table (pickle_policy.h). Rows come from reading PyTorch's
// and Triton's source (tests/data/pytorch-inventory/classes.tsv lists every
// class of the inventoried modules; tst_pickle_policy fails when one has no
// row here). A row's `versions` names the snapshots it was read in where that is
// all we know; classes.tsv lists them. docs/SECURITY.md renders this table:
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
// Allowed in both entries and PGO pickles.
constexpr PolicyRow both(PolicyRow r) {
    r.in_pgo = true;
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
    "(dataclass_with_cached_hash pickles it as a call with its field values)";
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
    callable("inspect", "Parameter", CallRule::NoArgsOrData, "2.5–", "a kernel's signature (JITFunction.signature): Parameter(name, kind) + its default/annotation"),
    callable("inspect", "Signature", CallRule::NoArgsOrData, "2.5–", "a Triton kernel's signature: Signature(parameters)"),
    enumeration("inspect", "_ParameterKind", "2.5–", "the kind of a signature Parameter"),
    constant("inspect", "_empty", "2.5–", "a signature Parameter without a default or annotation"),

    // ---- torch: values metadata pickles carry.
    callable("torch", "device", CallRule::Device, "2.5–", "a device in DeviceProperties, CurrentStreamSource, tensor metadata: device(type[, index])"),
    callable("torch", "Size", CallRule::NoArgsOrData, "2.5–", "a tensor shape in metadata: Size([ints])"),
    constant("torch", "Tensor", "2.5–", "a class named as data (a signature annotation)"),
    constant("torch", "SymInt", "2.5–", "a class named as data (an annotation); never constructed by a pickle"),
    constant("torch", "float16", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "float32", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "float64", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "bfloat16", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "float8_e4m3fn", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "float8_e5m2", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "complex64", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "complex128", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "int8", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "int16", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "int32", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "int64", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "uint8", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "bool", "2.5–", "a dtype in tensor metadata"),
    constant("torch", "strided", "2.5–", "a layout in tensor metadata"),
    constant("torch", "contiguous_format", "2.5–", "a memory format in tensor metadata"),
    constant("torch", "channels_last", "2.5–", "a memory format in tensor metadata"),
    constant("torch", "channels_last_3d", "2.5–", "a memory format in tensor metadata"),
    constant("torch", "preserve_format", "2.5–", "a memory format in tensor metadata"),
    constant("torch._utils", "torch.contiguous_format", "2.5–", "torch.memory_format pickles by qualified name under torch._utils (MemoryFormatMeta)"),
    constant("torch._utils", "torch.channels_last", "2.5–", "torch.memory_format pickles by qualified name under torch._utils (MemoryFormatMeta)"),
    refused("torch._utils", "_rebuild_tensor_v2", "all", "rebuilds a tensor from storage: tensor data is never in an entry"),
    refused("torch._utils", "_rebuild_parameter", "all", "rebuilds a Parameter from storage: tensor data is never in an entry"),
    refused("torch._utils", "_rebuild_from_type_v2", "all", "calls a tensor subclass's rebuild function: never in an entry"),
    constant("torch._subclasses.functional_tensor", "FunctionalTensor", "2.5–", "a class named as data in AOTAutograd metadata"),
    // ---- torch.fx: a GraphModule pickles as reduce_graph_module(body, import_block).
    row("torch.fx.graph_module", "reduce_graph_module", GlobalRole::CodePath, "2.5–",
        "execs import_block + body['_code'] to rebuild a GraphModule: the code goes to the code audit"),
    refused("torch.fx.graph_module", "reduce_package_graph_module", "2.5–", "imports code from a torch.package archive: never in a cache entry"),
    refused("torch.fx.graph_module", "reduce_deploy_graph_module", "2.5–", "imports code through torch::deploy: never in a cache entry"),
    refused("torch.fx.graph_module", "GraphModule", "2.5–", "pickles through reduce_graph_module; never named itself"),

    // ---- torch/_guards.py
    built(kGuards, "CompileId", "2.5–", "the compile id recorded in a CompiledFxGraph and its cached metrics"),
    record(kGuards, "TraceId", "2.5–", "a NamedTuple of a CompileId and an attempt"),
    enumeration(kGuards, "GuardSource", "2.5–", "where a guarded value comes from"),
    record(kGuards, "Source", "2.5–", "the base of every Source; a frozen dataclass"),
    record(kGuards, "ChainedSource", "2.5–", "the base of sources with a base source; a frozen dataclass"),
    record(kGuards, "GuardEnvExpr", "2.5–", "the base of AOTAutograd's guard expressions; a frozen dataclass"),
    record(kGuards, "DuplicateInputs", "2.5–", "an AOTAutograd guard on two deduplicated inputs"),
    record(kGuards, "StorageOverlap", "2.6–", "an AOTAutograd guard on inputs sharing storage"),
    refused(kGuards, "Guard", "2.5–", "holds its create_fn callable; Dynamo guards are not pickled into entries"),
    refused(kGuards, "SLoc", "2.5–", "holds a traceback frame; never in an entry"),
    refused(kGuards, "ShapeGuard", "2.5–", "holds a sympy expression; entries keep guards as strings"),
    refused(kGuards, "GuardBuilderBase", "2.5–", kContextWhy),
    refused(kGuards, "Checkpointable", "2.5–", kContextWhy),
    refused(kGuards, "GuardsCheckpointState", "2.5–", kContextWhy),
    refused(kGuards, "ModuleContextCheckpointState", "2.5–", kContextWhy),
    refused(kGuards, "ModuleContext", "2.5–", kContextWhy),
    refused(kGuards, "GlobalContextCheckpointState", "2.5–", kContextWhy),
    refused(kGuards, "GlobalContext", "2.5–", "restore_graphstate calls the functions it holds; tracing-time state"),
    refused(kGuards, "GuardsSet", "2.5–", kContextWhy),
    refused(kGuards, "GuardsContext", "2.5–", kContextWhy),
    refused(kGuards, "HopSubgraphCache", "2.6–", kContextWhy),
    refused(kGuards, "InvokeSubgraphCache", "2.6–", kContextWhy),
    refused(kGuards, "InvokeSubgraphReuseEntry", "2.11–", "holds a GraphModule; tracing-time state"),
    refused(kGuards, "InvokeSubgraphReuseCondition", "2.11–", kContextWhy),
    refused(kGuards, "HopDispatchSetCache", "2.6–", kContextWhy),
    refused(kGuards, "_TLSStorage", "2.10–", kContextWhy),
    refused(kGuards, "CompileContext", "2.5–", kContextWhy),
    refused(kGuards, "InlinedCodeCache", "2.11–", "holds bytecode instructions; tracing-time state"),
    refused(kGuards, "TracingContext", "2.5–", kContextWhy),

    // ---- torch/_dynamo/source.py: every Source subclass (guards and input sources).
    record(kSource, "LocalSource", "2.5–", kSourceWhy),
    record(kSource, "TempLocalSource", "2.10–", kSourceWhy),
    record(kSource, "SyntheticLocalSource", "2.5–", kSourceWhy),
    record(kSource, "RandomValueSource", "2.5–", kSourceWhy),
    record(kSource, "GlobalSource", "2.5–", kSourceWhy),
    record(kSource, "GlobalWeakRefSource", "2.5–", kSourceWhy),
    record(kSource, "WeakRefCallSource", "2.5–", kSourceWhy),
    record(kSource, "CallFunctionNoArgsSource", "2.5–", kSourceWhy),
    record(kSource, "AttrSource", "2.5–", kSourceWhy),
    record(kSource, "CellContentsSource", "2.10–", kSourceWhy),
    record(kSource, "GenericAttrSource", "2.7–", kSourceWhy),
    record(kSource, "TypeDictSource", "2.7–", kSourceWhy),
    record(kSource, "TypeMROSource", "2.7–", kSourceWhy),
    record(kSource, "LocalCellSource", "2.7–", kSourceWhy),
    record(kSource, "CodeSource", "2.7–", kSourceWhy),
    record(kSource, "ClosureSource", "2.7–", kSourceWhy),
    record(kSource, "AutoDerefLocalSource", "2.5–2.6", kSourceWhy),
    record(kSource, "GradSource", "2.5–", kSourceWhy),
    record(kSource, "ParamBufferSource", "2.5–", kSourceWhy),
    record(kSource, "UnspecializedParamBufferSource", "2.5–", kSourceWhy),
    record(kSource, "EphemeralSource", "2.5–", kSourceWhy),
    record(kSource, "SkipGuardSource", "2.7–", kSourceWhy),
    enumeration(kSource, "TensorProperty", "2.5–", "which tensor property (size, stride, storage offset) a TensorPropertySource reads"),
    record(kSource, "TensorPropertySource", "2.5–", kSourceWhy),
    record(kSource, "IndexedSource", "2.8–", kSourceWhy),
    record(kSource, "NegateSource", "2.5–", kSourceWhy),
    record(kSource, "ConvertIntSource", "2.5–", kSourceWhy),
    record(kSource, "DynamicScalarSource", "2.10–", kSourceWhy),
    record(kSource, "FlattenScriptObjectSource", "2.5–", kSourceWhy),
    record(kSource, "ScriptObjectQualifiedNameSource", "2.5–", kSourceWhy),
    record(kSource, "AttrProxySource", "2.5–", kSourceWhy),
    record(kSource, "DefaultsSource", "2.5–", kSourceWhy),
    record(kSource, "GetItemSource", "2.5–", kSourceWhy),
    record(kSource, "ConstDictKeySource", "2.5–", kSourceWhy),
    record(kSource, "NonSerializableSetGetItemSource", "2.8–", kSourceWhy),
    record(kSource, "DictGetItemSource", "2.6–", kSourceWhy),
    record(kSource, "DictSubclassGetItemSource", "2.7–", kSourceWhy),
    record(kSource, "ListGetItemSource", "2.8–", kSourceWhy),
    record(kSource, "TupleIteratorGetItemSource", "2.5–", kSourceWhy),
    record(kSource, "NamedTupleFieldsSource", "2.8–", kSourceWhy),
    record(kSource, "DataclassFieldsSource", "2.10–", kSourceWhy),
    record(kSource, "TypeSource", "2.5–", kSourceWhy),
    record(kSource, "ODictGetItemSource", "2.5–2.7", kSourceWhy),
    record(kSource, "OptimizerSource", "2.5–", kSourceWhy),
    record(kSource, "NNModuleSource", "2.5–", kSourceWhy),
    record(kSource, "UnspecializedNNModuleSource", "2.5–", kSourceWhy),
    record(kSource, "UnspecializedBuiltinNNModuleSource", "2.5–", kSourceWhy),
    record(kSource, "FSDPNNModuleSource", "2.5–", kSourceWhy),
    record(kSource, "GlobalStateSource", "2.5–", kSourceWhy),
    record(kSource, "ImportSource", "2.8–", kSourceWhy),
    record(kSource, "HopUnspecializedIntSource", "2.5–2.6", kSourceWhy),
    record(kSource, "TorchFunctionModeStackSource", "2.5–", kSourceWhy),
    record(kSource, "ConstantSource", "2.5–", kSourceWhy),
    record(kSource, "NumpyTensorSource", "2.5–", kSourceWhy),
    record(kSource, "SubclassAttrListSource", "2.5–", kSourceWhy),
    record(kSource, "UnwrapCollectiveTensorSource", "2.11–", kSourceWhy),
    record(kSource, "FloatTensorSource", "2.5–", kSourceWhy),
    record(kSource, "CallMethodItemSource", "2.5–", kSourceWhy),
    record(kSource, "ContextVarGetSource", "2.10–", kSourceWhy),
    record(kSource, "ShapeEnvSource", "2.5–", kSourceWhy),
    record(kSource, "CurrentStreamSource", "2.8–", kSourceWhy),
    record(kSource, "BackwardStateSource", "2.5–", kSourceWhy),

    // ---- torch/_dynamo/pgo.py: a PGO pickle is a defaultdict(CodeId -> CodeState).
    pgo_only(record(kPgo, "CodeId", "2.6–", "the key of a profile: file, line, name (and file hash)")),
    pgo_only(built(kPgo, "CodeState", "2.6–", "a code object's profile: automatic_dynamic per source")),
    pgo_only(built(kPgo, "FrameStateSizeEntry", "2.6–", "observed sizes/strides of one input; also the defaultdict factory")),
    pgo_only(record(kPgo, "InferStride", "2.6–", "a stride inferred from the next dimension")),
    pgo_only(enumeration(kPgo, "AutoUnset", "2.6–", "the 'nothing observed' element")),
    pgo_only(enumeration(kPgo, "AutoDynamic", "2.6–", "the 'dynamic' element")),
    refused(kPgo, "ReservedWorkflowIdUserError", "2.8–", "an exception, never pickled"),
    refused(kPgo, "PGOCacheArtifact", "main 2.15a0 (read)", "a mega-cache artifact whose populate_cache writes a profile file; never pickled into a profile"),

    // ---- AOTAutograd: schemas, descriptors, the cache entry, its wrappers.
    // schemas.py: main 2.15a0 read in full.
    built(kSchemas, "AOTConfig", "2.8–2.11", "sanitized_aot_config of a GenericAOTAutogradCacheEntry (rocm-2.9 read) and of 2.11 entries (fixtures), its compilers set to None; not a field of the 2.5-era entry (old-008ec6b)"),
    built(kSchemas, "CacheableAOTConfig", "main 2.15a0 (read)", "the serializable subset of AOTConfig that newer entries keep as sanitized_aot_config (not in the 2.11 fixtures)"),
    refused(kSchemas, "AOTAutogradCacheInfo", "2.5–", "the compile's cache key and forward SymInts (list[torch.SymInt] in rocm-2.9 and main), which cannot be pickled: no entry holds one"),
    built(kSchemas, "InputAliasInfo", "2.5–", "per-input mutation/alias metadata (a frozen dataclass; its cached mutation_type may be pickled with it)"),
    built(kSchemas, "OutputAliasInfo", "2.5–", "per-output alias metadata; main interpolates its base_idx into generated Python, so a non-int base_idx is code PyTorch runs (see ViewAndMutationMeta)"),
    built(kSchemas, "MemoryFormatMeta", "2.6–", "an output's memory format"),
    built(kSchemas, "PlainTensorMeta", "2.5–", "a plain tensor's metadata in subclass handling"),
    built(kSchemas, "OpaqueMeta", "main 2.15a0 (read)", "an opaque (custom class) slot in a subclass's flattened attributes; no fields"),
    built(kSchemas, "SubclassCreationMeta", "2.5–", "how to rebuild a tensor subclass output; at run time PyTorch calls original_subclass_type.__tensor_unflatten__, so that type must itself be an allowed global"),
    built(kSchemas, "SubclassMeta", "2.5–", "maybe_subclass_meta of an AOTAutograd entry (old-008ec6b, rocm-2.9, main): fw_metadata and grad_input_metas, set after an argument-less __init__"),
    built(kSchemas, "ViewAndMutationMeta", "2.5–", "the forward metadata of a compiled graph. Unpickling does not run __post_init__: its derived index fields (mutated_inp_runtime_indices, aliased_out_indices, num_*) are pickled values, and main's runtime wrappers interpolate them into Python source they exec, so a string there is code PyTorch runs; check_pickle requires the ints PyTorch writes there"),
    refused(kSchemas, "TensorAlias", "2.5–", "wraps a real output tensor while the compiled forward runs; entries carry no tensors"),
    refused(kSchemas, "BackwardSignature", "2.5–", "part of an exported joint graph's signature (aot_export); not a field of any cache entry"),
    refused(kSchemas, "GraphSignature", "2.5–", "an exported joint graph's signature with pytree specs (aot_export); not a field of any cache entry"),
    refused(kSchemas, "SubclassTracingInfo", "main 2.15a0 (read)", "a NamedTuple of tracing functions and fake args; tracing-time state"),
    refused(kSchemas, "AOTState", "main 2.15a0 (read)", "holds fake args, an ExitStack and a FakeTensorMode; tracing-time state"),
    refused(kSchemas, "AOTGraphCapture", "main 2.15a0 (read)", "holds a GraphModule and fake args; tracing-time state"),
    refused(kSchemas, "JointWithDescriptors", "main 2.15a0 (read)", "holds tracing state and a GraphModule; never in an entry"),
    refused(kSchemas, "CompilerWrapper", "2.5–", "the base of the dispatch wrappers; entries keep instances of AOTDedupeWrapper and AOTSyntheticBaseWrapper only"),
    refused(kSchemas, "InductorWrapper", "main 2.15a0 (read)", "the base of FunctionalizedRngRuntimeWrapper/FakifiedOutWrapper, which are never pickled"),
    refused(kSchemas, "AOTDispatchCompiler", "main 2.15a0 (read)", "a typing Protocol; never instantiated"),
    refused(kSchemas, "SerializableAOTDispatchCompiler", "main 2.15a0 (read)", "holds the compiler function; compile-time only"),
    refused(kSchemas, "FlatFn", "main 2.15a0 (read)", "a typing Protocol; never instantiated"),
    refused(kSchemas, "TraceFn", "main 2.15a0 (read)", "a typing Protocol; never instantiated"),
    refused(kSchemas, "PreppedForAutogradTraceFn", "main 2.15a0 (read)", "a typing Protocol; never instantiated"),
    refused(kSchemas, "JointTraceFn", "main 2.15a0 (read)", "a typing Protocol; never instantiated"),
    enumeration(kSchemas, "MutationType", "2.5–", "how an input is mutated"),
    enumeration(kSchemas, "OutputType", "2.5–", "how an output aliases (a functional Enum(...) in schemas.py)"),
    // descriptors.py: main 2.15a0 read in full (class definitions).
    record(kDescriptors, "AOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "DifferentiableAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "AOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "DifferentiableAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "ParamAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "BufferAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "DummyAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "PlainAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "SubclassGetAttrAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "SubclassSizeAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "SubclassStrideAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "ViewBaseAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "SyntheticBaseAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "PhiloxForwardSeedAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "PhiloxForwardBaseOffsetAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "PhiloxBackwardSeedAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "PhiloxBackwardBaseOffsetAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "ForwardTokenAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "BackwardTokenAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "TangentAOTInput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "PlainAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "InputMutationAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "IntermediateBaseAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "MetadataMutationAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "GradAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "PhiloxUpdatedForwardOffsetAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "PhiloxUpdatedBackwardOffsetAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "ForwardTokenAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "BackwardTokenAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "DummyAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "SubclassGetAttrAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "SubclassSizeAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "SubclassStrideAOTOutput", "2.9–", kDescriptorWhy),
    record(kDescriptors, "SavedForBackwardsAOTOutput", "main 2.15a0 (read)", kDescriptorWhy),
    record(kDescriptors, "SavedForBackwardsNoVcCheckAOTOutput", "main 2.15a0 (read)", kDescriptorWhy),
    // aot_autograd_result.py: main 2.15a0 read in full.
    built(kResult, "AOTAutogradResult", "2.10–", "the AOTAutograd entry itself (main read)"),
    built(kResult, "BundledAOTAutogradResult", "2.10–", "an AOTAutograd entry bundling its compiled graphs (main read)"),
    built(kResult, "CompiledForward", "2.10–", "the forward graph's FX cache key"),
    built(kResult, "CompiledBackward", "2.10–", "the backward graph's FX cache key and signature; main interpolates backward_state_indices[0] into generated Python"),
    built(kResult, "BundledCompiledForward", "2.10–", "a forward graph kept inside the entry"),
    built(kResult, "BundledCompiledBackward", "2.10–", "a backward graph kept inside the entry"),
    built(kResult, "BundledOutputCodeLoadable", "main 2.15a0 (read)", "the generic base of BundledCompiledForward/Backward; CompiledFxGraphLoadable is an alias of it, so a graph bundled through the alias pickles under this name"),
    built(kResult, "SerializedGraphModule", "2.10–", "holds reduce_graph_module and its args for later (its code goes to the audit)"),
    refused(kResult, "InductorOutput", "main 2.15a0 (read)", "an abstract base; entries pickle its subclasses"),
    refused(kResult, "FxGraphCacheLoadable", "main 2.15a0 (read)", "the base of CompiledForward/CompiledBackward; entries pickle the subclasses"),
    refused(kResult, "GenericCompiledBackward", "main 2.15a0 (read)", "a generic base; entries pickle CompiledBackward/BundledCompiledBackward"),
    refused(kResult, "GenericAOTAutogradResult", "main 2.15a0 (read)", "a generic base; entries pickle AOTAutogradResult/BundledAOTAutogradResult"),
    refused(kResult, "BundledAOTAutogradCacheArtifact", "main 2.15a0 (read)", "a precompile artifact whose after_deserialization turns an entry into a callable; never inside an entry"),
    // autograd_cache.py: read in full at old-008ec6b (2.5-era) and rocm-2.9 (2.9 with 2.8 merge markers).
    built(kAutogradCache, "AOTAutogradCacheEntry", "2.5–2.9", "the AOTAutograd entry before aot_autograd_result.py (a dataclass in old-008ec6b, a GenericAOTAutogradCacheEntry subclass in rocm-2.9)"),
    built(kAutogradCache, "BundledAOTAutogradCacheEntry", "2.8–2.9", "the bundled AOTAutograd entry before aot_autograd_result.py (rocm-2.9 read)"),
    built(kAutogradCache, "CompiledForward", "2.5–2.9", "the forward graph's FX cache key (old-008ec6b, rocm-2.9)"),
    built(kAutogradCache, "CompiledBackward", "2.5–2.9", "the backward graph's FX cache key and signature (old-008ec6b, rocm-2.9)"),
    built(kAutogradCache, "BundledCompiledForward", "2.8–2.9", "a forward graph kept inside a bundled entry (rocm-2.9 read)"),
    built(kAutogradCache, "BundledCompiledBackward", "2.8–2.9", "a backward graph kept inside a bundled entry (rocm-2.9 read)"),
    built(kAutogradCache, "SerializedGraphModule", "2.8–2.9", "holds reduce_graph_module and its args for later (its code goes to the audit)"),
    refused(kAutogradCache, "GenericAOTAutogradCacheEntry", "2.8–2.9", "a generic base (rocm-2.9); entries pickle AOTAutogradCacheEntry/BundledAOTAutogradCacheEntry"),
    refused(kAutogradCache, "FXGraphCacheLoadable", "2.5 (old-008ec6b read)", "the base of CompiledForward/CompiledBackward; entries pickle the subclasses"),
    refused(kAutogradCache, "FxGraphCacheLoadable", "2.8–2.9 (rocm-2.9 read)", "the base of CompiledForward/CompiledBackward; entries pickle the subclasses"),
    refused(kAutogradCache, "CompiledFxGraphLoadable", "2.8–2.9 (rocm-2.9 read)", "the base of BundledCompiledForward/Backward; entries pickle the subclasses"),
    refused(kAutogradCache, "GenericCompiledBackward", "2.8–2.9 (rocm-2.9 read)", "a generic base; entries pickle CompiledBackward/BundledCompiledBackward"),
    refused(kAutogradCache, "InductorOutput", "2.8–2.9 (rocm-2.9 read)", "an abstract base; entries pickle its subclasses"),
    refused(kAutogradCache, "AOTAutogradCache", "2.5–2.9", "the cache's load/save logic (static methods); never pickled"),
    refused(kAutogradCache, "AOTAutogradCacheDetails", "2.5–2.9", "the cache-key inputs, hashed at compile time and never stored"),
    refused(kAutogradCache, "AOTAutogradCachePickler", "2.5–2.9", "the pickler that hashes cache keys; never pickled"),
    refused(kAutogradCache, "AOTAutogradCacheArtifact", "2.8–2.9 (rocm-2.9 read)", "a mega-cache artifact whose populate_cache writes an entry file; never inside an entry"),
    refused(kAutogradCache, "BundledAOTAutogradCacheArtifact", "2.8–2.9 (rocm-2.9 read)", "a precompile artifact whose after_deserialization unpickles its content and wraps it into a callable; never inside an entry"),
    refused(kAutogradCache, "BypassAOTAutogradCache", "2.5–2.9", "an exception, never pickled"),
    refused(kAutogradCache, "FXGraphCacheMiss", "2.5–2.9", "an exception, never pickled"),
    // runtime_wrappers.py: main 2.15a0 read in full; _create_wrappers_for_dispatch read in old and new copies.
    built(kWrappers, "AOTDedupeWrapper", "2.5–", kDispatchWrapperWhy),
    built(kWrappers, "AOTSyntheticBaseWrapper", "2.5–", kDispatchWrapperWhy),
    refused(kWrappers, "RuntimeWrapper", "2.5–", kLoadTimeWrapperWhy),
    refused(kWrappers, "FunctionalizedRngRuntimeWrapper", "2.5–", kLoadTimeWrapperWhy),
    refused(kWrappers, "FakifiedOutWrapper", "2.5–", kLoadTimeWrapperWhy),
    refused(kWrappers, "AOTDispatchSubclassWrapper", "2.5–", kLoadTimeWrapperWhy),
    refused(kWrappers, "EffectTokensWrapper", "2.5–", kLoadTimeWrapperWhy),
    refused(kWrappers, "DebugAssertWrapper", "2.5–", kLoadTimeWrapperWhy),
    refused(kWrappers, "AOTDispatchAutograd", "2.5–", "static helpers that build the autograd.Function at load; never pickled"),
    refused(kWrappers, "AOTDispatchAutogradCompileSpec", "main 2.15a0 (read)", "holds the compiled callables while the autograd.Function is built; never pickled"),
    refused(kWrappers, "AutogradLazyBackwardCompileInfo", "main 2.15a0 (read)", "holds the backward GraphModule and tracing contexts for a lazy compile; never pickled"),
    refused(kWrappers, "CachedAutogradLazyBackwardCompileInfo", "main 2.15a0 (read)", "wraps SerializedGraphModule.deserialize at load; never pickled"),
    refused(kWrappers, "SerializableCompiledFunction", "main 2.15a0 (read)", "wraps the loaded callable (precompile); never pickled"),
    refused(kWrappers, "NoopAliasHandler", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "AliasOfInputHandler", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "IsInputHandler", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "AliasOfIntermediateHandler", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "_AnalyzeCustomOpInputOutputMode", "main 2.15a0 (read)", "a TorchDispatchMode active on the first call; never pickled"),
    refused(kWrappers, "_FirstInvocationContext", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "_RuntimeCompiledFnInvoker", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "_RuntimeForwardEpilogue", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "_AutogradSavedState", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "_AutogradForwardEpilogue", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "_AutogradRngStateTracker", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "_AutogradBackwardCompiler", "main 2.15a0 (read)", kWrapperStateWhy),
    refused(kWrappers, "_AOTDispatchAutogradFunctionFactory", "main 2.15a0 (read)", kWrapperStateWhy),

    // ---- Inductor: the FX graph entry and what it holds.
    built("torch._inductor.codecache", "CompiledFxGraph", "2.5", "the FX graph entry before output_code.py (old-008ec6b imports it from codecache; codecache.py itself not read)"),
    // output_code.py: main 2.15a0 read in full.
    built(kOutputCode, "CompiledFxGraph", "2.6–", "the FX graph entry itself: no __setstate__, BUILD stores its fields; its source_code goes to the audit. main's post_compile also unpickles _serialized_original_gm with GraphPickler, a second pickle check_pickle decodes and checks under this policy"),
    refused(kOutputCode, "CompiledAOTI", "2.6–", "post_compile runs __post_init__ (main read), which loads the .so its filename names through AOTIModelContainerRunner and writes its _cached_files bytes to the paths that are their keys: native code and file writes chosen by the pickle"),
    refused(kOutputCode, "RegionalOutputCode", "main 2.15a0 (read)", "post_compile unpickles _serialized_graph_module with GraphPickler (a second pickle this policy does not see) and calls the (fn, kwargs) pairs of _serialized_wrappers"),
    refused(kOutputCode, "MockFXGraphCacheOutput", "main 2.15a0 (read)", "a test double that calls the GraphModule it holds; never in a real entry"),
    refused(kOutputCode, "OutputCode", "2.6–", "the abstract base; entries pickle CompiledFxGraph"),
    refused(kOutputCode, "CompiledFxGraphConstants", "main 2.15a0 (read)", "passed to post_compile at load; never pickled"),
    refused(kOutputCode, "CompiledFxGraphConstantsWithGm", "main 2.15a0 (read)", "holds the live GraphModule at load; never pickled"),
    // triton_bundler.py: main 2.15a0 read in full.
    built(kBundler, "TritonBundle", "2.6–", "the Triton kernels saved with an FX entry"),
    built(kBundler, "TritonKernelArtifacts", "2.6–", "one kernel's compiled files"),
    built(kBundler, "TritonKernelArtifact", "2.6–", "one compiled file (cubin, ptx, json, ...) as bytes; read_and_emit writes it into Triton's cache dir on a hit, and a cubin there is GPU machine code no audit can read"),
    built(kBundler, "StaticallyLaunchedAutotuner", "2.8–", "a kernel launched without Triton at load: its CachingAutotuner goes to CompiledTritonKernels"),
    refused(kBundler, "TritonBundler", "2.6–", "process-wide bundling state; never pickled"),
    refused(kBundler, "TritonBundleEntry", "main 2.15a0 (read)", "a compile-time note of a kernel's hash and cache directory, kept in memory; the bundle holds TritonKernelArtifacts"),
    refused(kBundler, "TritonBundlerMetadata", "main 2.15a0 (read)", "kernel names returned for logging; never pickled"),
    built("torch._inductor.runtime.static_cuda_launcher", "StaticallyLaunchedCudaKernel", "2.8–2.10", "a kernel's cubin and launch metadata (rocm-2.9 read: __getstate__ only); its cubin_raw is written to a file and loaded onto the GPU when launched"),
    built("torch._inductor.runtime.static_triton_launcher", "StaticallyLaunchedCudaKernel", "2.11–", "a kernel's cubin and launch metadata (main read: __getstate__ only; __del__ unloads nothing after unpickling); its cubin_raw is written to a file and loaded onto the GPU when launched"),
    built("torch._inductor.runtime.static_triton_launcher", "StaticallyLaunchedXpuKernel", "main 2.15a0 (read)", "an XPU kernel's zebin and launch metadata; loaded onto the device when launched"),
    refused("torch._inductor.runtime.static_triton_launcher", "StaticallyLaunchedTritonKernel", "main 2.15a0 (read)", "the base of the CUDA/XPU kernels (its C_impl raises); entries pickle the subclasses"),
    // hints.py: main 2.15a0 read in full.
    record(kHints, "DeviceProperties", "2.5–", "the GPU a kernel was tuned for; a NamedTuple"),
    enumeration(kHints, "HeuristicType", "2.5–", "which Inductor heuristic made a kernel"),
    enumeration(kHints, "ReductionHint", "2.5–", "a reduction kernel's hint"),
    enumeration(kHints, "TileHint", "2.5–", "a pointwise kernel's hint"),
    enumeration(kHints, "AutotuneHint", "2.5–", "an autotuning hint"),
    built(kHints, "AttrsDescriptor", "2.5–2.6", "Triton's argument attributes (divisibility), Inductor's copy (not a class in main, where it is a wrapper function)"),
    refused(kHints, "TritonMeta", "main 2.15a0 (read)", "a TypedDict: its values are plain dicts, the class is never pickled"),
    refused(kHints, "InductorMeta", "main 2.15a0 (read)", "a TypedDict: its values are plain dicts, the class is never pickled"),
    // triton_heuristics.py: main 2.15a0 read in full.
    built(kHeuristics, "CachingAutotuner", "2.6–", "a static autotuner kept in a TritonBundle. Its __setstate__ (main) stores the fields, makes a Lock and rebuilds its plugins (importing the fixed torch._inductor.runtime.fb.incremental only if inductor_meta asks; absent from OSS builds). Its pickled fields steer what runs later: triton_interpret routes run() into JITFunction.run, dump_launch_params/tensors write files, and its compile results' launchers are Python generated from pickled strings (StaticTritonCompileResult)"),
    built(kHeuristics, "DebugAutotuner", "2.6–", "the CachingAutotuner subclass used with profile_bandwidth; same state and launch path"),
    built(kHeuristics, "InductorConfig", "2.10–", "a triton Config subclass; Config.__setstate__ stores the known fields"),
    built(kHeuristics, "StaticTritonCompileResult", "2.8–", "a statically launched compiled kernel (main read). make_launcher loads its cubin onto the GPU and execs a launcher built from pickled fields: kernel.arg_names, inductor_meta grid_type/fixed_grid/precomputed_grids/extra_launcher_args and compile_meta constants (str constants quoted as r'...'); a string there is Python PyTorch runs, so check_pickle requires identifiers, Inductor's grid arithmetic and unquoted constants there"),
    built(kHeuristics, "_ConstRepr", "2.7–", "a kernel repr's text kept by prepare_for_pickle; __call__ returns it"),
    refused(kHeuristics, "TritonCompileResult", "2.7–", "never in a cache entry (main read): TritonBundler keeps an autotuner only when every compile result is a StaticTritonCompileResult; this one only crosses the compile-worker pipe. Its __setstate__ rebuilds a Triton CompiledKernel and makes a namedtuple class from the pickled metadata keys, and make_launcher loads that binary"),
    refused(kHeuristics, "CompileResult", "main 2.15a0 (read)", "the base of the compile results; entries pickle StaticTritonCompileResult"),
    refused(kHeuristics, "CachingAutotunerPlugin", "main 2.15a0 (read)", "plugins are rebuilt by CachingAutotuner.__setstate__ (__getstate__ stores an empty list)"),
    refused(kHeuristics, "BenchmarkFailureReason", "main 2.15a0 (read)", "prepare_for_pickle empties benchmark_failure_reasons before an autotuner is pickled"),
    refused(kHeuristics, "NoTritonConfigsError", "main 2.15a0 (read)", "an exception, never pickled"),
    refused(kHeuristics, "CannotStaticallyLaunchKernel", "main 2.15a0 (read)", "an exception, never pickled"),
    refused(kHeuristics, "GridExpr", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "Grid1D", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "Grid2D", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "Grid3D", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "BatchMatmulGrid3D", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "Grid2DWithYZOverflow", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "MixOrderReductionGrid", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "CooperativeReductionGrid", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "SplitScanGrid", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "FixedGrid", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "PrecomputedGrid", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "ComboKernelGrid", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "SequentialComboKernelGrid", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "SequentialFlattenComboKernelGrid", "main 2.15a0 (read)", kGridWhy),
    refused(kHeuristics, "RoundRobinComboKernelGrid", "main 2.15a0 (read)", kGridWhy),
    built("torch._inductor.runtime.coordinate_descent_tuner", "CoordescTuner", "2.5–", "the coordinate descent tuner kept by an autotuner (main read: fields only)"),
    // autotune_cache.py: read in full from seed-002 (version not stated).
    built(kAutotuneCache, "AutotuneCache", "2.5–", "a kept autotuner's save_cache_hook is AutotuneCache.save bound to one. Its __setstate__ (seed-002) reconnects the remote autotune cache through create_cache when remote_cache is set: network access chosen by the loading process's config, not code from the pickle"),
    built(kAutotuneCache, "LocalAutotuneCache", "2.6–", "the local best-config cache (seed-002 read)"),
    built(kAutotuneCache, "_LocalAutotuneCacheBackend", "2.6–", "the local best-config backend (seed-002 read)"),
    refused(kAutotuneCache, "AutotuneCacheArtifact", "seed-002 (read)", "a mega-cache artifact whose populate_cache writes a best-config file; never inside an entry"),
    refused(kAutotuneCache, "AutotuneCacheBundler", "seed-002 (read)", "process-wide bundling state (class methods); never pickled"),
    refused(kAutotuneCache, "_AutotuneCacheBundlerImpl", "seed-002 (read)", "holds a remote cache handle; process-wide state, never pickled"),
    built("torch._inductor.remote_cache", "RemoteCacheJsonSerde", "2.5–", "the serializer of the best-config cache (inside a pickled LocalAutotuneCache)"),
    // cudagraph_utils.py: main 2.15a0 read in full.
    built("torch._inductor.cudagraph_utils", "BoxedDeviceIndex", "2.5–", "the cudagraph device index of an entry"),
    built("torch._inductor.cudagraph_utils", "CudagraphCachedInfo", "2.6–", "why an entry cannot use cudagraphs (placeholders, stack traces, reasons)"),
    built("torch._inductor.cudagraph_utils", "PlaceholderInfo", "2.5–", "a graph input's description for cudagraph messages; a frozen slots dataclass whose generated __setstate__ only sets its fields"),
    refused("torch._inductor.cudagraph_utils", "CudagraphMetadata", "main 2.15a0 (read)", "built in post_compile from CudagraphCachedInfo and holds constant tensors; never pickled"),
    refused("torch._inductor.cudagraph_utils", "CUDAGraphPolicy", "main 2.15a0 (read)", "a config hook object; never pickled into an entry"),
    refused("torch._inductor.cudagraph_utils", "FunctionID", "main 2.15a0 (read)", "a cudagraph-tree runtime id; never pickled"),
    refused("torch._inductor.cudagraph_utils", "WrappedFunction", "main 2.15a0 (read)", "holds the function a cudagraph tree records; never pickled"),
    refused("torch._inductor.cudagraph_utils", "InputStorageMutationInfo", "main 2.15a0 (read)", "computed from the GraphModule at compile time; only its reason string is kept"),
    refused("torch._inductor.cudagraph_utils", "CheckInvariantStatus", "main 2.15a0 (read)", "a cudagraph-tree runtime status; never pickled"),
    // metrics.py: main 2.15a0 read in full.
    built("torch._inductor.metrics", "CachedMetricsDeltas", "2.5–", "the metrics an entry replays on a hit"),
    refused("torch._inductor.metrics", "CachedMetricsHelper", "main 2.15a0 (read)", "computes deltas at compile time; never pickled"),
    refused("torch._inductor.metrics", "MetricTable", "main 2.15a0 (read)", "a process-wide table that writes CSV files; never pickled"),
    refused("torch._inductor.metrics", "CppOuterLoopFusedCount", "main 2.15a0 (read)", "a compile-time counter; never pickled"),
    // utils.py: only the classes entries pickle (not inventoried in full).
    built("torch._inductor.utils", "BoxedBool", "2.5–", "a boxed flag (cudagraphs) of an entry"),
    built("torch._inductor.utils", "GraphPartitionMap", "main (read from three copies of its definition)", "CompiledFxGraph.partition_maps with graph partitioning on; a frozen dataclass of indices and constant names"),
    record("torch.utils._ordered_set", "OrderedSet", "2.6–", "an ordered set; __reduce__ (main read) returns (OrderedSet, (list,)) and __init__ only builds a dict"),

    // ---- Triton (kept in CachingAutotuner and TritonBundle); triton-main read in full for autotuner.py and jit.py.
    built("triton.runtime.autotuner", "Config", "3.x", "one autotuning config. __setstate__ (triton-main) only stores its fields; pre_hook is a callable and ir_override names an IR file Triton would compile, and PyTorch's configs set neither"),
    refused("triton.runtime.autotuner", "Autotuner", "3.x", "holds the kernel function and benchmarks it; never in an entry"),
    refused("triton.runtime.autotuner", "Heuristics", "3.x", "holds callables; never in an entry"),
    built("triton.runtime.jit", "JITFunction", "3.x", "a kernel's source and signature: no __setstate__/__reduce__ (triton-main), BUILD stores fields. Later code: Triton compiles its src if PyTorch recompiles with fn.fn set (PyTorch's own entries clear it and reload the kernel from source), and its device_caches factory getattr(fn, 'create_binder') execs a binder generated from its signature when run() is reached"),
    built("triton.runtime.jit", "KernelParam", "3.x", "one kernel parameter (an inspect.Parameter and flags)"),
    refused("triton.runtime.jit", "JitFunctionInfo", "triton-main (read)", "passed to Triton's compile hooks; never pickled"),
    refused("triton.runtime.jit", "DependenciesFinder", "triton-main (read)", "an AST visitor used to hash a kernel; never pickled"),
    refused("triton.runtime.jit", "KernelInterface", "triton-main (read)", "the base of JITFunction and the autotuners; never pickled itself"),
    refused("triton.runtime.jit", "MockTensor", "triton-main (read)", "a warmup placeholder; never pickled"),
    refused("triton.runtime.jit", "TensorWrapper", "triton-main (read)", "wraps a live tensor; never pickled"),
    built("triton.language.core", "constexpr", "3.x", "a constexpr kernel argument; named as a signature annotation (core.py not inventoried in full)"),
    built("triton.backends.compiler", "AttrsDescriptor", "3.1–3.2", "argument attributes (divisibility)"),
    built("triton.compiler.compiler", "AttrsDescriptor", "3.0", "argument attributes (divisibility)"),
    refused("triton.compiler.compiler", "CompiledKernel", "3.x", "loads a compiled binary; entries keep kernels as files"),
};
// clang-format on

} // namespace

std::span<const PolicyRow> rows() {
    return kRows;
}

} // namespace cachelens::safety::table
