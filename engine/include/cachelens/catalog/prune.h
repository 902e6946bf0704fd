#pragma once

// What a prune deletes, and what it did. Like ccache's max_size and
// --evict-older-than, for Inductor caches: things that belong together go
// together (an FX key dir with every entry under it, the AOT entries linking
// to it, and the modules, best_configs and Triton kernels only they used),
// oldest first. Catalog::plan_prune() and Catalog::prune() build and run it.

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/core/error.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::catalog {

inline constexpr std::int64_t kDefaultKeepRecentNs = 10LL * 60 * 1'000'000'000;
// A key dir left without entries stays at least this long after anything was
// written in it, whatever keep_recent_ns says: PyTorch makes a key dir (or
// finds it there) and then writes into it, and a dir removed in between fails
// that write, which is worse than a finished entry deleted.
inline constexpr std::int64_t kKeyDirMinIdleNs = 60LL * 1'000'000'000;

struct PruneOptions {
    // Evict oldest first until the root's files take at most this many bytes.
    std::optional<std::uint64_t> max_size;
    // Evict what was last modified longer ago than this.
    std::optional<std::int64_t> older_than_ns;
    // Never evict what changed more recently: PyTorch writes modules and
    // kernels before the FX entry that refers to them, minutes apart.
    std::int64_t keep_recent_ns = kDefaultKeepRecentNs;
    // The time ages are measured from; the clock when absent.
    std::optional<std::int64_t> now_ns;
};

// A file as the catalog saw it; deleted only if it is still exactly that.
struct PruneFile {
    std::string path; // relative to the root
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint64_t inode = 0;
};

struct PruneEntry {
    cachedir::FileKind kind = cachedir::FileKind::Unknown;
    std::string key;
    std::string path; // the file, or the Triton kernel dir
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::vector<PruneFile> files;
};

enum class PruneReason {
    OlderThan, // last written before --older-than
    MaxSize,   // the oldest while the root is over --max-size
};
// "older_than", "max_size"
std::string_view to_string(PruneReason reason);

// What goes together: the entries that define it, then what only they used.
struct PruneUnit {
    PruneReason reason = PruneReason::OlderThan;
    std::int64_t mtime_ns = 0; // its newest file: when it was last written
    std::uint64_t bytes = 0;
    std::vector<PruneEntry> entries;
    std::size_t defining_entries = 0; // entries[0, defining_entries) define the unit
};

struct PrunePlan {
    std::string root; // the root's location in the catalog
    std::optional<std::uint64_t> max_size;
    std::optional<std::int64_t> older_than_ns;
    std::int64_t keep_recent_ns = 0;
    std::int64_t now_ns = 0;
    std::uint64_t bytes_before = 0;
    std::uint64_t bytes_after = 0;
    // Kept whatever the limit: changed within keep_recent_ns, or never ours
    // to delete (locks, files being written, files of unknown kind).
    std::uint64_t recent_bytes = 0;
    std::uint64_t unevictable_bytes = 0;
    bool size_reached = true;     // false when max_size cannot be met
    std::vector<PruneUnit> units; // in the order they go: oldest first
};

struct PruneOutcome {
    std::size_t entries_deleted = 0;
    std::size_t files_deleted = 0;
    std::uint64_t bytes_freed = 0;
    // Entries left in place and why: changed since the plan, now used by a
    // new entry, gone already.
    std::vector<std::string> kept;
    std::vector<Error> errors;
    // Stopped (IndexOptions::progress) before every planned entry went: each
    // entry went whole or not at all, and the catalog knows which.
    bool cancelled = false;
    // Key dirs left without entries, and fxgraph shard dirs left empty, that
    // were removed (relative to the root): only when nothing had been written
    // in them for keep_recent_ns (and kKeyDirMinIdleNs), with rmdir, which
    // refuses a dir holding anything.
    std::vector<std::string> dirs_removed;
};

} // namespace cachelens::catalog
