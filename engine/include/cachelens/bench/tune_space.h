#pragma once

// Which configs `cachelens tune` may try for one kernel, by Inductor's own
// rules (torch/_inductor/runtime/coordinate_descent_tuner.py, read for each
// generation of PyTorch; docs/PERFORMANCE.md "The explorer"): the fields its
// coordinate descent tunes and in what order, the neighbours of a value (x2
// and /2, num_stages +-1), the largest block a size hint and TRITON_MAX_BLOCK
// allow, the warps a block may hold; and the search strategies over them. No
// GPU and no Python here: a strategy asks its caller for each config's time.

#include <cachelens/cachedir/kernel_config.h>
#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/core/error.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::bench::tune {

enum class Strategy : std::uint8_t { Coordesc, Grid, Random };

std::string_view to_string(Strategy strategy);
std::optional<Strategy> strategy_from(std::string_view name);

// One field Inductor's coordinate descent tunes.
struct Field {
    std::string name;      // "XBLOCK", "R0_BLOCK", "num_warps", "num_stages", "NUM_STAGES"
    bool is_kwarg = true;  // false: num_warps / num_stages, the Config's own attributes
    bool additive = false; // num_stages, NUM_STAGES: neighbours +-1, not x2 and /2
    std::int64_t min = 1;  // values below are too small
    std::optional<std::int64_t> max; // none: unbounded above (BLOCK_M, BLOCK_N, BLOCK_K)
    std::string max_why; // "size hint x=1024", "TRITON_MAX_BLOCK X=4096", "1024 threads per block"
};

// The rules for one kernel and the config a search starts from.
struct Rules {
    // In Inductor's order; only fields the starting config has (a persistent
    // reduction's config has no R0_BLOCK, so it is not tuned).
    std::vector<Field> fields;
    // What decided the fields and maxima, for --plan ("PyTorch 2.7 or later:
    // R0_/R1_ prefixes; TRITON_MAX_BLOCK X=4096, Y=1024, Z=1024, R0_=65536").
    std::string generation;
    // Fields Inductor's list has that this kernel's config lacks, and why.
    std::vector<std::string> notes;
    // A mix-order reduction: XBLOCK may not exceed this kwarg's value.
    std::optional<std::string> rsplit_kwarg;

    const Field* field(std::string_view name) const;
    // Why `config` breaks a rule ("XBLOCK=8192 is above 1024: size hint x=1024"),
    // or nullopt when Inductor could try it.
    std::optional<std::string> why_invalid(const cachedir::KernelConfig& config) const;
    // get_neighbour_values(): up to `radius` steps each way, stopping at the
    // first value out of range; the value itself last when asked.
    std::vector<std::int64_t> neighbours(const Field& field, std::int64_t value, int radius,
                                         bool include_self = false) const;
};

// The rules for `kernel` starting from `start` (its current best config).
// InvalidArgument when the config has none of the fields Inductor tunes.
Result<Rules> rules_for(const cachedir::KernelDefinition& kernel,
                        const cachedir::KernelConfig& start);

// A field's value in a config (num_warps/num_stages are attributes); nullopt
// when the config does not have it or it is not an int.
std::optional<std::int64_t> field_value(const cachedir::KernelConfig& config, const Field& field);
void set_field(cachedir::KernelConfig& config, const Field& field, std::int64_t value);

// Inductor's triton_config_to_hashable(): two configs are the same try when
// their kwargs (any order), warps and stages are.
std::string config_key(const cachedir::KernelConfig& config);

// `--space 'XBLOCK=256..4096,num_warps=2..16,R0_BLOCK=8|64'`: per field the
// values to try. `a..b` is every value from a to b the field steps through
// (powers of two for blocks and warps, every integer for stages); `a|b|c`
// lists them. Values a rule forbids are left out and said (`dropped`);
// a field the kernel does not tune, or a range with no valid value, is an
// InvalidArgument naming the fields it tunes.
struct Space {
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> values;
    std::vector<std::string> dropped; // "XBLOCK=2048, 4096: above 1024 (size hint x=1024)"
    std::string describe() const;     // "XBLOCK=256..1024, num_warps=2..16"
};
Result<Space> parse_space(std::string_view text, const Rules& rules);

// "XBLOCK (1..1024), num_warps (1..32)": the fields of `rules`, for errors and --plan.
std::string describe_fields(const Rules& rules);

// `--budget 90s | 5m | 40`: a wall-time limit, a number of configs, or both
// ("90s,40").
struct Budget {
    std::optional<std::chrono::seconds> time;
    std::optional<std::size_t> configs;
    std::string describe() const; // "90 s", "40 configs", "90 s or 40 configs"
};
Result<Budget> parse_budget(std::string_view text);

// The configs grid and random try, in order: the cartesian product of the
// space over `start` (fields the space does not name keep start's value),
// without start itself and without configs a rule forbids; random: `count`
// of them drawn without replacement from `seed`.
std::vector<cachedir::KernelConfig> grid_configs(const Rules& rules, const Space& space,
                                                 const cachedir::KernelConfig& start);
std::vector<cachedir::KernelConfig> random_configs(const Rules& rules, const Space& space,
                                                   const cachedir::KernelConfig& start,
                                                   std::size_t count, std::uint64_t seed);

// What coordinate descent tries first from `start`, before any time is known
// (for --plan): each field's radius-1 neighbours in Inductor's order, then
// the all-directions box at `radius`, without repeats.
struct PlannedTry {
    cachedir::KernelConfig config;
    std::string phase; // "step 1", "all directions (radius 2)"
};
std::vector<PlannedTry> coordesc_first_tries(const Rules& rules,
                                             const cachedir::KernelConfig& start, int radius = 2);

// A config's time in ms; nullopt when it failed (compile, resources,
// launch): never better, as Inductor counts an exception as inf.
using Measure = std::function<std::optional<double>(const cachedir::KernelConfig& config)>;
// Told which configs the search may ask for next, so that their compiles
// start before they are needed.
using Prefetch = std::function<void(const std::vector<cachedir::KernelConfig>& configs)>;
// Asked before each try: false ends the search (budget spent, user stop).
using KeepGoing = std::function<bool()>;

struct SearchOutcome {
    cachedir::KernelConfig best;
    double best_ms = 0;
    std::size_t tries = 0; // distinct configs measured, the start included
    bool stopped = false;  // KeepGoing said stop before the search ended
};

// Inductor's CoordescTuner.autotune(): greedy over the fields in order, a
// neighbour taken at once when it is more than 0.1% faster, sweeps repeated
// until none improves; then every direction at `all_directions_radius` (the
// product of each field's neighbours and itself: what Inductor does with
// coordinate_descent_check_all_directions), and round again when that found
// a better one. Each config is measured once.
SearchOutcome coordinate_descent(const Rules& rules, const cachedir::KernelConfig& start,
                                 double start_ms, const Measure& measure, const Prefetch& prefetch,
                                 const KeepGoing& keep_going, int all_directions_radius = 2);

// Measures `configs` in order (grid, random), the fastest kept; a later one
// must be more than 0.1% faster to replace it, as in coordinate descent.
SearchOutcome measure_each(const std::vector<cachedir::KernelConfig>& configs,
                           const cachedir::KernelConfig& start, double start_ms,
                           const Measure& measure, const Prefetch& prefetch,
                           const KeepGoing& keep_going, std::size_t lookahead);

// Inductor's has_improvement(): `candidate` below `baseline` by more than 0.1%.
bool has_improvement(double baseline_ms, std::optional<double> candidate_ms);

} // namespace cachelens::bench::tune
