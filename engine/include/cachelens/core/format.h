#pragma once

// Sizes, durations and times for people, the same in the CLI and the GUI.

#include <cstdint>
#include <string>

namespace cachelens {

// "12.3 MiB", "512 B".
std::string format_bytes(std::uint64_t bytes);
// "1.64 s", "820.0 ms", "12.0 us".
std::string format_duration_ns(std::int64_t nanoseconds);
// "3 days ago", "5 min ago", from an mtime in ns since the epoch.
std::string format_age(std::int64_t mtime_ns);
// ISO 8601 UTC: "2026-11-22T21:29:00Z".
std::string format_time(std::int64_t mtime_ns);

} // namespace cachelens
