// A file read on its own in the GUI (File > Open file, File > Read
// InMemoryCache variable, --file): the engine's description in the Overview
// model, the verdict `cachelens verify FILE` gives, PyTorch's error for a
// file it would refuse. And the Stats page's one sentence on what the
// catalog does not know (coverage_line), as `scan` and `stats` say it.

#include "dialogs/file_view_dialog.h"
#include "jobs/job_pool.h"
#include "models/entry_fields_model.h"
#include "pages/stats_page.h"
#include "test_paths.h"

#include <cachelens/catalog/catalog.h>

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

const char* const kMarker = "/tmp/cachelens-keyed-cache-marker";

// The value of the top-level field named `name`, or a null QString.
QString field(const EntryFieldsModel& model, const QString& name) {
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.index(row, EntryFieldsModel::NameColumn).data().toString() == name) {
            return model.index(row, EntryFieldsModel::ValueColumn).data().toString();
        }
    }
    return {};
}

int childCount(const EntryFieldsModel& model, const QString& name) {
    for (int row = 0; row < model.rowCount(); ++row) {
        const auto index = model.index(row, EntryFieldsModel::NameColumn);
        if (index.data().toString() == name) {
            return model.rowCount(index);
        }
    }
    return -1;
}

bool waitLoaded(FileViewDialog& dialog) {
    QSignalSpy loaded(&dialog, &FileViewDialog::loaded);
    return loaded.wait(10'000);
}

} // namespace

class TestFileView : public QObject {
    Q_OBJECT

private slots:
    void init() { QFile::remove(kMarker); }
    void cleanup() { QVERIFY2(!QFile::exists(kMarker), "a hostile pickle ran"); }

    void realInMemoryCacheFile() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        QAbstractItemModelTester tester(dialog.model());
        dialog.showFile(test::real_fixture("on_disk_cache/in_memory_cache.pkl"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY(dialog.errorText().isEmpty());
        QCOMPARE(field(*dialog.model(), "Kind"), "in_memory_cache");
        QCOMPARE(field(*dialog.model(), "Pairs"), "2 pairs");
        QCOMPARE(childCount(*dialog.model(), "Pairs"), 2);
        QVERIFY(field(*dialog.model(), "Safety").startsWith("data only"));
    }

    void realOnDiskCacheValue() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(test::real_fixture("on_disk_cache/torchinductor_root/cache/"
                                           "inductor_on_disk_cache/"
                                           "e3ddede3885b540a555f449dfd0588f1"));
        QVERIFY(waitLoaded(dialog));
        QCOMPARE(field(*dialog.model(), "Kind"), "on_disk_cache");
        QVERIFY(field(*dialog.model(), "Cache").startsWith("inductor_on_disk_cache: "));
        QVERIFY(field(*dialog.model(), "Version").startsWith("0 (prefix 5feceb66)"));
        QCOMPARE(childCount(*dialog.model(), "Value"), 2); // {'list': ..., 'tuple': ...}
    }

    // A .pt2 read as data: its model, and a member's text in the Source tab.
    void aotiPackage() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        QAbstractItemModelTester tester(dialog.model());
        dialog.showFile(test::real_fixture("aoti_cuda/mlp_cuda.pt2"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY(dialog.errorText().isEmpty());
        QCOMPARE(field(*dialog.model(), "Kind"), "pt2");
        QCOMPARE(field(*dialog.model(), "Model model"), "cuda");
        QVERIFY(field(*dialog.model(), "Safety").startsWith("Inductor code"));
        const QStringList sources = dialog.sourceMembers();
        QVERIFY(sources.size() >= 4); // wrapper, kernels, two metadata files, the records
        QSignalSpy shown(&dialog, &FileViewDialog::sourceShown);
        const QString wrapper = *std::find_if(sources.begin(), sources.end(), [](const QString& s) {
            return s.endsWith(".wrapper.cpp");
        });
        dialog.showSourceMember(wrapper);
        QVERIFY(shown.wait(10'000));
        QVERIFY(dialog.sourceText().contains("constants_info_[0].original_fqn = \"fc1.weight\";"));
    }

    void hostileFileIsFlaggedNotRun() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(test::test_data("keyed_cache/in_memory/hostile.pkl"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY2(field(*dialog.model(), "Safety").startsWith("code with findings"),
                 qPrintable(field(*dialog.model(), "Safety")));
    }

    void fileTorchWouldRefuseIsAnError() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(test::test_data("keyed_cache/in_memory/list.pkl"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY(dialog.errorText().contains("file contents not pickled dict[Key, Value]"));
        QCOMPARE(dialog.model()->rowCount(), 0);
    }

    void variableValue() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showVariableValue(
            QString::fromStdString(test::read_bytes(test::test_data("keyed_cache/env/good.txt"))));
        QVERIFY(waitLoaded(dialog));
        QCOMPARE(field(*dialog.model(), "Pairs"), "2 pairs");
        dialog.showVariableValue(QString::fromStdString(
            test::read_bytes(test::test_data("keyed_cache/env/two_values.txt"))));
        QVERIFY(waitLoaded(dialog));
        QVERIFY(dialog.errorText().contains("Multiple values for key 'k1' found, got 1 and 2."));
    }

    // Never "every entry parses" while the catalog holds files of no known kind.
    void statsSaysWhatItDoesNotKnow() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::test_data("keyed_cache/root"), root);
        test::write_bytes(root / "mystery.bin", "what is this");
        const QString catalogPath = temp.path() + "/catalog.sqlite";
        {
            auto catalog = catalog::Catalog::open(catalogPath.toStdString());
            QVERIFY_RESULT(catalog);
            QVERIFY_RESULT(catalog->index(root));
        }
        JobPool jobs;
        StatsPage view(jobs, catalogPath);
        view.showRoot(root);
        auto* errors = view.findChild<QTreeWidget*>("parseErrors");
        QVERIFY(errors);
        QTRY_VERIFY(errors->topLevelItemCount() > 0);
        QCOMPARE(errors->topLevelItem(0)->text(0),
                 "2 entries do not parse; and 1 file (12 B) cachelens does not know: kind "
                 "unknown, never parsed or checked.");
        // The unknown file is listed after the parse errors.
        QCOMPARE(errors->topLevelItemCount(), 4);
        QCOMPARE(errors->topLevelItem(3)->text(0), "unknown");
        QCOMPARE(errors->topLevelItem(3)->text(1), "mystery.bin");
    }
};

QTEST_MAIN(TestFileView)
#include "tst_file_view.moc"
