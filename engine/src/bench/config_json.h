#pragma once

// A KernelConfig as JSON, the one way the bench code writes it (the
// catalog's stored configs, the bench protocol's records, the compile
// server's requests): kwargs by name with their own types, then the launch
// options a config has.

#include <cachelens/cachedir/kernel_config.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <variant>

namespace cachelens::bench::detail {

// {"XBLOCK": 64, "EVEN_K": true, ...}, in the config's order where the JSON
// type keeps order.
template <class Json>
Json kwargs_json(const cachedir::KernelConfig& config) {
    Json kwargs = Json::object();
    for (const auto& [name, value] : config.kwargs) {
        kwargs[name] = std::visit([](const auto& v) { return Json(v); }, value);
    }
    return kwargs;
}

// num_warps, num_stages, num_ctas, maxnreg: those the config has.
template <class Json>
void add_launch_options(Json& json, const cachedir::KernelConfig& config) {
    const std::pair<const char*, const std::optional<std::int64_t>*> options[] = {
        {"num_warps", &config.num_warps},
        {"num_stages", &config.num_stages},
        {"num_ctas", &config.num_ctas},
        {"maxnreg", &config.maxnreg},
    };
    for (const auto& [key, value] : options) {
        if (*value) {
            json[key] = **value;
        }
    }
}

} // namespace cachelens::bench::detail
