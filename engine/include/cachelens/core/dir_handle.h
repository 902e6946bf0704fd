#pragma once

// A directory inside a root, opened one component at a time with openat and
// O_NOFOLLOW. Whatever is done through it (stat, unlink, rmdir) stays inside
// the root even if someone swaps a parent directory for a symlink meanwhile:
// a path string checked first and used later could not promise that.

#include <cachelens/core/error.h>

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens {

class DirHandle {
public:
    // Opens `root` itself (which may be reached through symlinks: the user named it).
    static Result<DirHandle> open_root(const std::filesystem::path& root);

    DirHandle(DirHandle&& other) noexcept;
    DirHandle& operator=(DirHandle&& other) noexcept;
    DirHandle(const DirHandle&) = delete;
    DirHandle& operator=(const DirHandle&) = delete;
    ~DirHandle();

    // The directory `relative` ('/'-separated) below this one. Fails on an
    // empty, absolute or ".." component, and when a component is a symlink
    // or not a directory.
    Result<DirHandle> open_beneath(std::string_view relative) const;

    // Like open_beneath, but creates the components that are missing (0755).
    // An existing symlink or non-directory is an error, never followed.
    Result<DirHandle> make_beneath(std::string_view relative) const;

    // The bytes of the regular file `name`; nullopt when there is none. A
    // symlink, a directory or a file over `max_size` bytes is an error.
    Result<std::optional<std::string>> read_file(std::string_view name, std::size_t max_size) const;

    enum class WriteMode { CreateOnly, Replace };
    // Writes `name` as PyTorch's write_atomic does: a temp file beside it,
    // fsynced, renamed into place, the directory fsynced; a reader never sees
    // half a file. CreateOnly returns false, writing nothing, when `name`
    // exists by the time of the rename.
    Result<bool> write_file(std::string_view name, std::string_view bytes, WriteMode mode,
                            mode_t permissions = 0644) const;

    // lstat of `name` in this directory (a single component).
    Result<struct stat> stat_entry(std::string_view name) const;
    // Unlinks the file `name`; never a directory.
    Result<void> remove_file(std::string_view name) const;
    // Removes `name` when it is an empty directory. False when it is not empty.
    Result<bool> remove_empty_dir(std::string_view name) const;
    // The names of the directories directly in this one, sorted (a symlink
    // is not one of them).
    Result<std::vector<std::string>> subdir_names() const;

    // For messages: the path this handle was opened as.
    const std::string& path() const { return path_; }
    int fd() const { return fd_; }

private:
    DirHandle(int fd, std::string path);

    int fd_ = -1;
    std::string path_;
};

// False for "", ".", ".." and names with a '/' or a NUL: not one directory entry.
bool is_plain_name(std::string_view name);

// Replaces `file` as DirHandle::write_file does (a reader never sees half of
// it), in the dir that holds it, which must exist.
Result<void> replace_file(const std::filesystem::path& file, std::string_view bytes);

} // namespace cachelens
