// ComparePage, WhyPage and GuardsTab on the real devset, as a user sees
// them: comparing the mega-cache round trip's graphs lists the attributes
// that differ first and lights them, a changed gm shows its line diff; the why
// view ranks the original key first with what differs and asks to compare it;
// in the guard playground a value past a bound fails that clause and the
// verdict, golden.json's passing hints pass every clause, and the lookup names
// the entry PyTorch would load. Each widget is grabbed to a PNG when
// CACHELENS_SHOTS_DIR is set.

#include "devset_entries.h"
#include "jobs/job_tracker.h"
#include "models/guard_clauses_model.h"
#include "models/key_diff_model.h"
#include "models/nearest_keys_model.h"
#include "pages/compare_page.h"
#include "pages/why_page.h"
#include "tabs/guards_tab.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/explain/key_diff.h>
#include <cachelens/explain/lookup.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace cachelens;
using namespace cachelens::ui;
using namespace cachelens::test;

namespace {

SharedContent contentOf(const EntryRef& ref) {
    auto content = cachedir::load_entry(ref.root, ref.entry);
    if (!content) {
        qFatal("%s", content.error().describe().c_str());
    }
    return std::make_shared<const cachedir::EntryContent>(std::move(*content));
}

void shoot(QWidget& widget, const QString& name) {
    const QString dir = qEnvironmentVariable("CACHELENS_SHOTS_DIR");
    if (dir.isEmpty()) {
        return;
    }
    QCoreApplication::processEvents();
    widget.grab().save(dir + u'/' + name + QStringLiteral(".png"));
}

template <class T>
T* child(QWidget& parent, const char* name) {
    auto* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (!found) {
        qFatal("no child %s", name);
    }
    return found;
}

int stateCount(QAbstractItemModel* model, GuardClausesModel::State state) {
    int count = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        count += model->index(row, 0).data(GuardClausesModel::StateRole).toInt() ==
                 static_cast<int>(state);
    }
    return count;
}

} // namespace

class TestCompareWhyGuards : public QObject {
    Q_OBJECT

private slots:
    void compareShowsTheDifferingAttributesFirst() {
        JobPool jobs;
        ComparePage view(jobs);
        view.resize(1200, 800);
        view.show();
        QSignalSpy status(&view, &ComparePage::statusMessage);
        QAbstractItemModelTester tester(view.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const EntryRef left = refFor("devset/cache_from_mega", kForwardRerun);
        const EntryRef right = refFor("devset/cache", kForward);
        view.compare(left, right);
        QTRY_VERIFY(view.model()->rowCount() > 0);

        // Independently: what the engine says differs.
        auto a = cachedir::load_fx_graph_entry(left.root / left.entry.path);
        auto b = cachedir::load_fx_graph_entry(right.root / right.entry.path);
        QVERIFY_RESULT(a);
        QVERIFY_RESULT(b);
        const auto diff = explain::diff_keys(a->debug_lines, b->debug_lines);
        QCOMPARE(diff.differences.size(), 1u);

        auto* table = child<QTableView>(view, "compareTable");
        const QModelIndex first = table->model()->index(0, KeyDiffModel::AttributeColumn);
        QCOMPARE(first.data().toString(), QString::fromStdString(diff.differences[0].name));
        QCOMPARE(table->model()->index(0, KeyDiffModel::ChangeColumn).data().toString(),
                 QStringLiteral("changed"));
        QVERIFY(first.data(Qt::BackgroundRole).isValid());
        QVERIFY(!table->model()->index(1, 0).data(Qt::BackgroundRole).isValid());
        QCOMPARE(child<QLabel>(view, "compareSummary")->text(),
                 QStringLiteral("1 attribute differs, %1 same").arg(diff.same));
        QVERIFY(child<QLabel>(view, "compareKeys")->text().contains(kForwardRerun));
        QVERIFY(!status.isEmpty());
        // The first difference is selected: both values below, marked - and +.
        const QString detail = child<QPlainTextEdit>(view, "compareDetail")->toPlainText();
        QVERIFY2(detail.contains(QStringLiteral("\n- False")) &&
                     detail.contains(QStringLiteral("\n+ True")),
                 qPrintable(detail));
        shoot(view, QStringLiteral("compare-forward"));

        // Hiding the unchanged attributes leaves the one that differs.
        child<QCheckBox>(view, "compareHideSame")->setChecked(true);
        QCOMPARE(table->model()->rowCount(), 1);
        child<QCheckBox>(view, "compareHideSame")->setChecked(false);
        QCOMPARE(table->model()->rowCount(), view.model()->rowCount());

        // Ctrl+C copies the selected rows with whole values.
        table->setFocus();
        table->selectRow(0);
        QTest::keySequence(table, QKeySequence::Copy);
        QCOMPARE(QApplication::clipboard()->text(),
                 QStringLiteral("inductor_config[benchmark_kernel]\tchanged\tFalse\tTrue"));
    }

    void compareShowsALineDiffInsideTheGraphCode() {
        JobPool jobs;
        ComparePage view(jobs);
        view.resize(1200, 800);
        view.show();
        view.compare(refFor("devset/cache_from_mega", kBackwardRerun),
                     refFor("devset/cache", kBackward));
        QTRY_VERIFY(view.model()->rowCount() > 0);
        auto* table = child<QTableView>(view, "compareTable");
        int gm = -1;
        for (int row = 0; row < view.model()->differing(); ++row) {
            if (table->model()->index(row, 0).data().toString() == QStringLiteral("gm")) {
                gm = row;
            }
        }
        QVERIFY(gm >= 0);
        table->setCurrentIndex(table->model()->index(gm, 0));
        auto* detail = child<QPlainTextEdit>(view, "compareDetail");
        const QStringList lines = detail->toPlainText().split(u'\n');
        QCOMPARE(lines.first(), QStringLiteral("gm (changed)"));
        const auto marked = [&lines](QChar marker) {
            return std::count_if(lines.begin(), lines.end(),
                                 [marker](const QString& line) { return line.startsWith(marker); });
        };
        QVERIFY(marked(u'-') > 0);
        QVERIFY(marked(u'+') > 0);
        QVERIFY(marked(u' ') > 0); // unchanged graph lines are kept for context
        // Each changed line is lit.
        QCOMPARE(detail->extraSelections().size(), marked(u'-') + marked(u'+'));
        // Normalized, the padding added is what changed: the two pads and the
        // mm that takes them, no renumbered value after them.
        QCOMPARE(marked(u'+'), 3);
        QCOMPARE(marked(u'-'), 1);
        QVERIFY(lines.contains(QStringLiteral("- mm = torch.ops.aten.mm.default(sub_3, "
                                              "permute_2)")));
        shoot(view, QStringLiteral("compare-backward-gm"));
        // As written, one click away.
        auto* raw = child<QCheckBox>(view, "compareRawCode");
        raw->setChecked(true);
        const QStringList written = detail->toPlainText().split(u'\n');
        QVERIFY(written.size() > lines.size());
        QVERIFY(std::ranges::any_of(
            written, [](const QString& line) { return line.endsWith(QStringLiteral("= None")); }));
    }

    void compareShowsErrorsInTheView() {
        JobPool jobs;
        ComparePage view(jobs);
        view.resize(900, 400);
        view.show();
        QSignalSpy status(&view, &ComparePage::statusMessage);
        const EntryRef aot =
            refFor("devset/cache", "azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i");
        view.compare(aot, refFor("devset/cache", kForward));
        auto* error = child<QLabel>(view, "compareError");
        QTRY_VERIFY(error->isVisible());
        QVERIFY2(error->text().contains(QStringLiteral("AOTAutograd")), qPrintable(error->text()));
        QCOMPARE(view.model()->rowCount(), 0);
        QVERIFY(!status.isEmpty());
        shoot(view, QStringLiteral("compare-error"));

        QTemporaryDir temp;
        const std::filesystem::path root = temp.path().toStdString();
        std::filesystem::create_directories(root / "fxgraph/ab/fabcdef");
        std::ofstream(root / "fxgraph/ab/fabcdef/aaaa") << "not a pickle";
        cachedir::Entry corrupt;
        corrupt.kind = cachedir::FileKind::FxGraph;
        corrupt.key = "fabcdef";
        corrupt.path = "fxgraph/ab/fabcdef/aaaa";
        view.compare(refFor("devset/cache", kForward), {root, corrupt});
        QTRY_VERIFY(error->isVisible());
        QVERIFY(error->text().contains(QStringLiteral("aaaa")));
        // A good comparison afterwards hides the error.
        view.compare(refFor("devset/cache", kForward), refFor("devset/cache", kDefault));
        QTRY_VERIFY(view.model()->rowCount() > 0);
        QVERIFY(!error->isVisible());
        view.clear();
        QCOMPARE(view.model()->rowCount(), 0);
    }

    void whyRanksTheOriginalKeyFirst() {
        JobPool jobs;
        WhyPage view(jobs);
        view.resize(1300, 900);
        view.show();
        QAbstractItemModelTester tester(view.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy compareRequested(&view, &WhyPage::compareRequested);
        const EntryRef target = refFor("devset/cache_from_mega", kForwardRerun);
        view.explain(target, {test::fixture("devset/cache")});
        QTRY_VERIFY(view.model()->rowCount() > 0);
        QCOMPARE(view.model()->rowCount(), 10); // every graph of the original run
        QCOMPARE(view.model()->index(0, NearestKeysModel::KeyColumn).data().toString(),
                 QString::fromLatin1(kForward));
        QCOMPARE(view.model()->index(0, NearestKeysModel::DifferingColumn).data().toString(),
                 QStringLiteral("inductor_config[benchmark_kernel]"));
        QVERIFY(child<QLabel>(view, "whyHeader")->text().contains(kForwardRerun));
        QVERIFY(
            child<QLabel>(view, "whyHeader")->text().contains(QStringLiteral("(forward graph, ")));
        // The nearest is selected and compared below.
        QTRY_COMPARE(view.comparison()->model()->differing(), 1);
        QCOMPARE(view.comparison()->model()->row(0).attribute,
                 QStringLiteral("inductor_config[benchmark_kernel]"));
        shoot(view, QStringLiteral("why-forward"));

        // The verdict reads from the candidate (left) to the explained key.
        QCOMPARE(child<QLabel>(view, "compareVerdict")->text(),
                 QStringLiteral("Missed because the Inductor config changed: benchmark_kernel: "
                                "True -> False"));
        // Another candidate: its differences replace the first's.
        auto* table = child<QTableView>(view, "whyTable");
        table->setCurrentIndex(view.model()->index(1, 0));
        const QString second =
            view.model()->index(1, NearestKeysModel::KeyColumn).data().toString();
        QTRY_VERIFY(view.comparison()->model()->comparison() &&
                    QString::fromStdString(view.comparison()->model()->comparison()->leftFx.key) ==
                        second);
        QVERIFY(view.comparison()->model()->differing() > 1);

        // "Compare side by side" asks for the pair.
        table->setCurrentIndex(view.model()->index(0, 0));
        child<QPushButton>(view, "whyCompareButton")->click();
        QCOMPARE(compareRequested.size(), 1);
        const auto left = compareRequested[0][0].value<EntryRef>();
        const auto right = compareRequested[0][1].value<EntryRef>();
        // From the candidate (what the cache holds) to the explained key.
        QVERIFY(right == target);
        QCOMPARE(left.entry.key, std::string(kForward));
        QCOMPARE(left.root, test::fixture("devset/cache"));
    }

    void whyShowsErrorsInTheView() {
        JobPool jobs;
        WhyPage view(jobs);
        view.explain(refFor("devset/cache", kDefault), {"/nonexistent/cache"});
        auto* error = child<QLabel>(view, "whyError");
        QTRY_VERIFY(!error->isHidden());
        QVERIFY(error->text().contains(QStringLiteral("/nonexistent/cache")));
        QCOMPARE(view.model()->rowCount(), 0);
        // No roots: the entry's own.
        view.explain(refFor("devset/cache", kDefault), {});
        QTRY_COMPARE(view.model()->rowCount(), 9);
        QVERIFY(error->isHidden());
    }

    void guardPlaygroundLightsClausesLive() {
        const auto golden = test::read_json(test::fixture("devset/golden.json"));
        JobPool pool;
        GuardsTab panel(pool);
        panel.resize(1100, 750);
        panel.show();
        QVERIFY(panel.appliesTo(cachedir::FileKind::FxGraph));
        QVERIFY(panel.appliesTo(cachedir::FileKind::AotAutograd));
        QVERIFY(!panel.appliesTo(cachedir::FileKind::Module));
        QAbstractItemModelTester tester(panel.clauses(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto* verdict = child<QLabel>(panel, "guardsVerdict");
        auto* lookup = child<QLabel>(panel, "guardsLookup");

        auto scan = cachedir::scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(scan);
        int cases = 0;
        for (const auto& value : golden["guards"].toArray()) {
            const auto item = value.toObject();
            const std::string expr = item["expr"].toString().toStdString();
            // The devset entry whose guards these are.
            EntryRef ref;
            for (const auto& entry : scan->entries()) {
                if (entry.kind != cachedir::FileKind::FxGraph) {
                    continue;
                }
                auto fx = cachedir::load_fx_graph_entry(scan->root / entry.path);
                if (fx && fx->guards_expr && *fx->guards_expr == expr) {
                    ref = {scan->root, entry};
                }
            }
            QVERIFY2(ref.valid(), expr.c_str());
            const std::string file = std::filesystem::path(ref.entry.path).filename().string();
            panel.showEntry(ref, contentOf(ref));
            const int clauses = panel.clauses()->rowCount();
            QVERIFY(clauses > 0);
            // Prefilled with values that pass.
            QCOMPARE(stateCount(panel.clauses(), GuardClausesModel::State::Pass), clauses);
            QVERIFY2(verdict->text().startsWith(QStringLiteral("PASS")),
                     qPrintable(verdict->text()));
            QTRY_VERIFY2(lookup->text().contains(QString::fromStdString(file)),
                         qPrintable(lookup->text()));
            QVERIFY(lookup->text().contains(QStringLiteral("this entry")));

            for (const auto& evalValue : item["evals"].toArray()) {
                const auto eval = evalValue.toObject();
                const auto hints = eval["hints"].toArray();
                for (qsizetype i = 0; i < hints.size(); ++i) {
                    panel.setSymbolValue(QStringLiteral("L['t%1']").arg(i), hints[i].toInteger());
                }
                const bool passed = eval["result"].toBool();
                QCOMPARE(stateCount(panel.clauses(), GuardClausesModel::State::Pass) == clauses,
                         passed);
                QCOMPARE(verdict->text().startsWith(passed ? QStringLiteral("PASS")
                                                           : QStringLiteral("FAIL")),
                         true);
            }
            // A size past the int32 bound fails the bound's clause first.
            for (qsizetype i = 0; i < item["num_args"].toInt(); ++i) {
                panel.setSymbolValue(QStringLiteral("t%1").arg(i), 64);
            }
            QCOMPARE(stateCount(panel.clauses(), GuardClausesModel::State::Pass), clauses);
            panel.setSymbolValue(QStringLiteral("t0"), 2147483648);
            QCOMPARE(panel.clauses()->index(0, 0).data(GuardClausesModel::StateRole).toInt(),
                     static_cast<int>(GuardClausesModel::State::Fail));
            QVERIFY(verdict->text().startsWith(QStringLiteral("FAIL: clause 1 of")));
            QTRY_VERIFY2(lookup->text().contains(QStringLiteral("Guard miss")),
                         qPrintable(lookup->text()));
            if (cases == 0) {
                shoot(panel, QStringLiteral("guards-fail"));
            }
            ++cases;
        }
        QCOMPARE(cases, 3);
    }

    void guardPlaygroundAcceptsBigIntsAndFlagsBadInput() {
        JobPool pool;
        GuardsTab panel(pool);
        panel.show();
        const EntryRef ref =
            refFor("devset/cache", "fkkjvznfduzvetzt76yadqm6ez5k5ymangrh732nwzvbbl3y25oq");
        panel.showEntry(ref, contentOf(ref));
        // One field per size of the graph, named by it: t0 is s97.
        auto* spin = panel.findChild<QAbstractSpinBox*>(QStringLiteral("s97"));
        QVERIFY(spin);
        // Up steps the value (past int range, too).
        const QString before = spin->text();
        spin->stepBy(1);
        QCOMPARE(spin->text(), QString::number(before.toLongLong() + 1));
        auto* line = spin->findChild<QLineEdit*>();
        QVERIFY(line);
        line->setText(QStringLiteral("100000000000000000000000"));
        QCOMPARE(stateCount(panel.clauses(), GuardClausesModel::State::Fail), 2);
        line->setText(QString());
        QCOMPARE(stateCount(panel.clauses(), GuardClausesModel::State::Unknown), 3);
        QCOMPARE(child<QLabel>(panel, "guardsVerdict")->text(),
                 QStringLiteral("Enter the sizes: 's97=': a size is an int"));
        QCOMPARE(child<QLabel>(panel, "guardsDerived")->text(),
                 QStringLiteral("Guard symbols: t0 = s97"));
        // Reset brings back passing values; t0 follows from the size.
        child<QPushButton>(panel, "guardsReset")->click();
        QCOMPARE(stateCount(panel.clauses(), GuardClausesModel::State::Pass), 3);
        QCOMPARE(child<QLabel>(panel, "guardsDerived")->text(),
                 QStringLiteral("Guard symbols: t0 = s97 = ") + spin->text());
    }

    void lookupNamesTheEntryPyTorchWouldPick() {
        // The key's second entry: PyTorch tries the first one before it.
        const EntryRef ref =
            refFor("multi_dev/cache", std::string("fxgraph/tk/") + kMultiKey + "/" + kMultiSecond);
        JobPool pool;
        GuardsTab panel(pool);
        panel.resize(1100, 750);
        panel.show();
        panel.showEntry(ref, contentOf(ref));
        auto* lookup = child<QLabel>(panel, "guardsLookup");
        panel.setSymbolValue("t0", 64);
        panel.setSymbolValue("t1", 128);
        QTRY_VERIFY2(lookup->text().contains(QStringLiteral("another entry")) &&
                         lookup->text().contains(kMultiFirst),
                     qPrintable(lookup->text()));
        // Where the first entry's int32 guard fails, this one is loaded.
        panel.setSymbolValue("t0", 65536);
        panel.setSymbolValue("t1", 32769);
        QTRY_VERIFY2(lookup->text().contains(QStringLiteral("PyTorch would load this entry")),
                     qPrintable(lookup->text()));
        QVERIFY2(lookup->text().contains(QStringLiteral("fails: L['t1']*L['t0'] &lt;= 2147483647")),
                 qPrintable(lookup->text()));
        shoot(panel, QStringLiteral("guards-lookup"));
        // Neither passes: a guard miss.
        panel.setSymbolValue("t0", 1);
        QTRY_VERIFY2(lookup->text().contains(QStringLiteral("Guard miss")),
                     qPrintable(lookup->text()));

        // How long a lookup takes on the devset (it reads only the key dir's entries).
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < 10; ++i) {
            const std::vector<guards::Number> hints = {guards::Number::integer(64),
                                                       guards::Number::integer(128)};
            QVERIFY(
                explain::simulate_lookup(ref.root, kMultiKey, guards::Hints::positional(hints)));
        }
        qInfo("simulate_lookup: %.2f ms", static_cast<double>(timer.nsecsElapsed()) / 1e7);
    }

    void aotEntriesHaveAPlaygroundToo() {
        auto scan = cachedir::scan_cache_dir(test::fixture("multi_dev/cache"));
        QVERIFY_RESULT(scan);
        EntryRef ref;
        for (const auto& entry : scan->entries()) {
            if (entry.kind == cachedir::FileKind::AotAutograd && !ref.valid()) {
                ref = {scan->root, entry};
            }
        }
        QVERIFY(ref.valid());
        const auto content = contentOf(ref);
        const auto& aot = std::get<cachedir::AotAutogradEntry>(*content);
        QVERIFY(aot.guards_expr.has_value());
        JobPool pool;
        GuardsTab panel(pool);
        panel.show();
        panel.showEntry(ref, content);
        QVERIFY(panel.clauses()->rowCount() > 0);
        QCOMPARE(stateCount(panel.clauses(), GuardClausesModel::State::Pass),
                 panel.clauses()->rowCount());
        // Its lookup is under aotautograd/ and loads some entry of the key.
        auto* lookup = child<QLabel>(panel, "guardsLookup");
        QTRY_VERIFY2(lookup->text().startsWith(QStringLiteral("<b>Hit")),
                     qPrintable(lookup->text()));
        panel.setSymbolValue("t0", 1);
        QTRY_VERIFY2(lookup->text().contains(QStringLiteral("aotautograd/") +
                                             QString::fromStdString(ref.entry.key)),
                     qPrintable(lookup->text()));
    }

    void entriesWithoutGuardsAlwaysHit() {
        JobPool pool;
        GuardsTab panel(pool);
        panel.resize(900, 500);
        panel.show();
        const EntryRef ref = refFor("devset/cache", kDefault);
        panel.showEntry(ref, contentOf(ref));
        QCOMPARE(panel.clauses()->rowCount(), 0);
        QCOMPARE(child<QLabel>(panel, "guardsExpression")->text(),
                 QStringLiteral("no guards: every lookup of this key hits this entry"));
        auto* lookup = child<QLabel>(panel, "guardsLookup");
        QTRY_VERIFY(lookup->text().contains(QStringLiteral("this entry")));
        shoot(panel, QStringLiteral("guards-none"));
        panel.clear();
        QCOMPARE(panel.clauses()->rowCount(), 0);
        QVERIFY(lookup->text().isEmpty());
    }

    void badGuardsAreShownNotCrashedOn() {
        JobPool pool;
        GuardsTab panel(pool);
        panel.show();
        auto* error = child<QLabel>(panel, "guardsError");
        // guards_expr that does not parse: said in the panel, no clauses.
        cachedir::FxGraphEntry fx;
        fx.guards_expr = "L['t0'] <= and 2";
        const EntryRef ref = refFor("devset/cache", kDefault);
        panel.showEntry(ref, std::make_shared<const cachedir::EntryContent>(std::move(fx)));
        QVERIFY(!error->isHidden());
        QVERIFY2(error->text().contains(QStringLiteral("do not parse")), qPrintable(error->text()));
        QCOMPARE(panel.clauses()->rowCount(), 0);
        // Another kind of entry has no guards to play with.
        panel.showEntry(ref,
                        std::make_shared<const cachedir::EntryContent>(cachedir::OpaqueFile{}));
        QVERIFY(!error->isHidden());
        QCOMPARE(panel.clauses()->rowCount(), 0);
        // A good entry afterwards clears the error.
        panel.showEntry(ref, contentOf(ref));
        QVERIFY(error->isHidden());
    }
};

QTEST_MAIN(TestCompareWhyGuards)
#include "tst_compare_why_guards.moc"
