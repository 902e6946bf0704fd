#pragma once

// Following a run as it happens, the one loop behind `cachelens watch` and
// the GUI's Live page: a cache dir's new entries (DirWatcher + CacheWatch)
// and, when given, a TORCH_TRACE dir's cache events (TraceWatch), each
// handed over as it is read, until asked to stop or the time is up.

#include <cachelens/core/error.h>
#include <cachelens/watch/cache_watch.h>
#include <cachelens/watch/trace_watch.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>

namespace cachelens::watch {

struct FollowRequest {
    std::filesystem::path cache_dir;
    std::filesystem::path trace_dir;       // empty: no trace followed
    std::chrono::milliseconds duration{0}; // 0: until stopped
    std::chrono::milliseconds tick{200};   // how long one wait for changes lasts
};

struct FollowStart {
    std::size_t watched_dirs = 0;
    std::optional<std::string> limit_note; // the kernel's watch limit was met
};

struct FollowSummary {
    CacheWatch::Summary cache;
    // Trace events by "FX graph cache miss" and the like.
    std::map<std::string, std::size_t> trace_counts;
    bool traced = false; // a trace dir was followed
    // When the dir held more FX graphs than new ones were compared with.
    std::optional<std::string> comparison_note;
    // "trace: 3 FX graph cache miss, 1 AOTAutograd cache hit"; empty with no trace.
    std::string trace_line() const;
};

struct FollowCallbacks {
    std::function<void(const FollowStart&)> started; // once, when watching
    // The files completed in the cache dir in one tick (relative to it), as
    // DirWatcher gives them, before their entries' events: to index them
    // (Catalog::index_paths).
    std::function<void(std::span<const std::string>)> completed;
    std::function<void(const WatchEvent&)> entry;      // a new cache entry
    std::function<void(const TraceWatchEvent&)> trace; // a new trace cache event
    std::function<bool()> should_stop;                 // asked every tick
};

// Errors: a dir that cannot be watched or read (named), before or while
// following; what was seen until then was already handed over.
Result<FollowSummary> follow(const FollowRequest& request, const FollowCallbacks& callbacks);

} // namespace cachelens::watch
