#include <cachelens/catalog/schema.h>

#include <sqlite3.h>

#include <string>

namespace cachelens::catalog {

namespace {

// Each migration takes the schema from version N-1 to N. Never edit one that
// has shipped: add the next.
constexpr const char* kMigrations[] = {
    // 1: what a cache dir holds.
    R"sql(
CREATE TABLE roots (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL DEFAULT 'dir',
    location TEXT NOT NULL UNIQUE,
    added_ns INTEGER NOT NULL,
    index_started_ns INTEGER,
    index_completed_ns INTEGER
);
-- One row per cached thing: an FX graph entry, a module, a Triton kernel dir, ...
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    path TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    file_count INTEGER NOT NULL,
    parse_status TEXT NOT NULL,
    parse_error TEXT,
    UNIQUE (root_id, path)
);
CREATE INDEX entries_by_key ON entries(key);
CREATE INDEX entries_by_root_kind ON entries(root_id, kind);
CREATE INDEX entries_by_mtime ON entries(mtime_ns);
-- Every file, for the re-index to compare (size, mtime_ns, inode).
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    UNIQUE (root_id, path)
);
CREATE INDEX files_by_entry ON files(entry_id);
CREATE TABLE fx_entries (
    entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    guards_expr TEXT,
    cache_key TEXT,
    device_types TEXT,
    time_taken_ns INTEGER,
    debug_line_count INTEGER,
    source_sha256 TEXT
);
CREATE INDEX fx_entries_by_cache_key ON fx_entries(cache_key);
CREATE TABLE aot_entries (
    entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    guards_expr TEXT,
    forward_key TEXT,
    backward_key TEXT,
    forward_time_ns INTEGER,
    backward_time_ns INTEGER
);
CREATE INDEX aot_by_forward ON aot_entries(forward_key);
CREATE INDEX aot_by_backward ON aot_entries(backward_key);
CREATE TABLE modules (
    entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    has_benchmark_harness INTEGER NOT NULL,
    autotune_candidate INTEGER NOT NULL
);
-- Kernels an entry defines (a module) or launches (an FX graph's autotuners).
CREATE TABLE kernels (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    heuristic TEXT,
    grid_type TEXT,
    module_key TEXT,
    best_config TEXT,
    candidates INTEGER
);
CREATE INDEX kernels_by_entry ON kernels(entry_id);
CREATE INDEX kernels_by_name ON kernels(name);
CREATE INDEX kernels_by_module ON kernels(module_key);
-- The Triton kernel dirs an entry needs (bundled candidates, a best_config's winner).
CREATE TABLE triton_refs (
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    triton_hash TEXT NOT NULL
);
CREATE INDEX triton_refs_by_hash ON triton_refs(triton_hash);
CREATE INDEX triton_refs_by_entry ON triton_refs(entry_id);
CREATE TABLE triton_kernels (
    entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    device TEXT,
    module_key TEXT,
    num_warps INTEGER,
    num_stages INTEGER,
    shared INTEGER,
    arch TEXT
);
CREATE TABLE best_configs (
    entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    config TEXT,
    num_warps INTEGER,
    num_stages INTEGER,
    triton_cache_hash TEXT,
    found_by_coordesc INTEGER,
    time_taken_ms REAL
);
CREATE TABLE benchmark_choices (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    op TEXT,
    inputs TEXT,
    precision TEXT,
    choice TEXT,
    ms REAL
);
CREATE INDEX benchmark_choices_by_entry ON benchmark_choices(entry_id);
)sql",
    // 2: debug lines, each distinct line once (keys share almost all of theirs),
    // and full-text search over lines, keys, kernel names and source.
    R"sql(
CREATE TABLE debug_lines (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    UNIQUE (hash, name)
);
-- The ids of an FX entry's debug lines in order, as little-endian uint32s
-- (until version 5).
ALTER TABLE fx_entries ADD COLUMN debug_line_ids BLOB;
CREATE VIRTUAL TABLE debug_lines_fts USING fts5(name, value, content='debug_lines',
                                                content_rowid='id');
CREATE TRIGGER debug_lines_insert AFTER INSERT ON debug_lines BEGIN
    INSERT INTO debug_lines_fts(rowid, name, value) VALUES (new.id, new.name, new.value);
END;
CREATE TRIGGER debug_lines_delete AFTER DELETE ON debug_lines BEGIN
    INSERT INTO debug_lines_fts(debug_lines_fts, rowid, name, value)
        VALUES ('delete', old.id, old.name, old.value);
END;
-- rowid = entries.id
CREATE VIRTUAL TABLE entry_search USING fts5(keys, names, body);
CREATE TRIGGER entries_delete_search AFTER DELETE ON entries BEGIN
    DELETE FROM entry_search WHERE rowid = old.id;
END;
-- Entries indexed before this version have no lines or search text yet:
-- the next index parses them again.
UPDATE entries SET parse_status = 'stale';
)sql",
    // 3: GPU re-benchmarking of cached kernels.
    R"sql(
CREATE TABLE bench_runs (
    id INTEGER PRIMARY KEY,
    started_ns INTEGER NOT NULL,
    device_name TEXT,
    compute_capability TEXT,
    driver_version TEXT,
    sm_clock_mhz INTEGER,
    l2_bytes INTEGER,
    protocol TEXT
);
CREATE TABLE bench_results (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
    kernel_name TEXT NOT NULL,
    module_key TEXT,
    triton_hash TEXT,
    config TEXT,
    status TEXT NOT NULL,
    message TEXT,
    median_ms REAL,
    min_ms REAL,
    p20_ms REAL,
    p80_ms REAL
);
CREATE INDEX bench_results_by_run ON bench_results(run_id);
CREATE INDEX bench_results_by_kernel ON bench_results(kernel_name);
CREATE TABLE bench_samples (
    result_id INTEGER NOT NULL REFERENCES bench_results(id) ON DELETE CASCADE,
    ms REAL NOT NULL
);
CREATE INDEX bench_samples_by_result ON bench_samples(result_id);
)sql",
    // 4: what an FX graph is to AOTAutograd (forward, backward, inference; NULL
    // when its key does not say). FX entries indexed before it are parsed again.
    R"sql(
ALTER TABLE fx_entries ADD COLUMN role TEXT;
UPDATE entries SET parse_status = 'stale' WHERE kind = 'fxgraph';
)sql",
    // 5: an FX entry's debug-line ids in a table of their own, as varint gaps
    // (line_ids.h): the search reads all of them for a word a debug line
    // holds, and read beside the rest of fx_entries they were 27 MB of pages
    // on a 100,000-entry catalog. FX entries are parsed again to fill it.
    R"sql(
CREATE TABLE fx_debug_lines (
    entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    line_ids BLOB NOT NULL
);
ALTER TABLE fx_entries DROP COLUMN debug_line_ids;
UPDATE entries SET parse_status = 'stale' WHERE kind = 'fxgraph';
)sql",
    // 6: cachelens tune runs beside bench runs: a run's kind ('tune'; NULL for
    // bench) and strategy, and whether a result's cubin was in the cache
    // ('cached') or compiled by the tune ('new'; NULL for bench).
    R"sql(
ALTER TABLE bench_runs ADD COLUMN kind TEXT;
ALTER TABLE bench_runs ADD COLUMN strategy TEXT;
ALTER TABLE bench_results ADD COLUMN origin TEXT;
)sql",
};

static_assert(std::size(kMigrations) == kSchemaVersion);

Result<void> exec(sqlite3* db, const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        std::string what = message != nullptr ? message : sqlite3_errmsg(db);
        sqlite3_free(message);
        const char* file = sqlite3_db_filename(db, "main");
        return fail(ErrorKind::Io, "catalog schema: " + what, file != nullptr ? file : "");
    }
    return {};
}

} // namespace

Result<int> schema_version(sqlite3* db) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT name FROM sqlite_master WHERE type = 'table' AND name = "
                           "'schema_version'",
                           -1, &statement, nullptr) != SQLITE_OK) {
        return fail(ErrorKind::Corrupt, std::string("catalog: ") + sqlite3_errmsg(db));
    }
    const bool has_table = sqlite3_step(statement) == SQLITE_ROW;
    sqlite3_finalize(statement);
    if (!has_table) {
        return 0;
    }
    if (sqlite3_prepare_v2(db, "SELECT version FROM schema_version", -1, &statement, nullptr) !=
        SQLITE_OK) {
        return fail(ErrorKind::Corrupt, std::string("catalog: ") + sqlite3_errmsg(db));
    }
    const int version =
        sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int(statement, 0) : 0;
    sqlite3_finalize(statement);
    return version;
}

Result<void> migrate(sqlite3* db, int target) {
    auto current = schema_version(db);
    if (!current) {
        return std::unexpected(current.error());
    }
    if (*current > kSchemaVersion) {
        return fail(ErrorKind::Unsupported,
                    "the catalog has schema version " + std::to_string(*current) +
                        ", newer than this cachelens reads (" + std::to_string(kSchemaVersion) +
                        "): upgrade cachelens");
    }
    if (target < *current || target > kSchemaVersion) {
        return fail(ErrorKind::InvalidArgument, "cannot migrate the catalog from version " +
                                                    std::to_string(*current) + " to " +
                                                    std::to_string(target));
    }
    if (target == *current) {
        return {};
    }
    // Several connections may open a new catalog at once (the GUI's jobs do):
    // the version is read again under the write lock, so only the first one
    // migrates and the others find it done.
    if (auto ok = exec(db, "BEGIN IMMEDIATE"); !ok) {
        return ok;
    }
    current = schema_version(db);
    if (!current || *current > target) {
        (void)exec(db, "ROLLBACK");
        return current ? fail(ErrorKind::InvalidArgument, "the catalog was migrated past version " +
                                                              std::to_string(target) + " meanwhile")
                       : std::unexpected(current.error());
    }
    std::string script;
    if (*current == 0) {
        script += "CREATE TABLE schema_version (version INTEGER NOT NULL);\n"
                  "INSERT INTO schema_version VALUES (0);\n";
    }
    for (int version = *current + 1; version <= target; ++version) {
        script += kMigrations[version - 1];
        script += "UPDATE schema_version SET version = " + std::to_string(version) + ";\n";
    }
    script += "COMMIT;\n";
    if (auto ok = exec(db, script); !ok) {
        (void)exec(db, "ROLLBACK");
        return ok;
    }
    return {};
}

} // namespace cachelens::catalog
