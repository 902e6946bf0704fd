#include <cachelens/core/text.h>

#include <algorithm>
#include <cstring>

namespace cachelens {

bool is_ascii(std::string_view bytes) {
    const char* p = bytes.data();
    std::size_t n = bytes.size();
    while (n >= 8) {
        std::uint64_t word;
        std::memcpy(&word, p, 8);
        if ((word & 0x8080808080808080ull) != 0) {
            return false;
        }
        p += 8;
        n -= 8;
    }
    while (n-- > 0) {
        if ((static_cast<unsigned char>(*p++) & 0x80) != 0) {
            return false;
        }
    }
    return true;
}

std::string_view trim_space(std::string_view text) {
    constexpr std::string_view kSpace = " \t\r\n\f\v";
    const std::size_t first = text.find_first_not_of(kSpace);
    if (first == std::string_view::npos) {
        return {};
    }
    return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

std::string join(std::span<const std::string> items, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            out += separator;
        }
        out += items[i];
    }
    return out;
}

std::string one_line(std::string_view text) {
    text = trim_space(text);
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v') {
            out += c;
            ++i;
            continue;
        }
        bool line_break = false;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' ||
                                   text[i] == '\n' || text[i] == '\f' || text[i] == '\v')) {
            line_break = line_break || text[i] == '\n' || text[i] == '\r';
            ++i;
        }
        out += line_break ? " / " : std::string(1, c == '\t' ? ' ' : c);
    }
    return out;
}

std::string last_lines(std::string_view text, std::size_t lines) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.remove_suffix(1);
    }
    std::size_t start = text.size();
    for (std::size_t i = 0; i < lines && start > 0; ++i) {
        start = text.rfind('\n', start - 1);
        if (start == std::string_view::npos) {
            start = 0;
            break;
        }
    }
    const std::string_view kept = text.substr(start);
    return std::string(kept.starts_with('\n') ? kept.substr(1) : kept);
}

namespace {

// One UTF-8 sequence at `p` (before `end`) as is_valid_utf8 accepts it: its
// code point and length, or length 0 when the bytes there are not one.
struct Utf8Sequence {
    std::uint32_t code_point = 0;
    int length = 0;
};

Utf8Sequence decode_utf8(const unsigned char* p, const unsigned char* end) {
    const unsigned char c = *p;
    if (c < 0x80) {
        return {c, 1};
    }
    int extra = 0;
    std::uint32_t cp = 0;
    std::uint32_t min = 0;
    if ((c & 0xe0) == 0xc0) {
        extra = 1;
        cp = c & 0x1f;
        min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        extra = 2;
        cp = c & 0x0f;
        min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        extra = 3;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return {};
    }
    if (end - p <= extra) {
        return {};
    }
    for (int i = 1; i <= extra; ++i) {
        if ((p[i] & 0xc0) != 0x80) {
            return {};
        }
        cp = (cp << 6) | (p[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff) {
        return {};
    }
    return {cp, extra + 1};
}

} // namespace

bool is_valid_utf8(std::string_view bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const auto* end = p + bytes.size();
    while (p < end) {
        // Skip ASCII eight bytes at a time: most of what we check is ASCII.
        while (end - p >= 8) {
            std::uint64_t word;
            std::memcpy(&word, p, 8);
            if ((word & 0x8080808080808080ull) != 0) {
                break;
            }
            p += 8;
        }
        if (p >= end) {
            break;
        }
        const int length = decode_utf8(p, end).length;
        if (length == 0) {
            return false;
        }
        p += length;
    }
    return true;
}

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

namespace {

// Code points that are valid UTF-8 but move the cursor, break the line or
// reorder what a terminal shows (Trojan Source, CVE-2021-42574).
bool is_terminal_hazard(std::uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9f) ||                   // C1 controls
           (cp >= 0xd800 && cp <= 0xdfff) ||               // surrogates (Python's surrogatepass)
           cp == 0x061c || cp == 0x200e || cp == 0x200f || // bidi marks
           cp == 0x2028 || cp == 0x2029 ||                 // line and paragraph separators
           (cp >= 0x202a && cp <= 0x202e) ||               // bidi embeddings and overrides
           (cp >= 0x2066 && cp <= 0x2069);                 // bidi isolates
}

void append_hex(std::string& out, std::uint32_t value, int digits) {
    static constexpr char kDigits[] = "0123456789abcdef";
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
        out += kDigits[(value >> shift) & 0xf];
    }
}

} // namespace

void append_escaped_for_terminal(std::string& out, std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        // Copy the run of printable ASCII, \n and \t at once.
        const auto* run = p;
        while (run < end && ((*run >= 0x20 && *run < 0x7f) || *run == '\n' || *run == '\t')) {
            ++run;
        }
        out.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(run - p));
        p = run;
        if (p >= end) {
            break;
        }
        const Utf8Sequence sequence = decode_utf8(p, end);
        if (sequence.length == 0 || sequence.code_point < 0x80) {
            if (*p == '\r') {
                out += "\\r";
            } else {
                out += "\\x";
                append_hex(out, *p, 2);
            }
            ++p;
        } else if (is_terminal_hazard(sequence.code_point)) {
            out += "\\u";
            append_hex(out, sequence.code_point, 4);
            p += sequence.length;
        } else {
            out.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sequence.length));
            p += sequence.length;
        }
    }
}

std::string escape_for_terminal(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    append_escaped_for_terminal(out, text);
    return out;
}

std::size_t incomplete_utf8_tail(std::string_view text) {
    const std::size_t last = std::min<std::size_t>(3, text.size());
    for (std::size_t k = 1; k <= last; ++k) {
        const auto c = static_cast<unsigned char>(text[text.size() - k]);
        if ((c & 0xc0) == 0x80) {
            continue; // a continuation byte: its lead is further back
        }
        const std::size_t needed = (c & 0xe0) == 0xc0   ? 2
                                   : (c & 0xf0) == 0xe0 ? 3
                                   : (c & 0xf8) == 0xf0 ? 4
                                                        : 0;
        return needed > k ? k : 0;
    }
    return 0;
}

std::string shell_quote(std::string_view word) {
    const bool plain = !word.empty() && std::ranges::all_of(word, [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("/._-+=:,@%").find(c) != std::string_view::npos;
    });
    if (plain) {
        return std::string(word);
    }
    std::string out = "'";
    for (const char c : word) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    const char lower = static_cast<char>(c | 0x20);
    if (lower >= 'a' && lower <= 'f') {
        return lower - 'a' + 10;
    }
    return -1;
}

namespace {

// Reads exactly `digits` hex digits at `text[pos]`; -1 when malformed.
long long read_hex(std::string_view text, std::size_t pos, int digits) {
    if (pos + static_cast<std::size_t>(digits) > text.size()) {
        return -1;
    }
    long long value = 0;
    for (int i = 0; i < digits; ++i) {
        const int h = hex_digit_value(text[pos + static_cast<std::size_t>(i)]);
        if (h < 0) {
            return -1;
        }
        value = value * 16 + h;
    }
    return value;
}

} // namespace

std::expected<std::string, std::string> decode_python_escapes(std::string_view body,
                                                              EscapeMode mode) {
    std::string out;
    out.reserve(body.size());
    for (std::size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i + 1 >= body.size()) {
            return std::unexpected("a trailing backslash ends the string");
        }
        const char e = body[++i];
        switch (e) {
        case '\n':
            break; // line continuation
        case '\\':
        case '\'':
        case '"':
            out += e;
            break;
        case 'a':
            out += '\a';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case 'v':
            out += '\v';
            break;
        case 'x': {
            const long long v = read_hex(body, i + 1, 2);
            if (v < 0) {
                return std::unexpected("invalid \\x escape at position " + std::to_string(i - 1));
            }
            i += 2;
            if (mode == EscapeMode::Bytes) {
                out += static_cast<char>(v);
            } else {
                append_utf8(out, static_cast<std::uint32_t>(v));
            }
            break;
        }
        case 'u':
        case 'U': {
            if (mode == EscapeMode::Bytes) {
                out += '\\';
                out += e;
                break;
            }
            const int digits = e == 'u' ? 4 : 8;
            const long long v = read_hex(body, i + 1, digits);
            if (v < 0 || v > 0x10ffff) {
                return std::unexpected(std::string("invalid \\") + e + " escape at position " +
                                       std::to_string(i - 1));
            }
            i += static_cast<std::size_t>(digits);
            append_utf8(out, static_cast<std::uint32_t>(v));
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                unsigned v = static_cast<unsigned>(e - '0');
                for (int k = 0;
                     k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7';
                     ++k) {
                    v = v * 8 + static_cast<unsigned>(body[++i] - '0');
                }
                if (mode == EscapeMode::Bytes) {
                    out += static_cast<char>(v & 0xff);
                } else {
                    append_utf8(out, v);
                }
            } else {
                out += '\\';
                out += e;
            }
        }
    }
    return out;
}

std::expected<std::string, std::string> decode_raw_unicode_escape(std::string_view raw) {
    std::string out;
    out.reserve(raw.size());
    std::size_t i = 0;
    while (i < raw.size()) {
        if (raw[i] != '\\') {
            append_utf8(out, static_cast<unsigned char>(raw[i])); // Latin-1
            ++i;
            continue;
        }
        std::size_t run = 0;
        while (i + run < raw.size() && raw[i + run] == '\\') {
            ++run;
        }
        const std::size_t after = i + run;
        const bool escape =
            run % 2 == 1 && after < raw.size() && (raw[after] == 'u' || raw[after] == 'U');
        out.append(escape ? run - 1 : run, '\\');
        i = after;
        if (!escape) {
            continue;
        }
        const int digits = raw[after] == 'u' ? 4 : 8;
        const long long v = read_hex(raw, after + 1, digits);
        if (v < 0 || v > 0x10ffff) {
            return std::unexpected("malformed \\" + std::string(1, raw[after]) +
                                   " escape at position " + std::to_string(after - 1));
        }
        append_utf8(out, static_cast<std::uint32_t>(v));
        i = after + 1 + static_cast<std::size_t>(digits);
    }
    return out;
}

} // namespace cachelens
