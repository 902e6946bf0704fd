#pragma once

// Checking a cache dir the way PyTorch would trust it: every content-addressed
// name matches its bytes, every file parses, every link points at something
// that exists, and no write was left half done.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/core/progress.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

enum class ProblemKind {
    NameMismatch, // a content-addressed name does not match the content
    ParseError,   // the file does not parse as what its place says it is
    KeyMismatch,  // an entry says it belongs to another key than its dir
    Misplaced,    // an entry sits in the wrong shard dir
    DanglingLink, // AOT -> missing fxgraph key; best_config -> missing Triton dir
    Incomplete,   // a Triton kernel dir lacks files its group file lists
    StrayTemp,    // a temp file from an unfinished (or ongoing) atomic write
    Unreadable,   // the walk could not read it, or a symlink was not followed
    EmptyKeyDir,  // a key dir without entries (a warning: PyTorch reads it as a miss)
    Moved,        // a Triton cache's group file names its files at another path (a warning)
    Stale,        // an OnDiskCache value of another version: PyTorch deletes it when it reads it
    OrphanLock,   // an OnDiskCache lock no value of its dir uses
    Unsafe,       // an archive member whose extraction would leave its dir, or exceed a limit
    CrcMismatch,  // an archive member whose bytes do not match the crc the archive records
};

std::string_view to_string(ProblemKind kind);

struct Problem {
    std::string path; // relative to the cache dir
    ProblemKind kind = ProblemKind::ParseError;
    std::string message;
    std::size_t order = 0; // when it was found, to keep a file's problems in order
};

struct VerifyReport {
    std::vector<Problem> problems; // sorted by path
    // Listed, sorted by path, but harmless: the dir is still clean.
    std::vector<Problem> warnings;
    std::size_t entries_checked = 0;
    std::size_t names_verified = 0; // content-addressed names that matched (a .pt2: crcs)
    // Names PyTorch derives from more than the content (autotune template
    // candidates, C++ sources keyed with their compile command): not checkable.
    std::size_t names_not_content_addressed = 0;

    bool clean() const { return problems.empty(); }
};

VerifyReport verify_cache_dir(const Scan& scan);

// The same checks for a file read on its own: what its kind allows to be
// checked without its dir. A .pt2 archive: every member's crc (read once,
// `progress` hears the Checking stage; a stop is a Cancelled error), every
// name that would leave an extraction dir, sizes over the limits, and what
// PyTorch's loader would refuse.
Result<VerifyReport> verify_standalone_file(const StandaloneFile& file,
                                            const ProgressFn& progress = {});

} // namespace cachelens::cachedir
