#pragma once

// What the catalog suites check on a catalog file, whoever wrote it: row
// counts, SQLite's own integrity checks, entries left half-written, and a
// canonical dump (no row ids, no timestamps) that two catalogs of the same
// dirs must share however they were built.

#include <cachelens/catalog/catalog.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

struct sqlite3;

namespace cachelens::test {

// Every table the indexer writes, with its row count.
std::map<std::string, std::int64_t> table_row_counts(sqlite3* db);

// The debug-line ids of an fx_debug_lines.line_ids blob, decoded by the
// format's definition; a malformed list fails the test.
std::vector<std::uint32_t> decode_line_ids(std::span<const unsigned char> bytes);

// Each row of `sql` as its columns joined by '|' (NULL as "NULL").
std::vector<std::string> query_rows(sqlite3* db, const std::string& sql);
std::int64_t query_integer(sqlite3* db, const std::string& sql);

// "ok" when PRAGMA integrity_check and both full-text indexes' own checks
// pass; otherwise what they report.
std::string integrity_problems(sqlite3* db);

// Entries a crash could have left incomplete: without their files, without
// their search row, or parsed "ok" without the row their kind keeps.
std::vector<std::string> half_written_entries(sqlite3* db);

// Rows that point at an entry or a debug line that is not there, and debug
// lines no FX entry uses (the indexer collects those).
std::vector<std::string> dangling_rows(sqlite3* db);

// The catalog's content in a canonical text: per root the sorted entries
// (kind, key, path, size, mtime, file count, parse status), the per-table row
// counts, and the hits of a few searches.
std::string canonical_dump(const catalog::Catalog& catalog);

// Empty when the dumps are equal; otherwise the first line where they differ.
std::string first_difference(const std::string& expected, const std::string& actual);

} // namespace cachelens::test
