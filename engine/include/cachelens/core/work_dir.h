#pragma once

// The dirs cachelens works in inside a root: a trash dir a prune deletes
// through, an unpack's staging dir. Each is `.cachelens-<purpose>-<random>`,
// owned through an flock held for as long as it exists, so another process
// (in another container, or another host where the filesystem keeps flocks)
// never takes a live one for stale; one whose lock is free was left by a
// killed run, and the next run of that purpose removes it. No cache reader
// lists them.

#include <cachelens/core/dir_handle.h>
#include <cachelens/core/error.h>

#include <optional>
#include <string>
#include <string_view>

namespace cachelens {

// ".cachelens-...": one of cachelens's own dirs in a root, never a cache's.
bool is_cachelens_work_dir(std::string_view name);

class WorkDir {
public:
    // Removes `purpose`'s dirs in `root` left by killed runs (their lock
    // free; and, of older cachelens versions that named them by pid and
    // locked none, those idle for a day), then makes and locks a new one.
    static Result<WorkDir> make(const DirHandle& root, std::string_view purpose);
    WorkDir(WorkDir&& other) noexcept;
    WorkDir& operator=(WorkDir&&) = delete;
    WorkDir(const WorkDir&) = delete;
    WorkDir& operator=(const WorkDir&) = delete;
    // Removes the dir and what is left in it (through descriptors, never
    // following a symlink), then releases the lock.
    ~WorkDir();

    const DirHandle& dir() const { return *dir_; }
    // Its name in the root, and its path (for messages and path-based writers).
    const std::string& name() const { return name_; }
    std::string path() const { return dir_->path(); }
    int root_fd() const { return root_fd_; }

    // Removes the dirs of `purpose` in `root` whose lock no process holds.
    static void reap(const DirHandle& root, std::string_view purpose);

private:
    WorkDir(DirHandle dir, std::string name, int root_fd);

    std::optional<DirHandle> dir_;
    std::string name_;
    int root_fd_ = -1;
};

// Removes the tree `name` in the dir open as `parent_fd` through descriptors
// (a symlink in it is unlinked, never followed). False when some of it could
// not go.
bool remove_tree_at(int parent_fd, const char* name);

} // namespace cachelens
