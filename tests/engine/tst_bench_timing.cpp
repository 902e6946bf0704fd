// The re-benchmark timing protocol against a fake clock (counts, order of
// flushes and timed sections, failures), its statistics against numpy's
// quantiles, the CUDA driver loader where there is no GPU, and the runner's
// host-side parts (cubin lookup, random inputs). The GpuRunner tests at the
// end run only where libcuda.so.1 loads, and skip elsewhere.

#include "cuda_driver.h"
#include "test_paths.h"

#include <cachelens/bench/runner.h>
#include <cachelens/bench/timing.h>
#include <cachelens/core/error.h>

#include <dlfcn.h>

#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <string>

using namespace cachelens;
using namespace cachelens::bench;

namespace {

// A deterministic device: every launch advances a clock by launch_ms(i) (i
// counts launches from 0), a flush by flush_ms; a timed section returns how
// far the clock moved inside it. The log records the order of calls:
// L launch, F flush, [ and ] a timed section, S synchronize.
class FakeTimer final : public Timer {
public:
    std::function<double(int)> launch_ms = [](int) {
        return 0.125;
    };
    double flush_ms = 0.375;
    // The index of the call of each kind that fails (-1: none does).
    int fail_launch = -1;
    int fail_flush = -1;
    int fail_section = -1;
    int fail_sync = -1;

    std::string log;
    // Two timers of a paired run write their tag here per timed section.
    std::string* sections_order = nullptr;
    char tag = '?';
    int launches = 0;
    int flushes = 0;
    int sections = 0;
    int syncs = 0;
    bool nested = false;

    bool launch(std::string& error) override {
        if (launches == fail_launch) {
            error = "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure";
            return false;
        }
        clock_ += launch_ms(launches++);
        log += 'L';
        return true;
    }
    bool flush_l2(std::string& error) override {
        if (flushes == fail_flush) {
            error = "cuMemsetD8Async (L2 flush) failed: CUDA_ERROR_INVALID_VALUE";
            return false;
        }
        ++flushes;
        clock_ += flush_ms;
        log += 'F';
        return true;
    }
    bool time_ms(const std::function<bool(std::string&)>& work, double& ms,
                 std::string& error) override {
        if (sections == fail_section) {
            error = "cuEventRecord failed: CUDA_ERROR_INVALID_HANDLE";
            return false;
        }
        nested = nested || in_section_;
        ++sections;
        if (sections_order != nullptr) {
            *sections_order += tag;
        }
        in_section_ = true;
        log += '[';
        const double start = clock_;
        const bool ok = work(error);
        log += ']';
        in_section_ = false;
        ms = clock_ - start;
        return ok;
    }
    bool synchronize(std::string& error) override {
        if (syncs == fail_sync) {
            error = "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS";
            return false;
        }
        ++syncs;
        log += 'S';
        return true;
    }

private:
    double clock_ = 0;
    bool in_section_ = false;
};

std::string repeat(std::string_view part, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) {
        out += part;
    }
    return out;
}

// do_bench's order: a first launch and a wait; the estimate (flush + launch,
// `estimate` times, in one timed section); warmup launches; per timed run a
// flush outside a section holding one launch; a final wait.
std::string expected_log(int estimate, int warmup, int timed, bool flush) {
    const std::string f = flush ? "F" : "";
    return "LS[" + repeat(f + "L", estimate) + "]" + repeat("L", warmup) +
           repeat(f + "[L]", timed) + "S";
}

// The timed sections after the estimate hold exactly one launch and no flush.
bool sections_hold_one_launch(const std::string& log) {
    const std::size_t estimate_end = log.find(']');
    for (std::size_t at = log.find('[', estimate_end); at != std::string::npos;
         at = log.find('[', at + 1)) {
        if (log.compare(at, 3, "[L]") != 0) {
            return false;
        }
    }
    return true;
}

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

#define QCOMPARE_NEAR(actual, expected)                                                            \
    QVERIFY2(                                                                                      \
        near((actual), (expected)),                                                                \
        qPrintable(                                                                                \
            QStringLiteral("%1 != %2").arg((actual), 0, 'g', 17).arg((expected), 0, 'g', 17)))

std::filesystem::path devset_cache() {
    return test::fixture("devset/cache");
}

const std::string kReduction = "triton_red_fused_mul_sqrt_sum_0";
// The coordinate-descent winner of the devset 2c/ module (XBLOCK 1,
// R0_BLOCK 4096, 4 warps), on disk only.
const std::string kWinnerDir = "triton/0/HK2PZBCC3NQJCLNPPN6EVEIZL2IKDLKVUNJ2ZZE6UTXC7FVL56SA";
// Another candidate (XBLOCK 1, R0_BLOCK 2048, 16 warps) that an FX entry's
// Triton bundle carries as well.
const std::string kBundledDir = "triton/0/42WVLKQDYD5ZCK6CFR2LX6QK6QE2GO6XYEABMMIW3VHRYI62AS7Q";
const std::string kBundledHash = "e6ad55aa03c0fb912bc22c74bbfa0af409a33bd7c100163116dd4f1c23da04bf";
const std::string kBundlingEntry =
    "fxgraph/3g/f3gunfwvnc2bijojank6na6pplhx6nopcc7cx3stulctblbl4cln/"
    "mmgn42gnbm4jve7f37u3zcg3edqjyoyaaqt5pcrl7czyuod5nwe";

LaunchArg buffer_arg(std::string name, std::vector<std::int64_t> shape,
                     std::vector<std::int64_t> stride, std::uint64_t bytes) {
    LaunchArg arg;
    arg.kind = LaunchArg::Kind::Buffer;
    arg.name = std::move(name);
    arg.type = "*fp32";
    arg.shape = std::move(shape);
    arg.stride = std::move(stride);
    arg.dtype = "float32";
    arg.buffer_bytes = bytes;
    arg.random_fill = true;
    return arg;
}

LaunchArg int_arg(std::string name, std::int64_t value) {
    LaunchArg arg;
    arg.kind = LaunchArg::Kind::Int;
    arg.name = std::move(name);
    arg.type = "i32";
    arg.bytes = 4;
    arg.integer = value;
    return arg;
}

LaunchArg scratch_arg(LaunchArg::Kind kind) {
    LaunchArg arg;
    arg.kind = kind;
    arg.name = kind == LaunchArg::Kind::GlobalScratch ? "global_scratch" : "profile_scratch";
    arg.type = "*";
    return arg;
}

// The launch formats.md describes for the devset 2c/ reduction: get_args()
// gives a (4096,) and a (4096, 3000) float32 tensor, xnumel 4096 and
// r0_numel 3000; Grid1D with XBLOCK 1 is 4096 programs; two null scratch
// pointers make the 6 PTX parameters.
LaunchPlan reduction_plan(std::uint32_t warps, std::uint32_t shared) {
    LaunchPlan plan;
    plan.kernel_name = kReduction;
    plan.module_key = "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w";
    plan.source.cubin_name = kReduction + ".cubin";
    plan.grid_type = "Grid1D";
    plan.grid = {4096, 1, 1};
    plan.block_threads = 32 * warps;
    plan.shared_bytes = shared;
    plan.args.push_back(buffer_arg("in_out_ptr0", {4096}, {1}, 4096 * 4));
    plan.args.push_back(buffer_arg("in_ptr0", {4096, 3000}, {3000, 1}, 4096ULL * 3000 * 4));
    plan.args.push_back(int_arg("xnumel", 4096));
    plan.args.push_back(int_arg("r0_numel", 3000));
    plan.args.push_back(scratch_arg(LaunchArg::Kind::GlobalScratch));
    plan.args.push_back(scratch_arg(LaunchArg::Kind::ProfileScratch));
    return plan;
}

bool has_cuda_driver() {
    void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        return false;
    }
    dlclose(handle);
    return true;
}

} // namespace

class TestBenchTiming : public QObject {
    Q_OBJECT

private slots:
    // --- the protocol, on the fake clock ---

    void protocol_follows_do_bench() {
        FakeTimer timer; // launch 0.125 ms, flush 0.375 ms
        const TimingProtocol protocol;
        std::vector<double> samples;
        std::string error;
        QVERIFY2(run_protocol(timer, protocol, samples, error), error.c_str());
        // The estimate section holds 5 flushes and 5 launches: 2.5 ms / 5 =
        // 0.5 ms a run, so int(25 / 0.5) = 50 warmup and int(100 / 0.5) = 200
        // timed runs.
        const RunCounts counts = run_counts(protocol, 0.5);
        QCOMPARE(counts.warmup, 50);
        QCOMPARE(counts.timed, 200);
        QCOMPARE(timer.log, expected_log(5, 50, 200, true));
        QCOMPARE(timer.launches, 1 + 5 + 50 + 200);
        QCOMPARE(timer.flushes, 5 + 200);
        QCOMPARE(timer.sections, 1 + 200);
        QVERIFY(!timer.nested);
        QVERIFY(sections_hold_one_launch(timer.log));
        QCOMPARE(samples.size(), std::size_t{200});
        for (double sample : samples) {
            QCOMPARE(sample, 0.125); // the flush before it is not in it
        }
    }

    void protocol_without_flush() {
        FakeTimer timer;
        TimingProtocol protocol;
        protocol.flush_l2 = false;
        std::vector<double> samples;
        std::string error;
        QVERIFY2(run_protocol(timer, protocol, samples, error), error.c_str());
        // Estimate 0.125 ms: int(25 / 0.125) = 200 warmup, int(100 / 0.125) = 800 timed.
        QCOMPARE(timer.log, expected_log(5, 200, 800, false));
        QCOMPARE(timer.flushes, 0);
        QCOMPARE(samples.size(), std::size_t{800});
    }

    void protocol_in_graph_mode_is_the_same_sequence() {
        // The runner replays a captured graph as its launch; the protocol
        // itself does not change.
        FakeTimer plain;
        FakeTimer graph;
        TimingProtocol protocol;
        std::vector<double> samples;
        std::string error;
        QVERIFY(run_protocol(plain, protocol, samples, error));
        protocol.cuda_graph = true;
        QVERIFY(run_protocol(graph, protocol, samples, error));
        QCOMPARE(graph.log, plain.log);
    }

    void protocol_samples_are_the_timed_launches() {
        FakeTimer timer;
        timer.flush_ms = 0;
        // Launch i takes 1 + (i % 7) / 4 ms (multiples of 1/4: exact sums).
        timer.launch_ms = [](int i) {
            return 1.0 + (i % 7) * 0.25;
        };
        TimingProtocol protocol;
        protocol.warmup_ms = 4;
        protocol.rep_ms = 10;
        std::vector<double> samples;
        std::string error;
        QVERIFY2(run_protocol(timer, protocol, samples, error), error.c_str());
        // Estimate: launches 1..5 take 1.25 + 1.5 + 1.75 + 2 + 2.25 = 8.75 ms,
        // 1.75 ms a run: int(4 / 1.75) = 2 warmup, int(10 / 1.75) = 5 timed.
        QCOMPARE(timer.log, expected_log(5, 2, 5, true));
        QCOMPARE(samples.size(), std::size_t{5});
        const int first_timed = 1 + 5 + 2;
        for (int k = 0; k < 5; ++k) {
            QCOMPARE(samples[static_cast<std::size_t>(k)], timer.launch_ms(first_timed + k));
        }
    }

    void protocol_budget_smaller_than_estimate() {
        FakeTimer timer;
        timer.flush_ms = 0;
        timer.launch_ms = [](int) {
            return 40.0;
        };
        std::vector<double> samples;
        std::string error;
        QVERIFY(run_protocol(timer, TimingProtocol{}, samples, error));
        // max(1, int(25 / 40)) = 1 warmup; max(1, int(100 / 40)) = 2 timed.
        QCOMPARE(timer.log, expected_log(5, 1, 2, true));
        QCOMPARE(samples, (std::vector<double>{40.0, 40.0}));
    }

    void protocol_capped_by_max_runs() {
        FakeTimer timer;
        timer.flush_ms = 0;
        timer.launch_ms = [](int) {
            return 1.0 / 1024;
        };
        TimingProtocol protocol;
        protocol.max_runs = 100;
        protocol.estimate_runs = 3;
        std::vector<double> samples;
        std::string error;
        QVERIFY(run_protocol(timer, protocol, samples, error));
        // 25 / (1/1024) = 25600 and 102400 runs would fit: both capped at 100.
        QCOMPARE(timer.log, expected_log(3, 100, 100, true));
        QCOMPARE(samples.size(), std::size_t{100});
    }

    void protocol_with_a_zero_estimate_runs_the_cap() {
        FakeTimer timer;
        timer.flush_ms = 0;
        timer.launch_ms = [](int) {
            return 0.0;
        };
        TimingProtocol protocol;
        protocol.max_runs = 20;
        std::vector<double> samples;
        std::string error;
        QVERIFY(run_protocol(timer, protocol, samples, error));
        QCOMPARE(timer.log, expected_log(5, 20, 20, true));
    }

    void protocol_stops_at_a_failed_launch_data() {
        QTest::addColumn<int>("failing");
        QTest::addColumn<int>("samples");
        QTest::addColumn<QString>("log");
        // Launch 0 is the first, 1..5 the estimate, 6..55 warmup, 56.. timed.
        QTest::newRow("first") << 0 << 0 << QString();
        QTest::newRow("estimate") << 3 << 0 << QStringLiteral("LS[FLFLF]");
        QTest::newRow("warmup") << 10 << 0 << ("LS[" + qs(repeat("FL", 5)) + "]LLLL");
        QTest::newRow("third timed")
            << 58 << 2 << ("LS[" + qs(repeat("FL", 5)) + "]" + qs(repeat("L", 50)) + "F[L]F[L]F[]");
    }
    void protocol_stops_at_a_failed_launch() {
        QFETCH(int, failing);
        QFETCH(int, samples);
        QFETCH(QString, log);
        FakeTimer timer;
        timer.fail_launch = failing;
        std::vector<double> gathered;
        std::string error;
        QVERIFY(!run_protocol(timer, TimingProtocol{}, gathered, error));
        QCOMPARE(
            qs(error),
            QStringLiteral(
                "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"));
        QCOMPARE(qs(timer.log), log);
        QCOMPARE(gathered.size(), static_cast<std::size_t>(samples));
    }

    void protocol_stops_at_a_failed_flush() {
        // Flushes 0..4 are in the estimate, 5.. before the timed runs.
        for (const auto& [failing, samples] : {std::pair{2, 0}, std::pair{5, 0}, std::pair{8, 3}}) {
            FakeTimer timer;
            timer.fail_flush = failing;
            std::vector<double> gathered;
            std::string error;
            QVERIFY(!run_protocol(timer, TimingProtocol{}, gathered, error));
            QCOMPARE(qs(error),
                     QStringLiteral("cuMemsetD8Async (L2 flush) failed: CUDA_ERROR_INVALID_VALUE"));
            QCOMPARE(gathered.size(), static_cast<std::size_t>(samples));
            QCOMPARE(timer.flushes, failing);
        }
    }

    void protocol_stops_at_a_failed_section_or_wait() {
        {
            FakeTimer timer;
            timer.fail_section = 0; // the estimate
            std::vector<double> samples;
            std::string error;
            QVERIFY(!run_protocol(timer, TimingProtocol{}, samples, error));
            QCOMPARE(qs(error), QStringLiteral("cuEventRecord failed: CUDA_ERROR_INVALID_HANDLE"));
            QCOMPARE(timer.log, std::string("LS"));
        }
        {
            FakeTimer timer;
            timer.fail_section = 4; // the fourth timed run
            std::vector<double> samples;
            std::string error;
            QVERIFY(!run_protocol(timer, TimingProtocol{}, samples, error));
            QCOMPARE(samples.size(), std::size_t{3});
        }
        for (int failing : {0, 1}) { // after the first launch; at the end
            FakeTimer timer;
            timer.fail_sync = failing;
            std::vector<double> samples;
            std::string error;
            QVERIFY(!run_protocol(timer, TimingProtocol{}, samples, error));
            QCOMPARE(qs(error),
                     QStringLiteral("cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS"));
            QCOMPARE(timer.launches, failing == 0 ? 1 : 256);
        }
    }

    // --- counts and statistics ---

    void run_counts_edges() {
        const TimingProtocol protocol; // 25 / 100 ms, at most 10000
        const auto check = [&](double estimate, int warmup, int timed) {
            const RunCounts counts = run_counts(protocol, estimate);
            QCOMPARE(counts.warmup, warmup);
            QCOMPARE(counts.timed, timed);
        };
        check(0.5, 50, 200);
        check(0.3, 83, 333);           // int() truncates: 83.3, 333.3
        check(30.0, 1, 3);             // warmup budget smaller than one run
        check(250.0, 1, 1);            // both budgets smaller
        check(0.001, 10000, 10000);    // 25000 and 100000: the cap
        check(1.0 / 128, 3200, 10000); // 25 * 128 fits, 100 * 128 does not
        // No measurable time: the most runs the cap allows.
        check(0.0, 10000, 10000);
        check(-1.0, 10000, 10000);
        check(std::nan(""), 10000, 10000);
        TimingProtocol no_cap = protocol;
        no_cap.max_runs = 0; // at least one run still
        QCOMPARE(run_counts(no_cap, 0.5).timed, 1);
        TimingProtocol small = protocol;
        small.max_runs = 7;
        QCOMPARE(run_counts(small, 1e-300).warmup, 7);
    }

    void stats_match_numpy() {
        // Expected values are numpy.quantile(samples, q) (method "linear",
        // also torch.quantile's): sorted s, position q * (n - 1), linear
        // between its neighbours; median is q = 0.5.
        {
            // One sample: every statistic is that sample.
            const TimingStats s = stats_of({3.0});
            QCOMPARE(s.median_ms, 3.0);
            QCOMPARE(s.min_ms, 3.0);
            QCOMPARE(s.p20_ms, 3.0);
            QCOMPARE(s.p80_ms, 3.0);
            QCOMPARE(s.mean_ms, 3.0);
        }
        {
            // [4, 1, 3, 2] -> 1 2 3 4: p20 at 0.6 = 1.6, median at 1.5 = 2.5,
            // p80 at 2.4 = 3.4; mean 2.5.
            const TimingStats s = stats_of({4, 1, 3, 2});
            QCOMPARE_NEAR(s.p20_ms, 1.6);
            QCOMPARE_NEAR(s.median_ms, 2.5);
            QCOMPARE_NEAR(s.p80_ms, 3.4);
            QCOMPARE(s.min_ms, 1.0);
            QCOMPARE_NEAR(s.mean_ms, 2.5);
        }
        {
            // Ties: 1 3 3 7 7 9: p20 at 1.0 = 3, median at 2.5 = 3 + 0.5 * 4 =
            // 5, p80 at 4.0 = 7; mean 30 / 6 = 5.
            const TimingStats s = stats_of({7, 7, 1, 9, 3, 3});
            QCOMPARE_NEAR(s.p20_ms, 3.0);
            QCOMPARE_NEAR(s.median_ms, 5.0);
            QCOMPARE_NEAR(s.p80_ms, 7.0);
            QCOMPARE(s.min_ms, 1.0);
            QCOMPARE_NEAR(s.mean_ms, 5.0);
        }
        {
            // Kernel-like samples: 0.0222 0.0230 0.0241 0.0250 0.0260; p20 at
            // 0.8 = 0.0222 + 0.8 * 0.0008 = 0.02284; median at 2 = 0.0241; p80
            // at 3.2 = 0.0250 + 0.2 * 0.0010 = 0.0252; mean 0.1203 / 5 = 0.02406.
            const TimingStats s = stats_of({0.0241, 0.0230, 0.0250, 0.0222, 0.0260});
            QCOMPARE_NEAR(s.p20_ms, 0.02284);
            QCOMPARE_NEAR(s.median_ms, 0.0241);
            QCOMPARE_NEAR(s.p80_ms, 0.0252);
            QCOMPARE(s.min_ms, 0.0222);
            QCOMPARE_NEAR(s.mean_ms, 0.02406);
        }
        {
            // 1..10: p20 at 1.8 = 2.8, median at 4.5 = 5.5, p80 at 7.2 = 8.2.
            const TimingStats s = stats_of({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
            QCOMPARE_NEAR(s.p20_ms, 2.8);
            QCOMPARE_NEAR(s.median_ms, 5.5);
            QCOMPARE_NEAR(s.p80_ms, 8.2);
            QCOMPARE(s.min_ms, 1.0);
            QCOMPARE_NEAR(s.mean_ms, 5.5);
        }
        {
            const TimingStats s = stats_of({});
            QCOMPARE(s.median_ms, 0.0);
            QCOMPARE(s.mean_ms, 0.0);
        }
    }

    void protocol_describes_itself() {
        TimingProtocol protocol;
        QCOMPARE(qs(protocol.describe()),
                 QStringLiteral("estimate 5, warmup 25 ms, rep 100 ms, at most 10000 runs, L2 "
                                "flushed"));
        protocol.warmup_ms = 2.5;
        protocol.flush_l2 = false;
        protocol.cuda_graph = true;
        QCOMPARE(qs(protocol.describe()),
                 QStringLiteral("estimate 5, warmup 2.5 ms, rep 100 ms, at most 10000 runs, L2 "
                                "not flushed, CUDA graph"));
    }

    // --- paired re-timing: the current best (A) beside a challenger (B) ---

    void paired_protocol_alternates_the_sides() {
        std::string order;
        FakeTimer a;
        FakeTimer b;
        a.sections_order = b.sections_order = &order;
        a.tag = 'a';
        b.tag = 'b';
        a.launch_ms = [](int) {
            return 0.2;
        };
        b.launch_ms = [](int) {
            return 0.1;
        };
        TimingProtocol protocol;
        protocol.warmup_ms = 1.0; // the estimate: 5 x (0.375 + 0.2) / 5 = 0.575 ms per run
        protocol.rep_ms = 3.0;    // 1 ms a round: one run of the slower side fits
        std::vector<PairedRound> rounds;
        int failed_side = -1;
        std::string error;
        QVERIFY2(run_paired_protocol(a, b, protocol, PairedProtocol{.rounds = 3}, rounds,
                                     failed_side, error),
                 error.c_str());
        // Estimates, then rounds A B, B A, A B: neither side always goes first.
        QCOMPARE(qs(order), QStringLiteral("ab"
                                           "ab"
                                           "ba"
                                           "ab"));
        // One side: first launch and wait, the estimate, warmup, then flushed
        // single-launch sections, a final wait.
        QCOMPARE(qs(a.log), QStringLiteral("LS[FLFLFLFLFL]LS") + qs(repeat("F[L]", 3)) + "S");
        QCOMPARE(qs(b.log), QStringLiteral("LS[FLFLFLFLFL]LLS") + qs(repeat("F[L]", 3)) + "S");
        QCOMPARE(rounds.size(), std::size_t{3});
        for (const auto& round : rounds) {
            QCOMPARE(round.a_ms, 0.2);
            QCOMPARE(round.b_ms, 0.1);
        }
    }

    void paired_protocol_reports_the_failing_side() {
        FakeTimer a;
        FakeTimer b;
        b.fail_launch = 12; // 1 + 5 (estimate) + 5 (warmup): B's second timed run
        TimingProtocol protocol;
        protocol.warmup_ms = 2.5; // the estimate is 0.5 ms a run: 5 warmup runs
        protocol.rep_ms = 5.0;
        std::vector<PairedRound> rounds;
        int failed_side = -1;
        std::string error;
        QVERIFY(!run_paired_protocol(a, b, protocol, PairedProtocol{.rounds = 5}, rounds,
                                     failed_side, error));
        QCOMPARE(failed_side, 1);
        QCOMPARE(
            qs(error),
            QStringLiteral(
                "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"));
        QVERIFY(rounds.size() < 5);
        // A's warmup failing names A.
        FakeTimer c;
        FakeTimer d;
        c.fail_sync = 0;
        QVERIFY(!run_paired_protocol(c, d, protocol, PairedProtocol{.rounds = 5}, rounds,
                                     failed_side, error));
        QCOMPARE(failed_side, 0);
        QVERIFY(rounds.empty());
    }

    void verdict_faster_beyond_noise() {
        std::vector<PairedRound> rounds(38, PairedRound{1.0, 0.921});
        rounds.push_back({1.0, 1.05});
        rounds.push_back({1.0, 1.05});
        const PairedVerdict verdict = judge_pair(rounds);
        QVERIFY(verdict.b_faster());
        QCOMPARE(verdict.rounds, 40);
        QCOMPARE(verdict.b_faster_rounds, 38);
        QVERIFY(verdict.p_value < 1e-8);
        QCOMPARE(qs(verdict.describe()),
                 QStringLiteral("the candidate is 7.9% faster than the current best: 38 of 40 "
                                "paired rounds agree (95%)"));
    }

    void verdict_within_noise() {
        // 12 of 20 rounds for B: a fair coin does that 25% of the time.
        std::vector<PairedRound> rounds(12, PairedRound{1.0, 0.98});
        rounds.insert(rounds.end(), 8, PairedRound{1.0, 1.02});
        const PairedVerdict verdict = judge_pair(rounds);
        QVERIFY(!verdict.b_faster());
        QVERIFY(verdict.outcome == PairedVerdict::Outcome::NoDifference);
        QVERIFY(std::abs(verdict.p_value - 0.2517) < 1e-4);
        QCOMPARE(qs(verdict.describe()),
                 QStringLiteral("no difference beyond noise: the candidate is 2.0% faster in the "
                                "median, but only 12 of 20 paired rounds agree (60%)"));
        // Every round agreeing is still not enough when there are too few of them.
        const PairedVerdict few = judge_pair(std::vector<PairedRound>(4, PairedRound{1.0, 0.5}));
        QVERIFY(!few.b_faster());
        QCOMPARE(few.p_value, 1.0 / 16);
        QVERIFY(judge_pair(std::vector<PairedRound>(5, PairedRound{1.0, 0.5})).b_faster());
    }

    void verdict_slower_and_empty() {
        const PairedVerdict slower =
            judge_pair(std::vector<PairedRound>(10, PairedRound{1.0, 1.1}));
        QVERIFY(slower.outcome == PairedVerdict::Outcome::Slower);
        QCOMPARE(qs(slower.describe("B", "A")),
                 QStringLiteral("B is 10.0% slower than A: 10 of 10 paired rounds agree (100%)"));
        // Rounds the events could not time (0 ms) give no ratio.
        const PairedVerdict empty = judge_pair({{0.0, 0.1}, {0.1, 0.0}});
        QCOMPARE(empty.rounds, 0);
        QVERIFY(!empty.b_faster());
        QCOMPARE(qs(empty.describe()), QStringLiteral("no paired round could be compared"));
    }

    void challenges_pick_the_fastest_other_candidate() {
        KernelCandidates kernel;
        kernel.kernel_name = "triton_red_0";
        kernel.module_key = "cabc";
        for (const char* hash : {"best", "slow", "fast", "failed"}) {
            LaunchPlan plan;
            plan.kernel_name = kernel.kernel_name;
            plan.module_key = kernel.module_key;
            plan.source.triton_hash = hash;
            plan.is_current_best = std::string_view(hash) == "best";
            kernel.plans.push_back(plan);
        }
        const auto result = [&](const char* hash, double median, std::string status = "ok") {
            CandidateResult r;
            r.kernel_name = kernel.kernel_name;
            r.module_key = kernel.module_key;
            r.triton_hash = hash;
            r.status = status;
            r.samples_ms = {median};
            r.stats = stats_of(r.samples_ms);
            return r;
        };
        std::vector<KernelCandidates> kernels{kernel};
        auto found =
            find_challenges(kernels, {result("failed", 0.001, "launch"), result("fast", 0.9),
                                      result("best", 1.0), result("slow", 1.2)});
        QCOMPARE(found.size(), std::size_t{1});
        QCOMPARE(qs(found[0].best->source.triton_hash), QStringLiteral("best"));
        QCOMPARE(qs(found[0].challenger->source.triton_hash), QStringLiteral("fast"));
        // Nothing beat the best, or the best did not run: no challenge.
        QVERIFY(find_challenges(kernels, {result("best", 0.5), result("fast", 0.9)}).empty());
        QVERIFY(
            find_challenges(kernels, {result("best", 0.5, "load"), result("fast", 0.9)}).empty());
    }

    // --- the driver loader without a GPU ---

    void open_without_a_driver_says_so() {
        if (has_cuda_driver()) {
            QSKIP("libcuda.so.1 loads here: gpu_runner_opens covers open()");
        }
        for (int device : {0, 3}) {
            auto runner = GpuRunner::open(device);
            QVERIFY(!runner);
            QCOMPARE(runner.error().kind, ErrorKind::NotFound);
            const QString message = qs(runner.error().describe());
            QVERIFY2(message.startsWith("no CUDA driver: libcuda.so.1 not found (libcuda.so.1: "),
                     qPrintable(message));
            QVERIFY2(message.contains("cannot open shared object file"), qPrintable(message));
        }
    }

    void loader_names_what_is_missing() {
        {
            auto probed = detail::probe_driver_library("libcachelens-no-such-library.so.1");
            QVERIFY(!probed);
            QCOMPARE(probed.error().kind, ErrorKind::NotFound);
            QVERIFY2(
                qs(probed.error().describe())
                    .startsWith("no CUDA driver: libcachelens-no-such-library.so.1 not found ("),
                qPrintable(qs(probed.error().describe())));
        }
        {
            // A library that exists but is no CUDA driver.
            auto probed = detail::probe_driver_library("libm.so.6");
            QVERIFY(!probed);
            QCOMPARE(probed.error().kind, ErrorKind::Unsupported);
            QCOMPARE(qs(probed.error().describe()),
                     QStringLiteral("cuGetProcAddress_v2 not found in libm.so.6: not a CUDA "
                                    "driver, or one older than 12.0"));
        }
    }

    void loader_rejects_the_toolkit_stub() {
        // The toolkit's link-time stub exports every name, but its
        // cuGetProcAddress_v2 serves none (CUDA_ERROR_STUB_LIBRARY).
        const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
        if (!std::filesystem::exists(stub)) {
            QSKIP("no CUDA toolkit stub at /usr/local/cuda/lib64/stubs");
        }
        auto probed = detail::probe_driver_library(stub);
        QVERIFY(!probed);
        QCOMPARE(probed.error().kind, ErrorKind::Unsupported);
        QCOMPARE(qs(probed.error().describe()),
                 qs(stub + " is the CUDA toolkit's stub library, not a driver "
                           "(CUDA_ERROR_STUB_LIBRARY from cuGetProcAddress for cuGetErrorName)"));
    }

    void cuda_errors_read_well() {
        QCOMPARE(qs(detail::format_cuda_error(100, "CUDA_ERROR_NO_DEVICE",
                                              "no CUDA-capable device is detected")),
                 QStringLiteral("CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"));
        QCOMPARE(qs(detail::format_cuda_error(1, "CUDA_ERROR_INVALID_VALUE", nullptr)),
                 QStringLiteral("CUDA_ERROR_INVALID_VALUE"));
        QCOMPARE(qs(detail::format_cuda_error(12345, nullptr, nullptr)),
                 QStringLiteral("CUDA error 12345"));
    }

    // --- the runner's host side ---

    void cubin_from_dir_and_from_bundle() {
        const auto cache = devset_cache();
        const QByteArray on_disk = test::read_file(cache / kBundledDir / (kReduction + ".cubin"));
        QVERIFY(on_disk.startsWith("\x7f"
                                   "ELF"));

        TritonSource from_dir;
        from_dir.dir = kBundledDir;
        from_dir.cubin_name = kReduction + ".cubin";
        auto read = detail::read_cubin(cache, from_dir);
        QVERIFY_RESULT(read);
        QCOMPARE(QByteArray::fromStdString(*read), on_disk);

        // The FX entry alone: the Triton dir name comes from the hex hash.
        TritonSource from_bundle;
        from_bundle.triton_hash = kBundledHash;
        from_bundle.fx_entry = kBundlingEntry;
        from_bundle.cubin_name = kReduction + ".cubin";
        read = detail::read_cubin(cache, from_bundle);
        QVERIFY_RESULT(read);
        QCOMPARE(QByteArray::fromStdString(*read), on_disk);

        // A dir that is gone falls back to the bundle.
        from_bundle.dir = "triton/0/gone";
        read = detail::read_cubin(cache, from_bundle);
        QVERIFY_RESULT(read);
        QCOMPARE(QByteArray::fromStdString(*read), on_disk);
        from_bundle.dir.clear();

        // A candidate the bundle does not carry.
        TritonSource missing = from_bundle;
        missing.triton_hash = "3ab4fc8442db60912daf7b7c4a91195e90a1ad55a353ace49ea4ee2f96abefa4";
        read = detail::read_cubin(cache, missing);
        QVERIFY(!read);
        QCOMPARE(read.error().kind, ErrorKind::NotFound);
        QVERIFY2(qs(read.error().describe())
                     .endsWith("its Triton bundle has no " + qs(kReduction) +
                               ".cubin in HK2PZBCC3NQJCLNPPN6EVEIZL2IKDLKVUNJ2ZZE6UTXC7FVL56SA"),
                 qPrintable(qs(read.error().describe())));

        TritonSource nowhere;
        nowhere.cubin_name = "x.cubin";
        QCOMPARE(detail::read_cubin(cache, nowhere).error().kind, ErrorKind::InvalidArgument);
        nowhere.dir = "triton/0/NOSUCHDIR";
        QCOMPARE(detail::read_cubin(cache, nowhere).error().kind, ErrorKind::NotFound);
    }

    void random_inputs_are_in_unit_interval() {
        std::mt19937_64 random(1);
        const auto decode_all = [](const std::string& bytes, std::size_t size, auto decode) {
            std::vector<double> values;
            for (std::size_t at = 0; at + size <= bytes.size(); at += size) {
                values.push_back(decode(bytes.data() + at));
            }
            return values;
        };
        const auto half_to_double = [](const char* at) {
            std::uint16_t bits = 0;
            std::memcpy(&bits, at, 2);
            const int exponent = (bits >> 10) & 0x1f;
            const int fraction = bits & 0x3ff;
            if (bits & 0x8000) {
                return -1.0; // negative: out of range
            }
            if (exponent == 0) {
                return std::ldexp(fraction, -24);
            }
            if (exponent == 31) {
                return 2.0; // inf/nan: out of range
            }
            return std::ldexp(1024 + fraction, exponent - 25);
        };
        const auto bf16_to_double = [](const char* at) {
            std::uint16_t bits = 0;
            std::memcpy(&bits, at, 2);
            const std::uint32_t wide = std::uint32_t{bits} << 16;
            float value = 0;
            std::memcpy(&value, &wide, 4);
            return double{value};
        };
        const auto f32 = [](const char* at) {
            float value = 0;
            std::memcpy(&value, at, 4);
            return double{value};
        };
        const auto f64 = [](const char* at) {
            double value = 0;
            std::memcpy(&value, at, 8);
            return value;
        };
        struct Case {
            const char* dtype;
            std::size_t size;
            std::function<double(const char*)> decode;
            std::size_t distinct_at_least;
        };
        const Case cases[] = {
            {"float32", 4, f32, 3000},
            {"float64", 8, f64, 3000},
            {"float16", 2, half_to_double, 1500}, // 2048 values exist
            {"bfloat16", 2, bf16_to_double, 200}, // 256 values exist
        };
        for (const Case& c : cases) {
            auto bytes = detail::random_bytes(c.dtype, 4096 * c.size, random);
            QVERIFY(bytes);
            QCOMPARE(bytes->size(), 4096 * c.size);
            const auto values = decode_all(*bytes, c.size, c.decode);
            std::set<double> distinct(values.begin(), values.end());
            double sum = 0;
            for (double value : values) {
                QVERIFY2(value >= 0.0 && value < 1.0, c.dtype);
                sum += value;
            }
            QVERIFY2(distinct.size() >= c.distinct_at_least, c.dtype);
            const double mean = sum / static_cast<double>(values.size());
            QVERIFY2(mean > 0.45 && mean < 0.55, c.dtype); // uniform: about 1/2
        }
        // Integer and bool inputs stay zero, as rand_strided leaves them.
        QVERIFY(!detail::random_bytes("int64", 64, random));
        QVERIFY(!detail::random_bytes("bool", 64, random));
        // A size that is not a whole number of elements leaves the tail zero.
        auto odd = detail::random_bytes("float32", 6, random);
        QVERIFY(odd);
        QCOMPARE(odd->size(), std::size_t{6});
        QCOMPARE(odd->substr(4), std::string(2, '\0'));
    }

    // --- on a GPU only ---

    void gpu_runner_opens() {
        if (!has_cuda_driver()) {
            QSKIP("no libcuda.so.1 here: open_without_a_driver_says_so covers open()");
        }
        auto runner = GpuRunner::open(0);
        QVERIFY_RESULT(runner);
        const DeviceFacts& facts = runner->device();
        qInfo("%s, compute capability %s, driver %s, L2 %lld bytes, SM clock %lld MHz",
              facts.name.c_str(), facts.compute_capability.c_str(), facts.driver_version.c_str(),
              static_cast<long long>(facts.l2_bytes),
              static_cast<long long>(facts.sm_clock_mhz.value_or(-1)));
        QVERIFY(!facts.name.empty());
        QVERIFY(QRegularExpression("^\\d+\\.\\d$").match(qs(facts.compute_capability)).hasMatch());
        QVERIFY(QRegularExpression("^1\\d\\.\\d$").match(qs(facts.driver_version)).hasMatch());
        QVERIFY(facts.l2_bytes > 0);

        auto missing = GpuRunner::open(99);
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, ErrorKind::InvalidArgument);
        QVERIFY2(qs(missing.error().describe()).startsWith("device 99 does not exist: "),
                 qPrintable(qs(missing.error().describe())));
    }

    void gpu_runner_times_the_devset_reduction() {
        if (!has_cuda_driver()) {
            QSKIP("no libcuda.so.1 here");
        }
        auto runner = GpuRunner::open(0);
        QVERIFY_RESULT(runner);
        const auto cache = devset_cache();

        LaunchPlan winner = reduction_plan(4, 16);
        winner.source.dir = kWinnerDir;
        winner.is_current_best = true;
        LaunchPlan bundled = reduction_plan(16, 64);
        bundled.source.fx_entry = kBundlingEntry;
        bundled.source.triton_hash = kBundledHash;

        TimingProtocol graph;
        graph.cuda_graph = true;
        for (const auto& [plan, protocol, label] :
             {std::tuple{winner, TimingProtocol{}, "winner"},
              std::tuple{bundled, TimingProtocol{}, "bundled (from the FX entry)"},
              std::tuple{winner, graph, "winner, CUDA graph"}}) {
            auto result = runner->run(cache, plan, protocol);
            QVERIFY_RESULT(result);
            QVERIFY2(result->status == "ok", result->message.c_str());
            QCOMPARE(result->kernel_name, kReduction);
            QCOMPARE(result->was_best, plan.is_current_best);
            const TimingStats& s = result->stats;
            qInfo("%s: %zu samples, median %.4f ms (p20 %.4f, p80 %.4f, min %.4f)", label,
                  result->samples_ms.size(), s.median_ms, s.p20_ms, s.p80_ms, s.min_ms);
            QVERIFY(!result->samples_ms.empty());
            QVERIFY(result->samples_ms.size() <= 10'000);
            // formats.md saw 0.022-0.025 ms on an H100; any GPU of this
            // decade lands within these bounds.
            QVERIFY(s.median_ms > 0.002 && s.median_ms < 1.0);
            QVERIFY(s.min_ms <= s.p20_ms && s.p20_ms <= s.median_ms && s.median_ms <= s.p80_ms);
        }
    }

    void gpu_runner_reports_candidate_failures() {
        if (!has_cuda_driver()) {
            QSKIP("no libcuda.so.1 here");
        }
        auto runner = GpuRunner::open(0);
        QVERIFY_RESULT(runner);
        const auto cache = devset_cache();
        TimingProtocol quick;
        quick.warmup_ms = 1;
        quick.rep_ms = 2;

        LaunchPlan wrong_name = reduction_plan(4, 16);
        wrong_name.source.dir = kWinnerDir;
        wrong_name.kernel_name = "no_such_kernel";
        auto result = runner->run(cache, wrong_name, quick);
        QVERIFY_RESULT(result);
        QCOMPARE(qs(result->status), QStringLiteral("load"));
        QVERIFY2(qs(result->message).startsWith("cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND"),
                 result->message.c_str());
        QVERIFY(result->samples_ms.empty());

        LaunchPlan no_cubin = reduction_plan(4, 16);
        no_cubin.source.dir = "triton/0/NOSUCHDIR";
        result = runner->run(cache, no_cubin, quick);
        QVERIFY_RESULT(result);
        QCOMPARE(qs(result->status), QStringLiteral("load"));

        LaunchPlan too_much_shared = reduction_plan(4, 16);
        too_much_shared.source.dir = kWinnerDir;
        too_much_shared.shared_bytes = 1 << 20;
        result = runner->run(cache, too_much_shared, quick);
        QVERIFY_RESULT(result);
        QCOMPARE(qs(result->status), QStringLiteral("resources"));
        QVERIFY2(qs(result->message).startsWith("needs 1048576 bytes of shared memory"),
                 result->message.c_str());

        LaunchPlan too_many_threads = reduction_plan(4, 16);
        too_many_threads.source.dir = kWinnerDir;
        too_many_threads.block_threads = 256; // the cubin requires 128 (.reqntid)
        result = runner->run(cache, too_many_threads, quick);
        QVERIFY_RESULT(result);
        QCOMPARE(qs(result->status), QStringLiteral("launch"));
        QVERIFY2(qs(result->message).startsWith("cuLaunchKernel failed: "),
                 result->message.c_str());

        // None of these broke the context: the real plan still runs.
        LaunchPlan fine = reduction_plan(4, 16);
        fine.source.dir = kWinnerDir;
        result = runner->run(cache, fine, quick);
        QVERIFY_RESULT(result);
        QVERIFY2(result->status == "ok", result->message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestBenchTiming)
#include "tst_bench_timing.moc"
