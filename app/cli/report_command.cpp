#include "commands.h"
#include "output.h"
#include "progress_line.h"

#include <cachelens/core/text.h>
#include <cachelens/trace/warm_start.h>
#include <cachelens/watch/trace_watch.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

namespace cachelens::cli {

namespace {

struct ReportOptions {
    std::string input; // a log file or a TORCH_TRACE dir
    std::string cache; // optional: the cache dir to find each miss's cause against
    bool json = false;
    bool follow = false;
    double seconds = 0; // --follow: 0 until Ctrl-C
};

Json optional_ns(const std::optional<std::int64_t>& ns) {
    return ns ? Json(*ns) : Json(nullptr);
}

std::string time_text(const std::optional<std::int64_t>& ns) {
    return ns ? format_duration_ns(*ns) : std::string("-");
}

Json summary_json(const trace::WarmStartSummary& summary) {
    Json causes = Json::object();
    for (const auto& [category, count] : summary.causes) {
        causes[category] = count;
    }
    return {{"line", summary.line()},
            {"compiles", summary.compiles},
            {"hits", summary.hits},
            {"misses", summary.misses},
            {"without_cache_events", summary.unlogged},
            {"causes", std::move(causes)},
            {"total_ns", summary.total_ns},
            {"miss_ns", summary.miss_ns}};
}

Json compile_json(const trace::TraceLog& log, const trace::CompileWarmStart& compile) {
    Json layers = Json::array();
    for (const auto& layer : compile.layers) {
        layers.push_back({{"layer", trace::to_string(layer.layer)},
                          {"outcome", trace::to_string(layer.outcome)},
                          {"detail", text(layer.detail)},
                          {"time_ns", optional_ns(layer.time_ns)}});
    }
    Json events = Json::array();
    for (const std::size_t index : compile.events) {
        const auto& event = log.events[index];
        events.push_back({{"cache", trace::to_string(event.cache)},
                          {"status", event.status},
                          {"key", text(event.key)},
                          {"line", event.line}});
    }
    Json cause = nullptr;
    if (compile.cause) {
        cause = {{"category", compile.cause->category},
                 {"text", text(compile.cause->text)},
                 {"key", text(compile.cause->key)},
                 {"nearest_key", text(compile.cause->nearest_key)}};
    }
    return {{"compile_id", text(compile.compile_id)},
            {"function", text(compile.function)},
            {"filename", text(compile.filename)},
            {"line", compile.line ? Json(*compile.line) : Json(nullptr)},
            {"total_ns", optional_ns(compile.total_ns)},
            {"missed", compile.missed},
            {"cause", std::move(cause)},
            {"fail_reason", text(compile.fail_reason)},
            {"layers", std::move(layers)},
            {"events", std::move(events)}};
}

void print_compile(const trace::CompileWarmStart& compile) {
    std::printf("\ncompile %s  %s", compile.compile_id.c_str(),
                compile.function.empty() ? "(unknown frame)" : compile.function.c_str());
    if (!compile.filename.empty()) {
        std::printf("  (%s:%lld)", compile.filename.c_str(),
                    static_cast<long long>(compile.line.value_or(0)));
    }
    const char* verdict = compile.missed               ? "missed"
                          : compile.has_cache_events() ? "hit"
                                                       : "no cache events";
    std::printf("  %s, %s\n", time_text(compile.total_ns).c_str(), verdict);
    if (compile.cause) {
        std::printf("  cause: %s\n", compile.cause->text.c_str());
        if (!compile.cause->nearest_key.empty()) {
            std::printf("    %s against %s\n", compile.cause->key.c_str(),
                        compile.cause->nearest_key.c_str());
        }
    }
    if (!compile.fail_reason.empty()) {
        std::printf("  failed: %s\n", one_line(compile.fail_reason).c_str());
    }
    for (const auto& layer : compile.layers) {
        std::printf("  %-18s %-12s %10s  %s\n",
                    std::string(trace::layer_title(layer.layer)).c_str(),
                    std::string(trace::outcome_label(layer.layer, layer.outcome)).c_str(),
                    time_text(layer.time_ns).c_str(), layer.detail.c_str());
    }
}

// `report --follow DIR`: each compile as soon as its log has gone past it
// (a later compile began there), then the summary so far; Ctrl-C (or
// --seconds) prints the last compiles and the summary of everything read.
int run_follow(const ReportOptions& options) {
    auto watch = watch::TraceWatch::start(options.input, true);
    if (!watch) {
        return report(watch.error());
    }
    ProgressLine interrupt("following " + options.input, true);
    if (!options.json) {
        std::fprintf(stderr, "following %s: Ctrl-C ends it with the summary\n",
                     options.input.c_str());
    }
    const auto until =
        options.seconds > 0
            ? std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long>(options.seconds * 1000))
            : std::chrono::steady_clock::time_point::max();
    std::set<std::pair<std::string, std::string>> printed; // (log, compile id)
    std::set<std::string> warned;
    std::string last_log; // of the last compile printed
    std::optional<trace::WarmStartSummary> summary;
    bool first = true;
    bool last_pass = false;
    while (true) {
        last_pass = interrupt.interrupted() || std::chrono::steady_clock::now() >= until;
        auto analysis = watch::follow_warm_start(*watch, options.cache, first || last_pass);
        if (!analysis) {
            return report(analysis.error());
        }
        if (!*analysis) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            continue;
        }
        first = false;
        const trace::WarmStartAnalysis& current = **analysis;
        for (const auto& error : current.skipped) {
            if (warned.insert(error.describe()).second) {
                std::cerr << "cachelens: skipped " << error.describe() << '\n';
            }
        }
        bool printed_any = false;
        for (std::size_t i = 0; i < current.reports.size(); ++i) {
            const auto& compiles = current.reports[i].compiles;
            for (std::size_t c = 0; c < compiles.size(); ++c) {
                // The last compile of a log may still be logging its layers.
                if ((c + 1 == compiles.size() && !last_pass) ||
                    !printed.emplace(current.reports[i].path, compiles[c].compile_id).second) {
                    continue;
                }
                printed_any = true;
                if (options.json) {
                    print_json_line({{"log", text(current.reports[i].path)},
                                     {"compile", compile_json(current.logs[i], compiles[c])}});
                } else {
                    if (current.reports[i].path != last_log) {
                        last_log = current.reports[i].path;
                        std::printf("\n%s:\n", last_log.c_str());
                    }
                    print_compile(compiles[c]);
                }
            }
        }
        summary = current.summary;
        if (printed_any && !options.json && !last_pass) {
            std::printf("so far: %s\n", summary->line().c_str());
        }
        std::fflush(stdout);
        if (last_pass) {
            break;
        }
    }
    if (options.json) {
        print_json_line({{"summary", summary_json(*summary)}});
    } else {
        std::printf("\n%s\n", summary->line().c_str());
    }
    return kExitOk;
}

int run_report(const ReportOptions& options) {
    if (options.follow) {
        return run_follow(options);
    }
    auto analysis = trace::analyze_warm_start(options.input, options.cache);
    if (!analysis) {
        return report(analysis.error());
    }
    for (const auto& error : analysis->skipped) {
        std::cerr << "cachelens: skipped " << error.describe() << '\n';
    }
    for (const auto& log : analysis->logs) {
        for (const auto& warning : log.warnings) {
            std::cerr << "cachelens: " << log.path << ": " << warning << '\n';
        }
    }
    const auto& logs = analysis->logs;
    const auto& reports = analysis->reports;
    const trace::WarmStartSummary& summary = analysis->summary;
    if (options.json) {
        Json all_logs = Json::array();
        for (std::size_t i = 0; i < reports.size(); ++i) {
            Json compiles = Json::array();
            for (const auto& compile : reports[i].compiles) {
                compiles.push_back(compile_json(logs[i], compile));
            }
            all_logs.push_back({{"path", text(reports[i].path)},
                                {"warnings", reports[i].warnings},
                                {"vllm", reports[i].vllm},
                                {"compiles", std::move(compiles)}});
        }
        print_json({{"summary", summary_json(summary)}, {"logs", std::move(all_logs)}});
        return kExitOk;
    }
    // The answer first, in one line; the compiles after.
    std::printf("%s\n", summary.line().c_str());
    for (const auto& warm_start : reports) {
        std::printf("\n%s: %s\n", warm_start.path.c_str(),
                    plural(warm_start.compiles.size(), "compile").c_str());
        for (const auto& line : warm_start.vllm) {
            std::printf("  %s\n", line.c_str());
        }
        for (const auto& compile : warm_start.compiles) {
            print_compile(compile);
        }
    }
    return kExitOk;
}

} // namespace

void add_report_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ReportOptions>();
    auto* command = app.add_subcommand(
        "report",
        "The warm-start report: for each compile in TORCH_TRACE logs, what every layer did and "
        "the time it took: Dynamo's PGO profile, the AOTAutograd and FX graph caches, autotuning "
        "(a saved best_config, or benchmarked again) and the Triton compile (loaded from the FX "
        "entry's bundle, or compiled), with the times of PyTorch's dynamo_timed phases. A layer "
        "the log says nothing about is 'not logged'. For each missed compile, the one-line cause "
        "against the nearest entry of --cache (or 'first compile'). First line: the summary.");
    command->add_option("LOG_OR_DIR", options->input, "a trace log, or the TORCH_TRACE dir")
        ->required();
    command->add_flag("--follow", options->follow,
                      "LOG_OR_DIR a TORCH_TRACE dir being written: print each compile once its "
                      "log has gone past it (a later compile began), then the summary so far; "
                      "Ctrl-C prints the last compiles and the summary (--json: one {log, "
                      "compile} a line, then {summary})");
    command->add_option("--seconds", options->seconds,
                        "with --follow: stop after this long (default: Ctrl-C)");
    command->add_option("--cache", options->cache,
                        "the cache dir to find each miss's cause against");
    command->add_flag(
        "--json", options->json,
        "print {summary: {line, compiles, hits, misses, without_cache_events, causes: "
        "{category: count}, total_ns, miss_ns}, logs: [{path, warnings, vllm: [line] (what vLLM "
        "logged: its compilation config, the split, the piecewise compiles), compiles: "
        "[{compile_id, "
        "function, filename, line, total_ns, missed, cause: {category, text, key, nearest_key} "
        "or null, fail_reason, layers: [{layer (dynamo, aotautograd, fxgraph, autotune, "
        "triton), outcome (hit, miss, bypass, not_needed, not_logged), detail, time_ns}], "
        "events: [{cache, status, key, line}]}]}]}");
    command->callback([options, &exit_code] { exit_code = run_report(*options); });
}

} // namespace cachelens::cli
