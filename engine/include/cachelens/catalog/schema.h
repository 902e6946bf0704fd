#pragma once

// The catalog's SQLite schema and its forward migrations. Every version a
// released cachelens wrote can be opened by every later one: opening runs the
// migrations from the file's version to kSchemaVersion in one transaction.

#include <cachelens/core/error.h>

struct sqlite3;

namespace cachelens::catalog {

// 1: roots, entries, files and what each kind of entry holds.
// 2: debug lines (each distinct one stored once) and full-text search.
// 3: GPU benchmark runs, results and samples.
// 4: an FX graph's role to AOTAutograd.
// 5: an FX entry's debug-line ids in fx_debug_lines, as varint gaps.
inline constexpr int kSchemaVersion = 6;

// The version recorded in `db`; 0 for an empty database.
Result<int> schema_version(sqlite3* db);

// Runs the migrations from the recorded version up to `target` (which may
// not be below it). Used by Catalog::open, and by tests to build old schemas.
Result<void> migrate(sqlite3* db, int target);

} // namespace cachelens::catalog
