#pragma once

// The compile server `cachelens tune` runs with the user's Python
// (engine/src/bench/tune_compile.py, shipped inside cachelens and printed by
// `cachelens tune --print-script`): it imports torch, Triton and the kernel
// module once, then compiles each config it is sent with Inductor's own
// machinery (the kernel's CachingAutotuner._precompile_config) in forked
// workers, into a scratch TRITON_CACHE_DIR, and answers one line per config.
// This side writes the requests and reads the answers; the answers are
// parsed as untrusted input (fuzz_compile_server).

#include <cachelens/cachedir/kernel_config.h>
#include <cachelens/core/child_process.h>
#include <cachelens/core/error.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace cachelens::bench {

// The script's text, as shipped.
std::string_view compile_server_script();

// One answer of the server (a stdout line "cachelens-tune: {json}").
struct CompileReply {
    enum class Kind : std::uint8_t { Ready, Compiled, Failed, Fatal };
    Kind kind = Kind::Fatal;
    std::size_t id = 0;      // Compiled, Failed: the request's id
    std::string triton_dir;  // Compiled: absolute, under the scratch TRITON_CACHE_DIR
    std::string triton_hash; // Compiled: the metadata's hash (hex)
    std::string reason;      // Failed: compile, resources, timeout, crashed, invalid; Fatal:
                             // no-torch, no-triton, module, kernel
    std::string message;     // Failed, Fatal
    double seconds = 0;      // Compiled, Failed
    std::string torch;       // Ready: versions
    std::string triton;
    unsigned workers = 0;
};

// A line of the server's stdout: nullopt for a line that is not an answer
// (torch may print its own), the answer, or why a marked line is not one.
std::variant<std::monostate, CompileReply, std::string> parse_compile_reply(std::string_view line);

// The request line for config `id` (kwargs, num_warps, num_stages).
std::string compile_request(std::size_t id, const cachedir::KernelConfig& config);

struct CompileServerOptions {
    std::string python = "python3";
    std::filesystem::path module;  // the kernel module (audited before this is called)
    std::string kernel;            // its kernel's name
    std::filesystem::path scratch; // TRITON_CACHE_DIR and TORCHINDUCTOR_CACHE_DIR go under it
    unsigned workers = 0;          // 0: the cores this machine has
    std::chrono::seconds per_config_timeout{180};
    std::chrono::seconds start_timeout{300}; // importing torch can take a while
    std::function<bool()> keep_going;        // asked while waiting; false: Cancelled
};

class CompileServer {
public:
    // Starts the server and waits for it to be ready. Errors name what is
    // missing: NotFound when the Python cannot be run; Unsupported when it
    // has no torch or no Triton, or the module has no such Inductor kernel
    // (the server's words); LimitExceeded when it never got ready.
    static Result<CompileServer> start(const CompileServerOptions& options);

    const CompileReply& ready() const { return ready_; }
    // Sends config `id`; its answer comes from next().
    Result<void> submit(std::size_t id, const cachedir::KernelConfig& config);
    // The next Compiled or Failed answer, waiting at most `wait`; nullopt when
    // none came in time. An Io error when the server died, with its stderr.
    Result<std::optional<CompileReply>> next(std::chrono::milliseconds wait);
    // No more requests; the server ends once it has answered them.
    void finish();
    void stop();

private:
    CompileServer(ChildSession session, std::string python)
        : session_(std::move(session))
        , python_(std::move(python)) {}
    Error died(std::string_view what) const;

    ChildSession session_;
    std::string python_;
    CompileReply ready_;
};

} // namespace cachelens::bench
