#pragma once

// `<xx>/<sha256 hex>.best_config`: the autotune winner for one kernel (JSON),
// and `<xx>/c<hash>.kernel_perf`: a benchmarked time in ms (text).

#include <cachelens/cachedir/kernel_config.h>
#include <cachelens/core/error.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

struct BestConfig {
    KernelConfig config;
    std::optional<std::string> configs_hash;      // hash of the candidate list it won among
    std::optional<bool> found_by_coordesc;        // coordinate descent refined it
    std::optional<double> time_taken_ms;          // how long autotuning took
    std::optional<std::string> triton_cache_hash; // triton/<device>/<hash>/ of the winner's cubin
    // Keys this reader does not know, kept so nothing is lost: (name, JSON text).
    std::vector<std::pair<std::string, std::string>> other_fields;
};

Result<BestConfig> parse_best_config(std::string_view json);

// A compiled candidate config of one kernel, as current_best() compares it.
struct CandidateConfig {
    std::string_view triton_dir; // triton/<device>/<this>/ holds its cubin
    const KernelConfig* config = nullptr;
};

// Which config of a kernel runs now, by its .best_config, among the
// candidates Inductor compiled for it. The one rule `cachelens bench --plan`
// and the GUI's Autotune tab mark "best" by.
struct CurrentBest {
    enum class Kind {
        Unknown,   // no .best_config, and not one candidate: nothing says which runs
        Candidate, // candidates[index]: the one the .best_config names (or the only one)
        // The .best_config names a config none of the candidates is: coordinate
        // descent refined the winner after they were compiled (formats.md §5).
        // Its cubin is triton/<device>/<triton_cache_hash>/ when the
        // .best_config records that, else a Triton dir compiled with its config.
        NotACandidate,
    };
    Kind kind = Kind::Unknown;
    std::size_t index = 0;
};

// `best`: the kernel's .best_config, null when there is none. A .best_config
// that records its cubin's Triton dir names the candidate with that dir; an
// older one, the candidate with its config (same_config()).
CurrentBest current_best(const BestConfig* best, std::span<const CandidateConfig> candidates);

struct KernelPerf {
    double milliseconds = 0;
};

Result<KernelPerf> parse_kernel_perf(std::string_view text);

} // namespace cachelens::cachedir
