#include <cachelens/core/format.h>
#include <cachelens/core/small_sort.h>
#include <cachelens/core/text.h>
#include <cachelens/trace/warm_start.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace cachelens::trace {

namespace {

// What dynamo_timed calls its phases in torch 2.11 (torch/_dynamo,
// torch/_functorch/aot_autograd.py, torch/_inductor/compile_fx.py,
// async_compile.py, runtime/triton_heuristics.py, torch/_dynamo/pgo.py).
constexpr std::array<std::string_view, 8> kDynamoPhases{"dynamo",
                                                        "entire_frame_compile",
                                                        "bytecode_tracing",
                                                        "build_guards",
                                                        "pgo.get_local_code_state",
                                                        "pgo.get_remote_code_state",
                                                        "pgo.put_local_code_state",
                                                        "pgo.put_remote_code_state"};
constexpr std::array<std::string_view, 3> kAotPhases{
    "backend_compile", "create_aot_dispatcher_function", "entire_backward_compile"};
constexpr std::array<std::string_view, 2> kFxPhases{"inductor_compile", "fx_codegen_and_compile"};
constexpr std::array<std::string_view, 1> kAutotunePhases{"CachingAutotuner.benchmark_all_configs"};
constexpr std::array<std::string_view, 2> kTritonPhases{"async_compile.precompile",
                                                        "async_compile.wait"};

constexpr std::array<std::string_view, 3> kProfileLoaded{
    "get_local_code_state", "get_remote_code_state", "get_extra_remote_code_state"};

std::optional<Layer> layer_of_phase(std::string_view name) {
    for (const Layer layer : kLayers) {
        if (std::ranges::find(layer_phases(layer), name) != layer_phases(layer).end()) {
            return layer;
        }
    }
    // compile_attempt_0, compile_attempt_1, ...: Dynamo's own
    if (name.starts_with("compile_attempt_")) {
        return Layer::Dynamo;
    }
    return std::nullopt;
}

std::size_t index_of(Layer layer) {
    return static_cast<std::size_t>(layer);
}

// Each phase's own time (less its nested phases) goes to its layer, or that of
// the phase it runs in; the total is the wall time the phases cover. Phases of
// one thread nest (dynamo_timed is a context manager); ones that overlap
// without nesting (hostile input) are cut at the one they overlap.
void time_layers(const TraceLog& log, const CompileRecord& record, CompileWarmStart& out) {
    if (record.phases.empty()) {
        return;
    }
    std::vector<const TimedPhase*> phases;
    phases.reserve(record.phases.size());
    for (const std::size_t index : record.phases) {
        phases.push_back(&log.phases[index]);
    }
    std::ranges::sort(phases, [](const TimedPhase* a, const TimedPhase* b) {
        return a->start_ns != b->start_ns ? a->start_ns < b->start_ns
                                          : a->duration_ns > b->duration_ns;
    });
    struct Open {
        std::int64_t end_ns;
        std::optional<Layer> layer; // its own, or inherited from the phase it is in
        std::int64_t own_ns;        // its duration less its children so far
    };
    std::array<std::int64_t, kLayers.size()> own{};
    std::array<bool, kLayers.size()> seen{};
    std::vector<Open> stack;
    std::int64_t total = 0;
    std::int64_t covered_until = std::numeric_limits<std::int64_t>::min();
    const auto close = [&](const Open& done) {
        if (done.layer) {
            own[index_of(*done.layer)] += std::max<std::int64_t>(0, done.own_ns);
        }
    };
    for (const TimedPhase* phase : phases) {
        const std::int64_t end = phase->start_ns + phase->duration_ns;
        while (!stack.empty() && stack.back().end_ns <= phase->start_ns) {
            close(stack.back());
            stack.pop_back();
        }
        std::int64_t length = phase->duration_ns;
        std::optional<Layer> layer = layer_of_phase(phase->name);
        if (layer) {
            seen[index_of(*layer)] = true;
        }
        if (!stack.empty()) {
            Open& parent = stack.back();
            length = std::min(end, parent.end_ns) - phase->start_ns;
            parent.own_ns -= length;
            if (!layer) {
                layer = parent.layer;
            }
        }
        stack.push_back({phase->start_ns + length, layer, length});
        // The union of the spans, for the total.
        const std::int64_t from = std::max(phase->start_ns, covered_until);
        if (end > from) {
            total += end - from;
            covered_until = end;
        }
    }
    while (!stack.empty()) {
        close(stack.back());
        stack.pop_back();
    }
    for (const Layer layer : kLayers) {
        if (seen[index_of(layer)]) {
            out.layers[index_of(layer)].time_ns = own[index_of(layer)];
        }
    }
    out.total_ns = total;
}

// Hit, miss or bypass of one cache (AOTAutograd or FX graph) from its events.
LayerReport cache_layer(Layer layer, const std::vector<const CacheEvent*>& events) {
    LayerReport report;
    report.layer = layer;
    if (events.empty()) {
        report.detail = layer == Layer::AotAutograd ? "no aotautograd_cache_* artifact in the log"
                                                    : "no fx_graph_cache_* artifact in the log";
        return report;
    }
    std::size_t misses = 0;
    std::size_t bypasses = 0;
    std::size_t unsaid = 0;
    std::vector<std::string> details; // detailed statuses and bypass reasons, each once
    for (const CacheEvent* event : events) {
        std::string what;
        if (event->status == "hit") {
            // nothing to say beyond the count
        } else if (event->status == kStatusNotLogged) {
            ++unsaid;
        } else if (event->status == "miss") {
            ++misses;
            what = event->detailed_status;
        } else {
            ++bypasses;
            what = one_line(event->reason.empty() ? event->detailed_status : event->reason);
        }
        if (!what.empty() && std::ranges::find(details, what) == details.end()) {
            details.push_back(std::move(what));
        }
    }
    const std::string_view unit = layer == Layer::AotAutograd ? "entry" : "graph";
    const std::size_t total = events.size();
    std::string counted;
    if (misses > 0) {
        report.outcome = Outcome::Miss;
        counted = fmt::format("{} of {} missed", misses, plural(total, unit));
    } else if (bypasses > 0) {
        report.outcome = Outcome::Bypass;
        counted = fmt::format("{} of {} bypassed", bypasses, plural(total, unit));
    } else if (unsaid > 0) {
        // PyTorch 2.4 logged the key it looked up, not what it found.
        report.outcome = Outcome::NotLogged;
        counted = fmt::format("{} looked up, the outcome not logged (PyTorch 2.4 logs the key "
                              "only)",
                              plural(total, unit));
    } else {
        report.outcome = Outcome::Hit;
        counted = fmt::format("{} hit", plural(total, unit));
    }
    report.detail =
        details.empty() ? counted : fmt::format("{} ({})", counted, fmt::join(details, ", "));
    return report;
}

LayerReport dynamo_layer(const TraceLog& log, const CompileRecord& record) {
    LayerReport report;
    report.layer = Layer::Dynamo;
    std::vector<std::string> loaded;
    std::vector<std::string> written;
    for (const std::size_t index : record.profiles) {
        const std::string& name = log.profiles[index].name;
        auto& list =
            std::ranges::find(kProfileLoaded, name) != kProfileLoaded.end() ? loaded : written;
        if (std::ranges::find(list, name) == list.end()) {
            list.push_back(name);
        }
    }
    bool looked_up = false;
    for (const std::size_t index : record.phases) {
        const std::string& name = log.phases[index].name;
        looked_up =
            looked_up || name == "pgo.get_local_code_state" || name == "pgo.get_remote_code_state";
    }
    if (!loaded.empty()) {
        report.outcome = Outcome::Hit;
        report.detail = fmt::format("PGO profile loaded ({})", fmt::join(loaded, ", "));
    } else if (looked_up) {
        report.outcome = Outcome::Miss;
        report.detail = "PGO profile looked up, none loaded";
    } else {
        report.detail = "no PGO profile lookup in the log";
    }
    if (!written.empty()) {
        report.detail += fmt::format("; profile written ({})", fmt::join(written, ", "));
    }
    return report;
}

LayerReport autotune_layer(const TraceLog& log, const CompileRecord& record) {
    LayerReport report;
    report.layer = Layer::Autotune;
    std::map<std::string, std::size_t> states; // autotune_cache_state -> kernels
    std::int64_t benchmarked_configs = 0;
    for (const std::size_t index : record.kernels) {
        const TritonKernelInfo& kernel = log.kernels[index];
        if (kernel.autotune_cache_state.empty()) {
            continue;
        }
        ++states[kernel.autotune_cache_state];
        if (kernel.autotune_cache_state == "miss") {
            benchmarked_configs += kernel.num_configs.value_or(0);
        }
    }
    std::vector<std::string> benchmarked; // kernels whose configs were timed
    for (const std::size_t index : record.phases) {
        const TimedPhase& phase = log.phases[index];
        if (phase.name == "CachingAutotuner.benchmark_all_configs" &&
            std::ranges::find(benchmarked, phase.kernel_name) == benchmarked.end()) {
            benchmarked.push_back(phase.kernel_name);
        }
    }
    const auto count = [&states](const char* state) {
        const auto it = states.find(state);
        return it == states.end() ? std::size_t{0} : it->second;
    };
    std::size_t with_state = 0;
    for (const auto& [state, kernels] : states) {
        with_state += kernels;
    }
    if (count("miss") > 0) {
        report.outcome = Outcome::Miss;
        report.detail =
            fmt::format("{} of {} benchmarked again ({})", count("miss"),
                        plural(with_state, "kernel"), plural(benchmarked_configs, "config"));
    } else if (with_state == 0 && !benchmarked.empty()) {
        report.outcome = Outcome::Miss;
        report.detail = fmt::format("{} benchmarked", plural(benchmarked.size(), "kernel"));
    } else if (count("hit") > 0) {
        report.outcome = Outcome::Hit;
        report.detail = fmt::format("best_config found for {} of {}", count("hit"),
                                    plural(with_state, "kernel"));
    } else if (count("force_disabled") > 0) {
        report.outcome = Outcome::Bypass;
        report.detail = "autotune cache disabled (force_disable_caches)";
    } else if (with_state > 0) {
        report.outcome = Outcome::NotNeeded;
        report.detail = fmt::format("nothing to tune: {} with one config",
                                    plural(count("only 1 config"), "kernel"));
    } else {
        report.detail = "no triton_kernel_info autotune state or benchmark in the log";
    }
    return report;
}

LayerReport triton_layer(const TraceLog& log, const CompileRecord& record,
                         const std::vector<const CacheEvent*>& fx_events) {
    LayerReport report;
    report.layer = Layer::Triton;
    std::size_t compiled = 0;
    std::int64_t compile_us = 0;
    for (const std::size_t index : record.kernels) {
        if (const auto us = log.kernels[index].compile_time_us) {
            ++compiled;
            compile_us += *us;
        }
    }
    std::size_t bundled = 0; // kernels an FX hit loaded from its entry's bundle
    for (const CacheEvent* event : fx_events) {
        if (event->status == "hit") {
            bundled += event->bundled_kernels.size();
        }
    }
    if (compiled > 0) {
        report.outcome = Outcome::Miss;
        report.detail =
            fmt::format("{} compiled in this process ({} by Inductor's count)",
                        plural(compiled, "kernel"), format_duration_ns(compile_us * 1000));
        if (bundled > 0) {
            report.detail += fmt::format("; {} loaded from FX entries' bundles", bundled);
        }
    } else if (bundled > 0) {
        report.outcome = Outcome::Hit;
        report.detail =
            fmt::format("{} loaded from the FX entries' Triton bundles", plural(bundled, "kernel"));
    } else {
        report.detail = "no triton_kernel_info compile time or FX hit bundle in the log";
    }
    return report;
}

// The cause of a compile's miss: its first FX miss against the cache's
// nearest entry, else what the log says of the AOTAutograd miss or bypass.
MissCause find_cause(const std::vector<const CacheEvent*>& fx_events,
                     const std::vector<const CacheEvent*>& aot_events,
                     std::span<const explain::KeyCandidate> candidates, bool compared) {
    for (const CacheEvent* event : fx_events) {
        if (event->status == "bypass") {
            return {"bypass",
                    fmt::format("FX graph cache bypassed: {}", one_line(event->reason)),
                    event->key,
                    {},
                    CacheKind::FxGraph};
        }
        if (event->status != "miss") {
            continue;
        }
        if (!compared) {
            return {"no --cache",
                    "no cache dir given to compare with",
                    event->key,
                    {},
                    CacheKind::FxGraph};
        }
        if (event->components.empty()) {
            return {"not compared",
                    "the miss was logged without its debug lines",
                    event->key,
                    {},
                    CacheKind::FxGraph};
        }
        const std::vector<std::string_view> lines(event->components.begin(),
                                                  event->components.end());
        const auto found =
            explain::nearest_graphs({lines, event->key, {}, {}, true, false, {}}, candidates, 1);
        if (found.searched == 0 && found.incomparable > 0) {
            // The logged key's lines cannot be set against entries that store none.
            return {"not compared",
                    fmt::format("the cache's {} store no debug lines (PyTorch 2.7 and older): the "
                                "logged key cannot be compared with them",
                                plural(found.incomparable, "FX entry")),
                    event->key,
                    {},
                    CacheKind::FxGraph};
        }
        if (found.first_compile || found.nearest.empty()) {
            return {"first compile", "first compile: no cached graph is this one compiled before",
                    event->key, found.nearest.empty() ? std::string() : found.nearest.front().key,
                    CacheKind::FxGraph};
        }
        const explain::NearKey& near = found.nearest.front();
        const std::string category =
            near.causes.causes.empty()
                ? std::string("other")
                : std::string(explain::to_string(near.causes.causes.front().category));
        return {category, near.causes.verdict, event->key, near.key, CacheKind::FxGraph};
    }
    for (const CacheEvent* event : aot_events) {
        if (event->status == "bypass") {
            return {"bypass",
                    fmt::format("AOTAutograd cache bypassed: {}", one_line(event->reason)),
                    event->key,
                    {},
                    CacheKind::AotAutograd};
        }
        if (event->status == "miss") {
            return {"not compared",
                    fmt::format("AOTAutograd entry missed ({}); no FX graph miss logged",
                                event->detailed_status),
                    event->key,
                    {},
                    CacheKind::AotAutograd};
        }
    }
    return {"other", "missed", {}, {}, CacheKind::FxGraph};
}

} // namespace

std::string_view to_string(Layer layer) {
    switch (layer) {
    case Layer::Dynamo:
        return "dynamo";
    case Layer::AotAutograd:
        return "aotautograd";
    case Layer::FxGraph:
        return "fxgraph";
    case Layer::Autotune:
        return "autotune";
    case Layer::Triton:
        return "triton";
    }
    return "dynamo";
}

std::string_view layer_title(Layer layer) {
    switch (layer) {
    case Layer::Dynamo:
        return "Dynamo (PGO)";
    case Layer::AotAutograd:
        return "AOTAutograd cache";
    case Layer::FxGraph:
        return "FX graph cache";
    case Layer::Autotune:
        return "Autotune";
    case Layer::Triton:
        return "Triton compile";
    }
    return "Dynamo (PGO)";
}

std::span<const std::string_view> layer_phases(Layer layer) {
    switch (layer) {
    case Layer::Dynamo:
        return kDynamoPhases;
    case Layer::AotAutograd:
        return kAotPhases;
    case Layer::FxGraph:
        return kFxPhases;
    case Layer::Autotune:
        return kAutotunePhases;
    case Layer::Triton:
        return kTritonPhases;
    }
    return {};
}

std::string_view to_string(Outcome outcome) {
    switch (outcome) {
    case Outcome::Hit:
        return "hit";
    case Outcome::Miss:
        return "miss";
    case Outcome::Bypass:
        return "bypass";
    case Outcome::NotNeeded:
        return "not_needed";
    case Outcome::NotLogged:
        return "not_logged";
    }
    return "not_logged";
}

std::string_view outcome_label(Layer layer, Outcome outcome) {
    switch (outcome) {
    case Outcome::Hit:
        return layer == Layer::Dynamo     ? "profile hit"
               : layer == Layer::Autotune ? "best_config"
               : layer == Layer::Triton   ? "from bundle"
                                          : "hit";
    case Outcome::Miss:
        return layer == Layer::Dynamo     ? "no profile"
               : layer == Layer::Autotune ? "benchmarked"
               : layer == Layer::Triton   ? "compiled"
                                          : "miss";
    case Outcome::Bypass:
        return layer == Layer::Autotune ? "disabled" : "bypass";
    case Outcome::NotNeeded:
        return "not needed";
    case Outcome::NotLogged:
        return "not logged";
    }
    return "not logged";
}

std::vector<std::string> describe_vllm(const TraceLog& log) {
    std::vector<std::string> lines;
    // The config fields that say what gets compiled, in this order.
    constexpr std::string_view kShown[] = {
        "mode",           "backend",       "compile_sizes",      "compile_ranges_split_points",
        "cudagraph_mode", "splitting_ops", "dynamic_shapes_type"};
    std::size_t compiles = 0, single = 0;
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> ranges;
    std::set<std::int64_t> sizes;
    const auto flush_compiles = [&] {
        if (compiles == 0) {
            return;
        }
        std::string line = "vLLM compiled " + std::to_string(compiles) + " piecewise graph" +
                           (compiles == 1 ? "" : "s") + ":";
        const char* separator = " ";
        for (const auto& [range, count] : ranges) {
            line += separator + std::to_string(count) + " for the range (" +
                    std::to_string(range.first) + ", " + std::to_string(range.second) + ")";
            separator = ", ";
        }
        if (single > 0) {
            line += separator + std::to_string(single) + " for single sizes";
            const char* comma = " ";
            for (const auto size : sizes) {
                line += comma + std::to_string(size);
                comma = ", ";
            }
        }
        lines.push_back(std::move(line));
        compiles = single = 0;
        ranges.clear();
        sizes.clear();
    };
    for (const VllmEvent& event : log.vllm) {
        switch (event.kind) {
        case VllmEvent::Kind::Config: {
            flush_compiles();
            std::string prefix;
            for (const auto& [field, value] : event.fields) {
                if (field == "prefix") {
                    prefix = value;
                }
            }
            std::string line = "vLLM compilation config" +
                               (prefix.empty() ? std::string() : " (prefix " + prefix + ")") + ":";
            const char* separator = " ";
            for (const auto shown : kShown) {
                for (const auto& [field, value] : event.fields) {
                    if (field == shown && !value.empty()) {
                        line += separator + field + " " + value;
                        separator = ", ";
                    }
                }
            }
            lines.push_back(std::move(line));
            break;
        }
        case VllmEvent::Kind::SplitGraph:
            flush_compiles();
            lines.push_back(
                "vLLM split the graph into " + std::to_string(event.submodules) +
                " piecewise submodule" + (event.submodules == 1 ? "" : "s") +
                (event.compile_id.empty() ? "" : " (compile " + event.compile_id + ")"));
            break;
        case VllmEvent::Kind::PiecewiseCompile:
            ++compiles;
            if (event.single_size || (event.range_start && event.range_start == event.range_end)) {
                ++single;
                if (event.range_start) {
                    sizes.insert(*event.range_start);
                }
            } else if (event.range_start && event.range_end) {
                ++ranges[{*event.range_start, *event.range_end}];
            }
            break;
        }
    }
    flush_compiles();
    return lines;
}

WarmStartReport warm_start_report(const TraceLog& log,
                                  std::span<const explain::KeyCandidate> candidates,
                                  bool compared) {
    WarmStartReport report;
    report.path = log.path;
    report.warnings = log.warnings;
    report.vllm = describe_vllm(log);
    for (const CompileRecord& record : log.compiles) {
        CompileWarmStart compile;
        compile.compile_id = record.compile_id;
        compile.function = record.function;
        compile.filename = record.filename;
        compile.line = record.line;
        compile.events = record.events;
        if (!record.fail_type.empty() || !record.fail_reason.empty()) {
            compile.fail_reason = fmt::format("{}: {}", record.fail_type, record.fail_reason);
        }
        std::vector<const CacheEvent*> fx_events;
        std::vector<const CacheEvent*> aot_events;
        for (const std::size_t index : record.events) {
            const CacheEvent& event = log.events[index];
            (event.cache == CacheKind::FxGraph ? fx_events : aot_events).push_back(&event);
        }
        compile.layers[index_of(Layer::Dynamo)] = dynamo_layer(log, record);
        compile.layers[index_of(Layer::AotAutograd)] = cache_layer(Layer::AotAutograd, aot_events);
        compile.layers[index_of(Layer::FxGraph)] = cache_layer(Layer::FxGraph, fx_events);
        compile.layers[index_of(Layer::Autotune)] = autotune_layer(log, record);
        compile.layers[index_of(Layer::Triton)] = triton_layer(log, record, fx_events);
        time_layers(log, record, compile);
        for (const Layer layer : {Layer::AotAutograd, Layer::FxGraph}) {
            const Outcome outcome = compile.layer(layer).outcome;
            compile.missed =
                compile.missed || outcome == Outcome::Miss || outcome == Outcome::Bypass;
        }
        if (compile.missed) {
            compile.cause = find_cause(fx_events, aot_events, candidates, compared);
        }
        report.compiles.push_back(std::move(compile));
    }
    return report;
}

WarmStartSummary summarize(std::span<const WarmStartReport> reports) {
    WarmStartSummary summary;
    for (const WarmStartReport& report : reports) {
        for (const CompileWarmStart& compile : report.compiles) {
            ++summary.compiles;
            const std::int64_t time = compile.total_ns.value_or(0);
            summary.total_ns += time;
            if (compile.missed) {
                ++summary.misses;
                summary.miss_ns += time;
                const std::string& category = compile.cause ? compile.cause->category : "other";
                auto it = std::ranges::find(summary.causes, category,
                                            &std::pair<std::string, std::size_t>::first);
                if (it == summary.causes.end()) {
                    summary.causes.emplace_back(category, 1);
                } else {
                    ++it->second;
                }
            } else if (compile.has_cache_events()) {
                ++summary.hits;
            } else {
                ++summary.unlogged;
            }
        }
    }
    stable_sort_small(summary.causes,
                      [](const auto& a, const auto& b) { return a.second > b.second; });
    return summary;
}

std::string WarmStartSummary::line() const {
    std::string out = fmt::format("{}: {}, {} {}", plural(compiles, "compile"), plural(hits, "hit"),
                                  misses, misses == 1 ? "miss" : "misses");
    if (!causes.empty()) {
        std::vector<std::string> parts;
        for (const auto& [category, count] : causes) {
            parts.push_back(fmt::format("{} {}", count, category));
        }
        out += fmt::format(" ({})", fmt::join(parts, ", "));
    }
    if (unlogged > 0) {
        out += fmt::format(", {} without cache events", unlogged);
    }
    out += fmt::format("; {} of {} compile time was spent in misses", format_duration_ns(miss_ns),
                       format_duration_ns(total_ns));
    return out;
}

Result<WarmStartAnalysis> analyze_warm_start(const std::filesystem::path& log_or_dir,
                                             const std::filesystem::path& cache_dir) {
    std::vector<TraceLog> logs;
    std::error_code error;
    if (std::filesystem::is_directory(log_or_dir, error)) {
        auto read = read_trace_dir(log_or_dir);
        if (!read) {
            return std::unexpected(std::move(read.error()));
        }
        logs = std::move(*read);
    } else {
        auto log = read_trace_log(log_or_dir);
        if (!log) {
            return std::unexpected(std::move(log.error()));
        }
        logs.push_back(std::move(*log));
    }
    return analyze_warm_start(std::move(logs), cache_dir);
}

Result<WarmStartAnalysis> analyze_warm_start(std::vector<TraceLog> logs,
                                             const std::filesystem::path& cache_dir) {
    WarmStartAnalysis analysis;
    analysis.logs = std::move(logs);
    std::optional<cachedir::Scan> scan;
    std::vector<explain::KeyCandidate> candidates;
    if (!cache_dir.empty()) {
        auto scanned = cachedir::scan_cache_dir(cache_dir);
        if (!scanned) {
            return std::unexpected(std::move(scanned.error()));
        }
        scan = std::move(*scanned);
        candidates = explain::fx_graph_candidates(*scan, cache_dir.string(), analysis.skipped);
    }
    for (const auto& log : analysis.logs) {
        analysis.reports.push_back(warm_start_report(log, candidates, !cache_dir.empty()));
    }
    analysis.summary = summarize(analysis.reports);
    for (const auto& report : analysis.reports) {
        for (const auto& compile : report.compiles) {
            std::optional<cachedir::Entry> entry;
            if (scan && compile.cause && !compile.cause->key.empty() &&
                compile.cause->cache == CacheKind::FxGraph) {
                auto found = cachedir::find_entries(*scan, compile.cause->key);
                if (!found.empty()) {
                    entry = std::move(found.front());
                }
            }
            analysis.missed_entries.push_back(std::move(entry));
        }
    }
    return analysis;
}

} // namespace cachelens::trace
