#pragma once

// Will a cache hit on another machine? Every FX graph key names the
// environment it was compiled for (cachedir/environment.h): the torch build,
// the GPU, CUDA or HIP, Triton. A target machine is known by what its own
// compiles wrote into their keys (a cache dir made there). An entry whose
// environment differs from the target's in any of them will miss there,
// whatever else matches; one that matches can hit (its guards and the rest of
// its key still decide).

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/environment.h>
#include <cachelens/cachedir/file_kind.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

// What a machine's compiles write into their keys.
struct MachineEnvironment {
    cachedir::Environment environment;     // the one most of its FX entries name
    std::vector<std::string> device_types; // every device its graphs were compiled for, sorted
    std::size_t fx_entries = 0;            // FX entries read to learn it
    std::size_t agreeing = 0;              // of them, those naming `environment`
};

// The environment of the machine that wrote `scan`'s FX entries. NotFound
// when the dir has no readable FX entry to learn it from; Cancelled when a
// stop is asked through `progress`.
Result<MachineEnvironment> environment_of_dir(const cachedir::Scan& scan,
                                              const ProgressFn& progress = {});

enum class PreflightOutcome { CanHit, WillMiss, CannotTell };
std::string_view to_string(PreflightOutcome outcome); // can_hit, will_miss, cannot_tell

struct PreflightReason {
    std::string category; // environment, device (the why engine's categories)
    std::string text;     // "GPU: NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB"
};

struct PreflightEntry {
    cachedir::FileKind kind = cachedir::FileKind::Unknown; // FxGraph or AotAutograd
    std::string key;
    std::string path; // relative to the source root
    PreflightOutcome outcome = PreflightOutcome::CannotTell;
    std::vector<PreflightReason> reasons; // why it will miss, or why it cannot tell
};

// Something missing from the source that keeps an entry from hitting, or
// makes work PyTorch would redo.
struct PreflightGap {
    cachedir::FileKind kind = cachedir::FileKind::Unknown;
    std::string key;
    std::string text; // "its forward graph fxyz… is not in the cache: it can never hit"
};

struct PreflightReport {
    std::vector<PreflightEntry> entries; // FX entries, then AOTAutograd entries, by path
    std::vector<PreflightGap> incomplete;
    std::size_t count(PreflightOutcome outcome) const;
};

// Every FX and AOTAutograd entry of `source` against `target`. An AOT entry
// takes the worst outcome of its graphs. Gaps: an AOT entry whose forward or
// backward graph is absent; an FX entry whose kernels' .best_configs are
// absent (autotuning runs again there).
Result<PreflightReport> preflight(const cachedir::Scan& source, const MachineEnvironment& target,
                                  const ProgressFn& progress = {});

} // namespace cachelens::explain
