// The real window carrying out cachelens-gui's command line
// (StartupRequest) under QT_QPA_PLATFORM=offscreen: --select by key, by a
// path relative or absolute (the second entry of a multi-entry key
// included) and by kernel name; --open DIR browses DIR and --view prune
// prunes it when the catalog holds other dirs (the default dir too, shown
// among the others); and cancelling an index
// always tidies up (the progress bar goes, requestDone comes) even when
// another job ended first.

#include "devset_entries.h"
#include "dialogs/dialog_launcher.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/entry_table_model.h"
#include "pages/browse_page.h"
#include "startup_script.h"
#include "test_paths.h"

#include <cachelens/catalog/catalog.h>

#include <QItemSelectionModel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

// The status bar's Cancel button and progress bar.
QPushButton* cancelButton(MainWindow& window) {
    for (auto* button : window.statusBar()->findChildren<QPushButton*>()) {
        if (button->text() == QLatin1String("Cancel")) {
            return button;
        }
    }
    return nullptr;
}

QProgressBar* progressBar(MainWindow& window) {
    return window.statusBar()->findChild<QProgressBar*>();
}

// Every root the table's rows are in.
std::set<std::string> rootsOfRows(const MainWindow& window) {
    std::set<std::string> roots;
    const auto* model = window.browsePage()->entryModel();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QVariant ref = model->index(row, 0).data(EntryTableModel::EntryRefRole);
        if (ref.isValid()) {
            roots.insert(ref.value<EntryRef>().root.string());
        }
    }
    return roots;
}

} // namespace

class TestStartupRequest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(settings_.isValid()); }

    void init() {
        QVERIFY(temp_.emplace().isValid());
        catalog_ = temp_->filePath("catalog.sqlite");
    }

    void cleanup() { temp_.reset(); }

    void selectFindsKeyPathAndName_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("path"); // the entry selected; empty: any of its key or name
        QTest::addColumn<QString>("key");
        const QString key = QLatin1String(test::kMultiKey);
        const QString first =
            QStringLiteral("fxgraph/tk/%1/%2").arg(key, QLatin1String(test::kMultiFirst));
        const QString second =
            QStringLiteral("fxgraph/tk/%1/%2").arg(key, QLatin1String(test::kMultiSecond));
        const QString triton =
            QStringLiteral("triton/0/UJOTD3AJKWOXNMGBTTD2HWWQNMWMX77VTC77I2UWRVS64R7E67HQ");
        // "@" stands for the cache dir's absolute path.
        QTest::newRow("key") << key << "fxgraph" << QString() << key;
        QTest::newRow("key dir") << "fxgraph/tk/" + key << "fxgraph" << QString() << key;
        // What a user types: the start of one key, as `cachelens show` takes it.
        QTest::newRow("key prefix") << "ftk5o3esbiwg"
                                    << "fxgraph" << QString() << key;
        QTest::newRow("first path") << first << "fxgraph" << first << key;
        QTest::newRow("second path") << second << "fxgraph" << second << key;
        QTest::newRow("second, absolute") << "@/" + second << "fxgraph" << second << key;
        QTest::newRow("first, absolute") << "@/" + first << "fxgraph" << first << key;
        QTest::newRow("kernel name") << "triton_poi_fused_mul_sin_0"
                                     << "triton" << QString() << QString();
        QTest::newRow("Triton dir") << triton << "triton" << triton << triton.section('/', 2);
        QTest::newRow("file in a Triton dir, absolute")
            << "@/" + triton + "/triton_poi_fused_mul_sin_0.cubin"
            << "triton" << triton << triton.section('/', 2);
        QTest::newRow("best_config path")
            << "ev/83fc9438728699e376cdfacdd6ef6ec58cc063f3df1aef131c7310620367f69a.best_config"
            << "best_config"
            << "ev/83fc9438728699e376cdfacdd6ef6ec58cc063f3df1aef131c7310620367f69a.best_config"
            << "83fc9438728699e376cdfacdd6ef6ec58cc063f3df1aef131c7310620367f69a";
    }

    void selectFindsKeyPathAndName() {
        QFETCH(QString, query);
        QFETCH(QString, kind);
        QFETCH(QString, path);
        QFETCH(QString, key);
        const fs::path cache = fs::path(temp_->path().toStdString()) / "multi";
        test::copy_tree(test::fixture("multi_dev/cache"), cache);
        query.replace(u'@', QString::fromStdString(catalog::root_location(cache)));

        MainWindow window(catalog_);
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {cache};
        request.select = query;
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        const auto current = window.browsePage()->currentEntry();
        QVERIFY2(current, qPrintable(window.statusText()));
        QCOMPARE(QString::fromStdString(std::string(cachedir::to_string(current->entry.kind))),
                 kind);
        if (!path.isEmpty()) {
            QCOMPARE(QString::fromStdString(current->entry.path), path);
        }
        if (!key.isEmpty()) {
            QCOMPARE(QString::fromStdString(current->entry.key), key);
        } else {
            QCOMPARE(QString::fromStdString(current->entry.name), query);
        }
        // The table selects it too.
        const auto rows = window.browsePage()->entryTable()->selectionModel()->selectedRows();
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows.front().data(EntryTableModel::EntryRefRole).value<EntryRef>(), *current);
    }

    void selectRefusesWhatNamesNoEntry_data() {
        QTest::addColumn<QString>("query");
        QTest::newRow("an entry's file name alone") << QString::fromLatin1(test::kMultiSecond);
        QTest::newRow("a path of no entry") << "fxgraph/tk/nothing/here";
        QTest::newRow("outside every root") << "/etc/passwd";
        QTest::newRow("three characters: too short a prefix") << "ftk";
    }

    void selectRefusesWhatNamesNoEntry() {
        QFETCH(QString, query);
        const fs::path cache = fs::path(temp_->path().toStdString()) / "multi";
        test::copy_tree(test::fixture("multi_dev/cache"), cache);
        MainWindow window(catalog_);
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {cache};
        request.select = query;
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        QVERIFY(!window.browsePage()->currentEntry());
        QCOMPARE(window.statusText(), QStringLiteral("No entry %1 in the catalog").arg(query));
    }

    // The catalog already holds another cache dir: --open DIR browses DIR,
    // and --view prune prunes it.
    void openedDirIsBrowsedAndPruned() {
        const fs::path other = fs::path(temp_->path().toStdString()) / "other";
        const fs::path opened = fs::path(temp_->path().toStdString()) / "opened";
        test::copy_tree(test::fixture("multi_dev/cache"), other);
        test::copy_tree(test::sample_cache(), opened);
        {
            auto catalog = catalog::Catalog::open(catalog_.toStdString());
            QVERIFY_RESULT(catalog);
            QVERIFY_RESULT(catalog->index(other));
        }
        MainWindow window(catalog_);
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {opened};
        request.view = QStringLiteral("prune");
        request.pruneMaxSize = QStringLiteral("1M");
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        QWidget* dialog = window.screenshotTarget();
        QVERIFY2(dialog != &window, qPrintable(window.statusText()));
        QCOMPARE(
            dialog->windowTitle(),
            QStringLiteral("Prune %1").arg(QString::fromStdString(catalog::root_location(opened))));
        // The table shows the dir opened, the other one not.
        QCOMPARE(rootsOfRows(window), std::set<std::string>{catalog::root_location(opened)});
    }

    // The default cache dir (no --open) is shown among the catalog's dirs,
    // and --view prune prunes it.
    void theDefaultDirIsShownAmongTheOthers() {
        const fs::path other = fs::path(temp_->path().toStdString()) / "other";
        const fs::path opened = fs::path(temp_->path().toStdString()) / "opened";
        test::copy_tree(test::fixture("multi_dev/cache"), other);
        test::copy_tree(test::fixture("multi_dev/cache"), opened);
        {
            auto catalog = catalog::Catalog::open(catalog_.toStdString());
            QVERIFY_RESULT(catalog);
            QVERIFY_RESULT(catalog->index(other));
        }
        MainWindow window(catalog_);
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {opened};
        request.browseOpened = false;
        request.view = QStringLiteral("prune");
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        QCOMPARE(rootsOfRows(window), (std::set<std::string>{catalog::root_location(opened),
                                                             catalog::root_location(other)}));
        // Pruned all the same.
        QCOMPARE(
            window.screenshotTarget()->windowTitle(),
            QStringLiteral("Prune %1").arg(QString::fromStdString(catalog::root_location(opened))));
    }

    // Another job's end must not take the index's: cancelling it afterwards
    // still hides the progress and lets the request finish.
    void cancellingAnIndexAfterAnotherJobEndedTidiesUp() {
        const fs::path cache = fs::path(temp_->path().toStdString()) / "cache";
        test::copy_tree(test::sample_cache(), cache);
        MainWindow window(catalog_);
        window.show();
        QTRY_VERIFY(window.jobs().isIdle());
        // Its end is queued before the index starts.
        JobTracker other(window.jobs(), &window);
        other.run<int>([](const JobContext&) { return 0; }, [](int) {});
        window.jobs().waitForAll();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {cache};
        window.runStartupRequest(request);
        QPushButton* cancel = cancelButton(window);
        QVERIFY(cancel != nullptr);
        QVERIFY(cancel->isVisible());
        QVERIFY(progressBar(window)->isVisible());
        cancel->click();
        QVERIFY2(done.wait(30'000), qPrintable(window.statusText()));
        QVERIFY(!cancel->isVisible());
        QVERIFY(!progressBar(window)->isVisible());
        QVERIFY(window.jobs().isIdle());
    }

private:
    test::PrivateSettings settings_{"tst_startup_request"};
    std::optional<QTemporaryDir> temp_;
    QString catalog_;
};

QTEST_MAIN(TestStartupRequest)
#include "tst_startup_request.moc"
