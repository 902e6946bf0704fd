#pragma once

// Will a cache hit on another machine? Every FX graph key names the
// environment it was compiled for and the Inductor config it was compiled
// with (cachedir/fingerprint.h). A target machine is known by its
// fingerprint: from a cache dir made there, or from `cachelens env`. An entry
// whose environment differs from the target's in any of them will miss there,
// whatever else matches; one that matches can hit (its guards and the rest of
// its key still decide).

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/file_kind.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/precompile.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>
#include <cachelens/pt2/pt2_archive.h>

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

// What preflight reads of a cache dir or a bundle: its graph entries, and
// what else a target needs of it.
struct PreflightSource {
    struct Graph {
        cachedir::FileKind kind = cachedir::FileKind::Unknown; // FxGraph or AotAutograd
        std::string key;
        std::string path;           // relative to the dir; where import puts it, for a bundle
        std::filesystem::path file; // in a dir: the entry file
        std::string_view bytes;     // in a bundle: its content, inside the bundle
    };
    std::string name;                   // the dir or the bundle file
    std::vector<Graph> graphs;          // FX entries, then AOTAutograd entries, by path
    std::set<std::string> best_configs; // "<xx>/<sha256>.best_config" present
    std::size_t pgo_profiles = 0;       // dynamo/code_state_*.pkl (pgo artifacts)
};

PreflightSource preflight_source(const cachedir::Scan& scan);
// A bundle's artifacts, read in place: `bundle` must outlive the source.
PreflightSource preflight_source(const bundle::MegaBundle& bundle, std::string name);

enum class PreflightOutcome { CanHit, WillMiss, CannotTell };
std::string_view to_string(PreflightOutcome outcome); // can_hit, will_miss, cannot_tell

struct PreflightReason {
    std::string category; // environment, device, config (the why engine's categories)
    std::string text;     // "GPU: NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB"
    // What it does to the entry's outcome: WillMiss, CannotTell, or CanHit
    // for a remark that decides nothing (a per-compile config key).
    PreflightOutcome effect = PreflightOutcome::WillMiss;
};

// Whether an Inductor config key is a property of the environment (read
// from a TORCHINDUCTOR_* variable in torch/_inductor/config.py, 2.11) rather
// than of one torch.compile call: the keys `mode` sets (max_autotune,
// coordinate_descent_tuning, triton.cudagraphs) and those only a program
// sets are per call, so a target's other value says nothing of this one.
bool is_environment_config(std::string_view name);

struct PreflightEntry {
    cachedir::FileKind kind = cachedir::FileKind::Unknown; // FxGraph or AotAutograd
    std::string key;
    std::string path; // relative to the source root
    PreflightOutcome outcome = PreflightOutcome::CannotTell;
    std::vector<PreflightReason> reasons; // why it will miss, or why it cannot tell
};

// Something the source lacks that keeps an entry from hitting, or makes work
// PyTorch would redo.
struct PreflightGap {
    cachedir::FileKind kind = cachedir::FileKind::Unknown;
    std::string key;
    std::string text; // "its forward graph fxyz… is not in the cache: it can never hit"
};

struct PreflightReport {
    std::vector<PreflightEntry> entries; // FX entries, then AOTAutograd entries, by path
    std::vector<PreflightGap> incomplete;
    // What may cost a recompile there but cannot be known from the cache:
    // graphs with dynamic shapes and no PGO profile beside them.
    std::vector<std::string> notes;
    // False when the target's config is unknown (a fingerprint asked of
    // Python): entries were judged on their environment alone.
    bool config_compared = false;
    std::size_t count(PreflightOutcome outcome) const;
    // The answer, in one line: "17 of 19 entries can hit on the target; 2 will
    // miss, 0 cannot tell".
    std::string answer() const;
    // Every entry can hit and nothing is missing.
    bool all_can_hit() const;
};

// Every graph entry of `source` against `target`. An AOT entry takes the
// worst outcome of its graphs. Gaps: an AOT entry whose forward or backward
// graph is absent; an FX entry whose kernels' .best_configs are absent
// (autotuning runs again there).
Result<PreflightReport> preflight(const PreflightSource& source,
                                  const cachedir::Fingerprint& target,
                                  const ProgressFn& progress = {});

// `source` against the machine `target` names (cachedir::fingerprint_of_target:
// a fingerprint file or a cache dir made there). The import paths of both
// front ends check a bundle against the dir it goes into with it; a dir with
// no FX entry gives NotFound: the machine is then unknown.
struct TargetCheck {
    cachedir::Fingerprint target;
    PreflightReport report;
};
Result<TargetCheck> preflight_against(const PreflightSource& source,
                                      const std::filesystem::path& target,
                                      const ProgressFn& progress = {});

// Will an AOTInductor package load on the target, and its kernels run? Per
// model: its device against the target's devices, its kernel binaries' SM
// architecture against the target GPU's. What the package does not record
// (the CUDA and torch versions its .so needs, the CPU features a CPU model
// was compiled for, against a target whose fingerprint has none) is said,
// never guessed.
struct Pt2ModelCheck {
    std::string model;
    PreflightOutcome outcome = PreflightOutcome::CannotTell; // can_hit reads "can load"
    std::vector<PreflightReason> reasons;
};

struct Pt2Preflight {
    std::vector<Pt2ModelCheck> models;
    std::vector<std::string> notes; // what no package records
    std::size_t count(PreflightOutcome outcome) const;
    // "1 of 1 model can load on the target" / "... 1 will not load, 0 cannot tell".
    std::string answer() const;
    bool all_load() const;
};

Pt2Preflight preflight_pt2(const pt2::Archive& archive, const cachedir::Fingerprint& target);

// Will a precompiled function (or DynamoCache entry) load on the target?
// PyTorch's SystemInfo.check_compatibility, in its words, against what the
// target's fingerprint knows: torch version (known when asked through
// Python), device, CUDA toolkit, Triton major.minor and GPU name. The
// Python version is never in a fingerprint: it is a note.
struct PrecompilePreflight {
    PreflightOutcome outcome = PreflightOutcome::CannotTell; // can_hit reads "can load"
    std::vector<PreflightReason> reasons; // why it will not load, or why it cannot tell
    std::vector<std::string> notes;
    // "The precompiled function can load on the target" / "... will not load" / "cannot tell".
    std::string answer() const;
};

PrecompilePreflight preflight_precompile(const cachedir::PrecompileFile& file,
                                         const cachedir::Fingerprint& target);

} // namespace cachelens::explain
