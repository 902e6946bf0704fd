#include "commands.h"
#include "output.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>
#include <cachelens/explain/nearest_keys.h>
#include <cachelens/trace/trace_log.h>

#include <cstdio>
#include <iostream>
#include <optional>

namespace cachelens::cli {

namespace {

struct TraceOptions {
    std::string input; // a log file or a TORCH_TRACE dir
    std::string cache; // optional: the cache dir to link events to
    std::size_t nearest = 3;
    bool json = false;
};

// The cache dir an event is linked against: its entries, and its FX graphs as
// candidates for "why did this miss".
struct LinkedCache {
    cachedir::Scan scan;
    std::vector<explain::KeyCandidate> candidates;
};

struct EventLinks {
    std::vector<std::string> entries;      // entries of the event's key in the cache dir
    std::vector<explain::NearKey> nearest; // for a miss: the keys it came closest to
    // A miss with no graph of its family in the cache (NearestGraphs::first_compile).
    bool first_compile = false;
};

EventLinks link_event(const trace::CacheEvent& event, const LinkedCache* cache,
                      std::size_t nearest) {
    EventLinks links;
    if (cache == nullptr || event.key.empty()) {
        return links;
    }
    for (const auto& entry : cachedir::find_entries(cache->scan, event.key)) {
        links.entries.push_back(entry.path);
    }
    if (event.status != "hit" && event.cache == trace::CacheKind::FxGraph &&
        !event.components.empty()) {
        const std::vector<std::string_view> lines(event.components.begin(), event.components.end());
        auto found = explain::nearest_graphs({lines, event.key, {}, {}, true, false, {}},
                                             cache->candidates, nearest);
        links.nearest = std::move(found.nearest);
        links.first_compile = found.first_compile;
    }
    return links;
}

Json event_json(const trace::CacheEvent& event, const EventLinks& links) {
    Json nearest = Json::array();
    for (const auto& near : links.nearest) {
        nearest.push_back({{"key", near.key},
                           {"path", near.path},
                           {"shared", near.shared},
                           {"total", near.total},
                           {"verdict", near.causes.verdict},
                           {"differing", near.differing}});
    }
    Json json = {{"cache", trace::to_string(event.cache)},
                 {"status", event.status},
                 {"detailed_status", event.detailed_status},
                 {"key", event.key},
                 {"compile_id", event.compile_id},
                 {"line", event.line},
                 {"components", event.components.size()},
                 {"entries", links.entries},
                 {"nearest", std::move(nearest)},
                 {"first_compile", links.first_compile}};
    if (!event.reason.empty()) {
        json["reason"] = event.reason;
    }
    if (!event.guard_expr.empty()) {
        json["guard_expr"] = event.guard_expr;
    }
    if (event.time_taken_ns) {
        json["time_taken_ns"] = *event.time_taken_ns;
    }
    return json;
}

void print_event(const trace::CacheEvent& event, const EventLinks& links) {
    std::string status = event.status;
    if (!event.detailed_status.empty() && event.detailed_status != event.status) {
        status += " (" + event.detailed_status + ")";
    }
    std::printf("  %-12s %-22s %s\n", std::string(trace::to_string(event.cache)).c_str(),
                status.c_str(), event.key.empty() ? "(no key)" : event.key.c_str());
    if (!event.reason.empty()) {
        std::printf("      reason: %s\n", one_line(event.reason).c_str());
    }
    for (const auto& path : links.entries) {
        std::printf("      in the cache: %s\n", path.c_str());
    }
    if (links.first_compile) {
        std::printf("      first compile of this graph: no entry in the cache is this graph "
                    "compiled before\n");
        return;
    }
    for (const auto& near : links.nearest) {
        std::printf("      near %s (shares %zu/%zu): %s\n", near.key.c_str(), near.shared,
                    near.total, near.causes.verdict.c_str());
    }
}

int run_trace(const TraceOptions& options) {
    std::error_code ec;
    std::vector<trace::TraceLog> logs;
    if (std::filesystem::is_directory(options.input, ec)) {
        auto read = trace::read_trace_dir(options.input);
        if (!read) {
            return report(read.error());
        }
        logs = std::move(*read);
    } else {
        auto read = trace::read_trace_log(options.input);
        if (!read) {
            return report(read.error());
        }
        logs.push_back(std::move(*read));
    }
    std::optional<LinkedCache> cache;
    if (!options.cache.empty()) {
        auto scan = cachedir::scan_cache_dir(options.cache);
        if (!scan) {
            return report(scan.error());
        }
        std::vector<Error> unreadable;
        auto candidates = explain::fx_graph_candidates(*scan, options.cache, unreadable);
        for (const auto& error : unreadable) {
            std::cerr << "cachelens: skipped " << error.describe() << '\n';
        }
        cache = LinkedCache{std::move(*scan), std::move(candidates)};
    }
    const LinkedCache* linked = cache ? &*cache : nullptr;
    Json all_logs = Json::array();
    for (const auto& log : logs) {
        for (const auto& warning : log.warnings) {
            std::cerr << "cachelens: " << log.path << ": " << warning << '\n';
        }
        Json compiles = Json::array();
        if (!options.json) {
            std::printf("%s: %s in %s\n", log.path.c_str(),
                        plural(log.events.size(), "cache event").c_str(),
                        plural(log.compiles.size(), "compile").c_str());
        }
        for (const auto& compile : log.compiles) {
            Json events = Json::array();
            if (!options.json) {
                std::printf("\ncompile %s  %s", compile.compile_id.c_str(),
                            compile.function.empty() ? "(unknown frame)"
                                                     : compile.function.c_str());
                if (!compile.filename.empty()) {
                    std::printf("  (%s:%lld)", compile.filename.c_str(),
                                static_cast<long long>(compile.line.value_or(0)));
                }
                std::printf("\n");
                if (!compile.fail_reason.empty()) {
                    std::printf("  failed: %s %s\n", compile.fail_type.c_str(),
                                one_line(compile.fail_reason).c_str());
                }
            }
            for (std::size_t index : compile.events) {
                const auto& event = log.events[index];
                const EventLinks links = link_event(event, linked, options.nearest);
                if (options.json) {
                    events.push_back(event_json(event, links));
                } else {
                    print_event(event, links);
                }
            }
            Json counts = Json::object();
            for (const auto& [name, count] : compile.cache_counts) {
                counts[name] = count;
            }
            compiles.push_back({{"compile_id", compile.compile_id},
                                {"function", compile.function},
                                {"filename", compile.filename},
                                {"line", compile.line ? Json(*compile.line) : Json(nullptr)},
                                {"fail_type", compile.fail_type},
                                {"fail_reason", compile.fail_reason},
                                {"cache_counts", std::move(counts)},
                                {"events", std::move(events)}});
        }
        all_logs.push_back(
            {{"path", log.path}, {"warnings", log.warnings}, {"compiles", std::move(compiles)}});
        if (!options.json) {
            std::printf("\n");
        }
    }
    if (options.json) {
        print_json({{"logs", std::move(all_logs)}});
    }
    return kExitOk;
}

} // namespace

void add_trace_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<TraceOptions>();
    auto* command = app.add_subcommand(
        "trace", "Read TORCH_TRACE logs: every FX graph and AOTAutograd cache hit, miss and "
                 "bypass per compile, linked to the cache dir's entries; for a miss, the keys "
                 "it came closest to and what differs.");
    command->add_option("LOG_OR_DIR", options->input, "a trace log, or the TORCH_TRACE dir")
        ->required();
    command->add_option("--cache", options->cache, "the cache dir to link the events to");
    command->add_option("--nearest", options->nearest,
                        "how many near keys to show for a miss (default 3)");
    command->add_flag(
        "--json", options->json,
        "print {logs: [{path, warnings, compiles: [{compile_id, function, filename, "
        "line, fail_type, fail_reason, cache_counts, events: [{cache, status, "
        "detailed_status, key, compile_id, line, components, entries, nearest: [{key, "
        "path, shared, total, verdict, differing}], first_compile (a miss no cached "
        "graph is like), reason?, guard_expr?, time_taken_ns?}]}]}]}");
    command->callback([options, &exit_code] { exit_code = run_trace(*options); });
}

} // namespace cachelens::cli
