// BenchProcesses, the Benchmarks page's child processes, driven with a fake
// `cachelens` (a shell script that logs its arguments and prints canned
// lines): the command lines it builds, a run's events and how it ended, the
// kept stderr tail, cancel (SIGTERM, then SIGKILL), a plan listing replaced
// or stopped, accept's outcome, a program that cannot start, and nothing
// left running or reported once it is destroyed.

#include "data/bench_run_parser.h"
#include "fake_cli.h"
#include "jobs/bench_processes.h"

#include <signal.h>
#include <sys/types.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <vector>

using namespace cachelens::ui;

namespace {

// Logs its arguments (tab-separated, a line per call) to `calls`, then acts
// as `mode` says, printing the records FakeCli wrote with the engine's
// protocol writer (bench_protocol.h): what the real CLI would print.
const char* const kFakeCli = R"sh(#!/bin/sh
dir=$(dirname "$0")
printf '%s\t' "$@" >> "$dir/calls"
printf '\n' >> "$dir/calls"
mode=$(cat "$dir/mode")
for arg in "$@"; do
    if [ "$arg" = --plan ]; then
        if [ "$mode" = slowplan ] || [ "$mode" = slow ]; then sleep 1; fi
        # Its last line has no newline: still an event.
        cat "$dir/plan.jsonl"
        echo "listed $2" >&2
        exit 0
    fi
done
if [ "$2" = accept ]; then
    case "$mode" in
    refuse)
        cat "$dir/refused.json"
        cat "$dir/refused.txt" >&2
        exit 2;;
    garbled)
        echo 'accepted, somehow'
        exit 0;;
    esac
    cat "$dir/accept.json"
    exit 0
fi
case "$mode" in
slow)
    echo $$ > "$dir/pid"
    head -n 2 "$dir/run.jsonl"
    exec sleep 30;;
stubborn)
    head -n 2 "$dir/run.jsonl"
    trap '' TERM
    while :; do sleep 0.2; done;;
noisy)
    head -c 20000 /dev/zero | tr '\0' x >&2
    printf '\nthe last words\n' >&2
    exit 2;;
crash)
    head -n 2 "$dir/run.jsonl"
    ulimit -c 0
    kill -SEGV $$;;
newer)
    cat "$dir/newer.jsonl"
    exec sleep 30;;
esac
# A header and a start, a line that is not JSON, a result, an end without its newline.
cat "$dir/run.jsonl"
exit 1
)sh";

namespace protocol = cachelens::bench::protocol;

QByteArray lineOf(const protocol::Record& record) {
    return QByteArray::fromStdString(protocol::to_line(record)) + '\n';
}

QByteArray headerLine() {
    return lineOf(protocol::Header{.program = "cachelens test"});
}

cachelens::bench::CandidateResult result(const char* hash, const char* config) {
    cachelens::bench::CandidateResult result;
    result.kernel_name = "triton_red_fused_0";
    result.module_key = "cmodule";
    result.triton_hash = hash;
    result.config.kwargs = {{config, std::int64_t{1}}};
    result.samples_ms = {0.5};
    result.stats = cachelens::bench::stats_of(result.samples_ms);
    return result;
}

// The words of a refusal: the test's own, carried by the CLI's record.
const std::string kRefusedWords = "h1 is already the best config of cmodule";

struct FakeCli : cachelens::test::FakeCliDir {
    bool make() { return install(kFakeCli) && writeRecords(); }
    bool writeRecords() const {
        protocol::Plan plan;
        plan.kernel = "triton_red_fused_0";
        plan.module = "cmodule";
        plan.triton_hash = "h0";
        plan.config.kwargs = {{"XBLOCK", std::int64_t{1}}};
        plan.is_current_best = true;
        QByteArray planLines =
            headerLine() + lineOf(plan) +
            lineOf(protocol::Unplannable{"triton_poi_1", "cother", "kernel", "no source"});
        planLines.chop(1);
        QByteArray run = headerLine() + lineOf(protocol::Start{"/cache", {}, "do_bench", 1, 1}) +
                         "Traceback: this is not JSON\n" +
                         lineOf(protocol::Result{1, 1, result("h0", "XBLOCK")}) +
                         lineOf(protocol::End{7, 1, 0, 0});
        run.chop(1);
        const std::string cache = temp.filePath("cache").toStdString();
        protocol::Accepted accepted{cache,
                                    cache + "/b.best_config",
                                    cache + "/b.best_config.bak",
                                    "XBLOCK=1",
                                    "XBLOCK=2",
                                    std::nullopt,
                                    std::nullopt};
        const auto refused = protocol::Failure::of(
            cachelens::Error{cachelens::ErrorKind::InvalidArgument, kRefusedWords, {}});
        const QByteArray newer =
            lineOf(protocol::Header{.version = protocol::kVersion + 1, .program = "cachelens 99"}) +
            lineOf(protocol::Start{"/cache", {}, "do_bench", 1, 1});
        return write("plan.jsonl", planLines) && write("run.jsonl", run) &&
               write("newer.jsonl", newer) &&
               write("accept.json", QByteArray::fromStdString(protocol::to_document(accepted))) &&
               write("refused.json", QByteArray::fromStdString(protocol::to_document(refused))) &&
               write("refused.txt", QByteArray::fromStdString("cachelens: " + kRefusedWords));
    }
};

// What a BenchProcesses reported, in order.
struct Reports {
    std::vector<BenchEvent> events;
    std::vector<BenchExit> runEnds;
    std::vector<BenchPlanListing> listings;
    std::vector<BenchAcceptEnd> acceptEnds;
    bool runningAtEnd = true;

    explicit Reports(BenchProcesses& processes) {
        QObject::connect(&processes, &BenchProcesses::runEvent,
                         [this](const BenchEvent& event) { events.push_back(event); });
        QObject::connect(&processes, &BenchProcesses::runEnded,
                         [this, &processes](const BenchExit& exit) {
                             runningAtEnd = processes.isRunning();
                             runEnds.push_back(exit);
                         });
        QObject::connect(&processes, &BenchProcesses::plansListed,
                         [this](const BenchPlanListing& listing) { listings.push_back(listing); });
        QObject::connect(&processes, &BenchProcesses::acceptEnded,
                         [this](const BenchAcceptEnd& end) { acceptEnds.push_back(end); });
    }
};

template <typename Event>
int countOf(const std::vector<BenchEvent>& events) {
    return static_cast<int>(std::count_if(events.begin(), events.end(), [](const auto& event) {
        return std::holds_alternative<Event>(event);
    }));
}

} // namespace

class TestBenchProcesses : public QObject {
    Q_OBJECT

private slots:
    void runStreamsEventsThenEnds() {
        FakeCli fake;
        QVERIFY(fake.make());
        BenchProcesses processes(fake.catalogPath);
        processes.setProgram(fake.program);
        QCOMPARE(processes.program(), fake.program);
        Reports reports(processes);
        const QString dir = fake.temp.filePath("cache");
        processes.startRun(dir, {"triton_red_fused_0", "cother"}, true);
        QVERIFY(processes.isRunning());
        const QStringList expected{
            "bench",        dir,         "triton_red_fused_0", "cother", "--all-configs",
            "--json-lines", "--catalog", fake.catalogPath};
        QCOMPARE(processes.lastRunArguments(), expected);
        // A second run while one is under way is not started.
        processes.startRun(dir, {}, false);
        QCOMPARE(processes.lastRunArguments(), expected);

        QTRY_COMPARE_WITH_TIMEOUT(reports.runEnds.size(), std::size_t(1), 10'000);
        QVERIFY(!processes.isRunning());
        QVERIFY(!reports.runningAtEnd);
        QCOMPARE(fake.calls(), std::vector<QStringList>{expected});
        // Every line, the one that is not JSON and the unfinished last one too.
        QCOMPARE(reports.events.size(), std::size_t(4));
        QVERIFY(std::holds_alternative<BenchStartEvent>(reports.events[0]));
        QCOMPARE(std::get<BenchBadLine>(reports.events[1]).line,
                 QString("Traceback: this is not JSON"));
        QCOMPARE(std::get<BenchResultEvent>(reports.events[2]).tritonHash, QString("h0"));
        QCOMPARE(std::get<BenchEndEvent>(reports.events[3]).runId, qint64(7));
        const BenchExit& exit = reports.runEnds.front();
        QVERIFY(exit.started());
        QVERIFY(!exit.crashed);
        QVERIFY(!exit.cancelled);
        QCOMPARE(exit.code, 1);
        QVERIFY(!exit.succeeded());
        QCOMPARE(exit.stderrText, QString());

        // A run after it starts afresh.
        QVERIFY(fake.setMode("crash"));
        processes.startRun(dir, {}, false);
        QCOMPARE(processes.lastRunArguments(),
                 (QStringList{"bench", dir, "--json-lines", "--catalog", fake.catalogPath}));
        QTRY_COMPARE_WITH_TIMEOUT(reports.runEnds.size(), std::size_t(2), 10'000);
        QVERIFY(reports.runEnds.back().crashed);
        QCOMPARE(countOf<BenchStartEvent>(reports.events), 2);
        QCOMPARE(reports.events.size(), std::size_t(5));
    }

    void runKeepsTheTailOfStderr() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("noisy"));
        BenchProcesses processes(fake.catalogPath);
        processes.setProgram(fake.program);
        Reports reports(processes);
        processes.startRun(fake.temp.path(), {}, false);
        QTRY_COMPARE_WITH_TIMEOUT(reports.runEnds.size(), std::size_t(1), 10'000);
        const BenchExit& exit = reports.runEnds.front();
        QCOMPARE(exit.code, 2);
        QVERIFY(reports.events.empty());
        QVERIFY2(exit.stderrText.endsWith("xxxx\nthe last words"),
                 qPrintable(exit.stderrText.right(40)));
        QVERIFY(exit.stderrText.size() <= 16 * 1024);
        QVERIFY(exit.stderrText.size() > 16 * 1024 - 32);
    }

    void cancelStopsTheRun_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("atLeastMs");
        QTest::newRow("terminated") << "slow" << 0;
        // Ignores SIGTERM: killed after two seconds.
        QTest::newRow("killed") << "stubborn" << 1900;
    }

    void cancelStopsTheRun() {
        QFETCH(QString, mode);
        QFETCH(int, atLeastMs);
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode(mode.toUtf8().constData()));
        BenchProcesses processes(fake.catalogPath);
        processes.setProgram(fake.program);
        Reports reports(processes);
        QVERIFY(!processes.isCancelling());
        processes.cancelRun(); // nothing to cancel
        QVERIFY(!processes.isCancelling());
        processes.startRun(fake.temp.path(), {}, false);
        QTRY_COMPARE_WITH_TIMEOUT(reports.events.size(), std::size_t(1), 10'000);
        QElapsedTimer clock;
        clock.start();
        processes.cancelRun();
        QVERIFY(processes.isCancelling());
        processes.cancelRun(); // once is enough
        QTRY_COMPARE_WITH_TIMEOUT(reports.runEnds.size(), std::size_t(1), 5'000);
        QVERIFY2(clock.elapsed() < 3'500, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(clock.elapsed() >= atLeastMs);
        QVERIFY(reports.runEnds.front().cancelled);
        QVERIFY(!processes.isCancelling());
        QVERIFY(!processes.isRunning());
    }

    void plansAreListed() {
        FakeCli fake;
        QVERIFY(fake.make());
        BenchProcesses processes(fake.catalogPath);
        processes.setProgram(fake.program);
        Reports reports(processes);
        const QString dir = fake.temp.filePath("cache");
        processes.listPlans(dir, {"cmodule"});
        QVERIFY(processes.isPlanning());
        const QStringList expected{"bench",        dir,         "cmodule",       "--plan",
                                   "--json-lines", "--catalog", fake.catalogPath};
        QCOMPARE(processes.lastPlanArguments(), expected);
        QTRY_COMPARE_WITH_TIMEOUT(reports.listings.size(), std::size_t(1), 10'000);
        QVERIFY(!processes.isPlanning());
        QCOMPARE(fake.calls(), std::vector<QStringList>{expected});
        const BenchPlanListing& listing = reports.listings.front();
        QCOMPARE(listing.dir, dir);
        QVERIFY(listing.exit.succeeded());
        QCOMPARE(listing.exit.stderrText, "listed " + dir);
        QCOMPARE(listing.events.size(), std::size_t(2));
        QVERIFY(std::get<BenchPlanEvent>(listing.events[0]).isCurrentBest);
        QCOMPARE(std::get<BenchUnplannableEvent>(listing.events[1]).why, QString("no source"));
        // A listing is not a run.
        QVERIFY(reports.events.empty());
        QVERIFY(reports.runEnds.empty());
    }

    void aListingIsReplacedOrStopped() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("slowplan"));
        BenchProcesses processes(fake.catalogPath);
        processes.setProgram(fake.program);
        Reports reports(processes);
        const QString first = fake.temp.filePath("first");
        const QString second = fake.temp.filePath("second");
        processes.listPlans(first, {});
        processes.listPlans(second, {});
        QTRY_COMPARE_WITH_TIMEOUT(reports.listings.size(), std::size_t(1), 10'000);
        QCOMPARE(reports.listings.front().dir, second);
        QTest::qWait(1'500);
        QCOMPARE(reports.listings.size(), std::size_t(1));

        processes.listPlans(first, {});
        QVERIFY(processes.isPlanning());
        processes.stopPlans();
        QVERIFY(!processes.isPlanning());
        QTest::qWait(1'500);
        QCOMPARE(reports.listings.size(), std::size_t(1));
    }

    // A CLI of another protocol version: one refusal naming it, nothing of
    // its output after that, and the process killed rather than left timing.
    void anotherProtocolVersionIsRefusedAndStopped() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("newer"));
        BenchProcesses processes(fake.catalogPath);
        processes.setProgram(fake.program);
        Reports reports(processes);
        QElapsedTimer clock;
        clock.start();
        processes.startRun(fake.temp.path(), {}, false);
        QTRY_COMPARE_WITH_TIMEOUT(reports.runEnds.size(), std::size_t(1), 10'000);
        QVERIFY2(clock.elapsed() < 5'000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(reports.events.size(), std::size_t(1));
        const auto* refused = std::get_if<BenchIncompatible>(&reports.events.front());
        QVERIFY(refused != nullptr);
        QVERIFY2(refused->why.contains("cachelens 99 speaks cachelens-bench version"),
                 qPrintable(refused->why));
        QVERIFY(reports.runEnds.front().refused);
        QVERIFY(!processes.isRunning());
    }

    void acceptSaysWhatItDid() {
        FakeCli fake;
        QVERIFY(fake.make());
        BenchProcesses processes(fake.catalogPath);
        processes.setProgram(fake.program);
        Reports reports(processes);
        const QString dir = fake.temp.filePath("cache");
        processes.accept("cmodule", "h1", dir);
        QVERIFY(processes.isAccepting());
        QTRY_COMPARE_WITH_TIMEOUT(reports.acceptEnds.size(), std::size_t(1), 10'000);
        QVERIFY(!processes.isAccepting());
        QCOMPARE(fake.calls().back(), (QStringList{"bench", "accept", "cmodule", "h1", "--dir", dir,
                                                   "--catalog", fake.catalogPath, "--json"}));
        {
            const BenchAcceptEnd& end = reports.acceptEnds.back();
            QVERIFY(end.exit.succeeded());
            QVERIFY(end.outcome.has_value());
            QVERIFY(end.outcome->has_value());
            QCOMPARE((*end.outcome)->bestConfig, dir + "/b.best_config");
            QCOMPARE((*end.outcome)->backup, dir + "/b.best_config.bak");
            QCOMPARE((*end.outcome)->newConfig, QString("XBLOCK=2"));
        }

        // Refused: the exit code and the CLI's words, no outcome; the refusal
        // typed, and not one --force would overrule.
        QVERIFY(fake.setMode("refuse"));
        processes.accept("cmodule", "h1", dir);
        QTRY_COMPARE_WITH_TIMEOUT(reports.acceptEnds.size(), std::size_t(2), 10'000);
        {
            const BenchAcceptEnd& end = reports.acceptEnds.back();
            QCOMPARE(end.exit.code, 2);
            QVERIFY(end.exit.stderrText.contains(QString::fromStdString(kRefusedWords)));
            QVERIFY(!end.outcome.has_value());
            QVERIFY(end.refusal.has_value());
            QCOMPARE(end.refusal->message, QString::fromStdString(kRefusedWords));
            QCOMPARE(end.refusal->kind, cachelens::ErrorKind::InvalidArgument);
            QVERIFY(!end.refusal->refusal.has_value());
        }

        // Exit code 0 with output that is not an outcome: why it is not.
        QVERIFY(fake.setMode("garbled"));
        processes.accept("cmodule", "h1", dir);
        QTRY_COMPARE_WITH_TIMEOUT(reports.acceptEnds.size(), std::size_t(3), 10'000);
        {
            const BenchAcceptEnd& end = reports.acceptEnds.back();
            QVERIFY(end.exit.succeeded());
            QCOMPARE(end.output, QString("accepted, somehow"));
            QVERIFY(end.outcome.has_value());
            QVERIFY(!end.outcome->has_value());
            QVERIFY(end.outcome->error().describe().find("printed no JSON object") !=
                    std::string::npos);
        }
    }

    void aMissingProgramIsReportedAsNotStarted() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        BenchProcesses processes(temp.filePath("catalog.sqlite"));
        processes.setProgram(temp.filePath("no-such-cachelens"));
        Reports reports(processes);
        processes.startRun(temp.path(), {}, false);
        processes.listPlans(temp.path(), {});
        processes.accept("cmodule", "h1", temp.path());
        QTRY_VERIFY_WITH_TIMEOUT(reports.runEnds.size() == 1 && reports.listings.size() == 1 &&
                                     reports.acceptEnds.size() == 1,
                                 10'000);
        for (const BenchExit* exit : {&reports.runEnds.front(), &reports.listings.front().exit,
                                      &reports.acceptEnds.front().exit}) {
            QVERIFY(!exit->started());
            QVERIFY(!exit->succeeded());
            QVERIFY(!exit->notStarted.isEmpty());
        }
        QCOMPARE(reports.listings.front().dir, temp.path());
        QVERIFY(!reports.acceptEnds.front().outcome.has_value());
        QVERIFY(!processes.isRunning());
        QVERIFY(!processes.isPlanning());
        QVERIFY(!processes.isAccepting());
    }

    // Destroyed with a run and a listing under way: both killed, neither reported.
    void destructionKillsWithoutReporting() {
        FakeCli fake;
        QVERIFY(fake.make());
        QVERIFY(fake.setMode("slow"));
        auto processes = std::make_unique<BenchProcesses>(fake.catalogPath);
        processes->setProgram(fake.program);
        Reports reports(*processes);
        processes->startRun(fake.temp.path(), {}, false);
        processes->listPlans(fake.temp.path(), {});
        QTRY_COMPARE_WITH_TIMEOUT(reports.events.size(), std::size_t(1), 10'000);
        bool ok = false;
        const pid_t pid = fake.read("pid").trimmed().toInt(&ok);
        QVERIFY(ok && pid > 0);
        QCOMPARE(::kill(pid, 0), 0);
        QElapsedTimer clock;
        clock.start();
        processes.reset();
        QVERIFY2(clock.elapsed() < 2'500, qPrintable(QString::number(clock.elapsed())));
        // Killed and reaped: no such process any more.
        QCOMPARE(::kill(pid, 0), -1);
        QCOMPARE(errno, ESRCH);
        QTest::qWait(1'500);
        QVERIFY(reports.runEnds.empty());
        QVERIFY(reports.listings.empty());
    }

    void theProgramIsFindClisByDefault() {
        const QString cli = BenchProcesses::findCli();
        QVERIFY(!cli.isEmpty());
        QCOMPARE(BenchProcesses(QString()).program(), cli);
    }
};

QTEST_GUILESS_MAIN(TestBenchProcesses)
#include "tst_bench_processes.moc"
