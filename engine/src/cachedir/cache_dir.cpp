#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>
#include <cachelens/core/trash.h>
#include <cachelens/serving/serving_tree.h>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>

namespace cachelens::cachedir {

namespace fs = std::filesystem;

namespace {

std::string_view file_name_of(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view parent_of(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string_view{} : path.substr(0, slash);
}

constexpr std::string_view kAutotuneSuffix = ".autotune.json";

// triton/<device>/<hash>/<file> -> triton/<device>/<hash>
std::string_view triton_dir_of(std::string_view path) {
    return parent_of(path);
}

std::string entry_key(FileKind kind, std::string_view path) {
    const std::string_view name = file_name_of(path);
    switch (kind) {
    case FileKind::FxGraph:
    case FileKind::AotAutograd:
        return std::string(file_name_of(parent_of(path)));
    case FileKind::TritonAutotune:
        return std::string(file_name_of(parent_of(path)));
    case FileKind::SharedLibrary:
        // Triton's launchers are named alike in every hash dir: the dir tells them apart.
        if (const auto dir = file_name_of(parent_of(path)); is_triton_hash_dir_name(dir)) {
            return std::string(dir);
        }
        return std::string(stem_of(name));
    case FileKind::Module:
    case FileKind::CppSource:
    case FileKind::BestConfig:
    case FileKind::KernelPerf:
    case FileKind::Lock:
    case FileKind::KernelBinary:
    case FileKind::ObjectFile:
    case FileKind::PrecompiledHeader:
        return std::string(stem_of(name));
    case FileKind::BenchmarkCache:
    case FileKind::KeyedCacheValue:
        return std::string(name);
    case FileKind::Triton:
        return std::string(file_name_of(triton_dir_of(path)));
    default:
        return std::string(path);
    }
}

// fxgraph/<xx>/<key> or aotautograd/<key>: where PyTorch keeps a key's entries.
bool is_key_dir(std::string_view relative) {
    const auto parts = std::ranges::count(relative, '/');
    return (relative.starts_with("fxgraph/") && parts == 2) ||
           (relative.starts_with("aotautograd/") && parts == 1);
}

} // namespace

std::string coverage_line(std::size_t parse_errors, std::uint64_t unknown_files,
                          std::uint64_t unknown_bytes, std::string_view ls) {
    std::string out = parse_errors == 0
                          ? "Every entry parsed"
                          : format_count(parse_errors) +
                                (parse_errors == 1 ? " entry does" : " entries do") + " not parse";
    if (unknown_files == 0) {
        return out + ".";
    }
    out += parse_errors == 0 ? ", but " : "; and ";
    out += format_count(unknown_files) + (unknown_files == 1 ? " file" : " files") + " (" +
           format_bytes(unknown_bytes) +
           ") cachelens does not know: kind unknown, never parsed or checked";
    if (!ls.empty()) {
        out += " (largest first: " + std::string(ls) + ")";
    }
    return out + ".";
}

std::vector<std::string> nested_cache_dirs(std::span<const std::string> unknown_paths) {
    struct Counts {
        std::size_t files = 0;
        std::size_t known_below = 0;
    };
    std::map<std::string, Counts, std::less<>> by_top;
    for (const auto& path : unknown_paths) {
        const auto slash = path.find('/');
        if (slash == std::string::npos) {
            continue;
        }
        auto& counts = by_top[path.substr(0, slash)];
        ++counts.files;
        if (classify(std::string_view(path).substr(slash + 1)) != FileKind::Unknown) {
            ++counts.known_below;
        }
    }
    std::vector<std::string> dirs;
    for (const auto& [top, counts] : by_top) {
        if (counts.known_below * 2 > counts.files) {
            dirs.push_back(top);
        }
    }
    return dirs;
}

std::string nested_cache_dirs_note(std::string_view root, std::span<const std::string> dirs) {
    std::string out;
    for (const auto& dir : dirs) {
        std::string path(root);
        if (!path.empty() && path.back() != '/') {
            path += '/';
        }
        path += dir;
        out += (out.empty() ? "" : "\n") + path +
               " looks like a cache dir of its own: cachelens scan " + shell_quote(path);
    }
    return out;
}

std::string_view stem_of(std::string_view file_name) {
    return file_name.substr(0, file_name.find('.'));
}

std::string module_key_from_path(std::string_view path) {
    const auto slash = path.rfind('/');
    std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (!name.ends_with(".py") || !name.starts_with('c')) {
        return {};
    }
    name.remove_suffix(3);
    return std::string(name);
}

namespace {

// A walk of the cache dir, one open dir per level: names are looked up
// relative to their dir's descriptor, and the d_type of each dir entry tells
// dirs, symlinks and files apart, so a file costs one fstatat and a dir an
// openat, two getdents64 and a close. (std::filesystem made an lstat per file
// and dir by full path, then we made a second lstat per file: 0.5-0.7 s of a
// 60,000-file no-change re-index; fdopendir would add an fstat and two fcntl
// per dir, and a cache has a dir per FX key.)
//
// Those system calls are the walk's time, and the dirs are independent: the
// dirs of the first two levels (fxgraph/<xx>, the module shards <xx>,
// triton/<device>, ...) are tasks the walk's threads share, each walked
// depth first below that by the thread that took it.
class SharedWalk {
public:
    SharedWalk(int root_fd, const ProgressFn& progress)
        : root_fd_(root_fd)
        , progress_(progress) {}

    void add_task(std::string relative, std::size_t depth) {
        {
            std::lock_guard lock(mutex_);
            tasks_.push_back({std::move(relative), depth});
        }
        ready_.notify_one();
    }

    // The next dir to walk; nullopt once there is none and none is being
    // walked (a walk may add more), or the walk was stopped.
    struct Task {
        std::string relative;
        std::size_t depth = 0;
    };
    std::optional<Task> take() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !tasks_.empty() || busy_ == 0 || stopped(); });
        if (tasks_.empty() || stopped()) {
            return std::nullopt;
        }
        Task task = std::move(tasks_.front());
        tasks_.pop_front();
        ++busy_;
        return task;
    }
    void done_with_task() {
        {
            std::lock_guard lock(mutex_);
            --busy_;
        }
        ready_.notify_all();
    }

    int root_fd() const { return root_fd_; }
    bool stopped() const { return stopped_.load(std::memory_order_relaxed); }

    // Counts a file; every few hundred, reports the walk's progress (one
    // thread at a time). False when the callback asked to stop.
    bool counted(std::uint64_t size, const std::string& path) {
        const std::uint64_t files = files_.fetch_add(1, std::memory_order_relaxed) + 1;
        const std::uint64_t bytes = bytes_.fetch_add(size, std::memory_order_relaxed) + size;
        // A report per file would cost more than the walk.
        constexpr std::uint64_t kFilesPerReport = 256;
        if (files % kFilesPerReport != 0) {
            return !stopped();
        }
        std::lock_guard lock(progress_mutex_);
        if (!report_progress(progress_, {.stage = ProgressStage::Scanning,
                                         .unit = ProgressUnit::Files,
                                         .done = files,
                                         .total = 0,
                                         .bytes = bytes,
                                         .item = path})) {
            stop();
        }
        return !stopped();
    }
    void stop() {
        {
            // Under the lock, so that a thread about to wait sees it.
            std::lock_guard lock(mutex_);
            stopped_.store(true, std::memory_order_relaxed);
        }
        ready_.notify_all();
    }
    std::uint64_t bytes() const { return bytes_.load(); }

private:
    const int root_fd_;
    const ProgressFn& progress_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Task> tasks_;
    std::size_t busy_ = 1; // the root's walk, until it has added its tasks
    std::atomic<bool> stopped_{false};
    std::atomic<std::uint64_t> files_{0};
    std::atomic<std::uint64_t> bytes_{0};
    std::mutex progress_mutex_;
};

// One thread's part of the walk, and what it found.
class Walk {
public:
    Walk(const fs::path& root, SharedWalk& shared)
        : root_(root)
        , shared_(shared) {}

    // Walks the dir open as `fd` (closing it), `relative` to the root ("" for
    // the root itself), depth first, each subdir as it is met (or as a task,
    // in the first levels); false when the walk was stopped.
    bool walk(int fd, const std::string& relative, std::size_t depth = 0) {
        if (buffers_.size() <= depth) {
            buffers_.resize(depth + 1);
        }
        if (!buffers_[depth]) {
            buffers_[depth].reset(new char[kBufferBytes]);
        }
        // This level's buffer: the entries stay there while subdirs are walked.
        char* buffer = buffers_[depth].get();
        bool going = true;
        while (going) {
            const ssize_t got = ::getdents64(fd, buffer, kBufferBytes);
            if (got <= 0) {
                if (got < 0) {
                    error_in(relative, errno);
                }
                break;
            }
            for (ssize_t at = 0; at < got && going;) {
                const auto* item = reinterpret_cast<const dirent64*>(buffer + at);
                at += item->d_reclen;
                const std::string_view name = item->d_name;
                if (name != "." && name != "..") {
                    going = visit(fd, item->d_type, item->d_name, relative, depth);
                }
            }
        }
        ::close(fd);
        return going;
    }

    // Walks the tasks until there are none; false when the walk was stopped.
    bool walk_tasks() {
        while (auto task = shared_.take()) {
            const int fd = open_dir(task->relative);
            const bool going = fd < 0 || walk(fd, task->relative, task->depth);
            shared_.done_with_task();
            if (!going) {
                shared_.stop();
                return false;
            }
        }
        return !shared_.stopped();
    }

    // Takes the dir entry `name` of the dir open as `dir_fd` (at `relative`,
    // `depth` levels under the root): a file is recorded, a dir walked (or
    // made a task), a symlink reported. False when the walk was stopped.
    bool visit(int dir_fd, unsigned char type, const char* name, const std::string& relative,
               std::size_t depth) {
        struct stat st {};
        bool have_stat = false;
        if (type == DT_UNKNOWN || type == DT_REG) {
            // A file's size, mtime and inode; the type too where d_type is not kept.
            if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                return true; // vanished while we walked: PyTorch renames into place
            }
            have_stat = true;
            type = S_ISREG(st.st_mode)   ? DT_REG
                   : S_ISDIR(st.st_mode) ? DT_DIR
                   : S_ISLNK(st.st_mode) ? DT_LNK
                                         : DT_UNKNOWN;
        }
        if (type == DT_LNK) {
            errors.push_back({ErrorKind::Unsupported,
                              "symbolic link not followed (a cache dir holds none)",
                              full_path(joined(relative, name))});
            return true;
        }
        if (type == DT_DIR) {
            if (is_cachelens_work_dir(name)) {
                return true; // cachelens's own trash or staging: no cache file
            }
            std::string path = joined(relative, name);
            if (is_key_dir(path)) {
                key_dirs.push_back(path);
            }
            if (depth + 1 <= kTaskDepth) {
                shared_.add_task(std::move(path), depth + 1);
                return !shared_.stopped();
            }
            const int fd = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) {
                // Gone meanwhile, or not ours to read: skipped, as before.
                if (errno != ENOENT && errno != EACCES && errno != EPERM) {
                    error_in(path, errno);
                }
                return true;
            }
            return walk(fd, path, depth + 1);
        }
        if (type != DT_REG || !have_stat) {
            return true; // sockets, fifos, devices: no cache file
        }
        FileRecord record;
        record.path = joined(relative, name);
        record.kind = classify(record.path);
        record.size = static_cast<std::uint64_t>(st.st_size);
        record.mtime_ns =
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
        record.inode = static_cast<std::uint64_t>(st.st_ino);
        files.push_back(std::move(record));
        return shared_.counted(files.back().size, files.back().path);
    }

    // Opens the dir at `relative` one component at a time from the root,
    // never through a symlink (one put there since the dir was seen is not
    // followed). -1 when it is gone or not ours to read (skipped, as in the
    // walk); other failures are recorded.
    int open_dir(const std::string& relative) {
        int fd = shared_.root_fd();
        std::size_t start = 0;
        while (start <= relative.size()) {
            const std::size_t slash = std::min(relative.find('/', start), relative.size());
            const std::string part = relative.substr(start, slash - start);
            const int next =
                ::openat(fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            const int error = errno;
            if (fd != shared_.root_fd()) {
                ::close(fd);
            }
            if (next < 0) {
                if (error != ENOENT && error != EACCES && error != EPERM && error != ENOTDIR) {
                    error_in(relative, error);
                }
                return -1;
            }
            fd = next;
            start = slash + 1;
        }
        return fd;
    }

    std::vector<FileRecord> files;
    std::vector<Error> errors;
    std::vector<std::string> key_dirs;

private:
    // Dirs above this depth are tasks: a cache fans out in its first two levels.
    static constexpr std::size_t kTaskDepth = 2;

    static std::string joined(const std::string& relative, std::string_view name) {
        std::string path;
        path.reserve(relative.size() + 1 + name.size());
        if (!relative.empty()) {
            path += relative;
            path += '/';
        }
        path += name;
        return path;
    }

    std::string full_path(const std::string& relative) const {
        return relative.empty() ? root_.string() : (root_ / relative).string();
    }

    void error_in(const std::string& relative, int error) {
        errors.push_back({ErrorKind::Io, "cannot read: " + std::generic_category().message(error),
                          full_path(relative)});
    }

    static constexpr std::size_t kBufferBytes = 32 * 1024;
    const fs::path& root_;
    SharedWalk& shared_;
    std::vector<std::unique_ptr<char[]>> buffers_; // one per depth
};

} // namespace

namespace {

// Puts a walk's files in path order and, in a vLLM or SGLang tree, gives
// them their kinds there: a file's kind depends on where it sits in the tree
// (its inner Inductor and Triton caches, the servers' own files).
void sort_and_classify_in_tree(Scan& scan) {
    std::sort(scan.files.begin(), scan.files.end(),
              [](const FileRecord& a, const FileRecord& b) { return a.path < b.path; });
    if (const auto serving = serving::locate_serving_tree(scan.root)) {
        scan.serving = serving::layout_of(serving->stack);
        const std::string prefix = serving->relative.empty() ? "" : serving->relative + "/";
        for (FileRecord& file : scan.files) {
            file.kind = serving::classify_serving_path(prefix + file.path);
        }
    }
}

} // namespace

Result<Scan> scan_cache_dir(const fs::path& root, const ProgressFn& progress) {
    std::error_code ec;
    const auto status = fs::symlink_status(root, ec);
    if (ec || !fs::exists(status)) {
        return fail(ErrorKind::NotFound, "no such cache dir", root.string());
    }
    if (!fs::is_directory(fs::status(root, ec))) {
        return fail(ErrorKind::InvalidArgument, "not a directory", root.string());
    }
    Scan scan;
    scan.root = root;
    if (!report_progress(progress, {.stage = ProgressStage::Scanning,
                                    .unit = ProgressUnit::Files,
                                    .done = 0,
                                    .total = 0,
                                    .bytes = 0,
                                    .item = root.native()})) {
        return cancelled();
    }
    // The root itself may be a symlink to the cache dir: followed.
    const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0 && errno != EACCES && errno != EPERM) {
        return fail(ErrorKind::Io,
                    "cannot read the cache dir: " + std::generic_category().message(errno),
                    root.string());
    }
    // An unreadable root is an empty one, as an unreadable subdir is skipped.
    std::vector<std::string> key_dirs;
    std::uint64_t bytes = 0;
    if (root_fd >= 0) {
        // The root's own walk closes what it walks: a second descriptor of
        // it, the first staying open for the tasks' paths.
        const int own_fd = ::fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
        if (own_fd < 0) {
            const int error = errno;
            ::close(root_fd);
            return fail(ErrorKind::Io,
                        "cannot read the cache dir: " + std::generic_category().message(error),
                        root.string());
        }
        SharedWalk shared(root_fd, progress);
        // A walker a core, at most four.
        const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
        std::vector<Walk> walks;
        walks.reserve(threads);
        for (unsigned i = 0; i < threads; ++i) {
            walks.emplace_back(root, shared);
        }
        // The root's own walk adds the first level's dirs as tasks.
        if (!walks[0].walk(own_fd, {})) {
            shared.stop();
        }
        shared.done_with_task();
        std::vector<std::thread> helpers;
        for (unsigned i = 1; i < threads; ++i) {
            helpers.emplace_back([&walk = walks[i]] { walk.walk_tasks(); });
        }
        walks[0].walk_tasks();
        for (auto& helper : helpers) {
            helper.join();
        }
        ::close(root_fd);
        if (shared.stopped()) {
            return cancelled();
        }
        bytes = shared.bytes();
        for (auto& walk : walks) {
            std::ranges::move(walk.files, std::back_inserter(scan.files));
            std::ranges::move(walk.errors, std::back_inserter(scan.errors));
            std::ranges::move(walk.key_dirs, std::back_inserter(key_dirs));
        }
        // In path order, whichever thread met them.
        std::ranges::sort(scan.errors, [](const Error& a, const Error& b) {
            return std::tie(a.path, a.message) < std::tie(b.path, b.message);
        });
    }
    if (!report_progress(progress, {.stage = ProgressStage::Scanning,
                                    .unit = ProgressUnit::Files,
                                    .done = scan.files.size(),
                                    .total = scan.files.size(),
                                    .bytes = bytes,
                                    .item = {}})) {
        return cancelled();
    }
    sort_and_classify_in_tree(scan);
    std::set<std::string_view> with_entries;
    for (const FileRecord& file : scan.files) {
        if (file.kind == FileKind::FxGraph || file.kind == FileKind::AotAutograd) {
            with_entries.insert(parent_of(file.path));
        }
    }
    for (auto& dir : key_dirs) {
        if (!with_entries.contains(dir)) {
            scan.empty_key_dirs.push_back(std::move(dir));
        }
    }
    std::sort(scan.empty_key_dirs.begin(), scan.empty_key_dirs.end());
    return scan;
}

Result<PartScan> scan_cache_paths(const fs::path& root, std::span<const std::string> paths) {
    std::error_code ec;
    if (!fs::is_directory(fs::status(root, ec))) {
        return fail(ErrorKind::NotFound, "no such cache dir", root.string());
    }
    PartScan part;
    part.scan.root = root;
    // The kind a path has in this dir (in a serving tree, where it sits there).
    const auto serving = serving::locate_serving_tree(root);
    const std::string prefix =
        serving && !serving->relative.empty() ? serving->relative + "/" : std::string();
    const auto kind_of = [&](const std::string& path) {
        return serving ? serving::classify_serving_path(prefix + path) : classify(path);
    };
    const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        return fail(ErrorKind::Io,
                    "cannot read the cache dir: " + std::generic_category().message(errno),
                    root.string());
    }
    std::set<std::string> dirs;
    std::set<std::string> files;
    for (const std::string& given : paths) {
        // Relative, inside the root: a watcher's paths, never a way out of it.
        const fs::path normal = fs::path(given).lexically_normal();
        std::string path = normal.generic_string();
        while (path.ends_with('/')) {
            path.pop_back();
        }
        if (path.empty() || path == "." || normal.is_absolute() || path == ".." ||
            path.starts_with("../")) {
            ::close(root_fd);
            return fail(ErrorKind::InvalidArgument, "not a path inside the cache dir: " + given,
                        root.string());
        }
        struct stat st {};
        if (::fstatat(root_fd, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(st.st_mode)) {
            dirs.insert(path); // every entry under it
        } else if (const std::string_view dir = entry_dir_of(kind_of(path), path); !dir.empty()) {
            dirs.emplace(dir); // a dir kept as one entry: read whole
        } else {
            files.insert(std::move(path));
        }
    }
    // A dir under another dir, or a file under one, is read with it.
    const auto under = [&](const std::string& path) {
        for (std::size_t slash = path.find('/'); slash != std::string::npos;
             slash = path.find('/', slash + 1)) {
            if (dirs.contains(path.substr(0, slash))) {
                return true;
            }
        }
        return false;
    };
    std::erase_if(dirs, under);
    std::erase_if(files, under);

    const ProgressFn no_progress;
    SharedWalk shared(root_fd, no_progress);
    Walk walk(root, shared);
    const auto depth_of = [](std::string_view path) {
        return static_cast<std::size_t>(std::ranges::count(path, '/')) + 1;
    };
    for (const std::string& dir : dirs) {
        if (const int fd = walk.open_dir(dir); fd >= 0) {
            walk.walk(fd, dir, depth_of(dir));
        }
    }
    for (const std::string& file : files) {
        const std::size_t slash = file.rfind('/');
        const std::string parent = slash == std::string::npos ? "" : file.substr(0, slash);
        const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
        const int fd =
            parent.empty() ? ::fcntl(root_fd, F_DUPFD_CLOEXEC, 0) : walk.open_dir(parent);
        if (fd >= 0) {
            walk.visit(fd, DT_UNKNOWN, name.c_str(), parent, parent.empty() ? 0 : depth_of(parent));
            ::close(fd);
        }
    }
    shared.done_with_task();
    walk.walk_tasks(); // the dirs a shallow one added as tasks
    ::close(root_fd);
    part.scan.files = std::move(walk.files);
    part.scan.errors = std::move(walk.errors);
    sort_and_classify_in_tree(part.scan);
    part.dirs.assign(dirs.begin(), dirs.end());
    part.files.assign(files.begin(), files.end());
    return part;
}

std::string_view entry_dir_of(FileKind kind, std::string_view path) {
    const auto first_parts = [&](std::size_t count) {
        std::size_t end = 0;
        for (std::size_t i = 0; i < count; ++i) {
            end = path.find('/', end == 0 && i == 0 ? 0 : end + 1);
            if (end == std::string_view::npos) {
                return std::string_view{};
            }
        }
        return path.substr(0, end);
    };
    switch (kind) {
    case FileKind::Triton:
        return triton_dir_of(path);
    case FileKind::AotiOutput:
        return first_parts(1);
    case FileKind::Halide:
        return path.starts_with("halide-runtime-") ? first_parts(1) : first_parts(2);
    case FileKind::DebugCopy:
        return first_parts(2);
    case FileKind::Precompile:
        // A DynamoCache dir dynamo/<key>/; vLLM's per-rank files are one entry each.
        return path.starts_with("dynamo/") ? first_parts(2) : std::string_view{};
    default:
        return {};
    }
}

std::vector<Entry> Scan::entries() const {
    std::vector<Entry> out;
    out.reserve(files.size());
    // (kind, dir) -> its entry in `out`: a dir's files need not be adjacent
    // (a lock inside it sorts among them).
    std::map<std::pair<FileKind, std::string_view>, std::size_t> dirs;
    for (const FileRecord& file : files) {
        if (const std::string_view dir = entry_dir_of(file.kind, file.path); !dir.empty()) {
            const auto [found, added] = dirs.try_emplace({file.kind, dir}, out.size());
            if (added) {
                Entry entry;
                entry.kind = file.kind;
                entry.path = std::string(dir);
                entry.key = std::string(file_name_of(dir));
                entry.file_count = 0;
                out.push_back(std::move(entry));
            }
            Entry& entry = out[found->second];
            entry.size += file.size;
            entry.mtime_ns = std::max(entry.mtime_ns, file.mtime_ns);
            ++entry.file_count;
            const std::string_view name = file_name_of(file.path);
            if (file.kind != FileKind::Triton) {
                continue;
            }
            if (name.ends_with(".json") && !is_triton_group_file_name(name)) {
                entry.name = std::string(name.substr(0, name.size() - 5));
            } else if (entry.name.empty() && name.ends_with(".cubin")) {
                entry.name = std::string(name.substr(0, name.size() - 6));
            }
            continue;
        }
        Entry entry;
        entry.kind = file.kind;
        entry.key = entry_key(file.kind, file.path);
        entry.path = file.path;
        entry.size = file.size;
        entry.mtime_ns = file.mtime_ns;
        if (file.kind == FileKind::TritonAutotune) {
            const std::string_view name = file_name_of(file.path);
            entry.name = std::string(name.substr(0, name.size() - kAutotuneSuffix.size()));
        } else if (file.kind == FileKind::KeyedCacheValue) {
            entry.name = std::string(file_name_of(parent_of(file.path))); // the cache's name
        }
        out.push_back(std::move(entry));
    }
    // Dir entries were placed at their first file; the list stays in path order.
    std::ranges::sort(out, {}, &Entry::path); // paths are unique: no order to keep
    return out;
}

RootLayout Scan::layout() const {
    if (serving) {
        return *serving;
    }
    bool hash_dirs = false;
    for (const FileRecord& file : files) {
        const std::string_view top = std::string_view(file.path).substr(0, file.path.find('/'));
        if (top.size() == file.path.size()) {
            continue; // a file at the top: neither layout has one
        }
        if (is_triton_hash_dir_name(top)) {
            hash_dirs = true;
        } else if (file.kind != FileKind::Temp && file.kind != FileKind::Unknown) {
            return RootLayout::Inductor;
        }
    }
    return hash_dirs ? RootLayout::Triton : RootLayout::Inductor;
}

std::map<FileKind, KindSummary> Scan::summary() const {
    std::map<FileKind, KindSummary> out;
    for (const FileRecord& file : files) {
        auto& summary = out[file.kind];
        ++summary.files;
        summary.bytes += file.size;
    }
    for (const Entry& entry : entries()) {
        ++out[entry.kind].entries;
    }
    return out;
}

EntryQuery::EntryQuery(const fs::path& root, std::string_view query)
    : query_(query)
    , relative_(query) {
    while (relative_.size() > 1 && relative_.ends_with('/')) {
        relative_.pop_back();
    }
    // An absolute path (or one spelled with the root) inside the cache dir.
    const fs::path as_path(relative_);
    if (as_path.is_absolute() || (!root.empty() && relative_.starts_with(root.string()))) {
        std::error_code ec;
        const fs::path absolute = fs::weakly_canonical(as_path, ec);
        const fs::path canonical_root = fs::weakly_canonical(root, ec);
        const fs::path inside = absolute.lexically_relative(canonical_root);
        if (!inside.empty() && !inside.string().starts_with("..")) {
            relative_ = inside.generic_string();
        }
    }
}

EntryQuery::Match EntryQuery::match(const Entry& entry) const {
    if (entry.path == relative_ ||
        (entry.kind == FileKind::Triton && relative_.starts_with(entry.path + "/"))) {
        return Match::Path;
    }
    const bool key_match = entry.key == query_;
    const bool name_match =
        (entry.kind == FileKind::Triton || entry.kind == FileKind::TritonAutotune) &&
        entry.name == query_;
    // A key dir (fxgraph/xx/<key>) names every entry under it.
    const bool dir_match =
        (entry.kind == FileKind::FxGraph || entry.kind == FileKind::AotAutograd) &&
        parent_of(entry.path) == relative_;
    return key_match || name_match || dir_match ? Match::Key : Match::None;
}

std::string EntryQuery::search_key() const {
    if (relative_.find('/') == std::string::npos) {
        return query_;
    }
    const FileKind kind = classify(relative_);
    if (kind != FileKind::Unknown && kind != FileKind::Temp) {
        return entry_key(kind, relative_);
    }
    // A key dir (fxgraph/xx/<key>, aotautograd/<key>) or a Triton kernel dir
    // (triton/<device>/<hash>, <hash> in a Triton cache): the key is its name.
    return std::string(file_name_of(relative_));
}

std::vector<Entry> find_entries(const Scan& scan, std::string_view query) {
    const EntryQuery wanted(scan.root, query);
    std::vector<Entry> matches;
    for (Entry& entry : scan.entries()) {
        if (wanted.match(entry) != EntryQuery::Match::None) {
            matches.push_back(std::move(entry));
        }
    }
    return matches;
}

Result<std::vector<Entry>> find_entries_or_key_prefix(const Scan& scan, std::string_view query) {
    auto matches = find_entries(scan, query);
    if (!matches.empty() || query.size() < kMinKeyPrefix ||
        query.find('/') != std::string_view::npos) {
        return matches;
    }
    std::set<std::string> keys;
    for (const Entry& entry : scan.entries()) {
        if (entry.key.starts_with(query)) {
            keys.insert(entry.key);
        }
    }
    if (keys.size() == 1) {
        return find_entries(scan, *keys.begin());
    }
    if (keys.size() > 1) {
        constexpr std::size_t kListed = 10;
        std::string listed;
        std::size_t shown = 0;
        for (const auto& key : keys) {
            if (shown++ == kListed) {
                listed += "\n  (and " + std::to_string(keys.size() - kListed) + " others)";
                break;
            }
            listed += "\n  " + key;
        }
        return fail(ErrorKind::InvalidArgument,
                    "'" + std::string(query) + "' is the start of " + std::to_string(keys.size()) +
                        " keys; give more of one:" + listed,
                    scan.root.string());
    }
    return matches;
}

Result<std::vector<Entry>> resolve_entries(const Scan& scan, std::string_view query) {
    auto found = find_entries_or_key_prefix(scan, query);
    if (!found || !found->empty()) {
        return found;
    }
    const std::string quoted = "'" + std::string(query) + "'";
    if (const std::string empty_dir = empty_key_dir_named(scan, query); !empty_dir.empty()) {
        return fail(ErrorKind::NotFound, no_entries_message(empty_dir), scan.root.string());
    }
    if (query.size() < kMinKeyPrefix && query.find('/') == std::string_view::npos) {
        return fail(ErrorKind::NotFound,
                    fmt::format("{} is too short to name a key: give a key or at least {} of its "
                                "first characters, a kernel name, or a path in the dir",
                                quoted, kMinKeyPrefix),
                    scan.root.string());
    }
    return fail(ErrorKind::NotFound,
                "nothing matches " + quoted +
                    ": give a key (or at least 4 of its first characters), a kernel name, or a "
                    "path in the dir",
                scan.root.string());
}

std::string empty_key_dir_named(const Scan& scan, std::string_view query) {
    const EntryQuery wanted(scan.root, query);
    for (const auto& dir : scan.empty_key_dirs) {
        if (dir == wanted.relative() || file_name_of(dir) == query) {
            return dir;
        }
    }
    return {};
}

std::string no_entries_message(std::string_view key_dir) {
    return "no entries under key " + std::string(file_name_of(key_dir)) + " (its dir " +
           std::string(key_dir) + " is empty)";
}

std::string empty_key_dir_note(std::string_view key_dir) {
    return std::string(key_dir) + ": empty key dir (no entries), skipped";
}

} // namespace cachelens::cachedir
