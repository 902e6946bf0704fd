#pragma once

// The catalog: one SQLite file indexing many cache dirs, so that a machine's
// caches can be searched, counted and pruned at once. Indexing is incremental
// (only files whose size, mtime or inode changed are parsed again, on a
// thread pool) and crash-safe (every batch is one transaction; an interrupted
// index leaves a consistent catalog that the next index completes).

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/catalog/prune.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace cachelens::catalog {

// $XDG_DATA_HOME/cachelens/catalog.sqlite, or ~/.local/share/cachelens/...
std::filesystem::path default_catalog_path();

struct IndexOptions {
    unsigned threads = 0;         // parsing threads; 0: one per core
    std::size_t batch_size = 200; // entries per transaction
    // Scanning (files found), then Parsing (entries written: what changed);
    // called from the indexing thread. False stops the index after the entry
    // in hand is committed: the catalog holds whole entries, and the next
    // index finishes the job (IndexReport::cancelled).
    ProgressFn progress;
};

struct IndexReport {
    std::string root;
    std::size_t entries = 0;      // in the root after this index
    std::size_t unchanged = 0;    // same files, sizes, mtimes and inodes: not parsed
    std::size_t parsed = 0;       // new or changed: parsed now
    std::size_t removed = 0;      // gone since the last index
    std::size_t parse_errors = 0; // of those parsed now
    // Did not parse and were written within the last minute: files written in
    // place (an OnDiskCache value, vLLM's index) caught half done. Not
    // stored (what the catalog held of them stays), parsed by the next index.
    std::vector<std::string> being_written;
    std::vector<Error> walk_errors;
    std::vector<std::string> empty_key_dirs; // no entries: nothing indexed for them
    bool cancelled = false;
};

struct Root {
    std::int64_t id = 0;
    std::string location;
    std::int64_t added_ns = 0;
    std::optional<std::int64_t> indexed_ns; // when the last complete index finished
    // What it held when last indexed: an Inductor cache, or Triton's own.
    cachedir::RootLayout layout = cachedir::RootLayout::Inductor;
};

// The order of search results. Location: by root, kind, key and path.
enum class SortColumn {
    Location,
    Kind,
    Key,
    KeyEntries,
    Size,
    Modified,
    Device,
    CompileTime,
    Guards,
    Role
};

struct SearchQuery {
    std::string text; // FTS5 words over keys, kernel names, debug lines, source; empty: all
    std::vector<cachedir::FileKind> kinds;
    std::optional<std::string> root;   // a root location (as indexed) or a dir path
    std::optional<std::string> device; // "cuda", "cpu": FX entries compiled for it
    std::optional<bool> has_guards;
    std::optional<std::uint64_t> min_size;
    std::optional<std::uint64_t> max_size;
    std::optional<std::int64_t> modified_after_ns;
    std::optional<std::int64_t> modified_before_ns;
    SortColumn sort = SortColumn::Location;
    bool descending = false;
    std::size_t limit = 100;
    std::size_t offset = 0;
};

struct SearchHit {
    std::int64_t entry_id = 0;
    std::string root;
    cachedir::FileKind kind = cachedir::FileKind::Unknown;
    std::string key;
    std::string path;
    std::string name;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::string parse_status;
    std::string device;             // FX entries
    std::string role;               // FX entries: forward, backward, inference; empty: unknown
    std::optional<bool> has_guards; // FX and AOT entries
    std::optional<std::int64_t> compile_time_ns;
    std::uint32_t key_entries = 1;    // entries of this kind under this key in this root
    std::vector<std::string> matched; // where the text matched: key, name, debug line, source
};

// A page of search() and the count() of every match, read at once.
struct SearchPage {
    std::vector<SearchHit> hits;
    std::size_t total = 0;
};

struct KindStats {
    std::uint64_t entries = 0;
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    std::int64_t oldest_ns = 0;
    std::int64_t newest_ns = 0;
    std::uint64_t parse_errors = 0;
};

struct EntrySummary {
    cachedir::FileKind kind = cachedir::FileKind::Unknown;
    std::string key;
    std::string path;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::string error; // for parse errors
};

// Compiled Triton kernels grouped by what a Triton cache is sorted by.
struct TritonGroupStats {
    std::string group; // a kernel name, or an arch ("90", "gfx942"; "" when unknown)
    std::uint64_t kernels = 0;
    std::uint64_t bytes = 0;
    std::int64_t oldest_ns = 0;
    std::int64_t newest_ns = 0;
};

struct RootStats {
    Root root;
    std::map<cachedir::FileKind, KindStats> kinds;
    std::vector<TritonGroupStats> triton_by_name; // the largest names first, at most `largest`
    std::vector<TritonGroupStats> triton_by_arch; // the largest first
    std::vector<EntrySummary> largest;            // the biggest entries, largest first
    std::vector<EntrySummary> parse_errors;       // entries that did not parse
    std::vector<EntrySummary>
        unknown; // files cachelens does not know, largest first, at most `largest`
};

class EntryIndex;

class Catalog {
public:
    // Opens (creating it and its dir if needed) and migrates to the current schema.
    static Result<Catalog> open(const std::filesystem::path& path);
    Catalog(Catalog&&) noexcept;
    Catalog& operator=(Catalog&&) noexcept;
    ~Catalog();

    const std::filesystem::path& path() const;

    // Adds `dir` as a root if it is new, then brings its rows up to date.
    Result<IndexReport> index(const std::filesystem::path& dir, const IndexOptions& options = {});
    // Brings up to date only the rows of the entries the files `paths`
    // (relative to `dir`, as watch::DirWatcher gives them) belong to, without
    // walking the rest of the dir (cachedir::scan_cache_paths): what a watch
    // saw written is in the catalog in milliseconds, however large the dir.
    // An entry there that is gone is removed; files deleted elsewhere in the
    // dir are not noticed (index() does). A dir the catalog does not hold
    // yet is indexed whole. `entries` counts the root's rows afterwards; the
    // root's last complete index stays as it was.
    Result<IndexReport> index_paths(const std::filesystem::path& dir,
                                    std::span<const std::string> paths,
                                    const IndexOptions& options = {});
    Result<std::vector<Root>> roots() const;
    // The root a dir was indexed as (its canonical path), if it was.
    Result<std::optional<Root>> find_root(const std::filesystem::path& dir) const;
    Result<void> forget_root(const std::filesystem::path& dir);

    Result<std::vector<SearchHit>> search(const SearchQuery& query) const;
    Result<std::size_t> count(const SearchQuery& query) const;
    // search() and count() in one read: the text is matched once for both.
    Result<SearchPage> search_page(const SearchQuery& query) const;
    // The ids of every entry `query` matches, in its order (limit and offset
    // ignored): what a view pages through with entries_by_id().
    Result<std::vector<std::int64_t>> search_ids(const SearchQuery& query) const;
    // Those entries, in the order given (`matched` left empty); ids no longer
    // in the catalog are skipped.
    Result<std::vector<SearchHit>> entries_by_id(std::span<const std::int64_t> ids) const;
    // The ids (ascending) of the entries `text` matches as search() matches
    // it; nullopt when it has no words (it matches everything).
    Result<std::optional<std::vector<std::int64_t>>> text_match_ids(std::string_view text) const;
    // The entry `query` names, as cachedir::EntryQuery reads it (a key, a
    // Triton kernel name, a key dir, a path relative to a root or an absolute
    // one, which names its root), else the one key it is the start of: of
    // `kind` unless Unknown, in `root` unless none. Its path naming it beats
    // its key or name (several entries may share those: the first in search
    // order is taken), which beats a key prefix; with `avoid_root`, an entry in
    // another root beats one there (a mirrored entry is compared with the
    // local one, not with itself). The start of a key names it only with
    // KeyPrefix::Accepted (what a user typed: the GUI's --select and --compare). nullopt when
    // nothing matches; InvalidArgument when the query is the start of several keys.
    enum class KeyPrefix { Refused, Accepted };
    Result<std::optional<SearchHit>>
    find_entry(std::string_view query, cachedir::FileKind kind = cachedir::FileKind::Unknown,
               const std::optional<std::filesystem::path>& root = std::nullopt,
               const std::optional<std::filesystem::path>& avoid_root = std::nullopt,
               KeyPrefix key_prefix = KeyPrefix::Refused) const;
    // Every entry's filter and sort fields, for search_ids() again and again
    // without a query (entry_index.h).
    Result<EntryIndex> load_index() const;

    // Every root, or one; `largest` entries per root.
    Result<std::vector<RootStats>> stats(const std::optional<std::filesystem::path>& dir,
                                         std::size_t largest = 10) const;

    // What pruning `dir` (indexed already) would delete. Deletes nothing.
    Result<PrunePlan> plan_prune(const std::filesystem::path& dir,
                                 const PruneOptions& options) const;
    // Indexes `dir`, then plans its prune from what is there now (the CLI's
    // and the GUI's way). Ages, --keep-recent's included, are measured from
    // when this call began, not from the end of the index: on a busy machine
    // a slow index must not make a file written just before the prune look
    // old. nullopt when the index was stopped (nothing written).
    Result<std::optional<PrunePlan>> index_and_plan_prune(const std::filesystem::path& dir,
                                                          PruneOptions options,
                                                          const IndexOptions& indexing = {});
    // Deletes what `plan` lists, except what changed since it was made or
    // what something written since uses; then indexes the root again.
    // `options.progress` hears both indexes and the Deleting stage between.
    Result<PruneOutcome> prune(const PrunePlan& plan, const IndexOptions& options = {});

    // The raw connection, for engine modules that keep their own tables (prune, bench).
    sqlite3* handle() const;

private:
    struct Impl;
    explicit Catalog(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The canonical form a dir is recorded under.
std::string root_location(const std::filesystem::path& dir);

} // namespace cachelens::catalog
