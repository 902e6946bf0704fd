// The Tune dialog, `cachelens tune` in the GUI: its results model fed the
// records of a tune under QAbstractItemModelTester, and the dialog driven
// with a fake `cachelens` (a shell script that logs its arguments and prints
// records the engine's protocol writer wrote): a run's rows, progress and
// answer; a --plan listing; an error record; a CLI of another protocol
// version, refused and killed; Stop on a tune that sleeps; the command line
// it builds; and the Benchmarks page's "Tune…" that opens it.

#include "dialogs/tune_dialog.h"
#include "fake_cli.h"
#include "jobs/job_pool.h"
#include "jobs/tune_process.h"
#include "models/bench_results_model.h"
#include "models/tune_results_model.h"
#include "pages/bench_page.h"
#include "test_paths.h"
#include "widgets/highlight_colors.h"

#include <cachelens/bench/bench_protocol.h>

#include <signal.h>
#include <sys/types.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFont>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cerrno>
#include <vector>

using namespace cachelens;
using namespace cachelens::ui;
namespace protocol = bench::protocol;

namespace {

const std::string kKernel = "triton_poi_fused_add_0";
const std::string kModule = "cbp4e7wa3qq3ryakn5u5pw2vvhiqyv4zlxa7p3pzvkdwhdh5osym";

cachedir::KernelConfig config(std::int64_t xblock, std::int64_t warps) {
    cachedir::KernelConfig config;
    config.kwargs = {{"XBLOCK", xblock}};
    config.num_warps = warps;
    config.num_stages = 1;
    return config;
}

// The start (the current best), one that does not compile, one faster than the start.
const cachedir::KernelConfig kStart = config(512, 4);
const cachedir::KernelConfig kBroken = config(4096, 16);
const cachedir::KernelConfig kFaster = config(1024, 8);

// The compiler's words, with markup in them: data, shown as written.
const std::string kCompileError =
    "CompilationError: at 12:4: <b>out of shared memory</b> for XBLOCK=4096";
const std::string kVerdictWords =
    "the candidate is 20.0% faster than the current best: 29 of 30 paired rounds agree (97%)";
const std::string kAnswer =
    "triton_poi_fused_add_0: XBLOCK=1024, num_warps=8, num_stages=1 is 20.0% faster than the "
    "cached best (29 of 30 paired rounds agree); 3 configs tried in 12 s (1 compiled, 1 failed: "
    "compile error)";
const std::string kStoppedAnswer =
    "triton_poi_fused_add_0: no config is faster than the cached best (XBLOCK=512, num_warps=4, "
    "num_stages=1) beyond noise; 1 config tried in 2 s (0 compiled); stopped before the search "
    "ended";
const std::string kFailureWords =
    "--space: XBLOCK=3..7 is not a power of two range (XBLOCK=256..4096 is)";

QByteArray line(const protocol::Record& record) {
    return QByteArray::fromStdString(protocol::to_line(record)) + '\n';
}

QByteArray headerLine() {
    return line(protocol::Header{.program = "cachelens test"});
}

protocol::TuneStart tuneStart(bool plan) {
    protocol::TuneStart start;
    start.cache_dir = "/tmp/cache";
    start.kernel = kKernel;
    start.module = kModule;
    start.strategy = "coordesc";
    start.budget = "10 min or 200 configs";
    start.rules = "inductor 2.11";
    start.start_config = kStart;
    start.planned = 3;
    if (!plan) {
        start.device = {"NVIDIA H100 80GB HBM3", "9.0", "13.0", 1980, 52428800};
        start.timing = "do_bench: warmup 25 ms, rep 100 ms";
    }
    return start;
}

protocol::Result result(const cachedir::KernelConfig& config, std::size_t index, const char* origin,
                        double medianMs, bool wasBest = false) {
    bench::CandidateResult result;
    result.kernel_name = kKernel;
    result.module_key = kModule;
    result.triton_hash = "h" + std::to_string(index);
    result.config = config;
    result.was_best = wasBest;
    result.origin = origin;
    if (medianMs > 0) {
        result.samples_ms = {medianMs, medianMs, medianMs};
        result.stats = bench::stats_of(result.samples_ms);
        result.registers = 40;
        result.local_bytes = index == 3 ? 96 : 0; // the new config spills
    } else {
        result.status = "compile";
        result.message = kCompileError;
    }
    return {index, 3, result};
}

protocol::Compiled compiled(const cachedir::KernelConfig& config, bool ok) {
    return ok ? protocol::Compiled{kKernel, config, "ok", {}, "hnew", 4.5}
              : protocol::Compiled{kKernel, config, "compile", kCompileError, {}, 1.5};
}

protocol::Verdict verdict() {
    protocol::Verdict verdict;
    verdict.kernel = kKernel;
    verdict.module = kModule;
    verdict.best_hash = "h1";
    verdict.candidate_hash = "hnew";
    verdict.best_config_text = kStart.describe();
    verdict.candidate_config_text = kFaster.describe();
    verdict.status = "ok";
    verdict.rounds = 30;
    verdict.outcome = bench::PairedVerdict::Outcome::Faster;
    verdict.difference_percent = 20.0;
    verdict.agreement = 29.0 / 30;
    verdict.p_value = 1e-6;
    verdict.text = kVerdictWords;
    return verdict;
}

protocol::TuneEnd tuneEnd() {
    protocol::TuneEnd end;
    end.run_id = 9;
    end.answer = kAnswer;
    end.kernel = kKernel;
    end.module = kModule;
    end.best_config = kFaster;
    end.faster = true;
    end.difference_percent = 20.0;
    end.tried = 3;
    end.compiled = 1;
    end.compile_failed = 1;
    end.seconds = 12;
    end.ended = "converged";
    return end;
}

// What it prints after Ctrl+C, once the start config was timed.
protocol::TuneEnd stoppedEnd() {
    protocol::TuneEnd end;
    end.run_id = 10;
    end.answer = kStoppedAnswer;
    end.kernel = kKernel;
    end.module = kModule;
    end.best_config = kStart;
    end.tried = 1;
    end.seconds = 2;
    end.ended = "stopped";
    return end;
}

// What `cachelens tune --json-lines` prints: the start timed, a config that
// does not compile, one that does and is faster, its verdict, the answer.
QByteArray cannedRun() {
    return headerLine() + line(tuneStart(false)) + line(result(kStart, 1, "cached", 0.05, true)) +
           line(compiled(kBroken, false)) + line(result(kBroken, 2, "new", 0)) +
           line(compiled(kFaster, true)) + line(result(kFaster, 3, "new", 0.04)) + line(verdict()) +
           line(tuneEnd());
}

// What `cachelens tune --plan --json-lines` prints.
QByteArray cannedPlan() {
    return headerLine() + line(tuneStart(true)) +
           line(protocol::TuneCandidate{kKernel, kModule, kStart, "cached", true, "cached"}) +
           line(protocol::TuneCandidate{kKernel, kModule, config(256, 4), "cached", false,
                                        "cached"}) +
           line(protocol::TuneCandidate{kKernel, kModule, kFaster, "new", false, "step 1"});
}

// What `cachelens bench --plan --json-lines` prints for the Benchmarks page: one kernel.
QByteArray cannedBenchPlan() {
    protocol::Plan plan;
    plan.kernel = kKernel;
    plan.module = kModule;
    plan.module_path = "bp/" + kModule + ".py";
    plan.triton_hash = "h1";
    plan.config = kStart;
    plan.is_current_best = true;
    plan.grid_type = "Grid1D";
    plan.grid = {64, 1, 1};
    plan.block_threads = 128;
    return headerLine() + line(plan);
}

// Logs its arguments (tab-separated, a line per call) to `calls`, then acts
// as `mode` says, printing the records written above.
const char* const kFakeCli = R"sh(#!/bin/sh
dir=$(dirname "$0")
printf '%s\t' "$@" >> "$dir/calls"
printf '\n' >> "$dir/calls"
mode=$(cat "$dir/mode")
if [ "$1" = bench ]; then
    cat "$dir/bench_plan.jsonl"
    exit 0
fi
for arg in "$@"; do
    if [ "$arg" = --plan ]; then
        cat "$dir/plan.jsonl"
        exit 0
    fi
done
case "$mode" in
error)
    cat "$dir/error.jsonl"
    cat "$dir/error.txt" >&2
    exit 2;;
newer)
    cat "$dir/newer.jsonl"
    exec sleep 30;;
slow)
    echo $$ > "$dir/pid"
    head -n 3 "$dir/run.jsonl"
    exec sleep 30;;
graceful)
    # As the real CLI on Ctrl+C: the search ends, the answer says so, exit code 130.
    trap 'cat "$dir/stopped.jsonl"; exit 130' INT
    head -n 3 "$dir/run.jsonl"
    while :; do sleep 0.1; done;;
stubborn)
    trap '' INT TERM
    head -n 3 "$dir/run.jsonl"
    while :; do sleep 0.2; done;;
esac
while IFS= read -r line; do
    printf '%s\n' "$line"
    sleep 0.05
done < "$dir/run.jsonl"
exit 0
)sh";

struct FakeCli : test::FakeCliDir {
    QString dir;

    bool make() {
        if (!install(kFakeCli)) {
            return false;
        }
        dir = temp.filePath("cache");
        const protocol::Failure failure{ErrorKind::InvalidArgument, kFailureWords, {}};
        const QByteArray newer =
            line(protocol::Header{.version = protocol::kVersion + 1, .program = "cachelens 99"}) +
            line(tuneStart(false));
        return QDir().mkpath(dir) && write("run.jsonl", cannedRun()) &&
               write("plan.jsonl", cannedPlan()) && write("bench_plan.jsonl", cannedBenchPlan()) &&
               write("error.jsonl", headerLine() + line(tuneStart(false)) + line(failure)) &&
               write("error.txt", QByteArray("cachelens: ") + kFailureWords.c_str()) &&
               write("newer.jsonl", newer) && write("stopped.jsonl", line(stoppedEnd()));
    }
    // A dialog on this CLI, aimed at the kernel's module.
    void aim(TuneDialog& dialog) const {
        dialog.setProgram(program);
        dialog.setTarget(dir, QString::fromStdString(kModule), QString::fromStdString(kKernel));
    }
};

QString cell(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.index(row, column).data(role).toString();
}

} // namespace

class TestTunePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(settings_.isValid()); }

    // (f) Records in, rows out: a failed compile is a row, a compiled config's
    // row is filled in by its result, a verdict lands on its challenger.
    void modelMatchesRecordsByConfig() {
        TuneResultsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.columnCount(), int(TuneResultsModel::ColumnCount));
        QVERIFY(!model.add(protocol::Header{}));
        QVERIFY(!model.add(tuneEnd()));
        QVERIFY(model.add(tuneStart(false)));
        QCOMPARE(model.rowCount(), 0);

        // The compile failed: a row of its own, with the compiler's status and words.
        model.addCompiled(compiled(kBroken, false));
        QCOMPARE(model.rowCount(), 1);
        using C = TuneResultsModel;
        QCOMPARE(cell(model, 0, C::ConfigColumn),
                 QString("XBLOCK=4096, num_warps=16, num_stages=1"));
        QCOMPARE(cell(model, 0, C::OriginColumn), QString("new"));
        QCOMPARE(cell(model, 0, C::StatusColumn), QString("compile error"));
        QCOMPARE(cell(model, 0, C::StatusColumn, C::StatusRole), QString("compile"));
        QCOMPARE(cell(model, 0, C::MessageColumn), QString::fromStdString(kCompileError));
        QCOMPARE(cell(model, 0, C::MedianColumn), QString());
        QCOMPARE(model.index(0, C::StatusColumn).data(Qt::BackgroundRole).value<QColor>(),
                 highlight::fail());
        // Markup in the message stays text: the tooltip spells it out, never renders it.
        const QString tip = cell(model, 0, C::StatusColumn, Qt::ToolTipRole);
        QVERIFY2(tip.contains("&lt;b&gt;") && !tip.contains("<b>"), qPrintable(tip));

        // The start config, timed: "start" in its own row.
        model.add(result(kStart, 1, "cached", 0.05, true));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(cell(model, 1, C::VsStartColumn), QString("start"));
        QCOMPARE(cell(model, 1, C::MedianColumn), QString("0.0500"));
        QCOMPARE(cell(model, 1, C::OriginColumn), QString("cached"));
        QCOMPARE(cell(model, 1, C::StatusColumn), QString("ok"));
        QVERIFY(model.index(1, 0).data(C::StartRole).toBool());
        QVERIFY(model.index(1, 0).data(C::CurrentBestRole).toBool());
        QVERIFY(model.index(1, 0).data(Qt::FontRole).value<QFont>().bold());

        // Compiled: a row waiting to be timed, then its result fills the same row.
        model.addCompiled(compiled(kFaster, true));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(cell(model, 2, C::StatusColumn, C::StatusRole), QString("compiled"));
        QCOMPARE(cell(model, 2, C::MedianColumn), QString());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.addResult(result(kFaster, 3, "new", 0.04));
        QCOMPARE(model.rowCount(), 3);
        QVERIFY(!changed.isEmpty());
        QCOMPARE(changed.front().front().value<QModelIndex>().row(), 2);
        QCOMPARE(cell(model, 2, C::StatusColumn), QString("ok"));
        QCOMPARE(cell(model, 2, C::MedianColumn), QString("0.0400"));
        QCOMPARE(cell(model, 2, C::VsStartColumn), QString("-20.0 %"));
        QCOMPARE(model.index(2, 0).data(C::MedianRole).toDouble(), 0.04);
        // What the driver said of it: registers and spills, on the median.
        QVERIFY(cell(model, 2, C::MedianColumn, Qt::ToolTipRole)
                    .contains("40 registers per thread, 96 B spilled per thread"));
        QVERIFY(cell(model, 1, C::MedianColumn, Qt::ToolTipRole)
                    .contains("40 registers per thread, no spills"));
        QVERIFY(!model.index(2, 0).data(C::CurrentBestRole).toBool());

        // The failed config's result record: the same row, not a second one.
        model.addResult(result(kBroken, 2, "new", 0));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(cell(model, 0, C::StatusColumn), QString("compile error"));
        QCOMPARE(cell(model, 0, C::VsStartColumn), QString());

        // The verdict goes to the challenger's row; one of no row goes nowhere.
        model.addVerdict(verdict());
        QCOMPARE(cell(model, 2, C::VerdictColumn), QString::fromStdString(kVerdictWords));
        QCOMPARE(model.index(2, C::VerdictColumn).data(Qt::BackgroundRole).value<QColor>(),
                 highlight::pass());
        QCOMPARE(cell(model, 1, C::VerdictColumn), QString());
        auto stray = verdict();
        stray.candidate_config_text = "XBLOCK=2, num_warps=1, num_stages=1";
        model.addVerdict(stray);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowOf(kFaster), std::optional<int>(2));
        QVERIFY(!model.rowOf(config(2, 1)).has_value());
        QVERIFY(!model.hasPhases());

        // A start config timed after the others: every "vs start" follows.
        TuneResultsModel late;
        late.setStart(tuneStart(false));
        late.addResult(result(kFaster, 1, "new", 0.04));
        QCOMPARE(cell(late, 0, C::VsStartColumn), QString());
        late.addResult(result(kStart, 2, "cached", 0.08));
        QCOMPARE(cell(late, 0, C::VsStartColumn), QString("-50.0 %"));

        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.start().has_value());
    }

    void modelListsAPlan() {
        TuneResultsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        protocol::StreamReader reader;
        for (const auto& item : reader.feed(cannedPlan().toStdString())) {
            model.add(std::get<protocol::Record>(item));
        }
        QCOMPARE(model.rowCount(), 3);
        QVERIFY(model.hasPhases());
        using C = TuneResultsModel;
        QCOMPARE(cell(model, 0, C::StatusColumn), QString("planned"));
        QCOMPARE(cell(model, 2, C::PhaseColumn), QString("step 1"));
        QCOMPARE(cell(model, 2, C::OriginColumn), QString("new"));
        QCOMPARE(cell(model, 0, C::VsStartColumn), QString("start"));
    }

    // (a) A tune: a row per config as it is tried, the progress counting, the answer on top.
    void aRunShowsRowsProgressAndTheAnswer() {
        FakeCli fake;
        QVERIFY(fake.make());
        TuneDialog dialog(fake.catalogPath);
        fake.aim(dialog);
        QVERIFY(dialog.startButton()->isEnabled());
        QVERIFY(!dialog.stopButton()->isEnabled());
        QSignalSpy ended(&dialog, &TuneDialog::tuneEnded);
        std::vector<int> progress;
        connect(dialog.progressBar(), &QProgressBar::valueChanged, this,
                [&](int value) { progress.push_back(value); });
        dialog.start();
        QVERIFY(dialog.isRunning());
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY(!dialog.planButton()->isEnabled());
        QVERIFY(dialog.stopButton()->isEnabled());
        // Busy until the first result says how many.
        QCOMPARE(dialog.progressBar()->maximum(), 0);
        QVERIFY(ended.wait(20'000));
        QVERIFY(!dialog.isRunning());

        QCOMPARE(dialog.answerText(), QString::fromStdString(kAnswer));
        QVERIFY(dialog.end().has_value());
        QCOMPARE(dialog.end()->run_id, std::int64_t(9));
        QVERIFY(!dialog.failure().has_value());
        QVERIFY(dialog.noticeText().isEmpty());
        QVERIFY2(dialog.statusText().contains("Tune run 9 ended (converged)"),
                 qPrintable(dialog.statusText()));
        QCOMPARE(dialog.progressBar()->maximum(), 3);
        QCOMPARE(dialog.progressBar()->value(), 3);
        QVERIFY2(std::find(progress.begin(), progress.end(), 1) != progress.end() &&
                     std::find(progress.begin(), progress.end(), 2) != progress.end(),
                 "no progress on the way");

        const auto* model = dialog.results();
        QCOMPARE(model->rowCount(), 3);
        QCOMPARE(dialog.resultsTable()->model(), model);
        using C = TuneResultsModel;
        QCOMPARE(cell(*model, 0, C::VsStartColumn), QString("start"));
        QCOMPARE(cell(*model, 1, C::StatusColumn), QString("compile error"));
        QCOMPARE(cell(*model, 2, C::ConfigColumn), QString::fromStdString(kFaster.describe()));
        QCOMPARE(cell(*model, 2, C::VsStartColumn), QString("-20.0 %"));
        QCOMPARE(cell(*model, 2, C::VerdictColumn), QString::fromStdString(kVerdictWords));
        QVERIFY(dialog.resultsTable()->isColumnHidden(C::PhaseColumn));
        QVERIFY(dialog.startButton()->isEnabled());

        // Make best config: only for a row timed ok that is not the start.
        auto* selection = dialog.resultsTable()->selectionModel();
        QVERIFY(!dialog.acceptButton()->isEnabled());
        selection->setCurrentIndex(model->index(0, 0), QItemSelectionModel::ClearAndSelect);
        QVERIFY(!dialog.acceptButton()->isEnabled()); // the start
        selection->setCurrentIndex(model->index(1, 0), QItemSelectionModel::ClearAndSelect);
        QVERIFY(!dialog.acceptButton()->isEnabled()); // did not compile
        selection->setCurrentIndex(model->index(2, 0), QItemSelectionModel::ClearAndSelect);
        QVERIFY(dialog.acceptButton()->isEnabled());
        QSignalSpy asked(&dialog, &TuneDialog::acceptRequested);
        dialog.acceptButton()->click();
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.front().at(0).toString(), QString::fromStdString(kModule));
        QCOMPARE(asked.front().at(1).toString(), QString::fromStdString(kKernel));
        QCOMPARE(asked.front().at(2).toString(),
                 QString::fromStdString(model->row(2).result->result.triton_hash));
        QCOMPARE(asked.front().at(3).toString(), QString::fromStdString(kFaster.describe()));
        dialog.showAcceptOutcome(QStringLiteral("XBLOCK=2048 is now the best config."), true);
        QCOMPARE(dialog.answerText(), QStringLiteral("XBLOCK=2048 is now the best config."));

        // It paints.
        dialog.show();
        QTest::qWait(50);
        QVERIFY(!dialog.grab().isNull());
    }

    // (b) --plan: the configs it would try, cached and new, the current best marked.
    void aPlanListsCandidates() {
        FakeCli fake;
        QVERIFY(fake.make());
        TuneDialog dialog(fake.catalogPath);
        fake.aim(dialog);
        QSignalSpy ended(&dialog, &TuneDialog::tuneEnded);
        dialog.plan();
        QVERIFY(ended.wait(20'000));
        QVERIFY(dialog.answerText().isEmpty());
        QVERIFY2(dialog.statusText().startsWith("Planned: 3 configs to try"),
                 qPrintable(dialog.statusText()));
        QVERIFY(dialog.statusText().contains("1 of them new"));
        const auto* model = dialog.results();
        QCOMPARE(model->rowCount(), 3);
        using C = TuneResultsModel;
        QCOMPARE(cell(*model, 0, C::OriginColumn), QString("cached"));
        QCOMPARE(cell(*model, 1, C::OriginColumn), QString("cached"));
        QCOMPARE(cell(*model, 2, C::OriginColumn), QString("new"));
        QCOMPARE(cell(*model, 2, C::PhaseColumn), QString("step 1"));
        QCOMPARE(cell(*model, 0, C::ConfigColumn), QString::fromStdString(kStart.describe()));
        QVERIFY(model->index(0, 0).data(C::CurrentBestRole).toBool());
        QVERIFY(!model->index(1, 0).data(C::CurrentBestRole).toBool());
        QVERIFY(!dialog.resultsTable()->isColumnHidden(C::PhaseColumn));
        QCOMPARE(dialog.progressBar()->maximum(), 1); // out of the busy state
    }

    // (c) An error record, exit code 2: its words on top, no answer.
    void anErrorShowsTheCliWords() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("error"));
        TuneDialog dialog(fake.catalogPath);
        fake.aim(dialog);
        QSignalSpy ended(&dialog, &TuneDialog::tuneEnded);
        dialog.start();
        QVERIFY(ended.wait(20'000));
        QCOMPARE(dialog.answerText(), QString::fromStdString(kFailureWords));
        QCOMPARE(dialog.failure(), std::optional<QString>(QString::fromStdString(kFailureWords)));
        QVERIFY(!dialog.end().has_value());
        QCOMPARE(dialog.statusText(), QString("Failed (exit code 2)."));
        QCOMPARE(dialog.results()->rowCount(), 0);
        QCOMPARE(dialog.progressBar()->maximum(), 1);
        // A next tune may be tried.
        QVERIFY(dialog.startButton()->isEnabled());
    }

    // (d) Another protocol version: refused with the reader's words, killed, nothing more run.
    void anotherProtocolVersionIsRefusedAndStopped() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("newer"));
        TuneDialog dialog(fake.catalogPath);
        fake.aim(dialog);
        QSignalSpy ended(&dialog, &TuneDialog::tuneEnded);
        QSignalSpy refused(&dialog, &TuneDialog::refused);
        QElapsedTimer clock;
        clock.start();
        dialog.start();
        QVERIFY(ended.wait(10'000));
        // Killed, not left sleeping for its 30 s.
        QVERIFY2(clock.elapsed() < 5'000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(refused.size(), 1);
        const QString why = refused.front().front().toString();
        QVERIFY2(why.contains("cachelens 99 speaks cachelens-bench version"), qPrintable(why));
        QCOMPARE(dialog.answerText(), dialog.incompatibleText(why));
        QVERIFY(dialog.answerText().contains(why));
        QVERIFY(dialog.cliRefused());
        QVERIFY(!dialog.end().has_value());
        QCOMPARE(dialog.results()->rowCount(), 0); // nothing after the header read
        QCOMPARE(dialog.statusText(), "Refused " + fake.program + ".");
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY(!dialog.planButton()->isEnabled());
        dialog.start();
        QVERIFY(!dialog.isRunning());
        QCOMPARE(fake.calls().size(), std::size_t(1));
    }

    // (e) Stop: SIGTERM ends a tune that sleeps; the dialog says it stopped.
    void stopKillsTheTune() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("slow"));
        TuneDialog dialog(fake.catalogPath);
        fake.aim(dialog);
        QSignalSpy ended(&dialog, &TuneDialog::tuneEnded);
        dialog.start();
        QTRY_COMPARE_WITH_TIMEOUT(dialog.results()->rowCount(), 1, 10'000);
        QCOMPARE(dialog.progressBar()->value(), 1);
        bool ok = false;
        const pid_t pid = fake.read("pid").trimmed().toInt(&ok);
        QVERIFY(ok && pid > 0);
        QCOMPARE(::kill(pid, 0), 0);
        QElapsedTimer clock;
        clock.start();
        dialog.stopButton()->click();
        QVERIFY(!dialog.stopButton()->isEnabled());
        QCOMPARE(dialog.statusText(), QString("Stopping…"));
        QVERIFY(ended.wait(5'000));
        QVERIFY2(clock.elapsed() < 3'500, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(!dialog.isRunning());
        QCOMPARE(dialog.statusText(), QString("Stopped after 1 of 3 configs."));
        QVERIFY(dialog.answerText().isEmpty());
        QCOMPARE(::kill(pid, 0), -1);
        QCOMPARE(errno, ESRCH);
        QVERIFY(dialog.startButton()->isEnabled());
    }

    // Stop is the CLI's Ctrl+C: the real CLI then answers with what it measured.
    void stopLetsTheCliAnswer() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("graceful"));
        TuneDialog dialog(fake.catalogPath);
        fake.aim(dialog);
        QSignalSpy ended(&dialog, &TuneDialog::tuneEnded);
        dialog.start();
        QTRY_COMPARE_WITH_TIMEOUT(dialog.results()->rowCount(), 1, 10'000);
        QElapsedTimer clock;
        clock.start();
        dialog.stop();
        QVERIFY(ended.wait(5'000));
        QVERIFY2(clock.elapsed() < 3'000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(dialog.answerText(), QString::fromStdString(kStoppedAnswer));
        QVERIFY(dialog.end().has_value());
        QCOMPARE(dialog.end()->ended, std::string("stopped"));
        QVERIFY2(dialog.statusText().startsWith("Tune run 10 ended (stopped)"),
                 qPrintable(dialog.statusText()));
        QCOMPARE(dialog.progressBar()->value(), 1);
    }

    // A CLI that ignores Ctrl+C (and SIGTERM) is killed after the grace period.
    void stopKillsACliThatDoesNotEnd() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("stubborn"));
        TuneProcess process(fake.catalogPath);
        process.setProgram(fake.program);
        QSignalSpy ended(&process, &TuneProcess::ended);
        QSignalSpy items(&process, &TuneProcess::item);
        TuneRequest request;
        request.dir = fake.dir;
        request.kernel = QString::fromStdString(kModule);
        process.start(request);
        QTRY_COMPARE_WITH_TIMEOUT(items.size(), 3, 10'000); // header, start, a result
        QElapsedTimer clock;
        clock.start();
        process.stop();
        QVERIFY(process.isStopping());
        process.stop(); // once is enough
        QVERIFY(ended.wait(TuneProcess::kStopGraceMs + 5'000));
        // QTimer's coarse timers may fire up to 5 % early.
        QVERIFY2(clock.elapsed() >= TuneProcess::kStopGraceMs * 9 / 10,
                 qPrintable(QString::number(clock.elapsed())));
        const auto exit = ended.front().front().value<BenchExit>();
        QVERIFY(exit.cancelled);
        QVERIFY(exit.crashed); // SIGKILL
        QVERIFY(!process.isRunning());
        QVERIFY(!process.isStopping());
    }

    // (g) The command line: the dialog's fields as the CLI's options.
    void theArgumentsAreTheFields() {
        FakeCli fake;
        QVERIFY(fake.make());
        TuneDialog dialog(fake.catalogPath);
        fake.aim(dialog);
        QCOMPARE(dialog.program(), fake.program);
        // While a bench run has the GPU: a plan, no tune.
        dialog.setGpuBusy(true);
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY(dialog.planButton()->isEnabled());
        dialog.start();
        QVERIFY(!dialog.isRunning());
        dialog.setGpuBusy(false);
        QVERIFY(dialog.startButton()->isEnabled());
        QCOMPARE(dialog.pythonEdit()->text(), QString("python3"));
        QCOMPARE(dialog.spaceEdit()->placeholderText(),
                 QString("XBLOCK=256..4096,num_warps=2..16"));
        QCOMPARE(dialog.budgetEdit()->placeholderText(), QString("10m,200"));
        // Coordinate descent takes no space.
        QCOMPARE(dialog.strategyBox()->currentText(), QString("coordesc"));
        QVERIFY(!dialog.spaceEdit()->isEnabled());
        dialog.strategyBox()->setCurrentText("grid");
        QVERIFY(dialog.spaceEdit()->isEnabled());
        dialog.spaceEdit()->setText(" XBLOCK=256..4096,num_warps=2..16 ");
        dialog.budgetEdit()->setText("90s");
        dialog.pythonEdit()->setText("/opt/venv/bin/python");
        QSignalSpy ended(&dialog, &TuneDialog::tuneEnded);
        dialog.start();
        QVERIFY(ended.wait(20'000));
        const QString kernel = QString::fromStdString(kModule);
        const QStringList grid{
            "tune",       fake.dir,        kernel,     "--json-lines",
            "--strategy", "grid",          "--space",  "XBLOCK=256..4096,num_warps=2..16",
            "--budget",   "90s",           "--python", "/opt/venv/bin/python",
            "--catalog",  fake.catalogPath};
        QCOMPARE(dialog.lastArguments(), grid);
        QCOMPARE(fake.calls(), std::vector<QStringList>{grid});

        // A plan needs no Python; coordesc ignores the space typed; an empty budget is the CLI's.
        dialog.strategyBox()->setCurrentText("coordesc");
        dialog.budgetEdit()->clear();
        dialog.plan();
        QVERIFY(ended.wait(20'000));
        const QStringList plan{"tune",     fake.dir,       kernel,
                               "--plan",   "--json-lines", "--strategy",
                               "coordesc", "--catalog",    fake.catalogPath};
        QCOMPARE(fake.calls().size(), std::size_t(2));
        QCOMPARE(fake.calls().back(), plan);
    }

    // The dialog against the real CLI: --plan needs no GPU and no Python.
    void theRealCliPlansAndRefuses() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const auto cache = std::filesystem::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), cache);
        TuneDialog dialog(temp.filePath("catalog.sqlite"));
        dialog.setProgram(test::cli_path());
        dialog.setTarget(QString::fromStdString(cache.string()),
                         "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w",
                         "triton_red_fused_mul_sqrt_sum_0");
        QSignalSpy ended(&dialog, &TuneDialog::tuneEnded);
        dialog.plan();
        QVERIFY(ended.wait(60'000));
        QVERIFY2(dialog.answerText().isEmpty(), qPrintable(dialog.answerText()));
        QVERIFY2(dialog.noticeText().isEmpty(), qPrintable(dialog.noticeText()));
        QVERIFY2(dialog.statusText().startsWith("Planned: "), qPrintable(dialog.statusText()));
        const auto* model = dialog.results();
        QVERIFY(model->rowCount() > 2);
        QVERIFY(model->start().has_value());
        QCOMPARE(model->start()->kernel, std::string("triton_red_fused_mul_sqrt_sum_0"));
        int cached = 0;
        int fresh = 0;
        int starts = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            const QString origin = cell(*model, row, TuneResultsModel::OriginColumn);
            cached += origin == "cached" ? 1 : 0;
            fresh += origin == "new" ? 1 : 0;
            starts += model->index(row, 0).data(TuneResultsModel::StartRole).toBool() ? 1 : 0;
            QVERIFY(!cell(*model, row, TuneResultsModel::PhaseColumn).isEmpty());
        }
        QVERIFY(cached > 0);
        QVERIFY(fresh > 0);
        QCOMPARE(cached + fresh, model->rowCount());
        QCOMPARE(starts, 1);

        // A grid without a space: the CLI's error record, in its words, exit code 2.
        dialog.strategyBox()->setCurrentText("grid");
        dialog.plan();
        QVERIFY(ended.wait(60'000));
        QVERIFY(dialog.failure().has_value());
        QVERIFY2(dialog.failure()->startsWith("--strategy grid needs --space"),
                 qPrintable(*dialog.failure()));
        QCOMPARE(dialog.answerText(), *dialog.failure());
        QCOMPARE(dialog.statusText(), QString("Failed (exit code 2)."));
        QCOMPARE(dialog.results()->rowCount(), 0);
    }

    // The Benchmarks page reaches it: "Tune…" on the selected kernel.
    void theBenchmarksPageOpensItOnTheSelectedKernel() {
        FakeCli fake;
        QVERIFY(fake.make());
        JobPool jobs;
        BenchPage page(jobs, fake.catalogPath);
        page.setProgram(fake.program);
        QVERIFY(!page.tuneButton()->isEnabled());
        QSignalSpy planned(&page, &BenchPage::planFinished);
        page.showRoot(std::filesystem::path(fake.dir.toStdString()));
        QVERIFY(planned.wait(10'000));
        QCOMPARE(page.results()->rowCount(), 1);
        page.selectResult(0);
        QVERIFY(page.tuneButton()->isEnabled());
        QVERIFY(page.tuneDialog() == nullptr);
        page.tuneButton()->click();
        TuneDialog* dialog = page.tuneDialog();
        QVERIFY(dialog != nullptr);
        QVERIFY(dialog->isVisible());
        QCOMPARE(dialog->dir(), fake.dir);
        QCOMPARE(dialog->kernel(), QString::fromStdString(kModule));
        QCOMPARE(dialog->program(), fake.program);
        QVERIFY(dialog->windowTitle().contains(QString::fromStdString(kKernel)));

        // No bench run on the GPU while a tune times there.
        QVERIFY(fake.setMode("slow"));
        QSignalSpy ended(dialog, &TuneDialog::tuneEnded);
        dialog->start();
        QVERIFY(page.isTuning());
        QVERIFY(!page.runButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(dialog->results()->rowCount(), 1, 10'000);
        // Closing the dialog stops its tune.
        dialog->reject();
        QVERIFY(ended.wait(5'000));
        QVERIFY(!page.isTuning());
        QVERIFY(page.runButton()->isEnabled());
        QCOMPARE(fake.calls().back().front(), QString("tune"));
    }

private:
    test::PrivateSettings settings_{"tst_tune_panel"};
};

QTEST_MAIN(TestTunePanel)
#include "tst_tune_panel.moc"
