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

// PyTorch 2.6 moved the class from codecache.py to output_code.py.
constexpr std::string_view kFxGraphClass = "torch._inductor.output_code.CompiledFxGraph";
constexpr std::string_view kOldFxGraphClass = "torch._inductor.codecache.CompiledFxGraph";

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

// `_triton_bundle` is a list of TritonKernelArtifacts in PyTorch 2.6 and 2.7,
// a TritonBundle holding them (and the static autotuners) from 2.8.
void read_triton_bundle(const Value* bundle, FxGraphEntry& entry) {
    if (bundle == nullptr) {
        return;
    }
    const bool listed = bundle->is(Kind::List) || bundle->is(Kind::Tuple);
    if (!listed && !bundle->is(Kind::Object)) {
        return;
    }
    for (const Value* kernel :
         elements_of(listed ? bundle : bundle->attribute("kernel_artifacts"))) {
        if (!kernel->is(Kind::Object)) {
            continue;
        }
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
    if (listed) {
        return;
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

// "# torch version: 2.8.0+cu126" in the repro header of the runnable graph.
std::string torch_version_in(std::optional<std::string_view> runnable_graph) {
    constexpr std::string_view kTorchVersion = "# torch version: ";
    if (!runnable_graph) {
        return {};
    }
    const auto found = runnable_graph->find(kTorchVersion);
    if (found == std::string_view::npos) {
        return {};
    }
    const auto from = found + kTorchVersion.size();
    std::string_view version =
        runnable_graph->substr(from, runnable_graph->find('\n', from) - from);
    while (!version.empty() && (version.back() == '\r' || version.back() == ' ')) {
        version.remove_suffix(1);
    }
    return std::string(version.substr(0, 64));
}

// Which releases write an entry like this one (FORMATS.md, "The version
// matrix"): the class moved to output_code.py in 2.6; _fx_graph_cache_key is
// stored from 2.5; 2.6 stores allocated_constant_name, 2.7 frozen_param_names
// instead; debug lines are stored from 2.8.
std::string releases_writing(const FxGraphEntry& entry, const Value& root) {
    if (!entry.torch_version.empty()) {
        return entry.torch_version;
    }
    if (entry.class_name == kOldFxGraphClass) {
        return entry.key_recorded ? "2.5" : "2.4 or older";
    }
    if (!entry.debug_lines.empty()) {
        return "2.8 or later";
    }
    const bool allocated = root.attribute("allocated_constant_name") != nullptr;
    const bool frozen = root.attribute("frozen_param_names") != nullptr;
    if (allocated != frozen) {
        return allocated ? "2.6" : "2.7";
    }
    return "2.6 or 2.7";
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

namespace {

GraphRole role_of_flags(std::optional<bool> backward, std::optional<bool> inference) {
    if (backward && *backward) {
        return GraphRole::Backward;
    }
    if (inference && *inference) {
        return GraphRole::Inference;
    }
    return backward || inference ? GraphRole::Forward : GraphRole::Unknown;
}

} // namespace

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
    return role_of_flags(flag("is_backward"), flag("is_inference"));
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

bool is_fx_graph_class(std::string_view class_name) {
    return class_name == kFxGraphClass || class_name == kOldFxGraphClass;
}

Result<FxGraphEntry> read_fx_graph_entry(std::shared_ptr<const pickle::Document> document,
                                         std::string_view key) {
    const Value& root = document->root();
    FxGraphEntry entry;
    entry.class_name = root.class_name();
    if (!root.is(Kind::Object) || !is_fx_graph_class(entry.class_name)) {
        return fail(ErrorKind::Corrupt,
                    "not a compiled FX graph: the pickle holds " + pickle::type_name(root));
    }
    if (root.state() == nullptr || !root.state()->is(Kind::Dict)) {
        return fail(ErrorKind::Corrupt, "the CompiledFxGraph has no state dict");
    }
    entry.attribute_names = pickle::attribute_names(root);
    if (const Value* stored = root.attribute("_fx_graph_cache_key")) {
        auto text = str_of(stored);
        if (!text) {
            return fail(ErrorKind::Corrupt, "the CompiledFxGraph's _fx_graph_cache_key is a " +
                                                pickle::type_name(*stored) + ", not a str");
        }
        entry.key = std::string(*text);
    } else if (!key.empty()) {
        // PyTorch 2.4 and older: the key is only the dir's name.
        entry.key = std::string(key);
        entry.key_recorded = false;
    } else {
        return fail(ErrorKind::Corrupt,
                    "the CompiledFxGraph records no _fx_graph_cache_key (PyTorch 2.4 and older "
                    "keep it in the key dir's name only), and no key was given with it");
    }
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
    // fx_kwargs (a dict: is_backward, is_inference, cpp_wrapper, ...) says the
    // role where the entry has no debug lines; the debug lines say it otherwise.
    if (const Value* kwargs = root.attribute("fx_kwargs");
        kwargs != nullptr && kwargs->is(Kind::Dict)) {
        const auto backward = pickle::bool_of(kwargs->find("is_backward"));
        const auto inference = pickle::bool_of(kwargs->find("is_inference"));
        entry.role = role_of_flags(backward, inference);
        entry.cpp_wrapper = pickle::bool_of(kwargs->find("cpp_wrapper"));
        if (entry.role != GraphRole::Unknown) {
            entry.role_source = RoleSource::FxKwargs;
        }
    }
    if (entry.role == GraphRole::Unknown) {
        entry.role = graph_role(entry.debug_lines);
        entry.role_source =
            entry.role == GraphRole::Unknown ? RoleSource::None : RoleSource::DebugLines;
    }
    entry.artifact_path = copy_str(root.attribute("artifact_path"));
    entry.runnable_graph = optional_str(root.attribute("runnable_graph_str"));
    entry.post_grad_graph = optional_str(root.attribute("inductor_post_grad_graph_str"));
    entry.torch_version = torch_version_in(entry.runnable_graph);
    entry.written_by = releases_writing(entry, root);
    entry.release_stores_debug_lines = !entry.debug_lines.empty() || !entry.torch_version.empty() ||
                                       entry.written_by.ends_with("or later");
    entry.document = std::move(document);
    return entry;
}

Result<FxGraphEntry> load_fx_graph_entry(const std::filesystem::path& file) {
    const std::string key_dir = file.parent_path().filename().string();
    const std::string_view key = is_fx_graph_key(key_dir) ? std::string_view(key_dir) : "";
    return pickle::unpickle_file_as(file, [key](std::shared_ptr<const pickle::Document> document) {
        return read_fx_graph_entry(std::move(document), key);
    });
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
                                                     "inductor_post_grad_graph_str",
                                                     "fx_kwargs",
                                                     "artifact_path"};
    return names;
}

} // namespace cachelens::cachedir
