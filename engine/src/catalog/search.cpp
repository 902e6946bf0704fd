// Catalog::search, count and stats: reading the catalog back.

#include "queries.h"
#include "sqlite.h"

#include <cachelens/catalog/catalog.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace cachelens::catalog {

namespace {

// FTS5 MATCH syntax from what a user types: every word must appear (as a
// prefix), and nothing they type is taken as FTS5 operators or columns.
std::string fts_query(std::string_view text) {
    std::string out;
    std::string word;
    auto flush = [&] {
        if (word.empty()) {
            return;
        }
        if (!out.empty()) {
            out += " AND ";
        }
        out += '"';
        for (char c : word) {
            out += c;
            if (c == '"') {
                out += '"';
            }
        }
        out += "\"*";
        word.clear();
    };
    for (char c : text) {
        // The tokenizer splits on anything but letters and digits; so do we.
        const bool part = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                          (c >= 'A' && c <= 'Z') || (static_cast<unsigned char>(c) >= 0x80);
        if (part) {
            word += c;
        } else {
            flush();
        }
    }
    flush();
    return out;
}

// The entries whose debug lines contain the words: lines by FTS5, then the
// FX entries whose line ids include one of them.
Result<std::vector<std::int64_t>> entries_with_lines(const sql::Database& db,
                                                     const std::string& match) {
    auto lines = sql::Statement::prepare(
        db, "SELECT rowid FROM debug_lines_fts WHERE debug_lines_fts MATCH ?");
    if (!lines) {
        return std::unexpected(lines.error());
    }
    lines->bind(1, match);
    std::unordered_set<std::uint32_t> ids;
    auto done = lines->for_each_row(
        [&](const sql::Statement& row) { ids.insert(static_cast<std::uint32_t>(row.integer(0))); });
    if (!done) {
        return std::unexpected(done.error());
    }
    std::vector<std::int64_t> entries;
    if (ids.empty()) {
        return entries;
    }
    auto fx = sql::Statement::prepare(db, "SELECT entry_id, debug_line_ids FROM fx_entries");
    if (!fx) {
        return std::unexpected(fx.error());
    }
    done = fx->for_each_row([&](const sql::Statement& row) {
        const std::string_view blob = row.blob(1);
        for (std::size_t at = 0; at + 4 <= blob.size(); at += 4) {
            std::uint32_t id;
            std::memcpy(&id, blob.data() + at, 4);
            if (ids.contains(id)) {
                entries.push_back(row.integer(0));
                break;
            }
        }
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    return entries;
}

struct Filter {
    std::string where; // " AND ..." clauses over e (entries), fx, aot, r (roots)
    std::vector<std::string> texts;
    std::vector<std::int64_t> numbers;
    // Bind order: texts then numbers would break positional order, so keep one list.
    std::vector<std::pair<bool, std::size_t>> order; // (is_text, index)

    void text(const std::string& clause, std::string value) {
        where += clause;
        order.emplace_back(true, texts.size());
        texts.push_back(std::move(value));
    }
    void number(const std::string& clause, std::int64_t value) {
        where += clause;
        order.emplace_back(false, numbers.size());
        numbers.push_back(value);
    }
    void bind(sql::Statement& statement, int first) const {
        int index = first;
        for (const auto& [is_text, at] : order) {
            if (is_text) {
                statement.bind(index++, std::string_view(texts[at]));
            } else {
                statement.bind(index++, numbers[at]);
            }
        }
    }
};

// The SQL condition for everything in `query` but its text.
Filter filter_of(const SearchQuery& query) {
    Filter filter;
    if (!query.kinds.empty()) {
        filter.where += " AND e.kind IN (";
        for (std::size_t i = 0; i < query.kinds.size(); ++i) {
            filter.text(i == 0 ? "?" : ", ?", std::string(cachedir::to_string(query.kinds[i])));
        }
        filter.where += ")";
    }
    if (query.root) {
        filter.text(" AND r.location = ?", root_location(*query.root));
    }
    if (query.device) {
        // Exact and case-sensitive, as EntryIndex::select matches it (LIKE is neither).
        filter.text(" AND instr(',' || fx.device_types || ',', ',' || ? || ',') > 0",
                    *query.device);
    }
    if (query.has_guards) {
        filter.where += *query.has_guards
                            ? " AND COALESCE(fx.guards_expr, aot.guards_expr, '') <> ''"
                            : " AND (e.kind IN ('fxgraph', 'aotautograd') AND "
                              "COALESCE(fx.guards_expr, aot.guards_expr, '') = '')";
    }
    if (query.min_size) {
        filter.number(" AND e.size >= ?", static_cast<std::int64_t>(*query.min_size));
    }
    if (query.max_size) {
        filter.number(" AND e.size <= ?", static_cast<std::int64_t>(*query.max_size));
    }
    if (query.modified_after_ns) {
        filter.number(" AND e.mtime_ns >= ?", *query.modified_after_ns);
    }
    if (query.modified_before_ns) {
        filter.number(" AND e.mtime_ns <= ?", *query.modified_before_ns);
    }
    return filter;
}

constexpr const char* kFrom = " FROM entries e JOIN roots r ON r.id = e.root_id"
                              " LEFT JOIN fx_entries fx ON fx.entry_id = e.id"
                              " LEFT JOIN aot_entries aot ON aot.entry_id = e.id";

// The entries the text matches, with where it matched; nullopt when there is no text.
Result<std::optional<std::vector<std::pair<std::int64_t, std::string>>>>
text_matches(const sql::Database& db, const std::string& text) {
    const std::string match = fts_query(text);
    if (match.empty()) {
        return std::optional<std::vector<std::pair<std::int64_t, std::string>>>();
    }
    std::vector<std::pair<std::int64_t, std::string>> matches;
    for (const auto& [column, label] :
         {std::pair{"keys", "key"}, std::pair{"names", "name"}, std::pair{"body", "source"}}) {
        auto statement = sql::Statement::prepare(
            db, std::string("SELECT rowid FROM entry_search WHERE entry_search MATCH ?"));
        if (!statement) {
            return std::unexpected(statement.error());
        }
        statement->bind(1, "{" + std::string(column) + "} : (" + match + ")");
        auto done = statement->for_each_row(
            [&](const sql::Statement& row) { matches.emplace_back(row.integer(0), label); });
        if (!done) {
            return std::unexpected(done.error());
        }
    }
    auto lines = entries_with_lines(db, match);
    if (!lines) {
        return std::unexpected(lines.error());
    }
    for (std::int64_t id : *lines) {
        matches.emplace_back(id, "debug line");
    }
    return std::optional(std::move(matches));
}

// Loads the matched ids into a temporary table the main query joins.
Result<void> fill_match_table(const sql::Database& db,
                              const std::vector<std::pair<std::int64_t, std::string>>& matches) {
    sqlite3* handle = db.handle();
    if (sqlite3_exec(handle,
                     "CREATE TEMP TABLE IF NOT EXISTS search_matches "
                     "(entry_id INTEGER NOT NULL, field TEXT NOT NULL);"
                     "DELETE FROM search_matches;",
                     nullptr, nullptr, nullptr) != SQLITE_OK) {
        return std::unexpected(db.error("cannot make the search table"));
    }
    auto insert = sql::Statement::prepare(db, "INSERT INTO search_matches VALUES (?, ?)");
    if (!insert) {
        return std::unexpected(insert.error());
    }
    for (const auto& [id, field] : matches) {
        insert->bind(1, id).bind(2, field);
        if (auto ok = insert->run(); !ok) {
            return ok;
        }
    }
    return {};
}

} // namespace

namespace {

// Entries of this kind under this key in this root. By the key's index: a key
// has one or a few entries, while entries_by_root_kind, which SQLite picks
// without it (the catalog keeps no ANALYZE statistics), makes every row scan
// all the entries of its kind in its root (67-153 ms a page of 256 rows at
// 100k entries; 2-4 ms by the key).
constexpr const char* kKeyEntries =
    "(SELECT COUNT(*) FROM entries k INDEXED BY entries_by_key WHERE k.key = e.key AND "
    "k.root_id = e.root_id AND k.kind = e.kind)";

const std::string kHitColumns =
    "SELECT e.id, r.location, e.kind, e.key, e.path, e.name, e.size, e.mtime_ns, "
    "e.parse_status, fx.device_types, COALESCE(fx.guards_expr, aot.guards_expr), "
    "e.kind IN ('fxgraph', 'aotautograd'), "
    "COALESCE(fx.time_taken_ns, aot.forward_time_ns + COALESCE(aot.backward_time_ns, 0)), " +
    std::string(kKeyEntries) + ", COALESCE(fx.role, '')";

// The query's order: its column, then root and path, so that the order is
// total (root and path are unique) and pages never overlap. EntryIndex::select
// sorts the same way in memory; the expressions it loads are these.
std::string order_by(const SearchQuery& query) {
    const char* down = query.descending ? " DESC" : " ASC";
    std::string first;
    switch (query.sort) {
    case SortColumn::Location:
        return std::string(" ORDER BY r.location") + down + ", e.kind" + down + ", e.key" + down +
               ", e.path" + down;
    case SortColumn::Kind:
        first = "e.kind";
        break;
    case SortColumn::Key:
        first = "e.key";
        break;
    case SortColumn::KeyEntries:
        first = kKeyEntries;
        break;
    case SortColumn::Size:
        first = "e.size";
        break;
    case SortColumn::Modified:
        first = "e.mtime_ns";
        break;
    case SortColumn::Device:
        first = "COALESCE(fx.device_types, '')";
        break;
    case SortColumn::CompileTime:
        first = "COALESCE(fx.time_taken_ns, aot.forward_time_ns + COALESCE(aot.backward_time_ns, "
                "0), -1)";
        break;
    case SortColumn::Guards:
        first = "(e.kind IN ('fxgraph', 'aotautograd')) + (COALESCE(fx.guards_expr, "
                "aot.guards_expr, '') <> '')";
        break;
    case SortColumn::Role:
        first = "COALESCE(fx.role, '')";
        break;
    }
    return " ORDER BY " + first + down + ", r.location ASC, e.path ASC";
}

SearchHit hit_of(const sql::Statement& statement, bool with_matches) {
    SearchHit hit;
    hit.entry_id = statement.integer(0);
    hit.root = statement.text(1);
    hit.kind = cachedir::file_kind_from_string(statement.text_view(2))
                   .value_or(cachedir::FileKind::Unknown);
    hit.key = statement.text(3);
    hit.path = statement.text(4);
    hit.name = statement.text(5);
    hit.size = static_cast<std::uint64_t>(statement.integer(6));
    hit.mtime_ns = statement.integer(7);
    hit.parse_status = statement.text(8);
    hit.device = statement.text(9);
    if (statement.integer(11) != 0) {
        hit.has_guards = !statement.text_view(10).empty();
    }
    hit.compile_time_ns = statement.optional_integer(12);
    hit.key_entries = static_cast<std::uint32_t>(statement.integer(13));
    hit.role = statement.text(14);
    if (with_matches) {
        std::string_view fields = statement.text_view(15);
        while (!fields.empty()) {
            const auto comma = fields.find(',');
            hit.matched.emplace_back(fields.substr(0, comma));
            fields =
                comma == std::string_view::npos ? std::string_view{} : fields.substr(comma + 1);
        }
    }
    return hit;
}

// The text's matches in the temporary table; false when there is no text.
Result<bool> prepare_matches(const sql::Database& db, const SearchQuery& query) {
    auto matches = text_matches(db, query.text);
    if (!matches) {
        return std::unexpected(matches.error());
    }
    if (!*matches) {
        return false;
    }
    if (auto ok = fill_match_table(db, **matches); !ok) {
        return std::unexpected(ok.error());
    }
    return true;
}

} // namespace

Result<std::vector<SearchHit>> search_entries(const sql::Database& db, const SearchQuery& query) {
    auto has_text = prepare_matches(db, query);
    if (!has_text) {
        return std::unexpected(has_text.error());
    }
    const Filter filter = filter_of(query);
    std::string sql = kHitColumns;
    sql += *has_text ? ", (SELECT group_concat(DISTINCT field) FROM search_matches m "
                       "WHERE m.entry_id = e.id)"
                     : ", NULL";
    sql += kFrom;
    sql += " WHERE 1";
    if (*has_text) {
        sql += " AND e.id IN (SELECT entry_id FROM search_matches)";
    }
    sql += filter.where;
    sql += order_by(query) + " LIMIT ? OFFSET ?";
    auto statement = sql::Statement::prepare(db, sql);
    if (!statement) {
        return std::unexpected(statement.error());
    }
    filter.bind(*statement, 1);
    const int next = 1 + static_cast<int>(filter.order.size());
    statement->bind(next, static_cast<std::int64_t>(query.limit))
        .bind(next + 1, static_cast<std::int64_t>(query.offset));
    std::vector<SearchHit> hits;
    auto done = statement->for_each_row(
        [&](const sql::Statement& row) { hits.push_back(hit_of(row, true)); });
    if (!done) {
        return std::unexpected(done.error());
    }
    return hits;
}

// The ids in the query's order: the entry index does it (entry_index.h).
Result<std::vector<std::int64_t>> search_entry_ids(const sql::Database& db,
                                                   const SearchQuery& query) {
    auto matches = text_match_ids(db, query.text);
    if (!matches) {
        return std::unexpected(matches.error());
    }
    auto index = load_entry_index(db);
    if (!index) {
        return std::unexpected(index.error());
    }
    if (*matches) {
        return index->select(query, std::span<const std::int64_t>(**matches));
    }
    return index->select(query);
}

Result<std::optional<std::vector<std::int64_t>>> text_match_ids(const sql::Database& db,
                                                                std::string_view text) {
    auto matches = text_matches(db, std::string(text));
    if (!matches) {
        return std::unexpected(matches.error());
    }
    if (!*matches) {
        return std::optional<std::vector<std::int64_t>>();
    }
    std::vector<std::int64_t> ids;
    ids.reserve((*matches)->size());
    for (const auto& [id, field] : **matches) {
        ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return std::optional(std::move(ids));
}

Result<std::vector<SearchHit>> entries_with_ids(const sql::Database& db,
                                                std::span<const std::int64_t> ids) {
    std::vector<SearchHit> hits;
    if (ids.empty()) {
        return hits;
    }
    // Integers only: the list is written into the statement.
    std::string sql = kHitColumns + kFrom + " WHERE e.id IN (";
    for (std::size_t i = 0; i < ids.size(); ++i) {
        sql += (i == 0 ? "" : ",") + std::to_string(ids[i]);
    }
    sql += ")";
    auto statement = sql::Statement::prepare(db, sql);
    if (!statement) {
        return std::unexpected(statement.error());
    }
    std::unordered_map<std::int64_t, SearchHit> by_id;
    auto done = statement->for_each_row([&](const sql::Statement& row) {
        SearchHit hit = hit_of(row, false);
        by_id.emplace(hit.entry_id, std::move(hit));
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    for (std::int64_t id : ids) {
        if (auto it = by_id.find(id); it != by_id.end()) {
            hits.push_back(std::move(it->second));
        }
    }
    return hits;
}

Result<std::size_t> count_entries(const sql::Database& db, const SearchQuery& query) {
    auto has_text = prepare_matches(db, query);
    if (!has_text) {
        return std::unexpected(has_text.error());
    }
    const Filter filter = filter_of(query);
    std::string sql = std::string("SELECT COUNT(*)") + kFrom + " WHERE 1";
    if (*has_text) {
        sql += " AND e.id IN (SELECT entry_id FROM search_matches)";
    }
    sql += filter.where;
    auto statement = sql::Statement::prepare(db, sql);
    if (!statement) {
        return std::unexpected(statement.error());
    }
    filter.bind(*statement, 1);
    auto row = statement->step();
    if (!row) {
        return std::unexpected(row.error());
    }
    return static_cast<std::size_t>(statement->integer(0));
}

} // namespace cachelens::catalog
