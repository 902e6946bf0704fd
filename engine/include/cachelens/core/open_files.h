#pragma once

// Which processes of this machine use a file: open file descriptors
// (/proc/<pid>/fd) and mapped files (/proc/<pid>/maps: a loaded Triton
// kernel's .so, an mmapped cache file). A file is matched by what it is,
// (device, inode), never by the path a process names it by: a process in a
// container that bind-mounts the cache elsewhere names it by another path.
// Processes whose /proc entries cannot be read (another user's, without
// privileges) are not seen, nor are processes of other hosts sharing the
// filesystem (NFS, Lustre, GPFS); a caller that deletes says so.

#include <sys/stat.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace cachelens {

struct ProcessUse {
    int pid = 0;
    std::string command; // /proc/<pid>/comm
    std::string path;    // the file, as that process names it (perhaps in its own mount namespace)
};

struct FileKey {
    dev_t device = 0;
    ino_t inode = 0;
    bool operator==(const FileKey&) const = default;
};

struct FileKeyHash {
    std::size_t operator()(const FileKey& key) const {
        return std::hash<std::uint64_t>()(static_cast<std::uint64_t>(key.inode) * 31 +
                                          static_cast<std::uint64_t>(key.device));
    }
};

using FilesInUseMap = std::unordered_map<FileKey, ProcessUse, FileKeyHash>;

// Every file on the filesystem `device` that another process of this machine
// has open or mapped, with one process using it. This process is left out.
FilesInUseMap files_in_use_on(dev_t device);

// The processes using any file under `dir` (its regular files, found by
// (device, inode)), one entry per process, sorted by pid. This process is
// left out.
std::vector<ProcessUse> processes_using(const std::filesystem::path& dir);

// What a deleter asks before each delete: files_in_use_on(the root's
// device), read again once the last reading is older than `fresh_for`
// (reading /proc costs milliseconds; a delete, microseconds).
class FilesInUse {
public:
    explicit FilesInUse(std::filesystem::path root,
                        std::chrono::milliseconds fresh_for = std::chrono::milliseconds(50));
    // The process using the file `info` describes (an lstat of it), or nullptr.
    const ProcessUse* user_of(const struct stat& info);

private:
    std::filesystem::path root_;
    std::chrono::milliseconds fresh_for_;
    std::chrono::steady_clock::time_point read_at_{};
    bool read_ = false;
    dev_t device_ = 0;
    FilesInUseMap files_;
};

} // namespace cachelens
