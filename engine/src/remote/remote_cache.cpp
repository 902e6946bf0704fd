#include "../core/python_json.h"

#include <cachelens/core/base64.h>
#include <cachelens/remote/remote_cache.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

namespace cachelens::remote {

namespace {

using Json = nlohmann::ordered_json;

struct KindName {
    CacheKind kind;
    std::string_view name;
    std::string_view cache_id;
};

constexpr std::array kKinds = {
    KindName{CacheKind::FxGraph, "fx-graph", "fx-graph-v1"},
    KindName{CacheKind::AotAutograd, "aot", "autograd-experimental"},
    KindName{CacheKind::Autotune, "autotune", ""},
    KindName{CacheKind::BundledAutotune, "bundled-autotune", "bundled-autotune-v1"},
    KindName{CacheKind::DynamoPgo, "pgo", "dynamo-pgo"},
};

bool is_hex64(std::string_view text) {
    return text.size() == 64 &&
           text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

Result<std::string> base64_field(const Json& object, const char* field) {
    const auto it = object.find(field);
    if (it == object.end()) {
        return fail(ErrorKind::Corrupt, std::string("no \"") + field + "\" field");
    }
    if (!it->is_string()) {
        return fail(ErrorKind::Corrupt, std::string("\"") + field + "\" is not a string");
    }
    auto decoded = base64_decode(it->get_ref<const std::string&>());
    if (!decoded) {
        return fail(ErrorKind::Corrupt,
                    std::string("\"") + field + "\" is not base64: " + decoded.error().message);
    }
    return decoded;
}

// PyTorch's own layout, json.dumps({"data": b64, "time_taken_ms": N}) (or
// without the time), read without the JSON parser, whose lexer copies the
// ~1 MB base64 string a byte at a time: 40% of a pull's CPU. nullopt for
// anything else, which the parser then reads: other whitespace, other keys
// or order, escapes, a number JSON spells otherwise, data that is not base64
// (whose error the parser's path reports). Only alphabet characters pass
// base64_decode, and JSON reads those unescaped: the result is the parser's.
std::optional<RemoteValue> decode_python_layout(std::string_view text) {
    constexpr std::string_view head = "{\"data\": \"";
    constexpr std::string_view time_field = "\", \"time_taken_ms\": ";
    if (!text.starts_with(head)) {
        return std::nullopt;
    }
    text.remove_prefix(head.size());
    const auto quote = text.find('"');
    if (quote == std::string_view::npos) {
        return std::nullopt;
    }
    const auto data = text.substr(0, quote);
    text.remove_prefix(quote);
    RemoteValue value;
    if (text.starts_with(time_field)) {
        text.remove_prefix(time_field.size());
        // JSON's integers: an optional minus, then 0 or digits without a leading 0.
        const auto digits = text.starts_with('-') ? text.substr(1) : text;
        if (digits.size() > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9') {
            return std::nullopt;
        }
        std::int64_t time = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), time);
        if (error != std::errc()) {
            return std::nullopt;
        }
        text.remove_prefix(static_cast<std::size_t>(end - text.data()));
        value.time_taken_ms = time;
    } else if (text.starts_with('"')) {
        text.remove_prefix(1);
    }
    if (text != "}") {
        return std::nullopt;
    }
    auto payload = base64_decode(data);
    if (!payload) {
        return std::nullopt;
    }
    value.payload = std::move(*payload);
    return value;
}

} // namespace

std::string_view to_string(CacheKind kind) {
    for (const auto& known : kKinds) {
        if (known.kind == kind) {
            return known.name;
        }
    }
    return "unknown";
}

std::optional<CacheKind> cache_kind_from_name(std::string_view name) {
    for (const auto& known : kKinds) {
        if (known.name == name) {
            return known.kind;
        }
    }
    return std::nullopt;
}

std::string_view cache_id_of(CacheKind kind) {
    for (const auto& known : kKinds) {
        if (known.kind == kind) {
            return known.cache_id;
        }
    }
    return {};
}

std::optional<RemoteKey> parse_redis_key(std::string_view redis_key) {
    constexpr std::string_view prefix = "pt2:";
    constexpr std::string_view suffix = ":c1";
    if (!redis_key.starts_with(prefix) || !redis_key.ends_with(suffix)) {
        return std::nullopt;
    }
    const auto inner =
        redis_key.substr(prefix.size(), redis_key.size() - prefix.size() - suffix.size());
    const auto separator = inner.find("::");
    if (separator == std::string_view::npos || separator == 0) {
        return std::nullopt;
    }
    RemoteKey key;
    key.redis_key = std::string(redis_key);
    key.cache_id = std::string(inner.substr(0, separator));
    key.key = std::string(inner.substr(separator + 2));
    key.kind = CacheKind::Unknown;
    for (const auto& known : kKinds) {
        if (!known.cache_id.empty() && known.cache_id == key.cache_id) {
            key.kind = known.kind;
        }
    }
    if (key.kind == CacheKind::Unknown && is_hex64(key.cache_id)) {
        key.kind = CacheKind::Autotune;
    }
    return key;
}

std::string redis_key_for(std::string_view cache_id, std::string_view key) {
    return "pt2:" + std::string(cache_id) + "::" + std::string(key) + ":c1";
}

std::string scan_pattern(std::optional<CacheKind> kind) {
    if (!kind || *kind == CacheKind::Autotune || *kind == CacheKind::Unknown) {
        return "pt2:*"; // autotune ids are hashes: filtered after the scan
    }
    return "pt2:" + std::string(cache_id_of(*kind)) + "::*";
}

Result<RemoteValue> decode_value(CacheKind kind, std::string_view json_text) {
    if (kind == CacheKind::FxGraph || kind == CacheKind::AotAutograd ||
        kind == CacheKind::DynamoPgo) {
        if (auto value = decode_python_layout(json_text)) {
            return std::move(*value);
        }
    }
    const Json json = Json::parse(json_text, nullptr, false);
    if (json.is_discarded()) {
        return fail(ErrorKind::Corrupt, "the value is not JSON");
    }
    if (!json.is_object()) {
        return fail(ErrorKind::Corrupt, "the value is JSON but not an object");
    }
    RemoteValue value;
    switch (kind) {
    case CacheKind::FxGraph:
    case CacheKind::AotAutograd:
    case CacheKind::DynamoPgo: {
        auto data = base64_field(json, "data");
        if (!data) {
            return std::unexpected(data.error());
        }
        value.payload = std::move(*data);
        if (const auto it = json.find("time_taken_ms");
            it != json.end() && it->is_number_integer()) {
            value.time_taken_ms = it->get<std::int64_t>();
        }
        break;
    }
    case CacheKind::Autotune:
        value.payload = python_json_dumps(json);
        break;
    case CacheKind::BundledAutotune:
        for (const auto& [basename, config] : json.items()) {
            if (!config.is_object()) {
                return fail(ErrorKind::Corrupt, "the entry for " + basename + " is not an object");
            }
            value.best_configs.emplace_back(basename, python_json_dumps(config));
        }
        break;
    case CacheKind::Unknown:
        value.payload = std::string(json_text);
        break;
    }
    return value;
}

// One buffer sized up front, the base64 written straight into it: building
// it by concatenation copied each ~1 MB value three times (perf).
std::string encode_value(std::string_view payload, std::optional<std::int64_t> time_taken_ms) {
    constexpr std::string_view head = "{\"data\": \"";
    constexpr std::string_view time_field = "\", \"time_taken_ms\": ";
    std::array<char, 24> time_text{};
    std::size_t time_size = 0;
    if (time_taken_ms) {
        time_size = static_cast<std::size_t>(
            std::to_chars(time_text.data(), time_text.data() + time_text.size(), *time_taken_ms)
                .ptr -
            time_text.data());
    }
    const std::size_t data_size = base64_encoded_size(payload.size());
    const std::size_t size =
        head.size() + data_size + (time_taken_ms ? time_field.size() + time_size : 1) + 1;
    std::string out;
    out.resize_and_overwrite(size, [&](char* to, std::size_t) {
        char* at = std::copy(head.begin(), head.end(), to);
        base64_encode_to(payload, at);
        at += data_size;
        if (time_taken_ms) {
            at = std::copy(time_field.begin(), time_field.end(), at);
            at = std::copy_n(time_text.data(), time_size, at);
        } else {
            *at++ = '"';
        }
        *at++ = '}';
        return static_cast<std::size_t>(at - to);
    });
    return out;
}

PullArtifacts artifacts_to_pull(const std::vector<PulledValue>& values) {
    PullArtifacts out;
    auto add = [&](std::string_view type, std::string key, std::string content) {
        auto& sections = out.bundle.sections;
        if (sections.empty() || sections.back().type != type) {
            sections.push_back({std::string(type), {}});
        }
        sections.back().artifacts.push_back({std::move(key), std::move(content)});
    };
    for (const auto& pulled : values) {
        const auto& key = pulled.key;
        if (key.kind == CacheKind::Autotune || key.kind == CacheKind::Unknown) {
            out.notes.push_back(key.redis_key + ": " +
                                (key.kind == CacheKind::Autotune
                                     ? "a remote autotune result; PyTorch keeps no local file for "
                                       "those, so there is nothing to pull"
                                     : "not one of PyTorch's caches"));
            continue;
        }
        auto value = decode_value(key.kind, pulled.value);
        if (!value) {
            out.unreadable.push_back(key.redis_key + ": " + value.error().message);
            continue;
        }
        switch (key.kind) {
        case CacheKind::FxGraph:
            add("inductor", key.key, std::move(value->payload));
            break;
        case CacheKind::AotAutograd:
            add("aot_autograd", key.key, std::move(value->payload));
            break;
        case CacheKind::DynamoPgo:
            add("pgo", key.key, std::move(value->payload));
            break;
        case CacheKind::BundledAutotune:
            for (auto& [basename, config] : value->best_configs) {
                // codecache.get_path(root, ext): the shard is root[1:3].
                const std::string shard = basename.size() >= 3 ? basename.substr(1, 2) : basename;
                add("autotune", shard + "/" + basename, std::move(config));
            }
            break;
        default:
            break;
        }
    }
    return out;
}

} // namespace cachelens::remote
