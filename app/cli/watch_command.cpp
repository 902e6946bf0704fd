// `cachelens watch DIR`: one line per new entry as PyTorch writes the cache
// dir (watch/cache_watch.h), until Ctrl-C, which ends it with a summary.

#include "commands.h"
#include "output.h"
#include "progress_line.h"

#include <cachelens/watch/cache_watch.h>
#include <cachelens/watch/trace_watch.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <optional>

namespace cachelens::cli {

namespace {

struct WatchOptions {
    std::string dir;
    std::string trace; // optional: a TORCH_TRACE dir being written
    bool json_lines = false;
    double seconds = 0; // 0: until Ctrl-C
};

int run_watch(const WatchOptions& options) {
    // Watch first, then read what is there: nothing written in between is missed.
    auto watcher = watch::DirWatcher::open(options.dir);
    if (!watcher) {
        return report(watcher.error());
    }
    auto cache = watch::CacheWatch::start(options.dir);
    if (!cache) {
        return report(cache.error());
    }
    std::optional<watch::TraceWatch> trace;
    if (!options.trace.empty()) {
        auto started = watch::TraceWatch::start(options.trace, false);
        if (!started) {
            return report(started.error());
        }
        trace.emplace(std::move(*started));
    }
    // Trace events by "FX graph cache miss" and the like, for the summary.
    std::map<std::string, std::size_t> trace_counts;
    // Draws nothing: it only turns Ctrl-C into the end of the watch.
    ProgressLine interrupt("watching " + options.dir, true);
    if (options.json_lines) {
        print_json_line({{"watching", options.dir}, {"dirs", (*watcher)->watched_dirs()}});
    } else {
        const std::size_t dirs = (*watcher)->watched_dirs();
        std::fprintf(stderr, "watching %s (%zu dir%s)%s%s: Ctrl-C ends it with a summary\n",
                     options.dir.c_str(), dirs, dirs == 1 ? "" : "s",
                     trace ? " and the trace logs in " : "", trace ? options.trace.c_str() : "");
    }
    if (const auto& note = (*watcher)->limit_note()) {
        std::fprintf(stderr, "cachelens: %s\n", note->c_str());
    }
    const auto until =
        options.seconds > 0
            ? std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long>(options.seconds * 1000))
            : std::chrono::steady_clock::time_point::max();
    while (!interrupt.interrupted() && std::chrono::steady_clock::now() < until) {
        auto changed = (*watcher)->wait(std::chrono::milliseconds(200));
        if (!changed) {
            return report(changed.error());
        }
        for (const auto& event : cache->events_for(*changed)) {
            if (options.json_lines) {
                print_json_line({{"kind", watch::to_string(event.kind)},
                                 {"path", text(event.path)},
                                 {"key", text(event.key)},
                                 {"recompile", event.recompile},
                                 {"line", text(event.line)}});
            } else {
                std::printf("%s\n", event.line.c_str());
                std::fflush(stdout);
            }
        }
        if (!trace) {
            continue;
        }
        auto logged = trace->poll();
        if (!logged) {
            return report(logged.error());
        }
        for (const auto& item : *logged) {
            const std::string cache_name =
                item.event.cache == trace::CacheKind::FxGraph ? "FX graph" : "AOTAutograd";
            ++trace_counts[cache_name + " cache " + item.event.status];
            if (options.json_lines) {
                print_json_line({{"kind", "trace"},
                                 {"log", text(item.log)},
                                 {"compile_id", text(item.event.compile_id)},
                                 {"cache", trace::to_string(item.event.cache)},
                                 {"status", text(item.event.status)},
                                 {"detailed_status", text(item.event.detailed_status)},
                                 {"key", text(item.event.key)},
                                 {"line", text(item.line)}});
            } else {
                std::printf("trace %s: %s\n", item.log.c_str(), item.line.c_str());
                std::fflush(stdout);
            }
        }
    }
    std::string trace_line;
    for (const auto& [what, count] : trace_counts) {
        trace_line += (trace_line.empty() ? "trace: " : ", ") + std::to_string(count) + " " + what;
    }
    const auto& summary = cache->summary();
    if (options.json_lines) {
        Json causes = Json::object();
        for (const auto& [category, count] : summary.causes) {
            causes[category] = count;
        }
        print_json_line({{"summary", summary.line()},
                         {"compiles", summary.compiles},
                         {"recompiles", summary.recompiles},
                         {"causes", std::move(causes)},
                         {"aot_entries", summary.aot_entries},
                         {"autotune_results", summary.autotune_results},
                         {"kernels", summary.kernels},
                         {"trace", trace_line}});
    } else {
        std::printf("%s\n", summary.line().c_str());
        if (trace) {
            std::printf("%s\n",
                        trace_line.empty() ? "trace: no cache event logged" : trace_line.c_str());
        }
    }
    return kExitOk;
}

} // namespace

void add_watch_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<WatchOptions>();
    auto* command = app.add_subcommand(
        "watch", "Follow a cache dir while PyTorch writes it: one line per new entry, as it is "
                 "written — a new FX graph with why it missed the nearest graph already there "
                 "(or that it is a first compile), a new AOTAutograd entry, an autotune result "
                 "with its winner, a Triton kernel compiled. Files are taken once renamed into "
                 "place (PyTorch's temp names and Triton's tmp.* staging dirs are never read). "
                 "Ctrl-C (or --seconds) ends it with a summary: \"14 compiles, 3 recompiles: 2 "
                 "dynamic, 1 config; ...\". Uses inotify, one watch per dir: past the kernel's "
                 "limit (fs.inotify.max_user_watches) it says which changes it cannot see.");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command->add_option("--trace", options->trace,
                        "also follow the TORCH_TRACE logs of this dir as they are written: one "
                        "line per AOTAutograd or FX graph cache hit, miss or bypass, with its "
                        "compile (\"trace LOG: compile 1/0 (forward at model.py:12): FX graph "
                        "cache miss f3gunfwvnc2b… (guard_miss)\")");
    command->add_flag("--json-lines", options->json_lines,
                      "print one JSON object a line: {watching, dirs}, then {kind, path, key, "
                      "recompile, line} per event ({kind: trace, log, compile_id, cache, status, "
                      "detailed_status, key, line} per trace event), then {summary, compiles, "
                      "recompiles, causes, aot_entries, autotune_results, kernels, trace}");
    command->add_option("--seconds", options->seconds, "stop after this long (default: Ctrl-C)");
    command->callback([options, &exit_code] { exit_code = run_watch(*options); });
}

} // namespace cachelens::cli
