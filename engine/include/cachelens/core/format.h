#pragma once

// Sizes, durations and times for people, the same in the CLI and the GUI,
// and the sizes and ages people type (--max-size 2G, --older-than 30d).

#include <cachelens/core/error.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace cachelens {

// "12.3 MiB", "512 B".
std::string format_bytes(std::uint64_t bytes);
// "177 lines, 8.3 KiB": how long a text (source, a graph) is; a last line
// without its newline counts.
std::string format_text_size(std::string_view text);
// "1,203": a count with thousands separated.
std::string format_count(std::uint64_t count);
// "1 artifact", "3 artifacts", "1 entry", "3 entries", "1,203 cache events":
// the count (thousands separated) and `word` in the number it takes, the one
// way both front ends count things. A phrase takes its plural on its last word.
std::string plural(std::size_t count, std::string_view word);
// "entries" for "entry", "bypasses" for "bypass": the regular English plural.
std::string plural_of(std::string_view noun);
// "1.64 s", "820.0 ms", "12.0 us".
std::string format_duration_ns(std::int64_t nanoseconds);
// "3 days ago", "5 min ago", from an mtime in ns since the epoch.
std::string format_age(std::int64_t mtime_ns);
std::string format_age(std::int64_t mtime_ns, std::int64_t now_ns);
// ISO 8601 UTC: "2026-11-22T21:29:00Z".
std::string format_time(std::int64_t mtime_ns);

// "2G", "512M", "10k", "1.5GiB", "1234" (bytes) -> bytes.
Result<std::uint64_t> parse_size(std::string_view text);
// "30d", "12h", "90m", "45s", "2w" -> nanoseconds.
Result<std::int64_t> parse_age(std::string_view text);

} // namespace cachelens
