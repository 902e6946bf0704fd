#include <cachelens/core/child_process.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

extern char** environ;

namespace cachelens {

namespace {

// A file descriptor closed when it goes out of scope.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd)
        : fd_(fd) {}
    Fd(Fd&& other) noexcept
        : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    ~Fd() { reset(); }
    int get() const { return fd_; }
    void reset() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = -1;
    }

private:
    int fd_ = -1;
};

struct Pipe {
    Fd read, write;
};

Result<Pipe> make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return fail(ErrorKind::Io, std::string("cannot make a pipe: ") + std::strerror(errno));
    }
    Pipe pipe;
    pipe.read = Fd(fds[0]);
    pipe.write = Fd(fds[1]);
    return pipe;
}

// Reads what is there; false at end of file.
bool drain(int fd, std::string& into, std::size_t max_output) {
    char buffer[65536];
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got <= 0) {
        return got < 0 && (errno == EINTR || errno == EAGAIN);
    }
    const std::size_t room = max_output - std::min(max_output, into.size());
    into.append(buffer, std::min<std::size_t>(room, static_cast<std::size_t>(got)));
    return true;
}

} // namespace

Result<ChildOutput> run_child(std::span<const std::string> argv, const ChildLimits& limits) {
    if (argv.empty()) {
        return fail(ErrorKind::InvalidArgument, "no program to run");
    }
    auto out = make_pipe();
    auto err = out ? make_pipe() : std::unexpected(out.error());
    if (!err) {
        return std::unexpected(err.error());
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out->write.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err->write.get(), STDERR_FILENO);
    if (!limits.working_dir.empty()) {
        posix_spawn_file_actions_addchdir_np(&actions, limits.working_dir.c_str());
    }
    std::vector<char*> args;
    for (const auto& arg : argv) {
        args.push_back(const_cast<char*>(arg.c_str()));
    }
    args.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        return fail(spawned == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot run it: " + std::string(std::strerror(spawned)), argv[0]);
    }
    out->write.reset();
    err->write.reset();

    ChildOutput result;
    const auto deadline = std::chrono::steady_clock::now() + limits.timeout;
    bool out_open = true;
    bool err_open = true;
    std::optional<Error> stopped;
    while (out_open || err_open) {
        pollfd fds[2] = {{out_open ? out->read.get() : -1, POLLIN, 0},
                         {err_open ? err->read.get() : -1, POLLIN, 0}};
        const int ready = ::poll(fds, 2, 100);
        if (ready > 0) {
            if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
                out_open = drain(out->read.get(), result.out, limits.max_output);
            }
            if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
                err_open = drain(err->read.get(), result.err, limits.max_output);
            }
        }
        if (limits.keep_going && !limits.keep_going()) {
            stopped = Error{ErrorKind::Cancelled, "cancelled", {}};
        } else if (std::chrono::steady_clock::now() > deadline) {
            stopped = Error{ErrorKind::LimitExceeded,
                            "still running after " + std::to_string(limits.timeout.count() / 1000) +
                                " s: stopped it",
                            argv[0]};
        }
        if (stopped) {
            ::kill(pid, SIGKILL);
            break;
        }
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (stopped) {
        return std::unexpected(*stopped);
    }
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
    }
    return result;
}

// ---------------------------------------------------------------------------
// ChildSession

struct ChildSession::Impl {
    pid_t pid = -1;
    Fd input, output, errors;
    std::string pending; // stdout read but not yet a whole line
    std::string stderr_text;
    std::size_t max_stderr = 0;
    bool output_open = true;
    int status = 0;
    bool reaped = false;

    void read_stderr() {
        char buffer[8192];
        for (;;) {
            const ssize_t got = ::read(errors.get(), buffer, sizeof buffer);
            if (got <= 0) {
                if (got == 0) {
                    errors.reset();
                }
                return;
            }
            stderr_text.append(buffer, static_cast<std::size_t>(got));
            if (stderr_text.size() > max_stderr) {
                stderr_text.erase(0, stderr_text.size() - max_stderr);
            }
        }
    }

    int reap(bool block) {
        if (!reaped && pid > 0) {
            int got = 0;
            do {
                got = ::waitpid(pid, &status, block ? 0 : WNOHANG);
            } while (got < 0 && errno == EINTR);
            reaped = got == pid;
        }
        if (!reaped) {
            return 0;
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    }

    ~Impl() {
        if (pid > 0 && !reaped) {
            ::kill(pid, SIGKILL);
            reap(true);
        }
    }
};

Result<ChildSession> ChildSession::start(std::span<const std::string> argv,
                                         const Options& options) {
    if (argv.empty()) {
        return fail(ErrorKind::InvalidArgument, "no program to run");
    }
    auto in = make_pipe();
    auto out = in ? make_pipe() : std::unexpected(in.error());
    auto err = out ? make_pipe() : std::unexpected(out.error());
    if (!err) {
        return std::unexpected(err.error());
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in->read.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out->write.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err->write.get(), STDERR_FILENO);
    if (!options.working_dir.empty()) {
        posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());
    }
    std::vector<char*> args;
    for (const auto& arg : argv) {
        args.push_back(const_cast<char*>(arg.c_str()));
    }
    args.push_back(nullptr);
    // Our environment with the additions replacing what they name.
    std::vector<std::string> variables;
    for (char** at = environ; *at != nullptr; ++at) {
        const std::string_view entry(*at);
        const bool replaced = std::any_of(
            options.environment.begin(), options.environment.end(), [&](const auto& added) {
                return entry.starts_with(added.first) && entry.size() > added.first.size() &&
                       entry[added.first.size()] == '=';
            });
        if (!replaced) {
            variables.emplace_back(entry);
        }
    }
    for (const auto& [name, value] : options.environment) {
        variables.push_back(name + "=" + value);
    }
    std::vector<char*> env;
    for (auto& variable : variables) {
        env.push_back(variable.data());
    }
    env.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        return fail(spawned == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot run it: " + std::string(std::strerror(spawned)), argv[0]);
    }
    auto impl = std::make_unique<Impl>();
    impl->pid = pid;
    impl->input = std::move(in->write);
    impl->output = std::move(out->read);
    impl->errors = std::move(err->read);
    impl->max_stderr = options.max_stderr;
    ::fcntl(impl->output.get(), F_SETFL, ::fcntl(impl->output.get(), F_GETFL) | O_NONBLOCK);
    ::fcntl(impl->errors.get(), F_SETFL, ::fcntl(impl->errors.get(), F_GETFL) | O_NONBLOCK);
    return ChildSession(std::move(impl));
}

ChildSession::ChildSession(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
ChildSession::ChildSession(ChildSession&&) noexcept = default;
ChildSession& ChildSession::operator=(ChildSession&&) noexcept = default;
ChildSession::~ChildSession() = default;

Result<void> ChildSession::write(std::string_view bytes) {
    if (impl_->input.get() < 0) {
        return fail(ErrorKind::Io, "its input is closed");
    }
    // A child that has gone away raises SIGPIPE: block it on this thread
    // while writing, and take any it raised, so the write fails instead.
    sigset_t pipe_signal, previous;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
    bool broken = false;
    while (!bytes.empty()) {
        const ssize_t wrote = ::write(impl_->input.get(), bytes.data(), bytes.size());
        if (wrote < 0) {
            if (errno == EINTR) {
                continue;
            }
            broken = true;
            break;
        }
        bytes.remove_prefix(static_cast<std::size_t>(wrote));
    }
    if (broken) {
        const timespec none{0, 0};
        while (sigtimedwait(&pipe_signal, nullptr, &none) == SIGPIPE) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (broken) {
        return fail(ErrorKind::Io, "it stopped reading its input");
    }
    return {};
}

void ChildSession::close_input() {
    impl_->input.reset();
}

Result<std::optional<std::string>> ChildSession::read_line(std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        if (const auto newline = impl_->pending.find('\n'); newline != std::string::npos) {
            std::string line = impl_->pending.substr(0, newline);
            impl_->pending.erase(0, newline + 1);
            return line;
        }
        if (!impl_->output_open) {
            if (!impl_->pending.empty()) {
                return std::exchange(impl_->pending, {});
            }
            return fail(ErrorKind::Io, "ended");
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd fds[2] = {{impl_->output.get(), POLLIN, 0}, {impl_->errors.get(), POLLIN, 0}};
        const int ready = ::poll(fds, 2, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
        if (ready < 0 && errno != EINTR) {
            return fail(ErrorKind::Io,
                        std::string("cannot read its output: ") + std::strerror(errno));
        }
        if (fds[1].revents != 0) {
            impl_->read_stderr();
        }
        if (fds[0].revents != 0) {
            char buffer[65536];
            const ssize_t got = ::read(impl_->output.get(), buffer, sizeof buffer);
            if (got > 0) {
                impl_->pending.append(buffer, static_cast<std::size_t>(got));
                continue;
            }
            if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                impl_->output_open = false;
                impl_->read_stderr();
                continue;
            }
        }
        if (ready == 0 && std::chrono::steady_clock::now() >= deadline) {
            return std::optional<std::string>();
        }
    }
}

void ChildSession::kill() {
    if (impl_->pid > 0 && !impl_->reaped) {
        ::kill(impl_->pid, SIGKILL);
        impl_->reap(true);
    }
}

int ChildSession::wait() {
    impl_->input.reset();
    const int code = impl_->reap(true);
    impl_->read_stderr();
    return code;
}

const std::string& ChildSession::stderr_text() const {
    return impl_->stderr_text;
}

} // namespace cachelens
