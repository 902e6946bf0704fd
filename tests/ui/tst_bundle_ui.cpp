// The GUI's bundles, driven for real under QT_QPA_PLATFORM=offscreen: the
// import report's model over PyTorch's devset bundle and over a hostile one
// (a key "../../x", a pickle that REDUCEs os.system), the Import dialog
// writing into a temp dir and nothing outside it, a signed bundle checked
// against its key, a real entry whose wrapper calls os.system (its verdict,
// its finding under the table, Allow re-planning it in, a trusted signer
// letting it in, its text never rendered as markup, the marker it would
// create never made), a bundle opened as a read-only root in the main window
// (its entries in the table, the sidebar label, Prune refused), and Export
// Selection reproducing PyTorch's own bundle byte for byte.

#include "data/graph_selection.h"
#include "devset_entries.h"
#include "dialogs/dialog_launcher.h"
#include "dialogs/export_dialog.h"
#include "dialogs/import_dialog.h"
#include "dialogs/prune_dialog.h"
#include "hostile_entries.h"
#include "jobs/bundle_work.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/entry_table_model.h"
#include "models/findings_model.h"
#include "models/import_plan_model.h"
#include "models/root_labels_model.h"
#include "pages/browse_page.h"
#include "startup_script.h"
#include "test_paths.h"
#include "text/plain_text.h"
#include "widgets/findings_panel.h"
#include "widgets/highlight_colors.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/policy/root_policy.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QBrush>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QtTest>

#include <fstream>
#include <set>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

const char* const kDevsetBundle = "devset/mega_mlp_train.bin";
const char* const kGoodBestConfig =
    "a6/b92708b62fd19dab503567221d57ffcf4683baeb6b435fd5cc876b684c8e862a.best_config";

// A pickle (protocol 2) of os.system("id"): what a hostile bundle carries.
const std::string kSystemPickle("\x80\x02"
                                "cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.",
                                31);

void writeFile(const fs::path& file, std::string_view bytes) {
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    QVERIFY(out.good());
}

// One good best_config, then an autotune key that climbs out of the cache
// dir and an FX graph whose content runs os.system when unpickled.
std::string hostileBundleBytes() {
    bundle::MegaBundle hostile;
    const QByteArray good = test::read_file(test::fixture("devset/cache") / kGoodBestConfig);
    hostile.sections.push_back({"inductor", {{test::kFxSmall, kSystemPickle}}});
    hostile.sections.push_back(
        {"autotune", {{kGoodBestConfig, good.toStdString()}, {"../../x", "{}"}}});
    return bundle::encode_mega_cache(hostile);
}

// The one entry file of a devset FX graph key.
std::string devsetFxEntry(const char* key) {
    const fs::path dir =
        test::fixture("devset/cache/fxgraph") / std::string(key).substr(1, 2) / key;
    return test::read_bytes(fs::directory_iterator(dir)->path());
}

// A real entry whose wrapper runs `hostile` (code with findings), a real FX
// graph (Inductor code), a best_config (data only), and the os.system pickle
// under an FX key (its finding, and not an FX graph entry: unreadable).
std::string hostileCodeBundleBytes(const test::HostileWrapper& hostile) {
    bundle::MegaBundle mega;
    const QByteArray good = test::read_file(test::fixture("devset/cache") / kGoodBestConfig);
    mega.sections.push_back({"inductor",
                             {{hostile.key, hostile.content},
                              {test::kBackward, devsetFxEntry(test::kBackward)},
                              {test::kFxSmall, kSystemPickle}}});
    mega.sections.push_back({"autotune", {{kGoodBestConfig, good.toStdString()}}});
    return bundle::encode_mega_cache(mega);
}

QTableView* findingsTable(const FindingsPanel& panel) {
    return panel.findChild<QTableView*>(panel.objectName() + QStringLiteral("Table"));
}

// Every path under `root`, relative, symlinks not followed.
std::set<std::string> walk(const fs::path& root) {
    std::set<std::string> paths;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
         ++it) {
        paths.insert(fs::relative(it->path(), root).string());
    }
    return paths;
}

std::set<std::string> files(const fs::path& root) {
    std::set<std::string> paths;
    for (const auto& path : walk(root)) {
        if (fs::is_regular_file(fs::symlink_status(root / path))) {
            paths.insert(path);
        }
    }
    return paths;
}

bundle::ImportPlan planFor(const fs::path& bundleFile, const fs::path& into) {
    auto opened = bundle::open_bundle_file(bundleFile);
    if (!opened) {
        qFatal("%s", opened.error().describe().c_str());
    }
    auto plan = bundle::plan_import(opened->bundle, into);
    if (!plan) {
        qFatal("%s", plan.error().describe().c_str());
    }
    return std::move(*plan);
}

int rowOfKey(const ImportPlanModel& model, const std::string& key) {
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.index(row, ImportPlanModel::KeyColumn).data().toString().toStdString() == key) {
            return row;
        }
    }
    return -1;
}

QStringList column(const QAbstractItemModel& model, int column) {
    QStringList values;
    for (int row = 0; row < model.rowCount(); ++row) {
        values << model.index(row, column).data().toString();
    }
    return values;
}

} // namespace

class TestBundleUi : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        // The user's settings and staged bundles stay out of the test.
        QVERIFY(home_.isValid());
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(home_.filePath("config")));
        qputenv("XDG_CACHE_HOME", QFile::encodeName(home_.filePath("cache")));
        QCoreApplication::setOrganizationName("cachelens-tests");
        QCoreApplication::setApplicationName("tst_bundle_ui");
        QVERIFY(bundle_work::stagingBase().string().starts_with(home_.path().toStdString()));
    }

    void cleanup() { fs::remove_all(bundle_work::stagingBase()); }

    void planModelOverTheDevsetBundle() {
        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "into";
        ImportPlanModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setPlan(planFor(test::fixture(kDevsetBundle), into), true);
        QCOMPARE(model.rowCount(), 7);
        QCOMPARE(model.columnCount(), int(ImportPlanModel::ColumnCount));
        QCOMPARE(model.count(bundle::ImportAction::Write), std::size_t{7});
        QCOMPARE(model.summaryText(),
                 QStringLiteral("7 artifacts: 7 to write, 0 already present, 0 conflicts, "
                                "0 refused"));
        const int forward = rowOfKey(model, test::kForward);
        QVERIFY(forward >= 0);
        auto cell = [&](int row, int column) {
            return model.index(row, column).data().toString();
        };
        QCOMPARE(cell(forward, ImportPlanModel::ActionColumn), QStringLiteral("would write"));
        QCOMPARE(cell(forward, ImportPlanModel::TypeColumn), QStringLiteral("inductor"));
        QVERIFY(cell(forward, ImportPlanModel::DestinationColumn)
                    .startsWith(QStringLiteral("fxgraph/lg/") + test::kForward + '/'));
        QVERIFY(!cell(forward, ImportPlanModel::ParsesToColumn).isEmpty());
        QVERIFY(cell(forward, ImportPlanModel::ProblemsColumn).isEmpty());
        QVERIFY(!model.index(forward, 0).data(Qt::BackgroundRole).isValid());
        QCOMPARE(QStringList(column(model, ImportPlanModel::TypeColumn)).count("autotune"), 4);
        // Every destination is where PyTorch itself put the artifact.
        for (const QString& destination : column(model, ImportPlanModel::DestinationColumn)) {
            QVERIFY2(fs::is_regular_file(test::fixture("devset/cache_from_mega") /
                                         destination.toStdString()),
                     qPrintable(destination));
        }

        // After the import: what was written, tinted as passing.
        auto opened = bundle::open_bundle_file(test::fixture(kDevsetBundle));
        QVERIFY_RESULT(opened);
        model.setPlan(bundle::run_import(*model.plan(), opened->bundle), false);
        QCOMPARE(model.count(bundle::ImportAction::Written), std::size_t{7});
        QCOMPARE(cell(forward, ImportPlanModel::ActionColumn), QStringLiteral("written"));
        QCOMPARE(model.index(forward, 0).data(Qt::BackgroundRole).value<QBrush>().color(),
                 highlight::pass());
        QCOMPARE(model.summaryText(),
                 QStringLiteral("7 artifacts: 7 written, 0 already present, 0 conflicts, "
                                "0 refused"));
        // Planned again: everything is there.
        model.setPlan(planFor(test::fixture(kDevsetBundle), into), true);
        QCOMPARE(model.count(bundle::ImportAction::AlreadyPresent), std::size_t{7});
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void planModelOverAHostileBundle() {
        QTemporaryDir temp;
        const fs::path file = fs::path(temp.path().toStdString()) / "hostile.bin";
        writeFile(file, hostileBundleBytes());
        ImportPlanModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(planFor(file, fs::path(temp.path().toStdString()) / "into"), true);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.count(bundle::ImportAction::Refused), std::size_t{2});
        QCOMPARE(model.count(bundle::ImportAction::Write), std::size_t{1});

        const int system = rowOfKey(model, test::kFxSmall);
        QVERIFY(system >= 0);
        QCOMPARE(model.artifact(system)->check.findings.size(), std::size_t{1});
        QCOMPARE(model.artifact(system)->check.findings[0].rule, std::string("pickle-call"));
        const auto index = [&](int row, int column) {
            return model.index(row, column);
        };
        QCOMPARE(index(system, ImportPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("refused"));
        QCOMPARE(index(system, ImportPlanModel::ActionColumn).data(ImportPlanModel::ActionRole),
                 QVariant(int(bundle::ImportAction::Refused)));
        QVERIFY(index(system, ImportPlanModel::ProblemsColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("os.system")));
        // Refused rows are marked: tinted, the action in bold.
        for (int column = 0; column < ImportPlanModel::ColumnCount; ++column) {
            QCOMPARE(index(system, column).data(Qt::BackgroundRole).value<QBrush>().color(),
                     highlight::fail());
        }
        QVERIFY(
            index(system, ImportPlanModel::ActionColumn).data(Qt::FontRole).value<QFont>().bold());
        const QString tip =
            index(system, ImportPlanModel::KeyColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("(pickle-call): REDUCE os.system(")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("refused: ")), qPrintable(tip));

        const int climbing = rowOfKey(model, "../../x");
        QVERIFY(climbing >= 0);
        QCOMPARE(index(climbing, ImportPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("refused"));
        QVERIFY(!index(climbing, ImportPlanModel::ProblemsColumn).data().toString().isEmpty());
        const int good = rowOfKey(model, kGoodBestConfig);
        QCOMPARE(index(good, ImportPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("would write"));
        QVERIFY(!index(good, ImportPlanModel::ActionColumn).data(Qt::BackgroundRole).isValid());
    }

    void importDialogWritesTheDevsetBundle() {
        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "into";
        JobPool jobs;
        ImportDialog dialog(jobs, test::fixture(kDevsetBundle), into);
        QSignalSpy planned(&dialog, &ImportDialog::planned);
        QSignalSpy imported(&dialog, &ImportDialog::imported);
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        QVERIFY2(dialog.bundleText().contains(QStringLiteral("7 artifacts")),
                 qPrintable(dialog.bundleText()));
        QVERIFY(dialog.bundleText().contains(QStringLiteral("Unsigned")));
        QVERIFY(dialog.bundleText().contains(QStringLiteral("NVIDIA H100")));
        QCOMPARE(dialog.plan()->rowCount(), 7);
        QVERIFY(dialog.canImport());
        QVERIFY(dialog.importButton()->isEnabled());
        QCOMPARE(dialog.confirmationText(), QStringLiteral("Write 7 files into %1 (a new dir)?")
                                                .arg(QString::fromStdString(into.string())));
        QVERIFY(!fs::exists(into)); // a dry run writes nothing

        dialog.confirmAndImport(false);
        QVERIFY(imported.wait(30'000));
        QCOMPARE(imported.first().first().value<fs::path>(), into);
        QCOMPARE(dialog.plan()->count(bundle::ImportAction::Written), std::size_t{7});
        QVERIFY(dialog.summaryText().contains(QStringLiteral("7 written")));
        QVERIFY(!dialog.canImport());
        // Exactly what PyTorch wrote for these artifacts, byte for byte.
        const auto written = files(into);
        QCOMPARE(written.size(), std::size_t{7});
        for (const auto& path : written) {
            QCOMPARE(test::read_file(into / path),
                     test::read_file(test::fixture("devset/cache_from_mega") / path));
        }

        // Planned again into the same dir: everything is already there.
        dialog.setDestination(into);
        QVERIFY(planned.wait(30'000));
        QCOMPARE(dialog.plan()->count(bundle::ImportAction::AlreadyPresent), std::size_t{7});
        QVERIFY(!dialog.canImport());
    }

    // Will it hit here: unknown into a new dir, known from a dir made there.
    void importDialogSaysWhetherTheBundleWillHit() {
        QTemporaryDir temp;
        const fs::path top = temp.path().toStdString();
        JobPool jobs;
        ImportDialog dialog(jobs, test::fixture(kDevsetBundle), top / "new");
        QSignalSpy planned(&dialog, &ImportDialog::planned);
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog.preflightText().startsWith("Will it hit here? Environment unknown ("),
                 qPrintable(dialog.preflightText()));
        QVERIFY(dialog.preflightText().contains("cachelens env --output env.json"));

        test::copy_tree(test::fixture("cpu_dev/cache"), top / "cpu");
        dialog.setDestination(top / "cpu");
        QVERIFY(planned.wait(30'000));
        const QString cpu = dialog.preflightText();
        QVERIFY2(cpu.startsWith("Will it hit here? 0 of 3 entries can hit on the target; 0 will "
                                "miss, 3 cannot tell — this machine: NVIDIA H100 80GB HBM3"),
                 qPrintable(cpu));
        QVERIFY2(cpu.contains("cannot_tell flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e: "
                              "device: compiled for cuda; the target's cache holds no cuda graph, "
                              "which does not say the machine has no cuda device"),
                 qPrintable(cpu));

        test::copy_tree(test::fixture("devset/cache"), top / "devset");
        dialog.setDestination(top / "devset");
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog.preflightText().startsWith(
                     "Will it hit here? 3 of 3 entries can hit on the target; 0 will miss"),
                 qPrintable(dialog.preflightText()));
    }

    void importDialogRefusesTheHostileArtifacts() {
        QTemporaryDir temp;
        const fs::path top = temp.path().toStdString();
        const fs::path file = top / "hostile.bin";
        writeFile(file, hostileBundleBytes());
        // "../../x" from `into` would be top/a/x.
        const fs::path into = top / "a" / "b" / "into";
        JobPool jobs;
        ImportDialog dialog(jobs, file, into);
        QSignalSpy planned(&dialog, &ImportDialog::planned);
        QSignalSpy imported(&dialog, &ImportDialog::imported);
        QVERIFY(planned.wait(30'000));
        QCOMPARE(dialog.plan()->count(bundle::ImportAction::Refused), std::size_t{2});
        QCOMPARE(dialog.confirmationText(),
                 QStringLiteral("Write 1 file into %1 (a new dir)? 2 artifacts are refused and "
                                "will not be written.")
                     .arg(QString::fromStdString(into.string())));
        QVERIFY(dialog.summaryText().contains(QStringLiteral("2 refused")));
        dialog.confirmAndImport(false);
        QVERIFY(imported.wait(30'000));
        QCOMPARE(dialog.plan()->count(bundle::ImportAction::Written), std::size_t{1});
        QCOMPARE(dialog.plan()->count(bundle::ImportAction::Refused), std::size_t{2});
        // The good file landed; nothing else exists anywhere around it.
        QCOMPARE(walk(top),
                 (std::set<std::string>{"hostile.bin", "a", "a/b", "a/b/into", "a/b/into/a6",
                                        std::string("a/b/into/") + kGoodBestConfig}));
    }

    void importDialogChecksTheSignature() {
        QTemporaryDir temp;
        const fs::path top = temp.path().toStdString();
        QVERIFY_RESULT(bundle::write_key_pair(top / "signer.pem", top / "signer.pub"));
        QVERIFY_RESULT(bundle::write_key_pair(top / "other.pem", top / "other.pub"));
        auto key = bundle::load_private_key(top / "signer.pem");
        QVERIFY_RESULT(key);
        auto signedBytes =
            bundle::sign_bundle(test::read_file(test::fixture(kDevsetBundle)).toStdString(), *key);
        QVERIFY_RESULT(signedBytes);
        writeFile(top / "signed.bin", *signedBytes);
        const QString fingerprint = QString::fromStdString(key->public_key().fingerprint());

        JobPool jobs;
        ImportDialog dialog(jobs, top / "signed.bin", top / "into");
        QSignalSpy planned(&dialog, &ImportDialog::planned);
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog.bundleText().contains(QStringLiteral("Signed by ") + fingerprint),
                 qPrintable(dialog.bundleText()));
        QVERIFY(dialog.bundleText().contains(QStringLiteral("not verified")));
        QVERIFY(dialog.bundleText().contains(QStringLiteral("NVIDIA H100")));
        QVERIFY(dialog.canImport());

        dialog.setRequiredSigner(top / "signer.pub");
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog.bundleText().contains(QStringLiteral("the signature verifies")),
                 qPrintable(dialog.bundleText()));
        QVERIFY(dialog.errorText().isEmpty());
        QVERIFY(dialog.canImport());

        // Another signer's key: refused, nothing to import.
        dialog.setRequiredSigner(top / "other.pub");
        QVERIFY(planned.wait(30'000));
        QVERIFY(!dialog.errorText().isEmpty());
        QVERIFY(!dialog.canImport());
        QCOMPARE(dialog.plan()->rowCount(), 0);

        // An unsigned bundle when a signature is required: refused too.
        ImportDialog unsignedDialog(jobs, test::fixture(kDevsetBundle), top / "into");
        QSignalSpy unsignedPlanned(&unsignedDialog, &ImportDialog::planned);
        QVERIFY(unsignedPlanned.wait(30'000));
        unsignedDialog.setRequiredSigner(top / "signer.pub");
        QVERIFY(unsignedPlanned.wait(30'000));
        QVERIFY2(unsignedDialog.errorText().contains(QStringLiteral("not a signed bundle")),
                 qPrintable(unsignedDialog.errorText()));
        QVERIFY(!unsignedDialog.canImport());
        QVERIFY(!fs::exists(top / "into"));
    }

    void importDialogShowsFindingsAndAllowsThem() {
        QTemporaryDir temp;
        const fs::path top = temp.path().toStdString();
        const std::string marker = (top / "ran").string();
        // Markup in the line it adds: shown as written, never rendered.
        const auto hostile = test::wrapperRunning("os.system('touch " + marker + "')#<img src=x>");
        writeFile(top / "hostile.bin", hostileCodeBundleBytes(hostile));
        const fs::path into = top / "into";
        JobPool jobs;
        ImportDialog dialog(jobs, top / "hostile.bin", into);
        QSignalSpy planned(&dialog, &ImportDialog::planned);
        QSignalSpy imported(&dialog, &ImportDialog::imported);
        QVERIFY(planned.wait(30'000));
        const ImportPlanModel& plan = *dialog.plan();
        QAbstractItemModelTester tester(dialog.table()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int code = rowOfKey(plan, hostile.key);
        const int real = rowOfKey(plan, test::kBackward);
        const int data = rowOfKey(plan, kGoodBestConfig);
        const int unreadable = rowOfKey(plan, test::kFxSmall);
        QVERIFY(code >= 0 && real >= 0 && data >= 0 && unreadable >= 0);
        const auto cell = [&plan](int row, int column) {
            return plan.index(row, column).data().toString();
        };
        QCOMPARE(cell(code, ImportPlanModel::VerdictColumn),
                 QStringLiteral("code with findings (1 refusing)"));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("refused"));
        QCOMPARE(cell(real, ImportPlanModel::VerdictColumn), QStringLiteral("Inductor code"));
        QCOMPARE(cell(real, ImportPlanModel::ActionColumn), QStringLiteral("would write"));
        QCOMPARE(cell(data, ImportPlanModel::VerdictColumn), QStringLiteral("data only"));
        QCOMPARE(cell(unreadable, ImportPlanModel::VerdictColumn),
                 QStringLiteral("code with findings (refused)"));

        // Nothing selected: the panel says what selecting shows.
        FindingsPanel& panel = *dialog.findings();
        FindingsModel& findings = *panel.model();
        QAbstractItemModelTester findingsTester(
            &findings, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(panel.summaryText().startsWith(QStringLiteral("Select an artifact")));
        QVERIFY(findingsTable(panel)->isHidden());

        // The hostile row: its one finding, where it is, the line, why.
        dialog.table()->setCurrentIndex(plan.index(code, 0));
        QCOMPARE(findings.rowCount(), 1);
        QVERIFY(!findingsTable(panel)->isHidden());
        const safety::Finding finding = plan.artifact(code)->check.findings.front();
        const auto at = [&findings](int column) {
            return findings.index(0, column);
        };
        const QString id = at(FindingsModel::IdColumn).data().toString();
        QCOMPARE(id, QString::fromStdString(finding.id));
        QVERIFY(id.size() == 13 && id.startsWith(u'F'));
        QCOMPARE(at(FindingsModel::WhereColumn).data().toString(),
                 QStringLiteral("source_code:%1").arg(hostile.line));
        QCOMPARE(at(FindingsModel::RuleColumn).data().toString(),
                 QStringLiteral("call-outside-vocabulary"));
        QVERIFY2(at(FindingsModel::TextColumn)
                     .data()
                     .toString()
                     .startsWith(QStringLiteral("os.system('touch %1')").arg(marker.c_str())),
                 qPrintable(at(FindingsModel::TextColumn).data().toString()));
        QVERIFY(!at(FindingsModel::WhyColumn).data().toString().isEmpty());
        QVERIFY2(panel.summaryText().startsWith(
                     QStringLiteral("inductor %1: code with findings (1 refusing). PyTorch would "
                                    "run source_code (wrapper module")
                         .arg(hostile.key.c_str())),
                 qPrintable(panel.summaryText()));
        QVERIFY(panel.summaryText().contains(QStringLiteral("ticking Allow")));
        QVERIFY(at(FindingsModel::AllowColumn).flags().testFlag(Qt::ItemIsUserCheckable));
        QCOMPARE(at(FindingsModel::AllowColumn).data(Qt::CheckStateRole), QVariant(Qt::Unchecked));

        // Text from the bundle is never handed to Qt's HTML renderer unescaped.
        auto* summaryLabel = panel.findChild<QLabel*>(QStringLiteral("importFindingsSummary"));
        QVERIFY(summaryLabel != nullptr);
        QCOMPARE(summaryLabel->textFormat(), Qt::PlainText);
        QVERIFY(at(FindingsModel::TextColumn).data().toString().contains(QStringLiteral("<img")));
        for (const QString& tip :
             {at(FindingsModel::TextColumn).data(Qt::ToolTipRole).toString(),
              plan.index(code, ImportPlanModel::KeyColumn).data(Qt::ToolTipRole).toString()}) {
            const QString shown =
                Qt::mightBeRichText(tip) ? QTextDocumentFragment::fromHtml(tip).toPlainText() : tip;
            QVERIFY2(shown.contains(QStringLiteral("#<img src=x>")), qPrintable(tip));
        }
        for (const QLabel* label : dialog.findChildren<QLabel*>()) {
            QVERIFY2(label->textFormat() == Qt::PlainText ||
                         !label->text().contains(QStringLiteral("<img")),
                     qPrintable(label->objectName()));
        }

        // Allow: planned again, the row let in, the box still ticked.
        QVERIFY(findings.setData(at(FindingsModel::AllowColumn), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(planned.wait(30'000));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("would write"));
        QCOMPARE(cell(code, ImportPlanModel::VerdictColumn),
                 QStringLiteral("code with findings (allowed)"));
        QCOMPARE(dialog.table()->currentIndex().row(), code);
        QCOMPARE(at(FindingsModel::AllowColumn).data(Qt::CheckStateRole), QVariant(Qt::Checked));
        QCOMPARE(panel.allowedIds(), std::vector<std::string>{finding.id});
        QVERIFY(panel.summaryText().contains(QStringLiteral("you allowed every finding")));
        QCOMPARE(plan.count(bundle::ImportAction::Write), std::size_t{3});

        // Cleared again: refused again.
        QVERIFY(
            findings.setData(at(FindingsModel::AllowColumn), Qt::Unchecked, Qt::CheckStateRole));
        QVERIFY(planned.wait(30'000));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("refused"));
        QCOMPARE(cell(code, ImportPlanModel::VerdictColumn),
                 QStringLiteral("code with findings (1 refusing)"));
        QVERIFY(panel.allowedIds().empty());

        // A real FX graph and a best_config: no findings, no table.
        dialog.table()->setCurrentIndex(plan.index(real, 0));
        QCOMPARE(findings.rowCount(), 0);
        QVERIFY(findingsTable(panel)->isHidden());
        QVERIFY2(panel.summaryText().contains(QStringLiteral(": Inductor code. PyTorch would run "
                                                             "source_code (wrapper module")),
                 qPrintable(panel.summaryText()));
        dialog.table()->setCurrentIndex(plan.index(data, 0));
        QCOMPARE(findings.rowCount(), 0);
        QVERIFY(findingsTable(panel)->isHidden());
        QVERIFY(panel.summaryText().endsWith(QStringLiteral(": data only")));

        // Unreadable with a finding: shown, but nothing to allow.
        dialog.table()->setCurrentIndex(plan.index(unreadable, 0));
        QCOMPARE(findings.rowCount(), 1);
        QVERIFY(!findings.index(0, FindingsModel::AllowColumn)
                     .flags()
                     .testFlag(Qt::ItemIsUserCheckable));
        QVERIFY(!findings.index(0, FindingsModel::AllowColumn).data(Qt::CheckStateRole).isValid());
        QVERIFY(!findings.setData(findings.index(0, FindingsModel::AllowColumn), Qt::Checked,
                                  Qt::CheckStateRole));
        QVERIFY2(panel.summaryText().contains(QStringLiteral("Refused whatever is allowed: not an "
                                                             "FX graph entry")),
                 qPrintable(panel.summaryText()));

        // Allowed, then imported: the hostile entry is written as it came, and never ran.
        dialog.table()->setCurrentIndex(plan.index(code, 0));
        QVERIFY(findings.setData(at(FindingsModel::AllowColumn), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(planned.wait(30'000));
        QVERIFY(dialog.canImport());
        QVERIFY(!fs::exists(into));
        dialog.confirmAndImport(false);
        QVERIFY(imported.wait(30'000));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("written"));
        QCOMPARE(cell(unreadable, ImportPlanModel::ActionColumn), QStringLiteral("refused"));
        QCOMPARE(files(into).size(), std::size_t{3});
        QCOMPARE(test::read_bytes(into / plan.artifact(code)->check.destination), hostile.content);
        QVERIFY(!fs::exists(marker));
    }

    void aTrustedSignerLetsTheCodeIn() {
        QTemporaryDir temp;
        const fs::path top = temp.path().toStdString();
        const std::string marker = (top / "ran").string();
        const auto hostile = test::wrapperRunning("os.system('touch " + marker + "')");
        QVERIFY_RESULT(bundle::write_key_pair(top / "signer.pem", top / "signer.pub"));
        auto key = bundle::load_private_key(top / "signer.pem");
        QVERIFY_RESULT(key);
        auto signedBytes = bundle::sign_bundle(hostileCodeBundleBytes(hostile), *key);
        QVERIFY_RESULT(signedBytes);
        writeFile(top / "signed.bin", *signedBytes);

        JobPool jobs;
        ImportDialog dialog(jobs, top / "signed.bin", top / "into");
        QSignalSpy planned(&dialog, &ImportDialog::planned);
        QVERIFY(planned.wait(30'000));
        const ImportPlanModel& plan = *dialog.plan();
        const int code = rowOfKey(plan, hostile.key);
        // Signed, but not verified: the finding refuses it.
        QCOMPARE(plan.index(code, ImportPlanModel::VerdictColumn).data().toString(),
                 QStringLiteral("code with findings (1 refusing)"));

        dialog.setRequiredSigner(top / "signer.pub");
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog.bundleText().contains(QStringLiteral("the signature verifies")),
                 qPrintable(dialog.bundleText()));
        QCOMPARE(plan.index(code, ImportPlanModel::VerdictColumn).data().toString(),
                 QStringLiteral("code with findings (trusted signer)"));
        QCOMPARE(plan.index(code, ImportPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("would write"));
        FindingsPanel& panel = *dialog.findings();
        dialog.table()->setCurrentIndex(plan.index(code, 0));
        QCOMPARE(panel.model()->rowCount(), 1);
        const QModelIndex allow = panel.model()->index(0, FindingsModel::AllowColumn);
        QVERIFY(!allow.flags().testFlag(Qt::ItemIsUserCheckable));
        QVERIFY(!allow.data(Qt::CheckStateRole).isValid());
        QCOMPARE(allow.data().toString(), QStringLiteral("signed"));
        QVERIFY2(panel.summaryText().contains(QStringLiteral("signed by the key you require")),
                 qPrintable(panel.summaryText()));

        // A signature lets code in, never an artifact refused for another problem.
        const int unreadable = rowOfKey(plan, test::kFxSmall);
        QCOMPARE(plan.index(unreadable, ImportPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("refused"));
        QCOMPARE(plan.index(unreadable, ImportPlanModel::VerdictColumn).data().toString(),
                 QStringLiteral("code with findings (refused)"));
        dialog.table()->setCurrentIndex(plan.index(unreadable, 0));
        QCOMPARE(panel.model()->rowCount(), 1);
        QVERIFY(panel.model()->index(0, FindingsModel::AllowColumn).data().toString().isEmpty());
        QVERIFY(!panel.summaryText().contains(QStringLiteral("signed by the key")));
        QVERIFY(panel.summaryText().contains(QStringLiteral("Refused whatever is allowed")));
        QCOMPARE(plan.count(bundle::ImportAction::Write), std::size_t{3});
        QVERIFY(!fs::exists(marker));
    }

    void theStartupRequestSelectsTheImportedArtifact() {
        QTemporaryDir temp;
        const fs::path top = temp.path().toStdString();
        const auto hostile = test::wrapperRunning("os.system('id')");
        writeFile(top / "hostile.bin", hostileCodeBundleBytes(hostile));
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.openBundles = {top / "hostile.bin"};
        request.view = QStringLiteral("import");
        request.select = QString::fromStdString(hostile.key);
        request.importInto = temp.filePath("into");
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        ImportDialog* dialog = window.dialogs()->importDialog();
        QVERIFY(dialog != nullptr);
        QCOMPARE(dialog->table()->currentIndex().row(), rowOfKey(*dialog->plan(), hostile.key));
        QCOMPARE(dialog->findings()->model()->rowCount(), 1);
        QVERIFY(dialog->findings()->summaryText().contains(QStringLiteral("1 refusing")));
    }

    void aBundleOpensAsAReadOnlyRoot() {
        QTemporaryDir temp;
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.resize(1400, 900);
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        QSignalSpy opened(window.roots(), &RootJobs::bundleOpened);
        StartupRequest request;
        request.openBundles = {test::fixture(kDevsetBundle)};
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        QCOMPARE(opened.size(), 1);
        const fs::path root = opened.first().first().toString().toStdString();
        QVERIFY(window.roots()->isReadOnlyRoot(root));
        QCOMPARE(root.filename(), fs::path("mega_mlp_train.bin"));
        // The bundle's path, made absolute and normal ("../shared" resolved).
        const fs::path origin = test::fixture(kDevsetBundle).lexically_normal();
        QVERIFY(bundle_work::stagedOrigin(root) == origin);
        QCOMPARE(files(root).size(), std::size_t{7});
        // Its files are as old as the bundle, not the staging.
        for (const auto& file : fs::recursive_directory_iterator(root)) {
            if (file.is_regular_file()) {
                QVERIFY(fs::last_write_time(file.path()) == fs::last_write_time(origin));
            }
        }

        // The 7 artifacts' entries: two FX graphs, the AOT entry, four best configs.
        QTRY_COMPARE(window.browsePage()->entryModel()->rowCount(), 7);
        const QStringList kinds = column(*window.browsePage()->entryModel(), EntryTableModel::Kind);
        QCOMPARE(kinds.count(QStringLiteral("fxgraph")), 2);
        QCOMPARE(kinds.count(QStringLiteral("aotautograd")), 1);
        QCOMPARE(kinds.count(QStringLiteral("best_config")), 4);
        const QStringList keys = column(*window.browsePage()->entryModel(), EntryTableModel::Key);
        QVERIFY(keys.contains(QString::fromLatin1(test::kForward)));
        QVERIFY(keys.contains(QString::fromLatin1(test::kBackward)));
        QVERIFY(
            keys.contains(QStringLiteral("azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i")));

        // The sidebar names it as a bundle, and it is the one selected.
        auto* labels = window.findChild<RootLabelsModel*>();
        QVERIFY(labels != nullptr);
        QAbstractItemModelTester tester(labels,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_COMPARE(labels->rowCount(), 1);
        const QModelIndex label = labels->index(0, 0);
        QCOMPARE(label.data().toString(), QStringLiteral("mega_mlp_train.bin (bundle)"));
        QVERIFY(label.data(RootLabelsModel::IsBundleRole).toBool());
        QVERIFY(label.data(Qt::ToolTipRole)
                    .toString()
                    .contains(QString::fromStdString(origin.string())));
        QVERIFY(!labels->index(0, 0, label).data(RootLabelsModel::IsBundleRole).toBool());
        QTRY_VERIFY(window.browsePage()->banner()->isVisible());
        QVERIFY(
            window.browsePage()->banner()->text().contains(QStringLiteral("7 shown, 0 refused")));

        // Read-only: Prune is off, and refused when asked for anyway.
        QAction* prune = nullptr;
        for (auto* action : window.findChildren<QAction*>()) {
            if (action->text() == QStringLiteral("&Prune…")) {
                prune = action;
            }
        }
        QVERIFY(prune != nullptr);
        QVERIFY(!prune->isEnabled());
        window.dialogs()->openPrune(QStringLiteral("1M"));
        QVERIFY(window.findChild<PruneDialog*>() == nullptr);
        // The engine's refusal, the one `cachelens prune` prints.
        const auto refusal = [&root](policy::RootWrite write) {
            return QString::fromStdString(policy::allow_write(root, write).error().message);
        };
        QCOMPARE(window.statusText(), refusal(policy::RootWrite::Prune));
        QVERIFY(window.statusText().contains(QStringLiteral("opened read-only")));
        // And the Benchmarks page gets no dir to accept configs in.
        window.showPage(MainWindow::Page::Bench);
        QCOMPARE(window.statusText(), refusal(policy::RootWrite::BestConfig));

        // Import… on the bundle root opens its file.
        window.dialogs()->openImport(std::nullopt, fs::path(temp.filePath("into").toStdString()));
        QVERIFY(window.dialogs()->importDialog() != nullptr);
        QVERIFY(window.dialogs()->importDialog()->bundleFile() == origin);
        QCOMPARE(window.screenshotTarget(),
                 static_cast<QWidget*>(window.dialogs()->importDialog()));
    }

    void importingIntoAnOpenRootIndexesItAgain() {
        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "into";
        fs::create_directories(into);
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {into};
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        QCOMPARE(window.browsePage()->entryModel()->rowCount(), 0);

        window.dialogs()->openImport(test::fixture(kDevsetBundle), into, false);
        ImportDialog* dialog = window.dialogs()->importDialog();
        QVERIFY(dialog != nullptr);
        QSignalSpy planned(dialog, &ImportDialog::planned);
        QVERIFY(planned.wait(30'000));
        QSignalSpy indexed(window.roots(), &RootJobs::rootIndexed);
        dialog->confirmAndImport(false);
        QVERIFY(indexed.wait(30'000));
        QTRY_COMPARE(window.browsePage()->entryModel()->rowCount(), 7);
        QVERIFY(window.statusText().contains(QStringLiteral("7 entries")));
    }

    void aHostileBundleShowsWhatWasRefused() {
        QTemporaryDir temp;
        const fs::path file = fs::path(temp.path().toStdString()) / "hostile.bin";
        writeFile(file, hostileBundleBytes());
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.openBundles = {file};
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        QTRY_COMPARE(window.browsePage()->entryModel()->rowCount(), 1);
        QTRY_VERIFY(window.browsePage()->banner()->isVisible());
        const QString banner = window.browsePage()->banner()->text();
        QVERIFY2(banner.contains(QStringLiteral("1 shown, 2 refused")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("os.system")), qPrintable(banner));
        QVERIFY(banner.contains(QStringLiteral("../../x")));
        QVERIFY(window.statusText().contains(QStringLiteral("2 refused")));
        // Nothing but the good artifact was materialised.
        const fs::path base = bundle_work::stagingBase();
        for (const auto& path : files(base)) {
            QVERIFY2(path.ends_with(kGoodBestConfig) || path.ends_with("/origin") ||
                         path.ends_with("/report"),
                     path.c_str());
        }
        QCOMPARE(files(base).size(), std::size_t{3});
    }

    void aDamagedBundleIsAnError() {
        QTemporaryDir temp;
        const fs::path file = fs::path(temp.path().toStdString()) / "damaged.bin";
        std::string bytes = test::read_file(test::fixture(kDevsetBundle)).toStdString();
        bytes[100] = static_cast<char>(bytes[100] ^ 0x20);
        writeFile(file, bytes);
        const auto staged = bundle_work::stageBundle(file);
        QVERIFY(!staged);
        QVERIFY(staged.error().describe().find("damaged.bin") != std::string::npos);
        QVERIFY(!fs::exists(bundle_work::stagingBase()));
    }

    void exportSelectionReproducesPyTorchsBundle() {
        QTemporaryDir temp;
        const fs::path top = temp.path().toStdString();
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {test::fixture("devset/cache")};
        window.runStartupRequest(request);
        QVERIFY(done.wait(120'000));
        QSignalSpy shown(window.browsePage(), &BrowsePage::entryShown);
        QVERIFY(window.browsePage()->selectEntry(QString::fromLatin1(test::kForward)));
        QVERIFY(shown.wait(30'000));
        QCOMPARE(window.browsePage()->entryTable()->selectionModel()->selectedRows().size(), 1);

        window.dialogs()->openExport();
        ExportDialog* dialog = window.dialogs()->exportDialog();
        QVERIFY(dialog != nullptr);
        QCOMPARE(dialog->keys(), std::vector<std::string>{test::kForward});
        QSignalSpy exported(dialog, &ExportDialog::exported);
        dialog->setOutputFile(top / "x.bin");
        dialog->exportNow();
        QVERIFY(exported.wait(30'000));
        QVERIFY2(dialog->errorText().isEmpty(), qPrintable(dialog->errorText()));
        QCOMPARE(test::read_file(top / "x.bin"), test::read_file(test::fixture(kDevsetBundle)));
        QVERIFY2(dialog->outcomeText().startsWith(
                     QStringLiteral("7 artifacts written to %1 (2 inductor, 4 autotune, "
                                    "1 aot_autograd)")
                         .arg(QString::fromStdString((top / "x.bin").string()))),
                 qPrintable(dialog->outcomeText()));
        QVERIFY(window.statusText().contains(QStringLiteral("7 artifacts written")));

        // Signed with a key: the same bundle inside, verified by its public key.
        QVERIFY_RESULT(bundle::write_key_pair(top / "signer.pem", top / "signer.pub"));
        dialog->setSigningKey(top / "signer.pem");
        dialog->setOutputFile(top / "signed.bin");
        dialog->exportNow();
        QVERIFY(exported.wait(30'000));
        QVERIFY2(dialog->errorText().isEmpty(), qPrintable(dialog->errorText()));
        auto publicKey = bundle::load_public_key(top / "signer.pub");
        QVERIFY_RESULT(publicKey);
        auto signedFile = bundle::open_bundle_file(top / "signed.bin", &*publicKey);
        QVERIFY_RESULT(signedFile);
        QVERIFY(signedFile->signature_verified);
        QCOMPARE(QByteArray::fromStdString(bundle::encode_mega_cache(signedFile->bundle)),
                 test::read_file(test::fixture(kDevsetBundle)));
        QVERIFY(dialog->outcomeText().contains(QStringLiteral("signed by ") +
                                               QString::fromStdString(publicKey->fingerprint())));

        // A key that does not load: the error, and no file.
        dialog->setSigningKey(top / "signer.pub");
        dialog->setOutputFile(top / "never.bin");
        dialog->exportNow();
        QVERIFY(exported.wait(30'000));
        QVERIFY(!dialog->errorText().isEmpty());
        QVERIFY(!fs::exists(top / "never.bin"));
    }

    void exportSelectionKeepsFxAndAotEntriesOfOneDir() {
        const auto forward = test::refFor("devset/cache", test::kForward);
        const auto aot = test::refFor("devset/cache", test::kAot);
        const auto bestConfig = test::refFor("devset/cache", test::kBestConfig);
        auto elsewhere = test::refFor("devset/cache", test::kBackward);
        elsewhere.root = "/elsewhere";
        const auto selection =
            graphSelection({forward, bestConfig, aot, elsewhere}, QStringLiteral("exported"));
        QCOMPARE(selection.root, test::fixture("devset/cache"));
        QCOMPARE(selection.keys, (std::vector<std::string>{test::kForward, test::kAot}));
        QCOMPARE(selection.ignored.size(), 2);
        QVERIFY(selection.ignored[0].startsWith(QStringLiteral("1 best_config entry ignored")));
        QVERIFY(selection.ignored[1].startsWith(QStringLiteral("1 entry of other roots")));
    }

    void keysHtmlNamesTheFirstKeysEscaped() {
        QCOMPARE(keysHtml({}), QString());
        QCOMPARE(keysHtml({"fa", "a<b"}), QStringLiteral("<tt>fa</tt>, <tt>a&lt;b</tt>"));
        QCOMPARE(keysHtml({"k1", "k2", "k3", "k4", "k5", "k6"}),
                 QStringLiteral("<tt>k1</tt>, <tt>k2</tt>, <tt>k3</tt>, <tt>k4</tt>, and 2 more"));
        QCOMPARE(keysHtml({"k1", "k2"}, 1), QStringLiteral("<tt>k1</tt>, and 1 more"));
    }

private:
    QTemporaryDir home_;
};

QTEST_MAIN(TestBundleUi)
#include "tst_bundle_ui.moc"
