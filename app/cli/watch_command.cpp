// `cachelens watch DIR`: one line per new entry as PyTorch writes the cache
// dir (watch/cache_watch.h), until Ctrl-C, which ends it with a summary.

#include "catalog_option.h"
#include "commands.h"
#include "output.h"
#include "progress_line.h"

#include <cachelens/watch/follow.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <span>

namespace cachelens::cli {

namespace {

struct WatchOptions {
    std::string dir;
    std::string trace; // optional: a TORCH_TRACE dir being written
    bool json_lines = false;
    double seconds = 0; // 0: until Ctrl-C
    bool index = false; // keep the catalog's rows of the dir up to date
    std::string catalog;
};

// `--index`: the dir indexed once when the watch is in place, then the
// entries of each tick's completed files alone (Catalog::index_paths).
struct CatalogFollow {
    std::optional<catalog::Catalog> catalog;
    std::size_t written = 0;
    std::size_t removed = 0;
    std::optional<Error> error; // ends the watch
};

int run_watch(const WatchOptions& options) {
    // Draws nothing: it only turns Ctrl-C into the end of the watch.
    ProgressLine interrupt("watching " + options.dir, true);
    watch::FollowRequest request;
    request.cache_dir = options.dir;
    request.trace_dir = options.trace;
    request.duration = std::chrono::milliseconds(static_cast<long>(options.seconds * 1000));
    CatalogFollow indexed;
    if (options.index) {
        auto opened = open_catalog(options.catalog);
        if (!opened) {
            return report(opened.error());
        }
        indexed.catalog.emplace(std::move(*opened));
    }
    const auto index = [&](std::span<const std::string> paths) {
        if (!indexed.catalog || indexed.error) {
            return;
        }
        const auto began = std::chrono::steady_clock::now();
        auto done = paths.empty() ? indexed.catalog->index(options.dir)
                                  : indexed.catalog->index_paths(options.dir, paths);
        if (!done) {
            indexed.error = done.error();
            return;
        }
        if (options.json_lines) {
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - began;
            print_json_line({{"kind", "indexed"},
                             {"whole", paths.empty()},
                             {"files", paths.size()},
                             {"written", done->parsed},
                             {"removed", done->removed},
                             {"entries", done->entries},
                             {"seconds", took.count()}});
        }
        for (const auto& error : done->walk_errors) {
            std::fprintf(stderr, "cachelens: %s\n", error.describe().c_str());
        }
        if (!paths.empty()) {
            indexed.written += done->parsed;
            indexed.removed += done->removed;
        }
    };
    watch::FollowCallbacks callbacks;
    callbacks.completed = index;
    callbacks.started = [&](const watch::FollowStart& start) {
        if (options.json_lines) {
            print_json_line({{"watching", options.dir}, {"dirs", start.watched_dirs}});
        } else {
            std::fprintf(
                stderr, "watching %s (%zu dir%s)%s%s: Ctrl-C ends it with a summary\n",
                options.dir.c_str(), start.watched_dirs, start.watched_dirs == 1 ? "" : "s",
                options.trace.empty() ? "" : " and the trace logs in ", options.trace.c_str());
        }
        if (start.limit_note) {
            std::fprintf(stderr, "cachelens: %s\n", start.limit_note->c_str());
        }
        index({}); // what is there already; what is written meanwhile comes next
    };
    callbacks.entry = [&](const watch::WatchEvent& event) {
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
    };
    callbacks.trace = [&](const watch::TraceWatchEvent& item) {
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
    };
    callbacks.should_stop = [&] {
        return interrupt.interrupted() || indexed.error.has_value();
    };
    auto followed = watch::follow(request, callbacks);
    if (!followed) {
        return report(followed.error());
    }
    if (indexed.error) {
        return report(*indexed.error);
    }
    // "catalog /x/catalog.sqlite: 3 entries written, 0 removed since the start"
    const std::string catalog_line =
        indexed.catalog
            ? "catalog " + indexed.catalog->path().string() + ": " +
                  std::to_string(indexed.written) + (indexed.written == 1 ? " entry" : " entries") +
                  " written, " + std::to_string(indexed.removed) + " removed since the start"
            : std::string();
    const auto& summary = followed->cache;
    if (options.json_lines) {
        Json causes = Json::object();
        for (const auto& [category, count] : summary.causes) {
            causes[category] = count;
        }
        print_json_line(
            {{"summary", summary.line()},
             {"compiles", summary.compiles},
             {"recompiles", summary.recompiles},
             {"causes", std::move(causes)},
             {"aot_entries", summary.aot_entries},
             {"autotune_results", summary.autotune_results},
             {"kernels", summary.kernels},
             {"trace", followed->trace_line()},
             {"note", followed->comparison_note ? Json(*followed->comparison_note) : Json(nullptr)},
             {"catalog", indexed.catalog ? Json{{"path", indexed.catalog->path().string()},
                                                {"written", indexed.written},
                                                {"removed", indexed.removed}}
                                         : Json(nullptr)}});
    } else {
        std::printf("%s\n", summary.line().c_str());
        if (followed->traced) {
            std::printf("%s\n", followed->trace_line().c_str());
        }
        if (followed->comparison_note) {
            std::printf("(%s)\n", followed->comparison_note->c_str());
        }
        if (!catalog_line.empty()) {
            std::printf("%s\n", catalog_line.c_str());
        }
    }
    return kExitOk;
}

} // namespace

void add_watch_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<WatchOptions>();
    auto* command = app.add_subcommand(
        "watch",
        "Follow a cache dir while PyTorch writes it: one line per new entry, as it is "
        "written — a new FX graph with why it missed the nearest graph already there "
        "(or that it is a first compile), a new AOTAutograd entry, an autotune result "
        "with its winner, a Triton kernel compiled. Files are taken once renamed into "
        "place (PyTorch's temp names and Triton's tmp.* staging dirs are never read). "
        "Ctrl-C (or --seconds) ends it with a summary: \"14 compiles, 3 recompiles: 2 "
        "dynamic, 1 config; ...\". Uses inotify, one watch per dir (a Triton kernel's dir, "
        "renamed in whole, is read, not watched); dirs past the kernel's limit "
        "(fs.inotify.max_user_watches) are looked at every 10 s instead, and it says so.");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command->add_option("--trace", options->trace,
                        "also follow the TORCH_TRACE logs of this dir as they are written: one "
                        "line per AOTAutograd or FX graph cache hit, miss or bypass, with its "
                        "compile (\"trace LOG: compile 1/0 (forward at model.py:12): FX graph "
                        "cache miss f3gunfwvnc2b… (guard_miss)\")");
    command->add_flag("--json-lines", options->json_lines,
                      "print one JSON object a line: {watching, dirs}, then {kind, path, key, "
                      "recompile, line} per event ({kind: trace, log, compile_id, cache, status, "
                      "detailed_status, key, line} per trace event; with --index, {kind: "
                      "indexed, whole, files, written, removed, entries, seconds} each time the "
                      "catalog was brought up to date), then {summary, compiles, "
                      "recompiles, causes, aot_entries, autotune_results, kernels, trace, note, "
                      "catalog: {path, written, removed} with --index, else null}");
    command->add_flag("--index", options->index,
                      "keep the catalog's rows of DIR up to date while watching: DIR is indexed "
                      "once when the watch is in place, then only the entries of the files "
                      "written (milliseconds, however large the dir), so search, stats and the "
                      "GUI see them at once; files deleted meanwhile are noticed by the next "
                      "`cachelens index`");
    add_catalog_option(*command, options->catalog);
    command->add_option("--seconds", options->seconds, "stop after this long (default: Ctrl-C)");
    command->callback([options, &exit_code] { exit_code = run_watch(*options); });
}

} // namespace cachelens::cli
