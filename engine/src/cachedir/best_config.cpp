#include <cachelens/cachedir/best_config.h>

#include <nlohmann/json.hpp>

#include <charconv>

namespace cachelens::cachedir {

namespace {

using Json = nlohmann::ordered_json;

std::optional<ConfigValue> config_value(const Json& value) {
    if (value.is_boolean()) {
        return ConfigValue(value.get<bool>());
    }
    if (value.is_number_integer()) {
        return ConfigValue(value.get<std::int64_t>());
    }
    if (value.is_number()) {
        return ConfigValue(value.get<double>());
    }
    if (value.is_string()) {
        return ConfigValue(value.get<std::string>());
    }
    return std::nullopt;
}

std::optional<std::int64_t> optional_int(const Json& value) {
    if (value.is_number_integer()) {
        return value.get<std::int64_t>();
    }
    return std::nullopt;
}

} // namespace

Result<BestConfig> parse_best_config(std::string_view text) {
    Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
        return fail(ErrorKind::Corrupt, "best_config: not valid JSON");
    }
    if (!json.is_object()) {
        return fail(ErrorKind::Corrupt, "best_config: expected a JSON object");
    }
    BestConfig best;
    for (const auto& [key, value] : json.items()) {
        if (key == "num_warps") {
            best.config.num_warps = optional_int(value);
        } else if (key == "num_stages") {
            best.config.num_stages = optional_int(value);
        } else if (key == "num_ctas") {
            best.config.num_ctas = optional_int(value);
        } else if (key == "maxnreg") {
            best.config.maxnreg = optional_int(value);
        } else if (key == "configs_hash" && value.is_string()) {
            best.configs_hash = value.get<std::string>();
        } else if (key == "found_by_coordesc" && value.is_boolean()) {
            best.found_by_coordesc = value.get<bool>();
        } else if (key == "time_taken_ms" && value.is_number()) {
            best.time_taken_ms = value.get<double>();
        } else if (key == "triton_cache_hash") {
            if (value.is_string()) {
                best.triton_cache_hash = value.get<std::string>();
            }
        } else if (auto kwarg = config_value(value); kwarg && key != "configs_hash" &&
                                                     key != "found_by_coordesc" &&
                                                     key != "time_taken_ms") {
            best.config.kwargs.emplace_back(key, std::move(*kwarg));
        } else {
            best.other_fields.emplace_back(key, value.dump());
        }
    }
    if (!best.config.num_warps) {
        return fail(ErrorKind::Corrupt, "best_config: no num_warps");
    }
    return best;
}

Result<KernelPerf> parse_kernel_perf(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    KernelPerf perf;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), perf.milliseconds);
    if (ec != std::errc() || end != text.data() + text.size()) {
        return fail(ErrorKind::Corrupt, "kernel_perf: expected a number of milliseconds");
    }
    return perf;
}

CurrentBest current_best(const BestConfig* best, std::span<const CandidateConfig> candidates) {
    if (best == nullptr) {
        // No autotuning happened: the one compiled config is the one that runs.
        return candidates.size() == 1 ? CurrentBest{CurrentBest::Kind::Candidate, 0}
                                      : CurrentBest{};
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const bool named = best->triton_cache_hash
                               ? candidates[i].triton_dir == *best->triton_cache_hash
                               : same_config(*candidates[i].config, best->config);
        if (named) {
            return {CurrentBest::Kind::Candidate, i};
        }
    }
    return {CurrentBest::Kind::NotACandidate, 0};
}

} // namespace cachelens::cachedir
