#include "json_fields.h"

#include <cachelens/trace/cache_artifact.h>

#include <openssl/evp.h>

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <utility>

namespace cachelens::trace {

namespace {

constexpr std::array<std::pair<std::string_view, CacheKind>, 3> kCachePrefixes{{
    {"fx_graph_cache_", CacheKind::FxGraph},
    {"aotautograd_cache_", CacheKind::AotAutograd},
    {"autograd_cache_", CacheKind::AotAutograd}, // its chromium-event spelling, read here too
}};

bool is_surrogate(std::uint32_t unit) {
    return unit >= 0xd800 && unit <= 0xdfff;
}
bool is_high_surrogate(std::uint32_t unit) {
    return unit >= 0xd800 && unit <= 0xdbff;
}
bool is_low_surrogate(std::uint32_t unit) {
    return unit >= 0xdc00 && unit <= 0xdfff;
}

// The code unit of a `\uXXXX` escape starting at `pos`, if there is one.
std::optional<std::uint32_t> unicode_escape_at(std::string_view json, std::size_t pos) {
    if (pos + 6 > json.size() || json[pos] != '\\' || json[pos + 1] != 'u') {
        return std::nullopt;
    }
    std::uint32_t unit = 0;
    const char* first = json.data() + pos + 2;
    const auto parsed = std::from_chars(first, first + 4, unit, 16);
    if (parsed.ec != std::errc() || parsed.ptr != first + 4) {
        return std::nullopt;
    }
    return unit;
}

// Python's json.dumps escapes a str holding lone surrogates (a path decoded
// with surrogateescape, say) as `\udcXX`, which strict JSON parsers refuse.
// Returns the text with each lone surrogate escape made `\ufffd`, or nullopt
// when there is none. Escapes only occur inside strings, so a walk over every
// backslash sees each escape exactly once.
std::optional<std::string> replace_lone_surrogates(std::string_view json) {
    std::string fixed;
    std::size_t copied = 0;
    bool replaced = false;
    std::size_t pos = json.find('\\');
    while (pos != std::string_view::npos && pos + 1 < json.size()) {
        const auto unit = unicode_escape_at(json, pos);
        std::size_t next = pos + 2; // past this escape
        if (unit && is_surrogate(*unit)) {
            const auto low = unicode_escape_at(json, pos + 6);
            if (is_high_surrogate(*unit) && low && is_low_surrogate(*low)) {
                next = pos + 12; // a proper pair
            } else {
                fixed.append(json.substr(copied, pos - copied));
                fixed.append("\\ufffd");
                copied = pos + 6;
                next = pos + 6;
                replaced = true;
            }
        }
        pos = json.find('\\', next);
    }
    if (!replaced) {
        return std::nullopt;
    }
    fixed.append(json.substr(copied));
    return fixed;
}

// PyTorch logs strings; anything else is kept as its JSON so the count still
// matches.
std::string take_component(Json& value) {
    if (value.is_string()) {
        return std::move(value.get_ref<std::string&>());
    }
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A kernel list in a TritonBundlerMetadata repr is far shorter; hostile text
// must not make one event hold millions of names.
constexpr std::size_t kMaxBundledKernels = 100000;

// "TritonBundlerMetadata(cached_kernel_names=['a', 'b', 'a'], ...)", the
// str() of the dataclass codecache.py logs: the names, each once, in order.
// Kernel names are Python identifiers, so a quote ends each one.
std::vector<std::string> cached_kernel_names(std::string_view meta) {
    std::vector<std::string> names;
    std::unordered_set<std::string_view> seen; // views into `meta`
    constexpr std::string_view kField = "cached_kernel_names=[";
    const std::size_t start = meta.find(kField);
    if (start == std::string_view::npos) {
        return names;
    }
    std::string_view rest = meta.substr(start + kField.size());
    rest = rest.substr(0, rest.find(']'));
    while (names.size() < kMaxBundledKernels) {
        const std::size_t open = rest.find_first_of("'\"");
        if (open == std::string_view::npos) {
            break;
        }
        const std::size_t close = rest.find(rest[open], open + 1);
        if (close == std::string_view::npos) {
            break;
        }
        const std::string_view name = rest.substr(open + 1, close - open - 1);
        if (seen.insert(name).second) {
            names.emplace_back(name);
        }
        rest.remove_prefix(close + 1);
    }
    return names;
}

void read_payload_object(Json& payload, CacheEvent& event) {
    if (event.status == "hash") {
        const auto* state = string_member(payload, "cache_state");
        event.status =
            state != nullptr && (*state == "hit" || *state == "miss" || *state == "bypass")
                ? *state
                : std::string(kStatusNotLogged);
    }
    if (const auto* detailed = string_member(payload, "cache_status_detailed")) {
        event.detailed_status = *detailed;
    }
    if (const auto* key = string_member(payload, "key")) {
        event.key = *key;
    }
    if (const auto* reason = string_member(payload, "cache_bypass_reason")) {
        event.reason = *reason;
    }
    if (const auto* guards = string_member(payload, "cache_status_guard_expr")) {
        event.guard_expr = *guards;
    }
    if (const auto* meta = string_member(payload, "triton_bundler_meta")) {
        event.bundled_kernels = cached_kernel_names(*meta);
    }
    if (const auto components = payload.find("components");
        components != payload.end() && components->is_array()) {
        event.components.reserve(components->size());
        for (auto& component : *components) {
            event.components.push_back(take_component(component));
        }
    }
    // A miss measures the compile; an FX hit reports what the entry recorded.
    event.time_taken_ns = int_member(payload, "time_taken_ns");
    if (!event.time_taken_ns) {
        event.time_taken_ns = int_member(payload, "time_saved_ns");
    }
    if (event.compile_id.empty()) {
        if (const auto* compile_id = string_member(payload, "compile_id")) {
            event.compile_id = *compile_id;
        }
    }
}

} // namespace

std::string_view to_string(CacheKind kind) {
    switch (kind) {
    case CacheKind::FxGraph:
        return "fxgraph";
    case CacheKind::AotAutograd:
        return "aotautograd";
    }
    return "unknown";
}

std::optional<CacheArtifactName> classify_cache_artifact(std::string_view name) {
    for (const auto& [prefix, cache] : kCachePrefixes) {
        if (!name.starts_with(prefix)) {
            continue;
        }
        const auto status = name.substr(prefix.size());
        // PyTorch 2.4 and 2.5 logged one `<cache>_hash` artifact, the outcome
        // in its payload's cache_state (2.5; 2.4 none); 2.6 on name it.
        if (status == "hit" || status == "miss" || status == "bypass" || status == "hash") {
            return CacheArtifactName{cache, status};
        }
    }
    return std::nullopt;
}

std::optional<std::string> read_cache_payload(std::string_view payload, CacheEvent& event) {
    std::optional<std::string> note;
    auto json = parse_json(payload);
    if (!json) {
        const auto fixed = replace_lone_surrogates(payload);
        if (fixed) {
            json = parse_json(*fixed);
        }
        if (!json) {
            return std::string("payload is not JSON (cut short or edited?)");
        }
        note = "payload holds lone UTF-16 surrogates, read as U+FFFD";
    }
    if (!json->is_object()) {
        return std::string("payload is not a JSON object");
    }
    read_payload_object(*json, event);
    return note;
}

bool payload_matches_checksum(std::string_view payload, std::string_view md5_hex) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    if (EVP_Digest(payload.data(), payload.size(), digest.data(), &size, EVP_md5(), nullptr) != 1) {
        return true; // no MD5 in this OpenSSL (FIPS mode): nothing to compare with
    }
    if (md5_hex.size() != std::size_t{size} * 2) {
        return false;
    }
    constexpr std::string_view kHex = "0123456789abcdef";
    for (unsigned int i = 0; i < size; ++i) {
        const auto high = static_cast<char>(md5_hex[2 * i] | 0x20); // lower-case letters
        const auto low = static_cast<char>(md5_hex[2 * i + 1] | 0x20);
        if (high != kHex[digest[i] >> 4] || low != kHex[digest[i] & 0xf]) {
            return false;
        }
    }
    return true;
}

} // namespace cachelens::trace
