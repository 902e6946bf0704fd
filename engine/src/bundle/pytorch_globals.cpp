#include <cachelens/bundle/pytorch_globals.h>

#include <algorithm>
#include <array>

namespace cachelens::bundle {

namespace {

// Sorted by (module, name): is_listed() searches them by halves.
constexpr std::array kEntryGlobals = std::to_array<GlobalName>({
    {"builtins", "getattr"},
    {"collections", "Counter"},
    {"collections", "OrderedDict"},
    {"collections", "defaultdict"},
    {"inspect", "Parameter"},
    {"inspect", "Signature"},
    {"inspect", "_ParameterKind"},
    {"inspect", "_empty"},
    {"torch", "Tensor"},
    {"torch._dynamo.source", "AttrSource"},
    {"torch._dynamo.source", "DictGetItemSource"},
    {"torch._dynamo.source", "LocalSource"},
    {"torch._dynamo.source", "TensorProperty"},
    {"torch._dynamo.source", "TensorPropertySource"},
    {"torch._dynamo.source", "UnspecializedBuiltinNNModuleSource"},
    {"torch._dynamo.source", "UnspecializedNNModuleSource"},
    {"torch._dynamo.source", "UnspecializedParamBufferSource"},
    {"torch._functorch._aot_autograd.aot_autograd_result", "AOTAutogradResult"},
    {"torch._functorch._aot_autograd.aot_autograd_result", "CompiledBackward"},
    {"torch._functorch._aot_autograd.aot_autograd_result", "CompiledForward"},
    {"torch._functorch._aot_autograd.aot_autograd_result", "SerializedGraphModule"},
    {"torch._functorch._aot_autograd.descriptors", "PlainAOTOutput"},
    {"torch._functorch._aot_autograd.descriptors", "TangentAOTInput"},
    {"torch._functorch._aot_autograd.runtime_wrappers", "AOTDedupeWrapper"},
    {"torch._functorch._aot_autograd.runtime_wrappers", "AOTSyntheticBaseWrapper"},
    {"torch._functorch._aot_autograd.schemas", "AOTConfig"},
    {"torch._functorch._aot_autograd.schemas", "InputAliasInfo"},
    {"torch._functorch._aot_autograd.schemas", "MemoryFormatMeta"},
    {"torch._functorch._aot_autograd.schemas", "MutationType"},
    {"torch._functorch._aot_autograd.schemas", "OutputAliasInfo"},
    {"torch._functorch._aot_autograd.schemas", "OutputType"},
    {"torch._functorch._aot_autograd.schemas", "PlainTensorMeta"},
    {"torch._functorch._aot_autograd.schemas", "ViewAndMutationMeta"},
    {"torch._guards", "CompileId"},
    {"torch._inductor.cudagraph_utils", "BoxedDeviceIndex"},
    {"torch._inductor.metrics", "CachedMetricsDeltas"},
    {"torch._inductor.output_code", "CompiledFxGraph"},
    {"torch._inductor.remote_cache", "RemoteCacheJsonSerde"},
    {"torch._inductor.runtime.autotune_cache", "AutotuneCache"},
    {"torch._inductor.runtime.autotune_cache", "LocalAutotuneCache"},
    {"torch._inductor.runtime.autotune_cache", "_LocalAutotuneCacheBackend"},
    {"torch._inductor.runtime.coordinate_descent_tuner", "CoordescTuner"},
    {"torch._inductor.runtime.hints", "DeviceProperties"},
    {"torch._inductor.runtime.hints", "HeuristicType"},
    {"torch._inductor.runtime.hints", "ReductionHint"},
    {"torch._inductor.runtime.static_triton_launcher", "StaticallyLaunchedCudaKernel"},
    {"torch._inductor.runtime.triton_heuristics", "CachingAutotuner"},
    {"torch._inductor.runtime.triton_heuristics", "InductorConfig"},
    {"torch._inductor.runtime.triton_heuristics", "StaticTritonCompileResult"},
    {"torch._inductor.runtime.triton_heuristics", "_ConstRepr"},
    {"torch._inductor.triton_bundler", "StaticallyLaunchedAutotuner"},
    {"torch._inductor.triton_bundler", "TritonBundle"},
    {"torch._inductor.triton_bundler", "TritonKernelArtifact"},
    {"torch._inductor.triton_bundler", "TritonKernelArtifacts"},
    {"torch._inductor.utils", "BoxedBool"},
    {"torch._subclasses.functional_tensor", "FunctionalTensor"},
    {"torch._utils", "torch.contiguous_format"},
    {"torch.fx.graph_module", "reduce_graph_module"},
    {"torch.utils._ordered_set", "OrderedSet"},
    {"triton.language.core", "constexpr"},
    {"triton.runtime.autotuner", "Config"},
    {"triton.runtime.jit", "JITFunction"},
    {"triton.runtime.jit", "KernelParam"},
});

constexpr std::array kPgoGlobals = std::to_array<GlobalName>({
    {"builtins", "int"},
    {"builtins", "str"},
    {"collections", "defaultdict"},
    {"torch._dynamo.pgo", "AutoDynamic"},
    {"torch._dynamo.pgo", "AutoUnset"},
    {"torch._dynamo.pgo", "CodeId"},
    {"torch._dynamo.pgo", "CodeState"},
    {"torch._dynamo.pgo", "FrameStateSizeEntry"},
    {"torch._dynamo.pgo", "InferStride"},
});

constexpr bool before(const GlobalName& a, const GlobalName& b) {
    return a.module != b.module ? a.module < b.module : a.name < b.name;
}

static_assert(std::ranges::is_sorted(kEntryGlobals, before));
static_assert(std::ranges::is_sorted(kPgoGlobals, before));

} // namespace

std::span<const GlobalName> pytorch_entry_globals() {
    return kEntryGlobals;
}

std::span<const GlobalName> pytorch_pgo_globals() {
    return kPgoGlobals;
}

bool is_listed(std::span<const GlobalName> allowed, std::string_view module,
               std::string_view name) {
    return std::ranges::binary_search(allowed, GlobalName{module, name}, before);
}

} // namespace cachelens::bundle
