#pragma once

// A bundle staged to be browsed like a cache dir: its safe artifacts imported
// (bundle/import.h) into a private dir of its own under a staging base,
//
//   <base>/<first 16 hex of the file's sha256>/bundle/<file name>   the cache dir, a root
//   <base>/<...>/origin                                             the bundle file's path
//   <base>/<...>/report                                             what staging did, as text
//
// so that the root's last two components read "bundle/<file name>" wherever
// a root is named by its path, and the same bytes always stage to the same
// place. Any front end that stages a bundle reads and writes it through this.

#include <cachelens/core/error.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace cachelens::bundle {

struct StagingPaths {
    std::filesystem::path dir;         // <base>/<hash>: everything of this staging
    std::filesystem::path root;        // <dir>/bundle/<file name>: the cache dir
    std::filesystem::path origin_file; // <dir>/origin
    std::filesystem::path report_file; // <dir>/report
};

// Where the bundle `file`, whose bytes are `bytes`, is staged under `base`.
StagingPaths staging_paths(const std::filesystem::path& base, const std::filesystem::path& file,
                           std::string_view bytes);

// Empties what an earlier staging of the same bytes left and creates the
// (empty) root.
Result<void> prepare_staging(const StagingPaths& paths);

// Writes the origin (the bundle file's path) and the report beside the root.
Result<void> record_staging(const StagingPaths& paths, const std::filesystem::path& file,
                            std::string_view report);

// Whether `root` is a bundle staged under `base`. Paths are compared as the
// catalog records them.
bool is_staged_bundle(const std::filesystem::path& root, const std::filesystem::path& base);

// The bundle file a staged root (under any base) was made from; nullopt when
// `root` is not laid out as a staged root or its origin is not recorded.
std::optional<std::filesystem::path> staged_origin(const std::filesystem::path& root);

// What staging reported, as record_staging() wrote it; nullopt as for
// staged_origin().
std::optional<std::string> staged_report(const std::filesystem::path& root);

} // namespace cachelens::bundle
