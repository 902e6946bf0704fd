#pragma once

// The records `cachelens bench --json-lines`, `bench --plan --json-lines` and
// `bench accept --json` print, as types: the CLI writes them and the GUI (or
// any reader) parses them with this same code, so the two cannot drift apart.
//
// Every stream opens with a Header naming the format and its version, as a
// file format opens with its magic: a reader refuses a stream of another
// version, or one without a header (an older cachelens), and says which
// program wrote it, instead of guessing at fields. Failures carry an
// ErrorKind and, for an accept the user may overrule, an AcceptRefusal: a
// reader decides what to offer from those, never from the message's words.

#include <cachelens/bench/accept_config.h>
#include <cachelens/bench/bench_result.h>
#include <cachelens/bench/launch_plan.h>
#include <cachelens/core/error.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cachelens::bench::protocol {

inline constexpr std::string_view kFormat = "cachelens-bench";
// Raised whenever a record loses or changes a field; adding a field or an
// event a reader may ignore does not need it.
inline constexpr int kVersion = 1;

// The first record of every stream (and fields of every single document).
struct Header {
    std::string format{kFormat};
    int version = kVersion;
    std::string program; // "cachelens 0.9.0": who wrote it, for the reader's refusal
};

// A run is about to time `candidates` configs of `kernels` kernels.
struct Start {
    std::string cache_dir;
    DeviceFacts device;
    std::string timing; // TimingProtocol::describe(): "do_bench: warmup 25 ms, ..."
    std::size_t kernels = 0;
    std::size_t candidates = 0;
};

// A kernel, or one candidate of it, that has no launch plan.
struct Unplannable {
    std::string kernel;
    std::string module;
    std::string what; // "module", "current best", or a candidate's Triton hash
    std::string why;
};

// One candidate timed (or failed), the index-th (from 1) of `total`.
struct Result {
    std::size_t index = 0;
    std::size_t total = 0;
    CandidateResult result;
};

// A challenger re-timed side by side with its kernel's current best.
struct Verdict {
    std::string kernel;
    std::string module;
    std::string best_hash;
    std::string candidate_hash;
    std::string best_config_text;
    std::string candidate_config_text;
    std::string status; // "ok", or the failing side's step
    std::string message;
    int rounds = 0;
    PairedVerdict::Outcome outcome = PairedVerdict::Outcome::NoDifference;
    double difference_percent = 0;
    double agreement = 0;
    double p_value = 1;
    double best_median_ms = 0;
    double candidate_median_ms = 0;
    std::string text; // the verdict in words, or why the pair could not be timed

    bool candidate_faster() const { return outcome == PairedVerdict::Outcome::Faster; }
};

// The verdict of a paired re-timing, and its words.
Verdict verdict_of(const PairedResult& paired);

// The launch plan of one candidate (bench --plan).
struct Plan {
    std::string kernel;
    std::string module;
    std::string module_path; // relative to the cache dir
    std::string triton_hash;
    cachedir::KernelConfig config;
    bool is_current_best = false;
    std::string grid_type;
    std::array<std::uint32_t, 3> grid{1, 1, 1};
    std::uint32_t block_threads = 0;
    std::uint32_t shared_bytes = 0;
    std::string source; // the Triton dir (relative) or the FX entry carrying the cubin
    std::vector<LaunchArg> args;
};

// The plan record of `plan`, a candidate of `kernel` in `cache_dir`.
Plan plan_of(const KernelCandidates& kernel, const LaunchPlan& plan,
             const std::filesystem::path& cache_dir);

// A run ended and was recorded as catalog run `run_id`.
struct End {
    std::int64_t run_id = 0;
    std::size_t results = 0;
    std::size_t failed = 0;
    std::size_t verdicts = 0;
};

// The command failed: the stream's last record; the CLI exits with code 2.
struct Failure {
    ErrorKind kind = ErrorKind::InvalidArgument;
    std::string message; // Error::describe(): the words the CLI prints on stderr
    std::optional<AcceptRefusal> refusal;

    static Failure of(const Error& error, std::optional<AcceptRefusal> refusal = std::nullopt);
};

// `bench accept` made (or found) the candidate the best config.
struct Accepted {
    std::string target; // the cache dir written in
    std::string best_config;
    std::optional<std::string> backup; // none when nothing was written
    std::string old_config;
    std::string new_config;
    std::optional<Verdict> verdict; // none when not re-timed (--force, or already the best)
    std::optional<std::string> explored_policy; // a tune's config: what PyTorch will do with it
};

Accepted accepted_of(const AcceptReport& report);

// ---- cachelens tune (tune.h) ----------------------------------------------

// A tune is about to search: the kernel, how, within what, by which rules,
// and from which config. `device` and `timing` are empty for --plan.
struct TuneStart {
    std::string cache_dir;
    std::string kernel;
    std::string module;
    std::string strategy;                // coordesc, grid, random
    std::string space;                   // Space::describe(), empty for coordesc without --space
    std::string budget;                  // Budget::describe()
    std::string rules;                   // Rules::generation
    cachedir::KernelConfig start_config; // the current best (or fastest cached) config
    std::size_t planned = 0;             // candidates listed before any time is known
    DeviceFacts device;
    std::string timing;
};

// One config a tune lists: `tune --plan`, and each config before it is tried.
struct TuneCandidate {
    std::string kernel;
    std::string module;
    cachedir::KernelConfig config;
    std::string origin; // "cached": a cubin exists in the cache; "new": must be compiled
    bool is_current_best = false;
    std::string phase; // "cached", "step 1", "all directions (radius 2)", "grid", "random"
};

// A new config compiled by the compile server, or why not.
struct Compiled {
    std::string kernel;
    cachedir::KernelConfig config;
    // ok, or: compile (Triton refused it), resources (shared memory,
    // registers), timeout, crashed, invalid
    std::string status;
    std::string message;
    std::string triton_hash; // when ok
    double seconds = 0;
};

// The tune's answer, its last record (before none when it failed).
struct TuneEnd {
    std::int64_t run_id = 0;
    std::string answer; // the first line cachelens tune prints
    std::string kernel;
    std::string module;
    cachedir::KernelConfig best_config; // the start config when nothing beat it
    bool faster = false;                // the paired re-timing confirmed best_config faster
    double difference_percent = 0;
    std::size_t tried = 0; // configs timed or failed, cached ones included
    std::size_t compiled = 0;
    std::size_t compile_failed = 0;
    std::size_t failed = 0; // timed configs that failed to load or launch
    double seconds = 0;
    std::string ended; // "converged", "all tried", "budget", "stopped"
};

using Record = std::variant<Header, Start, Unplannable, Result, Verdict, Plan, End, Failure,
                            Accepted, TuneStart, TuneCandidate, Compiled, TuneEnd>;

// One line of a JSON Lines stream, without its newline. Text from a cache
// that is not valid UTF-8 is replaced (U+FFFD), never fatal.
std::string to_line(const Record& record);
// One JSON document (indented by 2) of a command that prints one (bench accept
// --json): the record with the Header's fields in it.
std::string to_document(const Record& record);

// A row of `bench history --json`.
struct HistoryRowView {
    std::int64_t run_id = 0;
    std::string started; // format_time of the run's start
    DeviceFacts device;
    std::string timing;
    const CandidateResult* result = nullptr;
    std::string kind; // "tune", or empty for a bench run
    std::string strategy;
};

// `bench history --json`: the rows as an array, each with a result's fields.
std::string history_json(const std::vector<HistoryRowView>& rows);

// A line that is not a record of this version: `line` shortened, `why` what is wrong.
struct BadLine {
    std::string line;
    std::string why;
};

// Parses one line (blank: nullopt). Every field a record needs is checked;
// an event this version does not know is a BadLine, never skipped in silence.
std::variant<std::monostate, Record, BadLine> parse_line(std::string_view line);

// The stream of another program or version: `why` names the writer and what
// this reader expects; nothing after it is read.
struct Incompatible {
    std::string why;
};

using StreamItem = std::variant<Record, BadLine, Incompatible>;

// Reads a stream fed in chunks that split lines anywhere: the first record
// must be a Header of this format and version, or the reader says so once
// and reads nothing more.
class StreamReader {
public:
    std::vector<StreamItem> feed(std::string_view bytes);
    // At the end of the output: the last line if it had no newline.
    std::vector<StreamItem> finish();
    void reset();
    bool incompatible() const { return state_ == State::Refused; }

private:
    enum class State { AwaitingHeader, Reading, Refused };
    void take(std::string_view line, std::vector<StreamItem>& items);

    std::string pending_;
    State state_ = State::AwaitingHeader;
};

// Parses a single document (bench accept --json): an Accepted or a Failure of
// this format and version; an Incompatible or a BadLine otherwise.
std::variant<Accepted, Failure, Incompatible, BadLine> parse_accept_document(std::string_view json);

// What a header of another version or format says, or nullopt when it is ours.
std::optional<std::string> why_incompatible(const Header& header);

} // namespace cachelens::bench::protocol
