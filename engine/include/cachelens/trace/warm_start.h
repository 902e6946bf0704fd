#pragma once

// The warm-start report: for each compile of a TORCH_TRACE log, what every
// caching layer did and how long each took, as far as the log says, and for
// each miss the one-line cause the why engine finds against a cache dir.
// `cachelens report` and the GUI's Warm start page show this.
//
// Layers, and the evidence read for each (nothing else is inferred):
//   Dynamo (PGO)   get_{local,remote,extra_remote}_code_state artifacts (a
//                  profile loaded); pgo.get_*_code_state phases without one
//                  (looked up, none loaded)
//   AOTAutograd    aotautograd_cache_{hit,miss,bypass} artifacts
//   FX graph       fx_graph_cache_{hit,miss,bypass} artifacts
//   Autotune       triton_kernel_info's autotune_cache_state per kernel;
//                  CachingAutotuner.benchmark_all_configs phases
//   Triton         triton_kernel_info's compile_time_us (compiled in this
//                  process); an FX hit's triton_bundler_meta (loaded from the
//                  entry's bundle)
// A layer with none of its evidence in the log is NotLogged.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/error.h>
#include <cachelens/explain/nearest_keys.h>
#include <cachelens/trace/trace_log.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::trace {

enum class Layer { Dynamo, AotAutograd, FxGraph, Autotune, Triton };
inline constexpr std::array<Layer, 5> kLayers{Layer::Dynamo, Layer::AotAutograd, Layer::FxGraph,
                                              Layer::Autotune, Layer::Triton};

std::string_view to_string(Layer layer); // "dynamo", "aotautograd", "fxgraph", "autotune", "triton"
std::string_view layer_title(Layer layer); // "Dynamo (PGO)", "AOTAutograd cache", ...

// The dynamo_timed phases whose own time (less the phases nested in them) a
// layer is given. A phase named by no layer (a pass, codegen) counts for the
// layer of the phase it runs in.
std::span<const std::string_view> layer_phases(Layer layer);

enum class Outcome {
    Hit,       // everything this layer looked up was found
    Miss,      // something was not found and was computed again
    Bypass,    // the cache was not used (uncacheable, or disabled)
    NotNeeded, // nothing to look up (a kernel with one config has nothing to tune)
    NotLogged, // the log holds no evidence either way
};

std::string_view to_string(Outcome outcome); // "hit", "miss", "bypass", "not_needed", "not_logged"

// The outcome in the layer's own words, for people: "hit", "miss", "bypass",
// "profile hit", "best_config", "benchmarked", "from bundle", "compiled",
// "not needed", "not logged".
std::string_view outcome_label(Layer layer, Outcome outcome);

struct LayerReport {
    Layer layer = Layer::Dynamo;
    Outcome outcome = Outcome::NotLogged;
    std::string detail; // one line: "2 graphs missed (full_miss)", "not logged"
    // Own time of the layer's phases; none when none of them was logged.
    std::optional<std::int64_t> time_ns;
};

// Why a compile missed, in one line.
struct MissCause {
    // A CauseCategory's name ("dynamic", "config", ...), or "first compile",
    // "bypass", "no --cache" (nothing to compare against), "not compared"
    // (a miss without the debug lines to compare).
    std::string category;
    std::string text;                     // the why engine's verdict, or what the log says
    std::string key;                      // the key that missed
    std::string nearest_key;              // the entry it was compared with; empty if none
    CacheKind cache = CacheKind::FxGraph; // the layer `key` is of
};

struct CompileWarmStart {
    std::string compile_id;
    std::string function;
    std::string filename;
    std::optional<std::int64_t> line;
    std::array<LayerReport, kLayers.size()> layers;
    // The wall time its phases cover (their union); none without phases.
    std::optional<std::int64_t> total_ns;
    std::vector<std::size_t> events; // its cache events: indices into TraceLog::events
    bool missed = false;             // an AOTAutograd or FX graph event missed or bypassed
    std::optional<MissCause> cause;  // for a missed compile
    std::string fail_reason;         // "fail_type: fail_reason" when the compile failed

    const LayerReport& layer(Layer which) const { return layers[static_cast<std::size_t>(which)]; }
    // Whether any AOTAutograd or FX graph event was logged (a hit or a miss).
    bool has_cache_events() const { return !events.empty(); }
};

struct WarmStartSummary {
    std::size_t compiles = 0;
    std::size_t hits = 0;                                    // every logged cache event hit
    std::size_t misses = 0;                                  // missed
    std::size_t unlogged = 0;                                // no cache event at all
    std::vector<std::pair<std::string, std::size_t>> causes; // category -> misses, most first
    std::int64_t total_ns = 0;                               // compile time, all compiles
    std::int64_t miss_ns = 0;                                // of it, in missed compiles

    // "3 compiles: 0 hits, 3 misses (3 first compile); 10.3 s of 10.3 s compile
    // time was spent in misses": the answer, in one line.
    std::string line() const;
};

struct WarmStartReport {
    std::string path;                       // the log
    std::vector<CompileWarmStart> compiles; // in the log's order
    std::vector<std::string> warnings;      // the log's
    // What vLLM logged of its own compile (describe_vllm), when it wrote the log.
    std::vector<std::string> vllm;
};

// vLLM's events of a log in words, one line each: each backend's
// compilation config ("vLLM compilation config (prefix backbone): mode
// VLLM_COMPILE, backend inductor, compile_sizes [1, 2, 4], ..."), the split
// ("vLLM split the graph into 24 piecewise submodules (compile 0/0)") and
// the piecewise compiles ("vLLM compiled 48 piecewise graphs: 24 for the range
// (1, 8192), 24 for single sizes 1, 2"). Empty when there are none.
std::vector<std::string> describe_vllm(const TraceLog& log);

// The report of one log. `candidates` are the FX graph entries of the cache
// dir to find each miss's cause against (explain::fx_graph_candidates);
// `compared` says whether a cache dir was given at all (an empty one still
// makes every miss a first compile).
WarmStartReport warm_start_report(const TraceLog& log,
                                  std::span<const explain::KeyCandidate> candidates, bool compared);

// Over every compile of every report.
WarmStartSummary summarize(std::span<const WarmStartReport> reports);

// The warm-start report use case, as `cachelens report` and the Warm start
// page run it: the logs of a TORCH_TRACE dir (or one log), each compile's
// layers, and each miss's cause against `cache_dir`'s FX entries.
struct WarmStartAnalysis {
    std::vector<TraceLog> logs;
    std::vector<WarmStartReport> reports; // one per log, in order
    WarmStartSummary summary;
    // Entries of the cache dir that could not be read: left out of the
    // comparison, and said so.
    std::vector<Error> skipped;
    // Per compile of every report, in order: the entry of the FX key that
    // missed, when the cache dir holds it (its key's first entry).
    std::vector<std::optional<cachedir::Entry>> missed_entries;
};

// `cache_dir` empty: none given (misses are not compared).
Result<WarmStartAnalysis> analyze_warm_start(const std::filesystem::path& log_or_dir,
                                             const std::filesystem::path& cache_dir);
// The same over logs already read (`report --follow`: as read so far).
Result<WarmStartAnalysis> analyze_warm_start(std::vector<TraceLog> logs,
                                             const std::filesystem::path& cache_dir);

} // namespace cachelens::trace
