#include "dir_handle_detail.h"

#include <cachelens/core/dir_handle.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <variant>

namespace cachelens {

using detail::joined;
using detail::system_message;

bool is_plain_name(std::string_view name) {
    return !name.empty() && name != "." && name != ".." &&
           name.find_first_of(std::string_view("/\0", 2)) == std::string_view::npos;
}

DirHandle::DirHandle(int fd, std::string path)
    : fd_(fd)
    , path_(std::move(path)) {}

DirHandle::DirHandle(DirHandle&& other) noexcept
    : fd_(std::exchange(other.fd_, -1))
    , path_(std::move(other.path_)) {}

DirHandle& DirHandle::operator=(DirHandle&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
    }
    return *this;
}

DirHandle::~DirHandle() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

Result<DirHandle> DirHandle::open_root(const std::filesystem::path& root) {
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot open the directory: " + system_message(error), root.string());
    }
    return DirHandle(fd, root.string());
}

Result<DirHandle> DirHandle::open_beneath(std::string_view relative) const {
    if (relative.starts_with('/')) {
        return fail(ErrorKind::InvalidArgument, "an absolute path where one inside it was expected",
                    joined(path_, relative));
    }
    int fd = ::dup(fd_);
    std::string path = path_;
    while (!relative.empty()) {
        const auto slash = relative.find('/');
        const std::string name(relative.substr(0, slash));
        relative =
            slash == std::string_view::npos ? std::string_view() : relative.substr(slash + 1);
        path = joined(path, name);
        if (!is_plain_name(name)) {
            ::close(fd);
            return fail(ErrorKind::InvalidArgument,
                        "'" + name + "' is not a directory name: the path would leave the root",
                        path);
        }
        const int next =
            ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int error = errno;
        ::close(fd);
        if (next < 0) {
            if (error == ELOOP || error == ENOTDIR) {
                return fail(ErrorKind::InvalidArgument,
                            "not a directory (a symlink is never followed out of the root)", path);
            }
            return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                        "cannot open the directory: " + system_message(error), path);
        }
        fd = next;
    }
    return DirHandle(fd, std::move(path));
}

Result<DirHandle> DirHandle::make_beneath(std::string_view relative) const {
    if (relative.starts_with('/')) {
        return fail(ErrorKind::InvalidArgument, "an absolute path where one inside it was expected",
                    joined(path_, relative));
    }
    auto dir = open_beneath("");
    if (!dir) {
        return dir;
    }
    while (!relative.empty()) {
        const auto slash = relative.find('/');
        const std::string_view name = relative.substr(0, slash);
        relative =
            slash == std::string_view::npos ? std::string_view() : relative.substr(slash + 1);
        if (is_plain_name(name) && ::mkdirat(dir->fd_, std::string(name).c_str(), 0755) != 0 &&
            errno != EEXIST) {
            const int error = errno;
            return fail(ErrorKind::Io, "cannot create the directory: " + system_message(error),
                        joined(dir->path_, name));
        }
        auto next = dir->open_beneath(name);
        if (!next) {
            return next;
        }
        dir = std::move(next);
    }
    return dir;
}

Result<std::optional<std::string>> DirHandle::read_file(std::string_view name,
                                                        std::size_t max_size) const {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(path_, file));
    }
    const int fd = ::openat(fd_, file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT) {
            return std::optional<std::string>();
        }
        return fail(ErrorKind::Io,
                    error == ELOOP ? std::string("a symlink, never followed")
                                   : "cannot open: " + system_message(error),
                    joined(path_, file));
    }
    struct stat info {};
    std::optional<std::string> bytes;
    std::string problem;
    if (::fstat(fd, &info) != 0) {
        problem = "cannot stat: " + system_message(errno);
    } else if (!S_ISREG(info.st_mode)) {
        problem = "not a regular file";
    } else if (static_cast<std::size_t>(info.st_size) > max_size) {
        problem = "larger than " + std::to_string(max_size) + " bytes";
    } else {
        bytes.emplace(static_cast<std::size_t>(info.st_size), '\0');
        std::size_t done = 0;
        while (done < bytes->size()) {
            const ssize_t n = ::read(fd, bytes->data() + done, bytes->size() - done);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                problem = n < 0 ? "cannot read: " + system_message(errno)
                                : std::string("shrank while being read");
                break;
            }
            done += static_cast<std::size_t>(n);
        }
    }
    ::close(fd);
    if (!problem.empty()) {
        return fail(ErrorKind::Io, problem, joined(path_, file));
    }
    return bytes;
}

Result<struct stat> DirHandle::stat_entry(std::string_view name) const {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(path_, file));
    }
    struct stat info {};
    if (::fstatat(fd_, file.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        const int error = errno;
        return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot stat: " + system_message(error), joined(path_, file));
    }
    return info;
}

Result<void> DirHandle::remove_file(std::string_view name) const {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(path_, file));
    }
    if (::unlinkat(fd_, file.c_str(), 0) != 0) {
        const int error = errno;
        return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot delete: " + system_message(error), joined(path_, file));
    }
    return {};
}

Result<bool> DirHandle::remove_empty_dir(std::string_view name) const {
    const std::string dir(name);
    if (!is_plain_name(dir)) {
        return fail(ErrorKind::InvalidArgument, "not a directory name", joined(path_, dir));
    }
    if (::unlinkat(fd_, dir.c_str(), AT_REMOVEDIR) != 0) {
        const int error = errno;
        if (error == ENOTEMPTY || error == EEXIST) {
            return false;
        }
        return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot remove the directory: " + system_message(error), joined(path_, dir));
    }
    return true;
}

Result<std::vector<std::string>> DirHandle::subdir_names() const {
    return names(/*dirs_only=*/true);
}

Result<std::vector<std::string>> DirHandle::entry_names() const {
    return names(/*dirs_only=*/false);
}

Result<std::vector<std::string>> DirHandle::names(bool dirs_only) const {
    // A descriptor of its own: readdir through a dup would move this one's offset.
    const int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* dir = fd < 0 ? nullptr : ::fdopendir(fd);
    if (dir == nullptr) {
        const int error = errno;
        if (fd >= 0) {
            ::close(fd);
        }
        return fail(ErrorKind::Io, "cannot read the directory: " + system_message(error), path_);
    }
    std::vector<std::string> found;
    while (const dirent* item = ::readdir(dir)) {
        const std::string name(item->d_name);
        if (!is_plain_name(name)) {
            continue;
        }
        bool is_dir = item->d_type == DT_DIR;
        if (dirs_only && item->d_type == DT_UNKNOWN) {
            struct stat info {};
            is_dir = ::fstatat(fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
                     S_ISDIR(info.st_mode);
        }
        if (is_dir || !dirs_only) {
            found.push_back(name);
        }
    }
    ::closedir(dir);
    std::sort(found.begin(), found.end());
    return found;
}

} // namespace cachelens
