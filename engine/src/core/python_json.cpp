#include "python_json.h"

#include <cachelens/pickle/repr.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace cachelens {

namespace {

using Json = nlohmann::ordered_json;

void append_utf8_escaped(std::string& out, std::string_view utf8) {
    static constexpr char kHex[] = "0123456789abcdef";
    auto append_u = [&](std::uint32_t unit) {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) {
            out += kHex[(unit >> shift) & 0xF];
        }
    };
    out += '"';
    for (std::size_t i = 0; i < utf8.size();) {
        const auto byte = static_cast<unsigned char>(utf8[i]);
        std::uint32_t code = byte;
        std::size_t length = 1;
        if (byte >= 0x80) {
            length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0;
            bool valid = length != 0 && i + length <= utf8.size();
            code = valid ? byte & (0x7F >> length) : 0;
            for (std::size_t k = 1; valid && k < length; ++k) {
                const auto next = static_cast<unsigned char>(utf8[i + k]);
                valid = (next & 0xC0) == 0x80;
                code = (code << 6) | (next & 0x3F);
            }
            if (!valid) {
                code = 0xFFFD; // what Python's decoder would put for a bad byte
                length = 1;
            }
        }
        i += length;
        switch (code) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (code >= 0x20 && code <= 0x7E) {
                out += static_cast<char>(code);
            } else if (code >= 0x10000) {
                code -= 0x10000;
                append_u(0xD800 | (code >> 10));
                append_u(0xDC00 | (code & 0x3FF));
            } else {
                append_u(code);
            }
        }
    }
    out += '"';
}

std::string python_float(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value < 0 ? "-Infinity" : "Infinity";
    }
    return pickle::float_repr(value);
}

void append_python_json(std::string& out, const Json& value) {
    switch (value.type()) {
    case Json::value_t::null:
        out += "null";
        break;
    case Json::value_t::boolean:
        out += value.get<bool>() ? "true" : "false";
        break;
    case Json::value_t::number_integer:
        out += std::to_string(value.get<std::int64_t>());
        break;
    case Json::value_t::number_unsigned:
        out += std::to_string(value.get<std::uint64_t>());
        break;
    case Json::value_t::number_float:
        out += python_float(value.get<double>());
        break;
    case Json::value_t::string:
        append_utf8_escaped(out, value.get_ref<const std::string&>());
        break;
    case Json::value_t::array: {
        out += '[';
        const char* separator = "";
        for (const auto& item : value) {
            out += separator;
            append_python_json(out, item);
            separator = ", ";
        }
        out += ']';
        break;
    }
    case Json::value_t::object: {
        out += '{';
        const char* separator = "";
        for (const auto& [key, item] : value.items()) {
            out += separator;
            append_utf8_escaped(out, key);
            out += ": ";
            append_python_json(out, item);
            separator = ", ";
        }
        out += '}';
        break;
    }
    default: // binary and discarded values never come out of a JSON parse
        out += "null";
    }
}

} // namespace

std::string python_json_dumps(const Json& value) {
    std::string out;
    append_python_json(out, value);
    return out;
}

namespace {

// Stands for an infinity while nlohmann parses (it refuses them, and 1e999).
constexpr std::string_view kInfinity = "1.7976931348623157e308";

// Walked with a stack of its own: a hostile file nests as deep as it likes.
void restore_infinities(nlohmann::ordered_json& root) {
    std::vector<nlohmann::ordered_json*> pending{&root};
    while (!pending.empty()) {
        nlohmann::ordered_json& value = *pending.back();
        pending.pop_back();
        if (value.is_number_float()) {
            const double number = value.get<double>();
            if (number == std::numeric_limits<double>::max()) {
                value = std::numeric_limits<double>::infinity();
            } else if (number == -std::numeric_limits<double>::max()) {
                value = -std::numeric_limits<double>::infinity();
            }
        } else if (value.is_structured()) {
            for (auto& item : value) {
                pending.push_back(&item);
            }
        }
    }
}

} // namespace

nlohmann::ordered_json python_json_loads(std::string_view text) {
    std::string json;
    json.reserve(text.size());
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            json += c;
            if (c == '\\' && i + 1 < text.size()) {
                json += text[++i];
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (text.substr(i).starts_with("NaN")) {
            json += "null";
            i += 2;
            continue;
        } else if (text.substr(i).starts_with("Infinity")) {
            json += kInfinity;
            i += 7;
            continue;
        } else if (text.substr(i).starts_with("-Infinity")) {
            json += '-';
            json += kInfinity;
            i += 8;
            continue;
        }
        json += c;
    }
    auto value = nlohmann::ordered_json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!value.is_discarded()) {
        restore_infinities(value);
    }
    return value;
}

} // namespace cachelens
