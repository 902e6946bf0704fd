#include <cachelens/cachedir/debug_line.h>
#include <cachelens/cachedir/environment.h>
#include <cachelens/cachedir/python_literal.h>
#include <cachelens/pickle/access.h>

#include <algorithm>
#include <optional>

namespace cachelens::cachedir {

namespace {

// The line about `name` ("torch_version", "system_info[device]").
std::optional<DebugLine> line_named(std::span<const std::string_view> lines,
                                    std::string_view name) {
    for (const std::string_view line : lines) {
        DebugLine parsed = parse_debug_line(line);
        if (!parsed.hash.empty() && parsed.name() == name) {
            return parsed;
        }
    }
    return std::nullopt;
}

// A str value of a dict literal ({'name': 'NVIDIA H100'}); nullopt when the
// text is no such dict (None values included).
std::optional<std::string> dict_str(std::string_view text, std::string_view key) {
    auto document = parse_python_literal(text);
    if (!document) {
        return std::nullopt;
    }
    const pickle::Value& root = (*document)->root();
    if (root.kind() != pickle::Kind::Dict) {
        return std::nullopt;
    }
    const auto value = pickle::str_of(root.find(key));
    return value ? std::optional(std::string(*value)) : std::nullopt;
}

bool is_hex(std::string_view text) {
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

} // namespace

// Triton's key is its version with the sha256 of its sources appended, then
// more hashes after '-' ("3.6.0" + "0355c3e3..." + "-c8b82f70...").
std::string triton_version_of_key(std::string_view key) {
    constexpr std::size_t kHexDigits = 64;
    const std::string_view first = key.substr(0, key.find('-'));
    if (first.size() > kHexDigits && is_hex(first.substr(first.size() - kHexDigits))) {
        return std::string(first.substr(0, first.size() - kHexDigits));
    }
    return std::string(first);
}

bool Environment::empty() const {
    return *this == Environment{};
}

std::string Environment::describe() const {
    std::string out;
    const auto add = [&](const std::string& part) {
        if (!part.empty()) {
            out += (out.empty() ? "" : ", ") + part;
        }
    };
    add(device_name);
    add(cuda_version.empty() ? "" : "CUDA " + cuda_version);
    add(hip_version.empty() ? "" : "HIP " + hip_version);
    add(triton_version.empty() ? "" : "Triton " + triton_version);
    add(torch_build.empty() ? "" : "torch build " + torch_build.substr(0, 8));
    return out.empty() ? "not recorded in its key" : out;
}

std::vector<std::pair<std::string_view, std::string*>> Environment::json_fields() {
    return {{"device_name", &device_name}, {"cuda", &cuda_version},
            {"hip", &hip_version},         {"triton", &triton_version},
            {"triton_key", &triton_key},   {"torch_build", &torch_build},
            {"system_hash", &system_hash}};
}

std::vector<std::pair<std::string_view, const std::string*>> Environment::json_fields() const {
    const auto fields = const_cast<Environment*>(this)->json_fields(); // the one list; read only
    return {fields.begin(), fields.end()};
}

Environment environment_of(std::span<const std::string_view> debug_lines) {
    Environment environment;
    if (const auto torch = line_named(debug_lines, "torch_version")) {
        environment.torch_build = std::string(torch->hash);
    }
    if (const auto device = line_named(debug_lines, "system_info[device]")) {
        environment.device_name = dict_str(device->value, "name").value_or("");
    }
    if (const auto version = line_named(debug_lines, "system_info[version]")) {
        environment.cuda_version = dict_str(version->value, "cuda").value_or("");
        environment.hip_version = dict_str(version->value, "hip").value_or("");
        environment.triton_key = dict_str(version->value, "triton").value_or("");
        environment.triton_version = triton_version_of_key(environment.triton_key);
    }
    if (const auto hash = line_named(debug_lines, "system_info[hash]")) {
        environment.system_hash = std::string(hash->value);
    }
    return environment;
}

} // namespace cachelens::cachedir
