#include <cachelens/core/open_files.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <unordered_set>

namespace cachelens {

namespace fs = std::filesystem;

namespace {

std::string command_of(const fs::path& proc) {
    std::ifstream file(proc / "comm");
    std::string command;
    std::getline(file, command);
    return command;
}

// "address perms offset dev inode   pathname", dev as hex major:minor: the
// mapped file's key, or none for an anonymous mapping.
std::optional<std::pair<FileKey, std::string>> mapped_file(std::string_view line) {
    std::size_t at = 0;
    const auto field = [&]() {
        while (at < line.size() && line[at] == ' ') {
            ++at;
        }
        const std::size_t begin = at;
        while (at < line.size() && line[at] != ' ') {
            ++at;
        }
        return line.substr(begin, at - begin);
    };
    field(); // address
    field(); // perms
    field(); // offset
    const std::string_view dev = field();
    const std::string_view inode = field();
    const auto colon = dev.find(':');
    unsigned major = 0;
    unsigned minor = 0;
    std::uint64_t number = 0;
    if (colon == std::string_view::npos ||
        std::from_chars(dev.data(), dev.data() + colon, major, 16).ec != std::errc{} ||
        std::from_chars(dev.data() + colon + 1, dev.data() + dev.size(), minor, 16).ec !=
            std::errc{} ||
        std::from_chars(inode.data(), inode.data() + inode.size(), number).ec != std::errc{} ||
        number == 0) {
        return std::nullopt;
    }
    const auto slash = line.find('/', at);
    return std::pair{FileKey{makedev(major, minor), static_cast<ino_t>(number)},
                     std::string(slash == std::string_view::npos ? "" : line.substr(slash))};
}

// Calls `use(pid, proc_dir, key, path)` for each file on `device` that a
// process other than this one has open or mapped; `use` returns false to
// skip the rest of that process.
template <class Use>
void for_each_use_on(dev_t device, const Use& use) {
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
            // stat through the magic link: the file itself, whatever mount
            // namespace its process names it in.
            struct stat info {};
            if (::stat(fd->path().c_str(), &info) != 0 || info.st_dev != device) {
                continue;
            }
            std::error_code link_error;
            const fs::path target = fs::read_symlink(fd->path(), link_error);
            more = use(pid, it->path(), FileKey{info.st_dev, info.st_ino}, target.string());
        }
        std::ifstream maps(it->path() / "maps");
        std::string line;
        while (more && std::getline(maps, line)) {
            if (auto mapped = mapped_file(line); mapped && mapped->first.device == device) {
                more = use(pid, it->path(), mapped->first, std::move(mapped->second));
            }
        }
    }
}

} // namespace

FilesInUseMap files_in_use_on(dev_t device) {
    FilesInUseMap out;
    for_each_use_on(device, [&](int pid, const fs::path& proc, FileKey key, std::string path) {
        if (!out.contains(key)) {
            out.emplace(key, ProcessUse{pid, command_of(proc), std::move(path)});
        }
        return true;
    });
    return out;
}

std::vector<ProcessUse> processes_using(const fs::path& dir) {
    struct stat root {};
    if (::stat(dir.c_str(), &root) != 0) {
        return {};
    }
    std::unordered_set<FileKey, FileKeyHash> files;
    std::error_code error;
    for (fs::recursive_directory_iterator it(dir, error), end; !error && it != end;
         it.increment(error)) {
        struct stat info {};
        if (::lstat(it->path().c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
            files.insert({info.st_dev, info.st_ino});
        }
    }
    std::vector<ProcessUse> out;
    if (files.empty()) {
        return out;
    }
    for_each_use_on(root.st_dev, [&](int pid, const fs::path& proc, FileKey key, std::string path) {
        if (!files.contains(key)) {
            return true;
        }
        out.push_back({pid, command_of(proc), std::move(path)});
        return false; // one entry per process
    });
    std::ranges::sort(out, {}, &ProcessUse::pid);
    return out;
}

FilesInUse::FilesInUse(fs::path root, std::chrono::milliseconds fresh_for)
    : root_(std::move(root))
    , fresh_for_(fresh_for) {}

const ProcessUse* FilesInUse::user_of(const struct stat& info) {
    const auto now = std::chrono::steady_clock::now();
    if (!read_ || now - read_at_ > fresh_for_ || info.st_dev != device_) {
        device_ = info.st_dev;
        files_ = files_in_use_on(device_);
        read_at_ = std::chrono::steady_clock::now();
        read_ = true;
    }
    const auto it = files_.find(FileKey{info.st_dev, info.st_ino});
    return it == files_.end() ? nullptr : &it->second;
}

} // namespace cachelens
