// The GUI's models on caches of every release, held to the facts
// tests/data/real-world/facts.py reads (tst_real_world holds the CLI to them):
// the Overview's fields, the Kernels tab's bundled kernels, the Why missed
// page's ranking and the Compare page's verdict, for the release miniatures
// always and the real corpus where this machine has it (support/real_world.h).

#include "data/entry_ref.h"
#include "data/key_comparison.h"
#include "models/entry_fields_model.h"
#include "models/kernel_files_model.h"
#include "models/nearest_keys_model.h"
#include "real_world.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QtTest>

#include <map>

using namespace cachelens;
using namespace cachelens::ui;

namespace {

namespace fs = std::filesystem;

QString valueOf(const EntryFieldsModel& model, const QString& name) {
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex index = model.index(row, EntryFieldsModel::NameColumn);
        if (index.data().toString() == name) {
            return index.siblingAtColumn(EntryFieldsModel::ValueColumn)
                .data(EntryFieldsModel::FullValueRole)
                .toString();
        }
    }
    return {};
}

// At most this many FX entries per dir: a large real source is sampled.
constexpr int kPerDir = 8;

} // namespace

class TestRealWorldModels : public QObject {
    Q_OBJECT

    QTemporaryDir work_;
    std::vector<test::RealWorldSource> sources_;

    // The FX entries of every Inductor dir of the source in the row, with their facts.
    struct Graph {
        EntryRef ref;
        QJsonObject fact;
    };
    std::vector<std::vector<Graph>> graphs_of(const test::RealWorldSource& source) {
        std::vector<std::vector<Graph>> dirs;
        for (const auto& dir_value : source.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            const fs::path root = source.cache / dir["path"].toString().toStdString();
            auto scan = cachedir::scan_cache_dir(root);
            if (!scan) {
                qFatal("%s", scan.error().describe().c_str());
            }
            std::map<std::string, cachedir::Entry> by_path;
            for (auto& entry : scan->entries()) {
                by_path.emplace(entry.path, std::move(entry));
            }
            std::vector<Graph> graphs;
            for (const auto& value : dir["fx_entries"].toArray()) {
                const QJsonObject fact = value.toObject();
                const auto found = by_path.find(fact["path"].toString().toStdString());
                if (!fact.contains("error") && found != by_path.end() &&
                    static_cast<int>(graphs.size()) < kPerDir) {
                    graphs.push_back({EntryRef{root, found->second}, fact});
                }
            }
            dirs.push_back(std::move(graphs));
        }
        return dirs;
    }

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        sources_ = test::real_world_sources(fs::path(work_.path().toStdString()));
    }

    void graphsShown_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < sources_.size(); ++i) {
            if (!sources_[i].facts["inductor_dirs"].toArray().isEmpty()) {
                QTest::newRow(qPrintable(sources_[i].name)) << static_cast<int>(i);
            }
        }
    }

    // The Overview says each graph's role and the release that wrote it; the
    // Kernels tab lists the kernels its bundle carries.
    void graphsShown() {
        QFETCH(int, index);
        const auto& source = sources_.at(static_cast<std::size_t>(index));
        for (const auto& graphs : graphs_of(source)) {
            for (const auto& graph : graphs) {
                auto content = cachedir::load_entry(graph.ref.root, graph.ref.entry);
                QVERIFY_RESULT(content);
                EntryFieldsModel model;
                QAbstractItemModelTester tester(
                    &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
                model.setEntry(graph.ref.entry, *content);
                const QString where = source.name + ": " + graph.fact["path"].toString();
                const QString role = graph.fact["role"].toString();
                QVERIFY2(valueOf(model, QStringLiteral("Graph")).startsWith(role),
                         qPrintable(where + ": " + valueOf(model, QStringLiteral("Graph"))));
                QVERIFY2(valueOf(model, QStringLiteral("Written by")).startsWith("PyTorch "),
                         qPrintable(where));
                QVERIFY2(!valueOf(model, QStringLiteral("Compiled on"))
                              .contains(QLatin1String("not recorded in its key")),
                         qPrintable(where + ": " + valueOf(model, QStringLiteral("Compiled on"))));
                const auto& fx = std::get<cachedir::FxGraphEntry>(*content);
                QCOMPARE(static_cast<int>(bundleKernelItems(fx).size()),
                         graph.fact["bundle_kernels"].toInt());
            }
        }
    }

    void comparedAndRanked_data() { graphsShown_data(); }

    // The Compare page never calls two keys the same, and says first what
    // cannot be told when the entries store no debug lines; the Why missed
    // page never counts a graph of another role as this one compiled before.
    void comparedAndRanked() {
        QFETCH(int, index);
        const auto& source = sources_.at(static_cast<std::size_t>(index));
        for (const auto& graphs : graphs_of(source)) {
            if (graphs.size() < 2) {
                continue;
            }
            const Graph& left = graphs[0];
            const Graph& right = graphs[1];
            auto compared = compareEntries(left.ref, right.ref);
            QVERIFY_RESULT(compared);
            const auto& causes = (*compared)->causes;
            if (left.fact["key"] != right.fact["key"]) {
                QVERIFY2(!causes.verdict.contains("keys are the same"),
                         qPrintable(source.name + ": " + QString::fromStdString(causes.verdict)));
            }
            const bool without_lines =
                left.fact["debug_lines"].toInt() == 0 || right.fact["debug_lines"].toInt() == 0;
            QCOMPARE((*compared)->fromFacts, without_lines);
            if (without_lines && left.fact["key"] != right.fact["key"]) {
                QVERIFY2(causes.verdict.find("stores no debug lines") != std::string::npos,
                         qPrintable(source.name + ": " + QString::fromStdString(causes.verdict)));
                QVERIFY(!causes.held.empty());
            }
            auto why = findNearestKeys(left.ref, {}, 10);
            QVERIFY_RESULT(why);
            QVERIFY2(why->answer.find("keys are the same") == std::string::npos,
                     why->answer.c_str());
            NearestKeysModel model;
            QAbstractItemModelTester tester(&model,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
            model.setResult(std::make_shared<const NearestKeys>(std::move(*why)));
            for (int row = 0; row < model.rowCount(); ++row) {
                const auto& near = model.candidate(row).near;
                if (near.same_family && left.fact["role"].toString() != "unknown") {
                    QCOMPARE(QString::fromUtf8(cachedir::to_string(near.role)),
                             left.fact["role"].toString());
                }
            }
        }
    }
};

QTEST_MAIN(TestRealWorldModels)
#include "tst_real_world_models.moc"
