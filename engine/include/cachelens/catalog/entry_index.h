#pragma once

// Every entry's filter and sort fields, in memory: what a view needs to
// filter and sort a whole catalog again as the user types or clicks a
// column, in milliseconds and without a query. SQL sorts 100k rows in
// 100-150 ms (records with long paths, compared field by field); here every
// text that sorts is ranked once when the index loads, so a sort compares
// integers. It is a snapshot: load it again after an index or a prune.
//
// select() follows search()'s filters and order (order_terms() in
// search.cpp) row for row; tst_catalog checks the two agree.

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/error.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cachelens::catalog {

namespace sql {
class Database;
}

class EntryIndex {
public:
    // Catalog::load_index() makes one.
    std::size_t size() const { return rows_.size(); }

    // The ids of the entries `query` selects, in its order. Its text is not
    // looked at: `text_matches` (from Catalog::text_match_ids, ascending)
    // narrows the result to those ids when given. Limit and offset are ignored.
    std::vector<std::int64_t>
    select(const SearchQuery& query,
           std::optional<std::span<const std::int64_t>> text_matches = std::nullopt) const;

private:
    struct Row {
        std::int64_t id = 0;
        std::int64_t size = 0;
        std::int64_t mtime_ns = 0;
        std::int64_t compile_time_ns = -1; // -1: none, as search() sorts it
        std::uint32_t root = 0;            // rank of the root's location
        std::uint32_t kind_rank = 0;       // rank of the kind's name
        std::uint32_t key_rank = 0;        // equal keys, equal ranks
        std::uint32_t device = 0;          // index into devices_ (ranked)
        std::uint32_t role = 0;            // rank of the FX graph's role ('' first)
        std::uint32_t key_entries = 1;     // entries of this kind under this key in this root
        std::uint32_t path_rank = 0;       // by (root, path): unique
        std::uint32_t location_rank = 0;   // by (root, kind, key, path): unique
        cachedir::FileKind kind = cachedir::FileKind::Unknown;
        std::uint8_t guards = 0; // 0: no guards possible, 1: FX/AOT without, 2: with
        bool fx = false;         // an FX entry: the device filter applies
    };

    friend Result<EntryIndex> load_entry_index(const sql::Database& db);

    std::vector<Row> rows_;            // ascending ids
    std::vector<std::string> roots_;   // locations, by rank
    std::vector<std::string> devices_; // distinct device_types texts, sorted
};

} // namespace cachelens::catalog
