// The Warm start page: the devset trace logs against their cache (every
// compile a row, each layer's icon and word, a time bar, the first-compile
// cause, a miss opened on the Why missed page of the real window), the
// hand-made warm_start.log (hits, not logged), a file that is not a log, and
// the model under QAbstractItemModelTester.

#include "jobs/job_pool.h"
#include "main_window.h"
#include "models/nearest_keys_model.h"
#include "models/warm_start_model.h"
#include "pages/warm_start_page.h"
#include "pages/why_page.h"
#include "stall_meter.h"
#include "test_paths.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QIcon>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

QString cell(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.index(row, column).data(role).toString();
}

} // namespace

class TestWarmStartPage : public QObject {
    Q_OBJECT

private slots:
    void showsEveryDevsetCompileAgainstItsCache() {
        JobPool jobs;
        WarmStartPage page(jobs);
        QAbstractItemModelTester tester(page.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&page, &WarmStartPage::loaded);
        page.openTrace(test::fixture("devset/trace"), test::fixture("devset/cache"));
        QVERIFY(loaded.wait(30'000));
        const WarmStartModel& model = *page.model();
        QCOMPARE(model.rowCount(), 4);
        QVERIFY2(page.summaryText().contains("4 compiles: 0 hits, 4 misses (4 first compile); "),
                 qPrintable(page.summaryText()));
        const QStringList ids = {"0/0", "0/0", "1/0", "2/0"};
        const QStringList functions = {"forward", "f", "g", "h"};
        double longest = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            QCOMPARE(cell(model, row, WarmStartModel::CompileColumn), ids[row]);
            QCOMPARE(cell(model, row, WarmStartModel::FunctionColumn), functions[row]);
            QCOMPARE(cell(model, row, WarmStartModel::AotColumn), "miss");
            QCOMPARE(cell(model, row, WarmStartModel::FxColumn), "miss");
            QCOMPARE(cell(model, row, WarmStartModel::DynamoColumn), "not logged");
            QCOMPARE(cell(model, row, WarmStartModel::TritonColumn), "compiled");
            QVERIFY(!model.index(row, WarmStartModel::FxColumn)
                         .data(Qt::DecorationRole)
                         .value<QIcon>()
                         .isNull());
            QVERIFY(cell(model, row, WarmStartModel::FxColumn, Qt::ToolTipRole)
                        .startsWith("1 of 1 graph missed (full_miss)") ||
                    row == 0);
            QCOMPARE(cell(model, row, WarmStartModel::CauseColumn),
                     "first compile: no cached graph is this one compiled before");
            const QVariantList bar = model.index(row, WarmStartModel::TimeColumn)
                                         .data(WarmStartModel::TimeBarRole)
                                         .toList();
            QCOMPARE(bar.size(), qsizetype{6});
            double sum = 0;
            for (const auto& part : bar) {
                QVERIFY(part.toDouble() >= 0);
                sum += part.toDouble();
            }
            QVERIFY(sum <= 1.0 + 1e-9);
            longest = std::max(longest, sum);
            // Each miss wrote the entry the cache dir now holds: Why missed can open it.
            QVERIFY(model.missEntry(row).has_value());
        }
        QVERIFY(std::abs(longest - 1.0) < 1e-9); // the longest compile fills its bar

        QSignalSpy why(&page, &WarmStartPage::whyRequested);
        QVERIFY(page.explainRow(0));
        QCOMPARE(why.size(), 1);
        const auto entry = why.at(0).at(0).value<EntryRef>();
        QCOMPARE(QString::fromStdString(entry.entry.key),
                 "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e");
        QCOMPARE(entry.root, test::fixture("devset/cache"));
        // The detail pane under the table names every layer.
        const auto* detail = page.findChild<QLabel*>("warmStartDetail");
        QVERIFY(detail->text().contains("Triton compile     compiled"));
    }

    // An FX entry that cannot be read is left out of the comparison and said
    // so, as `cachelens report` says it (both run trace::analyze_warm_start).
    void saysWhichCacheEntriesWereLeftOut() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), cache);
        fs::path damaged;
        for (const auto& file : fs::recursive_directory_iterator(cache / "fxgraph")) {
            if (file.is_regular_file()) {
                damaged = file.path();
                break;
            }
        }
        QVERIFY(!damaged.empty());
        {
            QFile file(QString::fromStdString(damaged.string()));
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write("not a pickle");
        }
        JobPool jobs;
        WarmStartPage page(jobs);
        QSignalSpy loaded(&page, &WarmStartPage::loaded);
        QSignalSpy status(&page, &WarmStartPage::statusMessage);
        page.openTrace(test::fixture("devset/trace"), cache);
        QVERIFY(loaded.wait(30'000));
        QVERIFY(!status.isEmpty());
        const QString said = status.last().first().toString();
        QVERIFY2(said.contains("; 1 cache file could not be read and was left out of the "
                               "comparison (first: "),
                 qPrintable(said));
        QVERIFY2(said.contains(QString::fromStdString(damaged.filename().string())),
                 qPrintable(said));
        const auto cli =
            test::run_cli({"report", QString::fromStdString(test::fixture("devset/trace").string()),
                           "--cache", QString::fromStdString(cache.string())});
        QCOMPARE(cli.exit_code, 0);
        QVERIFY2(cli.err.contains("skipped") &&
                     cli.err.contains(QByteArray::fromStdString(damaged.filename().string())),
                 cli.err.constData());
    }

    void saysNotLoggedWhereTheLogIsSilent() {
        JobPool jobs;
        WarmStartPage page(jobs);
        QSignalSpy loaded(&page, &WarmStartPage::loaded);
        page.openTrace(test::test_data("trace/warm_start.log"));
        QVERIFY(loaded.wait(30'000));
        const WarmStartModel& model = *page.model();
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(cell(model, 0, WarmStartModel::DynamoColumn), "profile hit");
        QCOMPARE(cell(model, 0, WarmStartModel::FxColumn), "hit");
        QCOMPARE(cell(model, 0, WarmStartModel::TritonColumn), "from bundle");
        QCOMPARE(cell(model, 0, WarmStartModel::AutotuneColumn), "not logged");
        QCOMPARE(cell(model, 0, WarmStartModel::CauseColumn), "hit");
        QCOMPARE(cell(model, 1, WarmStartModel::AutotuneColumn), "benchmarked");
        QCOMPARE(cell(model, 1, WarmStartModel::TimeColumn), "2.05 s");
        for (int column = WarmStartModel::DynamoColumn; column <= WarmStartModel::TritonColumn;
             ++column) {
            QCOMPARE(cell(model, 2, column), "not logged");
        }
        // No cache dir: nothing for Why missed to open.
        QSignalSpy why(&page, &WarmStartPage::whyRequested);
        QVERIFY(!page.explainRow(1));
        QCOMPARE(why.size(), 0);
    }

    void namesAFileThatIsNotALog() {
        JobPool jobs;
        WarmStartPage page(jobs);
        QSignalSpy loaded(&page, &WarmStartPage::loaded);
        page.openTrace(test::fixture("devset/golden.json"));
        QVERIFY(loaded.wait(30'000));
        const auto* error = page.findChild<QLabel*>("warmStartError");
        QVERIFY(!error->isHidden());
        QVERIFY(error->text().contains("golden.json"));
        QCOMPARE(page.model()->rowCount(), 0);
    }

    // In the real window a miss opens on the Why missed page.
    // Follow: a trace dir whose log grows is read again as it grows, the
    // table gaining the compiles as they are written, the window never
    // stalled; the end is the report of the whole log.
    void followsATraceDirAsItGrows() {
        QTemporaryDir temp;
        const fs::path dir = fs::path(temp.path().toStdString()) / "trace";
        fs::create_directories(dir);
        const fs::path source =
            test::fixture("devset/trace/dedicated_log_torch_trace_zyfkwfwy.log");
        const QByteArray bytes = test::read_file(source);
        // The first compile's lines: up to the second compile's dynamo_start.
        const qsizetype second =
            bytes.indexOf("\"dynamo_start\"", bytes.indexOf("\"dynamo_start\"") + 1);
        QVERIFY(second > 0);
        const qsizetype cut = bytes.lastIndexOf('\n', second) + 1;
        const fs::path log = dir / "rank0.log";
        {
            QFile out(QString::fromStdString(log.string()));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(bytes.left(cut));
        }
        JobPool jobs;
        WarmStartPage page(jobs);
        QSignalSpy loaded(&page, &WarmStartPage::loaded);
        page.openTrace(dir);
        QVERIFY(loaded.wait(30'000));
        const int before = page.model()->rowCount();
        QVERIFY(before >= 1);
        page.setFollowing(true);
        QVERIFY(page.isFollowing());
        test::StallMeter stalls;
        {
            QFile out(QString::fromStdString(log.string()));
            QVERIFY(out.open(QIODevice::Append));
            for (qsizetype at = cut; at < bytes.size(); at += 50'000) {
                out.write(bytes.mid(at, 50'000));
                out.flush();
                QTest::qWait(20);
            }
        }
        QTRY_VERIFY_WITH_TIMEOUT(page.model()->rowCount() == 3, 30'000);
        QVERIFY(before < 3);
        QTRY_VERIFY_WITH_TIMEOUT(page.summaryText().contains("3 compiles: 0 hits, 3 misses"),
                                 10'000);
        qInfo("followed: %d compile(s), then %d; longest stall %.1f ms", before,
              page.model()->rowCount(), stalls.longestMs());
        QVERIFY(stalls.longestMs() < 100);
        page.setFollowing(false);
        QVERIFY(!page.isFollowing());
        // A log, not a dir: nothing to follow.
        page.openTrace(log);
        QVERIFY(loaded.wait(30'000));
        page.setFollowing(true);
        QVERIFY(!page.isFollowing());
    }

    void missOpensOnTheWhyPage() {
        QTemporaryDir temp;
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.resize(1400, 900);
        window.show();
        WarmStartPage* page = window.warmStartPage();
        QSignalSpy loaded(page, &WarmStartPage::loaded);
        page->openTrace(test::fixture("devset/trace"), test::fixture("devset/cache"));
        QVERIFY(loaded.wait(30'000));
        QVERIFY(page->explainRow(2));
        auto* pages = window.findChild<QTabWidget*>();
        QCOMPARE(pages->currentWidget(), window.whyPage());
        QTRY_VERIFY_WITH_TIMEOUT(window.whyPage()->model()->rowCount() > 0, 30'000);
    }
};

QTEST_MAIN(TestWarmStartPage)
#include "tst_warm_start_page.moc"
