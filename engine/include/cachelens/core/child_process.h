#pragma once

// Runs another program and collects what it prints, with a deadline and a
// way to stop it: `cachelens env` asks the user's Python for what only
// PyTorch can compute. No shell is involved: argv is passed as given.

#include <cachelens/core/error.h>

#include <chrono>
#include <functional>
#include <span>
#include <string>

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
