#pragma once

// Runs launch plans on a CUDA GPU: the driver API is loaded at run time
// (dlopen("libcuda.so.1"), every entry point through cuGetProcAddress_v2;
// formats.md "Launching a cached cubin from C++"), so one binary runs with or
// without a GPU and says clearly when there is none.

#include <cachelens/bench/bench_result.h>
#include <cachelens/bench/launch_plan.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>

namespace cachelens::bench {

class GpuRunner {
public:
    // Loads the driver and opens `device`. Without libcuda, with no device, or
    // when the driver is too old: an error saying which.
    static Result<GpuRunner> open(int device = 0);
    GpuRunner(GpuRunner&&) noexcept;
    GpuRunner& operator=(GpuRunner&&) noexcept;
    ~GpuRunner();

    const DeviceFacts& device() const;

    // Loads the plan's cubin (from its Triton dir or its FX entry's bundle,
    // under `cache_dir`), makes its buffers, and times it with `protocol`. A
    // failure of the candidate (load, resources, launch) is a result with its
    // status and message, not an error; errors are for the device itself.
    // After a failure that ends the CUDA context (an illegal address), every
    // later call fails (Unsupported), naming that candidate: the driver
    // keeps such an error until the process ends.
    Result<CandidateResult> run(const std::filesystem::path& cache_dir, const LaunchPlan& plan,
                                const TimingProtocol& protocol);

    // Re-times `best` (A) and `challenger` (B) side by side, both loaded at
    // once (run_paired_protocol), and judges the rounds. A failure of either
    // candidate is its side's status; the verdict then has no rounds.
    Result<PairedResult> run_pair(const std::filesystem::path& cache_dir, const LaunchPlan& best,
                                  const LaunchPlan& challenger, const TimingProtocol& protocol,
                                  const PairedProtocol& paired = {});

private:
    struct Impl;
    explicit GpuRunner(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// A kernel whose fastest measured challenger beat its current best in a run:
// before it is called faster, the two are re-timed side by side (run_pair).
struct Challenge {
    const KernelCandidates* kernel = nullptr;
    const LaunchPlan* best = nullptr;
    const LaunchPlan* challenger = nullptr;
};

// From a run's results (one per plan of `kernels`, any order): per kernel, the
// current best and the fastest other candidate, when both ran and the other's
// median is below the best's.
std::vector<Challenge> find_challenges(const std::vector<KernelCandidates>& kernels,
                                       const std::vector<CandidateResult>& results);

// One candidate timed: GpuRunner::run with the cache dir and protocol bound.
using CandidateRunner = std::function<Result<CandidateResult>(const LaunchPlan& plan)>;

// Times every plan of `kernels` in order, each result to `on_result` as soon
// as it is measured (`bench --json-lines` streams them). `progress` hears the
// Benchmarking stage (candidates timed; the item is the kernel and its
// config); a stop, between candidates, is a Cancelled error. An error of the
// device ends the run with that error.
Result<void> run_candidates(const std::vector<KernelCandidates>& kernels,
                            const CandidateRunner& run,
                            const std::function<void(CandidateResult)>& on_result,
                            const ProgressFn& progress = {});

} // namespace cachelens::bench
