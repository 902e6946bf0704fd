// The real window, driven as a user would under QT_QPA_PLATFORM=offscreen:
// open the sample cache, filter the table, select an entry and read its debug
// lines, follow a link, compare two entries and see the attribute that
// differs, type hints into the guard playground and see a clause fail, run a
// prune dry run. And the window's own models under QAbstractItemModelTester.

#include "dialogs/dialog_launcher.h"
#include "dialogs/prune_dialog.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/debug_lines_model.h"
#include "models/entry_table_model.h"
#include "models/guard_clauses_model.h"
#include "models/key_diff_model.h"
#include "models/nearest_keys_model.h"
#include "models/prune_plan_model.h"
#include "models/roots_model.h"
#include "pages/browse_page.h"
#include "pages/compare_page.h"
#include "pages/why_page.h"
#include "startup_script.h"
#include "tabs/debug_lines_tab.h"
#include "tabs/guards_tab.h"
#include "test_paths.h"

#include <cachelens/catalog/catalog.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

// Two FX entries of the sample cache: the forward and backward graphs of one
// model (they differ in fx_kwargs[is_backward], among others), and one with guards.
const QString kForward = QStringLiteral("flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e");
const QString kBackward = QStringLiteral("fiwfskr6jnfhbcay4vb2hbw3ngt6vnf7ucr3drdcawgx5smoly2r");
const QString kGuarded = QStringLiteral("f44wpapccbqjred6qtwm7d3hxi4aoplfv6guceuj2jajh3wsdgko");

std::vector<QString> column(const QAbstractItemModel& model, int column) {
    std::vector<QString> values;
    for (int row = 0; row < model.rowCount(); ++row) {
        values.push_back(model.index(row, column).data().toString());
    }
    return values;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(settings_.isValid()); }

    void init() {
        QVERIFY(temp_.emplace().isValid());
        cache_ = fs::path(temp_->path().toStdString()) / "cache";
        test::copy_tree(test::sample_cache(), cache_);
        window_.emplace(temp_->filePath("catalog.sqlite"));
        window_->resize(1400, 900);
        window_->show();
        QSignalSpy done(&*window_, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {cache_};
        window_->runStartupRequest(request);
        QVERIFY(done.wait(60'000));
    }

    void cleanup() {
        window_.reset();
        temp_.reset();
    }

    void opensTheCacheAndFillsTheTable() {
        auto scan = cachedir::scan_cache_dir(cache_);
        QVERIFY_RESULT(scan);
        QCOMPARE(window_->browsePage()->entryModel()->rowCount(), int(scan->entries().size()));
        QAbstractItemModelTester tester(window_->browsePage()->entryModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Every column of the first rows has been read by the tester; the
        // table shows kinds and keys.
        const auto kinds = column(*window_->browsePage()->entryModel(), EntryTableModel::Kind);
        QVERIFY(std::ranges::find(kinds, QStringLiteral("fxgraph")) != kinds.end());
    }

    void searchFieldFiltersInSql() {
        QSignalSpy loaded(window_->browsePage()->entryModel(), &EntryTableModel::loaded);
        QTest::keyClicks(window_->browsePage()->searchField(), "triton_poi");
        QVERIFY(loaded.wait(10'000));
        auto catalog = catalog::Catalog::open(temp_->filePath("catalog.sqlite").toStdString());
        QVERIFY_RESULT(catalog);
        catalog::SearchQuery query;
        query.text = "triton_poi";
        auto expected = catalog->count(query);
        QVERIFY_RESULT(expected);
        QVERIFY(*expected > 0);
        QCOMPARE(window_->browsePage()->entryModel()->rowCount(), int(*expected));
        // Sorting by size, descending: in SQL, same rows.
        window_->browsePage()->entryTable()->sortByColumn(EntryTableModel::Size,
                                                          Qt::DescendingOrder);
        QVERIFY(loaded.wait(10'000));
        QCOMPARE(window_->browsePage()->entryModel()->rowCount(), int(*expected));
        const auto* model = window_->browsePage()->entryModel();
        for (int row = 1; row < model->rowCount(); ++row) {
            QVERIFY(model->index(row - 1, EntryTableModel::Size)
                        .data(EntryTableModel::RawValueRole)
                        .toULongLong() >= model->index(row, EntryTableModel::Size)
                                              .data(EntryTableModel::RawValueRole)
                                              .toULongLong());
        }
    }

    void selectingAnEntryShowsItsDebugLines() {
        QSignalSpy shown(window_->browsePage(), &BrowsePage::entryShown);
        // The start of a key names it, as `cachelens show flgtecy7` does.
        QVERIFY(window_->browsePage()->selectEntry(kForward.left(8)));
        QVERIFY(shown.wait(10'000));
        QCOMPARE(QString::fromStdString(window_->browsePage()->currentEntry()->entry.key),
                 kForward);
        window_->browsePage()->showTab(BrowsePage::Tab::DebugLines);
        auto* debug =
            qobject_cast<DebugLinesTab*>(window_->browsePage()->tab(BrowsePage::Tab::DebugLines));
        QVERIFY(debug != nullptr);
        QVERIFY(debug->model()->rowCount() > 500);
        const auto attributes = column(*debug->model(), DebugLinesModel::AttributeColumn);
        QVERIFY(std::ranges::find(attributes, QStringLiteral("fx_kwargs[is_backward]")) !=
                attributes.end());
        debug->setFilterText("is_backward");
        QTRY_COMPARE(debug->proxy()->rowCount(), 1);
        // Ctrl+Shift+C copies the selected key. A window shortcut needs the
        // window active, which a loaded machine may not have made it yet.
        QApplication::clipboard()->clear();
        window_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&*window_));
        QTest::keyClick(window_->browsePage()->entryTable(), Qt::Key_C,
                        Qt::ControlModifier | Qt::ShiftModifier);
        // At once when the row's page is in; from a job when it is not yet,
        // which on a loaded machine (a clean clone's `make test` beside other
        // builds) took longer than QTRY's default 5 s.
        // Seen once in a clean clone's loaded `make test` (the clipboard stayed
        // empty): say what the window held then.
        const auto state = [&] {
            auto* table = window_->browsePage()->entryTable();
            return QStringLiteral("selected rows: %1; active window: %2; status: %3")
                .arg(table->selectionModel()->selectedRows().size())
                .arg(QApplication::activeWindow() == &*window_ ? "the main window"
                                                               : "another window")
                .arg(window_->statusText());
        };
        QTRY_VERIFY2_WITH_TIMEOUT(QApplication::clipboard()->text() == kForward,
                                  qPrintable(state()), 20'000);
    }

    void comparingTwoEntriesShowsWhatDiffers() {
        QSignalSpy shown(window_->browsePage(), &BrowsePage::entryShown);
        QVERIFY(window_->browsePage()->selectEntry(kForward));
        QVERIFY(shown.wait(10'000));
        QVERIFY(window_->compareWith(kBackward));
        KeyDiffModel* diff = window_->comparePage()->model();
        QTRY_VERIFY_WITH_TIMEOUT(diff->rowCount() > 0, 10'000);
        QAbstractItemModelTester tester(diff,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        bool found = false;
        for (int row = 0; row < diff->rowCount(); ++row) {
            const QModelIndex attribute = diff->index(row, KeyDiffModel::AttributeColumn);
            if (attribute.data().toString() == "fx_kwargs[is_backward]") {
                found = true;
                QCOMPARE(attribute.data(KeyDiffModel::ChangeRole).toInt(),
                         int(KeyDiffModel::Change::Changed));
            }
        }
        QVERIFY(found);
        // Differences first.
        QVERIFY(diff->index(0, 0).data(KeyDiffModel::ChangeRole).toInt() !=
                int(KeyDiffModel::Change::Same));
    }

    void guardPlaygroundFailsAClause() {
        QSignalSpy shown(window_->browsePage(), &BrowsePage::entryShown);
        QVERIFY(window_->browsePage()->selectEntry(kGuarded));
        QVERIFY(shown.wait(10'000));
        window_->browsePage()->showTab(BrowsePage::Tab::Guards);
        auto* guards =
            qobject_cast<GuardsTab*>(window_->browsePage()->tab(BrowsePage::Tab::Guards));
        QVERIFY(guards != nullptr);
        QAbstractItemModel* clauses = guards->clauses();
        QVERIFY(clauses->rowCount() >= 6);
        auto failing = [&] {
            QStringList failed;
            for (int row = 0; row < clauses->rowCount(); ++row) {
                const QModelIndex clause = clauses->index(row, GuardClausesModel::ClauseColumn);
                if (clause.data(GuardClausesModel::StateRole).toInt() ==
                    int(GuardClausesModel::State::Fail)) {
                    failed << clause.data().toString();
                }
            }
            return failed;
        };
        for (const char* symbol : {"t0", "t1", "t2"}) {
            guards->setSymbolValue(symbol, 64);
        }
        QTRY_COMPARE(failing(), QStringList{});
        // 0/1 are specialized: a size of 1 fails `2 <= L['t0']`.
        guards->setSymbolValue("t0", 1);
        QTRY_COMPARE(failing(), QStringList{"2 <= L['t0']"});
    }

    void followingALinkSelectsTheLinkedEntry() {
        QSignalSpy shown(window_->browsePage(), &BrowsePage::entryShown);
        auto scan = cachedir::scan_cache_dir(cache_);
        QVERIFY_RESULT(scan);
        QString aot;
        for (const auto& entry : scan->entries()) {
            if (entry.kind == cachedir::FileKind::AotAutograd) {
                aot = QString::fromStdString(entry.key);
                break;
            }
        }
        QVERIFY(window_->browsePage()->selectEntry(aot));
        QVERIFY(shown.wait(10'000));
        auto loaded = cachedir::load_entry(cache_, window_->browsePage()->currentEntry()->entry);
        QVERIFY_RESULT(loaded);
        const auto* entry = std::get_if<cachedir::AotAutogradEntry>(&*loaded);
        QVERIFY(entry != nullptr && entry->forward);
        emit window_->browsePage()
            ->tab(BrowsePage::Tab::Overview)
            ->followRequested(cachedir::FileKind::FxGraph,
                              QString::fromStdString(entry->forward->key));
        QVERIFY(shown.wait(10'000));
        QCOMPARE(window_->browsePage()->currentEntry()->entry.key, entry->forward->key);
        QCOMPARE(window_->browsePage()->currentEntry()->entry.kind, cachedir::FileKind::FxGraph);
    }

    void whyDidThisMissRanksTheOtherGraph() {
        QSignalSpy shown(window_->browsePage(), &BrowsePage::entryShown);
        QVERIFY(window_->browsePage()->selectEntry(kForward));
        QVERIFY(shown.wait(10'000));
        window_->explainCurrent();
        auto* nearest = window_->whyPage()->findChild<NearestKeysModel*>();
        QVERIFY(nearest != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(nearest->rowCount() > 0, 10'000);
        bool ranked = false;
        for (int row = 0; row < nearest->rowCount(); ++row) {
            for (int col = 0; col < nearest->columnCount(); ++col) {
                ranked |= nearest->index(row, col).data().toString() == kBackward;
            }
        }
        QVERIFY(ranked);
    }

    void pruneDryRunListsAndDeletesNothing() {
        const auto before = std::distance(fs::recursive_directory_iterator(cache_),
                                          fs::recursive_directory_iterator());
        window_->dialogs()->openPrune();
        auto* dialog = window_->findChild<PruneDialog*>();
        QVERIFY(dialog != nullptr);
        dialog->setLimits(QStringLiteral("1M"), std::nullopt, QStringLiteral("0s"));
        dialog->preview();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->canDelete(), 20'000);
        QVERIFY(dialog->plan()->rowCount() > 0);
        QAbstractItemModelTester tester(const_cast<PrunePlanModel*>(dialog->plan()),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto after = std::distance(fs::recursive_directory_iterator(cache_),
                                         fs::recursive_directory_iterator());
        QCOMPARE(after, before);
        dialog->close();
    }

    void rootsModelShowsEveryKind() {
        auto* roots = window_->findChild<RootsModel*>();
        QVERIFY(roots != nullptr);
        QAbstractItemModelTester tester(roots,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(roots->rowCount(), 1);
        auto scan = cachedir::scan_cache_dir(cache_);
        QVERIFY_RESULT(scan);
        const QModelIndex root = roots->index(0, 0);
        QCOMPARE(roots->rowCount(root), int(scan->summary().size()));
        quint64 entries = 0;
        for (int row = 0; row < roots->rowCount(root); ++row) {
            entries += roots->index(row, RootsModel::Entries, root).data().toULongLong();
        }
        QCOMPARE(entries, quint64(scan->entries().size()));
    }

private:
    test::PrivateSettings settings_{"tst_main_window"};
    std::optional<QTemporaryDir> temp_;
    fs::path cache_;
    std::optional<MainWindow> window_;
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
