#pragma once

// Runs another program and collects what it prints, with a deadline and a
// way to stop it: `cachelens env` asks the user's Python for what only
// PyTorch can compute. No shell is involved: argv is passed as given.

#include <cachelens/core/error.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens {

struct ChildOutput {
    int exit_code = -1; // when it exited; -1 when a signal ended it
    int signal = 0;     // the signal that ended it, else 0
    std::string out;    // stdout, at most `max_output` bytes
    std::string err;    // stderr, the same
};

struct ChildLimits {
    std::chrono::milliseconds timeout{std::chrono::minutes(3)};
    std::size_t max_output = std::size_t{1} << 20; // per stream; the rest is read and dropped
    std::string working_dir = "/"; // so that nothing in the caller's cwd is imported
    // Asked about every tenth of a second; false kills the child (a Cancelled error).
    std::function<bool()> keep_going;
};

// NotFound when argv[0] cannot be started; LimitExceeded when it outlives
// the timeout (it is killed); Cancelled when keep_going said stop.
Result<ChildOutput> run_child(std::span<const std::string> argv, const ChildLimits& limits = {});

} // namespace cachelens

namespace cachelens {

// A program that stays running while the caller talks to it line by line
// (`cachelens tune`'s compile server): requests go to its stdin, its stdout
// is read as it comes. stderr is kept (its last `max_stderr` bytes) for the
// error that names why it ended. Killed, if still running, when destroyed.
class ChildSession {
public:
    struct Options {
        std::vector<std::pair<std::string, std::string>> environment; // added to ours
        std::string working_dir = "/";
        std::size_t max_stderr = std::size_t{64} << 10;
    };

    // NotFound when argv[0] cannot be started.
    static Result<ChildSession> start(std::span<const std::string> argv, const Options& options);
    ChildSession(ChildSession&&) noexcept;
    ChildSession& operator=(ChildSession&&) noexcept;
    ~ChildSession();

    // Writes all of `bytes` to its stdin; an Io error when it has closed it.
    Result<void> write(std::string_view bytes);
    // No more requests: closes its stdin.
    void close_input();
    // The next whole line of its stdout (without the newline), waiting at
    // most `wait`; nullopt when none came in time; an Io error "ended" once
    // its stdout is closed and every line has been read.
    Result<std::optional<std::string>> read_line(std::chrono::milliseconds wait);
    // Kills it (SIGKILL) and reaps it.
    void kill();
    // Waits for it to end (after close_input); its exit code, or -signal.
    int wait();
    const std::string& stderr_text() const;

private:
    struct Impl;
    explicit ChildSession(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace cachelens
