#pragma once

// How far long work is, and the way to stop it: the one progress type that
// index, prune, import, export, remote pull and push, mirroring and bench
// report through. The CLI draws it as a line on a terminal, the GUI as a
// dialog's bar and status text; both stop the work by returning false.
//
// Each operation goes through stages; within a stage `done` only grows, and
// the stage's last report has done == total (a stage whose total is not known
// while it runs, such as walking a dir, reports total 0 until its last
// report). Reports come on a thread doing the work (one of them, one report
// at a time, where the work is shared: the scan's walk), as often as an item
// is done: a front end throttles what it shows (ProgressThrottle).

#include <cachelens/core/error.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>

namespace cachelens {

enum class ProgressStage {
    Scanning,     // walking a cache dir or a server's keys: what was found so far
    Parsing,      // index: entries read into the catalog
    Checking,     // import: artifacts checked against the rules and the disk
    Reading,      // export: files read; pull: values read; push: values read to compare
    Writing,      // import, pull: files written; push: values stored on the server
    Deleting,     // prune: entries deleted
    Benchmarking, // bench: candidates timed on the GPU
};
// "scanning", "parsing", "checking", "reading", "writing", "deleting", "benchmarking"
std::string_view to_string(ProgressStage stage);

// What `done` and `total` count.
enum class ProgressUnit { Entries, Files, Keys, Values, Candidates };
// "entry"/"entries", "file"/"files", ...: the word for `count` of them.
std::string_view unit_name(ProgressUnit unit, std::uint64_t count);

struct Progress {
    ProgressStage stage = ProgressStage::Scanning;
    ProgressUnit unit = ProgressUnit::Files;
    std::uint64_t done = 0;
    std::uint64_t total = 0; // 0: not known yet
    std::uint64_t bytes = 0; // bytes behind `done`, where the stage moves bytes; else 0
    std::string_view item;   // the thing being worked on (a path, a key); valid during the call
};

// Called as long work goes on, on a thread doing it. Returning false asks
// the work to stop at its next safe point: whatever it wrote is whole and any
// catalog consistent; the call then returns an ErrorKind::Cancelled error (or,
// where it has a report to give, a report saying it was cancelled).
using ProgressFn = std::function<bool(const Progress&)>;

// Reports to `progress` when there is one; whether to go on.
inline bool report_progress(const ProgressFn& progress, const Progress& report) {
    return !progress || progress(report);
}

// The error work returns when its ProgressFn asked it to stop.
inline std::unexpected<Error> cancelled() {
    return fail(ErrorKind::Cancelled, "cancelled");
}

// Which reports are worth showing: the first and the last of each stage
// always, the rest at most once per `interval`. The CLI's line and the GUI's
// jobs both throttle with it.
class ProgressThrottle {
public:
    using Clock = std::chrono::steady_clock;
    explicit ProgressThrottle(Clock::duration interval)
        : interval_(interval) {}
    bool due(const Progress& report, Clock::time_point now = Clock::now());

private:
    Clock::duration interval_;
    Clock::time_point last_{};
    bool any_ = false;
    ProgressStage stage_ = ProgressStage::Scanning;
};

} // namespace cachelens
