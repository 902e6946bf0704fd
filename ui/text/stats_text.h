#pragma once

// Sizes, ages and durations as the stats view and the prune dialog show them,
// and the limits typed into the prune dialog: QString faces over the engine's
// core/format.h, which the CLI uses too, so both say and read the same.

#include <cachelens/catalog/prune.h>
#include <cachelens/core/error.h>

#include <QString>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace cachelens::ui::stats_text {

// "12.3 MiB", "512 B".
QString bytes(std::uint64_t count);
// "1.64 s", "820 ms", "12.0 us"; "10 min", "3 h", "2 days" from a whole
// number of minutes up (for keep-recent and older-than limits).
QString duration(std::int64_t nanoseconds);
// "3 days ago", "5 min ago": how long before `now_ns` `mtime_ns` was.
QString age(std::int64_t mtime_ns, std::int64_t now_ns);
// Local date and time, to the second.
QString time(std::int64_t mtime_ns);
// Now, in ns since the epoch.
std::int64_t nowNs();

// "2G", "512M", "10k", "1.5GiB", "1234" (bytes) -> bytes.
Result<std::uint64_t> parseSize(const QString& text);
// "30d", "12h", "90m", "45s", "2w" -> nanoseconds.
Result<std::int64_t> parseAge(const QString& text);
// The prune dialog's inputs: an absent or blank limit is no limit, but one
// of max size and older-than is needed.
Result<catalog::PruneOptions> pruneOptions(const std::optional<QString>& maxSize,
                                           const std::optional<QString>& olderThan,
                                           const QString& keepRecent);

} // namespace cachelens::ui::stats_text
