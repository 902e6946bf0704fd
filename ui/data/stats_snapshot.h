#pragma once

// What the stats view shows, read from the catalog in one go off the GUI
// thread: Catalog::stats for one root or all, and how many entries were last
// written within each age bucket (counted with Catalog::count, since stats
// gives only the oldest and newest per kind).

#include <cachelens/catalog/catalog.h>

#include <QString>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace cachelens::ui {

struct AgeBucket {
    QString label;             // "< 1 day", ..., "older"
    std::uint64_t entries = 0; // last written within it
};

struct StatsSnapshot {
    std::optional<std::filesystem::path> root; // the root asked for; none: every root
    std::vector<catalog::RootStats> roots;
    std::vector<AgeBucket> ages; // youngest first
    std::int64_t now_ns = 0;     // what ages are measured from
};

// The upper edges of the age buckets; a last bucket holds what is older.
inline constexpr std::int64_t kAgeBucketEdgesNs[] = {
    86400LL * 1'000'000'000,      // < 1 day
    7 * 86400LL * 1'000'000'000,  // < 1 week
    30 * 86400LL * 1'000'000'000, // < 1 month
    90 * 86400LL * 1'000'000'000, // < 3 months
};

// Opens the catalog at `catalogPath` (so call it on the job's thread) and
// reads `root`'s stats, or every root's; `largest` entries per root.
Result<StatsSnapshot> loadStatsSnapshot(const std::filesystem::path& catalogPath,
                                        const std::optional<std::filesystem::path>& root,
                                        std::int64_t now_ns, std::size_t largest = 20);

} // namespace cachelens::ui
