#include <cachelens/core/dir_handle.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace cachelens {

namespace {

std::string system_message(int error) {
    return std::strerror(error);
}

std::string joined(const std::string& dir, std::string_view name) {
    return dir + (dir.ends_with('/') ? "" : "/") + std::string(name);
}

} // namespace

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

} // namespace cachelens
