#include "catalog_checks.h"

#include <sqlite3.h>

#include <QtTest>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace cachelens::test {

namespace {

// The tables an index writes; bench_* and schema_version it never touches.
constexpr const char* kIndexedTables[] = {
    "roots",        "entries",           "files",
    "fx_entries",   "aot_entries",       "modules",
    "kernels",      "triton_refs",       "triton_kernels",
    "best_configs", "benchmark_choices", "debug_lines",
    "entry_search", "fx_debug_lines",
};

// The tables that hang off an entry, and what an entry of a kind must have
// when it parsed.
constexpr std::pair<const char*, const char*> kKindTables[] = {
    {"fxgraph", "fx_entries"}, {"fxgraph", "fx_debug_lines"}, {"aotautograd", "aot_entries"},
    {"module", "modules"},     {"triton", "triton_kernels"},  {"best_config", "best_configs"},
};
constexpr const char* kEntryChildTables[] = {
    "files",       "fx_entries",     "aot_entries",  "modules",           "kernels",
    "triton_refs", "triton_kernels", "best_configs", "benchmark_choices", "fx_debug_lines",
};

std::string column_text(sqlite3_stmt* statement, int column) {
    if (sqlite3_column_type(statement, column) == SQLITE_NULL) {
        return "NULL";
    }
    const auto* text = sqlite3_column_text(statement, column);
    return std::string(reinterpret_cast<const char*>(text),
                       static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
}

// Runs `sql`, calling `row` with each result row; a failure is a test failure.
template <class OnRow>
void for_each_row(sqlite3* db, const std::string& sql, OnRow row) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
        QTest::qFail(qPrintable(QString("cannot prepare %1: %2")
                                    .arg(QString::fromStdString(sql), sqlite3_errmsg(db))),
                     __FILE__, __LINE__);
        return;
    }
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
        row(statement);
    }
    if (rc != SQLITE_DONE) {
        QTest::qFail(
            qPrintable(QString("%1: %2").arg(QString::fromStdString(sql), sqlite3_errmsg(db))),
            __FILE__, __LINE__);
    }
    sqlite3_finalize(statement);
}

std::vector<std::uint32_t> line_ids_of(sqlite3_stmt* statement, int column) {
    const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement, column));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement, column));
    return decode_line_ids(std::span<const unsigned char>(data, data != nullptr ? size : 0));
}

std::vector<std::string> columns_of(sqlite3* db, const std::string& table) {
    std::vector<std::string> columns;
    for_each_row(db, "PRAGMA table_info(" + table + ")",
                 [&](sqlite3_stmt* row) { columns.push_back(column_text(row, 1)); });
    return columns;
}

// Every row of a table that hangs off entries, named by its entry's root and
// path instead of ids; line ids become the lines' hashes and names.
void dump_child_table(sqlite3* db, const std::string& table,
                      const std::unordered_map<std::uint32_t, std::string>& line_names,
                      std::vector<std::string>& out) {
    std::string select = "SELECT r.location || '|' || e.path";
    std::vector<std::string> names;
    for (const auto& column : columns_of(db, table)) {
        if (column != "id" && column != "entry_id") {
            select += ", t." + column;
            names.push_back(column);
        }
    }
    select += " FROM " + table +
              " t JOIN entries e ON e.id = t.entry_id JOIN roots r ON r.id = "
              "e.root_id";
    std::vector<std::string> rows;
    for_each_row(db, select, [&](sqlite3_stmt* row) {
        std::string line = table + ": " + column_text(row, 0);
        for (std::size_t i = 0; i < names.size(); ++i) {
            const int column = static_cast<int>(i) + 1;
            line += '|';
            if (names[i] == "line_ids") {
                // A set, kept in id order: ids differ between catalogs, so
                // the lines are compared sorted by what they are.
                std::vector<std::string> lines;
                for (std::uint32_t id : line_ids_of(row, column)) {
                    auto it = line_names.find(id);
                    lines.push_back(it != line_names.end() ? it->second : "<missing line>");
                }
                std::sort(lines.begin(), lines.end());
                for (const auto& name : lines) {
                    line += name + ";";
                }
            } else {
                line += column_text(row, column);
            }
        }
        rows.push_back(std::move(line));
    });
    std::sort(rows.begin(), rows.end());
    out.insert(out.end(), rows.begin(), rows.end());
}

std::string describe_hit(const catalog::SearchHit& hit) {
    std::vector<std::string> matched = hit.matched;
    std::sort(matched.begin(), matched.end());
    std::string line = hit.root + "|" + std::string(cachedir::to_string(hit.kind)) + "|" +
                       hit.path + "|" + hit.parse_status + "|matched:";
    for (const auto& field : matched) {
        line += field + ",";
    }
    return line;
}

} // namespace

// Written from the format's definition (engine/src/catalog/line_ids.h), not
// with its code: LEB128 gaps, ascending. A malformed list is a test failure.
std::vector<std::uint32_t> decode_line_ids(std::span<const unsigned char> bytes) {
    std::vector<std::uint32_t> ids;
    std::uint64_t id = 0;
    std::uint64_t gap = 0;
    int shift = 0;
    for (unsigned char byte : bytes) {
        gap |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        shift += 7;
        if ((byte & 0x80) != 0) {
            continue;
        }
        id += gap;
        if (id > 0xffffffffu || (!ids.empty() && gap == 0)) {
            QTest::qFail("a debug-line id list out of order or past 2^32", __FILE__, __LINE__);
            return ids;
        }
        ids.push_back(static_cast<std::uint32_t>(id));
        gap = 0;
        shift = 0;
    }
    if (shift != 0) {
        QTest::qFail("a debug-line id list cut off inside a varint", __FILE__, __LINE__);
    }
    return ids;
}

std::map<std::string, std::int64_t> table_row_counts(sqlite3* db) {
    std::map<std::string, std::int64_t> counts;
    for (const char* table : kIndexedTables) {
        counts[table] = query_integer(db, std::string("SELECT COUNT(*) FROM ") + table);
    }
    return counts;
}

std::vector<std::string> query_rows(sqlite3* db, const std::string& sql) {
    std::vector<std::string> rows;
    for_each_row(db, sql, [&](sqlite3_stmt* row) {
        std::string line;
        for (int i = 0; i < sqlite3_column_count(row); ++i) {
            line += (i == 0 ? "" : "|") + column_text(row, i);
        }
        rows.push_back(std::move(line));
    });
    return rows;
}

std::int64_t query_integer(sqlite3* db, const std::string& sql) {
    std::int64_t value = -1;
    for_each_row(db, sql, [&](sqlite3_stmt* row) { value = sqlite3_column_int64(row, 0); });
    return value;
}

std::string integrity_problems(sqlite3* db) {
    const auto rows = query_rows(db, "PRAGMA integrity_check");
    if (rows != std::vector<std::string>{"ok"}) {
        std::string problems;
        for (const auto& row : rows) {
            problems += row + "\n";
        }
        return problems;
    }
    // FTS5 checks its index against its content (entry_search) or against the
    // table it indexes (debug_lines_fts); a mismatch is an error.
    for (const char* table : {"entry_search", "debug_lines_fts"}) {
        const std::string sql =
            std::string("INSERT INTO ") + table + "(" + table + ") VALUES ('integrity-check')";
        char* message = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
            std::string problem = std::string(table) + ": " + (message ? message : "failed");
            sqlite3_free(message);
            return problem;
        }
    }
    return "ok";
}

std::vector<std::string> half_written_entries(sqlite3* db) {
    std::vector<std::string> problems;
    auto add = [&](const std::string& what, const std::string& sql) {
        for (const auto& path : query_rows(db, sql)) {
            problems.push_back(path + ": " + what);
        }
    };
    add("files rows do not match file_count",
        "SELECT e.path FROM entries e WHERE e.file_count <> "
        "(SELECT COUNT(*) FROM files f WHERE f.entry_id = e.id)");
    add("no search row", "SELECT e.path FROM entries e WHERE NOT EXISTS "
                         "(SELECT 1 FROM entry_search s WHERE s.rowid = e.id)");
    for (const auto& [kind, table] : kKindTables) {
        add(std::string("parsed but no ") + table + " row",
            std::string("SELECT e.path FROM entries e WHERE e.kind = '") + kind +
                "' AND e.parse_status = 'ok' AND NOT EXISTS (SELECT 1 FROM " + table +
                " t WHERE t.entry_id = e.id)");
    }
    return problems;
}

std::vector<std::string> dangling_rows(sqlite3* db) {
    std::vector<std::string> problems;
    for (const char* table : kEntryChildTables) {
        const auto count =
            query_integer(db, std::string("SELECT COUNT(*) FROM ") + table +
                                  " t WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = "
                                  "t.entry_id)");
        if (count != 0) {
            problems.push_back(std::string(table) + ": " + std::to_string(count) +
                               " rows of no entry");
        }
    }
    const auto searches = query_integer(db, "SELECT COUNT(*) FROM entry_search s WHERE NOT "
                                            "EXISTS (SELECT 1 FROM entries e WHERE e.id = "
                                            "s.rowid)");
    if (searches != 0) {
        problems.push_back("entry_search: " + std::to_string(searches) + " rows of no entry");
    }
    std::unordered_set<std::uint32_t> used;
    for_each_row(db, "SELECT line_ids FROM fx_debug_lines", [&](sqlite3_stmt* row) {
        for (std::uint32_t id : line_ids_of(row, 0)) {
            used.insert(id);
        }
    });
    std::unordered_set<std::uint32_t> stored;
    for_each_row(db, "SELECT id FROM debug_lines", [&](sqlite3_stmt* row) {
        stored.insert(static_cast<std::uint32_t>(sqlite3_column_int64(row, 0)));
    });
    const auto unused =
        std::count_if(stored.begin(), stored.end(), [&](auto id) { return !used.contains(id); });
    const auto missing =
        std::count_if(used.begin(), used.end(), [&](auto id) { return !stored.contains(id); });
    if (unused != 0) {
        problems.push_back("debug_lines: " + std::to_string(unused) + " used by no FX entry");
    }
    if (missing != 0) {
        problems.push_back("fx_entries: " + std::to_string(missing) + " debug line ids missing");
    }
    return problems;
}

std::string canonical_dump(const catalog::Catalog& catalog) {
    sqlite3* db = catalog.handle();
    std::vector<std::string> out;
    for (const auto& [table, count] : table_row_counts(db)) {
        out.push_back("rows " + table + ": " + std::to_string(count));
    }
    // A completed root has finished after it started; an interrupted one has not.
    for (const auto& row :
         query_rows(db, "SELECT location, kind, COALESCE(index_completed_ns >= index_started_ns, "
                        "0) FROM roots ORDER BY location")) {
        out.push_back("root: " + row);
    }
    for (const auto& row : query_rows(
             db, "SELECT r.location, e.kind, e.key, e.path, e.name, e.size, e.mtime_ns, "
                 "e.file_count, e.parse_status, e.parse_error FROM entries e JOIN roots r ON "
                 "r.id = e.root_id ORDER BY r.location, e.kind, e.key, e.path")) {
        out.push_back("entry: " + row);
    }
    for (const auto& row :
         query_rows(db, "SELECT r.location, f.path, f.kind, f.size, f.mtime_ns, f.inode, e.path "
                        "FROM files f JOIN roots r ON r.id = f.root_id JOIN entries e ON e.id = "
                        "f.entry_id ORDER BY r.location, f.path")) {
        out.push_back("file: " + row);
    }
    std::unordered_map<std::uint32_t, std::string> line_names;
    for_each_row(db, "SELECT id, hash, name FROM debug_lines", [&](sqlite3_stmt* row) {
        line_names[static_cast<std::uint32_t>(sqlite3_column_int64(row, 0))] =
            column_text(row, 1) + " " + column_text(row, 2);
    });
    for (const auto& row : query_rows(db, "SELECT hash, name, length(value), value FROM "
                                          "debug_lines ORDER BY hash, name")) {
        out.push_back("debug line: " + row);
    }
    for (const char* table : kEntryChildTables) {
        if (std::strcmp(table, "files") != 0) {
            dump_child_table(db, table, line_names, out);
        }
    }
    std::vector<std::string> searches;
    for_each_row(db,
                 "SELECT r.location || '|' || e.path, s.keys, s.names, s.body FROM entry_search "
                 "s JOIN entries e ON e.id = s.rowid JOIN roots r ON r.id = e.root_id",
                 [&](sqlite3_stmt* row) {
                     searches.push_back("search row: " + column_text(row, 0) + "|" +
                                        column_text(row, 1) + "|" + column_text(row, 2) + "|" +
                                        std::to_string(column_text(row, 3).size()));
                 });
    std::sort(searches.begin(), searches.end());
    out.insert(out.end(), searches.begin(), searches.end());
    // What a user sees: searches over each column and the filters.
    std::vector<catalog::SearchQuery> queries(6);
    queries[0].text = "triton_poi";
    queries[1].text = "inductor_config benchmark_kernel";
    queries[2].text = "tl.sqrt_rn";
    queries[3].text = "f";
    queries[4].has_guards = true;
    queries[5].device = "cpu";
    for (auto& query : queries) {
        query.limit = 1'000'000;
        auto hits = catalog.search(query);
        if (!hits) {
            out.push_back("search failed: " + hits.error().describe());
            continue;
        }
        out.push_back("search '" + query.text + "': " + std::to_string(hits->size()) + " hits");
        for (const auto& hit : *hits) {
            out.push_back("  " + describe_hit(hit));
        }
    }
    std::string text;
    for (const auto& line : out) {
        text += line;
        text += '\n';
    }
    return text;
}

std::string first_difference(const std::string& expected, const std::string& actual) {
    if (expected == actual) {
        return {};
    }
    const QStringList left = QString::fromStdString(expected).split('\n');
    const QStringList right = QString::fromStdString(actual).split('\n');
    qsizetype line = 0;
    while (line < left.size() && line < right.size() && left[line] == right[line]) {
        ++line;
    }
    auto at = [](const QStringList& lines, qsizetype i) {
        return i < lines.size() ? lines[i].left(400).toStdString() : std::string("<end>");
    };
    return "line " + std::to_string(line + 1) + ":\n  expected: " + at(left, line) +
           "\n  actual:   " + at(right, line);
}

} // namespace cachelens::test
