#pragma once

// `cachelens tune DIR KERNEL`: the explorer. Beyond the configs Inductor
// compiled into the cache, it tries new ones (tune_space.h: Inductor's
// coordinate descent from the current best, or a grid or random sample of a
// space), compiles them with the user's Triton (compile_server.h) in a
// scratch dir, never the user's cache, times them as `bench` does on the
// GPU while later ones compile, re-times the fastest side by side with the
// current best, and records every try in the catalog as a tune run. The CLI
// and the GUI (which runs the CLI) both come here.

#include <cachelens/bench/bench_protocol.h>
#include <cachelens/bench/bench_result.h>
#include <cachelens/bench/compile_server.h>
#include <cachelens/bench/launch_plan.h>
#include <cachelens/bench/tune_space.h>
#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::bench::tune {

struct TuneRequest {
    std::filesystem::path cache_dir;
    std::string kernel; // a kernel name, a module key (c<hash>), or a unique prefix of either
    Strategy strategy = Strategy::Coordesc;
    std::string space;      // --space; required for grid and random
    std::string budget;     // --budget; empty: the default (kDefaultBudget)
    std::uint64_t seed = 0; // random
    int all_directions_radius = 2;
};

inline constexpr std::string_view kDefaultBudget = "10m,200";

// What a tune will do, known without a GPU or Python: `tune --plan`.
struct TunePlan {
    std::filesystem::path cache_dir;
    Strategy strategy = Strategy::Coordesc;
    std::uint64_t seed = 0;
    int all_directions_radius = 2;
    KernelCandidates kernel;               // its cached candidates, planned as bench plans them
    cachedir::KernelDefinition definition; // its def in the module
    Rules rules;
    std::optional<Space> space;
    Budget budget;
    cachedir::KernelConfig start; // the current best, else the first cached config
    bool start_is_current_best = false;
    // Every config the strategy lists before any time is known: the cached
    // ones (timed first, as Inductor's autotuner does), then coordesc's first
    // tries or the grid or random sample.
    std::vector<protocol::TuneCandidate> candidates;
    std::vector<std::string> notes; // rules' notes, configs the space left out
};

// Finds the kernel and lists what would be tried. Errors: no such kernel (or
// an ambiguous prefix, with the candidates), a kernel with no cached config
// to start from, a bad --space or --budget.
Result<TunePlan> plan_tune(const TuneRequest& request);

// The kernel module passes the code audit, or the error naming the finding:
// nothing cachelens hands to Python may fail it.
Result<void> check_module_for_python(const TunePlan& plan);

// How a run reaches the GPU and the compiler: GpuRunner and CompileServer in
// the CLI; fakes in tests.
struct TuneBackend {
    DeviceFacts device;
    TimingProtocol timing;
    std::function<Result<CandidateResult>(const LaunchPlan&)> time;
    std::function<Result<PairedResult>(const LaunchPlan& best, const LaunchPlan& challenger)> pair;
    // Sends a config to compile (an id of the caller's); its answer comes from `next_compiled`.
    std::function<Result<void>(std::size_t id, const cachedir::KernelConfig&)> compile;
    // The next answer, waiting at most the duration; nullopt when none came.
    std::function<Result<std::optional<CompileReply>>(std::chrono::milliseconds)> next_compiled;
    unsigned compile_workers = 1; // how many compiles to keep in flight
};

struct TuneRunOptions {
    // Re-timed side by side with the start config: the fastest this many
    // configs that beat it.
    std::size_t confirm = 3;
    PairedProtocol paired;
    std::function<void(const protocol::Record&)> on_record; // as they happen
    ProgressFn progress;                 // Benchmarking: configs tried of planned
    std::function<bool()> keep_going;    // false: stop, keep what was measured
    catalog::Catalog* catalog = nullptr; // where the run is recorded
};

// Runs the plan. Device or compile-server errors end it with that error
// (nothing recorded); a config that fails to compile or launch is a result.
// The TuneEnd's answer is the line the CLI prints first.
Result<protocol::TuneEnd> run_tune(const TunePlan& plan, const TuneBackend& backend,
                                   const TuneRunOptions& options);

// The config planned to launch from the Triton dir the compile server made
// for it (compile_server.h): the same checks as a cached candidate's.
Result<LaunchPlan> plan_compiled(const TunePlan& plan, const cachedir::KernelConfig& config,
                                 const std::filesystem::path& triton_dir);

// Where tune keeps compiled configs of a module: <data dir>/tune/<module key>,
// beside the catalog; a second tune of it finds them in Triton's cache there.
// `tune` itself is made private (core/user_dirs.h ensure_private_dir): what is
// in it goes to the user's Python, so one another user made or owns is
// refused. The module's own dir is not made here.
Result<std::filesystem::path> scratch_dir_for(const std::filesystem::path& catalog_path,
                                              const std::string& module_key);

} // namespace cachelens::bench::tune
