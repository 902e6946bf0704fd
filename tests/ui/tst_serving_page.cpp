// The Serving page over trees laid out as vLLM writes them (serving_trees.h):
// its tree model (QAbstractItemModelTester), the piecewise table of the first
// prefix, why a new cache dir; Verify, Pack, Unpack (a dry run first) and
// Prune through the engine calls the CLI makes; names from the tree shown as
// plain text; the main window reaching the page and its view.

#include "jobs/job_pool.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/piecewise_model.h"
#include "models/roots_model.h"
#include "models/serving_tree_model.h"
#include "pages/browse_page.h"
#include "pages/serving_page.h"
#include "serving_trees.h"
#include "test_paths.h"

#include <QAbstractItemModelTester>
#include <QAbstractProxyModel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <filesystem>

using namespace cachelens;
using namespace cachelens::ui;
namespace fixture = cachelens::test::serving_fixture;
namespace fs = std::filesystem;

namespace {

bool waitIdle(ServingPage& page, int timeout = 60000) {
    QElapsedTimer timer;
    timer.start();
    while (page.isBusy() && timer.elapsed() < timeout) {
        QTest::qWait(20);
    }
    QTest::qWait(20);
    return !page.isBusy();
}

} // namespace

class TestServingPage : public QObject {
    Q_OBJECT

private slots:
    void showsTheTreeGraphsAndWhy() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        const std::string infer = fixture::vllm_ranges(root, fixture::vllm_env("FLASHINFER"));
        // A name from the tree that would be markup in rich text.
        fs::create_directories(root / infer / "rank_0_0" / "<b>draft");
        JobPool pool;
        ServingPage page(pool);
        QAbstractItemModelTester tester(page.treeModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(page.setRoot(root / infer));
        QVERIFY(waitIdle(page));
        QVERIFY2(page.summary().startsWith("vLLM compile cache: 2 cache dirs, 2 ranks"),
                 qPrintable(page.summary()));
        // The dir named was selected: why vLLM made it.
        QCOMPARE(page.whyText().section('\n', 0, 0),
                 QString("vLLM made a new cache dir because env VLLM_ATTENTION_BACKEND changed "
                         "(FLASH_ATTN -> FLASHINFER)"));
        // Its first prefix: the piecewise graphs.
        page.select(QString::fromStdString(infer + "/rank_0_0/backbone"));
        QVERIFY(waitIdle(page));
        QCOMPARE(page.graphsModel()->rowCount(), 4);
        const QModelIndex shape = page.graphsModel()->index(0, PiecewiseModel::ShapeColumn);
        QVERIFY(page.graphsModel()->data(shape).toString().startsWith("("));
        QVERIFY(page.detailsText().contains("VLLM_ATTENTION_BACKEND = \"FLASHINFER\""));
        const QModelIndex draft =
            page.treeModel()->indexOf(QString::fromStdString(infer + "/rank_0_0/<b>draft"));
        QVERIFY(draft.isValid());
        QCOMPARE(page.treeModel()->data(draft).toString(), QString("<b>draft"));
        // Not a tree: said, nothing read.
        QVERIFY(!page.setRoot(test::fixture("devset/cache")));
        QVERIFY(page.summary().contains("no vLLM or SGLang"));
    }

    void verifyPackUnpackPrune() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = base / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        JobPool pool;
        ServingPage page(pool);
        QVERIFY(page.setRoot(root));
        QVERIFY(waitIdle(page));
        QSignalSpy done(&page, &ServingPage::actionDone);

        page.verify();
        QVERIFY(done.wait(60000));
        QCOMPARE(done.takeFirst().at(0).toBool(), true);
        QVERIFY2(page.detailsText().startsWith("Verified: no problem"),
                 qPrintable(page.detailsText()));

        page.select(QString::fromStdString(hash));
        QVERIFY(waitIdle(page));
        const QString pack = QString::fromStdString((base / "cache.tar.zst").string());
        page.pack(pack);
        QVERIFY(done.wait(60000));
        QCOMPARE(done.takeFirst().at(0).toBool(), true);
        QVERIFY(QFile::exists(pack));

        // Prune: the plan first, then the dir goes.
        page.prune(0, -1, 0, false);
        QVERIFY(done.wait(60000));
        done.clear();
        QVERIFY2(page.detailsText().startsWith("would delete 1 whole cache dir,"),
                 qPrintable(page.detailsText()));
        QVERIFY(fs::exists(root / hash));
        page.prune(0, -1, 0, true);
        QVERIFY(done.wait(60000));
        done.clear();
        QVERIFY(!fs::exists(root / hash));
        QVERIFY(waitIdle(page));

        // Unpack: a dry run writes nothing; then the dir is back.
        page.unpack(pack, {}, {}, true);
        QVERIFY(done.wait(60000));
        QCOMPARE(done.takeFirst().at(0).toBool(), true);
        QVERIFY(!fs::exists(root / hash));
        page.unpack(pack, {}, {}, false);
        QVERIFY(done.wait(60000));
        QCOMPARE(done.takeFirst().at(0).toBool(), true);
        QVERIFY2(page.detailsText().startsWith("Unpacked"), qPrintable(page.detailsText()));
        QVERIFY(fs::exists(root / hash / "rank_0_0/backbone/vllm_compile_cache.py"));
        QVERIFY(waitIdle(page));
        QCOMPARE(page.tree()->hash_dirs.size(), std::size_t{1}); // read again
    }

    void preflightAgainstADirMadeThere() {
        QTemporaryDir here;
        QTemporaryDir there;
        const fs::path root = fs::path(here.path().toStdString()) / "torch_compile_cache";
        const fs::path target = fs::path(there.path().toStdString()) / "torch_compile_cache";
        fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        const std::string theirs = fixture::vllm_ranges(target, fixture::vllm_env("FLASHINFER"));
        JobPool pool;
        ServingPage page(pool);
        QVERIFY(page.setRoot(root));
        QVERIFY(waitIdle(page));
        QSignalSpy done(&page, &ServingPage::actionDone);
        page.preflight(QString::fromStdString((target / theirs).string()));
        QVERIFY(done.wait(60000));
        QCOMPARE(done.takeFirst().at(0).toBool(), false);
        QVERIFY2(page.detailsText().startsWith("vLLM there hashes other factors (env "
                                               "VLLM_ATTENTION_BACKEND changed (FLASH_ATTN -> "
                                               "FLASHINFER))"),
                 qPrintable(page.detailsText()));
        QVERIFY(page.detailsText().contains("Will it hit here?"));
    }

    void mainWindowFollowsTheSidebar() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        test::PrivateSettings settings("tst_serving_page");
        MainWindow window(dir.filePath("catalog.sqlite"));
        QSignalSpy settled(window.roots(), &RootJobs::settled);
        window.roots()->index(root);
        QVERIFY(settled.wait(60000));
        RootsModel* roots = window.browsePage()->rootsModel();
        QTRY_VERIFY_WITH_TIMEOUT(roots->indexOfRoot(root).isValid() &&
                                     roots->rowCount(roots->indexOfRoot(root)) == 1,
                                 30000);
        QAbstractItemModelTester tester(roots,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The sidebar: the tree's cache dir, its rank, its prefix.
        const QModelIndex rootRow = roots->indexOfRoot(root);
        QVERIFY(roots->data(rootRow).toString().endsWith("(vLLM)"));
        const QModelIndex hashRow = roots->index(0, 0, rootRow);
        QCOMPARE(roots->data(hashRow).toString(), QString::fromStdString(hash));
        const QModelIndex prefixRow = roots->index(0, 0, roots->index(0, 0, hashRow));
        QCOMPARE(roots->data(prefixRow).toString(), QString("backbone"));
        QCOMPARE(roots->data(prefixRow, RootsModel::ServingPathRole).toString(),
                 QString::fromStdString(hash + "/rank_0_0/backbone"));
        QCOMPARE(roots->parent(prefixRow).parent(), hashRow);
        // Picking it opens the Serving page on it.
        auto* sidebar = window.browsePage()->findChild<QTreeView*>("sidebar");
        QVERIFY(sidebar != nullptr);
        const auto* proxy = qobject_cast<const QAbstractProxyModel*>(sidebar->model());
        QVERIFY(proxy != nullptr);
        sidebar->selectionModel()->setCurrentIndex(proxy->mapFromSource(prefixRow),
                                                   QItemSelectionModel::ClearAndSelect |
                                                       QItemSelectionModel::Rows);
        QCOMPARE(window.findChild<QTabWidget*>()->currentWidget(), window.servingPage());
        QVERIFY(waitIdle(*window.servingPage()));
        QVERIFY(window.servingPage()->summary().contains("1 cache dir, 1 rank"));
        QCOMPARE(window.servingPage()->graphsModel()->rowCount(), 4);
    }
};

QTEST_MAIN(TestServingPage)
#include "tst_serving_page.moc"
