#include "entry_json.h"

#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/repr.h>

#include <set>

namespace cachelens::cli {

namespace {

using namespace cachedir;

Json optional_text(const std::optional<std::string_view>& value) {
    return value ? text(*value) : Json(nullptr);
}

template <class T>
Json optional_number(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json config_value_json(const ConfigValue& value) {
    return std::visit([](const auto& v) { return Json(v); }, value);
}

Json pairs_json(const std::vector<std::pair<std::string, ConfigValue>>& pairs) {
    Json out = Json::object();
    for (const auto& [key, value] : pairs) {
        out[key] = config_value_json(value);
    }
    return out;
}

Json counts_json(const std::vector<std::pair<std::string, std::int64_t>>& counts) {
    Json out = Json::object();
    for (const auto& [key, value] : counts) {
        out[key] = value;
    }
    return out;
}

Json lines_json(const std::vector<std::string_view>& lines) {
    Json out = Json::array();
    for (auto line : lines) {
        out.push_back(text(line));
    }
    return out;
}

// Every attribute of a pickled object not shown elsewhere, as Python-style text.
Json attributes_json(const pickle::Value& root, const std::vector<std::string_view>& names,
                     const std::set<std::string_view>& shown_elsewhere) {
    Json out = Json::object();
    pickle::ReprOptions options;
    options.max_string = 2000;
    options.max_length = 20000;
    for (auto name : names) {
        if (shown_elsewhere.contains(name)) {
            continue;
        }
        if (const pickle::Value* value = root.attribute(name)) {
            out[std::string(name)] = pickle::repr(*value, options);
        }
    }
    return out;
}

Json candidate_json(const CompiledCandidate& candidate) {
    Json out = config_json(candidate.config);
    out["result_class"] = candidate.result_class;
    out["kernel_name"] = candidate.kernel_name;
    out["arg_names"] = candidate.arg_names;
    out["arg_types"] = candidate.arg_types;
    out["declared_constexprs"] = candidate.declared_constexprs;
    out["shared"] = optional_number(candidate.shared);
    out["has_global_scratch"] = candidate.has_global_scratch;
    out["has_profile_scratch"] = candidate.has_profile_scratch;
    out["triton_hash"] = candidate.triton_hash;
    out["triton_dir"] = candidate.triton_dir();
    return out;
}

Json fx_graph_json(const FxGraphEntry& fx) {
    Json kernels = Json::array();
    for (const auto& tuner : fx.autotuners) {
        Json configs = Json::array();
        for (const auto& candidate : tuner.candidates) {
            configs.push_back(candidate_json(candidate));
        }
        Json hints = Json::object();
        for (const auto& [axis, size] : tuner.size_hints) {
            hints[axis] = size;
        }
        kernels.push_back({{"name", tuner.kernel_name},
                           {"module", tuner.module_key},
                           {"module_path", tuner.module_path},
                           {"heuristic", tuner.heuristic},
                           {"grid_type", tuner.grid_type},
                           {"size_hints", std::move(hints)},
                           {"cache_key", tuner.cache_key},
                           {"configs", std::move(configs)}});
    }
    Json artifacts = Json::array();
    for (const auto& kernel : fx.triton_artifacts) {
        Json files = Json::array();
        for (const auto& file : kernel.files) {
            files.push_back({{"name", file.name}, {"size", file.payload.size()}});
        }
        artifacts.push_back(
            {{"kernel_hash", kernel.kernel_hash}, {"device", kernel.device}, {"files", files}});
    }
    Json strides = Json::array();
    for (const auto& output : fx.output_strides) {
        strides.push_back(output ? Json(*output) : Json(nullptr));
    }
    return {{"class", fx.class_name},
            {"guards_expr", optional_text(fx.guards_expr)},
            {"debug_lines", lines_json(fx.debug_lines)},
            {"source_code_sha256", hash::sha256_hex(fx.source_code)},
            {"source_code", text(fx.source_code)},
            {"cache_key", fx.cache_key},
            {"device_types", fx.device_types},
            {"device_idxs", fx.device_idxs},
            {"time_taken_ns", optional_number(fx.time_taken_ns)},
            {"kernels", std::move(kernels)},
            {"triton_artifacts", std::move(artifacts)},
            {"metrics_deltas", counts_json(fx.metrics_deltas)},
            {"counter_deltas", counts_json(fx.counter_deltas)},
            {"output_strides", std::move(strides)},
            {"mutated_inputs", fx.mutated_inputs},
            {"runnable_graph", optional_text(fx.runnable_graph)},
            {"post_grad_graph", optional_text(fx.post_grad_graph)},
            {"attributes",
             attributes_json(fx.root(), fx.attribute_names, decoded_fx_graph_attributes())}};
}

Json aot_json(const AotAutogradEntry& aot) {
    auto link_key = [](const std::optional<FxGraphLink>& link) {
        return link ? Json(link->key) : Json(nullptr);
    };
    return {{"class", aot.class_name},
            {"guards_expr", optional_text(aot.guards_expr)},
            {"forward_key", link_key(aot.forward)},
            {"backward_key", link_key(aot.backward)},
            {"forward_time_taken_ns", optional_number(aot.forward_time_taken_ns)},
            {"backward_time_taken_ns", optional_number(aot.backward_time_taken_ns)},
            {"joint_graph", optional_text(aot.joint_graph)},
            {"forward_graph", optional_text(aot.forward_graph)},
            {"backward_graph", optional_text(aot.backward_graph)},
            {"attributes",
             attributes_json(aot.root(), aot.attribute_names, decoded_aot_autograd_attributes())}};
}

Json harness_json(const BenchmarkHarness& harness) {
    Json args = Json::array();
    for (const auto& arg : harness.args) {
        switch (arg.kind) {
        case HarnessArg::Kind::Tensor:
            args.push_back({{"kind", "tensor"},
                            {"shape", arg.tensor.shape},
                            {"stride", arg.tensor.stride},
                            {"device", arg.tensor.device},
                            {"dtype", arg.tensor.dtype}});
            break;
        case HarnessArg::Kind::Int:
            args.push_back({{"kind", "int"}, {"value", arg.integer}});
            break;
        case HarnessArg::Kind::Float:
            args.push_back({{"kind", "float"}, {"value", arg.real}});
            break;
        case HarnessArg::Kind::Unknown:
            args.push_back({{"kind", "unknown"}, {"name", arg.name}});
            break;
        }
    }
    return {{"get_args_line", harness.get_args_line},
            {"args", std::move(args)},
            {"has_call", harness.has_call},
            {"has_benchmark_all_configs", harness.has_benchmark_all_configs},
            {"problems", harness.problems}};
}

Json module_json(const ModuleSource& source) {
    const KernelModule& module = source.module;
    Json kernels = Json::array();
    for (const auto& kernel : module.kernels) {
        Json signature = Json::array();
        for (const auto& entry : kernel.signature) {
            signature.push_back({{"name", entry.name}, {"type", entry.type}});
        }
        Json parameters = Json::array();
        for (const auto& parameter : kernel.parameters) {
            parameters.push_back(parameter.name);
        }
        Json hints = Json::object();
        for (const auto& [axis, size] : kernel.size_hints) {
            hints[axis] = size;
        }
        kernels.push_back({{"name", kernel.name},
                           {"heuristic", kernel.heuristic},
                           {"def_line", kernel.def_line},
                           {"parameters", std::move(parameters)},
                           {"signature", std::move(signature)},
                           {"constants", pairs_json(kernel.constants)},
                           {"size_hints", std::move(hints)},
                           {"grid_type", kernel.grid_type},
                           {"kernel_name", kernel.kernel_name},
                           {"kernel_num_gb", optional_number(kernel.kernel_num_gb)},
                           {"kernel_flop", optional_number(kernel.kernel_flop)},
                           {"num_warps", optional_number(kernel.num_warps)},
                           {"num_stages", optional_number(kernel.num_stages)},
                           {"config_args", pairs_json(kernel.config_args)},
                           {"is_benchmark_candidate", kernel.is_benchmark_candidate},
                           {"harness", harness_json(kernel.harness)},
                           {"problems", kernel.problems}});
    }
    const std::string code_hash = hash::code_hash(hash::python_strip(source.text()));
    return {{"role", to_string(module.role)},
            {"kernel_names", module.kernel_names()},
            {"has_benchmark_harness", module.has_benchmark_harness},
            {"is_autotune_template_candidate", module.is_autotune_template_candidate},
            {"code_hash", code_hash},
            {"kernels", std::move(kernels)},
            {"problems", module.problems},
            {"source", text(source.text())}};
}

Json best_config_json(const BestConfig& best) {
    Json out = config_json(best.config);
    out["configs_hash"] = best.configs_hash ? Json(*best.configs_hash) : Json(nullptr);
    out["found_by_coordesc"] = optional_number(best.found_by_coordesc);
    out["time_taken_ms"] = optional_number(best.time_taken_ms);
    out["triton_cache_hash"] =
        best.triton_cache_hash ? Json(*best.triton_cache_hash) : Json(nullptr);
    return out;
}

Json benchmark_cache_json(const BenchmarkCache& cache) {
    Json choices = Json::array();
    for (const auto& choice : cache.choices) {
        const BenchmarkChoice* best = cache.best(choice.op, choice.inputs, choice.precision);
        choices.push_back({{"op", choice.op},
                           {"inputs", choice.inputs},
                           {"precision", choice.precision},
                           {"choice", choice.choice},
                           {"ms", choice.ms},
                           {"best", best == &choice}});
    }
    Json versions = Json::object();
    for (const auto& [name, version] : cache.versions) {
        versions[name] = version;
    }
    Json other = Json::object();
    for (const auto& [key, value] : cache.other_entries) {
        other[key] = Json::parse(value, nullptr, false);
    }
    return {{"system_hash", cache.system_hash},
            {"device", cache.device_name},
            {"versions", std::move(versions)},
            {"choices", std::move(choices)},
            {"other_entries", std::move(other)}};
}

Json triton_json(const TritonKernelDir& kernel) {
    Json files = Json::array();
    for (const auto& file : kernel.files) {
        files.push_back({{"name", file.name}, {"size", file.size}});
    }
    Json out = {
        {"hash", kernel.hash},
        {"device", kernel.device},
        {"kernel_name", kernel.kernel_name},
        {"module_path", kernel.module_path},
        {"module", kernel.module_key},
        {"module_file", kernel.module_file.empty() ? Json(nullptr) : Json(kernel.module_file)},
        {"files", std::move(files)}};
    if (kernel.metadata) {
        const TritonMetadata& meta = *kernel.metadata;
        out["metadata"] = {{"name", meta.name},
                           {"hash", meta.hash},
                           {"num_warps", optional_number(meta.num_warps)},
                           {"num_stages", optional_number(meta.num_stages)},
                           {"num_ctas", optional_number(meta.num_ctas)},
                           {"shared", meta.shared},
                           {"global_scratch_size", meta.global_scratch_size},
                           {"profile_scratch_size", meta.profile_scratch_size},
                           {"backend", meta.backend},
                           {"arch", meta.arch},
                           {"triton_version", meta.triton_version}};
    }
    if (kernel.ptx) {
        Json parameters = Json::array();
        for (const auto& parameter : kernel.ptx->parameters) {
            parameters.push_back({{"type", parameter.type},
                                  {"pointer", parameter.pointer},
                                  {"bytes", parameter.bytes}});
        }
        out["ptx"] = {{"entry", kernel.ptx->entry},
                      {"version", kernel.ptx->version},
                      {"target", kernel.ptx->target},
                      {"parameters", std::move(parameters)},
                      {"reqntid", optional_number(kernel.ptx->reqntid)}};
    }
    return out;
}

} // namespace

Json config_json(const cachedir::KernelConfig& config) {
    return {{"kwargs", pairs_json(config.kwargs)},
            {"num_warps", optional_number(config.num_warps)},
            {"num_stages", optional_number(config.num_stages)},
            {"num_ctas", optional_number(config.num_ctas)},
            {"maxnreg", optional_number(config.maxnreg)}};
}

Json entry_json(const Entry& entry, const EntryContent& content) {
    Json out = {{"kind", to_string(entry.kind)},
                {"key", entry.key},
                {"path", entry.path},
                {"file", std::string(entry.path.substr(entry.path.rfind('/') + 1))},
                {"size", entry.size},
                {"mtime", format_time(entry.mtime_ns)}};
    Json details = std::visit(
        [&](const auto& item) -> Json {
            using T = std::decay_t<decltype(item)>;
            if constexpr (std::is_same_v<T, FxGraphEntry>) {
                return fx_graph_json(item);
            } else if constexpr (std::is_same_v<T, AotAutogradEntry>) {
                return aot_json(item);
            } else if constexpr (std::is_same_v<T, ModuleSource>) {
                return module_json(item);
            } else if constexpr (std::is_same_v<T, CppSource>) {
                return {{"source", text(item.text())}};
            } else if constexpr (std::is_same_v<T, BestConfig>) {
                return best_config_json(item);
            } else if constexpr (std::is_same_v<T, KernelPerf>) {
                return {{"ms", item.milliseconds}};
            } else if constexpr (std::is_same_v<T, BenchmarkCache>) {
                return benchmark_cache_json(item);
            } else if constexpr (std::is_same_v<T, TritonKernelDir>) {
                return triton_json(item);
            } else if constexpr (std::is_same_v<T, DynamoProfile>) {
                return {{"repr", pickle::repr(item.document->root())}};
            } else {
                return Json::object();
            }
        },
        content);
    for (auto& [key, value] : details.items()) {
        out[key] = std::move(value);
    }
    return out;
}

} // namespace cachelens::cli
