// The job runner: work runs off the GUI thread, results arrive on it, a newer
// job on a channel supersedes an older one, cancel drops the result, progress
// reaches the GUI thread, and nothing is delivered to a receiver that is gone;
// a job's own `ended` runs once for it, however it ended and whichever job
// finished first.

#include "jobs/job_runner.h"

#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>

using namespace cachelens;
using namespace cachelens::ui;

class TestJobRunner : public QObject {
    Q_OBJECT

private slots:
    void deliversOnTheGuiThread() {
        JobRunner runner;
        QThread* worker = nullptr;
        QThread* delivered_on = nullptr;
        int result = 0;
        runner.run<int>(
            "a", this,
            [&](const JobContext&) {
                worker = QThread::currentThread();
                return 42;
            },
            [&](int value) {
                delivered_on = QThread::currentThread();
                result = value;
            });
        QTRY_COMPARE(result, 42);
        QVERIFY(worker != QThread::currentThread());
        QCOMPARE(delivered_on, QThread::currentThread());
        QTRY_VERIFY(!runner.isRunning("a"));
    }

    void aNewerJobSupersedesAnOlderOne() {
        JobRunner runner;
        std::atomic<bool> release{false};
        QList<int> delivered;
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.run<int>(
            "search", this,
            [&](const JobContext& context) {
                while (!release.load() && !context.cancelled()) {
                    QThread::msleep(1);
                }
                return 1;
            },
            [&](int value) { delivered << value; });
        runner.run<int>(
            "search", this, [](const JobContext&) { return 2; },
            [&](int value) { delivered << value; });
        release = true;
        QTRY_COMPARE(finished.size(), 2);
        QCOMPARE(delivered, QList<int>{2});
    }

    void cancelDropsTheResultAndStopsTheWork() {
        JobRunner runner;
        std::atomic<bool> saw_cancel{false};
        bool delivered = false;
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.run<int>(
            "index", this,
            [&](const JobContext& context) {
                while (!context.cancelled()) {
                    QThread::msleep(1);
                }
                saw_cancel = true;
                return 0;
            },
            [&](int) { delivered = true; });
        QTRY_VERIFY(runner.isRunning("index"));
        runner.cancel("index");
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY(saw_cancel);
        QVERIFY(!delivered);
        QCOMPARE(finished.at(0).at(1).toBool(), false);
    }

    void progressArrivesOnTheGuiThread() {
        JobRunner runner;
        QSignalSpy progress(&runner, &JobRunner::progress);
        bool done = false;
        runner.run<int>(
            "index", this,
            [](const JobContext& context) {
                for (int i = 1; i <= 3; ++i) {
                    context.progress(i, 3, "step");
                }
                return 0;
            },
            [&](int) { done = true; });
        QTRY_VERIFY(done);
        QTRY_COMPARE(progress.size(), 3);
        QCOMPARE(progress.last().at(1).toLongLong(), 3);
        QCOMPARE(progress.last().at(2).toLongLong(), 3);
    }

    void endedRunsForItsOwnJobOnly() {
        JobRunner runner;
        QStringList ended;
        // A quick job finishes (its result waiting in the event queue) before
        // the slow one, which is then cancelled.
        runner.run<int>(
            "quick", this, [](const JobContext&) { return 1; }, [](int) {},
            [&](bool delivered) { ended << QStringLiteral("quick %1").arg(delivered); });
        runner.waitForAll();
        bool slowDelivered = false;
        runner.run<int>(
            "slow", this,
            [](const JobContext& context) {
                while (!context.cancelled()) {
                    QThread::msleep(1);
                }
                return 2;
            },
            [&](int) { slowDelivered = true; },
            [&](bool delivered) { ended << QStringLiteral("slow %1").arg(delivered); });
        // The first quick job, its result not yet delivered, is superseded on
        // its channel: it ends undelivered, the newer one delivered.
        runner.run<int>(
            "quick", this, [](const JobContext&) { return 3; }, [](int) {},
            [&](bool delivered) { ended << QStringLiteral("quick again %1").arg(delivered); });
        QTRY_COMPARE(ended.size(), 2);
        QCOMPARE(ended, (QStringList{"quick 0", "quick again 1"}));
        runner.cancel("slow");
        QTRY_COMPARE(ended.size(), 3);
        QCOMPARE(ended.last(), QStringLiteral("slow 0"));
        QVERIFY(!slowDelivered);

        std::atomic<bool> release{false};
        runner.run<int>(
            "search", this,
            [&](const JobContext&) {
                while (!release.load()) {
                    QThread::msleep(1);
                }
                return 4;
            },
            [](int) {}, [&](bool delivered) { ended << QStringLiteral("old %1").arg(delivered); });
        runner.run<int>(
            "search", this, [](const JobContext&) { return 5; }, [](int) {},
            [&](bool delivered) { ended << QStringLiteral("new %1").arg(delivered); });
        release = true;
        QTRY_COMPARE(ended.size(), 5);
        QVERIFY(ended.contains("old 0"));
        QVERIFY(ended.contains("new 1"));
    }

    void theEnginesProgressIsThrottledWordedAndStopsWhenCancelled() {
        JobRunner runner;
        QSignalSpy progress(&runner, &JobRunner::progress);
        bool done = false;
        runner.run<int>(
            "index", this,
            [](const JobContext& context) {
                const ProgressFn report = context.engineProgress([](const Progress& p) {
                    return QStringLiteral("%1 %2")
                        .arg(QString::fromLatin1(to_string(p.stage)))
                        .arg(p.done);
                });
                // A walk whose total is known at its end, then 100,000 entries
                // reported in a blink: far fewer signals, the last one always.
                for (std::uint64_t found = 0; found <= 3; ++found) {
                    report({.stage = ProgressStage::Scanning,
                            .unit = ProgressUnit::Files,
                            .done = found,
                            .total = found == 3 ? found : 0,
                            .bytes = 0,
                            .item = {}});
                }
                for (std::uint64_t entry = 0; entry <= 100'000; ++entry) {
                    report({.stage = ProgressStage::Parsing,
                            .unit = ProgressUnit::Entries,
                            .done = entry,
                            .total = 100'000,
                            .bytes = 0,
                            .item = {}});
                }
                return 0;
            },
            [&](int) { done = true; });
        QTRY_VERIFY(done);
        QVERIFY2(progress.size() >= 4 && progress.size() < 100,
                 qPrintable(QString::number(progress.size())));
        // Scanning: its first and last, its total held back (a busy bar) to its end.
        QCOMPARE(progress.at(0).at(3).toString(), QStringLiteral("scanning 0"));
        qsizetype parsing = 0;
        while (parsing < progress.size() &&
               !progress.at(parsing).at(3).toString().startsWith(u"parsing")) {
            ++parsing;
        }
        QVERIFY(parsing >= 2 && parsing < progress.size());
        QCOMPARE(progress.at(parsing - 1).at(3).toString(), QStringLiteral("scanning 3"));
        QCOMPARE(progress.at(parsing - 1).at(2).toLongLong(), 0);
        QCOMPARE(progress.at(parsing).at(3).toString(), QStringLiteral("parsing 0"));
        QCOMPARE(progress.last().at(1).toLongLong(), 100'000);
        QCOMPARE(progress.last().at(2).toLongLong(), 100'000);
        QCOMPARE(progress.last().at(3).toString(), QStringLiteral("parsing 100000"));

        // Cancelled: the work hears it from its next report.
        std::atomic<bool> stopped{false};
        runner.run<int>(
            "index", this,
            [&stopped](const JobContext& context) {
                const ProgressFn report =
                    context.engineProgress([](const Progress&) { return QString(); });
                Progress p{.stage = ProgressStage::Parsing,
                           .unit = ProgressUnit::Entries,
                           .done = 0,
                           .total = 10,
                           .bytes = 0,
                           .item = {}};
                while (report(p)) {
                    QThread::msleep(1);
                }
                stopped = true;
                return 0;
            },
            [](int) {});
        QTRY_VERIFY(runner.isRunning("index"));
        runner.cancel("index");
        QTRY_VERIFY(stopped);
    }

    void nothingReachesAReceiverThatIsGone() {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        bool delivered = false;
        bool ended = false;
        auto* receiver = new QObject;
        runner.run<int>(
            "a", receiver,
            [](const JobContext&) {
                QThread::msleep(20);
                return 1;
            },
            [&](int) { delivered = true; }, [&](bool) { ended = true; });
        delete receiver;
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY(!delivered);
        QVERIFY(!ended);
    }
};

QTEST_GUILESS_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
