#pragma once

// The "make this candidate the best config" use case, as `cachelens bench
// accept` and the Benchmarks page run it: find the candidate by a prefix of
// its Triton hash, obey the root's policy, refuse what PyTorch would not
// launch as written, confirm on the GPU that it beats the current best side
// by side, then rewrite the .best_config (accept.h). A refusal the user may
// overrule (--force) says so in its type, not only in its words.

#include <cachelens/bench/bench_result.h>
#include <cachelens/core/error.h>

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::catalog {
class Catalog;
}

namespace cachelens::bench {

// Why an accept wrote nothing although the candidate exists: each is a
// judgement the user may overrule with --force.
enum class AcceptRefusal {
    NotLaunchedAsWritten, // PyTorch would start a search from it, not launch it
    NoBestToCompare,      // the current best has no cubin to time it against
    CannotConfirm,        // no GPU to time the pair on
    NotFaster,            // timed side by side: not faster beyond the noise
};

std::string_view to_string(AcceptRefusal refusal);

struct AcceptRequest {
    std::string kernel; // a kernel name or module key
    std::string config; // at least 6 characters of the candidate's Triton hash
    // The cache dir to write in, as the kernel resolves it; none: the one
    // indexed dir of `catalog` holding the kernel, written in only with `yes`.
    std::optional<std::filesystem::path> dir;
    std::filesystem::path catalog;
    bool yes = false;
    bool force = false; // write without the launch check and the side-by-side timing
    int rounds = 30;    // paired rounds of the confirmation
    int device = 0;     // the CUDA device that times the pair
};

struct AcceptReport {
    std::filesystem::path target; // the cache dir
    std::filesystem::path best_config;
    std::optional<std::filesystem::path> backup; // none: nothing written (already the best)
    std::string old_config;
    std::string new_config;
    std::optional<PairedResult> verdict; // none: not re-timed (--force, already the best)
    // A config cachelens tune compiled: what PyTorch will do with it, in words
    // ("PyTorch 2.11 with coordinate_descent_tuning starts its search here ...").
    std::optional<std::string> explored_policy;

    bool already_best() const { return !backup; }
};

struct AcceptFailure {
    Error error;
    std::optional<AcceptRefusal> refusal; // set: --force would write it
};

std::expected<AcceptReport, AcceptFailure> accept_config(const AcceptRequest& request);

// The one indexed cache dir holding `kernel`, for an accept without a dir;
// an error listing them when several do, or saying none does.
Result<std::filesystem::path> kernel_dir(catalog::Catalog& catalog, const std::string& kernel);

} // namespace cachelens::bench
