#pragma once

// PyTorch's structured trace logs (TORCH_TRACE=dir, formats.md §8): which
// compiles ran, and every FX graph and AOTAutograd cache hit, miss and bypass
// with its key and the debug lines the key was hashed from.
//
// A log is glog-style text, one event a line:
//   V1122 10:47:51.509000 444 torch/_inductor/compile_fx.py:1120] {json}
// optionally followed by its payload, one tab-indented line per payload line.
// Chromium events repeat every cache event; of them only the dynamo_timed
// phases (begin/end pairs) are kept, for the time each phase took.

#include <cachelens/core/error.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::trace {

enum class CacheKind { FxGraph, AotAutograd };

std::string_view to_string(CacheKind kind); // "fxgraph" | "aotautograd"

// One `fx_graph_cache_*` / `aotautograd_cache_*` artifact. An event whose
// payload is missing or unreadable is kept with what its header says (cache,
// status, compile id, line) and a warning in TraceLog::warnings.
inline constexpr std::string_view kStatusNotLogged = "not_logged";

struct CacheEvent {
    CacheKind cache = CacheKind::FxGraph;
    // "hit" | "miss" | "bypass", from the artifact's name (2.6 on) or its
    // payload's cache_state (the `_hash` artifact of 2.5); kStatusNotLogged
    // where neither says (2.4's `_hash` artifact logs the key only).
    std::string status;
    std::string detailed_status; // cache_status_detailed: "full_miss", "guard_miss", "hit", ...
    std::string key;             // "f..." / "a..."; empty for a bypass
    std::string reason;          // cache_bypass_reason; empty otherwise
    std::vector<std::string> components; // the key's debug lines, exactly as logged
    // On a miss the compile time PyTorch measured; on an FX hit the compile
    // time the entry recorded (time_saved_ns). Absent where not logged.
    std::optional<std::int64_t> time_taken_ns;
    std::string compile_id; // "0/0", "1/0_1", "!0/2/0", ...; empty if the log has none
    std::size_t line = 0;   // 1-based line of the event header in the log
    // cache_status_guard_expr: the guards of the last entry tried (a guard_miss,
    // or a hit on an entry with guards); empty otherwise.
    std::string guard_expr;
    // An FX event's triton_bundler_meta: the Triton kernels bundled with the
    // entry (its cached_kernel_names, each once). On a hit they were loaded from
    // the bundle; on a miss they were saved into it. Empty where not logged.
    std::vector<std::string> bundled_kernels;
};

// One dynamo_timed phase: a chromium "B" event and the "E" that ends it
// (`dynamo_timed` in torch/_dynamo/utils.py logs both).
struct TimedPhase {
    std::string name;          // "inductor_compile", "CachingAutotuner.benchmark_all_configs", ...
    std::string compile_id;    // from the header, else the event's args.compile_id
    std::string kernel_name;   // args.kernel_name (autotune benchmarks); empty otherwise
    std::int64_t start_ns = 0; // chromium ts (microseconds since the epoch), in ns
    std::int64_t duration_ns = 0; // end minus begin
    std::size_t line = 0;         // 1-based line of the begin event
};

// One kernel of a `triton_kernel_info` artifact, which async_compile logs for
// each Triton kernel compiled in the process (AsyncCompile.triton): its
// autotune_cache_info and the compile time.
struct TritonKernelInfo {
    std::string compile_id;
    std::string kernel; // "triton_per_fused_gelu_native_layer_norm_0"
    // "hit" (a saved best config), "miss" (every config benchmarked),
    // "only 1 config", "force_disabled"; empty where the kernel has none.
    std::string autotune_cache_state;
    std::optional<std::int64_t> num_configs;     // on a miss: how many were benchmarked
    std::optional<std::int64_t> compile_time_us; // the Triton compile, as measured by Inductor
    std::size_t line = 0;
};

// A Dynamo PGO (automatic-dynamic profile) artifact, torch/_dynamo/pgo.py:
// get_local_code_state / get_remote_code_state / get_extra_remote_code_state
// (a profile was found and loaded), put_local_code_state /
// put_remote_code_state (one was written).
struct ProfileEvent {
    std::string compile_id;
    std::string name;
    std::size_t line = 0;
};

// What vLLM logs of its own compile (vllm/compilation/backends.py and
// piecewise_backend.py, through trace_structured): the compilation config of
// each backend (an artifact "vllm_compilation_config"), the graph it split
// into piecewise submodules (a graph_dump "vllm_piecewise_split_graph"), and
// each piecewise compile as it starts ("vllm_piecewise_compile_start").
struct VllmEvent {
    enum class Kind { Config, SplitGraph, PiecewiseCompile };
    Kind kind = Kind::Config;
    std::string compile_id;
    std::size_t line = 0;
    // Config: each field as logged (strings without their quotes), in order.
    std::vector<std::pair<std::string, std::string>> fields;
    // SplitGraph: the submodules it defines (its "class submod_N" lines).
    std::size_t submodules = 0;
    // PiecewiseCompile: which submodule, for which range of batch sizes.
    std::string submodule;
    std::optional<std::int64_t> index;
    std::optional<std::int64_t> total;
    std::optional<std::int64_t> range_start;
    std::optional<std::int64_t> range_end;
    bool single_size = false;
};

// One compile (a frame's compile attempt, or a compiled-autograd graph).
struct CompileRecord {
    std::string compile_id;
    std::string function; // the user's frame from dynamo_start (else compilation_metrics' co_name)
    std::string filename; // its file, resolved through the interned strings
    std::optional<std::int64_t> line;
    std::vector<std::size_t> events; // indices into TraceLog::events
    // From the compilation_metrics records of this compile (forward, backward,
    // runtime): why it failed, empty if it did not...
    std::string fail_type;
    std::string fail_reason;
    // ...and the cache counters (`*_cache_hit_count`, `*_cache_miss_count`,
    // e.g. "inductor_fx_local_cache_miss_count"), summed over those records,
    // sorted by name.
    std::vector<std::pair<std::string, std::int64_t>> cache_counts;
    // Indices into TraceLog::phases, ::kernels and ::profiles of what was
    // logged for this compile (by the same compile id, attempt included).
    std::vector<std::size_t> phases;
    std::vector<std::size_t> kernels;
    std::vector<std::size_t> profiles;
};

struct TraceLog {
    std::string path;
    std::vector<CacheEvent> events;      // in log order
    std::vector<CompileRecord> compiles; // in first-seen order
    std::vector<TimedPhase> phases;      // in the order they ended
    std::vector<TritonKernelInfo> kernels;
    std::vector<ProfileEvent> profiles;
    std::vector<VllmEvent> vllm; // in log order; empty for a log vLLM did not write
    // What was skipped or doubtful, each naming its line ("line 812: payload is
    // not JSON"). At most kMaxWarnings, then one line counting the rest.
    std::vector<std::string> warnings;

    static constexpr std::size_t kMaxWarnings = 1000;
};

// Maps and reads one log; errors name the file. A file in which no line looks
// like a trace event (empty, or some other text) is an error; anything else
// unreadable inside a trace is skipped with a warning.
Result<TraceLog> read_trace_log(const std::filesystem::path& file);
Result<TraceLog> parse_trace_log(std::string_view text, std::string path_label = {});

// A log read while PyTorch writes it (`watch --trace`, `report --follow`):
// feed() takes the bytes appended since the last call, reads every complete
// line and keeps a partial last line for the next call, so the log is read
// once however often it is looked at. snapshot() is the log as read so far;
// unless `settled` (the writer has gone quiet, or stopped), the event whose
// payload lines may still be coming, and a partial last line, are left out
// (they show in a later snapshot, whole). Errors as parse_trace_log's.
class TraceLogFollower {
public:
    explicit TraceLogFollower(std::string path_label);
    ~TraceLogFollower();
    TraceLogFollower(TraceLogFollower&&) noexcept;
    TraceLogFollower& operator=(TraceLogFollower&&) noexcept;

    void feed(std::string_view appended);
    std::uint64_t bytes_read() const;
    Result<TraceLog> snapshot(bool settled) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// Every *.log file in a dir (TORCH_TRACE=dir writes one per process), sorted by
// name; a file that cannot be read, or a dir without logs, is an error.
Result<std::vector<TraceLog>> read_trace_dir(const std::filesystem::path& dir);

} // namespace cachelens::trace
