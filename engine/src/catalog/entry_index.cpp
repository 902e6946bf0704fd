#include "queries.h"
#include "sqlite.h"

#include <cachelens/catalog/entry_index.h>

#include <algorithm>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace cachelens::catalog {

namespace {

bool device_matches(const std::string& device_types, const std::string& device) {
    return ("," + device_types + ",").find("," + device + ",") != std::string::npos;
}

// Ranks of a few distinct texts (kinds, device lists), in byte order as
// SQLite's BINARY collation sorts them: ids in order of first appearance in,
// ranks out.
std::vector<std::uint32_t> ranks_of(const std::unordered_map<std::string, std::uint32_t>& ids,
                                    std::vector<std::string>* sorted = nullptr) {
    std::vector<std::pair<std::string, std::uint32_t>> texts(ids.begin(), ids.end());
    std::sort(texts.begin(), texts.end());
    std::vector<std::uint32_t> rank(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        rank[texts[i].second] = static_cast<std::uint32_t>(i);
        if (sorted != nullptr) {
            sorted->push_back(std::move(texts[i].first));
        }
    }
    return rank;
}

std::uint32_t id_of(std::unordered_map<std::string, std::uint32_t>& ids, std::string_view text) {
    return ids.try_emplace(std::string(text), static_cast<std::uint32_t>(ids.size())).first->second;
}

} // namespace

// The orders by key and by (root, path) come from SQLite's indexes over
// those columns (covering scans, already sorted): sorting 100k keys and
// paths here took most of the load (memcmp of long, similar texts).
Result<EntryIndex> load_entry_index(const sql::Database& db) {
    // One read transaction: the queries below see one state of the catalog,
    // whatever an indexer commits meanwhile (WAL).
    if (sqlite3_exec(db.handle(), "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) {
        return std::unexpected(db.error("cannot begin reading the entries"));
    }
    struct EndRead {
        sqlite3* handle;
        ~EndRead() { sqlite3_exec(handle, "COMMIT", nullptr, nullptr, nullptr); }
    } end_read{db.handle()};
    EntryIndex index;
    auto& rows = index.rows_;
    std::unordered_map<std::int64_t, std::uint32_t> root_rank;
    {
        auto roots =
            sql::Statement::prepare(db, "SELECT id, location FROM roots ORDER BY location");
        if (!roots) {
            return std::unexpected(roots.error());
        }
        auto done = roots->for_each_row([&](const sql::Statement& row) {
            root_rank.emplace(row.integer(0), static_cast<std::uint32_t>(index.roots_.size()));
            index.roots_.push_back(row.text(1));
        });
        if (!done) {
            return std::unexpected(done.error());
        }
    }
    // The same expressions as search()'s filters and order terms.
    auto fields = sql::Statement::prepare(
        db, "SELECT e.id, e.root_id, e.kind, e.size, e.mtime_ns, "
            "fx.device_types IS NOT NULL, COALESCE(fx.device_types, ''), "
            "COALESCE(fx.time_taken_ns, aot.forward_time_ns + COALESCE(aot.backward_time_ns, 0), "
            "-1), (e.kind IN ('fxgraph', 'aotautograd')) + (COALESCE(fx.guards_expr, "
            "aot.guards_expr, '') <> ''), COALESCE(fx.role, '') "
            "FROM entries e LEFT JOIN fx_entries fx ON fx.entry_id = e.id "
            "LEFT JOIN aot_entries aot ON aot.entry_id = e.id ORDER BY e.id");
    if (!fields) {
        return std::unexpected(fields.error());
    }
    std::unordered_map<std::string, std::uint32_t> kind_ids, device_ids, role_ids;
    auto done = fields->for_each_row([&](const sql::Statement& row) {
        EntryIndex::Row entry;
        entry.id = row.integer(0);
        entry.root = root_rank[row.integer(1)];
        const std::string_view kind = row.text_view(2);
        entry.kind = cachedir::file_kind_from_string(kind).value_or(cachedir::FileKind::Unknown);
        entry.kind_rank = id_of(kind_ids, kind);
        entry.size = row.integer(3);
        entry.mtime_ns = row.integer(4);
        entry.fx = row.integer(5) != 0;
        entry.device = id_of(device_ids, row.text_view(6));
        entry.compile_time_ns = row.integer(7);
        entry.guards = static_cast<std::uint8_t>(row.integer(8));
        entry.role = id_of(role_ids, row.text_view(9));
        rows.push_back(entry);
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    const auto kind_rank = ranks_of(kind_ids);
    const auto device_rank = ranks_of(device_ids, &index.devices_);
    const auto role_rank = ranks_of(role_ids);
    for (auto& row : rows) {
        row.kind_rank = kind_rank[row.kind_rank];
        row.device = device_rank[row.device];
        row.role = role_rank[row.role];
    }

    // Row by id: ids are the table's rowids, dense unless many rows were
    // deleted; a binary search per row cost more than all the queries.
    const std::int64_t first_id = rows.empty() ? 0 : rows.front().id;
    const std::int64_t id_span = rows.empty() ? 0 : rows.back().id - first_id + 1;
    std::vector<std::uint32_t> dense;
    constexpr std::uint32_t kNone = ~0u;
    if (id_span <= static_cast<std::int64_t>(rows.size()) * 4 + 1024) {
        dense.assign(static_cast<std::size_t>(id_span), kNone);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            dense[static_cast<std::size_t>(rows[i].id - first_id)] = static_cast<std::uint32_t>(i);
        }
    }
    auto row_of = [&](std::int64_t id) -> EntryIndex::Row* {
        if (!dense.empty()) {
            const std::int64_t at = id - first_id;
            if (at < 0 || at >= id_span || dense[static_cast<std::size_t>(at)] == kNone) {
                return nullptr;
            }
            return &rows[dense[static_cast<std::size_t>(at)]];
        }
        auto it = std::lower_bound(
            rows.begin(), rows.end(), id,
            [](const EntryIndex::Row& row, std::int64_t wanted) { return row.id < wanted; });
        return it != rows.end() && it->id == id ? &*it : nullptr;
    };

    // Keys in order: equal keys come together, and so do the entries of a
    // kind under a key in a root, counted as each key ends.
    auto by_key = sql::Statement::prepare(
        db, "SELECT e.key, e.id FROM entries e INDEXED BY entries_by_key ORDER BY e.key");
    if (!by_key) {
        return std::unexpected(by_key.error());
    }
    std::string previous_key;
    std::uint32_t key_rank = 0;
    std::vector<EntryIndex::Row*> same_key;
    auto count_same_key = [&same_key] {
        std::sort(same_key.begin(), same_key.end(), [](const auto* a, const auto* b) {
            return std::tie(a->root, a->kind_rank) < std::tie(b->root, b->kind_rank);
        });
        for (std::size_t begin = 0; begin < same_key.size();) {
            std::size_t end = begin + 1;
            while (end < same_key.size() && same_key[end]->root == same_key[begin]->root &&
                   same_key[end]->kind_rank == same_key[begin]->kind_rank) {
                ++end;
            }
            for (std::size_t i = begin; i < end; ++i) {
                same_key[i]->key_entries = static_cast<std::uint32_t>(end - begin);
            }
            begin = end;
        }
        same_key.clear();
    };
    done = by_key->for_each_row([&](const sql::Statement& row) {
        const std::string_view key = row.text_view(0);
        if (!same_key.empty() && key != previous_key) {
            count_same_key();
            ++key_rank;
        }
        previous_key = key;
        if (auto* entry = row_of(row.integer(1))) {
            entry->key_rank = key_rank;
            same_key.push_back(entry);
        }
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    count_same_key();
    // By (root id, path) from the UNIQUE index, then roots in location order.
    auto by_path =
        sql::Statement::prepare(db, "SELECT e.id FROM entries e ORDER BY e.root_id, e.path");
    if (!by_path) {
        return std::unexpected(by_path.error());
    }
    std::vector<std::vector<EntryIndex::Row*>> per_root(index.roots_.size());
    done = by_path->for_each_row([&](const sql::Statement& row) {
        if (auto* entry = row_of(row.integer(0))) {
            per_root[entry->root].push_back(entry);
        }
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    std::uint32_t path_rank = 0;
    for (const auto& in_root : per_root) {
        for (auto* entry : in_root) {
            entry->path_rank = path_rank++;
        }
    }

    std::vector<std::uint32_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0u);
    // The Location order: (root, kind, key, path), all integers by now.
    std::sort(order.begin(), order.end(), [&rows](std::uint32_t a, std::uint32_t b) {
        const auto& x = rows[a];
        const auto& y = rows[b];
        return std::tie(x.root, x.kind_rank, x.key_rank, x.path_rank) <
               std::tie(y.root, y.kind_rank, y.key_rank, y.path_rank);
    });
    for (std::size_t i = 0; i < order.size(); ++i) {
        rows[order[i]].location_rank = static_cast<std::uint32_t>(i);
    }
    return index;
}

std::vector<std::int64_t>
EntryIndex::select(const SearchQuery& query,
                   std::optional<std::span<const std::int64_t>> text_matches) const {
    std::optional<std::uint32_t> root;
    if (query.root) {
        const auto location = root_location(*query.root);
        const auto found = std::find(roots_.begin(), roots_.end(), location);
        if (found == roots_.end()) {
            return {};
        }
        root = static_cast<std::uint32_t>(found - roots_.begin());
    }
    std::vector<bool> device_ok;
    if (query.device) {
        for (const auto& types : devices_) {
            device_ok.push_back(device_matches(types, *query.device));
        }
    }
    auto wanted = [&](const Row& row) {
        return (query.kinds.empty() ||
                std::find(query.kinds.begin(), query.kinds.end(), row.kind) != query.kinds.end()) &&
               (!root || row.root == *root) &&
               (!query.device || (row.fx && device_ok[row.device])) &&
               (!query.has_guards || row.guards == (*query.has_guards ? 2 : 1)) &&
               (!query.min_size || static_cast<std::uint64_t>(row.size) >= *query.min_size) &&
               (!query.max_size || static_cast<std::uint64_t>(row.size) <= *query.max_size) &&
               (!query.modified_after_ns || row.mtime_ns >= *query.modified_after_ns) &&
               (!query.modified_before_ns || row.mtime_ns <= *query.modified_before_ns);
    };

    std::vector<const Row*> selected;
    if (text_matches) {
        // Both ascending: one merge.
        auto match = text_matches->begin();
        for (const Row& row : rows_) {
            while (match != text_matches->end() && *match < row.id) {
                ++match;
            }
            if (match == text_matches->end()) {
                break;
            }
            if (*match == row.id && wanted(row)) {
                selected.push_back(&row);
            }
        }
    } else {
        selected.reserve(rows_.size());
        for (const Row& row : rows_) {
            if (wanted(row)) {
                selected.push_back(&row);
            }
        }
    }

    // The first term, then (root, path) ascending: order_terms() in search.cpp.
    auto by = [&](auto value) {
        const bool down = query.descending;
        std::sort(selected.begin(), selected.end(), [&](const Row* a, const Row* b) {
            const auto x = value(*a);
            const auto y = value(*b);
            if (x != y) {
                return down ? x > y : x < y;
            }
            return a->path_rank < b->path_rank;
        });
    };
    switch (query.sort) {
    case SortColumn::Location:
        std::sort(selected.begin(), selected.end(), [&](const Row* a, const Row* b) {
            return query.descending ? a->location_rank > b->location_rank
                                    : a->location_rank < b->location_rank;
        });
        break;
    case SortColumn::Kind:
        by([](const Row& row) { return row.kind_rank; });
        break;
    case SortColumn::Key:
        by([](const Row& row) { return row.key_rank; });
        break;
    case SortColumn::KeyEntries:
        by([](const Row& row) { return row.key_entries; });
        break;
    case SortColumn::Size:
        by([](const Row& row) { return row.size; });
        break;
    case SortColumn::Modified:
        by([](const Row& row) { return row.mtime_ns; });
        break;
    case SortColumn::Device:
        by([](const Row& row) { return row.device; });
        break;
    case SortColumn::CompileTime:
        by([](const Row& row) { return row.compile_time_ns; });
        break;
    case SortColumn::Guards:
        by([](const Row& row) { return row.guards; });
        break;
    case SortColumn::Role:
        by([](const Row& row) { return row.role; });
        break;
    }
    std::vector<std::int64_t> ids;
    ids.reserve(selected.size());
    for (const Row* row : selected) {
        ids.push_back(row->id);
    }
    return ids;
}

} // namespace cachelens::catalog
