#pragma once

// Watching a cache dir fill while PyTorch writes it (`cachelens watch`):
// DirWatcher says which files were completed (inotify; a dir of its own for
// each dir, so a cache of many dirs may meet the kernel's watch limit, which
// it says), CacheWatch turns them into one event per new entry, in the order
// they completed: a new FX graph with why it missed the nearest graph already
// there, a new AOTAutograd entry, an autotune result with its winner, a
// Triton kernel compiled. Half-written files are never read: PyTorch writes
// to a temp name and renames (write_atomic), Triton fills a tmp.* dir and
// renames it into place; a file is taken when it is renamed in or closed
// after writing, and never under a temp name.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/error.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cachelens::watch {

class DirWatcher {
public:
    // Dirs past the watch limit are looked at this often instead: a stat
    // each, and a listing only of those whose mtime moved.
    static constexpr std::chrono::seconds kScanInterval{10};

    // Watches `root` and every dir under it (symlinks not followed; a Triton
    // kernel's dir, renamed into place whole, is read and not watched). At
    // most `max_watches` dirs, or as many as the kernel allows
    // (fs.inotify.max_user_watches): the dirs past that are scanned instead.
    static Result<std::unique_ptr<DirWatcher>> open(const std::filesystem::path& root,
                                                    std::size_t max_watches = SIZE_MAX);
    ~DirWatcher();
    DirWatcher(const DirWatcher&) = delete;
    DirWatcher& operator=(const DirWatcher&) = delete;

    // Waits up to `timeout` for changes: the files completed since the last
    // call, relative to the root, in the order they completed, each once
    // (a dir renamed in gives every file in it).
    Result<std::vector<std::string>> wait(std::chrono::milliseconds timeout);

    std::size_t watched_dirs() const;
    // Set when the watch limit was met: how many dirs are scanned instead,
    // and how late what is written there may show.
    const std::optional<std::string>& limit_note() const;
    // Tests: how often the dirs past the limit are scanned.
    void set_scan_interval(std::chrono::milliseconds interval) { scan_interval_ = interval; }

private:
    struct Impl;
    explicit DirWatcher(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
    std::chrono::milliseconds scan_interval_ = kScanInterval;
};

// Now, on the clock the kernel stamps file times with (CLOCK_REALTIME_COARSE,
// a tick behind the precise one): a file written after this call has an
// mtime at or after it, which the precise clock does not promise.
std::int64_t file_clock_now_ns();

struct WatchEvent {
    enum class Kind { FxGraph, AotEntry, BestConfig, TritonKernel, Other };
    Kind kind = Kind::Other;
    std::string path; // the entry, relative to the root
    std::string key;
    cachedir::Entry entry; // to open it (the GUI's Why missed, Browse)
    // The line `watch` prints: "new backward graph f5md…: dim 0 of input 1
    // became dynamic (4 -> s72) (against fugz…, this backward graph compiled
    // before)", "autotune result for triton_poi_fused_0: XBLOCK=128, …".
    std::string line;
    bool recompile = false; // an FX graph whose family was already there
};
std::string_view to_string(WatchEvent::Kind kind); // "fxgraph", "aotautograd", ...

class CacheWatch {
public:
    // A new FX graph is explained against at most this many of the graphs
    // there at the start (the most recent), and every one written since.
    static constexpr std::size_t kDefaultMaxGraphs = 2000;

    // What the dir holds now is known, never reported (an entry written in
    // the same clock tick, a few ms, may be: file_clock_now_ns()). It
    // is read in the background (a large dir takes seconds) while the dir
    // is already watched; the first events wait for it.
    static Result<CacheWatch> start(const std::filesystem::path& root,
                                    std::size_t max_graphs = kDefaultMaxGraphs);

    // The new entries among `paths` (relative to the root, as DirWatcher
    // gives them), one event each, in order; an entry already reported, or
    // there at the start, is not reported again.
    std::vector<WatchEvent> events_for(std::span<const std::string> paths);

    struct Summary {
        std::size_t compiles = 0;                  // new FX graphs
        std::size_t recompiles = 0;                // of them, graphs whose family was there
        std::map<std::string, std::size_t> causes; // recompiles by cause category
        std::size_t aot_entries = 0;
        std::size_t autotune_results = 0;
        std::size_t kernels = 0;
        // "14 compiles, 3 recompiles: 2 dynamic shape, 1 config; 40 kernels"
        std::string line() const;
    };
    const Summary& summary() const { return summary_; }
    const std::filesystem::path& root() const { return root_; }
    // Said when the dir held more FX graphs than were compared with.
    std::optional<std::string> comparison_note();

    struct Known;

private:
    CacheWatch() = default;
    Known& known();
    std::filesystem::path root_;
    std::size_t max_graphs_ = kDefaultMaxGraphs;
    std::shared_ptr<std::shared_future<Known>> starting_; // until known() took it
    std::shared_ptr<Known> known_;
    Summary summary_;
};

} // namespace cachelens::watch
