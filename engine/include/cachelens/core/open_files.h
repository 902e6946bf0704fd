#pragma once

// Which processes of this machine use files under a dir: open file
// descriptors (/proc/<pid>/fd) and mapped files (/proc/<pid>/maps: a loaded
// Triton kernel's .so, an mmapped cache file). Processes whose /proc entries
// cannot be read (another user's, without privileges) are not seen; a
// caller that deletes says so.

#include <chrono>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace cachelens {

struct ProcessUse {
    int pid = 0;
    std::string command; // /proc/<pid>/comm
    std::string path;    // the first file under the dir it uses
};

// The processes using anything under `dir` (which should be canonical), one
// entry per process, sorted by pid. This process is left out.
std::vector<ProcessUse> processes_using(const std::filesystem::path& dir);

// Every file under `dir` (canonical) that a process of this machine has open
// or mapped, by its absolute path, with one process using it. This process is
// left out.
std::unordered_map<std::string, ProcessUse> files_in_use_under(const std::filesystem::path& dir);

// What a deleter asks before each delete: files_in_use_under(dir), read
// again once the last reading is older than `fresh_for` (reading /proc
// costs milliseconds; a delete, microseconds).
class FilesInUse {
public:
    explicit FilesInUse(std::filesystem::path dir,
                        std::chrono::milliseconds fresh_for = std::chrono::milliseconds(50));
    // The process using `absolute_path`, or nullptr.
    const ProcessUse* user_of(const std::string& absolute_path);

private:
    std::filesystem::path dir_;
    std::chrono::milliseconds fresh_for_;
    std::chrono::steady_clock::time_point read_at_{};
    bool read_ = false;
    std::unordered_map<std::string, ProcessUse> files_;
};

} // namespace cachelens
