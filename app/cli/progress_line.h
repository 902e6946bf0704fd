#pragma once

// A long command's progress on a terminal: one line on stderr, redrawn in
// place (\r, at most ten times a second) and cleared when the work is done,
//
//   indexing /cache: 12,345 / 60,000 entries (20%)  1.2 GiB/s  parsing fxgraph/…
//
// and Ctrl-C turned into the engine's stop (core/progress.h), so that a
// command interrupted mid-way leaves whole files and a consistent catalog
// and can say so. Nothing is drawn when stderr is not a terminal or the
// output is JSON; Ctrl-C stops cleanly there too. A second Ctrl-C kills.

#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <chrono>
#include <string>
#include <string_view>

namespace cachelens::cli {

// The exit status of a command stopped by Ctrl-C, as a shell reports SIGINT.
inline constexpr int kExitInterrupted = 130;

class ProgressLine {
public:
    // `label` starts the line ("indexing /cache"); `json`: the output is JSON, draw nothing.
    ProgressLine(std::string label, bool json);
    // Clears the line and gives Ctrl-C back its default.
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    // What the engine calls: draws `progress` when due; false once Ctrl-C was pressed.
    bool operator()(const Progress& progress);
    ProgressFn callback() {
        return [this](const Progress& progress) {
            return (*this)(progress);
        };
    }

    void set_label(std::string label);
    // Removes the line, so that what comes next starts on a clean one.
    void clear();
    // Ctrl-C was pressed since this line was made.
    bool interrupted() const;

private:
    std::string label_;
    bool enabled_ = false;
    bool drawn_ = false;
    ProgressThrottle throttle_;
    ProgressStage stage_ = ProgressStage::Scanning;
    ProgressUnit unit_ = ProgressUnit::Files;
    bool started_ = false;
    std::chrono::steady_clock::time_point stage_start_;
};

// Clears `line`, prints "cachelens: <message>" (what was stopped and what is
// left as it is) and returns kExitInterrupted.
int report_stopped(ProgressLine& line, std::string_view message);
// A long command's failure: report_stopped(line, stopped) when it was a stop
// asked for (Cancelled), else the error as report() prints it.
int report_failure(ProgressLine& line, const Error& error, std::string_view stopped);

} // namespace cachelens::cli
