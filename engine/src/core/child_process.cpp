#include <cachelens/core/child_process.h>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

} // namespace cachelens
