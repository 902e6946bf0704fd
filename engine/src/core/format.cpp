#include <cachelens/core/format.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace cachelens {

std::string format_count(std::uint64_t count) {
    std::string digits = std::to_string(count);
    for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3) {
        digits.insert(static_cast<std::size_t>(at), ",");
    }
    return digits;
}

std::string plural_of(std::string_view noun) {
    // A phrase ("cache event", "FX graph entry") takes the plural on its last word.
    std::string out(noun);
    const auto vowel = [](char c) {
        return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
    };
    if (out.size() >= 2 && out.back() == 'y' && !vowel(out[out.size() - 2])) {
        out.back() = 'i';
        return out + "es"; // entry -> entries
    }
    if (out.ends_with('s') || out.ends_with('x') || out.ends_with("ch") || out.ends_with("sh")) {
        return out + "es"; // bypass -> bypasses, match -> matches
    }
    return out + "s";
}

std::string plural(std::size_t count, std::string_view word) {
    return format_count(count) + " " + (count == 1 ? std::string(word) : plural_of(word));
}

std::string format_text_size(std::string_view text) {
    std::size_t lines = 0;
    for (char c : text) {
        lines += c == '\n' ? 1 : 0;
    }
    if (!text.empty() && text.back() != '\n') {
        ++lines;
    }
    return std::to_string(lines) + " lines, " + format_bytes(text.size());
}

std::string format_bytes(std::uint64_t bytes) {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    char buffer[32];
    if (unit == 0) {
        std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
    } else {
        std::snprintf(buffer, sizeof buffer, "%.1f %s", value, kUnits[unit]);
    }
    return buffer;
}

std::string format_duration_ns(std::int64_t ns) {
    char buffer[32];
    const double value = static_cast<double>(ns);
    if (ns >= 1'000'000'000) {
        std::snprintf(buffer, sizeof buffer, "%.2f s", value / 1e9);
    } else if (ns >= 1'000'000) {
        std::snprintf(buffer, sizeof buffer, "%.1f ms", value / 1e6);
    } else {
        std::snprintf(buffer, sizeof buffer, "%.1f us", value / 1e3);
    }
    return buffer;
}

std::string format_age(std::int64_t mtime_ns) {
    return format_age(mtime_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count());
}

std::string format_age(std::int64_t mtime_ns, std::int64_t now_ns) {
    const std::int64_t seconds = now_ns / 1'000'000'000 - mtime_ns / 1'000'000'000;
    if (seconds < 0) {
        return "in the future";
    }
    if (seconds < 120) {
        return std::to_string(seconds) + " s ago";
    }
    if (seconds < 7200) {
        return std::to_string(seconds / 60) + " min ago";
    }
    if (seconds < 172800) {
        return std::to_string(seconds / 3600) + " h ago";
    }
    return std::to_string(seconds / 86400) + " days ago";
}

std::string format_time(std::int64_t mtime_ns) {
    const std::time_t seconds = static_cast<std::time_t>(mtime_ns / 1'000'000'000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buffer;
}

namespace {

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

// A number and what follows it.
Result<std::pair<double, std::string_view>> number_and_unit(std::string_view text,
                                                            std::string_view what) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || value < 0 || end == text.data()) {
        return fail(ErrorKind::InvalidArgument,
                    "'" + std::string(text) + "' is not a " + std::string(what));
    }
    return std::pair{value, std::string_view(end, text.data() + text.size() - end)};
}

} // namespace

Result<std::uint64_t> parse_size(std::string_view text) {
    text = trimmed(text);
    auto parsed = number_and_unit(text, "size (like 2G, 512M, 100k)");
    if (!parsed) {
        return std::unexpected(parsed.error());
    }
    auto [value, unit] = *parsed;
    if (unit.ends_with("iB") || unit.ends_with("ib")) {
        unit.remove_suffix(2);
    } else if (unit.ends_with('B') || unit.ends_with('b')) {
        unit.remove_suffix(1);
    }
    double scale = 1;
    if (unit == "k" || unit == "K") {
        scale = 1024.0;
    } else if (unit == "M" || unit == "m") {
        scale = 1024.0 * 1024;
    } else if (unit == "G" || unit == "g") {
        scale = 1024.0 * 1024 * 1024;
    } else if (unit == "T" || unit == "t") {
        scale = 1024.0 * 1024 * 1024 * 1024;
    } else if (!unit.empty()) {
        return fail(ErrorKind::InvalidArgument,
                    "unknown size unit in '" + std::string(text) + "' (use k, M, G or T)");
    }
    return static_cast<std::uint64_t>(value * scale);
}

Result<std::int64_t> parse_age(std::string_view text) {
    text = trimmed(text);
    auto parsed = number_and_unit(text, "duration (like 30d, 12h, 90m)");
    if (!parsed) {
        return std::unexpected(parsed.error());
    }
    const auto [value, unit] = *parsed;
    double seconds = 0;
    if (unit == "s") {
        seconds = 1;
    } else if (unit == "m" || unit == "min") {
        seconds = 60;
    } else if (unit == "h") {
        seconds = 3600;
    } else if (unit == "d") {
        seconds = 86400;
    } else if (unit == "w") {
        seconds = 7 * 86400;
    } else {
        return fail(ErrorKind::InvalidArgument,
                    "'" + std::string(text) + "' needs a unit: s, m, h, d or w");
    }
    return static_cast<std::int64_t>(value * seconds * 1e9);
}

} // namespace cachelens
