// The catalog against the cache dirs it indexes. Its counts, sizes and ages
// equal a direct scan of each fixture; every kernel name, key, debug-line word
// and source word is found where it is, and each filter keeps exactly the
// entries it should; re-indexing after each kind of change (touch, new inode,
// delete, new kernel dir, forgotten root, cleanup cut short) leaves what a
// catalog built from nothing holds; a catalog of every earlier schema opens,
// migrates and indexes to that same state; and files that are no catalog of
// ours are refused, by name, untouched.

#include "catalog_checks.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/catalog/entry_index.h>
#include <cachelens/catalog/schema.h>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <ranges>
#include <set>
#include <thread>

using namespace cachelens;
namespace fs = std::filesystem;
using cachedir::FileKind;

namespace {

constexpr std::size_t kNoLimit = 1'000'000;
constexpr std::int64_t kSecond = 1'000'000'000;

fs::path path_of(const QTemporaryDir& dir) {
    return fs::path(dir.path().toStdString());
}

QString text(std::string_view value) {
    return QString::fromUtf8(value.data(), static_cast<qsizetype>(value.size()));
}

std::string join_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) {
        out += line + "\n";
    }
    return out;
}

// How an entry is named across roots: its root's location, then its path.
QString where(const std::string& location, const std::string& path) {
    return text(location) + "/" + text(path);
}

QStringList sorted(QStringList list) {
    list.sort();
    return list;
}

QStringList hit_places(const std::vector<catalog::SearchHit>& hits) {
    QStringList out;
    for (const auto& hit : hits) {
        out << where(hit.root, hit.path);
    }
    return sorted(out);
}

catalog::SearchQuery unlimited(catalog::SearchQuery query = {}) {
    query.limit = kNoLimit;
    return query;
}

bool matched(const catalog::SearchHit& hit, std::string_view field) {
    return std::find(hit.matched.begin(), hit.matched.end(), field) != hit.matched.end();
}

// The canonical dump of a catalog built from nothing on `roots`, in that
// order; a failure's description (which no dump equals) when that fails.
std::string fresh_dump(const std::vector<fs::path>& roots) {
    QTemporaryDir temp;
    auto fresh = catalog::Catalog::open(path_of(temp) / "fresh.sqlite");
    if (!fresh) {
        return "cannot open a fresh catalog: " + fresh.error().describe();
    }
    for (const auto& root : roots) {
        if (auto report = fresh->index(root); !report) {
            return "cannot index " + root.string() + " afresh: " + report.error().describe();
        }
    }
    return test::canonical_dump(*fresh);
}

// SQLite's checks pass, no entry is half-written, no row dangles, and the
// content is what a catalog built from nothing on `roots` holds.
void verify_like_fresh(const catalog::Catalog& catalog, const std::vector<fs::path>& roots) {
    sqlite3* db = catalog.handle();
    QCOMPARE(text(test::integrity_problems(db)), QString("ok"));
    const auto half_written = test::half_written_entries(db);
    QVERIFY2(half_written.empty(), join_lines(half_written).c_str());
    const auto dangling = test::dangling_rows(db);
    QVERIFY2(dangling.empty(), join_lines(dangling).c_str());
    const std::string difference =
        test::first_difference(fresh_dump(roots), test::canonical_dump(catalog));
    QVERIFY2(difference.empty(), difference.c_str());
}

// For checks made in helpers: a failure there ends the test function too.
#define RETURN_IF_FAILED()                                                                         \
    do {                                                                                           \
        if (QTest::currentTestFailed()) {                                                          \
            return;                                                                                \
        }                                                                                          \
    } while (false)

#define VERIFY_LIKE_FRESH(catalog, roots)                                                          \
    do {                                                                                           \
        verify_like_fresh(catalog, roots);                                                         \
        RETURN_IF_FAILED();                                                                        \
    } while (false)

// Sets a file's access and modification times, to the nanosecond.
bool set_mtime(const fs::path& file, std::int64_t mtime_ns) {
    const timespec time{static_cast<time_t>(mtime_ns / kSecond),
                        static_cast<long>(mtime_ns % kSecond)};
    const timespec times[2] = {time, time};
    return utimensat(AT_FDCWD, file.c_str(), times, 0) == 0;
}

struct FileIdentity {
    std::int64_t mtime_ns = 0;
    std::uint64_t inode = 0;
    std::uint64_t size = 0;
};

FileIdentity identity_of(const fs::path& file) {
    struct stat info {};
    if (::stat(file.c_str(), &info) != 0) {
        return {};
    }
    return {static_cast<std::int64_t>(info.st_mtim.tv_sec) * kSecond + info.st_mtim.tv_nsec,
            static_cast<std::uint64_t>(info.st_ino), static_cast<std::uint64_t>(info.st_size)};
}

std::vector<cachedir::Entry> entries_of_kind(const std::vector<cachedir::Entry>& entries,
                                             FileKind kind) {
    std::vector<cachedir::Entry> out;
    std::copy_if(entries.begin(), entries.end(), std::back_inserter(out),
                 [&](const cachedir::Entry& entry) { return entry.kind == kind; });
    return out;
}

// The debug line ids (fx_debug_lines.line_ids) of every FX entry, by where
// the entry is.
std::map<QString, std::set<std::int64_t>> fx_line_ids(sqlite3* db) {
    std::map<QString, std::set<std::int64_t>> out;
    for (const auto& row : test::query_rows(
             db, "SELECT r.location, e.path, hex(l.line_ids) FROM fx_debug_lines l JOIN entries "
                 "e ON e.id = l.entry_id JOIN roots r ON r.id = e.root_id")) {
        const QStringList columns = text(row).split('|');
        auto& ids = out[where(columns[0].toStdString(), columns[1].toStdString())];
        const QByteArray bytes = QByteArray::fromHex(columns[2].toLatin1());
        for (std::uint32_t id : test::decode_line_ids(
                 std::span(reinterpret_cast<const unsigned char*>(bytes.constData()),
                           static_cast<std::size_t>(bytes.size())))) {
            ids.insert(id);
        }
    }
    return out;
}

// The FX entries of `location` that use a debug line no other entry uses:
// deleting or replacing one leaves lines for the indexer to collect.
std::vector<std::string> fx_entries_with_own_lines(sqlite3* db, const std::string& location) {
    const auto lines = fx_line_ids(db);
    std::map<std::int64_t, int> users;
    for (const auto& [place, ids] : lines) {
        for (std::int64_t id : ids) {
            ++users[id];
        }
    }
    std::vector<std::string> out;
    const QString prefix = text(location) + "/";
    for (const auto& [place, ids] : lines) {
        if (place.startsWith(prefix) &&
            std::ranges::any_of(ids, [&](std::int64_t id) { return users[id] == 1; })) {
            out.push_back(place.mid(prefix.size()).toStdString());
        }
    }
    return out;
}

// A word the FTS5 tokenizer (unicode61: runs of letters and digits) sees
// the same way we do: words are ASCII letter/digit runs, lowercased; a run
// that touches a non-ASCII byte may be split differently, so it is "unclear".
struct LineWords {
    std::map<std::string, std::set<std::int64_t>> lines_by_word;
    std::vector<std::string> unclear_runs;
};

bool ascii_alnum(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void add_words(std::string_view line, std::int64_t id, LineWords& words) {
    std::size_t at = 0;
    while (at < line.size()) {
        if (!ascii_alnum(static_cast<unsigned char>(line[at]))) {
            ++at;
            continue;
        }
        std::size_t end = at;
        while (end < line.size() && ascii_alnum(static_cast<unsigned char>(line[end]))) {
            ++end;
        }
        std::string word(line.substr(at, end - at));
        std::transform(word.begin(), word.end(), word.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        const bool touches_other =
            (at > 0 && static_cast<unsigned char>(line[at - 1]) >= 0x80) ||
            (end < line.size() && static_cast<unsigned char>(line[end]) >= 0x80);
        if (touches_other) {
            words.unclear_runs.push_back(std::move(word));
        } else {
            words.lines_by_word[std::move(word)].insert(id);
        }
        at = end;
    }
}

// The lines where some word starts with `prefix` (what FTS5's "prefix"* finds).
std::set<std::int64_t> lines_with_prefix(const LineWords& words, const std::string& prefix) {
    std::set<std::int64_t> out;
    for (auto it = words.lines_by_word.lower_bound(prefix);
         it != words.lines_by_word.end() && it->first.starts_with(prefix); ++it) {
        out.insert(it->second.begin(), it->second.end());
    }
    return out;
}

// What search() and count() computed before they were split into steps, as one
// statement each: the text's matches (FTS5 per column, then FX entries by
// their debug lines) in a temporary table, the page with where each entry
// matched as a correlated group_concat, and COUNT(*) over the same rows.
class ReferenceSearch {
public:
    explicit ReferenceSearch(const fs::path& catalog) {
        sqlite3_open_v2(catalog.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr);
        exec("PRAGMA temp_store = MEMORY");
    }
    ~ReferenceSearch() { sqlite3_close(db_); }
    ReferenceSearch(const ReferenceSearch&) = delete;
    ReferenceSearch& operator=(const ReferenceSearch&) = delete;

    // "id|field,field" per hit of the page, in order; then "total N".
    std::vector<std::string> page(const catalog::SearchQuery& query) {
        const bool has_text = fill_matches(query.text);
        const std::string where = condition(query, has_text);
        std::vector<std::string> out = test::query_rows(
            db_, "SELECT e.id || '|' || COALESCE(" +
                     std::string(has_text ? "(SELECT group_concat(DISTINCT field) FROM "
                                            "reference_matches m WHERE m.entry_id = e.id)"
                                          : "NULL") +
                     ", '')" + kFrom + where + order_by(query) + " LIMIT " +
                     std::to_string(std::min<std::size_t>(query.limit, kNoLimit)) + " OFFSET " +
                     std::to_string(query.offset));
        out.push_back("total " + std::to_string(test::query_integer(
                                     db_, "SELECT COUNT(*)" + std::string(kFrom) + where)));
        return out;
    }

private:
    static constexpr const char* kFrom = " FROM entries e JOIN roots r ON r.id = e.root_id"
                                         " LEFT JOIN fx_entries fx ON fx.entry_id = e.id"
                                         " LEFT JOIN aot_entries aot ON aot.entry_id = e.id";

    void exec(const std::string& sql) {
        QVERIFY2(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK,
                 sqlite3_errmsg(db_));
    }

    static std::string quoted(std::string_view value) {
        std::string out = "'";
        for (char c : value) {
            out += c;
            if (c == '\'') {
                out += '\'';
            }
        }
        return out + "'";
    }

    // The words (between spaces), all required; each a phrase of its runs of
    // letters and digits, the last one a prefix.
    static std::string fts_query(std::string_view text) {
        std::string out;
        for (const auto word : std::views::split(text, ' ')) {
            std::vector<std::string> parts(1);
            for (char c : word) {
                if (std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                    static_cast<unsigned char>(c) >= 0x80) {
                    parts.back() += c;
                } else if (!parts.back().empty()) {
                    parts.emplace_back();
                }
            }
            std::string phrase;
            for (const auto& part : parts) {
                if (!part.empty()) {
                    phrase += (phrase.empty() ? "" : " ") + part;
                }
            }
            if (!phrase.empty()) {
                out += (out.empty() ? "\"" : " AND \"") + phrase + "\"*";
            }
        }
        return out;
    }

    bool fill_matches(const std::string& text) {
        const std::string match = fts_query(text);
        if (match.empty()) {
            return false;
        }
        exec("CREATE TEMP TABLE IF NOT EXISTS reference_matches (entry_id INTEGER NOT NULL, "
             "field TEXT NOT NULL); DELETE FROM reference_matches;");
        for (const auto& [column, field] :
             {std::pair{"keys", "key"}, std::pair{"names", "name"}, std::pair{"body", "source"}}) {
            exec("INSERT INTO reference_matches SELECT rowid, '" + std::string(field) +
                 "' FROM entry_search WHERE entry_search MATCH " +
                 quoted("{" + std::string(column) + "} : (" + match + ")"));
        }
        std::set<std::uint32_t> lines;
        for (const auto& id : test::query_rows(
                 db_, "SELECT rowid FROM debug_lines_fts WHERE debug_lines_fts MATCH " +
                          quoted(match))) {
            lines.insert(static_cast<std::uint32_t>(std::stoul(id)));
        }
        for (const auto& row :
             test::query_rows(db_, "SELECT entry_id || '|' || hex(line_ids) FROM fx_debug_lines")) {
            const auto bar = row.find('|');
            const QByteArray bytes =
                QByteArray::fromHex(QByteArray::fromStdString(row.substr(bar + 1)));
            for (std::uint32_t id : test::decode_line_ids(
                     std::span(reinterpret_cast<const unsigned char*>(bytes.constData()),
                               static_cast<std::size_t>(bytes.size())))) {
                if (lines.contains(id)) {
                    exec("INSERT INTO reference_matches VALUES (" + row.substr(0, bar) +
                         ", 'debug line')");
                    break;
                }
            }
        }
        return true;
    }

    static std::string condition(const catalog::SearchQuery& query, bool has_text) {
        std::string where = " WHERE 1";
        if (has_text) {
            where += " AND e.id IN (SELECT entry_id FROM reference_matches)";
        }
        if (!query.kinds.empty()) {
            where += " AND e.kind IN (";
            for (std::size_t i = 0; i < query.kinds.size(); ++i) {
                where += (i == 0 ? "" : ", ") + quoted(cachedir::to_string(query.kinds[i]));
            }
            where += ")";
        }
        if (query.root) {
            where += " AND r.location = " + quoted(catalog::root_location(*query.root));
        }
        if (query.device) {
            where += " AND instr(',' || fx.device_types || ',', ',' || " + quoted(*query.device) +
                     " || ',') > 0";
        }
        if (query.has_guards) {
            where += *query.has_guards ? " AND COALESCE(fx.guards_expr, aot.guards_expr, '') <> ''"
                                       : " AND (e.kind IN ('fxgraph', 'aotautograd') AND "
                                         "COALESCE(fx.guards_expr, aot.guards_expr, '') = '')";
        }
        if (query.min_size) {
            where += " AND e.size >= " + std::to_string(*query.min_size);
        }
        if (query.max_size) {
            where += " AND e.size <= " + std::to_string(*query.max_size);
        }
        return where;
    }

    static std::string order_by(const catalog::SearchQuery& query) {
        using catalog::SortColumn;
        const std::string down = query.descending ? " DESC" : " ASC";
        std::string first;
        switch (query.sort) {
        case SortColumn::Location:
            return " ORDER BY r.location" + down + ", e.kind" + down + ", e.key" + down +
                   ", e.path" + down;
        case SortColumn::Kind:
            first = "e.kind";
            break;
        case SortColumn::Key:
            first = "e.key";
            break;
        case SortColumn::KeyEntries:
            first = "(SELECT COUNT(*) FROM entries k WHERE k.key = e.key AND k.root_id = "
                    "e.root_id AND k.kind = e.kind)";
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
            first = "COALESCE(fx.time_taken_ns, aot.forward_time_ns + "
                    "COALESCE(aot.backward_time_ns, 0), -1)";
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

    sqlite3* db_ = nullptr;
};

} // namespace

class TestCatalog : public QObject {
    Q_OBJECT

    QTemporaryDir shared_temp_;
    fs::path devset_;
    fs::path cpu_dev_;
    std::vector<cachedir::Entry> devset_entries_;
    std::vector<cachedir::Entry> cpu_dev_entries_;
    // devset and cpu_dev, indexed once for the search and filter tests.
    std::optional<catalog::Catalog> two_roots_;

    // Every entry of both roots, by where it is.
    std::vector<std::pair<QString, const cachedir::Entry*>> all_entries() const {
        std::vector<std::pair<QString, const cachedir::Entry*>> out;
        for (const auto& entry : devset_entries_) {
            out.emplace_back(where(catalog::root_location(devset_), entry.path), &entry);
        }
        for (const auto& entry : cpu_dev_entries_) {
            out.emplace_back(where(catalog::root_location(cpu_dev_), entry.path), &entry);
        }
        return out;
    }

    fs::path root_of(const QString& place) const {
        return place.startsWith(text(catalog::root_location(devset_)) + "/") ? devset_ : cpu_dev_;
    }

private slots:
    void initTestCase() {
        QVERIFY(shared_temp_.isValid());
        devset_ = test::fixture("devset/cache");
        cpu_dev_ = test::fixture("cpu_dev/cache");
        auto devset_scan = cachedir::scan_cache_dir(devset_);
        QVERIFY_RESULT(devset_scan);
        devset_entries_ = devset_scan->entries();
        auto cpu_scan = cachedir::scan_cache_dir(cpu_dev_);
        QVERIFY_RESULT(cpu_scan);
        cpu_dev_entries_ = cpu_scan->entries();
        auto opened = catalog::Catalog::open(path_of(shared_temp_) / "two-roots.sqlite");
        QVERIFY_RESULT(opened);
        two_roots_.emplace(std::move(*opened));
        for (const auto& root : {devset_, cpu_dev_}) {
            auto report = two_roots_->index(root);
            QVERIFY_RESULT(report);
            QCOMPARE(report->parse_errors, 0u);
        }
    }

    // 1. Counts and sizes.

    void statsEqualADirectScan_data() {
        QTest::addColumn<QString>("dir");
        for (const char* name : {"devset", "cpu_dev", "multi_dev"}) {
            QTest::newRow(name) << text(test::fixture(std::string(name) + "/cache").string());
        }
        QTest::newRow("sample-cache") << text(test::sample_cache().string());
    }

    void statsEqualADirectScan() {
        QFETCH(QString, dir);
        const fs::path root = dir.toStdString();
        auto scan = cachedir::scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QVERIFY(scan->errors.empty());
        const auto entries = scan->entries();
        const auto summary = scan->summary();

        QTemporaryDir temp;
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        auto report = catalog->index(root);
        QVERIFY_RESULT(report);
        QCOMPARE(report->entries, entries.size());
        QCOMPARE(report->parsed, entries.size());
        QCOMPARE(report->unchanged, 0u);
        QCOMPARE(report->removed, 0u);
        QVERIFY(report->walk_errors.empty());
        QVERIFY(!report->cancelled);

        auto stats = catalog->stats(root, kNoLimit);
        QVERIFY_RESULT(stats);
        QCOMPARE(stats->size(), 1u);
        const catalog::RootStats& root_stats = stats->front();
        QCOMPARE(root_stats.root.location, catalog::root_location(root));
        QVERIFY(root_stats.root.indexed_ns.has_value());
        std::vector<std::string> parse_errors;
        for (const auto& entry : root_stats.parse_errors) {
            parse_errors.push_back(entry.path + ": " + entry.error);
        }
        QVERIFY2(report->parse_errors == 0 && parse_errors.empty(),
                 join_lines(parse_errors).c_str());
        QCOMPARE(root_stats.largest.size(), entries.size());

        QCOMPARE(root_stats.kinds.size(), summary.size());
        for (const auto& [kind, expected] : summary) {
            const QByteArray kind_name(cachedir::to_string(kind).data(),
                                       static_cast<qsizetype>(cachedir::to_string(kind).size()));
            const auto found = root_stats.kinds.find(kind);
            QVERIFY2(found != root_stats.kinds.end(), kind_name.constData());
            const catalog::KindStats& kind_stats = found->second;
            QCOMPARE(kind_stats.entries, expected.entries);
            QCOMPARE(kind_stats.files, expected.files);
            QCOMPARE(kind_stats.bytes, expected.bytes);
            QCOMPARE(kind_stats.parse_errors, 0u);
            const auto of_kind = entries_of_kind(entries, kind);
            QCOMPARE(of_kind.size(), expected.entries);
            const auto [oldest, newest] = std::minmax_element(
                of_kind.begin(), of_kind.end(),
                [](const auto& a, const auto& b) { return a.mtime_ns < b.mtime_ns; });
            QCOMPARE(kind_stats.oldest_ns, oldest->mtime_ns);
            QCOMPARE(kind_stats.newest_ns, newest->mtime_ns);

            catalog::SearchQuery query;
            query.kinds = {kind};
            auto hits = catalog->search(unlimited(query));
            QVERIFY_RESULT(hits);
            QStringList expected_places;
            for (const auto& entry : of_kind) {
                expected_places << where(catalog::root_location(root), entry.path);
            }
            QCOMPARE(hit_places(*hits), sorted(expected_places));
            auto count = catalog->count(query);
            QVERIFY_RESULT(count);
            QCOMPARE(*count, of_kind.size());
        }
        auto everything = catalog->count({});
        QVERIFY_RESULT(everything);
        QCOMPARE(*everything, entries.size());
    }

    // 2. Search.

    void searchFindsEveryKernelByName() {
        // Kernel names from the scan (Triton dirs) and from parsing each module.
        std::map<std::string, std::set<std::string>> defined_in;
        for (const auto& entry : devset_entries_) {
            if (entry.kind == FileKind::Triton && !entry.name.empty()) {
                defined_in[entry.name].insert(entry.path);
            } else if (entry.kind == FileKind::Module) {
                auto content = cachedir::load_entry(devset_, entry);
                QVERIFY_RESULT(content);
                const auto* module = std::get_if<cachedir::ModuleSource>(&*content);
                QVERIFY(module != nullptr);
                for (const auto& kernel : module->module.kernels) {
                    QVERIFY(kernel.name.starts_with("triton_"));
                    defined_in[kernel.name].insert(entry.path);
                }
            }
        }
        QVERIFY2(defined_in.size() >= 15, "the devset defines more than 15 distinct kernels");
        const std::string devset_root = catalog::root_location(devset_);
        for (const auto& [name, paths] : defined_in) {
            catalog::SearchQuery query = unlimited();
            query.text = name;
            auto hits = two_roots_->search(query);
            QVERIFY_RESULT(hits);
            std::set<std::string> found;
            for (const auto& hit : *hits) {
                if (hit.root == devset_root && matched(hit, "name")) {
                    found.insert(hit.path);
                }
            }
            for (const auto& path : paths) {
                QVERIFY2(found.contains(path), qPrintable(text(name + " in " + path)));
            }
            auto count = two_roots_->count(query);
            QVERIFY_RESULT(count);
            QCOMPARE(*count, hits->size());
        }
    }

    // What is typed with '_' or '.' between its parts is found as written:
    // the parts next to each other and in order, the last one a prefix; the
    // words between spaces may be anywhere.
    void searchKeepsTheWordsOfAnIdentifierTogether() {
        const auto search = [&](const std::string& words) {
            catalog::SearchQuery query = unlimited();
            query.text = words;
            auto hits = two_roots_->search(query);
            std::set<std::int64_t> ids;
            std::vector<catalog::SearchHit> kept;
            if (hits) {
                for (const auto& hit : *hits) {
                    ids.insert(hit.entry_id);
                }
                kept = std::move(*hits);
            }
            return std::pair{ids, kept};
        };
        const auto [together, together_hits] = search("triton_poi");
        const auto [apart, apart_hits] = search("triton poi");
        QVERIFY(!together.empty());
        QVERIFY(std::includes(apart.begin(), apart.end(), together.begin(), together.end()));
        QVERIFY2(together.size() < apart.size(),
                 "modules that say \"triton\" and \"poi...\" apart are not triton_poi's");
        std::size_t kernels = 0;
        for (const auto& hit : together_hits) {
            if (hit.kind == FileKind::Triton) {
                QVERIFY2(hit.name.starts_with("triton_poi"), hit.name.c_str());
                ++kernels;
            }
        }
        QVERIFY(kernels > 0);
        // The middle of a name is found as well; "." separates parts as "_" does.
        const auto [middle, middle_hits] = search("poi_fused");
        QVERIFY(!middle.empty());
        for (const auto& hit : middle_hits) {
            if (hit.kind == FileKind::Triton) {
                QVERIFY2(hit.name.find("poi_fused") != std::string::npos, hit.name.c_str());
            }
        }
        QCOMPARE(search("triton.poi").first, together);
        QVERIFY(search("poi_triton").first != together);
    }

    // A debug-line id list the catalog cannot read is an error naming the
    // catalog, for the search and for the index that collects unused lines:
    // never a search that quietly finds fewer entries.
    void damagedDebugLineIdsAreAnError() {
        for (const char* damage : {"80", "FFFFFFFFFF01", "FFFFFFFF0F01"}) {
            QTemporaryDir temp;
            const fs::path path = path_of(temp) / "damaged.sqlite";
            auto opened = catalog::Catalog::open(path);
            QVERIFY_RESULT(opened);
            QVERIFY_RESULT(opened->index(devset_));
            sqlite3* db = opened->handle();
            const std::string update =
                std::string("UPDATE fx_debug_lines SET line_ids = X'") + damage + "'";
            QCOMPARE(sqlite3_exec(db, update.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
            catalog::SearchQuery query = unlimited();
            query.text = "cudagraphs";
            auto page = opened->search_page(query);
            QVERIFY2(!page, damage);
            QCOMPARE(page.error().kind, ErrorKind::Corrupt);
            QVERIFY2(page.error().describe().find(path.string()) != std::string::npos,
                     page.error().describe().c_str());
            // The index's collection of unused lines refuses it too.
            const fs::path sample = path_of(temp) / "sample";
            test::copy_tree(test::sample_cache(), sample);
            auto indexed = opened->index(sample);
            QVERIFY2(!indexed, damage);
            QCOMPARE(indexed.error().kind, ErrorKind::Corrupt);
        }
    }

    void searchFindsDebugLineWords() {
        sqlite3* db = two_roots_->handle();
        LineWords words;
        for (const auto& row : test::query_rows(db, "SELECT id, name, value FROM debug_lines")) {
            const auto bar = row.find('|');
            add_words(std::string_view(row).substr(bar + 1), std::stoll(row.substr(0, bar)), words);
        }
        const auto lines_of_entry = fx_line_ids(db);
        QVERIFY(lines_of_entry.size() >= 10);
        std::map<std::int64_t, QStringList> entries_of_line;
        for (const auto& [place, ids] : lines_of_entry) {
            for (std::int64_t id : ids) {
                entries_of_line[id] << place;
            }
        }
        auto entries_with = [&](const std::set<std::int64_t>& lines) {
            QStringList out;
            for (std::int64_t line : lines) {
                if (auto it = entries_of_line.find(line); it != entries_of_line.end()) {
                    out << it->second;
                }
            }
            out.removeDuplicates();
            return out;
        };
        // Distinctive words: whole letter-only words in some FX entries' lines
        // but not all, no unclear run containing them; the rarest first.
        std::vector<std::pair<qsizetype, std::string>> candidates;
        for (const auto& [word, lines] : words.lines_by_word) {
            if (word.size() < 6 || !std::all_of(word.begin(), word.end(),
                                                [](char c) { return c >= 'a' && c <= 'z'; })) {
                continue;
            }
            if (std::any_of(words.unclear_runs.begin(), words.unclear_runs.end(),
                            [&](const std::string& run) { return run.contains(word); })) {
                continue;
            }
            const auto carriers = entries_with(lines_with_prefix(words, word)).size();
            if (carriers > 0 && carriers < static_cast<qsizetype>(lines_of_entry.size())) {
                candidates.emplace_back(carriers, word);
            }
        }
        std::sort(candidates.begin(), candidates.end());
        // The rarest word, and the rarest that more than one entry carries.
        std::vector<std::string> chosen;
        for (const auto& [carriers, word] : candidates) {
            if (chosen.empty() || (chosen.size() == 1 && carriers > 1)) {
                chosen.push_back(word);
            }
        }
        QCOMPARE(chosen.size(), 2u);
        for (const std::string& word : chosen) {
            const QStringList expected = entries_with(lines_with_prefix(words, word));
            qInfo("debug line word '%s': in the lines of %lld FX entries", word.c_str(),
                  static_cast<long long>(expected.size()));
            catalog::SearchQuery query = unlimited();
            query.text = word;
            auto hits = two_roots_->search(query);
            QVERIFY_RESULT(hits);
            QStringList by_line;
            for (const auto& hit : *hits) {
                if (matched(hit, "debug line")) {
                    QCOMPARE(hit.kind, FileKind::FxGraph);
                    by_line << where(hit.root, hit.path);
                }
            }
            QCOMPARE(sorted(by_line), sorted(expected));
        }
    }

    void searchFindsKeys() {
        const std::string devset_root = catalog::root_location(devset_);
        std::size_t searched = 0;
        for (FileKind kind : {FileKind::FxGraph, FileKind::AotAutograd, FileKind::Module}) {
            const auto of_kind = entries_of_kind(devset_entries_, kind);
            QVERIFY(!of_kind.empty());
            for (std::size_t i = 0; i < std::min<std::size_t>(of_kind.size(), 6); ++i) {
                catalog::SearchQuery query = unlimited();
                query.text = of_kind[i].key;
                auto hits = two_roots_->search(query);
                QVERIFY_RESULT(hits);
                const bool found = std::any_of(hits->begin(), hits->end(), [&](const auto& hit) {
                    return hit.root == devset_root && hit.path == of_kind[i].path &&
                           matched(hit, "key");
                });
                QVERIFY2(found, of_kind[i].key.c_str());
                ++searched;
            }
        }
        QVERIFY(searched >= 15);
    }

    void searchFindsSourceWords() {
        // The identifier as a user types it, and the module files that hold it.
        const std::string identifier = "tl.sqrt_rn";
        QStringList holders;
        for (const auto& entry : devset_entries_) {
            if (entry.kind == FileKind::Module &&
                test::read_file(devset_ / entry.path).contains(identifier.c_str())) {
                holders << where(catalog::root_location(devset_), entry.path);
            }
        }
        QVERIFY(!holders.isEmpty());
        catalog::SearchQuery query = unlimited();
        query.text = identifier;
        auto hits = two_roots_->search(query);
        QVERIFY_RESULT(hits);
        QStringList by_source;
        for (const auto& hit : *hits) {
            if (matched(hit, "source")) {
                by_source << where(hit.root, hit.path);
                // FTS5 finds the words anywhere in the text, not only side by side.
                const QByteArray source = test::read_file(root_of(by_source.back()) / hit.path);
                for (const char* word : {"tl", "sqrt", "rn"}) {
                    QVERIFY2(source.contains(word), hit.path.c_str());
                }
            }
            QVERIFY2(!matched(hit, "name") && !matched(hit, "key"), hit.path.c_str());
        }
        for (const auto& holder : holders) {
            QVERIFY2(by_source.contains(holder), qPrintable(holder));
        }
    }

    void filtersByRoot() {
        for (const auto& [root, entries] :
             {std::pair{devset_, &devset_entries_}, std::pair{cpu_dev_, &cpu_dev_entries_}}) {
            QStringList expected;
            for (const auto& entry : *entries) {
                expected << where(catalog::root_location(root), entry.path);
            }
            // As indexed, and as a dir path spelled another way.
            for (const std::string& spelling :
                 {catalog::root_location(root), (root / "fxgraph" / "..").string() + "/"}) {
                catalog::SearchQuery query = unlimited();
                query.root = spelling;
                auto hits = two_roots_->search(query);
                QVERIFY_RESULT(hits);
                QCOMPARE(hit_places(*hits), sorted(expected));
                auto count = two_roots_->count(query);
                QVERIFY_RESULT(count);
                QCOMPARE(*count, entries->size());
            }
        }
    }

    void filtersByDeviceAndGuards() {
        // What each FX and AOT entry holds, read directly from its file.
        std::map<QString, std::vector<std::string>> devices;
        QStringList guarded, unguarded;
        for (const auto& [place, entry] : all_entries()) {
            if (entry->kind != FileKind::FxGraph && entry->kind != FileKind::AotAutograd) {
                continue;
            }
            auto content = cachedir::load_entry(root_of(place), *entry);
            QVERIFY_RESULT(content);
            std::optional<std::string_view> guards;
            if (const auto* fx = std::get_if<cachedir::FxGraphEntry>(&*content)) {
                devices[place] = fx->device_types;
                guards = fx->guards_expr;
            } else {
                const auto* aot = std::get_if<cachedir::AotAutogradEntry>(&*content);
                QVERIFY(aot != nullptr);
                guards = aot->guards_expr;
            }
            (guards && !guards->empty() ? guarded : unguarded) << place;
        }
        for (const char* device_name : {"cpu", "cuda"}) {
            const std::string device = device_name;
            QStringList expected;
            for (const auto& [place, types] : devices) {
                if (std::find(types.begin(), types.end(), device) != types.end()) {
                    expected << place;
                }
            }
            QVERIFY(!expected.isEmpty());
            catalog::SearchQuery query = unlimited();
            query.device = device;
            auto hits = two_roots_->search(query);
            QVERIFY_RESULT(hits);
            QCOMPARE(hit_places(*hits), sorted(expected));
            const fs::path& expected_root = device == "cpu" ? cpu_dev_ : devset_;
            for (const auto& hit : *hits) {
                QCOMPARE(hit.root, catalog::root_location(expected_root));
                QCOMPARE(hit.device, device);
            }
        }
        QVERIFY(!guarded.isEmpty());
        QVERIFY(!unguarded.isEmpty());
        for (const bool has_guards : {true, false}) {
            catalog::SearchQuery query = unlimited();
            query.has_guards = has_guards;
            auto hits = two_roots_->search(query);
            QVERIFY_RESULT(hits);
            QCOMPARE(hit_places(*hits), sorted(has_guards ? guarded : unguarded));
            for (const auto& hit : *hits) {
                QCOMPARE(hit.has_guards, std::optional<bool>(has_guards));
            }
            auto count = two_roots_->count(query);
            QVERIFY_RESULT(count);
            QCOMPARE(*count, static_cast<std::size_t>(hits->size()));
        }
    }

    void filtersBySize() {
        const auto entries = all_entries();
        std::vector<std::uint64_t> sizes;
        for (const auto& [place, entry] : entries) {
            sizes.push_back(entry->size);
        }
        std::sort(sizes.begin(), sizes.end());
        // Bounds that are sizes of real entries: both are inclusive.
        const std::uint64_t low = sizes[sizes.size() / 4];
        const std::uint64_t high = sizes[sizes.size() * 3 / 4];
        QVERIFY(low < high);
        const std::pair<std::optional<std::uint64_t>, std::optional<std::uint64_t>> ranges[] = {
            {low, std::nullopt}, {std::nullopt, high}, {low, high}, {high + 1, low}};
        for (const auto& [min_size, max_size] : ranges) {
            QStringList expected;
            for (const auto& [place, entry] : entries) {
                if ((!min_size || entry->size >= *min_size) &&
                    (!max_size || entry->size <= *max_size)) {
                    expected << place;
                }
            }
            catalog::SearchQuery query = unlimited();
            query.min_size = min_size;
            query.max_size = max_size;
            auto hits = two_roots_->search(query);
            QVERIFY_RESULT(hits);
            QCOMPARE(hit_places(*hits), sorted(expected));
        }
    }

    void filtersByModificationTime() {
        QTemporaryDir temp;
        const fs::path root = path_of(temp) / "cache";
        test::copy_tree(cpu_dev_, root);
        auto scan = cachedir::scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        // Entry i was last modified at 2021-01-01 + i seconds (+ 1 ns, to check precision).
        const std::int64_t base_ns = 1'609'459'200 * kSecond + 1;
        const auto entries = scan->entries();
        QVERIFY(entries.size() >= 20);
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const fs::path at = root / entries[i].path;
            const std::int64_t mtime = base_ns + static_cast<std::int64_t>(i) * kSecond;
            if (fs::is_directory(at)) {
                for (const auto& file : fs::recursive_directory_iterator(at)) {
                    QVERIFY(set_mtime(file.path(), mtime));
                }
            } else {
                QVERIFY(set_mtime(at, mtime));
            }
        }
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        QVERIFY_RESULT(catalog->index(root));
        const std::optional<std::int64_t> after = base_ns + 9 * kSecond + kSecond / 2;
        const std::optional<std::int64_t> before = base_ns + 19 * kSecond + kSecond / 2;
        const std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>> ranges[] = {
            {after, std::nullopt}, {std::nullopt, before}, {after, before}};
        for (const auto& [modified_after, modified_before] : ranges) {
            QStringList expected;
            for (std::size_t i = 0; i < entries.size(); ++i) {
                const std::int64_t mtime = base_ns + static_cast<std::int64_t>(i) * kSecond;
                if ((!modified_after || mtime >= *modified_after) &&
                    (!modified_before || mtime <= *modified_before)) {
                    expected << where(catalog::root_location(root), entries[i].path);
                }
            }
            catalog::SearchQuery query = unlimited();
            query.modified_after_ns = modified_after;
            query.modified_before_ns = modified_before;
            auto hits = catalog->search(query);
            QVERIFY_RESULT(hits);
            QCOMPARE(hit_places(*hits), sorted(expected));
            for (const auto& hit : *hits) {
                QCOMPARE((hit.mtime_ns - base_ns) % kSecond, std::int64_t{0});
            }
        }
        auto stats = catalog->stats(root);
        QVERIFY_RESULT(stats);
        std::int64_t oldest = std::numeric_limits<std::int64_t>::max();
        std::int64_t newest = 0;
        for (const auto& [kind, kind_stats] : stats->front().kinds) {
            oldest = std::min(oldest, kind_stats.oldest_ns);
            newest = std::max(newest, kind_stats.newest_ns);
        }
        QCOMPARE(oldest, base_ns);
        QCOMPARE(newest, base_ns + static_cast<std::int64_t>(entries.size() - 1) * kSecond);
    }

    void pagingCoversEveryEntryOnce() {
        for (const char* search_text : {"", "triton"}) {
            catalog::SearchQuery query = unlimited();
            query.text = search_text;
            auto all = two_roots_->search(query);
            QVERIFY_RESULT(all);
            QVERIFY(all->size() > 30);
            std::vector<std::int64_t> paged;
            std::set<std::int64_t> distinct;
            const std::size_t page = 7;
            for (query.offset = 0;; query.offset += page) {
                query.limit = page;
                auto hits = two_roots_->search(query);
                QVERIFY_RESULT(hits);
                QVERIFY(hits->size() <= page);
                for (const auto& hit : *hits) {
                    paged.push_back(hit.entry_id);
                    QVERIFY2(distinct.insert(hit.entry_id).second, hit.path.c_str());
                }
                if (hits->size() < page) {
                    break;
                }
            }
            std::vector<std::int64_t> whole;
            for (const auto& hit : *all) {
                whole.push_back(hit.entry_id);
            }
            QVERIFY(paged == whole);
            if (*search_text == 0) {
                QCOMPARE(paged.size(), devset_entries_.size() + cpu_dev_entries_.size());
            }
        }
    }

    void sortsByEveryColumnAndPagesById() {
        using catalog::SortColumn;
        // What each column sorts by, read from a hit.
        const std::vector<
            std::pair<SortColumn, std::function<std::string(const catalog::SearchHit&)>>>
            columns = {
                {SortColumn::Kind,
                 [](const auto& hit) {
                     return std::string(cachedir::to_string(hit.kind));
                 }},
                {SortColumn::Key,
                 [](const auto& hit) {
                     return hit.key;
                 }},
                {SortColumn::Size,
                 [](const auto& hit) {
                     return std::to_string(1'000'000'000'000 + hit.size);
                 }},
                {SortColumn::Modified,
                 [](const auto& hit) {
                     return std::to_string(hit.mtime_ns);
                 }},
                {SortColumn::KeyEntries,
                 [](const auto& hit) {
                     return std::to_string(1000 + hit.key_entries);
                 }},
                {SortColumn::Role,
                 [](const auto& hit) {
                     return hit.role;
                 }},
            };
        for (const auto& [column, value_of] : columns) {
            for (bool descending : {false, true}) {
                catalog::SearchQuery query = unlimited();
                query.sort = column;
                query.descending = descending;
                auto hits = two_roots_->search(query);
                QVERIFY_RESULT(hits);
                QCOMPARE(hits->size(), devset_entries_.size() + cpu_dev_entries_.size());
                for (std::size_t i = 1; i < hits->size(); ++i) {
                    const auto a = value_of((*hits)[i - 1]);
                    const auto b = value_of((*hits)[i]);
                    QVERIFY2(descending ? a >= b : a <= b, (a + " then " + b).c_str());
                }
                // The ids come in the same order, and load back in the order asked.
                auto ids = two_roots_->search_ids(query);
                QVERIFY_RESULT(ids);
                QCOMPARE(ids->size(), hits->size());
                for (std::size_t i = 0; i < ids->size(); ++i) {
                    QCOMPARE((*ids)[i], (*hits)[i].entry_id);
                }
                std::vector<std::int64_t> some(ids->rbegin(), ids->rbegin() + 25);
                auto loaded = two_roots_->entries_by_id(some);
                QVERIFY_RESULT(loaded);
                QCOMPARE(loaded->size(), some.size());
                for (std::size_t i = 0; i < some.size(); ++i) {
                    QCOMPARE((*loaded)[i].entry_id, some[i]);
                }
            }
        }
        // Entries under one key: an FX key with several entries counts them all.
        catalog::SearchQuery fx_only = unlimited();
        fx_only.kinds = {cachedir::FileKind::FxGraph};
        auto fx = two_roots_->search(fx_only);
        QVERIFY_RESULT(fx);
        std::map<std::string, std::uint32_t> per_key;
        for (const auto& hit : *fx) {
            ++per_key[hit.root + hit.key];
        }
        for (const auto& hit : *fx) {
            QCOMPARE(hit.key_entries, per_key[hit.root + hit.key]);
        }
        // Each FX graph's role, as its key's fx_kwargs say; none for the rest.
        std::set<std::string> roles;
        for (const auto& hit : *fx) {
            auto entry = cachedir::load_fx_graph_entry(fs::path(hit.root) / hit.path);
            QVERIFY_RESULT(entry);
            QCOMPARE(QString::fromStdString(hit.role),
                     QString::fromStdString(std::string(
                         cachedir::to_string(cachedir::graph_role(entry->debug_lines)))));
            roles.insert(hit.role);
        }
        QCOMPARE(roles, (std::set<std::string>{"backward", "forward", "inference"}));
        catalog::SearchQuery modules_only = unlimited();
        modules_only.kinds = {cachedir::FileKind::Module};
        auto modules = two_roots_->search(modules_only);
        QVERIFY_RESULT(modules);
        QVERIFY(!modules->empty());
        for (const auto& hit : *modules) {
            QVERIFY(hit.role.empty());
        }
    }

    // search() pages in steps (the text's matches in memory, the ids in order,
    // then each one's columns) and search_page() counts in the same read:
    // every page, every `matched` and every count equal what the single
    // statements they replaced gave, for every order, text and filter.
    void searchPagesEqualTheStatementsTheyReplaced() {
        using catalog::SortColumn;
        ReferenceSearch reference(two_roots_->path());
        const auto fx = entries_of_kind(devset_entries_, FileKind::FxGraph);
        QVERIFY(!fx.empty());
        const std::string key_prefix = fx.front().key.substr(0, 8);
        std::vector<catalog::SearchQuery> queries;
        for (const SortColumn sort :
             {SortColumn::Location, SortColumn::Kind, SortColumn::Key, SortColumn::KeyEntries,
              SortColumn::Size, SortColumn::Modified, SortColumn::Device, SortColumn::CompileTime,
              SortColumn::Guards, SortColumn::Role}) {
            for (const bool descending : {false, true}) {
                for (const std::string& words :
                     {std::string(), std::string("triton"), std::string("triton_poi fused"),
                      std::string("cudagraphs"), std::string("tl.sqrt_rn"), key_prefix,
                      std::string("zqxjkv")}) {
                    for (const auto& [limit, offset] :
                         {std::pair{kNoLimit, std::size_t{0}},
                          std::pair{std::size_t{7}, std::size_t{3}}}) {
                        catalog::SearchQuery query;
                        query.sort = sort;
                        query.descending = descending;
                        query.text = words;
                        query.limit = limit;
                        query.offset = offset;
                        queries.push_back(query);
                    }
                }
            }
        }
        for (const char* words : {"", "triton", "cudagraphs", "triton_per", "XBLOCK"}) {
            auto add = [&](auto change) {
                catalog::SearchQuery query = unlimited();
                query.text = words;
                change(query);
                queries.push_back(query);
            };
            // Each kind alone: the search reads only the columns a kind fills.
            for (int kind = 0; kind <= static_cast<int>(FileKind::Unknown); ++kind) {
                add([&](auto& q) { q.kinds = {static_cast<FileKind>(kind)}; });
            }
            add([](auto& q) { q.kinds = {FileKind::Module}; });
            add([](auto& q) { q.kinds = {FileKind::FxGraph, FileKind::Triton}; });
            add([&](auto& q) { q.root = cpu_dev_.string(); });
            add([](auto& q) { q.device = "cuda"; });
            add([](auto& q) { q.has_guards = true; });
            add([](auto& q) { q.has_guards = false; });
            add([](auto& q) {
                q.min_size = 4096;
                q.max_size = 65536;
            });
            add([](auto& q) {
                q.kinds = {FileKind::FxGraph};
                q.device = "cuda";
                q.limit = 5;
                q.offset = 2;
            });
        }
        for (const auto& query : queries) {
            const std::string what =
                "text '" + query.text + "', sort " + std::to_string(static_cast<int>(query.sort)) +
                (query.descending ? " descending" : "") + ", limit " + std::to_string(query.limit);
            auto page = two_roots_->search_page(query);
            QVERIFY_RESULT(page);
            QStringList got;
            for (const auto& hit : page->hits) {
                std::string fields;
                for (const auto& field : hit.matched) {
                    fields += (fields.empty() ? "" : ",") + field;
                }
                got << text(std::to_string(hit.entry_id) + "|" + fields);
            }
            got << text("total " + std::to_string(page->total));
            QStringList expected;
            for (const auto& row : reference.page(query)) {
                expected << text(row);
            }
            if (got != expected) {
                qWarning("%s", what.c_str());
            }
            QCOMPARE(got, expected);
            // search() and count() alone give the same.
            auto hits = two_roots_->search(query);
            QVERIFY_RESULT(hits);
            QCOMPARE(hits->size(), page->hits.size());
            for (std::size_t i = 0; i < hits->size(); ++i) {
                QCOMPARE((*hits)[i].entry_id, page->hits[i].entry_id);
                QCOMPARE((*hits)[i].matched, page->hits[i].matched);
            }
            auto count = two_roots_->count(query);
            QVERIFY_RESULT(count);
            QCOMPARE(*count, page->total);
        }
    }

    // 3. Incremental indexing.

    // search_ids() filters and sorts in memory (EntryIndex), search() in SQL:
    // for every filter, text and order, the two give the same rows in the same order.
    void searchIdsAgreeWithSearchForEveryFilterAndOrder() {
        using catalog::SortColumn;
        std::vector<catalog::SearchQuery> queries;
        auto add = [&](auto change) {
            catalog::SearchQuery query = unlimited();
            change(query);
            queries.push_back(query);
        };
        const auto entries = all_entries();
        std::vector<std::int64_t> mtimes;
        for (const auto& [place, entry] : entries) {
            mtimes.push_back(entry->mtime_ns);
        }
        std::sort(mtimes.begin(), mtimes.end());
        const std::int64_t middle_mtime = mtimes[mtimes.size() / 2];
        for (const SortColumn sort :
             {SortColumn::Location, SortColumn::Kind, SortColumn::Key, SortColumn::KeyEntries,
              SortColumn::Size, SortColumn::Modified, SortColumn::Device, SortColumn::CompileTime,
              SortColumn::Guards, SortColumn::Role}) {
            for (const bool descending : {false, true}) {
                for (const char* words : {"", "triton", "poi", "cudagraphs", "zqxjkv"}) {
                    add([&](auto& q) {
                        q.sort = sort;
                        q.descending = descending;
                        q.text = words;
                    });
                }
            }
        }
        add([](auto& q) { q.kinds = {FileKind::FxGraph, FileKind::Triton}; });
        add([&](auto& q) { q.root = cpu_dev_.string(); });
        add([&](auto& q) { q.root = (cpu_dev_ / "nowhere").string(); });
        for (const char* device : {"cpu", "cuda", "CUDA", "cu", ""}) {
            add([&](auto& q) { q.device = device; });
        }
        for (const bool guards : {true, false}) {
            add([&](auto& q) { q.has_guards = guards; });
        }
        add([](auto& q) {
            q.min_size = 4096;
            q.max_size = 65536;
        });
        add([&](auto& q) { q.modified_after_ns = middle_mtime; });
        add([&](auto& q) { q.modified_before_ns = middle_mtime; });
        add([&](auto& q) {
            q.text = "triton";
            q.kinds = {FileKind::Module};
            q.root = devset_.string();
            q.sort = SortColumn::Size;
            q.descending = true;
        });

        auto index = two_roots_->load_index();
        QVERIFY_RESULT(index);
        QCOMPARE(index->size(), entries.size());
        for (const auto& query : queries) {
            auto hits = two_roots_->search(query);
            QVERIFY_RESULT(hits);
            std::vector<std::int64_t> expected;
            for (const auto& hit : *hits) {
                expected.push_back(hit.entry_id);
            }
            auto ids = two_roots_->search_ids(query);
            QVERIFY_RESULT(ids);
            const std::string what = "text '" + query.text + "', sort " +
                                     std::to_string(static_cast<int>(query.sort)) +
                                     (query.descending ? " descending" : "");
            QVERIFY2(*ids == expected, what.c_str());
            // One index, many selections: what the entry table does.
            auto matches = two_roots_->text_match_ids(query.text);
            QVERIFY_RESULT(matches);
            const auto selected =
                *matches ? index->select(query, std::span(**matches)) : index->select(query);
            QVERIFY2(selected == expected, what.c_str());
        }
    }

    void reindexMatchesAFreshCatalogAfterEachChange() {
        QTemporaryDir temp;
        const fs::path root = path_of(temp) / "cache";
        test::copy_tree(devset_, root);
        const std::vector<fs::path> roots{root, cpu_dev_};
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        sqlite3* db = catalog->handle();
        const std::string location = catalog::root_location(root);
        std::size_t total = devset_entries_.size();
        auto index = [&](std::size_t parsed, std::size_t removed) {
            auto report = catalog->index(root);
            QVERIFY_RESULT(report);
            QCOMPARE(report->parsed, parsed);
            QCOMPARE(report->removed, removed);
            QCOMPARE(report->unchanged, total - parsed);
            QCOMPARE(report->entries, total);
            QCOMPARE(report->parse_errors, 0u);
        };
        auto entry_row = [&](const std::string& path) {
            const auto rows = test::query_rows(
                db, "SELECT e.id, e.mtime_ns, e.parse_status FROM entries e JOIN roots r ON r.id "
                    "= e.root_id WHERE r.location = '" +
                        location + "' AND e.path = '" + path + "'");
            return rows.empty() ? std::string() : rows.front();
        };

        index(total, 0);

        RETURN_IF_FAILED();
        QVERIFY_RESULT(catalog->index(cpu_dev_));
        VERIFY_LIKE_FRESH(*catalog, roots);

        // Unchanged: nothing parsed, nothing rewritten.
        const std::string before = test::canonical_dump(*catalog);
        index(0, 0);
        RETURN_IF_FAILED();
        const std::string unchanged_difference =
            test::first_difference(before, test::canonical_dump(*catalog));
        QVERIFY2(unchanged_difference.empty(), unchanged_difference.c_str());

        // A new mtime alone.
        const auto fx_entries = entries_of_kind(devset_entries_, FileKind::FxGraph);
        const cachedir::Entry& touched = fx_entries.front();
        const std::int64_t touched_mtime = identity_of(root / touched.path).mtime_ns + kSecond;
        QVERIFY(set_mtime(root / touched.path, touched_mtime));
        index(1, 0);
        RETURN_IF_FAILED();
        QVERIFY(entry_row(touched.path).find("|" + std::to_string(touched_mtime) + "|ok") !=
                std::string::npos);
        VERIFY_LIKE_FRESH(*catalog, roots);

        // The same bytes and mtime under a new inode, as an atomic rewrite leaves them.
        const auto modules = entries_of_kind(devset_entries_, FileKind::Module);
        const cachedir::Entry& rewritten = modules[3];
        const fs::path module = root / rewritten.path;
        const FileIdentity old_identity = identity_of(module);
        const fs::path copy = module.string() + ".rewrite";
        fs::copy_file(module, copy);
        QVERIFY(set_mtime(copy, old_identity.mtime_ns));
        fs::rename(copy, module);
        const FileIdentity new_identity = identity_of(module);
        QVERIFY(new_identity.inode != old_identity.inode);
        QCOMPARE(new_identity.mtime_ns, old_identity.mtime_ns);
        QCOMPARE(new_identity.size, old_identity.size);
        index(1, 0);
        RETURN_IF_FAILED();
        VERIFY_LIKE_FRESH(*catalog, roots);

        // A deleted FX entry: its rows go, and so do the debug lines only it used.
        const auto lines_before = fx_line_ids(db);
        const cachedir::Entry* deleted = nullptr;
        std::set<std::int64_t> only_its_lines;
        for (const auto& entry : fx_entries) {
            only_its_lines = lines_before.at(where(location, entry.path));
            for (const auto& [place, ids] : lines_before) {
                if (place != where(location, entry.path)) {
                    for (std::int64_t id : ids) {
                        only_its_lines.erase(id);
                    }
                }
            }
            if (!only_its_lines.empty()) {
                deleted = &entry;
                break;
            }
        }
        QVERIFY2(deleted != nullptr, "some FX entry has debug lines of its own");
        const std::string deleted_row = entry_row(deleted->path);
        const std::string deleted_id = deleted_row.substr(0, deleted_row.find('|'));
        std::string its_line_ids;
        for (std::int64_t id : only_its_lines) {
            its_line_ids += (its_line_ids.empty() ? "" : ",") + std::to_string(id);
        }
        const auto its_lines = test::query_rows(
            db, "SELECT hash, name FROM debug_lines WHERE id IN (" + its_line_ids + ")");
        QCOMPARE(its_lines.size(), only_its_lines.size());
        const auto rows_before = test::table_row_counts(db);
        QVERIFY(fs::remove(root / deleted->path));
        --total;
        index(0, 1);
        RETURN_IF_FAILED();
        QVERIFY(entry_row(deleted->path).empty());
        const auto rows_after = test::table_row_counts(db);
        QCOMPARE(rows_after.at("entries"), rows_before.at("entries") - 1);
        QCOMPARE(rows_after.at("files"), rows_before.at("files") - 1);
        QCOMPARE(rows_after.at("fx_entries"), rows_before.at("fx_entries") - 1);
        QCOMPARE(rows_after.at("entry_search"), rows_before.at("entry_search") - 1);
        QCOMPARE(rows_after.at("debug_lines"),
                 rows_before.at("debug_lines") - static_cast<std::int64_t>(its_lines.size()));
        for (const char* table : {"files", "fx_entries", "kernels", "triton_refs"}) {
            QCOMPARE(test::query_integer(db, std::string("SELECT COUNT(*) FROM ") + table +
                                                 " WHERE entry_id = " + deleted_id),
                     std::int64_t{0});
        }
        QCOMPARE(test::query_integer(db, "SELECT COUNT(*) FROM entry_search WHERE rowid = " +
                                             deleted_id),
                 std::int64_t{0});
        for (const auto& line : its_lines) {
            const auto bar = line.find('|');
            QCOMPARE(test::query_integer(db, "SELECT COUNT(*) FROM debug_lines WHERE hash = '" +
                                                 line.substr(0, bar) + "' AND name = '" +
                                                 line.substr(bar + 1) + "'"),
                     std::int64_t{0});
        }
        VERIFY_LIKE_FRESH(*catalog, roots);

        // A new Triton kernel dir: a copy of one under another hash of the same alphabet.
        const auto kernels = entries_of_kind(devset_entries_, FileKind::Triton);
        const cachedir::Entry& kernel = kernels.front();
        QVERIFY(!kernel.name.empty());
        std::string new_path = kernel.path;
        for (char c : std::string_view("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")) {
            new_path.back() = c;
            if (!fs::exists(root / new_path)) {
                break;
            }
        }
        QVERIFY(!fs::exists(root / new_path));
        fs::copy(root / kernel.path, root / new_path, fs::copy_options::recursive);
        ++total;
        index(1, 0);
        RETURN_IF_FAILED();
        QVERIFY(entry_row(new_path).ends_with("|ok"));
        catalog::SearchQuery by_name = unlimited();
        by_name.text = kernel.name;
        by_name.root = location;
        by_name.kinds = {FileKind::Triton};
        auto named = catalog->search(by_name);
        QVERIFY_RESULT(named);
        QVERIFY(std::any_of(named->begin(), named->end(),
                            [&](const auto& hit) { return hit.path == new_path; }));
        VERIFY_LIKE_FRESH(*catalog, roots);

        // A forgotten root: all of its rows go, the other root's stay as they were.
        const std::string other_rows =
            "SELECT e.id, e.path, f.id, f.path FROM entries e JOIN files f ON f.entry_id = e.id "
            "JOIN roots r ON r.id = e.root_id WHERE r.location = '" +
            catalog::root_location(cpu_dev_) + "' ORDER BY e.id, f.id";
        const auto other_before = test::query_rows(db, other_rows);
        QCOMPARE(other_before.size(), cpu_dev_entries_.size());
        QVERIFY_RESULT(catalog->forget_root(root));
        QVERIFY(test::query_rows(db, other_rows) == other_before);
        auto left = catalog->roots();
        QVERIFY_RESULT(left);
        QCOMPARE(left->size(), 1u);
        QCOMPARE(left->front().location, catalog::root_location(cpu_dev_));
        QCOMPARE(test::query_integer(db, "SELECT COUNT(*) FROM entries e JOIN roots r ON r.id = "
                                         "e.root_id WHERE r.location <> '" +
                                             catalog::root_location(cpu_dev_) + "'"),
                 std::int64_t{0});
        QCOMPARE(test::query_integer(db, "SELECT COUNT(*) FROM entries"),
                 static_cast<std::int64_t>(cpu_dev_entries_.size()));
        VERIFY_LIKE_FRESH(*catalog, std::vector<fs::path>{cpu_dev_});
    }

    // What a watch saw written, indexed by its paths alone (index_paths):
    // after each kind of change the catalog holds what one built from nothing
    // holds, and only the entries those paths belong to were read.
    void indexPathsMatchesAFreshCatalogAfterEachChange() {
        QTemporaryDir temp;
        const fs::path root = path_of(temp) / "cache";
        test::copy_tree(devset_, root);
        const std::vector<fs::path> roots{root};
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        sqlite3* db = catalog->handle();
        std::size_t total = devset_entries_.size();
        const auto index_paths = [&](const std::vector<std::string>& paths, std::size_t parsed,
                                     std::size_t unchanged, std::size_t removed) {
            auto report = catalog->index_paths(root, paths);
            QVERIFY_RESULT(report);
            QCOMPARE(report->parsed, parsed);
            QCOMPARE(report->unchanged, unchanged);
            QCOMPARE(report->removed, removed);
            QCOMPARE(report->entries, total);
            QCOMPARE(report->parse_errors, 0u);
        };

        // A dir the catalog does not hold yet is indexed whole.
        const auto fx_entries = entries_of_kind(devset_entries_, FileKind::FxGraph);
        index_paths({fx_entries.front().path}, total, 0, 0);
        RETURN_IF_FAILED();
        auto roots_after = catalog->roots();
        QVERIFY_RESULT(roots_after);
        QCOMPARE(roots_after->size(), 1u);
        QVERIFY(roots_after->front().indexed_ns.has_value());
        VERIFY_LIKE_FRESH(*catalog, roots);

        // Paths of entries that did not change: read, not parsed.
        const auto modules = entries_of_kind(devset_entries_, FileKind::Module);
        index_paths({fx_entries.front().path, modules.front().path}, 0, 2, 0);
        RETURN_IF_FAILED();

        // A new mtime; the same bytes under a new inode.
        QVERIFY(set_mtime(root / fx_entries.front().path,
                          identity_of(root / fx_entries.front().path).mtime_ns + kSecond));
        const fs::path module = root / modules[3].path;
        const FileIdentity old_identity = identity_of(module);
        fs::copy_file(module, module.string() + ".rewrite");
        QVERIFY(set_mtime(module.string() + ".rewrite", old_identity.mtime_ns));
        fs::rename(module.string() + ".rewrite", module);
        index_paths({fx_entries.front().path, modules[3].path}, 2, 0, 0);
        RETURN_IF_FAILED();
        VERIFY_LIKE_FRESH(*catalog, roots);

        // A deleted FX entry: its rows go, and the debug lines only it used.
        // (The first entry stays: it is copied below.)
        auto own_lines = fx_entries_with_own_lines(db, catalog::root_location(root));
        std::erase(own_lines, fx_entries.front().path);
        QVERIFY(own_lines.size() >= 2);
        const std::string deleted = own_lines[0];
        const std::string replaced = own_lines[1];
        QVERIFY(fs::remove(root / deleted));
        --total;
        index_paths({deleted}, 0, 0, 1);
        RETURN_IF_FAILED();
        VERIFY_LIKE_FRESH(*catalog, roots);

        // A new Triton kernel dir, named by its files as a watch gives them.
        const auto kernels = entries_of_kind(devset_entries_, FileKind::Triton);
        const cachedir::Entry& kernel = kernels.front();
        std::string new_path = kernel.path;
        for (char c : std::string_view("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")) {
            new_path.back() = c;
            if (!fs::exists(root / new_path)) {
                break;
            }
        }
        fs::copy(root / kernel.path, root / new_path, fs::copy_options::recursive);
        std::vector<std::string> kernel_files;
        for (const auto& file : fs::directory_iterator(root / new_path)) {
            kernel_files.push_back(new_path + "/" + file.path().filename().string());
        }
        QVERIFY(kernel_files.size() > 1);
        ++total;
        index_paths(kernel_files, 1, 0, 0);
        RETURN_IF_FAILED();
        VERIFY_LIKE_FRESH(*catalog, roots);

        // A new FX entry under a key of its own, and one graph rewritten in
        // place of another: the lines the replaced one alone used are collected.
        const fs::path entry_file = root / fx_entries.front().path;
        const fs::path new_key_dir = entry_file.parent_path().parent_path() /
                                     (entry_file.parent_path().filename().string() + "x");
        fs::create_directories(new_key_dir);
        fs::copy_file(entry_file, new_key_dir / entry_file.filename());
        const std::string new_fx =
            fs::relative(new_key_dir / entry_file.filename(), root).generic_string();
        ++total;
        index_paths({new_fx}, 1, 0, 0);
        RETURN_IF_FAILED();
        fs::copy_file(entry_file, root / replaced, fs::copy_options::overwrite_existing);
        index_paths({replaced}, 1, 0, 0);
        RETURN_IF_FAILED();
        QVERIFY(test::dangling_rows(db).empty());
        VERIFY_LIKE_FRESH(*catalog, roots);

        // An index caught a module and a Triton kernel being written (a temp
        // name beside it; a tmp.* staging dir): once they are renamed into
        // place, the paths of what they became take the temp entries away.
        const fs::path module_source = root / modules[2].path;
        const fs::path temp_module = module_source.parent_path() / ".cnew.py.123.456.tmp";
        fs::copy_file(module_source, temp_module);
        const fs::path staging = (root / kernel.path).parent_path() / "tmp.pid_123_456";
        fs::copy(root / kernel.path, staging, fs::copy_options::recursive);
        QVERIFY_RESULT(catalog->index(root));
        total += 1 + static_cast<std::size_t>(
                         std::distance(fs::directory_iterator(staging), fs::directory_iterator()));
        VERIFY_LIKE_FRESH(*catalog, roots);
        const fs::path new_module = module_source.parent_path() / "cnew.py";
        fs::rename(temp_module, new_module);
        std::string staged_path = kernel.path;
        staged_path.back() = staged_path.back() == 'Q' ? 'R' : 'Q';
        QVERIFY(!fs::exists(root / staged_path));
        fs::rename(staging, root / staged_path);
        std::vector<std::string> renamed{fs::relative(new_module, root).generic_string()};
        for (const auto& file : fs::directory_iterator(root / staged_path)) {
            renamed.push_back(staged_path + "/" + file.path().filename().string());
        }
        total = total - (renamed.size() - 1) - 1 + 2; // temps gone; a module and a kernel in
        auto moved = catalog->index_paths(root, renamed);
        QVERIFY_RESULT(moved);
        QCOMPARE(moved->parsed, 2u);
        QCOMPARE(moved->removed, renamed.size()); // the temp module and each staged file
        QCOMPARE(moved->entries, total);
        VERIFY_LIKE_FRESH(*catalog, roots);

        // Files deleted elsewhere are index()'s to notice, not a watch's paths'.
        QVERIFY(fs::remove(root / modules[0].path));
        index_paths({modules[1].path}, 0, 1, 0);
        RETURN_IF_FAILED();
        auto full = catalog->index(root);
        QVERIFY_RESULT(full);
        QCOMPARE(full->removed, 1u);
        QCOMPARE(full->parsed, 0u);

        // A path out of the dir is refused, and nothing is written.
        const std::string before = test::canonical_dump(*catalog);
        auto refused = catalog->index_paths(root, std::vector<std::string>{"../catalog.sqlite"});
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::InvalidArgument);
        QVERIFY(test::first_difference(before, test::canonical_dump(*catalog)).empty());
    }

    // A kill after an index committed its removals but before it collected
    // the debug lines they freed leaves this state; the next index, with
    // nothing left to parse or remove, must still finish the job.
    void reindexCompletesACleanupCutShort() {
        QTemporaryDir temp;
        const fs::path root = path_of(temp) / "cache";
        test::copy_tree(cpu_dev_, root);
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        QVERIFY_RESULT(catalog->index(root));
        sqlite3* db = catalog->handle();
        const auto lines = test::query_integer(db, "SELECT COUNT(*) FROM debug_lines");
        const auto fx = entries_of_kind(cpu_dev_entries_, FileKind::FxGraph);
        QVERIFY(fs::remove(root / fx.front().path));
        // What the removal transaction commits: the root's index started, the entry gone.
        const std::string removal = "BEGIN; UPDATE roots SET index_started_ns = "
                                    "index_completed_ns + 1; DELETE FROM entries WHERE path = '" +
                                    fx.front().path + "'; COMMIT;";
        QCOMPARE(sqlite3_exec(db, removal.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        QVERIFY(!test::dangling_rows(db).empty());
        auto report = catalog->index(root);
        QVERIFY_RESULT(report);
        QCOMPARE(report->parsed, 0u);
        QCOMPARE(report->removed, 0u);
        QVERIFY(test::query_integer(db, "SELECT COUNT(*) FROM debug_lines") < lines);
        VERIFY_LIKE_FRESH(*catalog, std::vector<fs::path>{root});
    }

    // 4. Migrations.

    void opensAndIndexesEveryEarlierSchema_data() {
        QTest::addColumn<int>("version");
        for (int version = 0; version < catalog::kSchemaVersion; ++version) {
            QTest::addRow("from v%d", version) << version;
        }
    }

    void opensAndIndexesEveryEarlierSchema() {
        QFETCH(int, version);
        // Migration 2 added debug lines and search, and marked every entry
        // stale; migrations 4 (the FX graphs' roles) and 5 (their debug-line
        // ids in a table of their own) marked the FX entries stale.
        constexpr int kFirstWithSearch = 2;
        constexpr int kFirstWithLineTable = 5;
        QTemporaryDir temp;
        const fs::path root = path_of(temp) / "cache";
        test::copy_tree(test::sample_cache(), root);
        const fs::path reference_path = path_of(temp) / "reference.sqlite";
        std::size_t entries = 0;
        {
            auto reference = catalog::Catalog::open(reference_path);
            QVERIFY_RESULT(reference);
            auto report = reference->index(root);
            QVERIFY_RESULT(report);
            entries = report->entries;
        }
        QVERIFY(entries > 50);
        std::size_t fx_entries = 0;
        {
            auto reference = catalog::Catalog::open(reference_path);
            QVERIFY_RESULT(reference);
            fx_entries = static_cast<std::size_t>(test::query_integer(
                reference->handle(), "SELECT COUNT(*) FROM entries WHERE kind = 'fxgraph'"));
        }
        QVERIFY(fx_entries > 0);

        // The old catalog: the schema of `version`, with the rows a cachelens
        // of that version wrote for this dir (the reference's, in the columns
        // that version had).
        const fs::path old_path = path_of(temp) / "old.sqlite";
        {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(old_path.c_str(), &db), SQLITE_OK);
            const auto migrated = catalog::migrate(db, version);
            auto version_now = catalog::schema_version(db);
            const bool ok = migrated.has_value() && version_now.has_value();
            if (ok && version >= 1) {
                fill_from(db, reference_path);
            }
            sqlite3_close(db);
            QVERIFY_RESULT(migrated);
            QVERIFY_RESULT(version_now);
            QCOMPARE(*version_now, version);
            if (QTest::currentTestFailed()) {
                return;
            }
        }
        auto catalog = catalog::Catalog::open(old_path);
        QVERIFY_RESULT(catalog);
        sqlite3* db = catalog->handle();
        auto version_now = catalog::schema_version(db);
        QVERIFY_RESULT(version_now);
        QCOMPARE(*version_now, catalog::kSchemaVersion);
        const bool stale = version >= 1 && version < kFirstWithSearch;
        const bool fx_stale = version >= 1 && version < kFirstWithLineTable;
        const std::size_t parsed =
            version == 0 || stale ? entries : (fx_stale ? fx_entries : std::size_t{0});
        if (version >= 1) {
            QCOMPARE(test::query_integer(db, "SELECT COUNT(*) FROM entries"),
                     static_cast<std::int64_t>(entries));
            QCOMPARE(test::query_integer(
                         db, "SELECT COUNT(*) FROM entries WHERE parse_status = 'stale'"),
                     static_cast<std::int64_t>(parsed));
        }
        auto report = catalog->index(root);
        QVERIFY_RESULT(report);
        QCOMPARE(report->parsed, parsed);
        QCOMPARE(report->unchanged, entries - parsed);
        QCOMPARE(report->removed, 0u);
        VERIFY_LIKE_FRESH(*catalog, std::vector<fs::path>{root});
    }

    void manyConnectionsCreatingOneCatalogAtOnce() {
        // The GUI's jobs each open the catalog; on a first start they all
        // find it empty at the same moment. One migrates, the others wait.
        QTemporaryDir temp;
        const fs::path path = path_of(temp) / "new.sqlite";
        std::vector<std::thread> threads;
        std::vector<std::string> errors(6);
        for (std::size_t i = 0; i < errors.size(); ++i) {
            threads.emplace_back([&, i] {
                auto opened = catalog::Catalog::open(path);
                if (!opened) {
                    errors[i] = opened.error().describe();
                }
            });
        }
        for (auto& thread : threads) {
            thread.join();
        }
        for (const auto& error : errors) {
            QVERIFY2(error.empty(), error.c_str());
        }
        auto opened = catalog::Catalog::open(path);
        QVERIFY_RESULT(opened);
        QCOMPARE(test::query_integer(opened->handle(), "SELECT COUNT(*) FROM schema_version"),
                 std::int64_t(1));
    }

    // Catalog::find_entry: what the GUI's --select, links and Browse page resolve.
    void findEntryByKeyPathNameAndPrefix() {
        QTemporaryDir temp;
        auto opened = catalog::Catalog::open(path_of(temp) / "find.sqlite");
        QVERIFY_RESULT(opened);
        catalog::Catalog& catalog = *opened;
        const fs::path multi = test::fixture("multi_dev/cache");
        for (const auto& root : {devset_, multi}) {
            QVERIFY_RESULT(catalog.index(root));
        }
        const std::string fx_key = "f4h6wj3z2ch3hwiotz5hct4ivdtd6blgc4qcfuyiepcwtjzdmfuy";
        const std::string fx_path =
            "fxgraph/4h/" + fx_key + "/wb5pwutyolod2kkboe3mgfb2jxkgnulf4zpbmjrt6txut7urnto";
        const auto find = [&](std::string_view query, FileKind kind = FileKind::Unknown,
                              std::optional<fs::path> root = std::nullopt,
                              std::optional<fs::path> avoid = std::nullopt) {
            auto found = catalog.find_entry(query, kind, root, avoid);
            if (!found) {
                qFatal("%s", found.error().describe().c_str());
            }
            return std::move(*found);
        };

        // A key; the id is the catalog's own.
        auto by_key = find(fx_key);
        QVERIFY(by_key.has_value());
        QCOMPARE(by_key->root, catalog::root_location(devset_));
        QCOMPARE(by_key->path, fx_path);
        QCOMPARE(by_key->kind, FileKind::FxGraph);
        auto by_id = catalog.entries_by_id(std::vector<std::int64_t>{by_key->entry_id});
        QVERIFY_RESULT(by_id);
        QCOMPARE(by_id->size(), std::size_t{1});
        QCOMPARE(by_id->front().path, fx_path);

        // A path, relative (to any root) or absolute, and a key dir.
        QCOMPARE(find(fx_path)->path, fx_path);
        QCOMPARE(find((devset_ / fx_path).string())->path, fx_path);
        QCOMPARE(find("fxgraph/4h/" + fx_key + "/")->path, fx_path);
        QVERIFY(!find((devset_ / "fxgraph/4h/nothing").string()));
        QVERIFY(!find("/nowhere/fxgraph/4h/" + fx_key));

        // A key names both of multi_dev's entries: the first; a path beats
        // that, naming exactly its own.
        const std::string multi_key = "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
        const std::string multi_dir = "fxgraph/tk/" + multi_key + "/";
        const std::string first = multi_dir + "hjhnw6azgd6tla6trsnehzke4j5doxsegqmai4fpurmrc2yqoas";
        const std::string second =
            multi_dir + "ndyhf46ldwmlkvpp4mky6repcjnctgzt5cojksekpxljmat467r";
        QCOMPARE(find(multi_key)->path, first);
        QCOMPARE(find(second)->path, second);
        QCOMPARE(find((multi / second).string())->path, second);

        // A Triton kernel by its name, its hash and a file in its dir.
        const std::string winner = "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA";
        auto by_name = find("triton_red_fused_cat_cumsum_sin_0");
        QVERIFY(by_name.has_value());
        QCOMPARE(by_name->kind, FileKind::Triton);
        QCOMPARE(by_name->name, std::string("triton_red_fused_cat_cumsum_sin_0"));
        QCOMPARE(find(winner)->path, "triton/0/" + winner);
        QCOMPARE(find("triton/0/" + winner + "/triton_red_fused_cat_cumsum_sin_0.ptx")->path,
                 "triton/0/" + winner);

        // The start of one key, of one kind, when prefixes are accepted:
        // that key's entry; else nothing.
        const auto find_prefix = [&](std::string_view query, FileKind kind = FileKind::Unknown) {
            auto found = catalog.find_entry(query, kind, std::nullopt, std::nullopt,
                                            catalog::Catalog::KeyPrefix::Accepted);
            if (!found) {
                qFatal("%s", found.error().describe().c_str());
            }
            return std::move(*found);
        };
        QCOMPARE(find_prefix(fx_key.substr(0, 12))->path, fx_path);
        QCOMPARE(find_prefix(multi_key.substr(0, 10), FileKind::FxGraph)->path, first);
        QVERIFY(!find(fx_key.substr(0, 12)));
        // Fewer than 4 characters name nothing (as `cachelens show` reads them).
        QVERIFY(!find_prefix("f4h"));
        // The start of several: an error naming them.
        const fs::path pair = path_of(temp) / "pair";
        fs::create_directories(pair / "ab");
        for (const char* name : {"abcd0001", "abcd0002"}) {
            std::ofstream(pair / "ab" / (std::string(name) + ".best_config")) << "{}";
        }
        QVERIFY_RESULT(catalog.index(pair));
        auto ambiguous = catalog.find_entry("abcd", FileKind::Unknown, std::nullopt, std::nullopt,
                                            catalog::Catalog::KeyPrefix::Accepted);
        QVERIFY(!ambiguous);
        QCOMPARE(ambiguous.error().kind, ErrorKind::InvalidArgument);
        QVERIFY2(ambiguous.error().message.find("is the start of") != std::string::npos,
                 ambiguous.error().message.c_str());

        // The kind and root filters.
        QVERIFY(!find(fx_key, FileKind::Module));
        QVERIFY(find(fx_key, FileKind::FxGraph).has_value());
        QVERIFY(!find(fx_key, FileKind::Unknown, multi));
        QCOMPARE(find(fx_key, FileKind::Unknown, devset_)->path, fx_path);
        // An absolute path in another root than the filter's names nothing.
        QVERIFY(!find((devset_ / fx_path).string(), FileKind::Unknown, multi));

        // No match.
        QVERIFY(!find("nosuchkeyanywhere"));
        QVERIFY(!find(""));
    }

    void findEntryPrefersAPathAndAnotherRoot() {
        QTemporaryDir temp;
        const fs::path copy = path_of(temp) / "copy";
        test::copy_tree(devset_, copy);
        auto opened = catalog::Catalog::open(path_of(temp) / "find.sqlite");
        QVERIFY_RESULT(opened);
        catalog::Catalog& catalog = *opened;
        for (const auto& root : {devset_, copy}) {
            QVERIFY_RESULT(catalog.index(root));
        }
        const std::string fx_key = "f4h6wj3z2ch3hwiotz5hct4ivdtd6blgc4qcfuyiepcwtjzdmfuy";
        const std::string fx_path =
            "fxgraph/4h/" + fx_key + "/wb5pwutyolod2kkboe3mgfb2jxkgnulf4zpbmjrt6txut7urnto";
        const std::string devset = catalog::root_location(devset_);
        const std::string copied = catalog::root_location(copy);
        const auto root_of_hit = [&](std::string_view query, std::optional<fs::path> avoid) {
            auto found = catalog.find_entry(query, FileKind::Unknown, std::nullopt, avoid,
                                            catalog::Catalog::KeyPrefix::Accepted);
            if (!found || !*found) {
                return std::string();
            }
            return (*found)->root;
        };
        // With a root to avoid, the same entry elsewhere, by key, prefix or path,
        // whichever root search order puts first.
        for (const auto& avoid : {devset_, copy}) {
            const std::string other = avoid == devset_ ? copied : devset;
            QCOMPARE(root_of_hit(fx_key, avoid), other);
            QCOMPARE(root_of_hit(fx_key.substr(0, 14), avoid), other);
            QCOMPARE(root_of_hit(fx_path, avoid), other);
            // An absolute path names its root, even the one to avoid.
            const fs::path in_avoided = (avoid == devset_ ? devset_ : copy) / fx_path;
            QCOMPARE(root_of_hit(in_avoided.string(), avoid), catalog::root_location(avoid));
        }
    }

    void refusesACatalogFromANewerCachelens() {
        QTemporaryDir temp;
        const fs::path path = path_of(temp) / "newer.sqlite";
        {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
            const auto migrated = catalog::migrate(db, catalog::kSchemaVersion);
            const std::string bump = "UPDATE schema_version SET version = " +
                                     std::to_string(catalog::kSchemaVersion + 1);
            const int rc = sqlite3_exec(db, bump.c_str(), nullptr, nullptr, nullptr);
            sqlite3_close(db);
            QVERIFY_RESULT(migrated);
            QCOMPARE(rc, SQLITE_OK);
        }
        auto catalog = catalog::Catalog::open(path);
        QVERIFY(!catalog);
        const QString message = text(catalog.error().describe());
        QVERIFY2(message.contains(text(path.string())), qPrintable(message));
        QVERIFY2(message.contains("newer"), qPrintable(message));
        QVERIFY2(message.contains(QString::number(catalog::kSchemaVersion + 1)),
                 qPrintable(message));
    }

    void refusesAFileThatIsNoDatabase() {
        QTemporaryDir temp;
        const fs::path path = path_of(temp) / "garbage.sqlite";
        std::mt19937 random(20240601);
        QByteArray garbage(16384, '\0');
        for (auto& byte : garbage) {
            byte = static_cast<char>(random() & 0xff);
        }
        {
            std::ofstream out(path, std::ios::binary);
            out.write(garbage.constData(), garbage.size());
        }
        auto catalog = catalog::Catalog::open(path);
        QVERIFY(!catalog);
        const QString message = text(catalog.error().describe());
        QVERIFY2(message.contains(text(path.string())), qPrintable(message));
        QVERIFY2(message.contains("not a database"), qPrintable(message));
        QCOMPARE(test::read_file(path), garbage);
        QVERIFY(!fs::exists(path.string() + "-wal"));
    }

private:
    // Copies the reference catalog's rows into `db`, in the columns `db`'s
    // tables have. Full-text indexes fill themselves (debug_lines_fts by
    // trigger) or are copied (entry_search).
    static void fill_from(sqlite3* db, const fs::path& reference) {
        const std::string attach = "ATTACH DATABASE '" + reference.string() + "' AS reference";
        QCOMPARE(sqlite3_exec(db, attach.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        const auto tables = test::query_rows(
            db, "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE "
                "'sqlite_%' AND name <> 'schema_version' AND sql NOT LIKE 'CREATE VIRTUAL%' AND "
                "name NOT LIKE 'entry_search_%' AND name NOT LIKE 'debug_lines_fts_%'");
        QVERIFY(tables.size() >= 10);
        std::string copy = "BEGIN;";
        for (const auto& table : tables) {
            // The columns both schemas have: one the reference no longer has
            // (fx_entries.debug_line_ids before version 5) stays NULL, as the
            // entries it belongs to are parsed again.
            std::string columns;
            for (const auto& column : test::query_rows(
                     db, "SELECT name FROM pragma_table_info('" + table +
                             "', 'main') WHERE name IN (SELECT name FROM pragma_table_info('" +
                             table + "', 'reference'))")) {
                columns += (columns.empty() ? "" : ", ") + column;
            }
            copy += "INSERT INTO main." + table + " (" + columns + ") SELECT " + columns +
                    " FROM reference." + table + ";";
        }
        if (test::query_integer(db, "SELECT COUNT(*) FROM main.sqlite_master WHERE name = "
                                    "'entry_search'") == 1) {
            copy += "INSERT INTO main.entry_search (rowid, keys, names, body) SELECT rowid, "
                    "keys, names, body FROM reference.entry_search;";
        }
        copy += "COMMIT; DETACH DATABASE reference;";
        char* message = nullptr;
        const int rc = sqlite3_exec(db, copy.c_str(), nullptr, nullptr, &message);
        const QString error = message != nullptr ? QString(message) : QString();
        sqlite3_free(message);
        QVERIFY2(rc == SQLITE_OK, qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
