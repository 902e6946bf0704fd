// Catalog::search, count and stats: reading the catalog back.

#include "entry_rows.h"
#include "line_ids.h"
#include "queries.h"
#include "sqlite.h"

#include <cachelens/catalog/catalog.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace cachelens::catalog {

namespace {

// FTS5 MATCH syntax from what a user types: every word must appear, a word
// being what stands between spaces. The tokenizer splits on anything but
// letters and digits, and so does this, but the parts of one word stay
// together as a phrase whose last part is a prefix: `triton_poi` finds
// triton_poi_fused_add_0, not every source that says "triton" somewhere and
// "point" somewhere else. Nothing typed is taken as FTS5 operators or columns.
std::string fts_query(std::string_view text) {
    std::string out;
    std::string phrase;
    std::size_t parts = 0;
    bool in_part = false;
    auto flush = [&] {
        if (parts != 0) {
            out += out.empty() ? "\"" : " AND \"";
            out += phrase;
            out += "\"*";
        }
        phrase.clear();
        parts = 0;
        in_part = false;
    };
    for (char c : text) {
        const bool part = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                          (c >= 'A' && c <= 'Z') || (static_cast<unsigned char>(c) >= 0x80);
        if (part) {
            if (!in_part && parts != 0) {
                phrase += ' ';
            }
            if (!in_part) {
                ++parts;
            }
            phrase += c;
            in_part = true;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            flush();
        } else {
            in_part = false;
        }
    }
    flush();
    return out;
}

// Which of a set of debug-line ids a blob's ids hit. Ids are small (one per
// distinct line, in insertion order), so a bitmap of the largest matched one
// answers each of the millions of ids read in a lookup: a hash set made the
// scan of every FX entry's line ids several times slower.
class LineIdSet {
public:
    explicit LineIdSet(std::vector<std::uint32_t> ids)
        : sorted_(std::move(ids)) {
        std::sort(sorted_.begin(), sorted_.end());
        if (!sorted_.empty() && sorted_.back() < kMostBits) {
            bits_.assign(sorted_.back() + 1, false);
            for (std::uint32_t id : sorted_) {
                bits_[id] = true;
            }
        }
    }
    bool empty() const { return sorted_.empty(); }
    bool contains(std::uint32_t id) const {
        if (!bits_.empty()) {
            return id < bits_.size() && bits_[id];
        }
        return std::binary_search(sorted_.begin(), sorted_.end(), id);
    }

private:
    static constexpr std::uint32_t kMostBits = 1u << 24;
    std::vector<std::uint32_t> sorted_;
    std::vector<bool> bits_;
};

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
    std::vector<std::uint32_t> line_ids;
    auto done = lines->for_each_row([&](const sql::Statement& row) {
        line_ids.push_back(static_cast<std::uint32_t>(row.integer(0)));
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    std::vector<std::int64_t> entries;
    const LineIdSet ids(std::move(line_ids));
    if (ids.empty()) {
        return entries;
    }
    auto fx = sql::Statement::prepare(db, "SELECT entry_id, line_ids FROM fx_debug_lines");
    if (!fx) {
        return std::unexpected(fx.error());
    }
    bool damaged = false;
    done = fx->for_each_row([&](const sql::Statement& row) {
        bool found = false;
        damaged |= !for_each_line_id(row.blob(1), [&](std::uint32_t id) {
            found = ids.contains(id);
            return found;
        });
        if (found) {
            entries.push_back(row.integer(0));
        }
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    if (damaged) {
        return fail(ErrorKind::Corrupt, "catalog: an FX entry's debug-line ids are damaged",
                    db.path());
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

// The condition on kinds and root, in the form SQLite looks up in the
// (root_id, kind) index instead of scanning it: by the root's id.
void add_kinds_and_root(const SearchQuery& query, Filter& filter) {
    if (query.kinds.empty() && !query.root) {
        return;
    }
    if (query.root) {
        filter.text(" AND e.root_id IN (SELECT id FROM roots WHERE location = ?)",
                    root_location(*query.root));
    } else {
        filter.where += " AND e.root_id IN (SELECT id FROM roots)";
    }
    if (!query.kinds.empty()) {
        filter.where += " AND e.kind IN (";
        for (std::size_t i = 0; i < query.kinds.size(); ++i) {
            filter.text(i == 0 ? "?" : ", ?", std::string(cachedir::to_string(query.kinds[i])));
        }
        filter.where += ")";
    }
}

// The SQL condition for everything in `query` but its text, and but its kinds
// and root when `with_kinds_and_root` is false (the caller kept only the
// matches of those already).
Filter filter_of(const SearchQuery& query, bool with_kinds_and_root = true) {
    Filter filter;
    if (with_kinds_and_root) {
        add_kinds_and_root(query, filter);
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

// Where the text matched an entry, as bits, in the order `matched` lists them.
constexpr std::pair<std::uint8_t, const char*> kMatchFields[] = {
    {1, "key"}, {2, "name"}, {4, "source"}, {8, "debug line"}};

// The entries a text matches: ids ascending, each once, with where it matched.
struct TextMatches {
    std::vector<std::int64_t> ids;
    std::vector<std::uint8_t> fields; // kMatchFields bits, beside ids

    std::vector<std::string> fields_of(std::int64_t id) const {
        std::vector<std::string> out;
        const auto it = std::lower_bound(ids.begin(), ids.end(), id);
        if (it != ids.end() && *it == id) {
            const std::uint8_t bits = fields[static_cast<std::size_t>(it - ids.begin())];
            for (const auto& [bit, name] : kMatchFields) {
                if ((bits & bit) != 0) {
                    out.emplace_back(name);
                }
            }
        }
        return out;
    }
};

// Where a text is looked for: entry_search's columns (kSearchKeys, ...) and
// the FX entries' debug lines.
struct TextSources {
    std::uint8_t columns = kSearchKeys | kSearchNames | kSearchBody;
    bool debug_lines = true;
};

// What a query's kinds can match: a column or the debug lines no kept kind
// fills is not read (the body's FTS5 query was a third of a search for
// `triton_per --kind fxgraph`, which no FX entry has a body for).
TextSources sources_of(const std::vector<cachedir::FileKind>& kinds) {
    if (kinds.empty()) {
        return {};
    }
    TextSources sources{0, false};
    for (cachedir::FileKind kind : kinds) {
        sources.columns |= search_columns(kind);
        sources.debug_lines |= kind == cachedir::FileKind::FxGraph;
    }
    return sources;
}

// The entries the text matches, with where it matched; nullopt when there is no text.
Result<std::optional<TextMatches>> text_matches(const sql::Database& db, std::string_view text,
                                                TextSources sources = {}) {
    const std::string match = fts_query(text);
    if (match.empty()) {
        return std::optional<TextMatches>();
    }
    std::vector<std::pair<std::int64_t, std::uint8_t>> found;
    for (const auto& [column, bit, source] :
         {std::tuple{"keys", kMatchFields[0].first, kSearchKeys},
          std::tuple{"names", kMatchFields[1].first, kSearchNames},
          std::tuple{"body", kMatchFields[2].first, kSearchBody}}) {
        if ((sources.columns & source) == 0) {
            continue;
        }
        auto statement = sql::Statement::prepare(
            db, std::string("SELECT rowid FROM entry_search WHERE entry_search MATCH ?"));
        if (!statement) {
            return std::unexpected(statement.error());
        }
        statement->bind(1, "{" + std::string(column) + "} : (" + match + ")");
        auto done = statement->for_each_row(
            [&](const sql::Statement& row) { found.emplace_back(row.integer(0), bit); });
        if (!done) {
            return std::unexpected(done.error());
        }
    }
    if (sources.debug_lines) {
        auto lines = entries_with_lines(db, match);
        if (!lines) {
            return std::unexpected(lines.error());
        }
        for (std::int64_t id : *lines) {
            found.emplace_back(id, kMatchFields[3].first);
        }
    }
    std::sort(found.begin(), found.end());
    TextMatches matches;
    for (const auto& [id, bit] : found) {
        if (matches.ids.empty() || matches.ids.back() != id) {
            matches.ids.push_back(id);
            matches.fields.push_back(0);
        }
        matches.fields.back() |= bit;
    }
    return std::optional(std::move(matches));
}

// Loads the matched ids into a temporary table the queries join: keyed by
// id, so each lookup is one b-tree search.
Result<void> fill_match_table(const sql::Database& db, const std::vector<std::int64_t>& ids) {
    sqlite3* handle = db.handle();
    if (sqlite3_exec(handle,
                     "CREATE TEMP TABLE IF NOT EXISTS search_ids (id INTEGER PRIMARY KEY);"
                     "DELETE FROM search_ids;",
                     nullptr, nullptr, nullptr) != SQLITE_OK) {
        return std::unexpected(db.error("cannot make the search table"));
    }
    auto insert = sql::Statement::prepare(db, "INSERT INTO search_ids VALUES (?)");
    if (!insert) {
        return std::unexpected(insert.error());
    }
    for (std::int64_t id : ids) {
        insert->bind(1, id);
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

SearchHit hit_of(const sql::Statement& statement) {
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
    return hit;
}

// One read of the catalog: the statements of a search see one state of it,
// whatever an indexer commits meanwhile (WAL), and the temporary table's
// inserts commit once. Nothing when the caller is in a transaction already.
class ReadTransaction {
public:
    static Result<ReadTransaction> begin(const sql::Database& db) {
        if (sqlite3_get_autocommit(db.handle()) == 0) {
            return ReadTransaction(nullptr);
        }
        if (sqlite3_exec(db.handle(), "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) {
            return std::unexpected(db.error("cannot begin reading the catalog"));
        }
        return ReadTransaction(db.handle());
    }
    ReadTransaction(ReadTransaction&& other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)) {}
    ReadTransaction& operator=(ReadTransaction&&) = delete;
    ~ReadTransaction() {
        if (handle_ != nullptr) {
            sqlite3_exec(handle_, "COMMIT", nullptr, nullptr, nullptr);
        }
    }

private:
    explicit ReadTransaction(sqlite3* handle)
        : handle_(handle) {}
    sqlite3* handle_;
};

// What a query keeps: the text's matches (in the temporary table too) and the
// WHERE of the statements that count and page them.
struct Selection {
    std::optional<TextMatches> matches; // nullopt: no text
    Filter filter;
    std::string where; // " WHERE ...", over kFrom's tables

    bool matches_nothing() const { return matches && matches->ids.empty(); }
};

// The ids (ascending) of the entries of the query's kinds in its root, from
// the (root_id, kind) index alone.
Result<std::vector<std::int64_t>> ids_of_kinds_and_root(const sql::Database& db,
                                                        const SearchQuery& query) {
    Filter filter;
    add_kinds_and_root(query, filter);
    auto statement = sql::Statement::prepare(
        db, "SELECT e.id FROM entries e INDEXED BY entries_by_root_kind WHERE 1" + filter.where);
    if (!statement) {
        return std::unexpected(statement.error());
    }
    filter.bind(*statement, 1);
    std::vector<std::int64_t> ids;
    auto done =
        statement->for_each_row([&](const sql::Statement& row) { ids.push_back(row.integer(0)); });
    if (!done) {
        return std::unexpected(done.error());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

// Keeps the matches whose id is in `allowed` (ascending).
void keep_only(TextMatches& matches, const std::vector<std::int64_t>& allowed) {
    std::size_t kept = 0;
    auto next = allowed.begin();
    for (std::size_t i = 0; i < matches.ids.size(); ++i) {
        next = std::lower_bound(next, allowed.end(), matches.ids[i]);
        if (next == allowed.end()) {
            break;
        }
        if (*next == matches.ids[i]) {
            matches.ids[kept] = matches.ids[i];
            matches.fields[kept] = matches.fields[i];
            ++kept;
        }
    }
    matches.ids.resize(kept);
    matches.fields.resize(kept);
}

Result<Selection> select(const sql::Database& db, const SearchQuery& query) {
    Selection selection;
    auto matches = text_matches(db, query.text, sources_of(query.kinds));
    if (!matches) {
        return std::unexpected(matches.error());
    }
    selection.matches = std::move(*matches);
    // With a text, kinds and root are applied here, to the ids in memory: the
    // temporary table then holds only what they keep, and a count of nothing
    // else is the ids' (20,000 FX entries of 48,000 matches: 20 ms of
    // inserts and as long again to count them by SQL).
    const bool kinds_or_root = !query.kinds.empty() || query.root.has_value();
    if (selection.matches && kinds_or_root && !selection.matches->ids.empty()) {
        auto allowed = ids_of_kinds_and_root(db, query);
        if (!allowed) {
            return std::unexpected(allowed.error());
        }
        keep_only(*selection.matches, *allowed);
    }
    if (selection.matches && !selection.matches->ids.empty()) {
        if (auto ok = fill_match_table(db, selection.matches->ids); !ok) {
            return std::unexpected(ok.error());
        }
    }
    selection.filter = filter_of(query, !selection.matches);
    selection.where = " WHERE 1";
    if (selection.matches) {
        selection.where += " AND e.id IN (SELECT id FROM search_ids)";
    }
    selection.where += selection.filter.where;
    return selection;
}

// The count's tables: entries and roots, and the FX and AOT rows only when
// the filter reads them. A LEFT JOIN on their primary key never adds or drops
// a row, but SQLite 3.40 looks each one up for COUNT(*) all the same (300 ms
// of 60,000 matches counted with --kind).
std::string count_from(const Selection& selection) {
    std::string from = " FROM entries e JOIN roots r ON r.id = e.root_id";
    if (selection.filter.where.find("fx.") != std::string::npos) {
        from += " LEFT JOIN fx_entries fx ON fx.entry_id = e.id";
    }
    if (selection.filter.where.find("aot.") != std::string::npos) {
        from += " LEFT JOIN aot_entries aot ON aot.entry_id = e.id";
    }
    return from;
}

Result<std::size_t> count_selected(const sql::Database& db, const Selection& selection) {
    if (selection.matches_nothing()) {
        return 0;
    }
    // Every id the text matched is an entry's, and every entry has its root:
    // entry_search rows go with their entry (a trigger deletes them in the
    // same transaction), fx_entries rows and entries with theirs (cascades).
    // So with nothing else to keep, the count is the ids', without looking
    // each one up (30-50 ms for 43,000 matches).
    if (selection.matches && selection.filter.where.empty()) {
        return selection.matches->ids.size();
    }
    auto statement =
        sql::Statement::prepare(db, "SELECT COUNT(*)" + count_from(selection) + selection.where);
    if (!statement) {
        return std::unexpected(statement.error());
    }
    selection.filter.bind(*statement, 1);
    auto row = statement->step();
    if (!row) {
        return std::unexpected(row.error());
    }
    return static_cast<std::size_t>(statement->integer(0));
}

// The page in two steps: the ids in order first, then each one's columns.
// Columns computed in the sorting query were computed for every match before
// the sort kept the page (a correlated count per row for key_entries, and
// where the text matched): most of a page's time when thousands match.
Result<std::vector<SearchHit>> page_of(const sql::Database& db, const Selection& selection,
                                       const SearchQuery& query) {
    std::vector<SearchHit> hits;
    if (selection.matches_nothing() || query.limit == 0) {
        return hits;
    }
    auto ordered =
        sql::Statement::prepare(db, "SELECT e.id" + std::string(kFrom) + selection.where +
                                        order_by(query) + " LIMIT ? OFFSET ?");
    if (!ordered) {
        return std::unexpected(ordered.error());
    }
    selection.filter.bind(*ordered, 1);
    const int next = 1 + static_cast<int>(selection.filter.order.size());
    ordered
        ->bind(next, static_cast<std::int64_t>(std::min<std::size_t>(
                         query.limit, std::numeric_limits<std::int64_t>::max())))
        .bind(next + 1, static_cast<std::int64_t>(query.offset));
    std::vector<std::int64_t> ids;
    auto done =
        ordered->for_each_row([&](const sql::Statement& row) { ids.push_back(row.integer(0)); });
    if (!done) {
        return std::unexpected(done.error());
    }
    auto columns = sql::Statement::prepare(db, kHitColumns + kFrom + " WHERE e.id = ?");
    if (!columns) {
        return std::unexpected(columns.error());
    }
    hits.reserve(ids.size());
    for (std::int64_t id : ids) {
        columns->bind(1, id);
        auto row = columns->step();
        if (!row) {
            return std::unexpected(row.error());
        }
        if (*row) {
            hits.push_back(hit_of(*columns));
            if (selection.matches) {
                hits.back().matched = selection.matches->fields_of(id);
            }
        }
        columns->reset();
    }
    return hits;
}

} // namespace

Result<SearchPage> search_page_of(const sql::Database& db, const SearchQuery& query,
                                  bool with_total) {
    auto reading = ReadTransaction::begin(db);
    if (!reading) {
        return std::unexpected(reading.error());
    }
    auto selection = select(db, query);
    if (!selection) {
        return std::unexpected(selection.error());
    }
    SearchPage page;
    if (with_total) {
        auto total = count_selected(db, *selection);
        if (!total) {
            return std::unexpected(total.error());
        }
        page.total = *total;
    }
    auto hits = page_of(db, *selection, query);
    if (!hits) {
        return std::unexpected(hits.error());
    }
    page.hits = std::move(*hits);
    return page;
}

Result<std::vector<SearchHit>> search_entries(const sql::Database& db, const SearchQuery& query) {
    auto page = search_page_of(db, query, false);
    if (!page) {
        return std::unexpected(page.error());
    }
    return std::move(page->hits);
}

Result<std::size_t> count_entries(const sql::Database& db, const SearchQuery& query) {
    SearchQuery counted = query;
    counted.limit = 0; // no page: page_of reads no row
    auto page = search_page_of(db, counted, true);
    if (!page) {
        return std::unexpected(page.error());
    }
    return page->total;
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
    auto matches = text_matches(db, text);
    if (!matches) {
        return std::unexpected(matches.error());
    }
    if (!*matches) {
        return std::optional<std::vector<std::int64_t>>();
    }
    return std::optional(std::move((*matches)->ids));
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
        SearchHit hit = hit_of(row);
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

} // namespace cachelens::catalog
