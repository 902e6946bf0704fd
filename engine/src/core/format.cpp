#include <cachelens/core/format.h>

#include <chrono>
#include <cstdio>
#include <ctime>

namespace cachelens {

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
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    const std::int64_t seconds = now - mtime_ns / 1'000'000'000;
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

} // namespace cachelens
