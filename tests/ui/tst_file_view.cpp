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
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

const char* const kMarker = "/tmp/cachelens-keyed-cache-marker";
const char* const kPrecompileMarker = "/tmp/cachelens-precompile-marker";

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

// The row under the top-level field `name`, or a null QString.
QString childValue(const EntryFieldsModel& model, const QString& name, int child) {
    for (int row = 0; row < model.rowCount(); ++row) {
        const auto index = model.index(row, EntryFieldsModel::NameColumn);
        if (index.data().toString() == name) {
            return model.index(child, EntryFieldsModel::ValueColumn, index).data().toString();
        }
    }
    return {};
}

// Whether the dialog's Checks tab can be chosen.
bool checksTabEnabled(const FileViewDialog& dialog) {
    const auto* tabs = dialog.findChild<QTabWidget*>();
    for (int i = 0; tabs != nullptr && i < tabs->count(); ++i) {
        if (tabs->tabText(i) == "Checks") {
            return tabs->isTabEnabled(i);
        }
    }
    qFatal("the file view has no Checks tab");
}

// The answer of a check: waits for the Checks tab's newest answer, past
// the "Reading the target…" line preflight shows while it reads.
QString waitChecked(FileViewDialog& dialog, QSignalSpy& checked) {
    if (!checked.wait(10'000)) {
        return QStringLiteral("(no answer)");
    }
    while (dialog.checkText().startsWith("Reading the target ") && checked.wait(10'000)) {
    }
    return dialog.checkText();
}

std::filesystem::path precompileData(const char* relative) {
    return test::test_data(std::string("precompile/") + relative);
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

    // A precompiled function PyTorch 2.11 wrote: its fields, its bundled
    // Inductor module in the Source tab, both checks offered.
    void realPrecompiledFunction() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        QAbstractItemModelTester tester(dialog.model());
        dialog.showFile(test::real_fixture("precompile/fn.bin"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        QCOMPARE(field(*dialog.model(), "Kind"), "precompile");
        QVERIFY2(field(*dialog.model(), "Format")
                     .startsWith("precompiled function (save_compiled_function, PyTorch 2.11 "
                                 "layout)"),
                 qPrintable(field(*dialog.model(), "Format")));
        QCOMPARE(childCount(*dialog.model(), "Functions"), 1);
        QCOMPARE(childValue(*dialog.model(), "Functions", 0), "fn(x, y) at <string>:3");
        QVERIFY(field(*dialog.model(), "Compiled on").contains("NVIDIA H200"));
        QVERIFY2(field(*dialog.model(), "Safety").startsWith("Inductor code"),
                 qPrintable(field(*dialog.model(), "Safety")));

        const QString backend = "__compiled_fn_1_73d33ae1_68ab_4fd8_8e10_12b8d5010613";
        const QString module =
            backend + " forward (c7svvzaljoj6zygh45obynuk4h77agm2jzql2mbpgguhrnlbleyt.py)";
        QCOMPARE(dialog.sourceMembers(), QStringList{module});
        QSignalSpy shown(&dialog, &FileViewDialog::sourceShown);
        dialog.showSourceMember(module);
        QVERIFY(shown.count() > 0 || shown.wait(10'000));
        // The module PyTorch writes out as cache/7s/<key>.py when it loads the file.
        const QString text = dialog.sourceText();
        QVERIFY2(text.startsWith("# AOT ID: ['0_inference']"), qPrintable(text.left(200)));
        QVERIFY(text.contains("class Runner:"));
        QVERIFY(text.contains("def call(self, args):"));
        QCOMPARE(
            text.trimmed(),
            QString::fromStdString(test::read_bytes(test::real_fixture(
                                       "precompile/cache/7s/"
                                       "c7svvzaljoj6zygh45obynuk4h77agm2jzql2mbpgguhrnlbleyt.py")))
                .trimmed());

        QVERIFY(dialog.canPreflight());
        QVERIFY(dialog.canCheckSources());
        QVERIFY(checksTabEnabled(dialog));
    }

    // The made-up 2.11 file's module, with the small `def call(args):` of
    // make_precompile.py.
    void madeUpPrecompiledFunctionModule() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(precompileData("fn_2_11.bin"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY(dialog.errorText().isEmpty());
        const QStringList sources = dialog.sourceMembers();
        QCOMPARE(sources.size(), 1);
        QVERIFY2(sources[0].startsWith("__compiled_fn_1_73d33ae1_68ab_4fd8_8e10_12b8d5010613 "
                                       "forward (c") &&
                     sources[0].endsWith(".py)"),
                 qPrintable(sources[0]));
        QSignalSpy shown(&dialog, &FileViewDialog::sourceShown);
        dialog.showSourceMember(sources[0]);
        QVERIFY(shown.count() > 0 || shown.wait(10'000));
        QVERIFY2(dialog.sourceText().contains("def call(args):"),
                 qPrintable(dialog.sourceText().left(400)));
    }

    // Check sources against…: the span of MLP.forward changed in the checkout.
    void checkSourcesAgainstAChangedCheckout() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(precompileData("mlp_sources_2_11.bin"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY(dialog.canCheckSources());
        QSignalSpy checked(&dialog, &FileViewDialog::checked);
        dialog.checkSourcesAgainst(precompileData("source_tree_changed"));
        const QString text = waitChecked(dialog, checked);
        QVERIFY2(text.startsWith("1 of 2 checked spans changed"), qPrintable(text));
        QVERIFY2(text.contains("Source code changes detected for mymodels.mlp (line 17 - line 21)"),
                 qPrintable(text));
        dialog.checkSourcesAgainst(precompileData("source_tree"));
        const QString same = waitChecked(dialog, checked);
        QVERIFY2(same.startsWith("All 2 checked spans are unchanged"), qPrintable(same));
    }

    // Will it load on…: PyTorch's SystemInfo check against an H100's dir.
    void preflightAPrecompiledFunction() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(test::real_fixture("precompile/fn.bin"));
        QVERIFY(waitLoaded(dialog));
        QSignalSpy checked(&dialog, &FileViewDialog::checked);
        dialog.preflightAgainst(test::fixture("devset/cache"));
        const QString text = waitChecked(dialog, checked);
        QVERIFY2(text.startsWith("The precompiled function will not load on the target"),
                 qPrintable(text));
        QVERIFY2(text.contains("cached=NVIDIA H200, current=NVIDIA H100 80GB HBM3"),
                 qPrintable(text));

        // A fingerprint file that records the torch version: it can load.
        QTemporaryDir temp;
        const fs::path h200 = fs::path(temp.path().toStdString()) / "h200.json";
        test::write_bytes(h200, R"({"cachelens_fingerprint": 1, "torch_version": "2.11.0+cu130",)"
                                R"( "environment": {"device_name": "NVIDIA H200", "cuda": "13.0",)"
                                R"( "triton": "3.6.0"}, "device_types": ["cuda"]})");
        dialog.preflightAgainst(h200);
        const QString loads = waitChecked(dialog, checked);
        QVERIFY2(loads.startsWith("The precompiled function can load on the target\n"),
                 qPrintable(loads));
    }

    // A .pt2 is preflighted model by model; it has no sources to check.
    void preflightAnAotiPackage_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("answer");
        QTest::newRow("two sm_80 models")
            << QString::fromStdString(test::test_data("pt2/two_models.pt2").string())
            << "0 of 2 models can load on the target; 2 will not load, 0 cannot tell";
        QTest::newRow("the real sm_90 package")
            << QString::fromStdString(test::real_fixture("aoti_cuda/mlp_cuda.pt2").string())
            << "1 of 1 model can load on the target";
    }
    void preflightAnAotiPackage() {
        QFETCH(QString, file);
        QFETCH(QString, answer);
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(file.toStdString());
        QVERIFY(waitLoaded(dialog));
        QVERIFY(dialog.canPreflight());
        QVERIFY(!dialog.canCheckSources());
        QVERIFY(checksTabEnabled(dialog));
        QSignalSpy checked(&dialog, &FileViewDialog::checked);
        dialog.preflightAgainst(test::fixture("devset/cache"));
        const QString text = waitChecked(dialog, checked);
        QVERIFY2(text.startsWith(answer + "\n"), qPrintable(text));
        QVERIFY2(text.at(0).isDigit(), qPrintable(text));
    }

    // A keyed-cache value has nothing to preflight: no Checks tab.
    void keyedCacheValueHasNoChecks() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(test::test_data(
            "keyed_cache/root/cache/inductor_on_disk_cache/054560f575c37a2e455c434de988c4cc"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        QCOMPARE(field(*dialog.model(), "Kind"), "on_disk_cache");
        QVERIFY(!dialog.canPreflight());
        QVERIFY(!dialog.canCheckSources());
        QVERIFY(!checksTabEnabled(dialog));
        QVERIFY(dialog.sourceMembers().isEmpty());
    }

    // A file read after a precompiled function loses its checks.
    void checksGoWithTheFile() {
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(precompileData("mlp_sources_2_11.bin"));
        QVERIFY(waitLoaded(dialog));
        QSignalSpy checked(&dialog, &FileViewDialog::checked);
        dialog.checkSourcesAgainst(precompileData("source_tree"));
        QVERIFY(!waitChecked(dialog, checked).isEmpty());
        QVERIFY(checksTabEnabled(dialog));
        dialog.showFile(test::test_data(
            "keyed_cache/root/cache/inductor_on_disk_cache/054560f575c37a2e455c434de988c4cc"));
        QVERIFY(waitLoaded(dialog));
        QVERIFY(!checksTabEnabled(dialog));
        QVERIFY(dialog.checkText().isEmpty());
        QVERIFY(dialog.sourceMembers().isEmpty());
    }

    // The hostile precompiled functions are flagged, never run.
    void hostilePrecompiledFunctionIsFlaggedNotRun_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("bytecode") << "hostile_code.bin";
        QTest::newRow("pickle") << "hostile_pickle.bin";
        QTest::newRow("guards") << "hostile_guards.bin";
    }
    void hostilePrecompiledFunctionIsFlaggedNotRun() {
        QFETCH(QString, file);
        QFile::remove(kPrecompileMarker);
        JobPool jobs;
        FileViewDialog dialog(jobs);
        dialog.showFile(precompileData(file.toUtf8().constData()));
        QVERIFY(waitLoaded(dialog));
        QVERIFY2(field(*dialog.model(), "Safety").startsWith("code with findings"),
                 qPrintable(field(*dialog.model(), "Safety")));
        QVERIFY2(!QFile::exists(kPrecompileMarker), "a hostile precompiled function ran");
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
        // Its broken values were written a while ago (a fresh one that does not
        // parse is an insert still writing: indexed next time).
        test::age_files(root, std::chrono::minutes(2));
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
