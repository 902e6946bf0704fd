#pragma once

// "Make this the best config": rewrites a kernel's .best_config so that
// PyTorch's autotune cache picks another candidate next time, without
// recompiling. The new file keeps the keys PyTorch writes (the config kwargs,
// num_warps, num_stages, configs_hash, found_by_coordesc, time_taken_ms,
// triton_cache_hash) and any others it had; `configs_hash` is kept as it is
// (it names the candidate list, which did not change). Written atomically
// (temp file + rename in the same dir) after a backup of the old file.

#include <cachelens/bench/launch_plan.h>
#include <cachelens/core/error.h>

#include <filesystem>
#include <optional>

namespace cachelens::bench {

struct AcceptOutcome {
    std::filesystem::path best_config;
    std::filesystem::path backup; // <file>.cachelens-backup-<utc time>
    std::string old_config;       // describe() of the old and new configs
    std::string new_config;
};

// The candidate `plan` becomes the winner of its kernel; `time_ms` (what it
// measured) goes into time_taken_ms when given. Fails, writing nothing, when
// the kernel has no .best_config or the candidate is not one of its cubins.
// `explored`: a config cachelens tune compiled, not one of the kernel's
// cubins; written only for a coordinate-descent kernel, found_by_coordesc
// set, as PyTorch saves its own coordinate-descent winner.
Result<AcceptOutcome> accept_candidate(const KernelCandidates& kernel, const LaunchPlan& plan,
                                       std::optional<double> time_ms = std::nullopt,
                                       bool explored = false);

// Why PyTorch would not launch `kernel`'s candidate as written to its
// .best_config, or nullopt when it would. Seen with 2.11 on an H200
// (docs/PERFORMANCE.md): with coordinate_descent_tuning on in the kernel's
// inductor_meta, the cached config comes back marked found_by_coordesc, but the
// flag does not survive into the launcher's config, so every process that
// loads the kernel runs coordinate descent again from the cached config and
// rewrites the file with whatever neighbour won there: a .best_config is only
// where that search starts.
std::optional<std::string> why_not_launched_as_written(const KernelCandidates& kernel);

// Puts a backup back in place (atomically).
Result<void> restore_backup(const std::filesystem::path& backup,
                            const std::filesystem::path& best_config);

} // namespace cachelens::bench
