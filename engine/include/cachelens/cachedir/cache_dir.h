#pragma once

// Walking an Inductor cache dir, or a Triton cache dir: every file with its
// kind, size, mtime and inode; grouped into entries (one per cached thing: an
// FX graph entry file, a module, a Triton kernel dir, ...); found by key, path
// or kernel name.

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

struct FileRecord {
    std::string path; // relative to the root, '/'-separated
    FileKind kind = FileKind::Unknown;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint64_t inode = 0;
};

struct Entry {
    FileKind kind = FileKind::Unknown;
    // fxgraph/aotautograd: the key dir name; modules, best_configs...: the file
    // stem; Triton: the kernel dir name; files in a Triton hash dir (autotune
    // results, launchers): that dir's name; others: the relative path.
    std::string key;
    std::string path; // the file, or the Triton kernel dir
    std::string name; // Triton: the kernel name; TritonAutotune: the function's;
                      // KeyedCacheValue: the cache's (its dir under cache/); others: empty
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0; // the newest file's
    std::uint32_t file_count = 1;
};

struct KindSummary {
    std::uint64_t files = 0;
    std::uint64_t entries = 0;
    std::uint64_t bytes = 0;
};

struct Scan {
    std::filesystem::path root;
    std::vector<FileRecord> files; // sorted by path
    // What could not be walked: unreadable dirs, symlinks (never followed).
    std::vector<Error> errors;
    // Key dirs (fxgraph/<xx>/<key>, aotautograd/<key>) that hold no entry, sorted:
    // PyTorch found nothing under such a key, as if the dir were not there.
    std::vector<std::string> empty_key_dirs;
    // Set when the dir is (in) a vLLM or SGLang tree (serving/serving_tree.h):
    // its files are classified where they sit in it.
    std::optional<RootLayout> serving;

    std::vector<Entry> entries() const;
    std::map<FileKind, KindSummary> summary() const;
    // The serving layout when set; Triton when the files sit in Triton hash
    // dirs (and their tmp.* dirs) and none is an Inductor cache's; Inductor
    // otherwise, an empty dir too.
    RootLayout layout() const;
};

// The dir a file of a kind kept as one entry per dir belongs to (that entry's
// path): a Triton kernel dir, an AOTInductor output dir, a Halide kernel or
// runtime dir, a TORCH_COMPILE_DEBUG copy. Empty for the kinds kept as one
// entry per file.
std::string_view entry_dir_of(FileKind kind, std::string_view path);

// Walks `root` without following symlinks. Fails when root is not a readable dir.
// `progress` hears the Scanning stage (files found so far, their bytes).
Result<Scan> scan_cache_dir(const std::filesystem::path& root, const ProgressFn& progress = {});

// A scan of some entries of a cache dir: those the files `paths` (relative
// to the root, as watch::DirWatcher gives them) belong to, read without
// walking the rest of the dir. A file is stat'ed; a file of a dir kept as
// one entry (a Triton kernel dir, ...) makes that dir read whole, and so
// does a path naming a dir (every entry under it). `files` and `dirs` say
// what the scan speaks for: an entry at one of `files`, or at or under one
// of `dirs`, that it did not find is gone.
struct PartScan {
    Scan scan;                      // empty_key_dirs left empty
    std::vector<std::string> files; // sorted
    std::vector<std::string> dirs;  // sorted; none under another
};
// InvalidArgument for a path that is absolute or leaves the root.
Result<PartScan> scan_cache_paths(const std::filesystem::path& root,
                                  std::span<const std::string> paths);

// What a user means by `query` in the cache dir `root`: a path relative to
// the root (or an absolute one inside it; a file inside a Triton kernel dir
// names that dir, a key dir fxgraph/xx/<key> every entry under it), a key
// (fxgraph, aotautograd, module, best_config, Triton hash, system hash) or a
// Triton kernel name. find_entries() applies it to a scan; the GUI to the
// entries a catalog search found, so that both read a query alike.
class EntryQuery {
public:
    enum class Match {
        None,
        Key,  // its key or kernel name, or the key dir it is in: one of several, maybe
        Path, // its own path: this entry and no other
    };

    EntryQuery(const std::filesystem::path& root, std::string_view query);

    Match match(const Entry& entry) const;
    // The key the entries it names are filed under (for a path: the key its
    // entry or key dir has), to find them by in a catalog search.
    std::string search_key() const;
    // The query as a path relative to the root (itself when it is no path).
    const std::string& relative() const { return relative_; }

private:
    std::string query_;
    std::string relative_; // the query as a path relative to the root
};

// The entries a user means by `query` (EntryQuery). Empty when nothing matches.
std::vector<Entry> find_entries(const Scan& scan, std::string_view query);

// find_entries(), and when it finds nothing, the entries of the one key that
// starts with `query` (at least 4 characters, not a path): the README's
// shortened keys ("fc4trgrb2j5v...") name their entries. The start of
// several keys is an error listing them; empty when nothing matches at all.
Result<std::vector<Entry>> find_entries_or_key_prefix(const Scan& scan, std::string_view query);

// The fewest characters of a key that name it as its start: fewer would
// too easily be the start of a path or name too.
inline constexpr std::size_t kMinKeyPrefix = 4;

// The one key grammar of every command that takes keys: a full key, its
// first characters (at least kMinKeyPrefix) when they start one key only, a
// Triton kernel name, or a path in the dir. Never empty: NotFound when
// nothing matches (saying so when the query is too short to be a key's
// start, or naming a key dir without entries); InvalidArgument for the start
// of several keys, listing them.
Result<std::vector<Entry>> resolve_entries(const Scan& scan, std::string_view query);

// The key dir `query` names (by key, or by its path as find_entries takes
// one) when it holds no entry; empty when it names none or one with entries.
std::string empty_key_dir_named(const Scan& scan, std::string_view query);

// What a command says of a key whose dir `key_dir` ("fxgraph/zz/fzz...")
// holds no entry: named explicitly, it is not found; in a whole-dir walk,
// it is skipped with a note.
std::string no_entries_message(std::string_view key_dir);
std::string empty_key_dir_note(std::string_view key_dir);

// What a walk of a cache dir says it covered: every entry parsed, or how many
// did not; and never that every entry parsed while it holds files of no kind
// cachelens knows. `ls` says how to list those ("cachelens ls DIR ..."); the
// CLI's `scan` and `stats` and the GUI's Stats page all say it this way.
std::string coverage_line(std::size_t parse_errors, std::uint64_t unknown_files,
                          std::uint64_t unknown_bytes, std::string_view ls);

// The dirs just under a walked dir that are cache dirs of their own, from
// the paths (relative to the walked dir) of its files of kind unknown: most
// of a dir's unknown files are of a known kind once read from that dir (a
// cache dir named "cache" walked from its parent, vLLM's inductor_cache/).
// Sorted; empty when none is.
std::vector<std::string> nested_cache_dirs(std::span<const std::string> unknown_paths);

// "DIR/cache looks like a cache dir of its own: cachelens scan DIR/cache",
// for each such dir, one line each; `root` is the walked dir as the user
// named it. Empty when `dirs` is.
std::string nested_cache_dirs_note(std::string_view root, std::span<const std::string> dirs);

// The part of a file name before its first '.' ("c2clu...") or the whole name.
std::string_view stem_of(std::string_view file_name);

// "c<hash>" when `path` names a cache module ".../<xx>/c<hash>.py" (on any
// machine: kernels record where their module was when they were compiled).
std::string module_key_from_path(std::string_view path);

} // namespace cachelens::cachedir
