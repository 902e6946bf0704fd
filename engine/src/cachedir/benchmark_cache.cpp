#include "../core/python_json.h"

#include <cachelens/cachedir/benchmark_cache.h>

#include <nlohmann/json.hpp>

namespace cachelens::cachedir {

namespace {
using Json = nlohmann::ordered_json;

std::string text_of(const Json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
}
} // namespace

const BenchmarkChoice* BenchmarkCache::best(std::string_view op, std::string_view inputs,
                                            std::string_view precision) const {
    const BenchmarkChoice* fastest = nullptr;
    for (const auto& choice : choices) {
        if (choice.op == op && choice.inputs == inputs && choice.precision == precision &&
            (fastest == nullptr || choice.ms < fastest->ms)) {
            fastest = &choice;
        }
    }
    return fastest;
}

Result<BenchmarkCache> parse_benchmark_cache(std::string_view text) {
    // Python's json, which writes a failed choice's time as Infinity.
    Json json = python_json_loads(text);
    if (json.is_discarded()) {
        return fail(ErrorKind::Corrupt, "benchmark cache: not valid JSON");
    }
    if (!json.is_object()) {
        return fail(ErrorKind::Corrupt, "benchmark cache: expected a JSON object");
    }
    BenchmarkCache cache;
    if (auto system = json.find("system"); system != json.end() && system->is_object()) {
        if (auto hash = system->find("hash"); hash != system->end()) {
            cache.system_hash = text_of(*hash);
        }
        if (auto device = system->find("device"); device != system->end() && device->is_object()) {
            if (auto name = device->find("name"); name != device->end()) {
                cache.device_name = text_of(*name);
            }
        } else if (device != system->end() && device->is_string()) {
            cache.device_name = device->get<std::string>(); // PyTorch 2.0
        }
        if (auto versions = system->find("version");
            versions != system->end() && versions->is_object()) {
            for (const auto& [key, value] : versions->items()) {
                cache.versions.emplace_back(key, text_of(value));
            }
        }
    }
    auto entries = json.find("cache");
    if (entries == json.end()) {
        return cache;
    }
    if (!entries->is_object()) {
        return fail(ErrorKind::Corrupt, "benchmark cache: \"cache\" is not an object");
    }
    for (const auto& [op, by_inputs] : entries->items()) {
        if (!by_inputs.is_object()) {
            cache.other_entries.emplace_back(op, by_inputs.dump());
            continue;
        }
        for (const auto& [inputs, by_precision] : by_inputs.items()) {
            if (!by_precision.is_object()) {
                return fail(ErrorKind::Corrupt, "benchmark cache: " + op + " -> " + inputs +
                                                    " is not an object of precisions");
            }
            for (const auto& [precision, by_choice] : by_precision.items()) {
                if (!by_choice.is_object()) {
                    return fail(ErrorKind::Corrupt, "benchmark cache: " + op + " -> ... -> " +
                                                        precision + " is not an object of choices");
                }
                for (const auto& [choice, ms] : by_choice.items()) {
                    if (!ms.is_number()) {
                        return fail(ErrorKind::Corrupt,
                                    "benchmark cache: the time of " + choice + " is not a number");
                    }
                    cache.choices.push_back({op, inputs, precision, choice, ms.get<double>()});
                }
            }
        }
    }
    return cache;
}

} // namespace cachelens::cachedir
