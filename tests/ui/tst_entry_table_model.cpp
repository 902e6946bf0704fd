// EntryTableModel over a catalog of two roots (devset, cpu_dev): every query
// it runs (text, kinds, sort, cleared text) gives the rows Catalog::search_ids
// gives, in the same order, under QAbstractItemModelTester; a filter or a
// sort reuses the loaded EntryIndex, and refresh() loads it again so an
// index's changes show.

#include "jobs/job_tracker.h"
#include "models/entry_table_model.h"
#include "test_paths.h"

#include <cachelens/catalog/catalog.h>

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

class TestEntryTableModel : public QObject {
    Q_OBJECT

    QTemporaryDir temp_;
    fs::path catalogPath_;
    fs::path devset_;

    std::vector<std::int64_t> rowIds(const EntryTableModel& model) {
        std::vector<std::int64_t> ids;
        for (int row = 0; row < model.rowCount(); ++row) {
            ids.push_back(model.index(row, 0).data(EntryTableModel::EntryIdRole).toLongLong());
        }
        return ids;
    }

    std::vector<std::int64_t> expectedIds(const catalog::SearchQuery& query) {
        auto catalog = catalog::Catalog::open(catalogPath_);
        if (!catalog) {
            return {};
        }
        auto ids = catalog->search_ids(query);
        return ids ? *ids : std::vector<std::int64_t>{};
    }

    // Waits for the model's next result.
    static bool waitLoaded(EntryTableModel& model, const std::function<void()>& change) {
        QSignalSpy loaded(&model, &EntryTableModel::loaded);
        change();
        return loaded.wait(10000);
    }

private slots:
    void initTestCase() {
        QVERIFY(temp_.isValid());
        catalogPath_ = fs::path(temp_.path().toStdString()) / "catalog.sqlite";
        devset_ = fs::path(temp_.path().toStdString()) / "devset";
        test::copy_tree(test::fixture("devset/cache"), devset_);
        auto catalog = catalog::Catalog::open(catalogPath_);
        QVERIFY(catalog.has_value());
        QVERIFY(catalog->index(devset_).has_value());
        QVERIFY(catalog->index(test::fixture("cpu_dev/cache")).has_value());
    }

    void everyQueryGivesSearchIdsRows() {
        JobPool jobs;
        EntryTableModel model(jobs, QString::fromStdString(catalogPath_.string()));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        catalog::SearchQuery query;
        QVERIFY(waitLoaded(model, [&] { model.setQuery(query); }));
        QVERIFY(model.rowCount() > 100);
        QCOMPARE(rowIds(model), expectedIds(model.query()));

        const std::vector<std::function<void()>> changes = {
            [&] { query.text = "triton"; },
            [&] { query.text = "triton_poi"; },
            [&] { query.kinds = {cachedir::FileKind::Module}; },
            [&] { query.text.clear(); },
            [&] { query.kinds.clear(); },
            [&] { query.text = "cudagraphs"; },
            [&] { query.text = "zqxjkvnothing"; },
            [&] { query.text.clear(); },
        };
        for (const auto& change : changes) {
            change();
            QVERIFY(waitLoaded(model, [&] { model.setQuery(query); }));
            QCOMPARE(rowIds(model), expectedIds(model.query()));
            // The same filter in every order the header offers, both ways.
            for (int column : {int(EntryTableModel::Size), int(EntryTableModel::Key),
                               int(EntryTableModel::Guards), int(EntryTableModel::Graph),
                               int(EntryTableModel::Kind)}) {
                for (auto order : {Qt::DescendingOrder, Qt::AscendingOrder}) {
                    QVERIFY(waitLoaded(model, [&] { model.sort(column, order); }));
                    QCOMPARE(rowIds(model), expectedIds(model.query()));
                }
            }
        }
    }

    // The Graph column: an FX graph's role; sorted by it, the graphs of each
    // role come together.
    void graphColumnShowsEachGraphsRole() {
        JobPool jobs;
        EntryTableModel model(jobs, QString::fromStdString(catalogPath_.string()));
        catalog::SearchQuery query;
        query.kinds = {cachedir::FileKind::FxGraph};
        query.root = devset_.string();
        QVERIFY(waitLoaded(model, [&] { model.setQuery(query); }));
        QVERIFY(waitLoaded(model, [&] { model.sort(EntryTableModel::Graph, Qt::AscendingOrder); }));
        QCOMPARE(model.headerData(EntryTableModel::Graph, Qt::Horizontal).toString(),
                 QString("Graph"));
        QStringList roles;
        for (int row = 0; row < model.rowCount(); ++row) {
            roles << model.index(row, EntryTableModel::Graph).data().toString();
        }
        QVERIFY(roles.contains("forward") && roles.contains("backward") &&
                roles.contains("inference"));
        QStringList sorted = roles;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(roles, sorted);
        const auto key = model.index(roles.indexOf("backward"), EntryTableModel::Key).data();
        QVERIFY(key.toString().startsWith("fiwfskr6jnfh"));
    }

    // A row that did not parse is marked in the table: red, and an icon on
    // its kind; the others carry no icon.
    void aRowThatDidNotParseIsMarked() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), root);
        const fs::path broken =
            root / "fxgraph/lg/flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e";
        for (const auto& file : fs::directory_iterator(broken)) {
            std::ofstream(file.path(), std::ios::binary | std::ios::trunc) << "not a pickle";
        }
        const fs::path catalogPath = fs::path(dir.path().toStdString()) / "catalog.sqlite";
        {
            auto catalog = catalog::Catalog::open(catalogPath);
            QVERIFY(catalog.has_value());
            QVERIFY(catalog->index(root).has_value());
        }
        JobPool jobs;
        EntryTableModel model(jobs, QString::fromStdString(catalogPath.string()));
        catalog::SearchQuery query;
        query.kinds = {cachedir::FileKind::FxGraph};
        QVERIFY(waitLoaded(model, [&] { model.setQuery(query); }));
        int marked = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const auto kind = model.index(row, EntryTableModel::Kind);
            const bool broken_row =
                model.index(row, EntryTableModel::Key).data().toString().startsWith("flgtecy7im4d");
            QCOMPARE(!kind.data(Qt::DecorationRole).isNull(), broken_row);
            QCOMPARE(kind.data(Qt::ForegroundRole).isValid(), broken_row);
            marked += broken_row ? 1 : 0;
        }
        QCOMPARE(marked, 1);
    }

    void refreshShowsWhatAnIndexChanged() {
        JobPool jobs;
        EntryTableModel model(jobs, QString::fromStdString(catalogPath_.string()));
        catalog::SearchQuery query;
        query.root = devset_.string();
        QVERIFY(waitLoaded(model, [&] { model.setQuery(query); }));
        const int before = model.rowCount();
        QVERIFY(before > 0);

        // One FX entry gone from the dir and from the catalog.
        auto catalog = catalog::Catalog::open(catalogPath_);
        QVERIFY(catalog.has_value());
        catalog::SearchQuery fx = query;
        fx.kinds = {cachedir::FileKind::FxGraph};
        fx.limit = 1;
        auto hits = catalog->search(fx);
        QVERIFY(hits.has_value() && hits->size() == 1);
        fs::remove(devset_ / hits->front().path);
        QVERIFY(catalog->index(devset_).has_value());

        // A filter reuses the loaded snapshot; refresh() loads the catalog again.
        QVERIFY(waitLoaded(model, [&] { model.sort(EntryTableModel::Size, Qt::AscendingOrder); }));
        QCOMPARE(model.rowCount(), before);
        QVERIFY(waitLoaded(model, [&] { model.refresh(); }));
        QCOMPARE(model.rowCount(), before - 1);
        QCOMPARE(rowIds(model), expectedIds(model.query()));
        QVERIFY(!model.rowOfId(hits->front().entry_id).has_value());
    }
};

QTEST_MAIN(TestEntryTableModel)
#include "tst_entry_table_model.moc"
