// The job pool and its trackers: work runs off the GUI thread, results arrive
// on it, a newer job on a tracker supersedes an older one, cancel drops the
// result, progress reaches the GUI thread, and nothing is delivered once the
// tracker's owner is gone; a job's own `ended` runs once for it, however it
// ended and whichever job finished first; the pool says when every job ended.

#include "jobs/job_tracker.h"

#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <map>

using namespace cachelens;
using namespace cachelens::ui;

namespace {

// A tracker per purpose, by name, as the GUI's classes hold them as members.
class Trackers {
public:
    Trackers(JobPool& pool, QObject* owner)
        : pool_(pool)
        , owner_(owner) {}
    JobTracker* operator[](const QString& name) {
        auto& tracker = trackers_[name];
        if (tracker == nullptr) {
            tracker = new JobTracker(pool_, owner_);
        }
        return tracker;
    }

private:
    JobPool& pool_;
    QObject* owner_;
    std::map<QString, JobTracker*> trackers_;
};

} // namespace

class TestJobTracker : public QObject {
    Q_OBJECT

private slots:
    void deliversOnTheGuiThread() {
        JobPool pool;
        Trackers runner(pool, this);
        QThread* worker = nullptr;
        QThread* delivered_on = nullptr;
        int result = 0;
        runner["a"]->run<int>(
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
        QTRY_VERIFY(!runner["a"]->isRunning());
    }

    void aNewerJobSupersedesAnOlderOne() {
        JobPool pool;
        Trackers runner(pool, this);
        std::atomic<bool> release{false};
        QList<int> delivered;
        QSignalSpy finished(runner["search"], &JobTracker::finished);
        runner["search"]->run<int>(
            [&](const JobContext& context) {
                while (!release.load() && !context.cancelled()) {
                    QThread::msleep(1);
                }
                return 1;
            },
            [&](int value) { delivered << value; });
        runner["search"]->run<int>([](const JobContext&) { return 2; },
                                   [&](int value) { delivered << value; });
        release = true;
        QTRY_COMPARE(finished.size(), 2);
        QCOMPARE(delivered, QList<int>{2});
    }

    void cancelDropsTheResultAndStopsTheWork() {
        JobPool pool;
        Trackers runner(pool, this);
        std::atomic<bool> saw_cancel{false};
        bool delivered = false;
        QSignalSpy finished(runner["index"], &JobTracker::finished);
        runner["index"]->run<int>(
            [&](const JobContext& context) {
                while (!context.cancelled()) {
                    QThread::msleep(1);
                }
                saw_cancel = true;
                return 0;
            },
            [&](int) { delivered = true; });
        QTRY_VERIFY(runner["index"]->isRunning());
        runner["index"]->cancel();
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY(saw_cancel);
        QVERIFY(!delivered);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
    }

    void progressArrivesOnTheGuiThread() {
        JobPool pool;
        Trackers runner(pool, this);
        QSignalSpy progress(runner["index"], &JobTracker::progress);
        bool done = false;
        runner["index"]->run<int>(
            [](const JobContext& context) {
                for (int i = 1; i <= 3; ++i) {
                    context.progress(i, 3, "step");
                }
                return 0;
            },
            [&](int) { done = true; });
        QTRY_VERIFY(done);
        QTRY_COMPARE(progress.size(), 3);
        QCOMPARE(progress.last().at(0).toLongLong(), 3);
        QCOMPARE(progress.last().at(1).toLongLong(), 3);
    }

    void endedRunsForItsOwnJobOnly() {
        JobPool pool;
        Trackers runner(pool, this);
        QStringList ended;
        // A quick job finishes (its result waiting in the event queue) before
        // the slow one, which is then cancelled.
        runner["quick"]->run<int>(
            [](const JobContext&) { return 1; }, [](int) {},
            [&](bool delivered) { ended << QStringLiteral("quick %1").arg(delivered); });
        pool.waitForAll();
        bool slowDelivered = false;
        runner["slow"]->run<int>(
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
        runner["quick"]->run<int>(
            [](const JobContext&) { return 3; }, [](int) {},
            [&](bool delivered) { ended << QStringLiteral("quick again %1").arg(delivered); });
        QTRY_COMPARE(ended.size(), 2);
        QCOMPARE(ended, (QStringList{"quick 0", "quick again 1"}));
        runner["slow"]->cancel();
        QTRY_COMPARE(ended.size(), 3);
        QCOMPARE(ended.last(), QStringLiteral("slow 0"));
        QVERIFY(!slowDelivered);

        std::atomic<bool> release{false};
        runner["search"]->run<int>(
            [&](const JobContext&) {
                while (!release.load()) {
                    QThread::msleep(1);
                }
                return 4;
            },
            [](int) {}, [&](bool delivered) { ended << QStringLiteral("old %1").arg(delivered); });
        runner["search"]->run<int>(
            [](const JobContext&) { return 5; }, [](int) {},
            [&](bool delivered) { ended << QStringLiteral("new %1").arg(delivered); });
        release = true;
        QTRY_COMPARE(ended.size(), 5);
        QVERIFY(ended.contains("old 0"));
        QVERIFY(ended.contains("new 1"));
    }

    void theEnginesProgressIsThrottledWordedAndStopsWhenCancelled() {
        JobPool pool;
        Trackers runner(pool, this);
        QSignalSpy progress(runner["index"], &JobTracker::progress);
        bool done = false;
        runner["index"]->run<int>(
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
        QCOMPARE(progress.at(0).at(2).toString(), QStringLiteral("scanning 0"));
        qsizetype parsing = 0;
        while (parsing < progress.size() &&
               !progress.at(parsing).at(2).toString().startsWith(u"parsing")) {
            ++parsing;
        }
        QVERIFY(parsing >= 2 && parsing < progress.size());
        QCOMPARE(progress.at(parsing - 1).at(2).toString(), QStringLiteral("scanning 3"));
        QCOMPARE(progress.at(parsing - 1).at(1).toLongLong(), 0);
        QCOMPARE(progress.at(parsing).at(2).toString(), QStringLiteral("parsing 0"));
        QCOMPARE(progress.last().at(0).toLongLong(), 100'000);
        QCOMPARE(progress.last().at(1).toLongLong(), 100'000);
        QCOMPARE(progress.last().at(2).toString(), QStringLiteral("parsing 100000"));

        // Cancelled: the work hears it from its next report.
        std::atomic<bool> stopped{false};
        runner["index"]->run<int>(
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
        QTRY_VERIFY(runner["index"]->isRunning());
        runner["index"]->cancel();
        QTRY_VERIFY(stopped);
    }

    void nothingReachesAReceiverThatIsGone() {
        JobPool pool;
        Trackers runner(pool, this);
        QSignalSpy finished(&pool, &JobPool::idle);
        bool delivered = false;
        bool ended = false;
        auto* receiver = new QObject;
        auto* receiverTracker = new JobTracker(pool, receiver);
        receiverTracker->run<int>(
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

    void thePoolIsIdleOnceEveryTrackersJobEndedAndCancelsThemAll() {
        JobPool pool;
        Trackers runner(pool, this);
        QSignalSpy idle(&pool, &JobPool::idle);
        std::atomic<int> stopped{0};
        bool delivered = false;
        for (const char* name : {"index", "search"}) {
            runner[name]->run<int>(
                [&](const JobContext& context) {
                    while (!context.cancelled()) {
                        QThread::msleep(1);
                    }
                    ++stopped;
                    return 0;
                },
                [&](int) { delivered = true; });
        }
        QVERIFY(!pool.isIdle());
        pool.cancelAll();
        QTRY_COMPARE(idle.size(), 1); // once, when the second job ended
        QCOMPARE(stopped.load(), 2);
        QVERIFY(pool.isIdle());
        QVERIFY(!delivered);
    }

    // Watches run until stopped: held as LongRunning, more of them than the
    // pool has threads do not hold up a short job started after them.
    void longRunningJobsDoNotHoldUpTheOthers() {
        JobPool pool;
        Trackers runner(pool, this);
        std::atomic<int> watching{0};
        const int watches = QThread::idealThreadCount() + 2;
        for (int i = 0; i < watches; ++i) {
            runner[QString("watch%1").arg(i)]->run<int>(
                [&](const JobContext& context) {
                    const JobContext::LongRunning untilStopped(context);
                    ++watching;
                    while (!context.cancelled()) {
                        QThread::msleep(1);
                    }
                    return 0;
                },
                [](int) {});
        }
        QTRY_COMPARE(watching.load(), watches);
        bool done = false;
        runner["short"]->run<int>([](const JobContext&) { return 7; },
                                  [&](int value) { done = value == 7; });
        QTRY_VERIFY_WITH_TIMEOUT(done, 5'000);
        pool.cancelAll();
        QTRY_VERIFY(pool.isIdle());
    }
};

QTEST_GUILESS_MAIN(TestJobTracker)
#include "tst_job_tracker.moc"
