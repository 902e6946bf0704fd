#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/file_kind.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/format.h>
#include <cachelens/core/small_sort.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/entry_facts.h>
#include <cachelens/explain/nearest_keys.h>
#include <cachelens/serving/serving_tree.h>
#include <cachelens/watch/cache_watch.h>

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <future>
#include <map>
#include <set>

namespace cachelens::watch {

namespace fs = std::filesystem;

namespace {

std::string joined(std::string_view dir, std::string_view name) {
    return dir.empty() ? std::string(name) : std::string(dir) + "/" + std::string(name);
}

// A name PyTorch or Triton writes under before it renames: never complete.
bool is_in_progress(std::string_view relative) {
    std::size_t start = 0;
    while (start <= relative.size()) {
        const auto end = std::min(relative.find('/', start), relative.size());
        const std::string_view part = relative.substr(start, end - start);
        if (cachedir::is_temp_name(part) || part.starts_with("tmp.") || part.ends_with(".tmp") ||
            part.find(".tmp.pid_") != std::string_view::npos) {
            return true;
        }
        start = end + 1;
    }
    return false;
}

std::string short_key(std::string_view key) {
    return key.size() > 12 ? std::string(key.substr(0, 12)) + "…" : std::string(key);
}

} // namespace

std::int64_t file_clock_now_ns() {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
    return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// ---- DirWatcher ----

struct DirWatcher::Impl {
    // A dir not watched: what it held when last listed.
    struct Scanned {
        std::int64_t mtime_ns = 0;
        std::set<std::string> names;
    };

    fs::path root;
    int fd = -1;
    std::size_t max_watches = 0;
    std::map<int, std::string> dirs;        // watch descriptor -> dir relative to the root
    std::map<std::string, Scanned> scanned; // dirs past the limit, by path relative to the root
    std::chrono::steady_clock::time_point last_scan = std::chrono::steady_clock::now();
    std::optional<std::string> limit_note;

    ~Impl() {
        if (fd >= 0) {
            ::close(fd);
        }
    }

    static std::int64_t mtime_of(const fs::path& path) {
        struct stat info {};
        return ::stat(path.c_str(), &info) == 0
                   ? std::int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec
                   : -1;
    }

    // False when the dir is past the kernel's limit: it is scanned instead.
    bool watch_dir(const std::string& relative) {
        const fs::path path = relative.empty() ? root : root / relative;
        const int wd = dirs.size() >= max_watches
                           ? (errno = ENOSPC, -1)
                           : ::inotify_add_watch(fd, path.c_str(),
                                                 IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE |
                                                     IN_DONT_FOLLOW | IN_ONLYDIR);
        if (wd >= 0) {
            dirs[wd] = relative;
            return true;
        }
        if (errno == ENOSPC) {
            scanned[relative].mtime_ns = mtime_of(path);
            limit_note = "the kernel's limit of inotify watches (fs.inotify.max_user_watches) "
                         "was reached after " +
                         plural(dirs.size(), "dir") + ": the " + std::to_string(scanned.size()) +
                         " past it are looked at every " +
                         std::to_string(DirWatcher::kScanInterval.count()) +
                         " s instead (what is written there shows up to that late)";
        }
        return false;
    }

    // A Triton kernel's dir is renamed into place whole and never written
    // again: read once, never watched (a cache holds thousands).
    static bool written_once(const std::string& relative) {
        const auto slash = relative.rfind('/');
        return cachedir::is_triton_hash_dir_name(
                   slash == std::string::npos ? relative : relative.substr(slash + 1)) &&
               relative.find("triton") != std::string::npos;
    }

    // Watches a dir and everything under it; `found` (when given: a dir
    // that came after the start) gets its files. At the start a Triton
    // kernel's dir is not even listed: it holds nothing to watch.
    void watch_tree(const std::string& relative, std::vector<std::string>* found) {
        const bool once = written_once(relative);
        if (once && found == nullptr) {
            return;
        }
        const bool watched = once || watch_dir(relative);
        std::error_code error;
        const fs::path path = relative.empty() ? root : root / relative;
        for (fs::directory_iterator it(path, error), end; !error && it != end;
             it.increment(error)) {
            const std::string name = it->path().filename().string();
            const std::string child = joined(relative, name);
            if (!watched) {
                scanned[relative].names.insert(name);
            }
            // The types readdir gave: no stat per file.
            std::error_code type_error;
            if (it->is_symlink(type_error)) {
                continue; // never followed
            }
            if (it->is_directory(type_error)) {
                watch_tree(child, found);
            } else if (found != nullptr && it->is_regular_file(type_error) &&
                       !is_in_progress(child)) {
                found->push_back(child);
            }
        }
    }

    // The dirs past the limit whose mtime moved: their new files, and new
    // dirs taken as watch_tree takes them.
    void scan_unwatched(std::vector<std::string>& found) {
        std::vector<std::string> moved;
        for (auto& [relative, seen] : scanned) {
            const std::int64_t now = mtime_of(relative.empty() ? root : root / relative);
            if (now != seen.mtime_ns) {
                seen.mtime_ns = now;
                moved.push_back(relative);
            }
        }
        for (const auto& relative : moved) {
            std::error_code error;
            for (fs::directory_iterator it(root / relative, error), end; !error && it != end;
                 it.increment(error)) {
                const std::string name = it->path().filename().string();
                if (!scanned[relative].names.insert(name).second) {
                    continue;
                }
                const std::string child = joined(relative, name);
                std::error_code type_error;
                if (it->is_symlink(type_error)) {
                    continue;
                }
                if (it->is_directory(type_error)) {
                    watch_tree(child, &found);
                } else if (it->is_regular_file(type_error) && !is_in_progress(child)) {
                    found.push_back(child);
                } else {
                    scanned[relative].names.erase(name); // a temp name: looked at again
                }
            }
        }
    }
};

DirWatcher::DirWatcher(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

DirWatcher::~DirWatcher() = default;

Result<std::unique_ptr<DirWatcher>> DirWatcher::open(const fs::path& root,
                                                     std::size_t max_watches) {
    std::error_code error;
    if (!fs::is_directory(root, error)) {
        return fail(ErrorKind::NotFound, "not a directory", root.string());
    }
    auto impl = std::make_unique<Impl>();
    impl->root = root;
    impl->max_watches = max_watches;
    impl->fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (impl->fd < 0) {
        return fail(ErrorKind::Io, "cannot watch: " + std::generic_category().message(errno),
                    root.string());
    }
    impl->watch_tree("", nullptr);
    return std::unique_ptr<DirWatcher>(new DirWatcher(std::move(impl)));
}

std::size_t DirWatcher::watched_dirs() const {
    return impl_->dirs.size();
}

const std::optional<std::string>& DirWatcher::limit_note() const {
    return impl_->limit_note;
}

Result<std::vector<std::string>> DirWatcher::wait(std::chrono::milliseconds timeout) {
    std::vector<std::string> changed;
    pollfd ready{impl_->fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(timeout.count()));
    if (polled < 0 && errno != EINTR) {
        return fail(ErrorKind::Io, "cannot watch: " + std::generic_category().message(errno),
                    impl_->root.string());
    }
    alignas(inotify_event) char buffer[64 * 1024];
    while (true) {
        const ssize_t got = ::read(impl_->fd, buffer, sizeof buffer);
        if (got <= 0) {
            break; // EAGAIN: read it all
        }
        for (ssize_t at = 0; at < got;) {
            const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
            at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            const auto dir = impl_->dirs.find(event->wd);
            if (dir == impl_->dirs.end() || event->len == 0) {
                continue;
            }
            const std::string path = joined(dir->second, event->name);
            if (event->mask & IN_ISDIR) {
                // A new dir (made, or renamed into place): watched from now on,
                // and what it already holds is taken too: files renamed into a
                // dir just made may beat its watch, and a name that is no temp
                // name was renamed in whole.
                impl_->watch_tree(path, &changed);
                continue;
            }
            if ((event->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) && !is_in_progress(path)) {
                changed.push_back(path);
            }
        }
    }
    if (!impl_->scanned.empty() &&
        std::chrono::steady_clock::now() - impl_->last_scan >= scan_interval_) {
        impl_->scan_unwatched(changed);
        impl_->last_scan = std::chrono::steady_clock::now();
    }
    // Each once, in the order they completed.
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (auto& path : changed) {
        if (seen.insert(path).second) {
            out.push_back(std::move(path));
        }
    }
    return out;
}

// ---- CacheWatch ----

struct CacheWatch::Known {
    std::set<std::pair<cachedir::FileKind, std::string>> entries; // (kind, entry path)
    std::vector<explain::KeyCandidate> graphs;                    // FX graphs, for the causes
    std::size_t graphs_before = 0; // FX graphs in the dir at the start
    std::string serving_prefix;    // the root's path in a serving tree, "" otherwise
    bool serving = false;
};

namespace {

// What the dir holds at the start: every entry written before `start_ns`
// (never reported), and the most recent `max_graphs` FX graphs, loaded to
// explain new ones. The read runs while the dir is already watched: an
// entry written after the start is left to the events, which report it.
CacheWatch::Known read_start(const fs::path& root, std::size_t max_graphs, std::int64_t start_ns) {
    CacheWatch::Known known;
    if (const auto location = serving::locate_serving_tree(root)) {
        known.serving = true;
        known.serving_prefix = location->relative.empty() ? "" : location->relative + "/";
    }
    auto scan = cachedir::scan_cache_dir(root);
    if (!scan) {
        return known; // the dir went away meanwhile: nothing known, nothing to compare with
    }
    std::vector<std::pair<std::int64_t, std::string>> graphs; // (mtime, entry path)
    for (const auto& entry : scan->entries()) {
        if (entry.mtime_ns >= start_ns) {
            continue; // written since the start: its events report it
        }
        known.entries.insert({entry.kind, entry.path});
        if (entry.kind == cachedir::FileKind::FxGraph) {
            graphs.emplace_back(entry.mtime_ns, entry.path);
        }
    }
    known.graphs_before = graphs.size();
    // The newest first: a recompile's nearest graph is most often one of its own run's.
    std::ranges::sort(graphs, std::greater{});
    graphs.resize(std::min(graphs.size(), max_graphs));
    std::set<std::string> chosen;
    for (auto& graph : graphs) {
        chosen.insert(std::move(graph.second));
    }
    cachedir::Scan subset;
    subset.root = scan->root;
    for (auto& file : scan->files) {
        if (file.kind == cachedir::FileKind::FxGraph &&
            chosen.contains(std::string(cachedir::entry_dir_of(file.kind, file.path)))) {
            subset.files.push_back(std::move(file));
        }
    }
    std::vector<Error> unreadable;
    known.graphs = explain::fx_graph_candidates(subset, root.string(), unreadable);
    return known;
}

} // namespace

std::string_view to_string(WatchEvent::Kind kind) {
    switch (kind) {
    case WatchEvent::Kind::FxGraph:
        return "fxgraph";
    case WatchEvent::Kind::AotEntry:
        return "aotautograd";
    case WatchEvent::Kind::BestConfig:
        return "best_config";
    case WatchEvent::Kind::TritonKernel:
        return "triton";
    case WatchEvent::Kind::Other:
        return "other";
    }
    return "other";
}

Result<CacheWatch> CacheWatch::start(const fs::path& root, std::size_t max_graphs) {
    std::error_code error;
    if (!fs::is_directory(root, error)) {
        return fail(ErrorKind::NotFound, "not a directory", root.string());
    }
    CacheWatch watch;
    watch.root_ = root;
    watch.max_graphs_ = max_graphs;
    // Read beside the watch: a large dir takes seconds, and what is written
    // meanwhile is already being watched (events wait for it, never lost).
    // On the file system's clock: an entry written after this has an mtime
    // at or after it (one written in the same tick is reported, harmlessly).
    const std::int64_t start_ns = file_clock_now_ns();
    watch.starting_ = std::make_shared<std::shared_future<Known>>(
        std::async(std::launch::async, read_start, root, max_graphs, start_ns).share());
    return watch;
}

CacheWatch::Known& CacheWatch::known() {
    if (!known_) {
        known_ = std::make_shared<Known>(starting_->get());
        starting_.reset();
    }
    return *known_;
}

std::optional<std::string> CacheWatch::comparison_note() {
    const Known& now = known();
    if (now.graphs_before <= max_graphs_) {
        return std::nullopt;
    }
    return "new graphs were compared with the " + std::to_string(max_graphs_) +
           " most recent of the " + std::to_string(now.graphs_before) +
           " FX graphs the dir held at the start (and with every one written since)";
}

std::vector<WatchEvent> CacheWatch::events_for(std::span<const std::string> paths) {
    if (paths.empty()) {
        return {};
    }
    known();
    // The paths as a scan's records, so that they group into entries as a walk groups them.
    cachedir::Scan changed;
    changed.root = root_;
    for (const auto& path : paths) {
        cachedir::FileRecord record;
        record.path = path;
        record.kind = known_->serving
                          ? serving::classify_serving_path(known_->serving_prefix + path)
                          : cachedir::classify(path);
        changed.files.push_back(std::move(record));
    }
    std::vector<WatchEvent> events;
    // entries() sorts by path: put them back in the order their files completed.
    auto entries = changed.entries();
    const auto first_file = [&](const cachedir::Entry& entry) {
        for (std::size_t i = 0; i < paths.size(); ++i) {
            if (paths[i] == entry.path || paths[i].starts_with(entry.path + "/")) {
                return i;
            }
        }
        return paths.size();
    };
    // Ordered by (first file, position): stable without std::stable_sort's
    // temporary buffer, deprecated under clang with libstdc++ 12.
    std::vector<std::pair<std::size_t, std::size_t>> order;
    order.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        order.emplace_back(first_file(entries[i]), i);
    }
    std::ranges::sort(order);
    for (const auto& [completed, position] : order) {
        const auto& entry = entries[position];
        if (!known_->entries.insert({entry.kind, entry.path}).second) {
            continue; // there already, or reported
        }
        WatchEvent event;
        event.path = entry.path;
        event.key = entry.key;
        event.entry = entry;
        switch (entry.kind) {
        case cachedir::FileKind::FxGraph: {
            event.kind = WatchEvent::Kind::FxGraph;
            ++summary_.compiles;
            auto fx = cachedir::load_fx_graph_entry(root_ / entry.path);
            if (!fx) {
                event.line = "new FX graph " + short_key(entry.key) +
                             " (unreadable: " + fx.error().message + ")";
                break;
            }
            const auto role = fx->role;
            auto compared = explain::lines_to_compare(*fx);
            const explain::TargetGraph target{compared.lines, fx->key, root_.native(),
                                              entry.path,     false,   compared.from_facts,
                                              fx->written_by};
            const auto found = explain::nearest_graphs(target, known_->graphs, 1);
            event.recompile = !found.first_compile && found.family > 0;
            std::string what = std::string(cachedir::to_string(role));
            // Mid-line: the answer starts lower case; for an entry without debug
            // lines, what its entry holds says it, and what cannot be told follows.
            std::string answer =
                known_->graphs.empty()
                    ? std::string("a first compile (no FX graph in the dir before it)")
                    : (found.from_facts && found.searched > 0
                           ? explain::why_detail(found, fx->key, role) + " (PyTorch " +
                                 fx->written_by +
                                 " stores no debug lines: which input changed, `cachelens trace` "
                                 "on a TORCH_TRACE log says)"
                           : explain::why_answer(found, fx->key, role, fx->written_by));
            if (!answer.empty()) {
                answer.front() =
                    static_cast<char>(std::tolower(static_cast<unsigned char>(answer.front())));
            }
            event.line = "new " +
                         (role == cachedir::GraphRole::Unknown ? std::string() : what + " ") +
                         "graph " + short_key(fx->key) + ": " + answer;
            if (event.recompile) {
                ++summary_.recompiles;
                const auto& near = found.nearest.front();
                const std::string category =
                    near.causes.causes.empty()
                        ? std::string("other")
                        : std::string(explain::to_string(near.causes.causes.front().category));
                ++summary_.causes[category];
            }
            // Later graphs are compared with this one too.
            explain::KeyCandidate candidate;
            candidate.key = fx->key;
            candidate.dir = root_.string();
            candidate.path = entry.path;
            candidate.debug_lines = std::move(compared.lines);
            candidate.keep_alive = std::move(compared.keep_alive);
            candidate.from_facts = compared.from_facts;
            known_->graphs.push_back(std::move(candidate));
            break;
        }
        case cachedir::FileKind::AotAutograd:
            event.kind = WatchEvent::Kind::AotEntry;
            ++summary_.aot_entries;
            event.line = "new AOTAutograd entry " + short_key(entry.key);
            break;
        case cachedir::FileKind::BestConfig: {
            event.kind = WatchEvent::Kind::BestConfig;
            ++summary_.autotune_results;
            auto loaded = cachedir::load_entry(root_, entry);
            const auto* best = loaded ? std::get_if<cachedir::BestConfig>(&*loaded) : nullptr;
            event.line = "autotune result " + entry.key.substr(0, 12) + ": " +
                         (best != nullptr ? best->config.describe() : std::string("unreadable"));
            break;
        }
        case cachedir::FileKind::Triton:
            event.kind = WatchEvent::Kind::TritonKernel;
            ++summary_.kernels;
            event.line = "Triton kernel compiled: " + (entry.name.empty() ? entry.key : entry.name);
            break;
        default:
            continue; // modules, locks, libraries: said by the entries that use them
        }
        events.push_back(std::move(event));
    }
    return events;
}

std::string CacheWatch::Summary::line() const {
    std::string out = plural(compiles, "compile") + ", " + plural(recompiles, "recompile");
    if (!causes.empty()) {
        std::vector<std::pair<std::string, std::size_t>> ranked(causes.begin(), causes.end());
        stable_sort_small(ranked, [](const auto& a, const auto& b) { return a.second > b.second; });
        out += ":";
        const char* separator = " ";
        for (const auto& [category, count] : ranked) {
            out += separator + std::to_string(count) + " " + category;
            separator = ", ";
        }
    }
    out += "; " + std::to_string(aot_entries) + " AOTAutograd entries, " +
           std::to_string(autotune_results) + " autotune results, " + std::to_string(kernels) +
           " Triton kernels";
    return out;
}

} // namespace cachelens::watch
