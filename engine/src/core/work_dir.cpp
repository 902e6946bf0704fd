#include "dir_handle_detail.h"

#include <cachelens/core/work_dir.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <utility>

namespace cachelens {

using detail::joined;
using detail::system_message;

namespace {

constexpr std::string_view kWorkDirPrefix = ".cachelens-";

bool remove_tree_below(int parent_fd, const char* name, int depth) {
    if (::unlinkat(parent_fd, name, 0) == 0) {
        return true;
    }
    if (errno != EISDIR && errno != EPERM) {
        return errno == ENOENT;
    }
    const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR* dir = fd < 0 ? nullptr : ::fdopendir(fd);
    if (dir == nullptr || depth > 64) {
        if (dir != nullptr) {
            ::closedir(dir);
        } else if (fd >= 0) {
            ::close(fd);
        }
        return false;
    }
    bool whole = true;
    while (const dirent* item = ::readdir(dir)) {
        const std::string_view entry = item->d_name;
        if (entry != "." && entry != "..") {
            whole = remove_tree_below(fd, item->d_name, depth + 1) && whole;
        }
    }
    ::closedir(dir);
    return ::unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 && whole;
}

// "<pid>" or "<pid>-<name>" after the prefix: a dir of an older cachelens.
bool named_by_pid(std::string_view rest) {
    const auto digits = rest.find_first_not_of("0123456789");
    return digits != 0 && (digits == std::string_view::npos || rest[digits] == '-');
}

} // namespace

bool is_cachelens_work_dir(std::string_view name) {
    return name.starts_with(kWorkDirPrefix);
}

bool remove_tree_at(int parent_fd, const char* name) {
    return remove_tree_below(parent_fd, name, 0);
}

WorkDir::WorkDir(DirHandle dir, std::string name, int root_fd)
    : dir_(std::move(dir))
    , name_(std::move(name))
    , root_fd_(root_fd) {}

WorkDir::WorkDir(WorkDir&& other) noexcept
    : dir_(std::move(other.dir_))
    , name_(std::move(other.name_))
    , root_fd_(std::exchange(other.root_fd_, -1)) {
    other.dir_.reset();
}

WorkDir::~WorkDir() {
    if (dir_) {
        // Removed while still locked: no reaper can take it half removed.
        (void)remove_tree_at(root_fd_, name_.c_str());
        dir_.reset(); // closing it releases the lock
    }
    if (root_fd_ >= 0) {
        ::close(root_fd_);
    }
}

Result<WorkDir> WorkDir::make(const DirHandle& root, std::string_view purpose) {
    reap(root, purpose);
    const int root_fd = ::fcntl(root.fd(), F_DUPFD_CLOEXEC, 0);
    if (root_fd < 0) {
        return fail(ErrorKind::Io, "cannot hold the directory open: " + system_message(errno),
                    root.path());
    }
    for (int attempt = 0;; ++attempt) {
        std::string name =
            std::string(kWorkDirPrefix) + std::string(purpose) + "-" + detail::random_suffix();
        if (::mkdirat(root_fd, name.c_str(), 0700) != 0) {
            if (errno == EEXIST && attempt < 8) {
                continue;
            }
            const int error = errno;
            ::close(root_fd);
            return fail(ErrorKind::Io,
                        "cannot make a " + std::string(purpose) + " dir: " + system_message(error),
                        joined(root.path(), name));
        }
        auto dir = root.open_beneath(name);
        if (!dir || ::flock(dir->fd(), LOCK_EX | LOCK_NB) != 0) {
            const int error = errno;
            (void)::unlinkat(root_fd, name.c_str(), AT_REMOVEDIR);
            ::close(root_fd);
            return dir ? fail(ErrorKind::Io,
                              "cannot lock the " + std::string(purpose) +
                                  " dir: " + system_message(error),
                              joined(root.path(), name))
                       : std::unexpected(dir.error());
        }
        return WorkDir(std::move(*dir), std::move(name), root_fd);
    }
}

void WorkDir::reap(const DirHandle& root, std::string_view purpose) {
    const std::string prefix = std::string(kWorkDirPrefix) + std::string(purpose) + "-";
    const int listed = ::openat(root.fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* dir = listed < 0 ? nullptr : ::fdopendir(listed);
    if (dir == nullptr) {
        if (listed >= 0) {
            ::close(listed);
        }
        return;
    }
    const auto a_day_ago = std::chrono::system_clock::now() - std::chrono::hours(24);
    while (const dirent* item = ::readdir(dir)) {
        const std::string_view name = item->d_name;
        if (!name.starts_with(prefix)) {
            continue;
        }
        const int fd =
            ::openat(root.fd(), item->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        // A lock we can take is no one's: a killed run's leftovers. An older
        // cachelens named its dirs by pid and locked nothing: for those, a
        // day idle says the run is gone.
        struct stat info {};
        bool leftover = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
        if (leftover && named_by_pid(name.substr(prefix.size()))) {
            leftover = ::fstat(fd, &info) == 0 &&
                       std::chrono::system_clock::from_time_t(info.st_mtim.tv_sec) < a_day_ago;
        }
        if (leftover) {
            (void)remove_tree_at(root.fd(), item->d_name);
        }
        ::close(fd);
    }
    ::closedir(dir);
}

} // namespace cachelens
