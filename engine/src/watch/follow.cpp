#include <cachelens/watch/follow.h>

namespace cachelens::watch {

std::string FollowSummary::trace_line() const {
    if (!traced) {
        return {};
    }
    if (trace_counts.empty()) {
        return "trace: no cache event logged";
    }
    std::string line;
    for (const auto& [what, count] : trace_counts) {
        line += (line.empty() ? "trace: " : ", ") + std::to_string(count) + " " + what;
    }
    return line;
}

Result<FollowSummary> follow(const FollowRequest& request, const FollowCallbacks& callbacks) {
    // Watch first, then read what is there: nothing written in between is missed.
    auto watcher = DirWatcher::open(request.cache_dir);
    if (!watcher) {
        return std::unexpected(watcher.error());
    }
    auto cache = CacheWatch::start(request.cache_dir);
    if (!cache) {
        return std::unexpected(cache.error());
    }
    std::optional<TraceWatch> trace;
    if (!request.trace_dir.empty()) {
        auto started = TraceWatch::start(request.trace_dir, false);
        if (!started) {
            return std::unexpected(started.error());
        }
        trace.emplace(std::move(*started));
    }
    FollowSummary summary;
    summary.traced = trace.has_value();
    if (callbacks.started) {
        callbacks.started({(*watcher)->watched_dirs(), (*watcher)->limit_note()});
    }
    const auto until = request.duration.count() > 0
                           ? std::chrono::steady_clock::now() + request.duration
                           : std::chrono::steady_clock::time_point::max();
    while (!(callbacks.should_stop && callbacks.should_stop()) &&
           std::chrono::steady_clock::now() < until) {
        auto changed = (*watcher)->wait(request.tick);
        if (!changed) {
            return std::unexpected(changed.error());
        }
        if (callbacks.completed && !changed->empty()) {
            callbacks.completed(*changed);
        }
        for (const auto& event : cache->events_for(*changed)) {
            if (callbacks.entry) {
                callbacks.entry(event);
            }
        }
        if (!trace) {
            continue;
        }
        auto logged = trace->poll();
        if (!logged) {
            return std::unexpected(logged.error());
        }
        for (const auto& item : *logged) {
            const std::string cache_name =
                item.event.cache == trace::CacheKind::FxGraph ? "FX graph" : "AOTAutograd";
            ++summary.trace_counts[cache_name + " cache " + item.event.status];
            if (callbacks.trace) {
                callbacks.trace(item);
            }
        }
    }
    summary.cache = cache->summary();
    summary.comparison_note = cache->comparison_note();
    return summary;
}

} // namespace cachelens::watch
