#include "data/stats_snapshot.h"

#include <array>

namespace cachelens::ui {

Result<StatsSnapshot> loadStatsSnapshot(const std::filesystem::path& catalogPath,
                                        const std::optional<std::filesystem::path>& root,
                                        std::int64_t now_ns, std::size_t largest) {
    auto catalog = catalog::Catalog::open(catalogPath);
    if (!catalog) {
        return std::unexpected(catalog.error());
    }
    StatsSnapshot snapshot;
    snapshot.root = root;
    snapshot.now_ns = now_ns;
    auto stats = catalog->stats(root, largest);
    if (!stats) {
        return std::unexpected(stats.error());
    }
    snapshot.roots = std::move(*stats);

    static const std::array<const char*, 5> kLabels = {"< 1 day", "< 1 week", "< 1 month",
                                                       "< 3 months", "older"};
    // Bucket i holds ages in [edge[i-1], edge[i]): mtimes in (now - edge[i], now - edge[i-1]].
    // The first also holds mtimes in the future (clock skew), the last everything older.
    constexpr std::size_t kEdges = std::size(kAgeBucketEdgesNs);
    for (std::size_t i = 0; i <= kEdges; ++i) {
        catalog::SearchQuery query;
        if (root) {
            query.root = root->string();
        }
        if (i < kEdges) {
            query.modified_after_ns = now_ns - kAgeBucketEdgesNs[i] + 1;
        }
        if (i > 0) {
            query.modified_before_ns = now_ns - kAgeBucketEdgesNs[i - 1];
        }
        auto count = catalog->count(query);
        if (!count) {
            return std::unexpected(count.error());
        }
        snapshot.ages.push_back(
            AgeBucket{QString::fromLatin1(kLabels[i]), static_cast<std::uint64_t>(*count)});
    }
    return snapshot;
}

} // namespace cachelens::ui
