#pragma once

// Exporting from a cache dir to a mega-cache bundle that PyTorch's
// torch.compiler.load_cache_artifacts() loads: the inverse of import.
//
// With keys, the bundle holds the chosen FX graph entries ("f…" keys) and
// AOTAutograd entries ("a…" keys), closed over their links: an AOT entry
// brings the FX graphs it is made of, an FX graph brings the AOT entries
// made of it, and every FX graph brings the best_configs of its kernels.
// Without keys it holds the whole dir: every FX graph and AOT entry, every
// best_config and dynamo profile. Sections come in PyTorch's order
// (inductor, autotune, aot_autograd, pgo). A content-addressed file whose
// name is not the hash of its bytes is refused: a damaged entry would
// otherwise travel.

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cachelens::bundle {

struct ExportRequest {
    std::vector<std::string> keys; // FX and AOT keys; empty: everything
};

struct ExportResult {
    MegaBundle bundle;
    // What the bundle lacks and why: a best_config an FX graph names but the
    // dir does not hold, ...
    std::vector<std::string> notes;
};

// `progress` hears the Reading stage: each file read into the bundle (how
// many there will be is known at the end); a stop is a Cancelled error.
Result<ExportResult> export_bundle(const std::filesystem::path& cache_dir,
                                   const ExportRequest& request = {},
                                   const ProgressFn& progress = {});

} // namespace cachelens::bundle
