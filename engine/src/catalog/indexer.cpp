#include "indexer.h"

#include "entry_rows.h"
#include "line_ids.h"
#include "parse_pipeline.h"
#include "queries.h"

#include <cachelens/cachedir/cache_dir.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace cachelens::catalog {

namespace fs = std::filesystem;

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// What the catalog knows of a root's entries from its last index.
struct StoredFile {
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint64_t inode = 0;
};

struct StoredEntry {
    std::int64_t id = 0;
    bool stale = false;   // a schema migration asked for it to be parsed again
    bool present = false; // the scan found it again
    // By path. Almost every entry is one file: a vector costs far less than a
    // map per entry to build and free, which a no-change re-index is made of.
    std::vector<std::pair<std::string, StoredFile>> files;
};

// What the catalog holds of entries' files, one file a row, as
// add_stored_row() reads them.
constexpr const char* kStoredColumns =
    "SELECT e.id, e.path, e.parse_status, f.path, f.size, f.mtime_ns, f.inode "
    "FROM entries e JOIN files f ON f.entry_id = e.id ";

void add_stored_row(std::unordered_map<std::string, StoredEntry>& stored,
                    const sql::Statement& row) {
    StoredEntry& entry = stored[row.text(1)];
    entry.id = row.integer(0);
    entry.stale = row.text_view(2) == "stale";
    entry.files.emplace_back(row.text(3),
                             StoredFile{static_cast<std::uint64_t>(row.integer(4)), row.integer(5),
                                        static_cast<std::uint64_t>(row.integer(6))});
}

Result<std::size_t> count_entries(sql::Database& db, std::int64_t root_id) {
    auto count = sql::Statement::prepare(db, "SELECT COUNT(*) FROM entries WHERE root_id = ?");
    if (!count) {
        return std::unexpected(count.error());
    }
    count->bind(1, root_id);
    auto rows = count->lookup_integer();
    if (!rows) {
        return std::unexpected(rows.error());
    }
    return static_cast<std::size_t>(rows->value_or(0));
}

Result<std::unordered_map<std::string, StoredEntry>> load_stored(sql::Database& db,
                                                                 std::int64_t root_id) {
    std::unordered_map<std::string, StoredEntry> stored;
    // Sized first: rehashing tens of thousands of nodes costs more than counting them.
    auto count = count_entries(db, root_id);
    if (!count) {
        return std::unexpected(count.error());
    }
    stored.reserve(*count);
    auto statement =
        sql::Statement::prepare(db, std::string(kStoredColumns) + "WHERE e.root_id = ?");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    statement->bind(1, root_id);
    auto done =
        statement->for_each_row([&](const sql::Statement& row) { add_stored_row(stored, row); });
    if (!done) {
        return std::unexpected(done.error());
    }
    return stored;
}

// What the catalog holds of the entries a part scan speaks for: at its
// files, and at or under its dirs.
Result<std::unordered_map<std::string, StoredEntry>>
load_stored_part(sql::Database& db, std::int64_t root_id, const cachedir::PartScan& part) {
    std::unordered_map<std::string, StoredEntry> stored;
    auto statement = sql::Statement::prepare(
        db, std::string(kStoredColumns) +
                "WHERE e.root_id = ?1 AND (e.path = ?2 OR (e.path >= ?3 AND e.path < ?4))");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    const auto read = [&](const std::string& path, bool with_under) -> Result<void> {
        // Under "a/b": from "a/b/" up to "a/b0" ('0' follows '/').
        const std::string from = with_under ? path + '/' : path;
        const std::string to = with_under ? path + '0' : path;
        statement->reset();
        statement->bind(1, root_id).bind(2, path).bind(3, from).bind(4, to);
        return statement->for_each_row(
            [&](const sql::Statement& row) { add_stored_row(stored, row); });
    };
    for (const std::string& file : part.files) {
        if (auto ok = read(file, false); !ok) {
            return std::unexpected(ok.error());
        }
    }
    for (const std::string& dir : part.dirs) {
        if (auto ok = read(dir, true); !ok) {
            return std::unexpected(ok.error());
        }
    }
    return stored;
}

// The temp entries the catalog holds in the dirs the entries of `part` sit
// in, at any depth below them (Triton stages a kernel in a tmp.* dir beside
// its hash dir). A root holds few: all of them are read by their kind.
Result<std::vector<std::string>> temp_entries_beside(sql::Database& db, std::int64_t root_id,
                                                     const cachedir::PartScan& part) {
    std::set<std::string> dirs;
    const auto add_parent = [&](const std::string& path) {
        const std::size_t slash = path.rfind('/');
        dirs.insert(slash == std::string::npos ? std::string() : path.substr(0, slash));
    };
    std::ranges::for_each(part.files, add_parent);
    std::ranges::for_each(part.dirs, add_parent);
    auto statement =
        sql::Statement::prepare(db, "SELECT path FROM entries WHERE root_id = ? AND kind = ?");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    statement->bind(1, root_id).bind(2, cachedir::to_string(cachedir::FileKind::Temp));
    std::vector<std::string> out;
    auto done = statement->for_each_row([&](const sql::Statement& row) {
        const std::string_view path = row.text_view(0);
        const bool beside = std::ranges::any_of(dirs, [&](const std::string& dir) {
            return dir.empty() ||
                   (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
        });
        if (beside) {
            out.emplace_back(path);
        }
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    return out;
}

// The files of each scanned entry, by entry path (viewed in the scan's file
// paths: no copy of each path).
using EntryFiles = std::unordered_map<std::string_view, std::vector<const cachedir::FileRecord*>>;

EntryFiles files_by_entry(const cachedir::Scan& scan) {
    EntryFiles out;
    out.reserve(scan.files.size());
    for (const auto& file : scan.files) {
        const std::string_view dir = cachedir::entry_dir_of(file.kind, file.path);
        out[dir.empty() ? std::string_view(file.path) : dir].push_back(&file);
    }
    return out;
}

bool unchanged(const StoredEntry& stored, const std::vector<const cachedir::FileRecord*>& files) {
    if (stored.stale || stored.files.size() != files.size()) {
        return false;
    }
    for (const auto* file : files) {
        auto it = std::find_if(stored.files.begin(), stored.files.end(),
                               [&](const auto& known) { return known.first == file->path; });
        if (it == stored.files.end() || it->second.size != file->size ||
            it->second.mtime_ns != file->mtime_ns || it->second.inode != file->inode) {
            return false;
        }
    }
    return true;
}

// Writes entries with the statements prepared once per index.
class EntryWriter {
public:
    // Preload: the catalog's debug lines are read at once (an index that
    // writes many FX entries); Lookup: each line is looked up as it is met
    // (a few entries written in a large catalog).
    enum class DebugLines { Preload, Lookup };
    static Result<EntryWriter> prepare(sql::Database& db, std::int64_t root_id,
                                       DebugLines lines = DebugLines::Preload) {
        EntryWriter writer(db, root_id, lines);
        if (auto ok = writer.prepare_all(); !ok) {
            return std::unexpected(ok.error());
        }
        if (lines == DebugLines::Preload) {
            if (auto ok = writer.load_debug_lines(); !ok) {
                return std::unexpected(ok.error());
            }
        }
        return writer;
    }

    Result<void> remove(std::int64_t entry_id) {
        delete_entry_->bind(1, entry_id);
        return delete_entry_->run();
    }

    Result<void> write(const cachedir::Entry& entry,
                       const std::vector<const cachedir::FileRecord*>& files,
                       const ParsedEntry& parsed);

private:
    EntryWriter(sql::Database& db, std::int64_t root_id, DebugLines lines)
        : db_(&db)
        , root_id_(root_id)
        , lines_(lines) {}

    Result<void> prepare_all();
    Result<void> load_debug_lines();
    Result<std::int64_t> debug_line_id(const DebugLineRow& line);

    sql::Database* db_;
    std::int64_t root_id_;
    DebugLines lines_;
    std::unordered_map<std::string, std::int64_t> debug_line_ids_; // hash + '\n' + name
    std::optional<sql::Statement> delete_entry_, find_path_, find_line_, insert_entry_,
        insert_file_, insert_fx_, insert_aot_, insert_module_, insert_kernel_, insert_triton_ref_,
        insert_triton_, insert_best_config_, insert_choice_, insert_line_, insert_search_,
        insert_fx_lines_;
};

Result<void> EntryWriter::prepare_all() {
    const std::pair<std::optional<sql::Statement>*, const char*> statements[] = {
        {&delete_entry_, "DELETE FROM entries WHERE id = ?"},
        {&find_path_, "SELECT id FROM entries WHERE root_id = ? AND path = ?"},
        {&find_line_, "SELECT id FROM debug_lines WHERE hash = ? AND name = ?"},
        {&insert_entry_,
         "INSERT INTO entries (root_id, kind, key, path, name, size, mtime_ns, file_count, "
         "parse_status, parse_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
        {&insert_file_, "INSERT INTO files (root_id, entry_id, path, kind, size, mtime_ns, inode) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)"},
        {&insert_fx_, "INSERT INTO fx_entries (entry_id, guards_expr, cache_key, device_types, "
                      "time_taken_ns, debug_line_count, source_sha256, role) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"},
        {&insert_fx_lines_, "INSERT INTO fx_debug_lines (entry_id, line_ids) VALUES (?, ?)"},
        {&insert_aot_,
         "INSERT INTO aot_entries (entry_id, guards_expr, forward_key, "
         "backward_key, forward_time_ns, backward_time_ns) VALUES (?, ?, ?, ?, ?, ?)"},
        {&insert_module_, "INSERT INTO modules (entry_id, role, has_benchmark_harness, "
                          "autotune_candidate) VALUES (?, ?, ?, ?)"},
        {&insert_kernel_, "INSERT INTO kernels (entry_id, name, heuristic, grid_type, module_key, "
                          "best_config, candidates) VALUES (?, ?, ?, ?, ?, ?, ?)"},
        {&insert_triton_ref_, "INSERT INTO triton_refs (entry_id, triton_hash) VALUES (?, ?)"},
        {&insert_triton_, "INSERT INTO triton_kernels (entry_id, device, module_key, num_warps, "
                          "num_stages, shared, arch) VALUES (?, ?, ?, ?, ?, ?, ?)"},
        {&insert_best_config_, "INSERT INTO best_configs (entry_id, config, num_warps, "
                               "num_stages, triton_cache_hash, found_by_coordesc, time_taken_ms) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?)"},
        {&insert_choice_, "INSERT INTO benchmark_choices (entry_id, op, inputs, precision, "
                          "choice, ms) VALUES (?, ?, ?, ?, ?, ?)"},
        {&insert_line_, "INSERT INTO debug_lines (hash, name, value) VALUES (?, ?, ?)"},
        {&insert_search_,
         "INSERT INTO entry_search (rowid, keys, names, body) VALUES (?, ?, ?, ?)"},
    };
    for (const auto& [slot, text] : statements) {
        auto statement = sql::Statement::prepare(*db_, text);
        if (!statement) {
            return std::unexpected(statement.error());
        }
        slot->emplace(std::move(*statement));
    }
    return {};
}

Result<void> EntryWriter::load_debug_lines() {
    auto statement = sql::Statement::prepare(*db_, "SELECT id, hash, name FROM debug_lines");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    return statement->for_each_row([&](const sql::Statement& row) {
        std::string key(row.text_view(1));
        key += '\n';
        key += row.text_view(2);
        debug_line_ids_.emplace(std::move(key), row.integer(0));
    });
}

Result<std::int64_t> EntryWriter::debug_line_id(const DebugLineRow& line) {
    std::string key(line.hash);
    key += '\n';
    key += line.name;
    if (auto it = debug_line_ids_.find(key); it != debug_line_ids_.end()) {
        return it->second;
    }
    if (lines_ == DebugLines::Lookup) {
        // Not read at the start: the catalog may have it.
        find_line_->bind(1, line.hash).bind(2, line.name);
        auto id = find_line_->lookup_integer();
        if (!id) {
            return std::unexpected(id.error());
        }
        if (*id) {
            debug_line_ids_.emplace(std::move(key), **id);
            return **id;
        }
    }
    insert_line_->bind(1, line.hash).bind(2, line.name).bind(3, line.value);
    if (auto ok = insert_line_->run(); !ok) {
        return std::unexpected(ok.error());
    }
    const std::int64_t id = sqlite3_last_insert_rowid(db_->handle());
    debug_line_ids_.emplace(std::move(key), id);
    return id;
}

std::optional<std::int64_t> as_integer(const std::optional<bool>& value) {
    return value ? std::optional<std::int64_t>(*value ? 1 : 0) : std::nullopt;
}

Result<void> EntryWriter::write(const cachedir::Entry& entry,
                                const std::vector<const cachedir::FileRecord*>& files,
                                const ParsedEntry& parsed) {
    // By path: another indexer may have written this entry meanwhile. Looked
    // up first: a DELETE on entries (which has triggers) opens a statement
    // savepoint, which makes FTS5 flush its pending terms into a new segment,
    // and doing that for every new entry made the full index write-bound.
    find_path_->bind(1, root_id_).bind(2, entry.path);
    auto existing = find_path_->lookup_integer();
    if (!existing) {
        return std::unexpected(existing.error());
    }
    if (*existing) {
        if (auto ok = remove(**existing); !ok) {
            return ok;
        }
    }
    const std::string kind(cachedir::to_string(entry.kind));
    const bool opaque = entry.kind == cachedir::FileKind::Lock ||
                        entry.kind == cachedir::FileKind::Temp ||
                        entry.kind == cachedir::FileKind::Unknown ||
                        entry.kind == cachedir::FileKind::SharedLibrary;
    insert_entry_->bind(1, root_id_)
        .bind(2, kind)
        .bind(3, entry.key)
        .bind(4, entry.path)
        .bind(5, entry.name)
        .bind(6, static_cast<std::int64_t>(entry.size))
        .bind(7, entry.mtime_ns)
        .bind(8, static_cast<std::int64_t>(entry.file_count))
        .bind(9, std::string_view(!parsed.error.empty() ? "error"
                                  : opaque              ? "unparsed"
                                                        : "ok"));
    if (parsed.error.empty()) {
        insert_entry_->bind_null(10);
    } else {
        insert_entry_->bind(10, parsed.error);
    }
    if (auto ok = insert_entry_->run(); !ok) {
        return ok;
    }
    const std::int64_t id = sqlite3_last_insert_rowid(db_->handle());
    for (const auto* file : files) {
        insert_file_->bind(1, root_id_)
            .bind(2, id)
            .bind(3, file->path)
            .bind(4, std::string_view(cachedir::to_string(file->kind)))
            .bind(5, static_cast<std::int64_t>(file->size))
            .bind(6, file->mtime_ns)
            .bind(7, static_cast<std::int64_t>(file->inode));
        if (auto ok = insert_file_->run(); !ok) {
            return ok;
        }
    }
    if (parsed.fx) {
        std::vector<std::uint32_t> line_ids;
        line_ids.reserve(parsed.debug_lines.size());
        for (const auto& line : parsed.debug_lines) {
            auto line_id = debug_line_id(line);
            if (!line_id) {
                return std::unexpected(line_id.error());
            }
            line_ids.push_back(static_cast<std::uint32_t>(*line_id));
        }
        const auto& fx = *parsed.fx;
        insert_fx_->bind(1, id)
            .bind(3, fx.cache_key)
            .bind(4, fx.device_types)
            .bind(5, fx.time_taken_ns)
            .bind(6, static_cast<std::int64_t>(line_ids.size()))
            .bind(7, fx.source_sha256);
        fx.guards_expr ? insert_fx_->bind(2, *fx.guards_expr) : insert_fx_->bind_null(2);
        fx.role ? insert_fx_->bind(8, *fx.role) : insert_fx_->bind_null(8);
        if (auto ok = insert_fx_->run(); !ok) {
            return ok;
        }
        const std::string encoded = encode_line_ids(std::move(line_ids));
        insert_fx_lines_->bind(1, id).bind_blob(2, encoded.data(), encoded.size());
        if (auto ok = insert_fx_lines_->run(); !ok) {
            return ok;
        }
    }
    if (parsed.aot) {
        const auto& aot = *parsed.aot;
        insert_aot_->bind(1, id)
            .bind(3, aot.forward_key)
            .bind(4, aot.backward_key)
            .bind(5, aot.forward_time_ns)
            .bind(6, aot.backward_time_ns);
        aot.guards_expr ? insert_aot_->bind(2, *aot.guards_expr) : insert_aot_->bind_null(2);
        if (auto ok = insert_aot_->run(); !ok) {
            return ok;
        }
    }
    if (parsed.module) {
        insert_module_->bind(1, id)
            .bind(2, parsed.module->role)
            .bind(3, std::int64_t{parsed.module->has_benchmark_harness})
            .bind(4, std::int64_t{parsed.module->autotune_candidate});
        if (auto ok = insert_module_->run(); !ok) {
            return ok;
        }
    }
    for (const auto& kernel : parsed.kernels) {
        insert_kernel_->bind(1, id)
            .bind(2, kernel.name)
            .bind(3, kernel.heuristic)
            .bind(4, kernel.grid_type)
            .bind(5, kernel.module_key)
            .bind(6, kernel.best_config)
            .bind(7, kernel.candidates);
        if (auto ok = insert_kernel_->run(); !ok) {
            return ok;
        }
    }
    for (const auto& hash : parsed.triton_refs) {
        insert_triton_ref_->bind(1, id).bind(2, hash);
        if (auto ok = insert_triton_ref_->run(); !ok) {
            return ok;
        }
    }
    if (parsed.triton) {
        const auto& triton = *parsed.triton;
        insert_triton_->bind(1, id)
            .bind(2, triton.device)
            .bind(3, triton.module_key)
            .bind(4, triton.num_warps)
            .bind(5, triton.num_stages)
            .bind(6, triton.shared)
            .bind(7, triton.arch);
        if (auto ok = insert_triton_->run(); !ok) {
            return ok;
        }
    }
    if (parsed.best_config) {
        const auto& best = *parsed.best_config;
        insert_best_config_->bind(1, id)
            .bind(2, best.config)
            .bind(3, best.num_warps)
            .bind(4, best.num_stages)
            .bind(5, best.triton_cache_hash)
            .bind(6, as_integer(best.found_by_coordesc))
            .bind(7, best.time_taken_ms);
        if (auto ok = insert_best_config_->run(); !ok) {
            return ok;
        }
    }
    for (const auto& choice : parsed.choices) {
        insert_choice_->bind(1, id)
            .bind(2, choice.op)
            .bind(3, choice.inputs)
            .bind(4, choice.precision)
            .bind(5, choice.choice)
            .bind(6, choice.ms);
        if (auto ok = insert_choice_->run(); !ok) {
            return ok;
        }
    }
    insert_search_->bind(1, id)
        .bind(2, parsed.search_keys)
        .bind(3, parsed.search_names)
        .bind(4, parsed.search_body());
    return insert_search_->run();
}

// The scanned entries whose files differ from what the catalog holds of
// them (or that it does not hold), marking the stored ones found present.
struct Comparison {
    std::vector<const cachedir::Entry*> to_parse;
    // Of them, some the catalog held: an FX entry written again may leave
    // debug lines nothing uses (new entries never do).
    bool replaced = false;
};

Comparison compare_with_stored(const std::vector<cachedir::Entry>& entries, const EntryFiles& files,
                               std::unordered_map<std::string, StoredEntry>& stored,
                               IndexReport& report) {
    Comparison out;
    for (const auto& entry : entries) {
        auto it = stored.find(entry.path);
        if (it != stored.end()) {
            it->second.present = true;
        }
        if (it != stored.end() && unchanged(it->second, files.at(entry.path))) {
            ++report.unchanged;
        } else {
            out.replaced |= it != stored.end();
            out.to_parse.push_back(&entry);
        }
    }
    return out;
}

// Removes the stored entries the scan did not find, in one transaction.
Result<void> remove_gone(sql::Database& db, EntryWriter& writer,
                         const std::unordered_map<std::string, StoredEntry>& stored,
                         IndexReport& report) {
    auto transaction = sql::Transaction::begin(db);
    if (!transaction) {
        return std::unexpected(transaction.error());
    }
    for (const auto& [path, entry] : stored) {
        if (!entry.present) {
            if (auto ok = writer.remove(entry.id); !ok) {
                return ok;
            }
            ++report.removed;
        }
    }
    return transaction->commit();
}

// Parses `to_parse` on the pool and writes them, a batch a transaction,
// counting them in `report` (parsed, parse errors, being written, cancelled).
Result<void> parse_and_write(sql::Database& db, EntryWriter& writer, const fs::path& root,
                             const std::vector<const cachedir::Entry*>& to_parse,
                             const EntryFiles& files, const IndexOptions& options,
                             IndexReport& report) {
    const unsigned threads =
        options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t batch = std::max<std::size_t>(1, options.batch_size);
    ParsePipeline<ParsedEntry> pipeline(to_parse.size(), threads, 2 * batch, [&](std::size_t i) {
        return parse_for_catalog(root, *to_parse[i]);
    });
    Progress progress{.stage = ProgressStage::Parsing,
                      .unit = ProgressUnit::Entries,
                      .done = 0,
                      .total = to_parse.size(),
                      .bytes = 0,
                      .item = {}};
    report.cancelled = !report_progress(options.progress, progress);
    for (std::size_t start = 0; start < to_parse.size() && !report.cancelled; start += batch) {
        auto transaction = sql::Transaction::begin(db);
        if (!transaction) {
            return std::unexpected(transaction.error());
        }
        const std::size_t end = std::min(to_parse.size(), start + batch);
        for (std::size_t i = start; i < end && !report.cancelled; ++i) {
            const ParsedEntry parsed = pipeline.take(i);
            const cachedir::Entry& entry = *to_parse[i];
            if (!parsed.error.empty() && cachedir::is_written_in_place(entry.kind) &&
                now_ns() - entry.mtime_ns < cachedir::kBeingWrittenNs) {
                // Written in place (an OnDiskCache value, vLLM's index) and
                // caught half done: left as the catalog had it, parsed next time.
                report.being_written.push_back(entry.path);
            } else {
                if (auto ok = writer.write(entry, files.at(entry.path), parsed); !ok) {
                    return ok;
                }
                ++report.parsed;
                report.parse_errors += parsed.error.empty() ? 0 : 1;
            }
            progress.done = i + 1;
            progress.bytes += entry.size;
            progress.item = entry.path;
            // A stop commits the entries written so far: each one is whole.
            report.cancelled = !report_progress(options.progress, progress);
        }
        if (auto ok = transaction->commit(); !ok) {
            return ok;
        }
    }
    pipeline.stop();
    // A stop asked for once everything was written changed nothing.
    report.cancelled =
        report.cancelled && report.parsed + report.being_written.size() < to_parse.size();
    return {};
}

struct RootStart {
    std::int64_t id = 0;
    bool previous_interrupted = false; // its last index started and never finished
};

// The id of the root at `location`, when the catalog has it.
Result<std::optional<std::int64_t>> root_id_of(sql::Database& db, const std::string& location) {
    auto select = sql::Statement::prepare(db, "SELECT id FROM roots WHERE location = ?");
    if (!select) {
        return std::unexpected(select.error());
    }
    select->bind(1, location);
    return select->lookup_integer();
}

Result<RootStart> begin_root(sql::Database& db, const std::string& location,
                             cachedir::RootLayout layout) {
    auto insert = sql::Statement::prepare(
        db,
        "INSERT INTO roots (location, added_ns) VALUES (?, ?) ON CONFLICT(location) DO NOTHING");
    if (!insert) {
        return std::unexpected(insert.error());
    }
    insert->bind(1, location).bind(2, now_ns());
    if (auto ok = insert->run(); !ok) {
        return std::unexpected(ok.error());
    }
    auto select = sql::Statement::prepare(
        db, "SELECT id, index_started_ns IS NOT NULL AND (index_completed_ns IS NULL OR "
            "index_completed_ns < index_started_ns) FROM roots WHERE location = ?");
    if (!select) {
        return std::unexpected(select.error());
    }
    select->bind(1, location);
    auto row = select->step();
    if (!row) {
        return std::unexpected(row.error());
    }
    const RootStart start{select->integer(0), select->integer(1) != 0};
    auto started =
        sql::Statement::prepare(db, "UPDATE roots SET index_started_ns = ?, kind = ? WHERE id = ?");
    if (!started) {
        return std::unexpected(started.error());
    }
    started->bind(1, now_ns()).bind(2, root_kind_of(layout)).bind(3, start.id);
    if (auto ok = started->run(); !ok) {
        return std::unexpected(ok.error());
    }
    return start;
}

Result<void> finish_root(sql::Database& db, std::int64_t root_id) {
    auto statement =
        sql::Statement::prepare(db, "UPDATE roots SET index_completed_ns = ? WHERE id = ?");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    statement->bind(1, now_ns()).bind(2, root_id);
    return statement->run();
}

} // namespace

Result<void> collect_unused_debug_lines(sql::Database& db) {
    // One transaction from reading what is used to deleting the rest; the
    // caller's when it holds one (forget_root deletes the root in it).
    std::optional<sql::Transaction> transaction;
    if (sqlite3_get_autocommit(db.handle()) != 0) {
        auto begun = sql::Transaction::begin(db);
        if (!begun) {
            return std::unexpected(begun.error());
        }
        transaction.emplace(std::move(*begun));
    }
    auto lines = sql::Statement::prepare(db, "SELECT line_ids FROM fx_debug_lines");
    if (!lines) {
        return std::unexpected(lines.error());
    }
    std::unordered_set<std::uint32_t> used;
    bool damaged = false;
    auto done = lines->for_each_row([&](const sql::Statement& row) {
        damaged |= !for_each_line_id(row.blob(0), [&](std::uint32_t id) {
            used.insert(id);
            return false;
        });
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    // Lines an unreadable list may use are kept, not guessed unused.
    if (damaged) {
        return fail(ErrorKind::Corrupt, "catalog: an FX entry's debug-line ids are damaged",
                    db.path());
    }
    auto all = sql::Statement::prepare(db, "SELECT id FROM debug_lines");
    auto drop = sql::Statement::prepare(db, "DELETE FROM debug_lines WHERE id = ?");
    if (!all || !drop) {
        return std::unexpected(!all ? all.error() : drop.error());
    }
    std::vector<std::int64_t> unused;
    done = all->for_each_row([&](const sql::Statement& row) {
        if (!used.contains(static_cast<std::uint32_t>(row.integer(0)))) {
            unused.push_back(row.integer(0));
        }
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    for (std::int64_t id : unused) {
        drop->bind(1, id);
        if (auto ok = drop->run(); !ok) {
            return ok;
        }
    }
    return transaction ? transaction->commit() : Result<void>{};
}

Result<IndexReport> index_root(sql::Database& db, const fs::path& dir, const std::string& location,
                               const IndexOptions& options) {
    IndexReport report;
    report.root = location;
    // What the catalog holds of a root indexed before is read while the dir
    // is walked: both take about as long on a no-change re-index, and the
    // walk never touches the catalog.
    auto known_root = root_id_of(db, location);
    if (!known_root) {
        return std::unexpected(known_root.error());
    }
    std::future<Result<std::unordered_map<std::string, StoredEntry>>> preloaded;
    if (*known_root) {
        preloaded = std::async(std::launch::async,
                               [&db, id = **known_root] { return load_stored(db, id); });
    }
    auto scan = cachedir::scan_cache_dir(dir, options.progress);
    auto stored = preloaded.valid()
                      ? preloaded.get()
                      : Result<std::unordered_map<std::string, StoredEntry>>(std::in_place);
    if (!scan) {
        if (scan.error().kind == ErrorKind::Cancelled) {
            report.cancelled = true; // nothing written yet
            return report;
        }
        return std::unexpected(scan.error());
    }
    report.walk_errors = scan->errors;
    report.empty_key_dirs = scan->empty_key_dirs;
    std::int64_t root_id = 0;
    bool previous_interrupted = false;
    {
        auto transaction = sql::Transaction::begin(db);
        if (!transaction) {
            return std::unexpected(transaction.error());
        }
        auto start = begin_root(db, location, scan->layout());
        if (!start) {
            return std::unexpected(start.error());
        }
        root_id = start->id;
        previous_interrupted = start->previous_interrupted;
        if (auto ok = transaction->commit(); !ok) {
            return std::unexpected(ok.error());
        }
    }
    if (!*known_root || **known_root != root_id) {
        // New, or forgotten and added again meanwhile by another indexer.
        stored = load_stored(db, root_id);
    }
    if (!stored) {
        return std::unexpected(stored.error());
    }
    const auto entries = scan->entries();
    const auto files = files_by_entry(*scan);
    const auto [to_parse, replaced] = compare_with_stored(entries, files, *stored, report);
    auto writer = EntryWriter::prepare(db, root_id);
    if (!writer) {
        return std::unexpected(writer.error());
    }
    if (auto ok = remove_gone(db, *writer, *stored, report); !ok) {
        return std::unexpected(ok.error());
    }
    if (auto ok = parse_and_write(db, *writer, scan->root, to_parse, files, options, report); !ok) {
        return std::unexpected(ok.error());
    }
    // A previous index killed between its last write and this cleanup left
    // lines nothing uses, and nothing else would collect them.
    if (report.removed > 0 || report.parsed > 0 || previous_interrupted) {
        if (auto ok = collect_unused_debug_lines(db); !ok) {
            return std::unexpected(ok.error());
        }
    }
    if (!report.cancelled) {
        if (auto ok = finish_root(db, root_id); !ok) {
            return std::unexpected(ok.error());
        }
    }
    report.entries = report.unchanged + report.parsed;
    return report;
}

Result<IndexReport> index_root_paths(sql::Database& db, const fs::path& dir,
                                     const std::string& location,
                                     std::span<const std::string> paths,
                                     const IndexOptions& options) {
    auto known_root = root_id_of(db, location);
    if (!known_root) {
        return std::unexpected(known_root.error());
    }
    if (!*known_root) {
        return index_root(db, dir, location, options); // nothing to bring up to date yet
    }
    const std::int64_t root_id = **known_root;
    IndexReport report;
    report.root = location;
    auto part = cachedir::scan_cache_paths(dir, paths);
    if (!part) {
        return std::unexpected(part.error());
    }
    // A file the catalog holds under its temp name (an index caught it being
    // written) was renamed into one of these entries: the temp entries in the
    // dirs those entries sit in are read again too, to go once they are gone.
    auto temps = temp_entries_beside(db, root_id, *part);
    if (!temps) {
        return std::unexpected(temps.error());
    }
    if (!temps->empty()) {
        std::vector<std::string> with_temps(paths.begin(), paths.end());
        std::ranges::move(*temps, std::back_inserter(with_temps));
        part = cachedir::scan_cache_paths(dir, with_temps);
        if (!part) {
            return std::unexpected(part.error());
        }
    }
    report.walk_errors = part->scan.errors;
    auto stored = load_stored_part(db, root_id, *part);
    if (!stored) {
        return std::unexpected(stored.error());
    }
    const auto entries = part->scan.entries();
    const auto files = files_by_entry(part->scan);
    const auto [to_parse, replaced] = compare_with_stored(entries, files, *stored, report);
    auto writer = EntryWriter::prepare(db, root_id, EntryWriter::DebugLines::Lookup);
    if (!writer) {
        return std::unexpected(writer.error());
    }
    if (auto ok = remove_gone(db, *writer, *stored, report); !ok) {
        return std::unexpected(ok.error());
    }
    if (auto ok = parse_and_write(db, *writer, dir, to_parse, files, options, report); !ok) {
        return std::unexpected(ok.error());
    }
    if (report.removed > 0 || replaced) {
        if (auto ok = collect_unused_debug_lines(db); !ok) {
            return std::unexpected(ok.error());
        }
    }
    auto count = count_entries(db, root_id);
    if (!count) {
        return std::unexpected(count.error());
    }
    report.entries = *count;
    return report;
}

} // namespace cachelens::catalog
