#include <cachelens/core/open_files.h>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>

namespace cachelens {

namespace fs = std::filesystem;

namespace {

bool is_under(std::string_view path, std::string_view dir) {
    return path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/';
}

std::string command_of(const fs::path& proc) {
    std::ifstream file(proc / "comm");
    std::string command;
    std::getline(file, command);
    return command;
}

// Calls `use(pid, proc_dir, path)` for each file under `dir` that a process
// other than this one has open or mapped; `use` returns false to skip the
// rest of that process.
template <class Use>
void for_each_use_under(const fs::path& dir, const Use& use) {
    const std::string prefix = dir.string();
    const int self = static_cast<int>(::getpid());
    std::error_code error;
    for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        int pid = 0;
        const auto parsed = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (parsed.ec != std::errc{} || parsed.ptr != name.data() + name.size() || pid == self) {
            continue;
        }
        bool more = true;
        std::error_code fd_error;
        for (fs::directory_iterator fd(it->path() / "fd", fd_error), fd_end;
             !fd_error && fd != fd_end && more; fd.increment(fd_error)) {
            std::error_code link_error;
            const fs::path target = fs::read_symlink(fd->path(), link_error);
            if (!link_error && is_under(target.native(), prefix)) {
                more = use(pid, it->path(), target.string());
            }
        }
        // "address perms offset dev inode   pathname": the path after the inode.
        std::ifstream maps(it->path() / "maps");
        std::string line;
        while (more && std::getline(maps, line)) {
            const auto slash = line.find('/');
            if (slash != std::string::npos &&
                is_under(std::string_view(line).substr(slash), prefix)) {
                more = use(pid, it->path(), line.substr(slash));
            }
        }
    }
}

} // namespace

std::vector<ProcessUse> processes_using(const fs::path& dir) {
    std::vector<ProcessUse> out;
    for_each_use_under(dir, [&](int pid, const fs::path& proc, std::string path) {
        out.push_back({pid, command_of(proc), std::move(path)});
        return false; // one entry per process
    });
    std::ranges::sort(out, {}, &ProcessUse::pid);
    return out;
}

std::unordered_map<std::string, ProcessUse> files_in_use_under(const fs::path& dir) {
    std::unordered_map<std::string, ProcessUse> out;
    for_each_use_under(dir, [&](int pid, const fs::path& proc, std::string path) {
        if (!out.contains(path)) {
            out.emplace(path, ProcessUse{pid, command_of(proc), path});
        }
        return true;
    });
    return out;
}

FilesInUse::FilesInUse(fs::path dir, std::chrono::milliseconds fresh_for)
    : dir_(std::move(dir))
    , fresh_for_(fresh_for) {}

const ProcessUse* FilesInUse::user_of(const std::string& absolute_path) {
    const auto now = std::chrono::steady_clock::now();
    if (!read_ || now - read_at_ > fresh_for_) {
        files_ = files_in_use_under(dir_);
        read_at_ = std::chrono::steady_clock::now();
        read_ = true;
    }
    const auto it = files_.find(absolute_path);
    return it == files_.end() ? nullptr : &it->second;
}

} // namespace cachelens
