// The pickle policy table (pickle_policy.h). Rows come from reading PyTorch's
// and Triton's source (tests/data/pytorch-inventory/classes.tsv lists every
// class of the inventoried modules; tst_pickle_policy fails when one has no
// row here). docs/SECURITY.md renders this table; keep both in step with
// `scripts/pytorch-inventory.py --check-docs`.

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

    // ---- AOTAutograd: schemas, descriptors, the cache entry, its wrappers.
    built(kSchemas, "AOTConfig", "2.5–", "the entry's AOTAutograd config (compilers stripped before pickling)"),
    built(kSchemas, "InputAliasInfo", "2.5–", "per-input mutation/alias metadata"),
    built(kSchemas, "OutputAliasInfo", "2.5–", "per-output alias metadata"),
    built(kSchemas, "MemoryFormatMeta", "2.6–", "an output's memory format"),
    built(kSchemas, "PlainTensorMeta", "2.5–", "a plain tensor's metadata in subclass handling"),
    built(kSchemas, "SubclassCreationMeta", "2.5–", "how to rebuild a tensor subclass output"),
    built(kSchemas, "ViewAndMutationMeta", "2.5–", "the forward metadata of a compiled graph"),
    built(kSchemas, "TensorAlias", "2.5–", "an alias marker in metadata"),
    built(kSchemas, "BackwardSignature", "2.5–", "the backward graph's signature"),
    built(kSchemas, "GraphSignature", "2.5–", "the joint graph's signature"),
    enumeration(kSchemas, "MutationType", "2.5–", "how an input is mutated"),
    enumeration(kSchemas, "OutputType", "2.5–", "how an output aliases"),
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
    built(kResult, "AOTAutogradResult", "2.10–", "the AOTAutograd entry itself"),
    built(kResult, "BundledAOTAutogradResult", "2.10–", "an AOTAutograd entry bundling its compiled graphs"),
    built(kResult, "CompiledForward", "2.10–", "the forward graph's FX cache key"),
    built(kResult, "CompiledBackward", "2.10–", "the backward graph's FX cache key and signature"),
    built(kResult, "BundledCompiledForward", "2.10–", "a forward graph kept inside the entry"),
    built(kResult, "BundledCompiledBackward", "2.10–", "a backward graph kept inside the entry"),
    built(kResult, "SerializedGraphModule", "2.10–", "holds reduce_graph_module and its args for later (its code goes to the audit)"),
    built(kAutogradCache, "AOTAutogradCacheEntry", "2.5–2.9", "the AOTAutograd entry before aot_autograd_result.py"),
    built(kAutogradCache, "GenericAOTAutogradCacheEntry", "2.8–2.9", "the AOTAutograd entry before aot_autograd_result.py"),
    built(kAutogradCache, "BundledAOTAutogradCacheEntry", "2.8–2.9", "the bundled AOTAutograd entry before aot_autograd_result.py"),
    built(kAutogradCache, "CompiledForward", "2.5–2.9", "the forward graph's FX cache key"),
    built(kAutogradCache, "CompiledBackward", "2.5–2.9", "the backward graph's FX cache key and signature"),
    built(kAutogradCache, "FXGraphCacheLoadable", "2.6–2.9", "the base of CompiledForward/Backward"),
    built(kAutogradCache, "SerializedGraphModule", "2.8–2.9", "holds reduce_graph_module and its args for later (its code goes to the audit)"),
    built(kWrappers, "AOTDedupeWrapper", "2.5–", "the runtime wrapper that re-duplicates inputs"),
    built(kWrappers, "AOTSyntheticBaseWrapper", "2.5–", "the runtime wrapper for synthetic bases"),
    built(kWrappers, "RuntimeWrapper", "2.5–", "the entry's runtime wrapper (data fields only)"),
    built(kWrappers, "FunctionalizedRngRuntimeWrapper", "2.5–", "the runtime wrapper for functionalized RNG"),
    built(kWrappers, "FakifiedOutWrapper", "2.5–", "the runtime wrapper for fakified outputs"),
    built(kWrappers, "AOTDispatchSubclassWrapper", "2.5–", "the runtime wrapper for tensor subclasses"),
    built(kWrappers, "EffectTokensWrapper", "2.5–", "the runtime wrapper for effect tokens"),

    // ---- Inductor: the FX graph entry and what it holds.
    built("torch._inductor.codecache", "CompiledFxGraph", "2.5", "the FX graph entry before output_code.py"),
    built(kOutputCode, "CompiledFxGraph", "2.6–", "the FX graph entry itself (its source_code goes to the audit)"),
    built(kOutputCode, "CompiledAOTI", "2.6–", "an AOTInductor entry"),
    built(kBundler, "TritonBundle", "2.6–", "the Triton kernels saved with an FX entry"),
    built(kBundler, "TritonKernelArtifacts", "2.6–", "one kernel's compiled files"),
    built(kBundler, "TritonKernelArtifact", "2.6–", "one compiled file (cubin, json, ...) as bytes"),
    built(kBundler, "StaticallyLaunchedAutotuner", "2.8–", "a kernel launched without Triton at load"),
    refused(kBundler, "TritonBundler", "2.6–", "process-wide bundling state; never pickled"),
    built("torch._inductor.runtime.static_cuda_launcher", "StaticallyLaunchedCudaKernel", "2.8–2.10", "a kernel's cubin and launch metadata"),
    built("torch._inductor.runtime.static_triton_launcher", "StaticallyLaunchedCudaKernel", "2.11–", "a kernel's cubin and launch metadata"),
    record(kHints, "DeviceProperties", "2.5–", "the GPU a kernel was tuned for; a NamedTuple"),
    enumeration(kHints, "HeuristicType", "2.5–", "which Inductor heuristic made a kernel"),
    enumeration(kHints, "ReductionHint", "2.5–", "a reduction kernel's hint"),
    enumeration(kHints, "TileHint", "2.5–", "a pointwise kernel's hint"),
    enumeration(kHints, "AutotuneHint", "2.5–", "an autotuning hint"),
    built(kHints, "AttrsDescriptor", "2.5–2.6", "Triton's argument attributes (divisibility), Inductor's copy"),
    built(kHeuristics, "CachingAutotuner", "2.6–", "a kernel's autotuner with its configs, without its launchers"),
    built(kHeuristics, "DebugAutotuner", "2.6–", "the autotuner used with benchmark_kernel"),
    built(kHeuristics, "InductorConfig", "2.10–", "the inductor config a kernel was compiled with"),
    built(kHeuristics, "TritonCompileResult", "2.7–", "a compiled kernel kept for launching"),
    built(kHeuristics, "StaticTritonCompileResult", "2.8–", "a statically launched compiled kernel"),
    built(kHeuristics, "_ConstRepr", "2.7–", "a constant's text in generated launcher code"),
    built("torch._inductor.runtime.coordinate_descent_tuner", "CoordescTuner", "2.5–", "the coordinate descent tuner kept by an autotuner"),
    built(kAutotuneCache, "AutotuneCache", "2.5–", "where an autotuner saves its best config"),
    built(kAutotuneCache, "LocalAutotuneCache", "2.6–", "the local best-config cache"),
    built(kAutotuneCache, "_LocalAutotuneCacheBackend", "2.6–", "the local best-config backend"),
    built("torch._inductor.remote_cache", "RemoteCacheJsonSerde", "2.5–", "the serializer of the best-config cache"),
    built("torch._inductor.cudagraph_utils", "BoxedDeviceIndex", "2.5–", "the cudagraph device index of an entry"),
    built("torch._inductor.cudagraph_utils", "CudagraphCachedInfo", "2.6–", "why an entry cannot use cudagraphs"),
    built("torch._inductor.cudagraph_utils", "PlaceholderInfo", "2.5–", "a graph input's description for cudagraph messages"),
    built("torch._inductor.metrics", "CachedMetricsDeltas", "2.5–", "the metrics an entry replays on a hit"),
    built("torch._inductor.utils", "BoxedBool", "2.5–", "a boxed flag (cudagraphs) of an entry"),
    record("torch.utils._ordered_set", "OrderedSet", "2.6–", "an ordered set; pickled as OrderedSet([items])"),

    // ---- Triton (kept in CachingAutotuner and TritonBundle).
    built("triton.runtime.autotuner", "Config", "3.x", "one autotuning config (kwargs, warps, stages)"),
    refused("triton.runtime.autotuner", "Autotuner", "3.x", "holds the kernel function and benchmarks it; never in an entry"),
    refused("triton.runtime.autotuner", "Heuristics", "3.x", "holds callables; never in an entry"),
    built("triton.runtime.jit", "JITFunction", "3.x", "a kernel's source and signature (its source goes to the code audit)"),
    built("triton.runtime.jit", "KernelParam", "3.x", "one kernel parameter"),
    built("triton.language.core", "constexpr", "3.x", "a constexpr kernel argument"),
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
