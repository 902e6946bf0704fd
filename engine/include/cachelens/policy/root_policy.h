#pragma once

// What a root allows to be written, one rule for both front ends: a Redis
// server's mirror (remote/mirror.h) and a staged bundle (bundle/staging.h)
// are browsed read-only — the next refresh or staging would undo a write,
// and a write there is not a write to the cache the user means. The CLI
// refuses (exit 2) what the GUI refuses, in the same words.

#include <cachelens/core/error.h>

#include <filesystem>
#include <string>

namespace cachelens::policy {

enum class RootKind {
    CacheDir,     // a cache dir of the user's: every write allowed
    RedisMirror,  // <catalog dir>/remote/<host>-<port>-db<N>, with its .origin
    StagedBundle, // <staging base>/<hash>/bundle/<file>, with its origin record
};

struct RootPolicy {
    RootKind kind = RootKind::CacheDir;
    // Where a read-only root came from: the server's URL (never a password)
    // or the bundle file; else the root's own name.
    std::string origin;
    bool read_only() const { return kind != RootKind::CacheDir; }
};

// Read from the root's own records, whatever catalog or staging base made it.
RootPolicy root_policy(const std::filesystem::path& root);

// The writes a user asks of a root.
enum class RootWrite {
    Prune,      // delete entries
    BestConfig, // change a kernel's .best_config (bench accept)
    Import,     // write a bundle's or a server's artifacts into it
};

// Nothing when `write` is allowed in `root`; else an InvalidArgument error
// naming the root and saying where to do it instead.
Result<void> allow_write(const std::filesystem::path& root, RootWrite write);

} // namespace cachelens::policy
