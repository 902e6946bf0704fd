#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/text.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/unpickler.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

namespace cachelens::cachedir {

namespace {

using pickle::elements_of;
using pickle::int_of;
using pickle::Kind;
using pickle::str_of;
using pickle::Value;

constexpr std::string_view kFxGraphClass = "torch._inductor.output_code.CompiledFxGraph";

std::string copy_str(const Value* v) {
    return std::string(str_of(v).value_or(std::string_view{}));
}

std::vector<std::pair<std::string, std::int64_t>> counts_of(const Value* v) {
    std::vector<std::pair<std::string, std::int64_t>> out;
    if (v == nullptr) {
        return out;
    }
    // CachedMetricsDeltas keeps counts in its state; Counter in its first arg or set items.
    const Value* dict = nullptr;
    if (v->is(Kind::Dict)) {
        dict = v;
    } else if (v->is(Kind::Object)) {
        if (v->state() != nullptr && v->state()->is(Kind::Dict)) {
            dict = v->state();
        } else if (v->args() != nullptr && !v->args()->items().empty() &&
                   v->args()->items()[0]->is(Kind::Dict)) {
            dict = v->args()->items()[0];
        }
    }
    auto add_all = [&](std::span<const pickle::DictItem> items) {
        for (const auto& item : items) {
            if (auto name = str_of(item.key)) {
                if (auto count = pickle::number_of(item.value)) {
                    out.emplace_back(std::string(*name), static_cast<std::int64_t>(*count));
                }
            }
        }
    };
    if (dict != nullptr) {
        add_all(dict->dict_items());
    }
    if (v->is(Kind::Object)) {
        add_all(v->dict_items());
    }
    return out;
}

KernelConfig kernel_config_of(const Value* config) {
    KernelConfig out;
    if (config == nullptr) {
        return out;
    }
    if (const Value* kwargs = config->attribute("kwargs")) {
        for (const auto& item : kwargs->dict_items()) {
            if (auto name = str_of(item.key)) {
                out.kwargs.emplace_back(std::string(*name), config_value_of(*item.value));
            }
        }
    }
    out.num_warps = int_of(config->attribute("num_warps"));
    out.num_stages = int_of(config->attribute("num_stages"));
    out.num_ctas = int_of(config->attribute("num_ctas"));
    out.maxnreg = int_of(config->attribute("maxnreg"));
    return out;
}

CompiledCandidate candidate_of(const Value* result) {
    CompiledCandidate out;
    out.result_class = result->class_name();
    out.config = kernel_config_of(result->attribute("config"));
    const Value* kernel = result->attribute("kernel");
    if (kernel == nullptr) {
        return out;
    }
    out.kernel_name = copy_str(kernel->attribute("name"));
    for (const Value* name : elements_of(kernel->attribute("arg_names"))) {
        out.arg_names.push_back(copy_str(name));
    }
    out.arg_types = copy_str(kernel->attribute("arg_tys"));
    for (const Value* index : elements_of(kernel->attribute("declared_constexprs"))) {
        if (auto i = int_of(index)) {
            out.declared_constexprs.push_back(*i);
        }
    }
    out.num_warps = int_of(kernel->attribute("num_warps"));
    out.shared = int_of(kernel->attribute("shared"));
    out.has_global_scratch =
        pickle::bool_of(kernel->attribute("has_global_scratch")).value_or(false);
    out.has_profile_scratch =
        pickle::bool_of(kernel->attribute("has_profile_scratch")).value_or(false);
    out.triton_hash = copy_str(kernel->attribute("hash"));
    return out;
}

// save_cache_hook = getattr(AutotuneCache(...), 'save'); the AutotuneCache's
// local_cache is (LocalAutotuneCache, "<cache dir>/<xx>/<hash>.best_config").
std::string best_config_path_of(const Value* hook) {
    if (hook == nullptr || hook->args() == nullptr || hook->args()->items().empty()) {
        return {};
    }
    const Value* cache = hook->args()->items()[0];
    const auto local = elements_of(cache->attribute("local_cache"));
    return local.size() == 2 ? copy_str(local[1]) : std::string();
}

KernelAutotuner autotuner_of(const Value* static_autotuner) {
    KernelAutotuner out;
    out.cache_key = copy_str(static_autotuner->attribute("cache_key"));
    out.kernel_name = copy_str(static_autotuner->attribute("kernel_name"));
    const Value* kernel = static_autotuner->attribute("kernel");
    if (kernel == nullptr) {
        return out;
    }
    out.module_path = copy_str(kernel->attribute("filename"));
    out.module_key = copy_str(kernel->attribute("kernel_hash"));
    if (out.module_key.empty()) {
        out.module_key = module_key_from_path(out.module_path);
    }
    if (const Value* heuristic = kernel->attribute("heuristic_type")) {
        // HeuristicType is an Enum pickled as REDUCE(HeuristicType, (value,)).
        if (heuristic->args() != nullptr && !heuristic->args()->items().empty()) {
            if (auto value = int_of(heuristic->args()->items()[0])) {
                out.heuristic = std::string(heuristic_name(*value));
            }
        }
    }
    if (const Value* hints = kernel->attribute("size_hints")) {
        for (const auto& item : hints->dict_items()) {
            if (auto name = str_of(item.key); name && int_of(item.value)) {
                out.size_hints.emplace_back(std::string(*name), *int_of(item.value));
            }
        }
    }
    if (const Value* meta = kernel->attribute("inductor_meta")) {
        out.grid_type = copy_str(meta->find("grid_type"));
    }
    out.best_config_path = best_config_path_of(kernel->attribute("save_cache_hook"));
    for (const Value* result : elements_of(kernel->attribute("compile_results"))) {
        if (result->is(Kind::Object)) {
            out.candidates.push_back(candidate_of(result));
        }
    }
    return out;
}

void read_triton_bundle(const Value* bundle, FxGraphEntry& entry) {
    if (bundle == nullptr || !bundle->is(Kind::Object)) {
        return;
    }
    for (const Value* kernel : elements_of(bundle->attribute("kernel_artifacts"))) {
        TritonKernelArtifacts artifacts;
        artifacts.kernel_hash = copy_str(kernel->attribute("kernel_hash"));
        artifacts.device = int_of(kernel->attribute("device")).value_or(0);
        for (const Value* artifact : elements_of(kernel->attribute("artifacts"))) {
            TritonArtifactFile file;
            file.name = copy_str(artifact->attribute("filename"));
            if (const Value* payload = artifact->attribute("payload");
                payload != nullptr && (payload->is(Kind::Bytes) || payload->is(Kind::Str) ||
                                       payload->is(Kind::ByteArray))) {
                file.payload = payload->text();
            }
            artifacts.files.push_back(std::move(file));
        }
        entry.triton_artifacts.push_back(std::move(artifacts));
    }
    for (const Value* tuner : elements_of(bundle->attribute("static_autotuners"))) {
        if (tuner->is(Kind::Object)) {
            entry.autotuners.push_back(autotuner_of(tuner));
        }
    }
}

std::optional<std::string_view> optional_str(const Value* v) {
    return str_of(v);
}

} // namespace

std::string_view to_string(GraphRole role) {
    switch (role) {
    case GraphRole::Forward:
        return "forward";
    case GraphRole::Backward:
        return "backward";
    case GraphRole::Inference:
        return "inference";
    case GraphRole::Unknown:
        break;
    }
    return "unknown";
}

GraphRole graph_role(std::span<const std::string_view> debug_lines) {
    // "[hash] fx_kwargs[is_backward]: True"
    const auto flag = [&](std::string_view name) -> std::optional<bool> {
        const std::string needle = "] fx_kwargs[" + std::string(name) + "]: ";
        for (const auto line : debug_lines) {
            const auto at = line.find(needle);
            if (at != std::string_view::npos && line.starts_with('[')) {
                const auto value = line.substr(at + needle.size());
                return value == "True";
            }
        }
        return std::nullopt;
    };
    const auto backward = flag("is_backward");
    const auto inference = flag("is_inference");
    if (backward && *backward) {
        return GraphRole::Backward;
    }
    if (inference && *inference) {
        return GraphRole::Inference;
    }
    return backward || inference ? GraphRole::Forward : GraphRole::Unknown;
}

std::vector<TracedCall> traced_calls(std::string_view source_code) {
    constexpr std::string_view kMarker = "# Topologically Sorted Source Nodes: [";
    std::vector<TracedCall> calls;
    // Each node once (kernels repeat their comment); views into source_code.
    std::unordered_set<std::string_view> nodes_seen;
    std::unordered_map<std::string_view, std::size_t> call_of_name;
    std::size_t at = 0;
    while ((at = source_code.find(kMarker, at)) != std::string_view::npos) {
        at += kMarker.size();
        const auto end = source_code.find_first_of("]\n", at);
        if (end == std::string_view::npos) {
            break;
        }
        // A list cut short by the end of its line is no list.
        std::string_view list =
            source_code[end] == ']' ? source_code.substr(at, end - at) : std::string_view{};
        while (!list.empty()) {
            const auto comma = list.find(',');
            const std::string_view node = trim_space(list.substr(0, comma));
            list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
            const bool identifier =
                !node.empty() && std::all_of(node.begin(), node.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                });
            if (!identifier || !nodes_seen.insert(node).second) {
                continue;
            }
            // linear_1 is the second call of linear; "_19" is a name of its own.
            std::string_view name = node;
            if (const auto underscore = name.rfind('_');
                underscore != std::string_view::npos && underscore > 0 &&
                underscore + 1 < name.size() &&
                std::all_of(name.begin() + static_cast<std::ptrdiff_t>(underscore) + 1, name.end(),
                            [](char c) { return c >= '0' && c <= '9'; })) {
                name = name.substr(0, underscore);
            }
            if (name.ends_with("_default")) {
                continue; // made by a decomposition, not called by the user
            }
            const auto [call, added] = call_of_name.try_emplace(name, calls.size());
            if (added) {
                calls.push_back({std::string(name), 0});
            }
            ++calls[call->second].count;
        }
        at = end;
    }
    return calls;
}

std::string describe(std::span<const TracedCall> calls) {
    std::string out;
    for (const auto& call : calls) {
        out += (out.empty() ? "" : ", ") + call.name +
               (call.count > 1 ? " x" + std::to_string(call.count) : "");
    }
    return out;
}

std::string_view heuristic_name(std::int64_t heuristic_type) {
    // torch._inductor.runtime.hints.HeuristicType, values from enum.auto().
    switch (heuristic_type) {
    case 1:
        return "persistent_reduction";
    case 2:
        return "pointwise";
    case 3:
        return "reduction";
    case 4:
        return "split_scan";
    case 5:
        return "template";
    case 6:
        return "user_autotune";
    case 7:
        return "fixed";
    default:
        return "unknown";
    }
}

std::string CompiledCandidate::triton_dir() const {
    return hash::triton_dir_from_hex(triton_hash);
}

const pickle::Value* FxGraphEntry::attribute(std::string_view name) const {
    return root().attribute(name);
}

Result<FxGraphEntry> read_fx_graph_entry(std::shared_ptr<const pickle::Document> document) {
    const Value& root = document->root();
    FxGraphEntry entry;
    entry.class_name = root.class_name();
    if (!root.is(Kind::Object) || entry.class_name != kFxGraphClass) {
        return fail(ErrorKind::Corrupt,
                    "not a compiled FX graph: the pickle holds " + pickle::type_name(root));
    }
    if (root.state() == nullptr || !root.state()->is(Kind::Dict)) {
        return fail(ErrorKind::Corrupt, "the CompiledFxGraph has no state dict");
    }
    entry.attribute_names = pickle::attribute_names(root);
    auto key = str_of(root.attribute("_fx_graph_cache_key"));
    if (!key) {
        return fail(ErrorKind::Corrupt, "the CompiledFxGraph has no _fx_graph_cache_key");
    }
    entry.key = std::string(*key);
    entry.guards_expr = optional_str(root.attribute("guards_expr"));
    for (const Value* line : elements_of(root.attribute("_fx_graph_cache_debug_lines"))) {
        if (auto text = str_of(line)) {
            entry.debug_lines.push_back(*text);
        }
    }
    entry.source_code = str_of(root.attribute("source_code")).value_or(std::string_view{});
    entry.cache_key = copy_str(root.attribute("cache_key"));
    for (const Value* type : elements_of(root.attribute("device_types"))) {
        entry.device_types.push_back(copy_str(type));
    }
    for (const Value* index : elements_of(root.attribute("device_idxs"))) {
        if (auto i = int_of(index)) {
            entry.device_idxs.push_back(*i);
        }
    }
    entry.time_taken_ns = int_of(root.attribute("_time_taken_ns"));
    entry.metrics_deltas = counts_of(root.attribute("metrics_deltas"));
    entry.counter_deltas = counts_of(root.attribute("counter_deltas"));
    read_triton_bundle(root.attribute("_triton_bundle"), entry);
    for (const Value* strides : elements_of(root.attribute("output_strides"))) {
        if (strides->is_none()) {
            entry.output_strides.emplace_back(std::nullopt);
            continue;
        }
        std::vector<std::string> texts;
        for (const Value* stride : elements_of(strides)) {
            texts.push_back(stride->is_str() ? std::string(stride->text()) : stride->to_decimal());
        }
        entry.output_strides.emplace_back(std::move(texts));
    }
    for (const Value* name : elements_of(root.attribute("mutated_inputs"))) {
        entry.mutated_inputs.push_back(copy_str(name));
    }
    entry.runnable_graph = optional_str(root.attribute("runnable_graph_str"));
    entry.post_grad_graph = optional_str(root.attribute("inductor_post_grad_graph_str"));
    entry.document = std::move(document);
    return entry;
}

Result<FxGraphEntry> load_fx_graph_entry(const std::filesystem::path& file) {
    return pickle::unpickle_file_as(file, read_fx_graph_entry);
}

const std::set<std::string_view>& decoded_fx_graph_attributes() {
    static const std::set<std::string_view> names = {"_fx_graph_cache_key",
                                                     "_fx_graph_cache_debug_lines",
                                                     "guards_expr",
                                                     "source_code",
                                                     "cache_key",
                                                     "device_types",
                                                     "device_idxs",
                                                     "_time_taken_ns",
                                                     "_triton_bundle",
                                                     "metrics_deltas",
                                                     "counter_deltas",
                                                     "output_strides",
                                                     "mutated_inputs",
                                                     "runnable_graph_str",
                                                     "inductor_post_grad_graph_str"};
    return names;
}

} // namespace cachelens::cachedir
