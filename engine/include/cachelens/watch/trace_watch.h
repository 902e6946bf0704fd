#pragma once

// Following TORCH_TRACE logs while PyTorch writes them (`watch --trace`,
// `report --follow`): every *.log of a dir, each read from where the last
// poll stopped (a process that starts later adds a log; a log cut shorter
// than what was read is read again from its start). A partial last line
// waits for its newline, and an event whose payload may still be coming
// waits for the next line or for the log to go quiet.

#include <cachelens/core/error.h>
#include <cachelens/trace/trace_log.h>
#include <cachelens/trace/warm_start.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::watch {

// One AOTAutograd or FX graph cache event that became whole in a log.
struct TraceWatchEvent {
    std::string log; // the log's file name
    trace::CacheEvent event;
    // "compile 1/0 (forward at model.py:12): FX graph cache miss f3gunfwvnc2b… (guard_miss)"
    std::string line;
};

class TraceWatch {
public:
    // `dir` must be a directory (it may hold no log yet). What its logs hold
    // now is read; `report_existing` says whether their events come out of
    // the first poll too (`report --follow` wants them; `watch` does not).
    static Result<TraceWatch> start(const std::filesystem::path& dir, bool report_existing);

    // Reads what was appended since the last poll. A log that grew by
    // nothing for `quiet` is taken as settled: its last event is whole.
    Result<std::vector<TraceWatchEvent>>
    poll(std::chrono::milliseconds quiet = std::chrono::milliseconds(500));

    // Every log as read so far (settled as of the last poll), by file name,
    // for a report over them; only logs with at least one trace event.
    std::vector<trace::TraceLog> logs() const;
    std::size_t log_count() const { return logs_.size(); }

private:
    struct Followed {
        trace::TraceLogFollower follower;
        std::uint64_t offset = 0;
        std::size_t reported = 0; // cache events given out
        std::chrono::steady_clock::time_point last_growth;
        bool settled = false;
    };
    explicit TraceWatch(std::filesystem::path dir)
        : dir_(std::move(dir)) {}
    Result<void> read_appended(const std::string& name, Followed& followed, bool& grew);

    std::filesystem::path dir_;
    std::map<std::string, Followed> logs_; // by file name
};

// The warm-start report of a trace dir as it grows, the one step of
// `report --follow` and the GUI's Follow: reads what was appended and, when
// a log grew (or `first`), the report of every log as read so far against
// `cache_dir` (none when empty); nullopt when nothing grew.
Result<std::optional<trace::WarmStartAnalysis>>
follow_warm_start(TraceWatch& watch, const std::filesystem::path& cache_dir, bool first);

} // namespace cachelens::watch
