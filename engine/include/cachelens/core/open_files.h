#pragma once

// Which processes of this machine use files under a dir: open file
// descriptors (/proc/<pid>/fd) and mapped files (/proc/<pid>/maps: a loaded
// Triton kernel's .so, an mmapped cache file). Processes whose /proc entries
// cannot be read (another user's, without privileges) are not seen; a
// caller that deletes says so.

#include <filesystem>
#include <string>
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

} // namespace cachelens
