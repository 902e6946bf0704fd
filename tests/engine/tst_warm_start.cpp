// The warm-start report (`cachelens report`, trace/warm_start.h): the two
// devset runs against what a separate reading of their raw lines found (a
// Python script: kernels, autotune states, phase times) and against the cache
// events `trace` finds; the hand-made tests/data/trace/warm_start.log
// (make_trace_logs.py) for hits, bundled kernels, PGO profiles and exact
// layer times; and the CLI.

#include "test_paths.h"

#include <cachelens/trace/trace_log.h>
#include <cachelens/trace/warm_start.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <string>

using namespace cachelens;
using namespace cachelens::trace;

namespace {

constexpr std::int64_t kMs = 1'000'000;

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString fixture_dir(const char* relative) {
    return QString::fromStdString(test::fixture(relative).string());
}

TraceLog read_devset(const char* run) {
    auto log = read_trace_log(
        test::fixture(std::string("devset/trace/dedicated_log_torch_trace_") + run + ".log"));
    if (!log) {
        qFatal("%s", log.error().describe().c_str());
    }
    return std::move(*log);
}

TraceLog read_warm_start_log() {
    auto log = read_trace_log(test::test_data("trace/warm_start.log"));
    if (!log) {
        qFatal("%s", log.error().describe().c_str());
    }
    return std::move(*log);
}

const TimedPhase* find_phase(const TraceLog& log, std::string_view compile_id,
                             std::string_view name) {
    const auto it = std::ranges::find_if(log.phases, [&](const TimedPhase& phase) {
        return phase.compile_id == compile_id && phase.name == name;
    });
    return it == log.phases.end() ? nullptr : &*it;
}

} // namespace

class TestWarmStart : public QObject {
    Q_OBJECT

private slots:
    // The chromium begin/end pairs, read as the raw lines say.
    void readsDevsetPhases() {
        const TraceLog log = read_devset("a466bdwu");
        QVERIFY(log.warnings.empty());
        // "dynamo" of 0/0: B at ts 1795344465517721.2, E at 1795344471612238.0.
        const TimedPhase* dynamo = find_phase(log, "0/0", "dynamo");
        QVERIFY(dynamo != nullptr);
        QCOMPARE(dynamo->line, std::size_t{1});
        QVERIFY(std::abs(dynamo->duration_ns - 6'094'516'800) < 1000);
        // Autotune benchmarks are logged outside the compile: their id is in args.
        const auto benchmarks = std::ranges::count_if(log.phases, [](const TimedPhase& phase) {
            return phase.name == "CachingAutotuner.benchmark_all_configs";
        });
        QCOMPARE(benchmarks, 4);
        const TimedPhase* benchmark =
            find_phase(log, "0/0", "CachingAutotuner.benchmark_all_configs");
        QVERIFY(benchmark != nullptr);
        QCOMPARE(qs(benchmark->kernel_name),
                 "triton_per_fused__log_softmax_prepare_softmax_online_sub_1");
        QCOMPARE(benchmark->line, std::size_t{4668});
        // Two triton_kernel_info artifacts: forward (2 kernels) and backward (7).
        QCOMPARE(log.kernels.size(), std::size_t{9});
        QCOMPARE(log.compiles.size(), std::size_t{1});
        QCOMPARE(log.compiles[0].kernels.size(), std::size_t{9});
        QCOMPARE(log.compiles[0].phases.size(), log.phases.size());
        // Every phase begun was ended, and no PGO profile was logged.
        QVERIFY(log.profiles.empty());
        // The FX misses name the kernels they saved into their bundles.
        QCOMPARE(log.events[1].bundled_kernels.size(), std::size_t{2});
        QCOMPARE(qs(log.events[1].bundled_kernels[0]), "triton_per_fused_gelu_native_layer_norm_0");
    }

    // Both devset runs: every compile listed, with the cache events `trace`
    // finds, each layer's outcome, and times that add up.
    void reportsEveryDevsetCompile() {
        struct Expected {
            const char* run;
            std::vector<const char*> compiles;
            std::vector<std::size_t> autotune_misses; // kernels benchmarked again, per compile
            std::vector<std::size_t> kernels;         // compiled, per compile
        };
        const std::vector<Expected> runs{{"a466bdwu", {"0/0"}, {4}, {9}},
                                         {"zyfkwfwy", {"0/0", "1/0", "2/0"}, {0, 1, 1}, {2, 1, 1}}};
        for (const auto& expected : runs) {
            const TraceLog log = read_devset(expected.run);
            const WarmStartReport report = warm_start_report(log, {}, false);
            QCOMPARE(report.compiles.size(), expected.compiles.size());
            for (std::size_t i = 0; i < report.compiles.size(); ++i) {
                const CompileWarmStart& compile = report.compiles[i];
                QCOMPARE(qs(compile.compile_id), expected.compiles[i]);
                QCOMPARE(compile.events, log.compiles[i].events); // what trace lists
                QVERIFY(compile.missed);
                QVERIFY(compile.cause.has_value());
                QCOMPARE(qs(compile.cause->category), "no --cache");
                QCOMPARE(compile.layer(Layer::AotAutograd).outcome, Outcome::Miss);
                QCOMPARE(compile.layer(Layer::FxGraph).outcome, Outcome::Miss);
                // No PGO artifact or lookup in these logs: not guessed.
                QCOMPARE(compile.layer(Layer::Dynamo).outcome, Outcome::NotLogged);
                QCOMPARE(compile.layer(Layer::Triton).outcome, Outcome::Miss);
                QVERIFY2(compile.layer(Layer::Triton)
                             .detail.starts_with(std::to_string(expected.kernels[i]) + " kernel"),
                         compile.layer(Layer::Triton).detail.c_str());
                QCOMPARE(compile.layer(Layer::Autotune).outcome,
                         expected.autotune_misses[i] > 0 ? Outcome::Miss : Outcome::NotNeeded);
                if (expected.autotune_misses[i] > 0) {
                    QVERIFY(compile.layer(Layer::Autotune)
                                .detail.starts_with(std::to_string(expected.autotune_misses[i]) +
                                                    " of "));
                }
                // The layers' own times cover the compile's time, no more.
                QVERIFY(compile.total_ns.has_value());
                std::int64_t layers = 0;
                for (const auto& layer : compile.layers) {
                    layers += layer.time_ns.value_or(0);
                }
                QVERIFY(layers <= *compile.total_ns);
                QVERIFY(layers > *compile.total_ns * 9 / 10);
                for (const auto& layer : compile.layers) {
                    QVERIFY(!layer.detail.empty());
                }
            }
        }
        // 0/0 of the first run: from "dynamo" B to the last benchmark's E.
        const TraceLog first = read_devset("a466bdwu");
        const auto report = warm_start_report(first, {}, false);
        QVERIFY(*report.compiles[0].total_ns > 8'000 * kMs);
        QCOMPARE(qs(report.compiles[0].layer(Layer::Autotune).detail),
                 "4 of 9 kernels benchmarked again (10 configs)");
    }

    void summarizesDevsetAgainstItsCache() {
        std::vector<WarmStartReport> reports;
        auto scan = cachedir::scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(scan);
        std::vector<Error> unreadable;
        const auto candidates = explain::fx_graph_candidates(*scan, "devset/cache", unreadable);
        QVERIFY(unreadable.empty());
        for (const char* run : {"a466bdwu", "zyfkwfwy"}) {
            reports.push_back(warm_start_report(read_devset(run), candidates, true));
        }
        for (const auto& report : reports) {
            for (const auto& compile : report.compiles) {
                // Five different graphs, each compiled once.
                QCOMPARE(qs(compile.cause->category), "first compile");
                QVERIFY(!compile.cause->nearest_key.empty());
                QVERIFY(compile.cause->nearest_key != compile.cause->key);
            }
        }
        const WarmStartSummary summary = summarize(reports);
        QCOMPARE(summary.compiles, std::size_t{4});
        QCOMPARE(summary.misses, std::size_t{4});
        QCOMPARE(summary.miss_ns, summary.total_ns);
        QVERIFY2(summary.line().starts_with("4 compiles: 0 hits, 4 misses (4 first compile); "),
                 summary.line().c_str());
        QVERIFY(summary.line().ends_with(" compile time was spent in misses"));
    }

    // Hits, bundled kernels, a PGO profile and exact own times per layer.
    void reportsHandMadeWarmStart() {
        const TraceLog log = read_warm_start_log();
        QVERIFY2(log.warnings.empty(), log.warnings.empty() ? "" : log.warnings[0].c_str());
        const WarmStartReport report = warm_start_report(log, {}, false);
        QCOMPARE(report.compiles.size(), std::size_t{3});

        const CompileWarmStart& hit = report.compiles[0];
        QCOMPARE(qs(hit.function), "step");
        QVERIFY(!hit.missed);
        QCOMPARE(hit.layer(Layer::Dynamo).outcome, Outcome::Hit);
        QCOMPARE(qs(hit.layer(Layer::Dynamo).detail), "PGO profile loaded (get_local_code_state)");
        QCOMPARE(hit.layer(Layer::AotAutograd).outcome, Outcome::Hit);
        QCOMPARE(hit.layer(Layer::FxGraph).outcome, Outcome::Hit);
        QCOMPARE(hit.layer(Layer::Triton).outcome, Outcome::Hit);
        QCOMPARE(qs(hit.layer(Layer::Triton).detail),
                 "2 kernels loaded from the FX entries' Triton bundles");
        QCOMPARE(hit.layer(Layer::Autotune).outcome, Outcome::NotLogged);
        QVERIFY(!hit.layer(Layer::Autotune).time_ns);
        QCOMPARE(*hit.total_ns, 1000 * kMs);
        // dynamo 10 + entire_frame_compile 540 + bytecode_tracing 190 + pgo 10 + build_guards 50
        QCOMPARE(*hit.layer(Layer::Dynamo).time_ns, 800 * kMs);
        QCOMPARE(*hit.layer(Layer::AotAutograd).time_ns, 100 * kMs);
        QCOMPARE(*hit.layer(Layer::FxGraph).time_ns, 100 * kMs);

        const CompileWarmStart& miss = report.compiles[1];
        QVERIFY(miss.missed);
        QCOMPARE(miss.layer(Layer::Dynamo).outcome, Outcome::NotLogged);
        QCOMPARE(qs(miss.layer(Layer::Dynamo).detail),
                 "no PGO profile lookup in the log; profile written (put_local_code_state)");
        QCOMPARE(miss.layer(Layer::Autotune).outcome, Outcome::Miss);
        QCOMPARE(qs(miss.layer(Layer::Autotune).detail),
                 "1 of 3 kernels benchmarked again (4 configs)");
        QCOMPARE(miss.layer(Layer::Triton).outcome, Outcome::Miss);
        QVERIFY(miss.layer(Layer::Triton).detail.starts_with("3 kernels compiled"));
        // 2000 ms compiling, then a 50 ms benchmark at the first call.
        QCOMPARE(*miss.total_ns, 2050 * kMs);
        QCOMPARE(*miss.layer(Layer::Dynamo).time_ns, 200 * kMs);
        QCOMPARE(*miss.layer(Layer::AotAutograd).time_ns, 300 * kMs);
        QCOMPARE(*miss.layer(Layer::FxGraph).time_ns, 1100 * kMs);
        QCOMPARE(*miss.layer(Layer::Triton).time_ns, 400 * kMs);
        QCOMPARE(*miss.layer(Layer::Autotune).time_ns, 50 * kMs);

        const CompileWarmStart& quiet = report.compiles[2];
        QVERIFY(!quiet.missed);
        QVERIFY(!quiet.has_cache_events());
        for (const auto& layer : quiet.layers) {
            QCOMPARE(qs(outcome_label(layer.layer, layer.outcome)), "not logged");
        }

        const WarmStartReport reports[] = {report};
        QCOMPARE(qs(summarize(reports).line()),
                 "3 compiles: 1 hit, 1 miss (1 no --cache), 1 without cache events; 2.05 s of "
                 "3.15 s compile time was spent in misses");
    }

    // The miss's cause is the why engine's verdict against the nearest entry.
    void findsTheCauseAgainstTheNearestEntry() {
        const TraceLog log = read_warm_start_log();
        const CacheEvent& missed = log.events[log.compiles[1].events.back()];
        QCOMPARE(missed.status, std::string("miss"));
        // An entry compiled for 8 elements where the miss had 16.
        auto lines = std::make_shared<std::vector<std::string>>();
        for (const auto& line : missed.components) {
            std::string before = line;
            if (const auto at = before.find("torch.Size([16])"); at != std::string::npos) {
                before.replace(at, 16, "torch.Size([8])");
                // The line's hash (its "[...]" prefix) is of its value: another value, another
                // hash.
                before.replace(1, 4, "zzzz");
            }
            lines->push_back(std::move(before));
        }
        explain::KeyCandidate candidate;
        candidate.key = "fbeforeaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        candidate.dir = "cache";
        candidate.path = "fxgraph/xx/fbefore/entry";
        candidate.debug_lines.assign(lines->begin(), lines->end());
        candidate.keep_alive = lines;
        const std::vector<explain::KeyCandidate> candidates{candidate};
        const auto report = warm_start_report(log, candidates, true);
        const auto& cause = report.compiles[1].cause;
        QVERIFY(cause.has_value());
        QCOMPARE(qs(cause->nearest_key), qs(candidate.key));
        QCOMPARE(qs(cause->category), "shapes");
        QVERIFY2(cause->text.starts_with("Missed because"), cause->text.c_str());
        QVERIFY2(cause->text.find("8") != std::string::npos, cause->text.c_str());
    }

    // The use case `report` and the Warm start page both run: a dir of logs
    // or one log, each compile's missed FX entry found in the cache dir, and
    // the cache files that could not be read kept to be said.
    void analyzeWarmStartIsTheWholeUseCase() {
        auto analysis =
            analyze_warm_start(test::fixture("devset/trace"), test::fixture("devset/cache"));
        QVERIFY_RESULT(analysis);
        QCOMPARE(analysis->reports.size(), analysis->logs.size());
        QCOMPARE(analysis->summary.compiles, 4u);
        QCOMPARE(analysis->missed_entries.size(), 4u);
        QVERIFY(analysis->skipped.empty());
        for (const auto& entry : analysis->missed_entries) {
            QVERIFY(entry.has_value());
            QCOMPARE(entry->kind, cachedir::FileKind::FxGraph);
        }
        // No cache dir: nothing compared, no entries.
        auto alone = analyze_warm_start(test::fixture("devset/trace"), {});
        QVERIFY_RESULT(alone);
        QCOMPARE(alone->missed_entries.size(), 4u);
        QVERIFY(std::ranges::none_of(alone->missed_entries,
                                     [](const auto& entry) { return entry.has_value(); }));
        QVERIFY(!analyze_warm_start(test::fixture("devset/no-such-trace.log"), {}));
    }

    void cliReportsFirstLineThenCompiles() {
        const auto run = test::run_cli(
            {"report", fixture_dir("devset/trace"), "--cache", fixture_dir("devset/cache")});
        QCOMPARE(run.exit_code, 0);
        QVERIFY2(run.out.startsWith("4 compiles: 0 hits, 4 misses (4 first compile); "),
                 run.out.left(200).constData());
        QVERIFY(run.out.contains("compile 2/0  h  (<string>:26)"));
        QVERIFY(run.out.contains(
            "  cause: first compile: no cached graph is this one compiled before\n"));
        QVERIFY(run.out.contains("  Dynamo (PGO)       not logged"));

        // JSON: the same compiles and, per compile, the events `trace` lists.
        const auto json_run = test::run_cli({"report", fixture_dir("devset/trace"), "--json"});
        QCOMPARE(json_run.exit_code, 0);
        const auto report = QJsonDocument::fromJson(json_run.out).object();
        QCOMPARE(report["summary"].toObject()["compiles"].toInt(), 4);
        const auto trace_run = test::run_cli({"trace", fixture_dir("devset/trace"), "--json"});
        const auto trace_logs = QJsonDocument::fromJson(trace_run.out).object()["logs"].toArray();
        const auto logs = report["logs"].toArray();
        QCOMPARE(logs.size(), trace_logs.size());
        int events = 0;
        for (qsizetype i = 0; i < logs.size(); ++i) {
            const auto compiles = logs[i].toObject()["compiles"].toArray();
            const auto traced = trace_logs[i].toObject()["compiles"].toArray();
            QCOMPARE(compiles.size(), traced.size());
            for (qsizetype c = 0; c < compiles.size(); ++c) {
                const auto compile = compiles[c].toObject();
                QCOMPARE(compile["compile_id"], traced[c].toObject()["compile_id"]);
                const auto mine = compile["events"].toArray();
                const auto theirs = traced[c].toObject()["events"].toArray();
                QCOMPARE(mine.size(), theirs.size());
                for (qsizetype e = 0; e < mine.size(); ++e) {
                    QCOMPARE(mine[e].toObject()["key"], theirs[e].toObject()["key"]);
                    QCOMPARE(mine[e].toObject()["line"], theirs[e].toObject()["line"]);
                    ++events;
                }
                QCOMPARE(compile["layers"].toArray().size(), 5);
                QVERIFY(compile["total_ns"].toDouble() > 0);
            }
        }
        QCOMPARE(events, 9);

        const auto not_a_log = test::run_cli({"report", fixture_dir("devset/golden.json")});
        QCOMPARE(not_a_log.exit_code, 2);
        QVERIFY(not_a_log.err.contains("golden.json"));
        const auto no_cache = test::run_cli(
            {"report", fixture_dir("devset/trace"), "--cache", fixture_dir("devset/no-such-dir")});
        QCOMPARE(no_cache.exit_code, 2);
        QVERIFY(no_cache.err.contains("no-such-dir"));
    }
};

QTEST_GUILESS_MAIN(TestWarmStart)
#include "tst_warm_start.moc"
