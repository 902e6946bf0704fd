// The Live page: watching an empty dir while a writer copies real PyTorch
// 2.11 graphs into it in PyTorch's order (temp name, then rename) and appends
// the devset's trace log in pieces: each graph a row (the second a recompile,
// its cause the dtype change), each trace cache event a row, the GUI thread
// never stalled over 100 ms; a graph row opens on the Why missed page of the
// real window; Stop gives the summary. The model under QAbstractItemModelTester.

#include "jobs/job_pool.h"
#include "jobs/root_follower.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/entry_table_model.h"
#include "models/live_events_model.h"
#include "pages/browse_page.h"
#include "pages/live_page.h"
#include "pytorch_writes.h"
#include "stall_meter.h"
#include "test_paths.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/trace/trace_log.h>

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <thread>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

using test::pytorch_writes::write_fx_graph;
const std::string& kFloat32 = test::pytorch_writes::kFloat32Graph;
const std::string& kFloat16 = test::pytorch_writes::kFloat16Graph;

QString cell(const QAbstractItemModel& model, int row, int column) {
    return model.index(row, column).data().toString();
}

} // namespace

class TestLivePage : public QObject {
    Q_OBJECT

private slots:
    void listsEachEventAsItIsWritten() {
        QTemporaryDir temp;
        const fs::path base = temp.path().toStdString();
        const fs::path cache = base / "cache";
        const fs::path trace = base / "trace";
        fs::create_directories(cache);
        fs::create_directories(trace);
        const fs::path log = test::fixture("devset/trace/dedicated_log_torch_trace_zyfkwfwy.log");
        const std::string bytes = test::read_file(log).toStdString();
        const auto events = trace::parse_trace_log(bytes, "log")->events.size();

        MainWindow window(QString::fromStdString((base / "catalog.sqlite").string()));
        LivePage& page = *window.livePage();
        QAbstractItemModelTester tester(page.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy watching(&page, &LivePage::watching);
        page.start(cache, trace);
        QVERIFY(watching.wait(10'000));
        QVERIFY(page.isWatching());
        QVERIFY2(page.statusText().startsWith("Watching"), qPrintable(page.statusText()));

        test::StallMeter stalls;
        std::thread writer([&] {
            write_fx_graph(cache, kFloat32);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            write_fx_graph(cache, kFloat16);
            test::pytorch_writes::append_in_pieces(trace / "rank0.log", bytes, 39);
        });
        const int expected = 2 + static_cast<int>(events);
        QTRY_VERIFY_WITH_TIMEOUT(page.model()->rowCount() >= expected, 30'000);
        writer.join();
        QTest::qWait(600); // the trace settles: nothing more comes
        const double longest = stalls.longestMs();
        QCOMPARE(page.model()->rowCount(), expected);
        const LiveEventsModel& model = *page.model();
        QCOMPARE(cell(model, 0, LiveEventsModel::KindColumn), QString("fxgraph"));
        QCOMPARE(cell(model, 1, LiveEventsModel::KindColumn), QString("recompile"));
        QVERIFY2(cell(model, 1, LiveEventsModel::EventColumn).contains("dtype"),
                 qPrintable(cell(model, 1, LiveEventsModel::EventColumn)));
        int traceRows = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            traceRows += cell(model, row, LiveEventsModel::KindColumn) == "trace";
        }
        QCOMPARE(traceRows, static_cast<int>(events));
        qInfo("longest GUI stall while events came in: %.1f ms", longest);
        QVERIFY2(longest < 100, qPrintable(QString("the GUI stalled %1 ms").arg(longest)));

        // A graph row opens on the Why missed page.
        auto* pages = window.findChild<QTabWidget*>();
        QVERIFY(page.openRow(1));
        QCOMPARE(pages->currentIndex(), static_cast<int>(MainWindow::Page::Why));
        QVERIFY(!page.openRow(model.rowCount() - 1)); // a trace row: no entry of its own

        QSignalSpy stopped(&page, &LivePage::stopped);
        page.stop();
        QVERIFY(stopped.wait(10'000));
        QVERIFY(!page.isWatching());
        QVERIFY2(page.statusText().contains("2 compiles, 1 recompile: 1 dtypes"),
                 qPrintable(page.statusText()));
        QVERIFY2(page.statusText().contains("trace: "), qPrintable(page.statusText()));
    }

    // View > Follow changes: the dir open on Browse gains the graph PyTorch
    // writes into it within a second or two, its row in bold, the window
    // never stalled, only that entry read; stopping leaves the rows as they are.
    void browseFollowsTheOpenDir() {
        QTemporaryDir temp;
        const fs::path base = temp.path().toStdString();
        const fs::path cache = base / "cache";
        write_fx_graph(cache, kFloat32);
        test::age_files(cache, std::chrono::seconds(120));
        test::PrivateSettings settings("tst_live_page");
        MainWindow window(QString::fromStdString((base / "catalog.sqlite").string()));
        QSignalSpy settled(window.roots(), &RootJobs::settled);
        window.roots()->index(cache);
        QVERIFY(settled.wait(60'000));
        const fs::path root = catalog::root_location(cache);
        window.browsePage()->browseRoot(root);
        EntryTableModel& entries = *window.browsePage()->entryModel();
        QTRY_VERIFY_WITH_TIMEOUT(!entries.isLoading() && entries.rowCount() > 0, 30'000);
        const int before = entries.rowCount();
        QVERIFY(!window.isFollowing());
        auto* follower = window.findChild<RootFollower*>();
        QVERIFY(follower != nullptr);
        QSignalSpy watching(follower, &RootFollower::watching);
        window.setFollowing(true);
        QVERIFY(window.isFollowing());
        QVERIFY(watching.wait(10'000));
        // The dir indexed whole once, for what came before the watch.
        settled.clear();
        QVERIFY(settled.wait(30'000));

        test::StallMeter stalls;
        write_fx_graph(cache, kFloat16);
        QTRY_VERIFY_WITH_TIMEOUT(!entries.isLoading() && entries.rowCount() == before + 1, 20'000);
        const double longest = stalls.longestMs();
        // Only the new entry's files were read (Catalog::index_paths), no walk.
        QVERIFY2(window.statusText().contains("(1 written since, 0 removed, 0 parse errors)"),
                 qPrintable(window.statusText()));
        (void)entries.index(0, 0).data(); // rows are read a page at a time, when asked for
        QTRY_VERIFY_WITH_TIMEOUT(entries.isRowLoaded(0) && entries.isRowLoaded(before), 5'000);
        int bold = 0;
        QString rows;
        for (int row = 0; row < entries.rowCount(); ++row) {
            const bool isBold =
                entries.index(row, EntryTableModel::Kind).data(Qt::FontRole).value<QFont>().bold();
            bold += isBold;
            rows += QString("\n%1 %2 %3")
                        .arg(entries.index(row, EntryTableModel::Key).data().toString())
                        .arg(entries.index(row, EntryTableModel::Modified)
                                 .data(EntryTableModel::RawValueRole)
                                 .toLongLong())
                        .arg(isBold);
        }
        // The graph written while following, alone.
        QVERIFY2(bold == 1, qPrintable(QString("since %1:").arg(*entries.newSince()) + rows));
        qInfo("followed: %d rows, then %d; longest GUI stall %.1f ms", before, entries.rowCount(),
              longest);
        QVERIFY2(longest < 100, qPrintable(QString("the GUI stalled %1 ms").arg(longest)));

        window.setFollowing(false);
        QVERIFY(!window.isFollowing());
        QCOMPARE(entries.rowCount(), before + 1);
    }

    void aDirThatCannotBeWatchedSaysSo() {
        JobPool jobs;
        LivePage page(jobs);
        QSignalSpy stopped(&page, &LivePage::stopped);
        page.start("/nonexistent/cachelens-live");
        QVERIFY(stopped.wait(10'000));
        QVERIFY2(page.statusText().contains("/nonexistent/cachelens-live"),
                 qPrintable(page.statusText()));
        QCOMPARE(page.model()->rowCount(), 0);
    }

    void goingAwayWhileWatchingStopsTheWatch() {
        QTemporaryDir temp;
        JobPool jobs;
        {
            LivePage page(jobs);
            QSignalSpy watching(&page, &LivePage::watching);
            page.start(temp.path().toStdString());
            QVERIFY(watching.wait(10'000));
        } // the page waits for its watch: nothing posts to it afterwards
        QVERIFY(jobs.isIdle() || QTest::qWaitFor([&] { return jobs.isIdle(); }, 5000));
    }
};

QTEST_MAIN(TestLivePage)
#include "tst_live_page.moc"
