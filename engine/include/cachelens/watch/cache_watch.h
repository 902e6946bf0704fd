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
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cachelens::watch {

class DirWatcher {
public:
    // Watches `root` and every dir under it (symlinks not followed).
    static Result<std::unique_ptr<DirWatcher>> open(const std::filesystem::path& root);
    ~DirWatcher();
    DirWatcher(const DirWatcher&) = delete;
    DirWatcher& operator=(const DirWatcher&) = delete;

    // Waits up to `timeout` for changes: the files completed since the last
    // call, relative to the root, in the order they completed, each once
    // (a dir renamed in gives every file in it).
    Result<std::vector<std::string>> wait(std::chrono::milliseconds timeout);

    std::size_t watched_dirs() const;
    // Set when the kernel refused a watch (fs.inotify.max_user_watches):
    // files under the dirs not watched are not seen, and this says so.
    const std::optional<std::string>& limit_note() const;

private:
    struct Impl;
    explicit DirWatcher(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

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
    // What the dir holds now is known, never reported.
    static Result<CacheWatch> start(const std::filesystem::path& root);

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

private:
    struct Known;
    CacheWatch() = default;
    std::filesystem::path root_;
    std::shared_ptr<Known> known_;
    Summary summary_;
};

} // namespace cachelens::watch
