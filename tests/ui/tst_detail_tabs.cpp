// The detail tabs on real devset entries, as a user drives them: the debug
// lines table and its filter, Ctrl+C; the overview's links (Enter and
// double-click emit followRequested with the right kind and key); the source
// view with line numbers; the kernels tab listing a Triton dir's files and
// showing PTX, and a cubin's facts; the autotune tab's winners. With
// CACHELENS_SCREENSHOT_DIR set, each panel is also saved there as a PNG.

#include "devset_entries.h"
#include "hostile_entries.h"
#include "jobs/job_tracker.h"
#include "models/autotune_model.h"
#include "models/debug_lines_model.h"
#include "models/entry_fields_model.h"
#include "models/kernel_files_model.h"
#include "tabs/autotune_tab.h"
#include "tabs/debug_lines_tab.h"
#include "tabs/kernels_tab.h"
#include "tabs/overview_tab.h"
#include "tabs/source_tab.h"
#include "test_paths.h"
#include "widgets/code_view.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

using namespace cachelens;
using namespace cachelens::ui;
using namespace cachelens::test;
using cachedir::FileKind;

namespace {

using Loaded = LoadedEntry;

Loaded load(const std::string& query) {
    return loadEntry(test::fixture("devset/cache"), query);
}

void showPanel(QWidget& panel) {
    panel.resize(1100, 680);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
}

// Saves what the panel looks like, when asked to (for people to look at).
void screenshot(QWidget& panel, const QString& name) {
    const QString dir = qEnvironmentVariable("CACHELENS_SCREENSHOT_DIR");
    if (dir.isEmpty()) {
        return;
    }
    QCoreApplication::processEvents();
    QVERIFY(panel.grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png")));
}

// The same, under a dark palette (what a dark desktop theme gives).
void screenshotDark(QWidget& panel, const QString& name) {
    if (qEnvironmentVariableIsEmpty("CACHELENS_SCREENSHOT_DIR")) {
        return;
    }
    const QPalette light = QApplication::palette();
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 48));
    dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::AlternateBase, QColor(40, 40, 42));
    dark.setColor(QPalette::Text, QColor(220, 220, 220));
    dark.setColor(QPalette::Button, QColor(50, 50, 52));
    dark.setColor(QPalette::ButtonText, QColor(220, 220, 220));
    dark.setColor(QPalette::Highlight, QColor(38, 79, 120));
    dark.setColor(QPalette::HighlightedText, QColor(255, 255, 255));
    dark.setColor(QPalette::Link, QColor(100, 170, 255));
    dark.setColor(QPalette::PlaceholderText, QColor(130, 130, 130));
    QApplication::setPalette(dark);
    screenshot(panel, name + QStringLiteral("_dark"));
    QApplication::setPalette(light);
}

QString fromView(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

} // namespace

class TestDetailPanels : public QObject {
    Q_OBJECT

private slots:
    void debugLinesTableFilterAndCopy() {
        const Loaded fx = load(kFxSmall);
        const auto& entry = std::get<cachedir::FxGraphEntry>(*fx.content);
        DebugLinesTab panel;
        QVERIFY(panel.appliesTo(FileKind::FxGraph));
        QVERIFY(!panel.appliesTo(FileKind::Module));
        showPanel(panel);
        panel.showEntry(fx.ref, fx.content);
        QCOMPARE(panel.table()->model()->rowCount(), static_cast<int>(entry.debug_lines.size()));
        screenshot(panel, QStringLiteral("debug_lines"));

        // Typing in the filter keeps only lines whose attribute or value matches.
        QTest::keyClicks(panel.filterEdit(), QStringLiteral("INDUCTOR_config"));
        const int shown = panel.proxy()->rowCount();
        QVERIFY(shown > 0);
        QVERIFY(shown < static_cast<int>(entry.debug_lines.size()));
        int expected = 0;
        for (int row = 0; row < panel.model()->rowCount(); ++row) {
            expected += panel.model()
                            ->index(row, 0)
                            .data(DebugLinesModel::FilterTextRole)
                            .toString()
                            .contains(QStringLiteral("inductor_config"), Qt::CaseInsensitive);
        }
        QCOMPARE(shown, expected);
        for (int row = 0; row < shown; ++row) {
            const QModelIndex index = panel.proxy()->index(row, 0);
            QVERIFY(index.data(DebugLinesModel::FilterTextRole)
                        .toString()
                        .contains(QStringLiteral("inductor_config"), Qt::CaseInsensitive));
        }
        screenshot(panel, QStringLiteral("debug_lines_filtered"));

        // Selecting a line shows its whole value; Ctrl+C copies the lines as recorded.
        panel.table()->setFocus();
        panel.table()->selectRow(0);
        const QModelIndex first = panel.proxy()->index(0, 0);
        QCOMPARE(panel.valueView()->toPlainText(),
                 first.data(DebugLinesModel::FullValueRole).toString());
        panel.table()->selectionModel()->select(
            panel.proxy()->index(1, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QSignalSpy status(&panel, &EntryTab::statusMessage);
        QTest::keyClick(panel.table(), Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(status.size(), 1);
        QCOMPARE(QApplication::clipboard()->text(),
                 first.data(DebugLinesModel::LineTextRole).toString() + QLatin1Char('\n') +
                     panel.proxy()->index(1, 0).data(DebugLinesModel::LineTextRole).toString());

        // The graph: a multi-line value, whole in the pane below.
        panel.setFilterText(QStringLiteral("def forward"));
        QCOMPARE(panel.proxy()->rowCount(), 1);
        panel.table()->selectRow(0);
        QVERIFY(panel.valueView()->toPlainText().contains(
            QStringLiteral("torch.ops.aten.sqrt.default")));
        QVERIFY(panel.valueView()->blockCount() > 5);
        screenshot(panel, QStringLiteral("debug_lines_graph"));
        screenshotDark(panel, QStringLiteral("debug_lines_graph"));

        panel.setFilterText({});
        QCOMPARE(panel.proxy()->rowCount(), static_cast<int>(entry.debug_lines.size()));
        panel.clear();
        QCOMPARE(panel.proxy()->rowCount(), 0);
    }

    void overviewLinksOfAnAotEntryFollowOnEnterAndDoubleClick() {
        const Loaded aot = load(kAot);
        JobPool pool;
        OverviewTab panel(pool);
        QVERIFY(panel.appliesTo(FileKind::Lock));
        showPanel(panel);
        panel.showEntry(aot.ref, aot.content);
        screenshot(panel, QStringLiteral("overview_aot"));

        QModelIndex forward;
        for (const QModelIndex& index : panel.model()->linkIndexes()) {
            const auto link = panel.model()->linkAt(index);
            if (link->kind == FileKind::FxGraph) {
                forward = index;
            }
        }
        QVERIFY(forward.isValid());
        QCOMPARE(forward.data().toString(), QStringLiteral("Forward graph"));

        QSignalSpy follow(&panel, &EntryTab::followRequested);
        panel.view()->setFocus();
        panel.view()->setCurrentIndex(forward);
        QTest::keyClick(panel.view(), Qt::Key_Return);
        QCOMPARE(follow.size(), 1);
        QCOMPARE(follow.at(0).at(0).value<FileKind>(), FileKind::FxGraph);
        QCOMPARE(follow.at(0).at(1).toString(), QLatin1String(kFxWithWinner));

        // Double-click on the value cell follows it too.
        const QModelIndex value = forward.siblingAtColumn(EntryFieldsModel::ValueColumn);
        const QPoint centre = panel.view()->visualRect(value).center();
        // (A double-click arrives after a press, which picks the index.)
        QTest::mouseClick(panel.view()->viewport(), Qt::LeftButton, {}, centre);
        QTest::mouseDClick(panel.view()->viewport(), Qt::LeftButton, {}, centre);
        QCOMPARE(follow.size(), 2);
        QCOMPARE(follow.at(1).at(1).toString(), QLatin1String(kFxWithWinner));

        // A field that links nowhere emits nothing.
        QVERIFY(!panel.followLink(panel.model()->index(0, 0)));
        QCOMPARE(follow.size(), 2);

        // Ctrl+C on one field copies its value.
        panel.view()->setCurrentIndex(forward);
        panel.view()->selectionModel()->select(forward, QItemSelectionModel::ClearAndSelect |
                                                            QItemSelectionModel::Rows);
        QTest::keyClick(panel.view(), Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QApplication::clipboard()->text(), QLatin1String(kFxWithWinner));
    }

    // An FX graph's Overview says what it is (an inference graph: no
    // backward) and links the AOTAutograd entry that runs it (as its forward).
    void overviewOfAnFxGraphNamesItsAotEntry() {
        const Loaded fx = load(kFxWithWinner);
        JobPool pool;
        OverviewTab panel(pool);
        showPanel(panel);
        panel.showEntry(fx.ref, fx.content);
        QModelIndex role;
        for (int row = 0; row < panel.model()->rowCount(); ++row) {
            if (panel.model()->index(row, 0).data().toString() == QStringLiteral("Graph")) {
                role = panel.model()->index(row, EntryFieldsModel::ValueColumn);
            }
        }
        QVERIFY(role.isValid());
        QCOMPARE(role.data().toString(), QStringLiteral("inference graph (no backward)"));
        QModelIndex aot;
        QTRY_VERIFY([&] {
            for (const QModelIndex& index : panel.model()->linkIndexes()) {
                if (panel.model()->linkAt(index)->kind == FileKind::AotAutograd) {
                    aot = index;
                }
            }
            return aot.isValid();
        }());
        QCOMPARE(aot.data().toString(), QStringLiteral("its forward graph"));
        QCOMPARE(aot.parent().data().toString(), QStringLiteral("AOTAutograd entries"));
        QCOMPARE(aot.siblingAtColumn(EntryFieldsModel::ValueColumn).data().toString(),
                 QLatin1String(kAot));
    }

    // The Overview's first field says what importing the entry would: its
    // verdict, the code PyTorch would run, and each finding.
    void overviewShowsTheSafetyVerdict() {
        JobPool pool;
        OverviewTab panel(pool);
        showPanel(panel);
        const Loaded fx = load(kFxWithWinner);
        panel.showEntry(fx.ref, fx.content);
        QTRY_COMPARE(panel.model()->index(0, 0).data().toString(), QStringLiteral("Safety"));
        const QModelIndex verdict = panel.model()->index(0, EntryFieldsModel::ValueColumn);
        QVERIFY2(verdict.data(EntryFieldsModel::FullValueRole)
                     .toString()
                     .startsWith(QStringLiteral("Inductor code: PyTorch would run source_code")),
                 qPrintable(verdict.data(EntryFieldsModel::FullValueRole).toString()));
        QCOMPARE(panel.model()->rowCount(panel.model()->index(0, 0)), 0);

        // The same entry with its wrapper calling os.system, in a cache of its own.
        QTemporaryDir temp;
        const auto hostile = test::wrapperRunning("os.system('id')  # <b>not bold</b>");
        const std::filesystem::path root = temp.path().toStdString();
        test::write_bytes(root / "fxgraph" / hostile.key.substr(1, 2) / hostile.key / "entry",
                          hostile.content);
        const auto loaded = test::loadEntry(root, hostile.key);
        panel.showEntry(loaded.ref, loaded.content);
        QTRY_COMPARE(panel.model()->index(0, 0).data().toString(), QStringLiteral("Safety"));
        const QModelIndex safety = panel.model()->index(0, 0);
        QVERIFY(panel.model()
                    ->index(0, EntryFieldsModel::ValueColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("code with findings")));
        QCOMPARE(panel.model()->rowCount(safety), 1);
        const QModelIndex finding = panel.model()->index(0, 0, safety);
        QVERIFY(finding.data().toString().endsWith(
            QStringLiteral(" source_code:%1").arg(hostile.line)));
        // Shown as written: the markup in the line is text.
        QVERIFY(finding.siblingAtColumn(EntryFieldsModel::ValueColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("os.system('id')  # <b>not bold</b>")));
        QVERIFY(panel.view()->isExpanded(safety));
    }

    void overviewOfAnFxEntryAndAModule() {
        JobPool pool;
        OverviewTab panel(pool);
        showPanel(panel);
        const Loaded fx = load(kFxWithWinner);
        panel.showEntry(fx.ref, fx.content);
        QSignalSpy follow(&panel, &EntryTab::followRequested);
        int followed = 0;
        for (const QModelIndex& index : panel.model()->linkIndexes()) {
            QVERIFY(panel.followLink(index));
            ++followed;
        }
        QCOMPARE(follow.size(), followed);
        bool wrapper = false, bestConfig = false, triton = false;
        for (const auto& arguments : follow) {
            const auto kind = arguments.at(0).value<FileKind>();
            const QString target = arguments.at(1).toString();
            wrapper |= kind == FileKind::Module && target.startsWith(QLatin1Char('c'));
            bestConfig |= kind == FileKind::BestConfig && target == QLatin1String(kBestConfig);
            triton |= kind == FileKind::Triton && target == QLatin1String(kWinner);
        }
        QVERIFY(wrapper);
        QVERIFY(bestConfig);
        QVERIFY(triton);
        screenshot(panel, QStringLiteral("overview_fx"));
        screenshotDark(panel, QStringLiteral("overview_fx"));

        const Loaded module = load(kKernelModule);
        panel.showEntry(module.ref, module.content);
        // A module: its Triton kernels and best_configs arrive from a background lookup.
        QTRY_COMPARE(panel.model()->index(panel.model()->rowCount() - 1, 0).data().toString(),
                     QStringLiteral("Best configs"));
        const QModelIndex kernels = panel.model()->index(panel.model()->rowCount() - 2, 0);
        QCOMPARE(kernels.data().toString(), QStringLiteral("Triton kernels"));
        QCOMPARE(panel.model()->rowCount(kernels), 4);
        const QModelIndex bests = panel.model()->index(panel.model()->rowCount() - 1, 0);
        QCOMPARE(panel.model()->rowCount(bests), 1);
        QCOMPARE(panel.model()->linkAt(panel.model()->index(0, 0, bests))->target,
                 QLatin1String(kBestConfig));
        screenshot(panel, QStringLiteral("overview_module"));
    }

    void sourceShowsTheWrapperWithLineNumbers() {
        const Loaded fx = load(kFxSmall);
        const auto& entry = std::get<cachedir::FxGraphEntry>(*fx.content);
        SourceTab panel;
        QVERIFY(panel.appliesTo(FileKind::CppSource));
        QVERIFY(!panel.appliesTo(FileKind::Triton));
        showPanel(panel);
        panel.showEntry(fx.ref, fx.content);
        const QString source = fromView(entry.source_code);
        QCOMPARE(panel.codeView()->toPlainText(), source);
        QCOMPARE(panel.codeView()->blockCount(),
                 static_cast<int>(source.count(QLatin1Char('\n'))) + 1);
        QVERIFY(panel.codeView()->isHighlighted());
        // The gutter: room for the numbers, left of the text.
        QVERIFY(panel.codeView()->lineNumberAreaWidth() >=
                panel.codeView()->fontMetrics().horizontalAdvance(
                    QString::number(panel.codeView()->blockCount())));
        QCOMPARE(panel.codeView()->viewport()->geometry().left() -
                     panel.codeView()->contentsRect().left(),
                 panel.codeView()->lineNumberAreaWidth());
        panel.codeView()->goToLine(20);
        screenshot(panel, QStringLiteral("source_fx"));
        screenshotDark(panel, QStringLiteral("source_fx"));

        // An AOT entry: its forward graph.
        const Loaded aot = load(kAot);
        panel.showEntry(aot.ref, aot.content);
        QVERIFY(panel.textTitles().contains(QStringLiteral("Forward graph")));
        QVERIFY(panel.codeView()->toPlainText().contains(QStringLiteral("def forward(")));

        // A module: its source, and a jump to the kernel's def.
        const Loaded module = load(kKernelModule);
        panel.showEntry(module.ref, module.content);
        QCOMPARE(panel.codeView()->blockCount(),
                 static_cast<int>(fromView(std::get<cachedir::ModuleSource>(*module.content).text())
                                      .count(QLatin1Char('\n'))) +
                     1);
        screenshot(panel, QStringLiteral("source_module"));

        // C++ source of a CPU graph: plain, not coloured as Python.
        const auto cpu = test::fixture("cpu_dev/cache");
        auto scan = cachedir::scan_cache_dir(cpu);
        QVERIFY_RESULT(scan);
        for (const auto& candidate : scan->entries()) {
            if (candidate.kind == FileKind::CppSource) {
                const Loaded cpp = loadEntry(cpu, candidate.path);
                panel.showEntry(cpp.ref, cpp.content);
                QVERIFY(!panel.codeView()->isHighlighted());
                QVERIFY(panel.codeView()->blockCount() > 1);
                screenshot(panel, QStringLiteral("source_cpp"));
                break;
            }
        }
        panel.clear();
        QVERIFY(panel.codeView()->toPlainText().isEmpty());
    }

    void kernelsListATritonDirAndShowPtxAndCubinFacts() {
        const Loaded triton = load(kWinner);
        const auto& dir = std::get<cachedir::TritonKernelDir>(*triton.content);
        JobPool pool;
        KernelsTab panel(pool);
        showPanel(panel);
        panel.showEntry(triton.ref, triton.content);
        // The dir's files are the list.
        QCOMPARE(panel.fileView()->model()->rowCount(panel.fileView()->rootIndex()),
                 static_cast<int>(dir.files.size()));
        QVERIFY(panel.selectFile(QStringLiteral(".ptx")));
        QTRY_COMPARE(panel.currentPage(), static_cast<QWidget*>(panel.codeView()));
        QTRY_VERIFY(panel.codeView()->toPlainText().contains(
            QStringLiteral(".entry triton_red_fused_cat_cumsum_sin_0")));
        QVERIFY(panel.codeView()->toPlainText().startsWith(QStringLiteral("//")));
        screenshot(panel, QStringLiteral("kernels_ptx"));

        QVERIFY(panel.selectFile(QStringLiteral(".cubin")));
        QCOMPARE(panel.currentPage(), panel.factsPage());
        bool sawParameters = false;
        EntryFieldsModel* facts = panel.factsModel();
        for (int row = 0; row < facts->rowCount(); ++row) {
            const QModelIndex index = facts->index(row, 0);
            if (index.data().toString() == QLatin1String("PTX")) {
                for (int child = 0; child < facts->rowCount(index); ++child) {
                    const QModelIndex sub = facts->index(child, 0, index);
                    if (sub.data().toString() == QLatin1String("Entry parameters")) {
                        sawParameters =
                            facts->rowCount(sub) == static_cast<int>(dir.ptx->parameters.size());
                    }
                }
            }
        }
        QVERIFY(sawParameters);
        screenshot(panel, QStringLiteral("kernels_cubin"));
        screenshotDark(panel, QStringLiteral("kernels_cubin"));

        QVERIFY(panel.selectFile(QStringLiteral(".source")));
        QTRY_VERIFY(panel.codeView()->toPlainText().contains(QStringLiteral("tt.func")));
        QVERIFY(!panel.codeView()->isHighlighted()); // MLIR, not Python
    }

    void kernelsOfAModuleAndOfAnFxBundle() {
        JobPool pool;
        KernelsTab panel(pool);
        showPanel(panel);
        const Loaded module = load(kKernelModule);
        panel.showEntry(module.ref, module.content);
        QTRY_COMPARE(panel.model()->rowCount(), 4);
        QTRY_COMPARE(panel.currentPage(), static_cast<QWidget*>(panel.codeView()));
        QTRY_VERIFY(panel.codeView()->toPlainText().contains(QStringLiteral(".entry triton_")));
        screenshot(panel, QStringLiteral("kernels_module"));

        const Loaded fx = load(kFxWithWinner);
        panel.showEntry(fx.ref, fx.content);
        const auto& entry = std::get<cachedir::FxGraphEntry>(*fx.content);
        QTRY_COMPARE(panel.model()->rowCount(), static_cast<int>(entry.triton_artifacts.size()));
        QVERIFY(panel.selectFile(QStringLiteral(".ptx"), 0));
        QTRY_VERIFY(panel.codeView()->toPlainText().contains(QStringLiteral(".entry")));
    }

    void kernelsShowAFileThatCannotBeReadAsAnError() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const std::filesystem::path root = temp.path().toStdString();
        const std::string relative = std::string("triton/0/") + kWinner;
        std::filesystem::create_directories(root / "triton" / "0");
        test::copy_tree(test::fixture("devset/cache") / relative, root / relative);
        const Loaded triton = loadEntry(root, kWinner);
        std::filesystem::remove(root / relative / "triton_red_fused_cat_cumsum_sin_0.ttir");
        JobPool pool;
        KernelsTab panel(pool);
        showPanel(panel);
        panel.showEntry(triton.ref, triton.content);
        QVERIFY(panel.selectFile(QStringLiteral(".ttir")));
        QTRY_COMPARE(panel.currentPage(), static_cast<QWidget*>(panel.messageLabel()));
        QTRY_VERIFY(panel.messageLabel()->text().contains(QStringLiteral(".ttir")));
    }

    void autotuneHighlightsTheBest() {
        JobPool pool;
        AutotuneTab panel(pool);
        showPanel(panel);
        // A best_config: its one config, the winner.
        const Loaded best = load(kBestConfig);
        panel.showEntry(best.ref, best.content);
        QCOMPARE(panel.model()->rowCount(), 1);
        QCOMPARE(panel.model()->bestCount(), 1);
        QVERIFY(panel.proxy()
                    ->index(0, AutotuneModel::ConfigColumn)
                    .data(Qt::FontRole)
                    .value<QFont>()
                    .bold());
        QVERIFY(panel.table()->isColumnHidden(AutotuneModel::InputsColumn));
        QVERIFY(!panel.table()->isColumnHidden(AutotuneModel::TritonColumn));
        // Its winner's Triton dir names the kernel.
        QTRY_COMPARE(panel.proxy()->index(0, AutotuneModel::KernelColumn).data().toString(),
                     QStringLiteral("triton_red_fused_cat_cumsum_sin_0"));
        QVERIFY(panel.summaryLabel()->text().contains(QLatin1String(kKernelModule)));
        screenshot(panel, QStringLiteral("autotune_best_config"));

        // The benchmark cache: the fastest choice of each benchmark.
        const Loaded cache = load(kBenchmarkCache);
        panel.showEntry(cache.ref, cache.content);
        const auto& benchmarks = std::get<cachedir::BenchmarkCache>(*cache.content);
        QCOMPARE(panel.model()->rowCount(), static_cast<int>(benchmarks.choices.size()));
        QVERIFY(panel.model()->bestCount() >= 1);
        // Sorted by time, the first row of the only benchmark is its best.
        panel.table()->sortByColumn(AutotuneModel::TimeColumn, Qt::AscendingOrder);
        QCOMPARE(panel.proxy()->index(0, AutotuneModel::MarkerColumn).data().toString(),
                 QStringLiteral("best"));
        QCOMPARE(
            panel.proxy()->index(0, AutotuneModel::ConfigColumn).data().toString(),
            QString::fromStdString(benchmarks
                                       .best(benchmarks.choices[0].op, benchmarks.choices[0].inputs,
                                             benchmarks.choices[0].precision)
                                       ->choice));
        panel.table()->sortByColumn(-1, Qt::AscendingOrder);
        screenshot(panel, QStringLiteral("autotune_benchmarks"));

        // An FX entry: the candidates, the winner known once its best_config is read.
        const Loaded fx = load(kFxWithWinner);
        QSignalSpy follow(&panel, &EntryTab::followRequested);
        panel.showEntry(fx.ref, fx.content);
        QCOMPARE(panel.model()->rowCount(), 4);
        QTRY_COMPARE(panel.model()->bestCount(), 1);
        int winnerRow = -1;
        for (int row = 0; row < panel.proxy()->rowCount(); ++row) {
            if (panel.proxy()->index(row, 0).data(AutotuneModel::IsBestRole).toBool()) {
                winnerRow = row;
            }
        }
        QVERIFY(winnerRow >= 0);
        const QModelIndex triton = panel.proxy()->index(winnerRow, AutotuneModel::TritonColumn);
        QCOMPARE(triton.data().toString(), QLatin1String(kWinner));
        screenshot(panel, QStringLiteral("autotune_fx"));
        screenshotDark(panel, QStringLiteral("autotune_fx"));
        panel.table()->setFocus();
        panel.table()->setCurrentIndex(triton);
        QTest::keyClick(panel.table(), Qt::Key_Return);
        QCOMPARE(follow.size(), 1);
        QCOMPARE(follow.at(0).at(0).value<FileKind>(), FileKind::Triton);
        QCOMPARE(follow.at(0).at(1).toString(), QLatin1String(kWinner));

        // A kernel module: its best_config.
        const Loaded module = load(kKernelModule);
        panel.showEntry(module.ref, module.content);
        QTRY_COMPARE(panel.model()->rowCount(), 1);
        QCOMPARE(panel.model()->bestCount(), 1);
    }
};

QTEST_MAIN(TestDetailPanels)
#include "tst_detail_tabs.moc"
