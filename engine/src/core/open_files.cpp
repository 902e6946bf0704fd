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

} // namespace

std::vector<ProcessUse> processes_using(const fs::path& dir) {
    std::vector<ProcessUse> out;
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
        std::string found;
        std::error_code fd_error;
        for (fs::directory_iterator fd(it->path() / "fd", fd_error), fd_end;
             !fd_error && fd != fd_end && found.empty(); fd.increment(fd_error)) {
            std::error_code link_error;
            const fs::path target = fs::read_symlink(fd->path(), link_error);
            if (!link_error && is_under(target.native(), prefix)) {
                found = target.string();
            }
        }
        if (found.empty()) {
            // "address perms offset dev inode   pathname": the path after the inode.
            std::ifstream maps(it->path() / "maps");
            std::string line;
            while (found.empty() && std::getline(maps, line)) {
                const auto slash = line.find('/');
                if (slash != std::string::npos &&
                    is_under(std::string_view(line).substr(slash), prefix)) {
                    found = line.substr(slash);
                }
            }
        }
        if (!found.empty()) {
            out.push_back({pid, command_of(it->path()), std::move(found)});
        }
    }
    std::ranges::sort(out, {}, &ProcessUse::pid);
    return out;
}

} // namespace cachelens
