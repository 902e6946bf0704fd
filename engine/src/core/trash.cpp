#include "dir_handle_detail.h"

#include <cachelens/core/test_seams.h>
#include <cachelens/core/trash.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace cachelens {

using detail::joined;
using detail::system_message;

namespace {

std::optional<FileIdentity> identity_at(int dir_fd, const std::string& name) {
    struct stat info {};
    if (::fstatat(dir_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        return std::nullopt;
    }
    return FileIdentity::of(info);
}

} // namespace

Trash::HeldDir::~HeldDir() {
    if (fd >= 0) {
        ::close(fd);
    }
}

Result<std::shared_ptr<Trash::HeldDir>> Trash::hold(const DirHandle& dir) {
    struct stat info {};
    if (::fstat(dir.fd(), &info) != 0) {
        return fail(ErrorKind::Io, "cannot stat the directory: " + system_message(errno),
                    dir.path());
    }
    auto& held = held_[{info.st_dev, info.st_ino}];
    if (!held) {
        const int fd = ::fcntl(dir.fd(), F_DUPFD_CLOEXEC, 0);
        if (fd < 0) {
            held_.erase({info.st_dev, info.st_ino});
            return fail(ErrorKind::Io, "cannot hold the directory open: " + system_message(errno),
                        dir.path());
        }
        held = std::make_shared<HeldDir>();
        held->fd = fd;
        held->path = dir.path();
    }
    return held;
}

Trash::Trash(WorkDir dir)
    : dir_(std::move(dir)) {}

Trash::Trash(Trash&& other) noexcept
    : dir_(std::move(other.dir_))
    , counter_(other.counter_)
    , taken_(std::move(other.taken_))
    , held_(std::move(other.held_)) {
    other.dir_.reset();
    other.taken_.clear();
    other.held_.clear();
}

Trash::~Trash() {
    if (dir_) {
        std::vector<Error> ignored;
        (void)empty(ignored);
    }
}

Result<Trash> Trash::open(const DirHandle& root) {
    auto dir = WorkDir::make(root, "trash");
    if (!dir) {
        return std::unexpected(dir.error());
    }
    return Trash(std::move(*dir));
}

Result<Trash::Taken> Trash::take(const DirHandle& dir, std::string_view name,
                                 const FileIdentity& planned) {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(dir.path(), file));
    }
    test_seams::before_delete(file);
    auto held = hold(dir);
    if (!held) {
        return std::unexpected(held.error());
    }
    Item item{
        .dir = *held, .name = file, .trashed = std::to_string(counter_++), .identity = planned};
    const int dir_fd = item.dir->fd;
    if (::renameat(dir_fd, file.c_str(), dir_->dir().fd(), item.trashed.c_str()) != 0) {
        const int error = errno;
        if (error == ENOENT) {
            return Taken::Gone;
        }
        if (error != EXDEV) {
            return fail(ErrorKind::Io, "cannot move it out to delete it: " + system_message(error),
                        joined(dir.path(), file));
        }
        // On another filesystem than the root (a mount inside it): checked
        // in place, unlinked by empty(). The window between the two is what
        // cannot be closed there.
        if (identity_at(dir_fd, file) != planned) {
            return Taken::Changed;
        }
        item.trashed.clear();
        taken_.push_back(std::move(item));
        return Taken::Taken;
    }
    if (identity_at(dir_->dir().fd(), item.trashed) == planned) {
        taken_.push_back(std::move(item));
        return Taken::Taken;
    }
    // Another file: written after the last check. Back under its name; if a
    // newer one took the name meanwhile, it would have replaced this one.
    if (::renameat2(dir_->dir().fd(), item.trashed.c_str(), dir_fd, file.c_str(),
                    RENAME_NOREPLACE) != 0) {
        const int error = errno;
        if (error != EEXIST) {
            return fail(ErrorKind::Io,
                        "moved out a file written after the plan and cannot put it back (" +
                            system_message(error) + "): it is at " +
                            joined(joined(dir.path(), ""), dir_->name() + "/" + item.trashed),
                        joined(dir.path(), file));
        }
        (void)::unlinkat(dir_->dir().fd(), item.trashed.c_str(), 0);
    }
    return Taken::Changed;
}

Result<Trash::Taken> Trash::take_dir(const DirHandle& dir, std::string_view name,
                                     const std::function<bool(const DirHandle& moved)>& unchanged) {
    const std::string sub(name);
    if (!is_plain_name(sub)) {
        return fail(ErrorKind::InvalidArgument, "not a directory name", joined(dir.path(), sub));
    }
    test_seams::before_delete(sub);
    auto held = hold(dir);
    if (!held) {
        return std::unexpected(held.error());
    }
    Item item{.dir = *held,
              .name = sub,
              .trashed = std::to_string(counter_++),
              .identity = {},
              .is_dir = true};
    const int dir_fd = item.dir->fd;
    struct stat info {};
    if (::fstatat(dir_fd, sub.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(info.st_mode)) {
        const int error = errno;
        if (error == ENOENT) {
            return Taken::Gone;
        }
        return fail(ErrorKind::InvalidArgument, "not a directory (a symlink is never followed)",
                    joined(dir.path(), sub));
    }
    if (::renameat(dir_fd, sub.c_str(), dir_->dir().fd(), item.trashed.c_str()) != 0) {
        const int error = errno;
        if (error == ENOENT) {
            return Taken::Gone;
        }
        return fail(ErrorKind::Io, "cannot move it out to delete it: " + system_message(error),
                    joined(dir.path(), sub));
    }
    auto moved = dir_->dir().open_beneath(item.trashed);
    if (moved && unchanged(*moved)) {
        taken_.push_back(std::move(item));
        return Taken::Taken;
    }
    if (::renameat2(dir_->dir().fd(), item.trashed.c_str(), dir_fd, sub.c_str(),
                    RENAME_NOREPLACE) != 0) {
        const int error = errno;
        return fail(ErrorKind::Io,
                    "moved out a dir written after the plan and cannot put it back (" +
                        system_message(error) + "): it is at " + dir_->name() + "/" + item.trashed +
                        " of the root",
                    joined(dir.path(), sub));
    }
    return Taken::Changed;
}

std::vector<Error> Trash::put_back() {
    std::vector<Error> errors;
    for (auto& item : taken_) {
        if (!item.trashed.empty() &&
            ::renameat2(dir_->dir().fd(), item.trashed.c_str(), item.dir->fd, item.name.c_str(),
                        RENAME_NOREPLACE) != 0) {
            const int error = errno;
            if (error == EEXIST) {
                // A newer file took the name: it would have replaced this one.
                (void)::unlinkat(dir_->dir().fd(), item.trashed.c_str(), 0);
            } else {
                errors.push_back({ErrorKind::Io,
                                  "cannot put it back (" + system_message(error) + "): it is in " +
                                      dir_->name() + " of the root",
                                  joined(item.dir->path, item.name)});
            }
        }
    }
    taken_.clear();
    held_.clear();
    return errors;
}

std::size_t Trash::empty(std::vector<Error>& errors) {
    std::size_t removed = 0;
    for (auto& item : taken_) {
        const bool in_place = item.trashed.empty();
        int done = 0;
        if (item.is_dir) {
            done = remove_tree_at(dir_->dir().fd(), item.trashed.c_str()) ? 0 : -1;
            if (done != 0) {
                errors.push_back({ErrorKind::Io,
                                  "moved out of the tree but not all removed: it is at " +
                                      dir_->name() + "/" + item.trashed +
                                      " of the root (the next prune removes it)",
                                  joined(item.dir->path, item.name)});
            }
        } else if (in_place && identity_at(item.dir->fd, item.name) != item.identity) {
            done = -1; // changed meanwhile: another's file now, left
        } else {
            done = ::unlinkat(in_place ? item.dir->fd : dir_->dir().fd(),
                              (in_place ? item.name : item.trashed).c_str(), 0);
            if (done != 0) {
                errors.push_back({ErrorKind::Io, "cannot delete: " + system_message(errno),
                                  joined(item.dir->path, item.name)});
            }
        }
        removed += done == 0 ? 1 : 0;
    }
    taken_.clear();
    held_.clear();
    return removed;
}

} // namespace cachelens
