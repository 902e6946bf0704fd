// The explorer's rules and searches (bench/tune_space.h) without a GPU or
// Python: Inductor's fields, neighbours and maxima for real 2.11 kernels,
// --space and --budget, the grid and random samples, and coordinate descent
// walking a landscape step by step as CoordescTuner.autotune() walks it; and
// the compile server's answers (compile_server.h) as untrusted lines.

#include "test_paths.h"

#include <cachelens/bench/compile_server.h>
#include <cachelens/bench/launch_plan.h>
#include <cachelens/bench/tune.h>
#include <cachelens/bench/tune_space.h>
#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/core/child_process.h>

#include <QtTest>

#include <cmath>
#include <map>
#include <set>

using namespace cachelens;
using namespace cachelens::bench::tune;
using cachelens::cachedir::KernelConfig;
namespace fs = std::filesystem;

namespace {

KernelConfig config(std::vector<std::pair<std::string, std::int64_t>> kwargs, std::int64_t warps,
                    std::int64_t stages = 1) {
    KernelConfig out;
    for (auto& [name, value] : kwargs) {
        out.kwargs.emplace_back(name, value);
    }
    out.num_warps = warps;
    out.num_stages = stages;
    return out;
}

cachedir::KernelDefinition kernel_of(const std::string& name) {
    const fs::path cache = test::fixture("devset/cache");
    for (const auto& entry : fs::recursive_directory_iterator(cache)) {
        if (entry.path().extension() != ".py") {
            continue;
        }
        auto module = cachedir::read_kernel_module(entry.path());
        if (!module) {
            continue;
        }
        for (auto& def : module->kernels) {
            if (def.name == name) {
                return def;
            }
        }
    }
    return {};
}

std::vector<std::string> field_names(const Rules& rules) {
    std::vector<std::string> names;
    for (const auto& field : rules.fields) {
        names.push_back(field.name);
    }
    return names;
}

} // namespace

class TestTune : public QObject {
    Q_OBJECT

private slots:
    void rulesOfAPointwiseKernelAreItsBlockAndWarps() {
        const auto def = kernel_of("triton_poi_fused_mm_t_2");
        QVERIFY(!def.name.empty());
        auto rules = rules_for(def, config({{"XBLOCK", 256}}, 4));
        QVERIFY_RESULT(rules);
        QCOMPARE(field_names(*rules), (std::vector<std::string>{"XBLOCK", "num_warps"}));
        QCOMPARE(*rules->fields[0].max, 4096);
        QVERIFY(rules->fields[0].max_why.find("TRITON_MAX_BLOCK X=4096") != std::string::npos);
        // 1024 threads per block of 32-thread warps, from triton_meta's DeviceProperties.
        QCOMPARE(*rules->fields[1].max, 32);
        QVERIFY(rules->fields[1].max_why.find("1024 threads") != std::string::npos);
    }

    void aSizeHintBelowTheMaximumBoundsTheBlock() {
        const auto def = kernel_of("triton_per_fused_sum_6");
        QVERIFY(!def.name.empty());
        auto rules = rules_for(def, config({{"XBLOCK", 32}}, 8));
        QVERIFY_RESULT(rules);
        QCOMPARE(*rules->fields[0].max, 512);
        QCOMPARE(rules->fields[0].max_why, std::string("size hint x=512"));
        // A persistent reduction's config has no R0_BLOCK: Inductor does not tune it.
        QCOMPARE(field_names(*rules), (std::vector<std::string>{"XBLOCK", "num_warps"}));
        QVERIFY(std::any_of(rules->notes.begin(), rules->notes.end(), [](const auto& note) {
            return note.find("R0_BLOCK is not tuned: a persistent reduction") != std::string::npos;
        }));
        QVERIFY(rules->why_invalid(config({{"XBLOCK", 1024}}, 8)).has_value());
        QVERIFY(!rules->why_invalid(config({{"XBLOCK", 512}}, 32)).has_value());
        QVERIFY(rules->why_invalid(config({{"XBLOCK", 512}}, 64)).has_value());
    }

    void aLoopedReductionTunesItsReductionBlockInOrder() {
        const auto def = kernel_of("triton_red_fused_mul_sqrt_sum_0");
        QVERIFY(!def.name.empty());
        auto rules = rules_for(def, config({{"XBLOCK", 1}, {"R0_BLOCK", 4096}}, 4));
        QVERIFY_RESULT(rules);
        QCOMPARE(field_names(*rules),
                 (std::vector<std::string>{"XBLOCK", "R0_BLOCK", "num_warps"}));
        QVERIFY(rules->generation.find("R0_=65536") != std::string::npos);
    }

    void aTemplateTunesOnlyWhatItsConfigHolds() {
        const auto def = kernel_of("triton_tem_fused_add_mm_relu_0");
        QVERIFY(!def.name.empty());
        KernelConfig start;
        start.num_warps = 4;
        start.num_stages = 3;
        auto rules = rules_for(def, start);
        QVERIFY_RESULT(rules);
        QCOMPARE(field_names(*rules), (std::vector<std::string>{"num_warps"}));
        QVERIFY(std::any_of(rules->notes.begin(), rules->notes.end(), [](const auto& note) {
            return note.find("BLOCK_M=128") != std::string::npos &&
                   note.find("fixed in this template's source") != std::string::npos;
        }));
    }

    void neighboursStopAtTheFirstValueOutOfRange() {
        Rules rules;
        rules.fields.push_back({"XBLOCK", true, false, 1, 64, "size hint x=64"});
        rules.fields.push_back({"num_stages", false, true, 1, std::nullopt, ""});
        const Field& x = rules.fields[0];
        QCOMPARE(rules.neighbours(x, 16, 1), (std::vector<std::int64_t>{32, 8}));
        QCOMPARE(rules.neighbours(x, 32, 2), (std::vector<std::int64_t>{64, 16, 8}));
        QCOMPARE(rules.neighbours(x, 1, 2, true), (std::vector<std::int64_t>{2, 4, 1}));
        const Field& stages = rules.fields[1];
        QCOMPARE(rules.neighbours(stages, 1, 2), (std::vector<std::int64_t>{2, 3}));
    }

    void improvementNeedsMoreThanATenthOfAPercent() {
        QVERIFY(!has_improvement(1.0, 0.9995));
        QVERIFY(has_improvement(1.0, 0.998));
        QVERIFY(!has_improvement(1.0, std::nullopt));
    }

    // A landscape whose minimum is XBLOCK=64, num_warps=2; each try recorded.
    void coordinateDescentWalksAsInductorDoes() {
        Rules rules;
        rules.fields.push_back({"XBLOCK", true, false, 1, 1024, "size hint x=1024"});
        rules.fields.push_back({"num_warps", false, false, 1, 32, "1024 threads"});
        const auto cost = [](const KernelConfig& c) {
            const double x =
                std::log2(static_cast<double>(std::get<std::int64_t>(*c.kwarg("XBLOCK"))));
            const double w = std::log2(static_cast<double>(*c.num_warps));
            return 1.0 + (x - 6) * (x - 6) + (w - 1) * (w - 1);
        };
        std::vector<std::string> tried;
        std::size_t prefetched = 0;
        const Measure measure = [&](const KernelConfig& c) -> std::optional<double> {
            tried.push_back(c.describe());
            return cost(c);
        };
        const KernelConfig start = config({{"XBLOCK", 256}}, 8);
        auto outcome = coordinate_descent(
            rules, start, cost(start), measure,
            [&](const std::vector<KernelConfig>& configs) { prefetched += configs.size(); },
            [] { return true; }, 0);
        QCOMPARE(outcome.best.describe(), std::string("XBLOCK=64, num_warps=2, num_stages=1"));
        QVERIFY(!outcome.stopped);
        // Greedy, the best moving at once: XBLOCK up (worse), down to 128
        // (taken); then num_warps from 128/8: 16 (worse), 4 (taken); sweep 2
        // from 128/4: XBLOCK 256 (known), 64 (taken); warps 8 (worse), 2 (taken) ...
        const std::vector<std::string> first = {
            "XBLOCK=512, num_warps=8, num_stages=1",  "XBLOCK=128, num_warps=8, num_stages=1",
            "XBLOCK=128, num_warps=16, num_stages=1", "XBLOCK=128, num_warps=4, num_stages=1",
            "XBLOCK=256, num_warps=4, num_stages=1",  "XBLOCK=64, num_warps=4, num_stages=1"};
        QVERIFY(tried.size() >= first.size());
        QCOMPARE(std::vector<std::string>(tried.begin(), tried.begin() + 6), first);
        QVERIFY(prefetched > 0);
        // Each config measured once.
        std::set<std::string> distinct(tried.begin(), tried.end());
        QCOMPARE(distinct.size(), tried.size());
    }

    void allDirectionsFindsWhatOneFieldAtATimeMisses() {
        Rules rules;
        rules.fields.push_back({"XBLOCK", true, false, 1, 1024, ""});
        rules.fields.push_back({"num_warps", false, false, 1, 32, ""});
        // Only a diagonal step helps: XBLOCK x2 and warps x2 together.
        const auto cost = [](const KernelConfig& c) {
            const auto x = std::get<std::int64_t>(*c.kwarg("XBLOCK"));
            return (x == 128 && *c.num_warps == 8) ? 0.5
                                                   : (x == 64 && *c.num_warps == 4 ? 1.0 : 2.0);
        };
        const Measure measure = [&](const KernelConfig& c) -> std::optional<double> {
            return cost(c);
        };
        const KernelConfig start = config({{"XBLOCK", 64}}, 4);
        auto greedy = coordinate_descent(rules, start, 1.0, measure, {}, {}, 0);
        QCOMPARE(greedy.best.describe(), start.describe());
        auto all = coordinate_descent(rules, start, 1.0, measure, {}, {}, 2);
        QCOMPARE(all.best.describe(), std::string("XBLOCK=128, num_warps=8, num_stages=1"));
    }

    void aStopEndsTheSearchWithTheBestSoFar() {
        Rules rules;
        rules.fields.push_back({"XBLOCK", true, false, 1, 1024, ""});
        std::size_t calls = 0;
        const Measure measure = [&](const KernelConfig&) -> std::optional<double> {
            ++calls;
            return 0.5;
        };
        auto outcome = coordinate_descent(
            rules, config({{"XBLOCK", 64}}, 4), 1.0, measure, {}, [&] { return calls < 1; }, 2);
        QVERIFY(outcome.stopped);
        QCOMPARE(calls, 1u);
        QCOMPARE(outcome.best.describe(), std::string("XBLOCK=128, num_warps=4, num_stages=1"));
    }

    void aSpaceListsValidValuesAndSaysWhatItLeftOut() {
        const auto def = kernel_of("triton_per_fused_sum_6");
        auto rules = rules_for(def, config({{"XBLOCK", 32}}, 8));
        QVERIFY_RESULT(rules);
        auto space = parse_space("XBLOCK=128..2048, num_warps=2|8", *rules);
        QVERIFY_RESULT(space);
        QCOMPARE(space->describe(), std::string("XBLOCK=128|256|512, num_warps=2|8"));
        QCOMPARE(space->dropped.size(), 1u);
        QVERIFY(space->dropped[0].find("XBLOCK=1024, 2048 left out: above 512") !=
                std::string::npos);
        const auto grid = grid_configs(*rules, *space, config({{"XBLOCK", 32}}, 8));
        QCOMPARE(grid.size(), 6u);
        QCOMPARE(grid.front().describe(), std::string("XBLOCK=128, num_warps=2, num_stages=1"));
        QCOMPARE(grid.back().describe(), std::string("XBLOCK=512, num_warps=8, num_stages=1"));
        const auto sample = random_configs(*rules, *space, config({{"XBLOCK", 32}}, 8), 4, 7);
        QCOMPARE(sample.size(), 4u);
        QCOMPARE(random_configs(*rules, *space, config({{"XBLOCK", 32}}, 8), 4, 7)[2].describe(),
                 sample[2].describe());
        for (const auto* bad : {"R0_BLOCK=8", "XBLOCK", "XBLOCK=4096..8192", "XBLOCK=a..b",
                                "XBLOCK=8,XBLOCK=16", ""}) {
            auto refused = parse_space(bad, *rules);
            QVERIFY2(!refused, bad);
            QCOMPARE(refused.error().kind, ErrorKind::InvalidArgument);
            QVERIFY(refused.error().message.find("this kernel's fields: XBLOCK (1..512") !=
                    std::string::npos);
        }
    }

    void aBudgetIsATimeACountOrBoth() {
        auto both = parse_budget("90s,40");
        QVERIFY_RESULT(both);
        QCOMPARE(both->time->count(), 90);
        QCOMPARE(*both->configs, 40u);
        QCOMPARE(both->describe(), std::string("90 s or 40 configs"));
        QCOMPARE(parse_budget("5m")->time->count(), 300);
        for (const auto* bad : {"", "0", "-3", "5x", "s", "90s,"}) {
            QVERIFY2(!parse_budget(bad), bad);
        }
    }

    void planListsCachedThenNewCandidates() {
        TuneRequest request;
        request.cache_dir = test::fixture("devset/cache");
        request.kernel = "triton_poi_fused_mm_t";
        auto plan = plan_tune(request);
        QVERIFY_RESULT(plan);
        QCOMPARE(plan->kernel.kernel_name, std::string("triton_poi_fused_mm_t_2"));
        QVERIFY(plan->start_is_current_best);
        QCOMPARE(plan->candidates.front().origin, std::string("cached"));
        QVERIFY(plan->candidates.front().is_current_best);
        std::size_t fresh = 0;
        for (const auto& candidate : plan->candidates) {
            fresh += candidate.origin == "new" ? 1 : 0;
        }
        QCOMPARE(fresh, plan->candidates.size() - 2);
        QCOMPARE(plan->candidates[2].phase, std::string("step 1"));
        QVERIFY(check_module_for_python(*plan).has_value());

        request.kernel = "triton_poi";
        auto ambiguous = plan_tune(request);
        QVERIFY(!ambiguous);
        QVERIFY(ambiguous.error().message.find("names 2 kernels") != std::string::npos);
        request.kernel = "no_such_kernel";
        QCOMPARE(plan_tune(request).error().kind, ErrorKind::NotFound);
        request.kernel = "triton_poi_fused_mm_t_2";
        request.strategy = Strategy::Grid;
        auto no_space = plan_tune(request);
        QVERIFY(!no_space);
        QVERIFY(no_space.error().message.find("--strategy grid needs --space") !=
                std::string::npos);
    }

    // The compile server's pipe: lines both ways, a deadline, an end, stderr kept.
    void aChildSessionTalksLineByLine() {
        const std::vector<std::string> cat = {"/bin/sh", "-c",
                                              "echo ready; while read l; do echo \"got $l\"; "
                                              "done; echo bye >&2; exit 3"};
        auto child = ChildSession::start(cat, {});
        QVERIFY_RESULT(child);
        auto line = child->read_line(std::chrono::seconds(5));
        QVERIFY_RESULT(line);
        QCOMPARE(line->value_or(""), std::string("ready"));
        auto none = child->read_line(std::chrono::milliseconds(50));
        QVERIFY_RESULT(none);
        QVERIFY(!none->has_value());
        QVERIFY_RESULT(child->write("one\ntwo\n"));
        QCOMPARE(child->read_line(std::chrono::seconds(5))->value_or(""), std::string("got one"));
        QCOMPARE(child->read_line(std::chrono::seconds(5))->value_or(""), std::string("got two"));
        child->close_input();
        auto ended = child->read_line(std::chrono::seconds(5));
        QVERIFY(!ended);
        QCOMPARE(ended.error().message, std::string("ended"));
        QCOMPARE(child->wait(), 3);
        QVERIFY(child->stderr_text().find("bye") != std::string::npos);
        // Writing to one that is gone fails; it does not kill us with SIGPIPE.
        QVERIFY(!child->write("late\n"));

        const std::vector<std::string> missing = {"/nonexistent/python3"};
        auto refused = ChildSession::start(missing, {});
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::NotFound);

        // The environment additions reach it.
        const std::vector<std::string> env = {"/bin/sh", "-c", "echo \"$CACHELENS_TUNE_TEST\""};
        ChildSession::Options options;
        options.environment = {{"CACHELENS_TUNE_TEST", "scratch"}};
        auto with_env = ChildSession::start(env, options);
        QVERIFY_RESULT(with_env);
        QCOMPARE(with_env->read_line(std::chrono::seconds(5))->value_or(""),
                 std::string("scratch"));
    }

    void compileRepliesAreCheckedFieldByField() {
        using bench::CompileReply;
        using bench::parse_compile_reply;
        QVERIFY(std::holds_alternative<std::monostate>(parse_compile_reply("torch says hi")));
        auto ready = parse_compile_reply(
            R"(cachelens-tune: {"event":"ready","torch":"2.11.0","triton":"3.5.1","kernel":"k","workers":4})");
        QVERIFY(std::holds_alternative<CompileReply>(ready));
        QCOMPARE(std::get<CompileReply>(ready).workers, 4u);
        auto compiled = parse_compile_reply(
            R"(cachelens-tune: {"event":"compiled","id":7,"triton_dir":"/s/t/AB","triton_hash":"ab","seconds":1.5})");
        QCOMPARE(std::get<CompileReply>(compiled).id, 7u);
        QCOMPARE(std::get<CompileReply>(compiled).triton_dir, std::string("/s/t/AB"));
        for (
            const auto* bad :
            {R"(cachelens-tune: {"event":"compiled","id":7,"triton_dir":"rel","triton_hash":"ab","seconds":1})",
             R"(cachelens-tune: {"event":"compiled","id":-1,"triton_dir":"/a","triton_hash":"ab","seconds":1})",
             R"(cachelens-tune: {"event":"failed","id":1,"reason":"oops","message":"m","seconds":1})",
             R"(cachelens-tune: {"event":"ready","torch":"2","triton":"3","workers":0})",
             R"(cachelens-tune: {"event":"surprise"})", "cachelens-tune: [1,2",
             "cachelens-tune: 3"}) {
            QVERIFY2(std::holds_alternative<std::string>(parse_compile_reply(bad)), bad);
        }
        KernelConfig c = config({{"XBLOCK", 64}}, 4, 2);
        QCOMPARE(bench::compile_request(3, c),
                 std::string(R"({"id":3,"kwargs":{"XBLOCK":64},"num_stages":2,"num_warps":4})") +
                     "\n");
        QVERIFY(bench::compile_server_script().find("cachelens-tune: ") != std::string_view::npos);
    }
};

QTEST_GUILESS_MAIN(TestTune)
#include "tst_tune.moc"
