#include <cachelens/cachedir/debug_line.h>

namespace cachelens::cachedir {

namespace {

bool is_hash_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

} // namespace

std::string DebugLine::name() const {
    if (!has_subkey) {
        return std::string(attribute);
    }
    std::string out(attribute);
    out += '[';
    out += subkey;
    out += ']';
    return out;
}

DebugLine parse_debug_line(std::string_view line) {
    DebugLine parsed;
    parsed.text = line;
    parsed.attribute = line;
    parsed.value = line;
    // "[hash] "
    if (line.size() < 4 || line.front() != '[') {
        return parsed;
    }
    const std::size_t close = line.find(']');
    if (close == std::string_view::npos || close < 2 || close + 1 >= line.size() ||
        line[close + 1] != ' ') {
        return parsed;
    }
    const std::string_view hash = line.substr(1, close - 1);
    for (char c : hash) {
        if (!is_hash_char(c)) {
            return parsed;
        }
    }
    // "attribute: value" or "attribute[subkey]: value"; the attribute is a
    // Python identifier, so the first ':' or '[' ends it.
    const std::string_view rest = line.substr(close + 2);
    const std::size_t end_of_name = rest.find_first_of(":[");
    if (end_of_name == std::string_view::npos || end_of_name == 0) {
        return parsed;
    }
    std::string_view subkey;
    bool has_subkey = false;
    std::size_t colon = end_of_name;
    if (rest[end_of_name] == '[') {
        // The subkey ends at the "]: " that introduces the value.
        const std::size_t subkey_end = rest.find("]: ", end_of_name);
        const std::size_t bare_end =
            rest.ends_with("]:") ? rest.size() - 2 : std::string_view::npos;
        const std::size_t end = subkey_end != std::string_view::npos ? subkey_end : bare_end;
        if (end == std::string_view::npos) {
            return parsed;
        }
        subkey = rest.substr(end_of_name + 1, end - end_of_name - 1);
        has_subkey = true;
        colon = end + 1;
    }
    if (colon >= rest.size() || rest[colon] != ':') {
        return parsed;
    }
    parsed.hash = hash;
    parsed.attribute = rest.substr(0, end_of_name);
    parsed.subkey = subkey;
    parsed.has_subkey = has_subkey;
    const std::size_t value_start =
        colon + 1 < rest.size() && rest[colon + 1] == ' ' ? colon + 2 : colon + 1;
    parsed.value = rest.substr(std::min(value_start, rest.size()));
    return parsed;
}

std::vector<DebugLine> parse_debug_lines(std::span<const std::string_view> lines) {
    std::vector<DebugLine> out;
    out.reserve(lines.size());
    for (auto line : lines) {
        out.push_back(parse_debug_line(line));
    }
    return out;
}

} // namespace cachelens::cachedir
