// The Benchmarks page: the parser of `cachelens bench --json-lines` on output
// split anywhere and on lines it cannot read; the results and history models
// under QAbstractItemModelTester; and the page driven with a fake `cachelens`
// (a shell script that prints canned JSON lines and logs its arguments): the
// progress, the table with the fastest config of each kernel tinted, the box
// plot per config, the history from the catalog, Cancel on a run that sleeps,
// the errors a run can end with, and "Make best config" running
// `bench accept` with the right arguments.

#include "data/bench_run_parser.h"
#include "dialogs/dialog_launcher.h"
#include "dialogs/tune_dialog.h"
#include "fake_cli.h"
#include "jobs/job_tracker.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/bench_history_model.h"
#include "models/bench_results_model.h"
#include "pages/bench_page.h"
#include "pages/browse_page.h"
#include "startup_script.h"
#include "test_paths.h"
#include "widgets/highlight_colors.h"

#include <cachelens/bench/bench_protocol.h>
#include <cachelens/bench/bench_store.h>
#include <cachelens/catalog/catalog.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <set>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

// Answers the next message box (a modal one: polled for) with `button`,
// keeping its text in `asked`.
void answerNextQuestion(QMessageBox::StandardButton button, QString* asked) {
    auto* timer = new QTimer;
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, [timer, button, asked] {
        for (QWidget* widget : QApplication::topLevelWidgets()) {
            auto* box = qobject_cast<QMessageBox*>(widget);
            if (box != nullptr && box->isVisible() && box->button(button) != nullptr) {
                *asked = box->text();
                timer->stop();
                timer->deleteLater();
                box->button(button)->click();
                return;
            }
        }
    });
    timer->start();
}

const QString kKernelA = QStringLiteral("triton_red_fused_mul_sqrt_sum_0");
const QString kModuleA = QStringLiteral("c2cluqctdhv5bk2zjvn3ozx7lsbmwkxvfy7pwq6r7pegzvbrhz4m");
const QString kKernelB = QStringLiteral("triton_poi_fused_add_1");
const QString kModuleB = QStringLiteral("cbp4e7wa3qq3ryakn5u5pw2vvhiqyv4zlxa7p3pzvkdwhdh5osym");
const QString kHashA1 =
    QStringLiteral("7f3a9c1e22b04d55a1c6e0f9b8d7c6a5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9");

struct Candidate {
    QString kernel;
    QString module;
    QString hash;
    QString configText;
    bool wasBest = false;
    QString status = QStringLiteral("ok");
    QString message;
    std::vector<double> samples;
};

// Two kernels, three configs each: in A the current best (the first) is not
// the fastest (the second); in B the third fails to load.
std::vector<Candidate> candidates() {
    auto spread = [](double median, double step, int count) {
        std::vector<double> samples;
        for (int i = 0; i < count; ++i) {
            samples.push_back(median + step * (i - count / 2));
        }
        return samples;
    };
    return {
        {kKernelA,
         kModuleA,
         QStringLiteral("a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1"),
         QStringLiteral("XBLOCK=1, R0_BLOCK=2048, num_warps=4, num_stages=1"),
         true,
         QStringLiteral("ok"),
         {},
         spread(0.0300, 0.0004, 9)},
        {kKernelA,
         kModuleA,
         kHashA1,
         QStringLiteral("XBLOCK=1, R0_BLOCK=4096, num_warps=8, num_stages=1"),
         false,
         QStringLiteral("ok"),
         {},
         spread(0.0241, 0.0003, 11)},
        {kKernelA,
         kModuleA,
         QStringLiteral("c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8"),
         QStringLiteral("XBLOCK=1, R0_BLOCK=1024, num_warps=2, num_stages=1"),
         false,
         QStringLiteral("ok"),
         {},
         spread(0.0410, 0.0006, 7)},
        {kKernelB,
         kModuleB,
         QStringLiteral("11aa22bb33cc44dd55ee66ff77008899aabbccddeeff00112233445566778899"),
         QStringLiteral("XBLOCK=256, num_warps=4, num_stages=1"),
         true,
         QStringLiteral("ok"),
         {},
         spread(1.250, 0.01, 9)},
        {kKernelB,
         kModuleB,
         QStringLiteral("22bb33cc44dd55ee66ff77008899aabbccddeeff0011223344556677889900aa"),
         QStringLiteral("XBLOCK=1024, num_warps=4, num_stages=1"),
         false,
         QStringLiteral("ok"),
         {},
         spread(1.100, 0.02, 9)},
        {kKernelB,
         kModuleB,
         QStringLiteral("33cc44dd55ee66ff77008899aabbccddeeff001122334455667788990011bbcc"),
         QStringLiteral("XBLOCK=2048, num_warps=16, num_stages=1"),
         false,
         QStringLiteral("resources"),
         QStringLiteral("too much shared memory: 262144 bytes, the device has 232448"),
         {}},
    };
}

namespace protocol = bench::protocol;

// A record as the CLI prints it: written by the engine's protocol writer.
QByteArray line(const protocol::Record& record) {
    return QByteArray::fromStdString(protocol::to_line(record)) + '\n';
}

QByteArray headerLine() {
    return line(protocol::Header{.program = "cachelens test"});
}

double percentile(std::vector<double> samples, double q) {
    std::sort(samples.begin(), samples.end());
    const double position = q * static_cast<double>(samples.size() - 1);
    const auto below = static_cast<std::size_t>(position);
    const auto above = std::min(below + 1, samples.size() - 1);
    return samples[below] +
           (samples[above] - samples[below]) * (position - static_cast<double>(below));
}

// "XBLOCK=1, R0_BLOCK=2048, num_warps=4, num_stages=1" as a config, so that
// the record's config_text is exactly the candidate's.
cachedir::KernelConfig configOf(const QString& text) {
    cachedir::KernelConfig config;
    for (const QString& part : text.split(QStringLiteral(", "))) {
        const QString name = part.section(u'=', 0, 0);
        const std::int64_t value = part.section(u'=', 1).toLongLong();
        if (name == QLatin1String("num_warps")) {
            config.num_warps = value;
        } else if (name == QLatin1String("num_stages")) {
            config.num_stages = value;
        } else {
            config.kwargs.emplace_back(name.toStdString(), value);
        }
    }
    return config;
}

protocol::Result resultRecord(const Candidate& candidate, int index, int total) {
    bench::CandidateResult result;
    result.kernel_name = candidate.kernel.toStdString();
    result.module_key = candidate.module.toStdString();
    result.triton_hash = candidate.hash.toStdString();
    result.config = configOf(candidate.configText);
    result.was_best = candidate.wasBest;
    result.status = candidate.status.toStdString();
    result.message = candidate.message.toStdString();
    result.samples_ms = candidate.samples;
    const bool measured = !candidate.samples.empty();
    if (measured) {
        result.stats.median_ms = percentile(candidate.samples, 0.5);
        result.stats.min_ms = *std::min_element(candidate.samples.begin(), candidate.samples.end());
        result.stats.p20_ms = percentile(candidate.samples, 0.2);
        result.stats.p80_ms = percentile(candidate.samples, 0.8);
        // What the driver said: the second one spills.
        result.registers = index == 2 ? 255 : 40;
        result.local_bytes = index == 2 ? 96 : 0;
    }
    return {static_cast<std::size_t>(index), static_cast<std::size_t>(total), result};
}

// The verdict of kernel A's fastest challenger re-timed beside its best.
const QString kVerdictText = QStringLiteral(
    "the candidate is 7.9% faster than the current best: 28 of 30 paired rounds agree (93%)");

// What `cachelens bench --json-lines` prints for candidates(): a header, a
// start, an unplannable kernel, six results, a verdict, an end.
QByteArray cannedRun() {
    const auto all = candidates();
    const int total = static_cast<int>(all.size());
    QByteArray out = headerLine();
    out += line(protocol::Start{"/tmp/cache",
                                {"NVIDIA H100 80GB HBM3", "9.0", "13.0", 1980, 52428800},
                                "estimate 5, warmup 25 ms, rep 100 ms, L2 flushed",
                                3,
                                static_cast<std::size_t>(total)});
    out += line(protocol::Unplannable{"triton_tem_fused_mm_2", "cxyz", "module",
                                      "unsupported grid type Grid9D"});
    for (int i = 0; i < total; ++i) {
        out += line(resultRecord(all[static_cast<std::size_t>(i)], i + 1, total));
    }
    protocol::Verdict verdict;
    verdict.kernel = kKernelA.toStdString();
    verdict.module = kModuleA.toStdString();
    verdict.best_hash = all[0].hash.toStdString();
    verdict.candidate_hash = kHashA1.toStdString();
    verdict.best_config_text = "XBLOCK=1, R0_BLOCK=2048, num_warps=4, num_stages=1";
    verdict.candidate_config_text = "XBLOCK=1, R0_BLOCK=4096, num_warps=8, num_stages=1";
    verdict.status = "ok";
    verdict.rounds = 30;
    verdict.outcome = bench::PairedVerdict::Outcome::Faster;
    verdict.difference_percent = 7.9;
    verdict.agreement = 0.93;
    verdict.p_value = 1e-6;
    verdict.text = kVerdictText.toStdString();
    out += line(verdict);
    out += line(protocol::End{12, static_cast<std::size_t>(total), 1, 1});
    return out;
}

// What `cachelens bench --plan --json-lines` prints for candidates(): every
// config of each kernel (the first the current best, unless `kernelBHasBest`
// is false), then an unplannable one.
QByteArray cannedPlan(bool kernelBHasBest = true) {
    QByteArray out = headerLine();
    for (const auto& candidate : candidates()) {
        protocol::Plan plan;
        plan.kernel = candidate.kernel.toStdString();
        plan.module = candidate.module.toStdString();
        plan.module_path = "/tmp/cache/" + plan.module + ".py";
        plan.triton_hash = candidate.hash.toStdString();
        plan.config = configOf(candidate.configText);
        plan.is_current_best =
            candidate.wasBest && (kernelBHasBest || candidate.kernel != kKernelB);
        plan.grid_type = "Grid1D";
        plan.grid = {4096, 1, 1};
        plan.block_threads = 128;
        plan.shared_bytes = 16;
        plan.source = "triton/0/" + plan.triton_hash;
        bench::LaunchArg xnumel;
        xnumel.kind = bench::LaunchArg::Kind::Int;
        xnumel.name = "xnumel";
        xnumel.type = "i32";
        xnumel.bytes = 4;
        plan.args = {xnumel};
        out += line(plan);
    }
    out += line(protocol::Unplannable{"triton_tem_fused_mm_2", "cxyz", "module",
                                      "unsupported grid type Grid9D"});
    return out;
}

std::vector<BenchResultEvent> resultEvents() {
    std::vector<BenchResultEvent> results;
    for (const auto& event : BenchRunParser().feed(cannedRun())) {
        if (const auto* result = std::get_if<BenchResultEvent>(&event)) {
            results.push_back(*result);
        }
    }
    return results;
}

// The words of the CLI's refusals and failures in this test's records.
const char* const kAlreadyBestWords = "bench accept: the candidate is already the best config";
const char* const kNotFasterWords =
    "not accepted: no difference beyond noise: the candidate is 0.8% faster in the median, but "
    "only 17 of 30 paired rounds agree (57%); nothing written";
const char* const kNoDriverWords =
    "no CUDA driver: libcuda.so.1 not found (libcuda.so.1: cannot open shared object file)";

// What the CLI says PyTorch does with an explored config (the test's words).
const char* const kExploredPolicy =
    "PyTorch 2.11 with coordinate_descent_tuning starts its search here";

// The fake `cachelens`: logs its arguments (tab-separated, a line per call)
// to `calls`, then acts as `mode` says.
const char* const kFakeCli = R"sh(#!/bin/sh
dir=$(dirname "$0")
printf '%s\t' "$@" >> "$dir/calls"
printf '\n' >> "$dir/calls"
mode=$(cat "$dir/mode")
for arg in "$@"; do
    if [ "$arg" = --plan ]; then
        [ "$mode" = slowplan ] && sleep 0.5
        cat "$dir/plan.jsonl"
        exit 0
    fi
done
if [ "$2" = accept ]; then
    if [ "$mode" = explored ]; then
        cat "$dir/accept_explored.json"
        exit 0
    fi
    if [ "$mode" = refuse ]; then
        cat "$dir/already_best.json"
        cat "$dir/already_best.txt" >&2
        exit 2
    fi
    if [ "$mode" = notfaster ]; then
        case " $* " in
        *" --force "*) ;;
        *)
            cat "$dir/not_faster.json"
            cat "$dir/not_faster.txt" >&2
            exit 2;;
        esac
    fi
    cat "$dir/accept.json"
    exit 0
fi
case "$mode" in
error)
    cat "$dir/error.jsonl"
    echo "cachelens: no CUDA driver: libcuda.so.1 not found" >&2
    exit 2;;
crash)
    head -n 4 "$dir/run.jsonl"
    ulimit -c 0
    kill -SEGV $$;;
slow)
    head -n 3 "$dir/run.jsonl"
    exec sleep 30;;
stubborn)
    head -n 3 "$dir/run.jsonl"
    trap '' TERM
    while :; do sleep 0.2; done;;
noisy)
    head -n 4 "$dir/run.jsonl"
    echo 'Traceback: this is not JSON'
    tail -n +5 "$dir/run.jsonl"
    exit 1;;
truncated)
    head -n 5 "$dir/run.jsonl"
    exit 0;;
esac
while IFS= read -r line; do
    printf '%s\n' "$line"
    sleep 0.05
done < "$dir/run.jsonl"
# As the real CLI: exit code 1 when a candidate failed (one does).
exit 1
)sh";

struct FakeCli : test::FakeCliDir {
    fs::path cache;

    bool make() {
        if (!install(kFakeCli)) {
            return false;
        }
        cache = fs::path(temp.path().toStdString()) / "cache";
        fs::create_directories(cache);
        return write("run.jsonl", cannedRun()) && write("plan.jsonl", cannedPlan()) &&
               writeRecords();
    }
    // What the CLI prints for an accept and its refusals, and for a run
    // without a GPU, written with the engine's protocol writer. The words are
    // this test's own: the page shows them, and decides nothing from them.
    bool writeRecords() const {
        const protocol::Accepted accepted{cache.string(),
                                          backupOf("best_config").toStdString(),
                                          backupOf("best_config.bak").toStdString(),
                                          "XBLOCK=1, R0_BLOCK=2048, num_warps=4, num_stages=1",
                                          "XBLOCK=1, R0_BLOCK=4096, num_warps=8, num_stages=1",
                                          std::nullopt,
                                          std::nullopt};
        const protocol::Failure alreadyBest{ErrorKind::InvalidArgument, kAlreadyBestWords, {}};
        const protocol::Failure notFaster{ErrorKind::InvalidArgument, kNotFasterWords,
                                          bench::AcceptRefusal::NotFaster};
        const protocol::Failure noDriver{ErrorKind::Unsupported, kNoDriverWords, {}};
        protocol::Accepted explored = accepted;
        explored.new_config = "XBLOCK=1, R0_BLOCK=8192, num_warps=16, num_stages=1";
        explored.explored_policy = kExploredPolicy;
        return write("accept.json", document(accepted)) &&
               write("accept_explored.json", document(explored)) &&
               write("already_best.json", document(alreadyBest)) &&
               write("already_best.txt", "cachelens: " + QByteArray(kAlreadyBestWords)) &&
               write("not_faster.json", document(notFaster)) &&
               write("not_faster.txt", "cachelens: " + QByteArray(kNotFasterWords)) &&
               write("error.jsonl", headerLine() + line(noDriver));
    }
    static QByteArray document(const protocol::Record& record) {
        return QByteArray::fromStdString(protocol::to_document(record));
    }
    QString backupOf(const char* suffix) const {
        return QString::fromStdString(
            (cache / ("c2/" + kModuleA.toStdString() + "." + suffix)).string());
    }
};

// Two earlier runs of kernel A in the catalog, on two GPUs.
bool recordEarlierRuns(const QString& catalogPath) {
    auto catalog = catalog::Catalog::open(catalogPath.toStdString());
    if (!catalog) {
        qWarning("%s", catalog.error().describe().c_str());
        return false;
    }
    for (int i = 0; i < 2; ++i) {
        bench::BenchRun run;
        run.started_ns = 1'760'000'000'000'000'000LL + i * 86'400'000'000'000LL;
        run.device = {i == 0 ? "NVIDIA A100-SXM4-80GB" : "NVIDIA H100 80GB HBM3",
                      i == 0 ? "8.0" : "9.0", "13.0", 1410, 41943040};
        if (i == 1) { // the later run a tune, its second config one it compiled
            run.kind = "tune";
            run.strategy = "coordesc";
        }
        for (int config = 0; config < 2; ++config) {
            bench::CandidateResult result;
            result.kernel_name = kKernelA.toStdString();
            result.module_key = kModuleA.toStdString();
            result.triton_hash = config == 0 ? "a0b1c2d3e4f5" : kHashA1.toStdString();
            result.config.kwargs = {{"XBLOCK", std::int64_t{1}},
                                    {"R0_BLOCK", std::int64_t{config == 0 ? 2048 : 4096}}};
            result.config.num_warps = config == 0 ? 4 : 8;
            result.config.num_stages = 1;
            result.was_best = config == 0;
            result.origin = i == 1 ? (config == 1 ? "new" : "cached") : "";
            result.samples_ms = {0.031 - 0.005 * config + 0.001 * i, 0.030 - 0.005 * config,
                                 0.032 - 0.005 * config};
            result.stats = bench::stats_of(result.samples_ms);
            run.results.push_back(result);
        }
        if (auto id = bench::record_run(*catalog, run); !id) {
            qWarning("%s", id.error().describe().c_str());
            return false;
        }
    }
    return true;
}

QBoxPlotSeries* boxSeries(QChart* chart) {
    for (auto* series : chart->series()) {
        if (auto* boxes = qobject_cast<QBoxPlotSeries*>(series)) {
            return boxes;
        }
    }
    return nullptr;
}

QScatterSeries* pointSeries(QChart* chart) {
    for (auto* series : chart->series()) {
        if (auto* points = qobject_cast<QScatterSeries*>(series)) {
            return points;
        }
    }
    return nullptr;
}

// The source row of the result with this hash.
int rowOf(const BenchResultsModel& model, const QString& hash) {
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.result(row).tritonHash == hash) {
            return row;
        }
    }
    return -1;
}

} // namespace

class TestBenchView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(settings_.isValid()); }

    void parserReadsOutputSplitAnywhere() {
        const QByteArray output = cannedRun();
        const auto whole = BenchRunParser().feed(output);
        QCOMPARE(whole.size(), std::size_t(10)); // start, unplannable, 6 results, verdict, end
        for (const qsizetype chunk : {1, 2, 7, 64, 1000}) {
            BenchRunParser parser;
            std::vector<BenchEvent> events;
            for (qsizetype at = 0; at < output.size(); at += chunk) {
                for (auto& event : parser.feed(
                         QByteArrayView(output).sliced(at, std::min(chunk, output.size() - at)))) {
                    events.push_back(std::move(event));
                }
            }
            QVERIFY(parser.finish().empty());
            QCOMPARE(events.size(), whole.size());
            for (std::size_t i = 0; i < events.size(); ++i) {
                QCOMPARE(events[i].index(), whole[i].index());
            }
        }
        const auto& start = std::get<BenchStartEvent>(whole[0]);
        QCOMPARE(start.device.name, QString("NVIDIA H100 80GB HBM3"));
        QCOMPARE(start.device.computeCapability, QString("9.0"));
        QCOMPARE(start.device.smClockMhz, std::optional<qint64>(1980));
        QCOMPARE(start.device.l2Bytes, qint64(52428800));
        QCOMPARE(start.candidates, 6);
        QCOMPARE(start.kernels, 3);
        const auto& unplannable = std::get<BenchUnplannableEvent>(whole[1]);
        QCOMPARE(unplannable.why, QString("unsupported grid type Grid9D"));
        const auto& verdict = std::get<BenchVerdictEvent>(whole[8]);
        QCOMPARE(verdict.module, kModuleA);
        QCOMPARE(verdict.candidateHash, kHashA1);
        QCOMPARE(verdict.rounds, 30);
        QVERIFY(verdict.candidateFaster());
        QCOMPARE(verdict.text, kVerdictText);
        const auto& second = std::get<BenchResultEvent>(whole[3]);
        const auto expected = candidates()[1];
        QCOMPARE(second.index, 2);
        QCOMPARE(second.total, 6);
        QCOMPARE(second.kernel, kKernelA);
        QCOMPARE(second.module, kModuleA);
        QCOMPARE(second.tritonHash, kHashA1);
        QCOMPARE(second.configText, expected.configText);
        QVERIFY(!second.wasBest);
        QVERIFY(second.ok());
        QCOMPARE(second.samplesMs, expected.samples);
        QCOMPARE(second.medianMs, percentile(expected.samples, 0.5));
        QCOMPARE(second.p80Ms, percentile(expected.samples, 0.8));
        const auto& failed = std::get<BenchResultEvent>(whole[7]);
        QCOMPARE(failed.status, QString("resources"));
        QVERIFY(!failed.ok());
        QVERIFY(failed.samplesMs.empty());
        QVERIFY(failed.message.contains("shared memory"));
        const auto& end = std::get<BenchEndEvent>(whole[9]);
        QCOMPARE(end.runId, qint64(12));
        QCOMPARE(end.results, 6);
        QCOMPARE(end.failed, 1);

        // The last line without its newline waits for finish().
        BenchRunParser parser;
        QVERIFY(
            parser
                .feed(headerLine() + QByteArray::fromStdString(protocol::to_line(
                                         protocol::Failure{ErrorKind::Unsupported, "no GPU", {}})))
                .empty());
        const auto last = parser.finish();
        QCOMPARE(last.size(), std::size_t(1));
        QCOMPARE(std::get<BenchErrorEvent>(last.front()).message, QString("no GPU"));
        QVERIFY(parser.finish().empty());
    }

    // Unknown events are reported too: a CLI of this protocol version prints
    // none, so one is a defect to see, not to skip.
    void parserReportsBadLinesAndUnknownEvents() {
        BenchRunParser parser;
        const auto events = parser.feed(headerLine() +
                                        "this is not JSON\n"
                                        "[1, 2]\n"
                                        "{\"no_event\": 1}\n"
                                        "{\"event\": \"result\", \"index\": 1}\n"
                                        "\n"
                                        "{\"event\": \"progress_v2\", \"done\": 3}\n" +
                                        line(protocol::End{3, 0, 0, 0}));
        QCOMPARE(events.size(), std::size_t(6));
        const auto& notJson = std::get<BenchBadLine>(events[0]);
        QCOMPARE(notJson.line, QString("this is not JSON"));
        QVERIFY2(notJson.why.startsWith("not JSON"), qPrintable(notJson.why));
        QCOMPARE(std::get<BenchBadLine>(events[1]).why, QString("not a JSON object"));
        QCOMPARE(std::get<BenchBadLine>(events[2]).why, QString("no \"event\""));
        QVERIFY2(std::get<BenchBadLine>(events[3]).why.startsWith("a result record whose"),
                 qPrintable(std::get<BenchBadLine>(events[3]).why));
        QVERIFY(std::get<BenchBadLine>(events[4]).why.contains("progress_v2"));
        QCOMPARE(std::get<BenchEndEvent>(events[5]).runId, qint64(3));

        // A very long bad line is shortened.
        const auto longLine = BenchRunParser::parseLine(QByteArray(5000, 'x'));
        QVERIFY(longLine);
        QVERIFY(std::get<BenchBadLine>(*longLine).line.size() < 300);

        QByteArray planLine = cannedPlan().split('\n')[1];
        const auto plan = BenchRunParser::parseLine(planLine);
        QVERIFY(plan);
        const auto& planned = std::get<BenchPlanEvent>(*plan);
        QCOMPARE(planned.grid, (std::vector<qint64>{4096, 1, 1}));
        QCOMPARE(planned.blockThreads, 128);
        QVERIFY(planned.isCurrentBest);
        QCOMPARE(planned.args.size(), std::size_t(1));

        auto accepted =
            parseAcceptOutput(QByteArray::fromStdString(protocol::to_document(protocol::Accepted{
                "/c", "/c/x.best_config", "/c/x.bak", "XBLOCK=1", "XBLOCK=2", {}, {}})));
        QVERIFY_RESULT(accepted);
        QCOMPARE(accepted->backup, QString("/c/x.bak"));
        QCOMPARE(accepted->newConfig, QString("XBLOCK=2"));
        QVERIFY(!parseAcceptOutput("refused"));
        QVERIFY(!parseAcceptOutput("{}"));
    }

    // The parser against what the real CLI prints: its launch plans need no GPU.
    void parserReadsTheRealCliPlans() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), cache);
        const auto run =
            test::run_cli({"bench", QString::fromStdString(cache.string()), "--plan",
                           "--json-lines", "--catalog", temp.filePath("catalog.sqlite")});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        BenchRunParser parser;
        auto events = parser.feed(run.out);
        for (auto& event : parser.finish()) {
            events.push_back(std::move(event));
        }
        int plans = 0;
        std::set<QString> modules;
        for (const auto& event : events) {
            QVERIFY2(!std::holds_alternative<BenchBadLine>(event),
                     qPrintable(std::get_if<BenchBadLine>(&event) == nullptr
                                    ? QString()
                                    : std::get<BenchBadLine>(event).why));
            if (const auto* plan = std::get_if<BenchPlanEvent>(&event)) {
                ++plans;
                QVERIFY(!plan->kernel.isEmpty());
                QVERIFY(plan->module.startsWith(u'c'));
                QVERIFY(plan->tritonHash.size() >= 6);
                QVERIFY(!plan->configText.isEmpty());
                QCOMPARE(plan->grid.size(), std::size_t(3));
                QVERIFY(plan->blockThreads > 0);
                QVERIFY(!plan->args.empty());
                modules.insert(plan->module);
            }
        }
        QCOMPARE(plans, static_cast<int>(run.out.count("\"event\":\"plan\"")));
        QVERIFY(plans > 0);
        QVERIFY(modules.count("c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w") == 1);
    }

    void resultsModelMarksTheFastestOfEachKernel() {
        BenchResultsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        BenchResultsSortProxy sorted;
        sorted.setSourceModel(&model);
        QAbstractItemModelTester sortedTester(
            &sorted, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto results = resultEvents();
        QCOMPARE(results.size(), std::size_t(6));
        for (const auto& result : results) {
            model.appendResult(result);
        }
        model.appendUnplannable(
            {"triton_tem_fused_mm_2", "cxyz", "module", "unsupported grid type Grid9D"});
        QCOMPARE(model.rowCount(), 7);

        const QString a = BenchResultsModel::kernelKey(results[0]);
        const QString b = BenchResultsModel::kernelKey(results[3]);
        QCOMPARE(model.rowsOfKernel(a), (std::vector<int>{0, 1, 2}));
        QCOMPARE(model.fastestRow(a), std::optional<int>(1));
        QCOMPARE(model.fastestRow(b), std::optional<int>(4));
        // Registers and spills, from the run's records, on the median.
        QVERIFY(model.index(1, BenchResultsModel::MedianColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("255 registers per thread, 96 B spilled per thread"));
        QVERIFY(model.index(0, BenchResultsModel::MedianColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("40 registers per thread, no spills"));
        for (int row = 0; row < model.rowCount(); ++row) {
            const bool fastest = row == 1 || row == 4;
            const auto index = model.index(row, BenchResultsModel::MedianColumn);
            QCOMPARE(index.data(BenchResultsModel::FastestRole).toBool(), fastest);
            QCOMPARE(index.data(Qt::BackgroundRole).value<QColor>() == highlight::pass(), fastest);
        }
        auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.index(row, column).data(role);
        };
        QCOMPARE(cell(1, BenchResultsModel::MedianColumn).toString(), QString("0.0241"));
        QCOMPARE(cell(1, BenchResultsModel::SpreadColumn).toString(),
                 QString("%1–%2").arg(formatMs(results[1].p20Ms), formatMs(results[1].p80Ms)));
        QCOMPARE(cell(1, BenchResultsModel::SamplesColumn).toInt(), 11);
        QCOMPARE(cell(0, BenchResultsModel::VsCurrentColumn).toString(), QString("current best"));
        QVERIFY(cell(0, 0, BenchResultsModel::WasBestRole).toBool());
        QVERIFY(cell(0, 0, Qt::FontRole).value<QFont>().bold());
        // 0.0241 / 0.0300 - 1 = -19.7 %.
        QCOMPARE(cell(1, BenchResultsModel::VsCurrentColumn).toString(), QString("-19.7 %"));
        QCOMPARE(cell(2, BenchResultsModel::VsCurrentColumn).toString(), QString("+36.7 %"));
        // The failed candidate: no times, its status and message, a red status cell.
        QCOMPARE(cell(5, BenchResultsModel::MedianColumn).toString(), QString());
        QVERIFY(
            cell(5, BenchResultsModel::StatusColumn).toString().startsWith("resources: too much"));
        QCOMPARE(cell(5, BenchResultsModel::StatusColumn, Qt::BackgroundRole).value<QColor>(),
                 highlight::fail());
        QVERIFY(!cell(5, 0, BenchResultsModel::OkRole).toBool());
        QCOMPARE(cell(6, BenchResultsModel::StatusColumn).toString(),
                 QString("plan: unsupported grid type Grid9D"));

        // Sorted by median, the failed rows come last.
        sorted.sort(BenchResultsModel::MedianColumn, Qt::AscendingOrder);
        QCOMPARE(sorted.index(0, 0).data(BenchResultsModel::FastestRole).toBool(), true);
        QCOMPARE(sorted.index(0, BenchResultsModel::MedianColumn).data().toString(),
                 QString("0.0241"));
        QCOMPARE(sorted.index(6, BenchResultsModel::MedianColumn).data().toString(), QString());
        QCOMPARE(sorted.index(5, BenchResultsModel::MedianColumn).data().toString(), QString());

        // After an accept the new best is marked, the old one not.
        model.markBest(a, kHashA1);
        QVERIFY(cell(1, 0, BenchResultsModel::WasBestRole).toBool());
        QVERIFY(!cell(0, 0, BenchResultsModel::WasBestRole).toBool());
        QCOMPARE(cell(0, BenchResultsModel::VsCurrentColumn).toString(), QString("+24.5 %"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.fastestRow(a));
    }

    void historyModelReadsTheCatalog() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const QString catalogPath = temp.filePath("catalog.sqlite");
        QVERIFY(recordEarlierRuns(catalogPath));
        JobPool jobs;
        BenchHistoryModel model(jobs, catalogPath);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&model, &BenchHistoryModel::loaded);
        model.load(kModuleA);
        QVERIFY(loaded.wait(10'000));
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.runCount(), 2);
        QCOMPARE(model.kernel(), kModuleA);
        auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.index(row, column).data(role);
        };
        // Oldest run first: the A100 one.
        QCOMPARE(cell(0, BenchHistoryModel::DeviceColumn).toString(),
                 QString("NVIDIA A100-SXM4-80GB"));
        QCOMPARE(cell(3, BenchHistoryModel::DeviceColumn).toString(),
                 QString("NVIDIA H100 80GB HBM3"));
        QVERIFY(cell(0, 0, BenchHistoryModel::RunIdRole).toLongLong() <
                cell(3, 0, BenchHistoryModel::RunIdRole).toLongLong());
        QCOMPARE(cell(0, BenchHistoryModel::ConfigColumn).toString(),
                 QString("XBLOCK=1, R0_BLOCK=2048, num_warps=4, num_stages=1"));
        QVERIFY(cell(0, 0, BenchHistoryModel::WasBestRole).toBool());
        QVERIFY(!cell(1, 0, BenchHistoryModel::WasBestRole).toBool());
        QCOMPARE(cell(1, BenchHistoryModel::MedianColumn).toString(), QString("0.0260"));
        QCOMPARE(cell(1, BenchHistoryModel::SamplesColumn).toInt(), 3);
        // A tune's run and the config it compiled are marked as `bench history` marks them.
        QCOMPARE(cell(0, BenchHistoryModel::RunColumn).toString(),
                 QString::number(cell(0, 0, BenchHistoryModel::RunIdRole).toLongLong()));
        QVERIFY(cell(3, BenchHistoryModel::RunColumn).toString().endsWith("(tune coordesc)"));
        QCOMPARE(cell(3, BenchHistoryModel::ConfigColumn).toString(),
                 QString("+ XBLOCK=1, R0_BLOCK=4096, num_warps=8, num_stages=1"));
        QVERIFY(cell(3, BenchHistoryModel::ConfigColumn, Qt::ToolTipRole)
                    .toString()
                    .contains("Compiled by cachelens tune"));
        QVERIFY(!cell(2, BenchHistoryModel::ConfigColumn).toString().startsWith("+"));
        // The kernel name finds the same rows.
        model.load(kKernelA);
        QVERIFY(loaded.wait(10'000));
        QCOMPARE(model.rowCount(), 4);
        model.load(QStringLiteral("triton_never_benchmarked"));
        QVERIFY(loaded.wait(10'000));
        QCOMPARE(model.rowCount(), 0);

        // A catalog that cannot be opened is an error, not an empty history.
        BenchHistoryModel broken(jobs, temp.path());
        QSignalSpy failed(&broken, &BenchHistoryModel::failed);
        broken.load(kModuleA);
        QVERIFY(failed.wait(10'000));
        QVERIFY(!failed.front().front().toString().isEmpty());
    }

    void pageRunsTheCliAndShowsEveryPane() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(recordEarlierRuns(fake.catalogPath));
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.resize(1400, 900);
        view.setProgram(fake.program);
        QVERIFY(!view.runButton()->isEnabled()); // no cache dir yet
        view.showRoot(fake.cache);
        QVERIFY(view.runButton()->isEnabled());
        QVERIFY(!view.cancelButton()->isEnabled());
        view.kernelFilter()->setText(QStringLiteral("  %1 %2 ").arg(kKernelA, kModuleB));
        view.allConfigsBox()->setChecked(true);
        QSignalSpy finished(&view, &BenchPage::runFinished);
        std::vector<int> progress;
        connect(view.progressBar(), &QProgressBar::valueChanged, this,
                [&](int value) { progress.push_back(value); });
        view.run();
        QVERIFY(view.isRunning());
        QVERIFY(view.cancelButton()->isEnabled());
        QVERIFY(!view.runButton()->isEnabled());
        QVERIFY(finished.wait(20'000));
        QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
        QVERIFY(view.noticeText().isEmpty());

        const QString dir = QString::fromStdString(fake.cache.string());
        const QStringList expected{
            "bench",        dir,         kKernelA,        kModuleB, "--all-configs",
            "--json-lines", "--catalog", fake.catalogPath};
        QCOMPARE(view.lastArguments(), expected);
        QCOMPARE(fake.calls().size(), std::size_t(1));
        QCOMPARE(fake.calls().front(), expected);

        // Progress counted up to the total, one result at a time.
        QCOMPARE(view.progressBar()->maximum(), 6);
        QCOMPARE(view.progressBar()->value(), 6);
        QVERIFY2(std::find(progress.begin(), progress.end(), 3) != progress.end(),
                 "no progress on the way");
        QVERIFY2(view.statusText().contains("Run 12 finished"), qPrintable(view.statusText()));
        QVERIFY(view.statusText().contains("1 failed"));
        QVERIFY(view.deviceText().contains("NVIDIA H100 80GB HBM3"));
        QVERIFY(view.deviceText().contains("L2 50 MiB"));
        QVERIFY(!view.isRunning());
        QVERIFY(view.runButton()->isEnabled());

        // The table: every result and the unplannable kernel; the fastest tinted.
        const auto* model = view.results();
        QCOMPARE(model->rowCount(), 7);
        auto* table = view.resultsTable();
        QCOMPARE(table->model()->rowCount(), 7);
        int tinted = 0;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const auto index = table->model()->index(row, BenchResultsModel::KernelColumn);
            if (index.data(Qt::BackgroundRole).value<QColor>() == highlight::pass()) {
                ++tinted;
                QVERIFY(index.data(BenchResultsModel::FastestRole).toBool());
            }
        }
        QCOMPARE(tinted, 2);
        QCOMPARE(
            model->fastestRow(BenchResultsModel::kernelKey(model->result(rowOf(*model, kHashA1)))),
            std::optional<int>(rowOf(*model, kHashA1)));

        // The first kernel is selected: a box per config, all its samples.
        QCOMPARE(view.selectedKernel(), kModuleA + "/" + kKernelA);
        auto* boxes = boxSeries(view.chart());
        QVERIFY(boxes);
        QCOMPARE(boxes->count(), 3);
        const auto all = candidates();
        for (int i = 0; i < 3; ++i) {
            const auto* set = boxes->boxSets()[i];
            const auto& samples = all[static_cast<std::size_t>(i)].samples;
            // In µs: the kernel takes less than a millisecond.
            QVERIFY(qFuzzyCompare(set->at(QBoxSet::Median), percentile(samples, 0.5) * 1000));
            QVERIFY(
                qFuzzyCompare(set->at(QBoxSet::LowerQuartile), percentile(samples, 0.2) * 1000));
            QVERIFY(
                qFuzzyCompare(set->at(QBoxSet::UpperQuartile), percentile(samples, 0.8) * 1000));
            QVERIFY(qFuzzyCompare(set->at(QBoxSet::LowerExtreme), samples.front() * 1000));
            QVERIFY(qFuzzyCompare(set->at(QBoxSet::UpperExtreme), samples.back() * 1000));
        }
        QVERIFY(boxes->boxSets()[0]->label().contains("current best"));
        QVERIFY(boxes->boxSets()[1]->label().contains("fastest"));
        QCOMPARE(pointSeries(view.chart())->count(), 9 + 11 + 7);

        // The kernel's history from the catalog: the two earlier runs.
        QTRY_COMPARE(view.history()->rowCount(), 4);
        QCOMPARE(view.history()->kernel(), kModuleA);
        QCOMPARE(view.historyTable()->model()->rowCount(), 4);

        // It paints (docs/make-screenshots.sh takes the pictures people look at).
        view.show();
        QTest::qWait(100);
        QVERIFY(!view.grab().isNull());

        // Kernel B: two boxes, the failed config has none and the title says so.
        view.selectResult(rowOf(*model, all[4].hash));
        QCOMPARE(view.selectedKernel(), kModuleB + "/" + kKernelB);
        boxes = boxSeries(view.chart());
        QVERIFY(boxes);
        QCOMPARE(boxes->count(), 2);
        QVERIFY(view.chart()->title().contains("1 failed"));
        // Over a millisecond: in ms.
        QVERIFY(qFuzzyCompare(boxes->boxSets()[1]->at(QBoxSet::Median), 1.100));
        QTRY_COMPARE(view.history()->kernel(), kModuleB);
        QCOMPARE(view.history()->rowCount(), 0);
    }

    void makeBestConfigRunsAccept() {
        FakeCli fake;
        QVERIFY(fake.make());
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.setProgram(fake.program);
        view.showRoot(fake.cache);
        QSignalSpy finished(&view, &BenchPage::runFinished);
        view.run();
        QVERIFY(finished.wait(20'000));
        const auto* model = view.results();
        QCOMPARE(model->rowCount(), 7);
        const auto all = candidates();

        // Not on the current best, not on a failed candidate, not on an unplannable one.
        view.selectResult(rowOf(*model, all[0].hash));
        QVERIFY(!view.acceptButton()->isEnabled());
        view.selectResult(rowOf(*model, all[5].hash));
        QVERIFY(!view.acceptButton()->isEnabled());
        view.selectResult(0);
        QVERIFY(model->result(0).status == "plan");
        QVERIFY(!view.acceptButton()->isEnabled());
        view.selectResult(rowOf(*model, kHashA1));
        QVERIFY(view.acceptButton()->isEnabled());

        // The button asks first, naming the dir it writes in; No runs nothing.
        const QString cacheDir = QString::fromStdString(fake.cache.string());
        QVERIFY2(view.acceptConfirmationText().contains(cacheDir),
                 qPrintable(view.acceptConfirmationText()));
        QString asked;
        answerNextQuestion(QMessageBox::No, &asked);
        view.acceptButton()->click();
        QCOMPARE(asked, view.acceptConfirmationText());
        QVERIFY(!view.isAccepting());
        QCOMPARE(fake.calls().size(), std::size_t(1));

        QSignalSpy accepted(&view, &BenchPage::acceptFinished);
        view.acceptSelected(false);
        QVERIFY(view.isAccepting());
        QVERIFY(!view.runButton()->isEnabled());
        QVERIFY(accepted.wait(10'000));
        QCOMPARE(fake.calls().size(), std::size_t(2));
        QCOMPARE(fake.calls().back(), (QStringList{"bench", "accept", kModuleA, kHashA1, "--dir",
                                                   QString::fromStdString(fake.cache.string()),
                                                   "--catalog", fake.catalogPath, "--json"}));
        QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
        QVERIFY2(view.outcomeText().contains(fake.backupOf("best_config.bak")),
                 qPrintable(view.outcomeText()));
        QVERIFY(view.outcomeText().contains("R0_BLOCK=4096"));
        // The page knows the new best: marked, and no second accept of it.
        QVERIFY(model->result(rowOf(*model, kHashA1)).wasBest);
        QVERIFY(!model->result(rowOf(*model, all[0].hash)).wasBest);
        QVERIFY(!view.acceptButton()->isEnabled());
        QVERIFY(boxSeries(view.chart())->boxSets()[1]->label().contains("current best"));

        // A refusal is shown with the CLI's words.
        QVERIFY(fake.setMode("refuse"));
        view.selectResult(rowOf(*model, all[2].hash));
        QVERIFY(view.acceptButton()->isEnabled());
        answerNextQuestion(QMessageBox::Yes, &asked);
        view.acceptButton()->click();
        QVERIFY(accepted.wait(10'000));
        QVERIFY2(view.errorText().contains("is already the best config"),
                 qPrintable(view.errorText()));
        QVERIFY(view.errorText().contains("exit code 2"));
        QVERIFY(view.outcomeText().isEmpty());
        QVERIFY(!model->result(rowOf(*model, all[2].hash)).wasBest);
        // Not a refusal the user can overrule: no way to force it.
        QVERIFY(view.forceAcceptButton()->isHidden());
    }

    // The Tune dialog's Make best config: the page runs the same `bench accept`
    // with the explored config's hash, and both say what PyTorch will do.
    void anExploredConfigIsAcceptedThroughThePage() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("explored"));
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.setProgram(fake.program);
        view.showRoot(fake.cache);
        QSignalSpy finished(&view, &BenchPage::runFinished);
        view.run();
        QVERIFY(finished.wait(20'000));
        view.selectResult(rowOf(*view.results(), kHashA1));
        view.openTune();
        TuneDialog* dialog = view.tuneDialog();
        QVERIFY(dialog != nullptr);
        QSignalSpy accepted(&view, &BenchPage::acceptFinished);
        QString asked;
        answerNextQuestion(QMessageBox::Yes, &asked);
        emit dialog->acceptRequested(kModuleA, kKernelA, QStringLiteral("e4ca9b776887"),
                                     QStringLiteral("XBLOCK=1, R0_BLOCK=8192, num_warps=16"));
        QVERIFY(view.isAccepting());
        QVERIFY2(asked.contains("a config cachelens tune compiled"), qPrintable(asked));
        QVERIFY(accepted.wait(10'000));
        QCOMPARE(fake.calls().back(),
                 (QStringList{"bench", "accept", kModuleA, "e4ca9b776887", "--dir",
                              QString::fromStdString(fake.cache.string()), "--catalog",
                              fake.catalogPath, "--json"}));
        QVERIFY2(view.outcomeText().contains(kExploredPolicy), qPrintable(view.outcomeText()));
        QVERIFY2(dialog->answerText().contains(kExploredPolicy), qPrintable(dialog->answerText()));
        QVERIFY(dialog->answerText().contains("R0_BLOCK=8192"));
        dialog->close();
    }

    // The run's side-by-side verdicts are shown; an accept refused for being
    // within the noise can be forced, after asking.
    void verdictsAreShownAndARefusalCanBeForced() {
        FakeCli fake;
        QVERIFY(fake.make());
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.setProgram(fake.program);
        view.showRoot(fake.cache);
        QSignalSpy finished(&view, &BenchPage::runFinished);
        view.run();
        QVERIFY(finished.wait(20'000));
        QVERIFY2(view.verdictsText().contains(kKernelA +
                                              " (XBLOCK=1, R0_BLOCK=4096, num_warps=8, "
                                              "num_stages=1 against XBLOCK=1, R0_BLOCK="
                                              "2048, num_warps=4, num_stages=1): " +
                                              kVerdictText),
                 qPrintable(view.verdictsText()));
        const auto* model = view.results();
        view.selectResult(rowOf(*model, kHashA1));
        QVERIFY2(view.selectionText().contains("Side by side: " + kVerdictText),
                 qPrintable(view.selectionText()));

        QVERIFY(fake.setMode("notfaster"));
        QSignalSpy accepted(&view, &BenchPage::acceptFinished);
        view.acceptSelected(false);
        QVERIFY(accepted.wait(10'000));
        QVERIFY2(view.errorText().contains("no difference beyond noise"),
                 qPrintable(view.errorText()));
        QVERIFY(!view.forceAcceptButton()->isHidden());
        QVERIFY(!model->result(rowOf(*model, kHashA1)).wasBest);

        // Asked first; No writes nothing.
        QString asked;
        answerNextQuestion(QMessageBox::No, &asked);
        view.forceAcceptButton()->click();
        QVERIFY(asked.contains("although cachelens refused it"));
        QVERIFY(!view.isAccepting());
        view.forceAccept(false);
        QVERIFY(accepted.wait(10'000));
        QCOMPARE(fake.calls().back(),
                 (QStringList{"bench", "accept", kModuleA, kHashA1, "--dir",
                              QString::fromStdString(fake.cache.string()), "--catalog",
                              fake.catalogPath, "--json", "--force"}));
        QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
        QVERIFY(view.outcomeText().contains("Written without a side-by-side comparison."));
        QVERIFY(model->result(rowOf(*model, kHashA1)).wasBest);
        QVERIFY(view.forceAcceptButton()->isHidden());
    }

    void cancelStopsASleepingRun_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("atLeastMs");
        QTest::newRow("terminated") << "slow" << 0;
        // Ignores SIGTERM: killed after two seconds.
        QTest::newRow("killed") << "stubborn" << 1900;
    }

    void cancelStopsASleepingRun() {
        QFETCH(QString, mode);
        QFETCH(int, atLeastMs);
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode(mode.toUtf8().constData()));
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.setProgram(fake.program);
        view.showRoot(fake.cache);
        QSignalSpy finished(&view, &BenchPage::runFinished);
        view.run();
        // Wait for the start line: the run is under way.
        QTRY_COMPARE(view.progressBar()->maximum(), 6);
        QElapsedTimer clock;
        clock.start();
        view.cancelButton()->click();
        QVERIFY(finished.wait(5'000));
        QVERIFY2(clock.elapsed() < 3'500, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(clock.elapsed() >= atLeastMs);
        QVERIFY2(view.statusText().contains("Cancelled"), qPrintable(view.statusText()));
        QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
        QVERIFY(!view.isRunning());
        QVERIFY(view.runButton()->isEnabled());
        QVERIFY(!view.cancelButton()->isEnabled());
    }

    // A cachelens of another protocol version (an older one on PATH, a newer
    // one beside the GUI): its plans and its runs are refused, naming the
    // binary and the versions, and none of its output is shown as results.
    void aCliOfAnotherProtocolVersionIsRefused() {
        FakeCli fake;
        QVERIFY(fake.make());
        const QByteArray newer =
            line(protocol::Header{.version = protocol::kVersion + 1, .program = "cachelens 99.0"});
        QVERIFY(fake.write("plan.jsonl", newer + cannedPlan().split('\n').mid(1).join('\n')));
        QVERIFY(fake.write("run.jsonl", newer + cannedRun().split('\n').mid(1).join('\n')));
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.setProgram(fake.program);
        QSignalSpy planned(&view, &BenchPage::planFinished);
        view.showRoot(fake.cache);
        QVERIFY(planned.wait(10'000));
        const QString expected =
            QStringLiteral("Refused to use %1: cachelens 99.0 speaks cachelens-bench version %2; "
                           "this reader speaks version %3")
                .arg(fake.program)
                .arg(protocol::kVersion + 1)
                .arg(protocol::kVersion);
        QVERIFY2(view.errorText().startsWith(expected), qPrintable(view.errorText()));
        QCOMPARE(view.results()->rowCount(), 0);
        // Nothing more is run with it from the page.
        QVERIFY(!view.runButton()->isEnabled());
        QVERIFY(!view.acceptButton()->isEnabled());

        // Run as the page would if it did (a test's call, not a button).
        view.setProgram(fake.program);
        QSignalSpy finished(&view, &BenchPage::runFinished);
        view.run();
        QVERIFY(finished.wait(10'000));
        QVERIFY2(view.errorText().startsWith(expected), qPrintable(view.errorText()));
        QCOMPARE(view.results()->rowCount(), 0);
        QCOMPARE(view.statusText(), QStringLiteral("Refused %1.").arg(fake.program));

        // An older cachelens prints no header at all.
        QVERIFY(fake.write("run.jsonl", cannedRun().split('\n').mid(1).join('\n')));
        view.run();
        QVERIFY(finished.wait(10'000));
        QVERIFY2(view.errorText().contains("does not start with a cachelens-bench version"),
                 qPrintable(view.errorText()));
        QCOMPARE(view.results()->rowCount(), 0);
    }

    void failuresAreShownInThePage() {
        FakeCli fake;
        QVERIFY(fake.make());
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.setProgram(fake.program);
        view.showRoot(fake.cache);
        QSignalSpy finished(&view, &BenchPage::runFinished);

        // The "error" event and exit code 2: its message.
        QVERIFY(fake.setMode("error"));
        view.run();
        QVERIFY(finished.wait(10'000));
        QVERIFY2(view.errorText().startsWith("no CUDA driver: libcuda.so.1 not found"),
                 qPrintable(view.errorText()));
        QCOMPARE(view.statusText(), QString("Failed."));
        QCOMPARE(view.results()->rowCount(), 0);
        QVERIFY(view.runButton()->isEnabled());

        // A crash after a few lines: said so, with what came before kept.
        QVERIFY(fake.setMode("crash"));
        view.run();
        QVERIFY(finished.wait(10'000));
        QVERIFY2(view.errorText().contains("crashed after 1 of 6"), qPrintable(view.errorText()));
        QCOMPARE(view.results()->rowCount(), 2);

        // A line that is not JSON: reported, and the run goes on.
        QVERIFY(fake.setMode("noisy"));
        view.run();
        QVERIFY(finished.wait(10'000));
        QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
        QVERIFY2(view.noticeText().contains("Traceback: this is not JSON"),
                 qPrintable(view.noticeText()));
        QCOMPARE(view.results()->rowCount(), 7);
        QVERIFY(view.statusText().contains("Run 12 finished"));

        // Options cannot be slipped in as kernel names.
        view.kernelFilter()->setText(QStringLiteral("%1 --plan").arg(kKernelA));
        const auto callsBefore = fake.calls().size();
        view.run();
        QVERIFY(!view.isRunning());
        QVERIFY2(view.errorText().contains("--plan is not a kernel name"),
                 qPrintable(view.errorText()));
        QCOMPARE(fake.calls().size(), callsBefore);
        QCOMPARE(view.results()->rowCount(), 7); // the last run's results stay
        view.kernelFilter()->clear();

        // Exit code 0 without the end line: the run did not finish.
        QVERIFY(fake.setMode("truncated"));
        view.run();
        QVERIFY(finished.wait(10'000));
        QVERIFY2(view.errorText().contains("without finishing the run"),
                 qPrintable(view.errorText()));
        QCOMPARE(view.results()->rowCount(), 3);

        // No program: the start fails, and the page says which program.
        view.setProgram(fake.temp.filePath("no-such-cachelens"));
        view.run();
        QVERIFY(finished.wait(10'000));
        QVERIFY2(view.errorText().contains("Could not start") &&
                     view.errorText().contains("no-such-cachelens"),
                 qPrintable(view.errorText()));
        QVERIFY(!view.isRunning());
        QVERIFY(view.runButton()->isEnabled());
    }

    // Before a run the table lists what a run would time (bench --plan):
    // the current best of each kernel, or every config with "All configs";
    // the filter's words are the listing's arguments; a run replaces it.
    void pageListsPlansBeforeARun() {
        FakeCli fake;
        QVERIFY(fake.make());
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.setProgram(fake.program);
        QSignalSpy planned(&view, &BenchPage::planFinished);
        view.showRoot(fake.cache);
        QVERIFY(view.isPlanning());
        QVERIFY(planned.wait(10'000));
        QVERIFY(!view.isPlanning());
        QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
        const QString dir = QString::fromStdString(fake.cache.string());
        const QStringList expected{"bench",        dir,         "--plan",
                                   "--json-lines", "--catalog", fake.catalogPath};
        QCOMPARE(fake.calls().size(), std::size_t(1));
        QCOMPARE(fake.calls().back(), expected);
        QCOMPARE(view.lastPlanArguments(), expected);
        // The same dir again (the main window refreshes): no second listing.
        view.showRoot(fake.cache);
        QVERIFY(!view.isPlanning());

        // "All configs" off: the current best of each kernel, and the unplannable one.
        const auto* model = view.results();
        QCOMPARE(model->rowCount(), 3);
        const auto all = candidates();
        for (const int source : {0, 3}) {
            const int row = rowOf(*model, all[static_cast<std::size_t>(source)].hash);
            QVERIFY(row >= 0);
            const auto& result = model->result(row);
            QVERIFY(result.planned());
            QCOMPARE(result.status, QString("planned"));
            QVERIFY(result.wasBest);
            QCOMPARE(result.configText, all[static_cast<std::size_t>(source)].configText);
            auto cell = [&](int column, int role = Qt::DisplayRole) {
                return model->index(row, column).data(role);
            };
            QCOMPARE(cell(BenchResultsModel::VsCurrentColumn).toString(), QString("current best"));
            QVERIFY(cell(BenchResultsModel::KernelColumn, Qt::FontRole).value<QFont>().bold());
            for (const int column :
                 {BenchResultsModel::MedianColumn, BenchResultsModel::SpreadColumn,
                  BenchResultsModel::MinColumn, BenchResultsModel::SamplesColumn}) {
                QCOMPARE(cell(column).toString(), QString());
            }
            QCOMPARE(cell(BenchResultsModel::StatusColumn).toString(), QString("planned"));
            for (const int column :
                 {BenchResultsModel::KernelColumn, BenchResultsModel::StatusColumn}) {
                QVERIFY2(cell(column, Qt::ToolTipRole)
                             .toString()
                             .contains("Grid1D 4096\u00d71\u00d71, 128 threads, 16 B shared"),
                         qPrintable(cell(column, Qt::ToolTipRole).toString()));
            }
            // Not a failure: no red status cell, nothing "fastest".
            QVERIFY(!cell(BenchResultsModel::StatusColumn, Qt::BackgroundRole).isValid());
            QVERIFY(!cell(0, BenchResultsModel::FastestRole).toBool());
        }
        // What was not planned is counted, not hidden.
        QVERIFY2(view.statusText().contains("Planned: 2 candidates of 2 kernels; 1 candidate of "
                                            "1 kernel not planned (the rows marked)"),
                 qPrintable(view.statusText()));
        // The first plan is selected, as a run's first result is.
        QCOMPARE(view.selectedKernel(), kModuleA + "/" + kKernelA);
        // A planned row cannot be made the best config; its chart has no boxes.
        view.selectResult(rowOf(*model, all[0].hash));
        QVERIFY(!view.acceptButton()->isEnabled());
        QVERIFY(!boxSeries(view.chart()));
        QVERIFY2(view.chart()->title().contains("planned"), qPrintable(view.chart()->title()));

        // "All configs": every config, again listed by the CLI.
        view.allConfigsBox()->setChecked(true);
        QVERIFY(view.isPlanning());
        QVERIFY(planned.wait(10'000));
        QCOMPARE(fake.calls().size(), std::size_t(2));
        QCOMPARE(model->rowCount(), 7);
        int best = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            best += model->result(row).wasBest ? 1 : 0;
        }
        QCOMPARE(best, 2);

        // Typing: one listing once the typing pauses, with the words as arguments.
        view.kernelFilter()->setText(kKernelA);
        view.kernelFilter()->setText(QStringLiteral("%1  %2").arg(kKernelA, kModuleB));
        QVERIFY(planned.wait(10'000));
        QCOMPARE(fake.calls().size(), std::size_t(3));
        QCOMPARE(fake.calls().back(), (QStringList{"bench", dir, kKernelA, kModuleB, "--plan",
                                                   "--json-lines", "--catalog", fake.catalogPath}));

        // A run replaces the plans with its results.
        QSignalSpy finished(&view, &BenchPage::runFinished);
        view.run();
        QVERIFY(!view.isPlanning());
        QVERIFY(finished.wait(20'000));
        QCOMPARE(fake.calls().size(), std::size_t(4));
        QVERIFY(!fake.calls().back().contains("--plan"));
        QCOMPARE(model->rowCount(), 7);
        for (int row = 0; row < model->rowCount(); ++row) {
            QVERIFY(!model->result(row).planned());
        }

        // A kernel no .best_config names a config of: said so, as a run would.
        const QByteArray noBestB = cannedPlan(/*kernelBHasBest=*/false);
        QVERIFY(noBestB != cannedPlan());
        QVERIFY(fake.write("plan.jsonl", noBestB));
        view.allConfigsBox()->setChecked(false);
        QVERIFY(planned.wait(10'000));
        QCOMPARE(model->rowCount(), 3);
        const auto& noBest = model->result(2);
        QCOMPARE(noBest.kernel, kKernelB);
        QCOMPARE(noBest.status, QString("plan"));
        QVERIFY2(noBest.message.contains("no .best_config names one of its 3 compiled"),
                 qPrintable(noBest.message));
    }

    void planIsNotListedDuringARun() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("slow"));
        JobPool jobs;
        BenchPage view(jobs, fake.catalogPath);
        view.setProgram(fake.program);
        QSignalSpy planned(&view, &BenchPage::planFinished);
        view.showRoot(fake.cache);
        QVERIFY(planned.wait(10'000));
        QSignalSpy finished(&view, &BenchPage::runFinished);
        view.run();
        QTRY_COMPARE(view.progressBar()->maximum(), 6);
        const auto calls = fake.calls().size();
        // Neither asked for directly nor by another dir: the run's rows stay.
        view.listPlans();
        QVERIFY(!view.isPlanning());
        const fs::path other = fake.cache / "other";
        fs::create_directories(other);
        view.showRoot(other);
        QTest::qWait(500);
        QVERIFY(!view.isPlanning());
        QCOMPARE(fake.calls().size(), calls);
        QCOMPARE(view.results()->rowCount(), 1); // the run's unplannable kernel so far
        QVERIFY(!view.results()->result(0).planned());
        QVERIFY(view.isRunning());
        view.cancel();
        QVERIFY(finished.wait(5'000));
    }

    // The real CLI: the plans of the devset need no GPU; a missing dir is an error.
    void pageListsTheRealCliPlans() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), cache);
        const auto cli =
            test::run_cli({"bench", QString::fromStdString(cache.string()), "--plan",
                           "--json-lines", "--catalog", temp.filePath("catalog.sqlite")});
        QVERIFY2(cli.exit_code == 0, cli.err.constData());
        const auto plans = static_cast<int>(cli.out.count("\"event\":\"plan\""));
        const auto unplannable = static_cast<int>(cli.out.count("\"event\":\"unplannable\""));
        QVERIFY(plans > 0);

        JobPool jobs;
        BenchPage view(jobs, temp.filePath("catalog.sqlite"));
        view.setProgram(test::cli_path());
        view.allConfigsBox()->setChecked(true);
        QSignalSpy planned(&view, &BenchPage::planFinished);
        view.showRoot(cache);
        QVERIFY(planned.wait(60'000));
        QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
        const auto* model = view.results();
        int plannedRows = 0;
        int best = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            plannedRows += model->result(row).planned() ? 1 : 0;
            best += model->result(row).wasBest ? 1 : 0;
        }
        QCOMPARE(plannedRows, plans);
        QCOMPARE(model->rowCount(), plans + unplannable);
        QVERIFY(best > 0);
        QVERIFY(best < plans);

        view.showRoot(cache / "missing");
        QVERIFY(planned.wait(60'000));
        QVERIFY2(view.errorText().contains("no such cache dir"), qPrintable(view.errorText()));
        QCOMPARE(model->rowCount(), 0);
    }

    // The page running the real CLI: without a GPU (CI) it shows why no run
    // was possible; with one, the kernel's results.
    void pageShowsWhatTheRealCliSays() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), cache);
        JobPool jobs;
        BenchPage view(jobs, temp.filePath("catalog.sqlite"));
        view.setProgram(test::cli_path());
        view.showRoot(cache);
        view.kernelFilter()->setText("c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w");
        QSignalSpy finished(&view, &BenchPage::runFinished);
        view.run();
        QVERIFY(finished.wait(120'000));
        if (!view.errorText().isEmpty()) {
            QVERIFY2(view.errorText().contains("CUDA") || view.errorText().contains("GPU"),
                     qPrintable(view.errorText()));
            QCOMPARE(view.statusText(), QString("Failed."));
            QCOMPARE(view.results()->rowCount(), 0);
        } else {
            QVERIFY2(view.statusText().contains("finished"), qPrintable(view.statusText()));
            QVERIFY(view.results()->rowCount() > 0);
            QCOMPARE(view.results()->result(0).module,
                     QString("c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w"));
        }
    }

    void mainWindowHasTheBenchmarksPage() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::sample_cache(), cache);
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.resize(1400, 900);
        window.show();
        // A plan listing slower than the request's last turn: the request waits for it.
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("slowplan"));
        window.benchPage()->setProgram(fake.program);
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {cache};
        request.view = QStringLiteral("bench");
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        QTabWidget* pages = nullptr;
        for (auto* tabs : window.findChildren<QTabWidget*>()) {
            if (tabs->indexOf(window.benchPage()) >= 0) {
                pages = tabs;
            }
        }
        QVERIFY(pages);
        QCOMPARE(pages->currentWidget(), window.benchPage());
        QVERIFY(!window.benchPage()->isPlanning());
        QCOMPARE(window.benchPage()->results()->rowCount(), 3);
        QVERIFY(window.benchPage()->results()->result(0).planned());
        QCOMPARE(fake.calls().size(), std::size_t(1));
        QCOMPARE(fake.calls().front().at(1), QString::fromStdString(cache.string()));
        QCOMPARE(pages->tabText(static_cast<int>(MainWindow::Page::Bench)), QString("Benchmarks"));
        // The only cache dir is the one to benchmark.
        QVERIFY(window.benchPage()->runButton()->isEnabled());
        bool inViewMenu = false;
        for (auto* action : window.findChildren<QAction*>()) {
            inViewMenu = inViewMenu || action->text() == QStringLiteral("Bench&marks");
        }
        QVERIFY(inViewMenu);
        QCOMPARE(window.benchPage()->program(), fake.program);
    }

private:
    test::PrivateSettings settings_{"tst_bench_page"};
};

QTEST_MAIN(TestBenchView)
#include "tst_bench_page.moc"
