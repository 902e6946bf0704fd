// The models behind Compare, "Why did this miss?" and the guard playground,
// under QAbstractItemModelTester, against the real devset: KeyDiffModel lists
// what explain::diff_keys finds (differences first) plus every shared
// attribute; findNearestKeys ranks as explain::nearest_keys does;
// GuardClausesModel lights clauses as golden.json says PyTorch evaluated them,
// and suggestHints finds passing values.

#include "data/key_comparison.h"
#include "devset_entries.h"
#include "models/guard_clauses_model.h"
#include "models/key_diff_model.h"
#include "models/nearest_keys_model.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/debug_line.h>
#include <cachelens/explain/key_diff.h>
#include <cachelens/explain/nearest_keys.h>

#include <QAbstractItemModelTester>
#include <QColor>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace cachelens;
using namespace cachelens::ui;
using namespace cachelens::test;

namespace {

QString changeName(explain::Change change) {
    switch (change) {
    case explain::Change::Changed:
        return KeyDiffModel::changeName(KeyDiffModel::Change::Changed);
    case explain::Change::OnlyLeft:
        return KeyDiffModel::changeName(KeyDiffModel::Change::OnlyLeft);
    case explain::Change::OnlyRight:
        return KeyDiffModel::changeName(KeyDiffModel::Change::OnlyRight);
    }
    return {};
}

} // namespace

class TestCompareWhyGuardsModels : public QObject {
    Q_OBJECT

private slots:
    // An AOT entry cannot be compared: the Compare page refuses it in the
    // words `cachelens diff` uses (one engine function, load_graph_to_compare).
    void anAotEntryIsRefusedAsDiffRefusesIt() {
        const std::filesystem::path cache = test::sample_cache();
        auto scan = cachedir::scan_cache_dir(cache);
        QVERIFY_RESULT(scan);
        const cachedir::Entry* aot = nullptr;
        const cachedir::Entry* fx = nullptr;
        const auto entries = scan->entries();
        for (const auto& entry : entries) {
            if (entry.kind == cachedir::FileKind::AotAutograd && aot == nullptr) {
                aot = &entry;
            } else if (entry.kind == cachedir::FileKind::FxGraph && fx == nullptr) {
                fx = &entry;
            }
        }
        QVERIFY(aot != nullptr && fx != nullptr);
        const auto compared = compareEntries(EntryRef{cache, *aot}, EntryRef{cache, *fx});
        QVERIFY(!compared);
        const std::string said = compared.error().describe();
        QVERIFY2(said.find("is an AOTAutograd entry, which stores no debug lines; ask about its "
                           "FX graphs: forward ") != std::string::npos,
                 said.c_str());
        const auto cli = test::run_cli(
            QStringList{"diff", QString::fromStdString(cache.string() + ":" + aot->path),
                        QString::fromStdString(fx->key)});
        QCOMPARE(cli.exit_code, 2);
        QCOMPARE(cli.err.trimmed(), QByteArray::fromStdString("cachelens: " + said));
    }

    void keyDiffListsDifferencesFirstThenEverySharedAttribute_data() {
        QTest::addColumn<QString>("leftRoot");
        QTest::addColumn<QString>("leftKey");
        QTest::addColumn<QString>("rightRoot");
        QTest::addColumn<QString>("rightKey");
        QTest::newRow("forward, re-run vs original")
            << "devset/cache_from_mega" << kForwardRerun << "devset/cache" << kForward;
        QTest::newRow("backward, re-run vs original")
            << "devset/cache_from_mega" << kBackwardRerun << "devset/cache" << kBackward;
        QTest::newRow("two different graphs")
            << "devset/cache" << kDefault << "devset/cache" << kForward;
        QTest::newRow("an entry with itself")
            << "devset/cache" << kDefault << "devset/cache" << kDefault;
    }
    void keyDiffListsDifferencesFirstThenEverySharedAttribute() {
        QFETCH(QString, leftRoot);
        QFETCH(QString, leftKey);
        QFETCH(QString, rightRoot);
        QFETCH(QString, rightKey);
        const EntryRef left = refFor(leftRoot.toStdString(), leftKey.toStdString());
        const EntryRef right = refFor(rightRoot.toStdString(), rightKey.toStdString());

        // What the model should show, computed straight from the engine.
        auto a = cachedir::load_fx_graph_entry(left.root / left.entry.path);
        auto b = cachedir::load_fx_graph_entry(right.root / right.entry.path);
        QVERIFY_RESULT(a);
        QVERIFY_RESULT(b);
        const explain::KeyDiff expected = explain::diff_keys(a->debug_lines, b->debug_lines);

        KeyDiffModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto comparison = compareEntries(left, right);
        QVERIFY_RESULT(comparison);
        model.setComparison(*comparison);

        const int differing = static_cast<int>(expected.differences.size());
        QCOMPARE(model.differing(), differing);
        QCOMPARE(model.same(), static_cast<int>(expected.same));
        QCOMPARE(model.columnCount(), 4);
        // Every attribute of the left key appears once (plus right-only ones).
        const auto onlyRight =
            std::count_if(expected.differences.begin(), expected.differences.end(),
                          [](const auto& d) { return d.change == explain::Change::OnlyRight; });
        QCOMPARE(model.rowCount(), static_cast<int>(a->debug_lines.size() + onlyRight));
        for (int row = 0; row < differing; ++row) {
            const auto& difference = expected.differences[static_cast<std::size_t>(row)];
            QCOMPARE(model.index(row, KeyDiffModel::AttributeColumn).data().toString(),
                     QString::fromStdString(difference.name));
            QCOMPARE(model.index(row, KeyDiffModel::ChangeColumn).data().toString(),
                     changeName(difference.change));
            // Changed rows are lit.
            QVERIFY(model.index(row, KeyDiffModel::LeftColumn)
                        .data(Qt::BackgroundRole)
                        .value<QColor>()
                        .isValid());
            if (difference.left) {
                QCOMPARE(model.index(row, KeyDiffModel::LeftColumn)
                             .data(KeyDiffModel::FullValueRole)
                             .toString()
                             .toStdString(),
                         std::string(difference.left->value));
            }
            QCOMPARE(model.row(row).valueDiff.size(), difference.value_diff.size());
        }
        // The rest are the same on both sides, and not lit.
        for (int row = differing; row < model.rowCount(); ++row) {
            QCOMPARE(model.index(row, KeyDiffModel::ChangeColumn).data().toString(),
                     KeyDiffModel::changeName(KeyDiffModel::Change::Same));
            QCOMPARE(model.row(row).left, model.row(row).right);
            QVERIFY(!model.index(row, 0).data(Qt::BackgroundRole).isValid());
        }
        // A multi-line value shows its first line and how long it is.
        for (int row = 0; row < model.rowCount(); ++row) {
            if (model.row(row).left.contains(u'\n')) {
                const QString display =
                    model.index(row, KeyDiffModel::LeftColumn).data().toString();
                QVERIFY2(!display.contains(u'\n'), qPrintable(display));
                QVERIFY(display.contains(QStringLiteral("lines)")));
            }
        }
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void theMegaRoundTripDiffersInBenchmarkKernel() {
        auto comparison = compareEntries(refFor("devset/cache_from_mega", kForwardRerun),
                                         refFor("devset/cache", kForward));
        QVERIFY_RESULT(comparison);
        KeyDiffModel model;
        model.setComparison(*comparison);
        QCOMPARE(model.differing(), 1);
        QCOMPARE(model.row(0).attribute, QStringLiteral("inductor_config[benchmark_kernel]"));
        QCOMPARE(model.row(0).change, KeyDiffModel::Change::Changed);
        QCOMPARE(model.row(0).left, QStringLiteral("False"));
        QCOMPARE(model.row(0).right, QStringLiteral("True"));

        // The backward graph's gm differs too: a line diff with lines on both sides.
        auto backward = compareEntries(refFor("devset/cache_from_mega", kBackwardRerun),
                                       refFor("devset/cache", kBackward));
        QVERIFY_RESULT(backward);
        model.setComparison(*backward);
        int gm = -1;
        for (int row = 0; row < model.differing(); ++row) {
            if (model.row(row).attribute == QStringLiteral("gm")) {
                gm = row;
            }
        }
        QVERIFY(gm >= 0);
        const auto& lines = model.row(gm).valueDiff;
        QVERIFY(std::any_of(lines.begin(), lines.end(),
                            [](const auto& l) { return l.op == explain::DiffLine::Op::Removed; }));
        QVERIFY(std::any_of(lines.begin(), lines.end(),
                            [](const auto& l) { return l.op == explain::DiffLine::Op::Added; }));
    }

    void onlyFxGraphEntriesCompare() {
        const EntryRef fx = refFor("devset/cache", kForward);
        // An AOT entry points at its graphs.
        const EntryRef aot =
            refFor("devset/cache", "azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i");
        auto result = compareEntries(aot, fx);
        QVERIFY(!result);
        QVERIFY2(result.error().message.find("AOTAutograd") != std::string::npos,
                 result.error().message.c_str());
        QVERIFY(result.error().message.find("forward f") != std::string::npos);
        // A module is no graph.
        auto scan = cachedir::scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(scan);
        EntryRef module;
        for (const auto& entry : scan->entries()) {
            if (entry.kind == cachedir::FileKind::Module) {
                module = {scan->root, entry};
                break;
            }
        }
        QVERIFY(module.valid());
        QVERIFY(!compareEntries(fx, module));
        // A corrupt FX entry is an error naming the file, not a crash.
        QTemporaryDir temp;
        const std::filesystem::path root = temp.path().toStdString();
        std::filesystem::create_directories(root / "fxgraph/ab/fabcdef");
        std::ofstream(root / "fxgraph/ab/fabcdef/aaaa") << "not a pickle";
        cachedir::Entry corrupt;
        corrupt.kind = cachedir::FileKind::FxGraph;
        corrupt.key = "fabcdef";
        corrupt.path = "fxgraph/ab/fabcdef/aaaa";
        auto bad = compareEntries(fx, {root, corrupt});
        QVERIFY(!bad);
        QVERIFY(bad.error().describe().find("aaaa") != std::string::npos);
    }

    void nearestKeysRankAsTheEngineDoes() {
        const EntryRef target = refFor("devset/cache_from_mega", kForwardRerun);
        auto result = findNearestKeys(target, {test::fixture("devset/cache")}, 50);
        QVERIFY_RESULT(result);

        // Independently: the engine's ranking over the same candidates.
        auto scan = cachedir::scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(scan);
        std::vector<Error> unreadable;
        const auto candidates = explain::fx_graph_candidates(*scan, "x", unreadable);
        auto fx = cachedir::load_fx_graph_entry(target.root / target.entry.path);
        QVERIFY_RESULT(fx);
        const auto expected =
            explain::nearest_graphs({fx->debug_lines, fx->key, {}, {}}, candidates, 50).nearest;

        QCOMPARE(result->targetKey, std::string(kForwardRerun));
        QCOMPARE(result->debugLines, fx->debug_lines.size());
        QCOMPARE(result->candidateCount, candidates.size());
        QCOMPARE(result->rootCount, 1u);
        QCOMPARE(result->nearest.size(), expected.size());

        NearestKeysModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(std::make_shared<const NearestKeys>(*result));
        QCOMPARE(model.rowCount(), static_cast<int>(expected.size()));
        for (int row = 0; row < model.rowCount(); ++row) {
            const auto& near = expected[static_cast<std::size_t>(row)];
            QCOMPARE(model.index(row, NearestKeysModel::RankColumn).data().toInt(), row + 1);
            QCOMPARE(model.index(row, NearestKeysModel::KeyColumn).data().toString(),
                     QString::fromStdString(near.key));
            QCOMPARE(model.index(row, NearestKeysModel::SharedColumn).data().toString(),
                     QStringLiteral("%1 / %2").arg(near.shared).arg(near.total));
            QStringList differing;
            for (const auto& name : near.differing) {
                differing << QString::fromStdString(name);
            }
            QCOMPARE(model.index(row, NearestKeysModel::DifferingColumn).data().toString(),
                     differing.join(QStringLiteral(", ")));
            // The inputs that changed, aligned as `why` and `diff` print them.
            QStringList inputs;
            for (const auto& input : near.inputs) {
                if (input.changed()) {
                    inputs << QString::fromStdString(input.describe());
                }
            }
            QCOMPARE(model.index(row, NearestKeysModel::InputsColumn).data().toString(),
                     inputs.join(QStringLiteral("; ")));
            // Each candidate is a ready reference to its entry in its root.
            const EntryRef& ref = model.candidate(row).ref;
            QCOMPARE(ref.root, test::fixture("devset/cache"));
            QCOMPARE(ref.entry.kind, cachedir::FileKind::FxGraph);
            QCOMPARE(ref.entry.path, near.path);
            QVERIFY(ref.entry.size > 0);
        }
        QCOMPARE(model.index(0, NearestKeysModel::KeyColumn).data().toString(),
                 QString::fromLatin1(kForward));
        QCOMPARE(model.index(0, NearestKeysModel::DifferingColumn).data().toString(),
                 QStringLiteral("inductor_config[benchmark_kernel]"));
        // The nearest, the same graph compiled again: no input changed; the
        // other graphs' inputs differ, named.
        QCOMPARE(model.index(0, NearestKeysModel::InputsColumn).data().toString(), QString());
        bool named = false;
        for (int row = 1; row < model.rowCount(); ++row) {
            named = named || model.index(row, NearestKeysModel::InputsColumn)
                                 .data()
                                 .toString()
                                 .startsWith(QStringLiteral("input "));
        }
        QVERIFY(named);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    // The Why missed page answers as `why` does: the family first, each
    // row's relation, and the very key in another root as the answer.
    void nearestKeysAnswerAsWhyDoes() {
        const auto filled = test::real_fixture("gpt2_shapes/cache_from_bundle");
        const auto original = test::real_fixture("gpt2_shapes/cache");
        auto scan = cachedir::scan_cache_dir(filled);
        QVERIFY_RESULT(scan);
        auto found = cachedir::resolve_entries(*scan, "fhxelcf7");
        QVERIFY_RESULT(found);
        const EntryRef target{filled, found->front()};

        auto own = findNearestKeys(target, {filled}, 3);
        QVERIFY_RESULT(own);
        QVERIFY(own->sameKey.empty()); // the target itself is no copy
        QVERIFY(!own->firstCompile);
        QCOMPARE(own->family, 2u);
        QVERIFY2(QString::fromStdString(own->answer).startsWith("Missed because "),
                 own->answer.c_str());
        NearestKeysModel model;
        model.setResult(std::make_shared<const NearestKeys>(*own));
        QCOMPARE(model.index(0, NearestKeysModel::RelationColumn).data().toString(),
                 QStringLiteral("forward graph compiled before"));
        QCOMPARE(model.index(2, NearestKeysModel::RelationColumn).data().toString().left(6),
                 QStringLiteral("other "));

        auto both = findNearestKeys(target, {filled, original}, 3);
        QVERIFY_RESULT(both);
        QCOMPARE(both->sameKey.size(), 1u);
        QVERIFY2(QString::fromStdString(both->answer)
                     .startsWith(QStringLiteral("fhxelcf7s3wt… is in %1 too (same key)")
                                     .arg(QString::fromStdString(original.string()))),
                 both->answer.c_str());
    }

    void nearestKeysSearchTheOwnRootByDefaultOnce() {
        const EntryRef target = refFor("devset/cache", kDefault);
        auto own = findNearestKeys(target, {}, 100);
        QVERIFY_RESULT(own);
        QCOMPARE(own->nearest.size(), 9u); // the ten graphs but itself
        for (const auto& candidate : own->nearest) {
            QVERIFY(candidate.near.key != kDefault);
        }
        // The same root named twice is searched once.
        auto twice = findNearestKeys(
            target, {test::fixture("devset/cache"), test::fixture("devset/cache") / "."}, 100);
        QVERIFY_RESULT(twice);
        QCOMPARE(twice->nearest.size(), 9u);
        // Two roots: the round trip's graphs join in.
        auto both = findNearestKeys(
            target, {test::fixture("devset/cache"), test::fixture("devset/cache_from_mega")}, 100);
        QVERIFY_RESULT(both);
        QCOMPARE(both->rootCount, 2u);
        QVERIFY(both->nearest.size() > 9u);

        QVERIFY(!findNearestKeys(target, {"/nonexistent/cache"}, 10));
        QVERIFY(!findNearestKeys(
            refFor("devset/cache", "azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i"), {},
            10));
    }

    void guardClausesFollowGoldenEvaluations() {
        const auto golden = test::read_json(test::fixture("devset/golden.json"));
        const auto cases = golden["guards"].toArray();
        QVERIFY(cases.size() >= 3);
        for (const auto& value : cases) {
            const auto item = value.toObject();
            auto expression = guards::GuardExpression::parse(item["expr"].toString().toStdString());
            QVERIFY_RESULT(expression);
            GuardClausesModel model;
            QAbstractItemModelTester tester(&model,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
            model.setExpression(*expression);
            QCOMPARE(model.rowCount(), static_cast<int>(expression->clause_count()));
            QCOMPARE(model.state(0), GuardClausesModel::State::Unknown);
            for (const auto& evalValue : item["evals"].toArray()) {
                const auto eval = evalValue.toObject();
                std::vector<guards::Number> numbers;
                for (const auto& hint : eval["hints"].toArray()) {
                    numbers.push_back(guards::Number::integer(hint.toInteger()));
                }
                auto evaluation = expression->evaluate(guards::Hints::positional(numbers));
                QVERIFY_RESULT(evaluation);
                model.setEvaluation(*evaluation);
                int failing = 0;
                for (int row = 0; row < model.rowCount(); ++row) {
                    failing += model.state(row) != GuardClausesModel::State::Pass;
                    QCOMPARE(model.index(row, GuardClausesModel::ResultColumn)
                                 .data()
                                 .toString()
                                 .startsWith(model.state(row) == GuardClausesModel::State::Pass
                                                 ? QStringLiteral("PASS")
                                                 : QStringLiteral("FAIL")),
                             true);
                    QVERIFY(model.index(row, 0).data(Qt::BackgroundRole).isValid());
                }
                QCOMPARE(failing == 0, eval["result"].toBool());
            }
            model.clearEvaluation();
            QCOMPARE(model.state(0), GuardClausesModel::State::Unknown);
            // The suggested values pass.
            const auto suggested = suggestHints(*expression);
            QCOMPARE(suggested.values.size(), expression->symbols().size());
            auto check = expression->check(suggested);
            QVERIFY_RESULT(check);
            QVERIFY(*check);
        }
    }

    void suggestHintsSearchesPastUniformValues() {
        auto pinned = guards::GuardExpression::parse(
            "Eq(L['t0'], 7) and 1000 < L['t1'] and L['t1'] < 2000 and L['t1'] != 1001");
        QVERIFY_RESULT(pinned);
        auto check = pinned->check(suggestHints(*pinned));
        QVERIFY_RESULT(check);
        QVERIFY(*check);
        // Nothing passes: every symbol 1.
        auto impossible = guards::GuardExpression::parse("L['t0'] < 0 and L['t0'] > 5");
        QVERIFY_RESULT(impossible);
        const auto ones = suggestHints(*impossible);
        QCOMPARE(ones.values.size(), 1u);
        QCOMPARE(ones.values[0].second.repr(), "1");
        QVERIFY(suggestHints(guards::GuardExpression()).values.empty());
    }

    void failuresAreDescribedAsTheCliDoes() {
        auto expression = guards::GuardExpression::parse(
            "L['t1']*L['t0'] <= 2147483647 and 2 <= L['t0'] and 2 <= L['t1']");
        QVERIFY_RESULT(expression);
        const std::vector<guards::Number> hints = {guards::Number::integer(65536),
                                                   guards::Number::integer(32769)};
        auto evaluation = expression->evaluate(guards::Hints::positional(hints));
        QVERIFY_RESULT(evaluation);
        QCOMPARE(describeFailure(*evaluation),
                 QStringLiteral("L['t1']*L['t0'] <= 2147483647 (L['t1']*L['t0'] = 2147549184)"));
        QCOMPARE(clauseDetail(evaluation->clauses[1]), QStringLiteral("L['t0'] = 65536"));
        QCOMPARE(symbolLabel("t3"), QStringLiteral("L['t3']"));
        auto division = guards::GuardExpression::parse("1 // L['t0'] == 0");
        QVERIFY_RESULT(division);
        const std::vector<guards::Number> zero = {guards::Number::integer(0)};
        auto raised = division->evaluate(guards::Hints::positional(zero));
        QVERIFY_RESULT(raised);
        QVERIFY(clauseDetail(raised->clauses[0]).startsWith(QStringLiteral("raises ")));
        GuardClausesModel model;
        model.setExpression(*division);
        model.setEvaluation(*raised);
        QCOMPARE(model.state(0), GuardClausesModel::State::Error);
    }
};

QTEST_GUILESS_MAIN(TestCompareWhyGuardsModels)
#include "tst_compare_why_guards_models.moc"
