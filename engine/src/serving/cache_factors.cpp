#include "../core/python_json.h"

#include <cachelens/hash/sha256.h>
#include <cachelens/serving/cache_factors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace cachelens::serving {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Python's json.dumps(value, sort_keys=True): nlohmann::json keeps object
// keys in a std::map, whose byte order is the code point order Python sorts
// by (for valid UTF-8), so a copy into an ordered_json keeps that order.
OrderedJson sorted_copy(const Json& value, bool& exact) {
    if (value.is_object()) {
        OrderedJson out = OrderedJson::object();
        for (const auto& [name, item] : value.items()) {
            out[name] = sorted_copy(item, exact);
        }
        return out;
    }
    if (value.is_array()) {
        OrderedJson out = OrderedJson::array();
        for (const auto& item : value) {
            out.push_back(sorted_copy(item, exact));
        }
        return out;
    }
    if (value.is_number_float()) {
        // An integer too large for 64 bits arrives here as a double; Python
        // kept it as an int and would write its digits.
        const double number = value.get<double>();
        if (std::isfinite(number) && std::abs(number) >= 9.2e18 && std::trunc(number) == number) {
            exact = false;
        }
    }
    return OrderedJson(value);
}

Result<std::string> required_string(const Json& object, const char* name) {
    const auto found = object.find(name);
    if (found == object.end()) {
        return fail(ErrorKind::Corrupt, std::string("no \"") + name + "\", which vLLM writes");
    }
    if (!found->is_string()) {
        return fail(ErrorKind::Corrupt, std::string("\"") + name + "\" is a " + found->type_name() +
                                            ", where vLLM writes a str");
    }
    return found->get<std::string>();
}

} // namespace

std::optional<std::string_view> CacheKeyFactors::env_value(std::string_view name) const {
    const auto found = std::ranges::lower_bound(
        env, name, {}, [](const auto& item) { return std::string_view(item.first); });
    if (found == env.end() || found->first != name) {
        return std::nullopt;
    }
    return found->second;
}

Result<CacheKeyFactors> parse_cache_key_factors(std::string_view json_text) {
    const Json document = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) {
        return fail(ErrorKind::Corrupt, "not JSON");
    }
    if (!document.is_object()) {
        return fail(ErrorKind::Corrupt, std::string("a JSON ") + document.type_name() +
                                            ", where vLLM writes an object");
    }
    CacheKeyFactors factors;
    for (auto [name, out] : {std::pair{"config_hash", &factors.config_hash},
                             std::pair{"code_hash", &factors.code_hash},
                             std::pair{"compiler_hash", &factors.compiler_hash}}) {
        auto value = required_string(document, name);
        if (!value) {
            return std::unexpected(value.error());
        }
        *out = std::move(*value);
    }
    const auto env = document.find("env");
    if (env == document.end()) {
        return fail(ErrorKind::Corrupt, "no \"env\", which vLLM writes");
    }
    if (!env->is_object()) {
        return fail(ErrorKind::Corrupt, std::string("\"env\" is a ") + env->type_name() +
                                            ", where vLLM writes an object");
    }
    bool exact = true;
    const OrderedJson sorted_env = sorted_copy(*env, exact);
    for (const auto& [name, value] : sorted_env.items()) {
        factors.env.emplace_back(name, python_json_dumps(value));
    }
    if (exact) {
        factors.env_hash = hash::sha256_hex(python_json_dumps(sorted_env));
    }
    for (const auto& [name, value] : document.items()) {
        if (name != "env" && name != "config_hash" && name != "code_hash" &&
            name != "compiler_hash") {
            factors.extras.emplace_back(name, python_json_dumps(sorted_copy(value, exact)));
        }
    }
    return factors;
}

std::optional<std::string> recompute_hash_dir_name(const CacheKeyFactors& factors) {
    if (factors.env_hash.empty()) {
        return std::nullopt;
    }
    // str() of a list of four str: every one is hex here, so repr adds quotes only.
    const auto is_plain = [](std::string_view text) {
        return std::ranges::all_of(text, [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        });
    };
    if (!is_plain(factors.config_hash) || !is_plain(factors.code_hash) ||
        !is_plain(factors.compiler_hash)) {
        return std::nullopt;
    }
    const std::string listed = "['" + factors.env_hash + "', '" + factors.config_hash + "', '" +
                               factors.code_hash + "', '" + factors.compiler_hash + "']";
    return hash::sha256_hex(listed).substr(0, 10);
}

} // namespace cachelens::serving
