// The GUI's Redis remote cache, against a real redis-server the suite starts
// and fills with the devset (remote::push_local): the server added through
// the Add Redis Server dialog shows up as a labelled, read-only root with its
// 19 entries (and keeps its label and Refresh after a restart), an entry of
// it compared with a local one, one selected FX entry pulled into a temp dir
// byte for byte, a value whose wrapper calls os.system refused with its
// finding until Allow lets it in (and never run), a push meeting a conflicting value (left alone
// without Force, replaced with it, the server's root mirrored again), a stopped server's error with
// no root added, mirroring stopped while it scans, and the models under QAbstractItemModelTester.

#include "../engine/redis_server.h"
#include "devset_entries.h"
#include "dialogs/dialog_launcher.h"
#include "dialogs/prune_dialog.h"
#include "dialogs/pull_dialog.h"
#include "dialogs/push_dialog.h"
#include "dialogs/redis_dialog.h"
#include "hostile_entries.h"
#include "jobs/job_tracker.h"
#include "jobs/remote_work.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/entry_table_model.h"
#include "models/findings_model.h"
#include "models/import_plan_model.h"
#include "models/key_diff_model.h"
#include "models/push_plan_model.h"
#include "models/root_labels_model.h"
#include "models/roots_model.h"
#include "pages/browse_page.h"
#include "pages/compare_page.h"
#include "startup_script.h"
#include "test_paths.h"
#include "widgets/findings_panel.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/remote/mirror.h>
#include <cachelens/remote/redis_client.h>
#include <cachelens/remote/remote_cache.h>
#include <cachelens/remote/remote_ops.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <set>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

std::string fxRedisKey(const std::string& key) {
    return "pt2:fx-graph-v1::" + key + ":c1";
}

// Every regular file under `root`, relative.
std::set<std::string> files(const fs::path& root) {
    std::set<std::string> paths;
    if (!fs::exists(root)) {
        return paths;
    }
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        if (entry.is_regular_file()) {
            paths.insert(fs::relative(entry.path(), root).string());
        }
    }
    return paths;
}

// The devset's file for an FX graph key, relative to devset/cache.
std::string devsetFxFile(const std::string& key) {
    for (const auto& path : files(test::fixture("devset/cache"))) {
        if (path.starts_with("fxgraph/") && path.find("/" + key + "/") != std::string::npos) {
            return path;
        }
    }
    return {};
}

QStringList column(const QAbstractItemModel& model, int column) {
    QStringList values;
    for (int row = 0; row < model.rowCount(); ++row) {
        values << model.index(row, column).data().toString();
    }
    return values;
}

QAction* actionNamed(const QWidget& window, const QString& text) {
    for (auto* action : window.findChildren<QAction*>()) {
        if (action->text() == text) {
            return action;
        }
    }
    return nullptr;
}

QString location(const fs::path& dir) {
    return QString::fromStdString(catalog::root_location(dir));
}

} // namespace

class TestRemoteUi : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        // The user's settings and PyTorch's server stay out of the test.
        QVERIFY(home_.isValid());
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(home_.filePath("config")));
        qputenv("XDG_CACHE_HOME", QFile::encodeName(home_.filePath("cache")));
        for (const char* name :
             {"TORCHINDUCTOR_REDIS_URL", "TORCHINDUCTOR_REDIS_HOST", "TORCHINDUCTOR_REDIS_PORT"}) {
            qunsetenv(name);
        }
        QCoreApplication::setOrganizationName("cachelens-tests");
        QCoreApplication::setApplicationName("tst_remote_ui");
    }

    void init() {
        REQUIRE_REDIS_SERVER();
        QVERIFY2(server_.start(), qPrintable(server_.error()));
        auto client = remote::RedisClient::connect(server_.endpoint());
        QVERIFY_RESULT(client);
        auto pushed = remote::push_local(*client, test::fixture("devset/cache"), {});
        QVERIFY_RESULT(pushed);
        QCOMPARE(pushed->count(remote::PushAction::Set), std::size_t{19});
    }

    void cleanup() { server_.stop(); }

    void theDialogStartsFromPyTorchsServer() {
        JobPool jobs;
        qputenv("TORCHINDUCTOR_REDIS_HOST", "10.1.2.3");
        qputenv("TORCHINDUCTOR_REDIS_PORT", "7000");
        {
            RedisDialog dialog(jobs, home_.filePath("catalog.sqlite").toStdString());
            QCOMPARE(dialog.url(), QStringLiteral("redis://10.1.2.3:7000/0"));
        }
        // The URL wins over host and port; its password goes to the masked field.
        qputenv("TORCHINDUCTOR_REDIS_URL", "redis://:s3cret@cachebox:6380/2");
        {
            RedisDialog dialog(jobs, home_.filePath("catalog.sqlite").toStdString());
            QCOMPARE(dialog.url(), QStringLiteral("redis://cachebox:6380/2"));
            auto* password = dialog.findChild<QLineEdit*>(QStringLiteral("redisPassword"));
            QVERIFY(password != nullptr);
            QCOMPARE(password->text(), QStringLiteral("s3cret"));
            QCOMPARE(password->echoMode(), QLineEdit::Password);
        }
        for (const char* name :
             {"TORCHINDUCTOR_REDIS_URL", "TORCHINDUCTOR_REDIS_HOST", "TORCHINDUCTOR_REDIS_PORT"}) {
            qunsetenv(name);
        }
    }

    void anAddedServerIsALabelledReadOnlyRoot() {
        QTemporaryDir temp;
        const QString catalogPath = temp.filePath("catalog.sqlite");
        const fs::path mirror = remote::mirror_dir_for(catalogPath.toStdString(), endpoint());
        QString root;
        {
            MainWindow window(catalogPath);
            window.resize(1400, 900);
            window.show();
            window.dialogs()->openRedis(url());
            RedisDialog* dialog = window.dialogs()->redisDialog();
            QVERIFY(dialog != nullptr);
            QCOMPARE(dialog->url(), url());
            QSignalSpy added(window.roots(), &RootJobs::redisRootAdded);
            dialog->connectNow();
            QVERIFY(dialog->isBusy());
            QVERIFY(added.wait(60'000));
            root = added.first().first().toString();
            QCOMPARE(root, location(mirror));
            QVERIFY(window.roots()->isRedisRoot(root.toStdString()));
            QVERIFY(window.roots()->isReadOnlyRoot(root.toStdString()));
            // Connected: the dialog closed itself.
            QTRY_VERIFY(window.dialogs()->redisDialog() == nullptr);

            // The devset's 19 entries: 10 FX graphs and 9 AOT entries.
            QTRY_COMPARE(window.browsePage()->entryModel()->rowCount(), 19);
            const QStringList kinds =
                column(*window.browsePage()->entryModel(), EntryTableModel::Kind);
            QCOMPARE(kinds.count(QStringLiteral("fxgraph")), 10);
            QCOMPARE(kinds.count(QStringLiteral("aotautograd")), 9);
            QVERIFY(column(*window.browsePage()->entryModel(), EntryTableModel::Key)
                        .contains(QString::fromLatin1(test::kForward)));

            // The sidebar names the server, not the dir.
            auto* labels = window.findChild<RootLabelsModel*>();
            QVERIFY(labels != nullptr);
            QAbstractItemModelTester tester(labels,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
            QTRY_COMPARE(labels->rowCount(), 1);
            const QModelIndex label = labels->index(0, RootsModel::Name);
            QCOMPARE(label.data().toString(), displayUrl() + QStringLiteral(" (Redis)"));
            QVERIFY(label.data(RootLabelsModel::IsRedisRole).toBool());
            QVERIFY(!label.data(RootLabelsModel::IsBundleRole).toBool());
            QVERIFY(label.data(Qt::ToolTipRole).toString().contains(root));
            QVERIFY(label.data(Qt::FontRole).value<QFont>().italic());
            QCOMPARE(labels->index(0, RootsModel::Entries).data().toString(), QStringLiteral("19"));
            // Kind rows under it pass through.
            QVERIFY(!labels->index(0, 0, label).data(RootLabelsModel::IsRedisRole).toBool());

            // The server's URL is remembered beside the mirror, without a password.
            QCOMPARE(
                test::read_file(mirror.parent_path() / (mirror.filename().string() + ".origin")),
                displayUrl().toUtf8());
            QCOMPARE(files(mirror).size(), std::size_t{19});

            QTRY_VERIFY(window.browsePage()->banner()->isVisible());
            const QString banner = window.browsePage()->banner()->text();
            QVERIFY2(banner.contains(QStringLiteral("Redis server ") + displayUrl()),
                     qPrintable(banner));
            QVERIFY2(banner.contains(QStringLiteral("19 keys on ")), qPrintable(banner));
            QVERIFY(banner.contains(QStringLiteral("19 pulled")));

            // Read-only: Prune is off and refused; Refresh is on.
            QAction* prune = actionNamed(window, QStringLiteral("&Prune…"));
            QVERIFY(prune != nullptr);
            QVERIFY(!prune->isEnabled());
            QVERIFY(actionNamed(window, QStringLiteral("Re&fresh Redis server"))->isEnabled());
            window.dialogs()->openPrune(QStringLiteral("1M"));
            QVERIFY(window.findChild<PruneDialog*>() == nullptr);
            QVERIFY2(window.statusText().contains(QStringLiteral("read-only")),
                     qPrintable(window.statusText()));
        }

        // Another start: the label comes back, and Refresh follows the server.
        QCOMPARE(server_.command({"DEL", fxRedisKey(test::kForward)}), std::string(":1"));
        MainWindow window(catalogPath);
        window.show();
        auto* labels = window.findChild<RootLabelsModel*>();
        QTRY_COMPARE(labels->rowCount(), 1);
        QCOMPARE(labels->index(0, 0).data().toString(), displayUrl() + QStringLiteral(" (Redis)"));
        QSignalSpy added(window.roots(), &RootJobs::redisRootAdded);
        window.roots()->refreshRedisRoot(root.toStdString());
        QVERIFY(added.wait(60'000));
        QTRY_COMPARE(window.browsePage()->entryModel()->rowCount(), 18);
        QVERIFY(!column(*window.browsePage()->entryModel(), EntryTableModel::Key)
                     .contains(QString::fromLatin1(test::kForward)));
        QCOMPARE(files(mirror).size(), std::size_t{18});
        QVERIFY2(window.browsePage()->banner()->text().contains(QStringLiteral("1 removed")),
                 qPrintable(window.browsePage()->banner()->text()));
    }

    void aRemoteEntryComparesWithALocalOne() {
        QTemporaryDir temp;
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {test::fixture("devset/cache")};
        request.openRedis = {url()};
        window.runStartupRequest(request);
        QVERIFY(done.wait(120'000));
        const QString mirror = location(
            remote::mirror_dir_for(temp.filePath("catalog.sqlite").toStdString(), endpoint()));
        const QString local = location(test::fixture("devset/cache"));

        // The Redis root is selected once added: its forward graph is the one selected.
        QSignalSpy shown(window.browsePage(), &BrowsePage::entryShown);
        QVERIFY(window.browsePage()->selectEntry(QString::fromLatin1(test::kForward)));
        QVERIFY(shown.wait(30'000));
        QCOMPARE(location(window.browsePage()->currentEntry()->root), mirror);

        // The same key: the local entry, not itself; identical inputs.
        QVERIFY(window.compareWith(QString::fromLatin1(test::kForward)));
        KeyDiffModel* diff = window.comparePage()->model();
        QTRY_VERIFY(diff->comparison() != nullptr);
        QCOMPARE(location(diff->comparison()->left.root), mirror);
        QCOMPARE(location(diff->comparison()->right.root), local);
        QCOMPARE(diff->differing(), 0);
        QVERIFY(diff->same() > 0);

        // Another key of a local root: what differs.
        QVERIFY(window.compareWith(QString::fromLatin1(test::kBackward)));
        QTRY_VERIFY(diff->comparison() != nullptr &&
                    diff->comparison()->right.entry.key == test::kBackward);
        QCOMPARE(location(diff->comparison()->left.root), mirror);
        QCOMPARE(location(diff->comparison()->right.root), local);
        QVERIFY(diff->differing() > 0);

        // Both roots in the table, one entry of each selected: Compare the two selected.
        window.showPage(MainWindow::Page::Browse);
        QAction* allRoots = actionNamed(window, QStringLiteral("&All cache dirs"));
        QVERIFY(allRoots != nullptr);
        allRoots->trigger();
        window.browsePage()->searchField()->setText(QString::fromLatin1(test::kForward));
        QTRY_VERIFY(!window.browsePage()->entryModel()->isLoading() &&
                    window.browsePage()->entryModel()->rowCount() >= 2);
        QItemSelection both;
        QStringList roots;
        for (int row = 0; row < window.browsePage()->entryModel()->rowCount(); ++row) {
            const auto ref = window.browsePage()
                                 ->entryModel()
                                 ->index(row, 0)
                                 .data(EntryTableModel::EntryRefRole)
                                 .value<EntryRef>();
            if (ref.entry.kind == cachedir::FileKind::FxGraph && ref.entry.key == test::kForward) {
                both.select(window.browsePage()->entryModel()->index(row, 0),
                            window.browsePage()->entryModel()->index(row, 0));
                roots << location(ref.root);
            }
        }
        QCOMPARE(roots.size(), 2);
        QVERIFY(roots.contains(mirror) && roots.contains(local));
        window.browsePage()->entryTable()->selectionModel()->select(
            both, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QAction* compare = actionNamed(window, QStringLiteral("&Compare the two selected"));
        QVERIFY(compare != nullptr && compare->isEnabled());
        compare->trigger();
        QTRY_VERIFY(diff->comparison() != nullptr &&
                    diff->comparison()->right.entry.key == test::kForward);
        QVERIFY(location(diff->comparison()->left.root) !=
                location(diff->comparison()->right.root));
        QCOMPARE(diff->differing(), 0);
    }

    void aSelectedFxEntryIsPulledByteForByte() {
        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "into";
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.openRedis = {url()};
        window.runStartupRequest(request);
        QVERIFY(done.wait(120'000));
        QAction* pull = actionNamed(window, QStringLiteral("P&ull to cache dir…"));
        QVERIFY(pull != nullptr);
        QVERIFY(!pull->isEnabled());

        QSignalSpy shown(window.browsePage(), &BrowsePage::entryShown);
        QVERIFY(window.browsePage()->selectEntry(QString::fromLatin1(test::kForward)));
        QVERIFY(shown.wait(30'000));
        QCOMPARE(window.browsePage()->entryTable()->selectionModel()->selectedRows().size(), 1);
        QVERIFY(pull->isEnabled());

        window.dialogs()->openPull(into);
        PullDialog* dialog = window.dialogs()->pullDialog();
        QVERIFY(dialog != nullptr);
        QCOMPARE(dialog->keys(), std::vector<std::string>{test::kForward});
        QAbstractItemModelTester tester(dialog->table()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy planned(dialog, &PullDialog::planned);
        QSignalSpy pulled(dialog, &PullDialog::pulled);
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog->errorText().isEmpty(), qPrintable(dialog->errorText()));
        QCOMPARE(dialog->plan()->rowCount(), 1);
        QCOMPARE(dialog->plan()->count(bundle::ImportAction::Write), std::size_t{1});
        QCOMPARE(dialog->plan()->index(0, ImportPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("would write"));
        QVERIFY(dialog->canPull());
        QVERIFY(!fs::exists(into)); // a dry run writes nothing
        // A new dir says nothing of the machine: unknown, and how to know it.
        QVERIFY2(dialog->preflightText().startsWith("Will it hit here? Environment unknown ("),
                 qPrintable(dialog->preflightText()));
        // Into a dir made on the devset's machine: the value can hit there.
        QTemporaryDir madeHere;
        test::copy_tree(test::fixture("devset/cache"), madeHere.path().toStdString());
        dialog->setDestination(madeHere.path().toStdString());
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog->preflightText().startsWith(
                     "Will it hit here? 1 of 1 entry can hit on the target; 0 will miss"),
                 qPrintable(dialog->preflightText()));
        dialog->setDestination(into);
        QVERIFY(planned.wait(30'000));
        // Pull asks first, naming the dir it writes in.
        QCOMPARE(dialog->confirmationText(), QStringLiteral("Write 1 file into %1 (a new dir)?")
                                                 .arg(QString::fromStdString(into.string())));

        dialog->confirmAndPull(false);
        QVERIFY(pulled.wait(30'000));
        QCOMPARE(pulled.first().first().value<fs::path>(), into);
        QCOMPARE(dialog->plan()->count(bundle::ImportAction::Written), std::size_t{1});
        QVERIFY2(dialog->summaryText().contains(QStringLiteral("1 written")),
                 qPrintable(dialog->summaryText()));
        // Exactly that file, as PyTorch wrote it locally.
        const std::string expected = devsetFxFile(test::kForward);
        QVERIFY(!expected.empty());
        QCOMPARE(files(into), std::set<std::string>{expected});
        QCOMPARE(test::read_file(into / expected),
                 test::read_file(test::fixture("devset/cache") / expected));
        QVERIFY(!dialog->canPull());

        // Once more into the same dir: it is there already.
        dialog->setDestination(into);
        QVERIFY(planned.wait(30'000));
        QCOMPARE(dialog->plan()->count(bundle::ImportAction::AlreadyPresent), std::size_t{1});
        QVERIFY(!dialog->canPull());
    }

    void aValueWithFindingsIsPulledOnlyWhenAllowed() {
        QTemporaryDir temp;
        const fs::path top = temp.path().toStdString();
        const std::string marker = (top / "ran").string();
        const auto hostile = test::wrapperRunning("os.system('touch " + marker + "')");
        auto client = remote::RedisClient::connect(server_.endpoint());
        QVERIFY_RESULT(client);
        QVERIFY_RESULT(client->set(fxRedisKey(hostile.key),
                                   remote::encode_value(hostile.content, 7),
                                   remote::SetMode::Always));

        const fs::path into = top / "into";
        JobPool jobs;
        PullDialog dialog(jobs, server_.endpoint(), {hostile.key, std::string(test::kBackward)}, {},
                          into);
        QSignalSpy planned(&dialog, &PullDialog::planned);
        QSignalSpy pulled(&dialog, &PullDialog::pulled);
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        const ImportPlanModel& plan = *dialog.plan();
        QAbstractItemModelTester tester(dialog.table()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(plan.rowCount(), 2);
        const auto rowOf = [&plan](const std::string& key) {
            for (int row = 0; row < plan.rowCount(); ++row) {
                if (plan.artifact(row)->key == key) {
                    return row;
                }
            }
            return -1;
        };
        const int code = rowOf(hostile.key);
        const int real = rowOf(test::kBackward);
        QVERIFY(code >= 0 && real >= 0);
        const auto cell = [&plan](int row, int column) {
            return plan.index(row, column).data().toString();
        };
        QCOMPARE(cell(code, ImportPlanModel::VerdictColumn),
                 QStringLiteral("code with findings (1 refusing)"));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("refused"));
        QCOMPARE(cell(real, ImportPlanModel::VerdictColumn), QStringLiteral("Inductor code"));
        QVERIFY(dialog.summaryText().contains(QStringLiteral("1 refused")));

        // The finding under the table, with its Allow box.
        FindingsPanel& panel = *dialog.findings();
        FindingsModel& findings = *panel.model();
        dialog.table()->setCurrentIndex(plan.index(code, 0));
        QCOMPARE(findings.rowCount(), 1);
        const auto at = [&findings](int column) {
            return findings.index(0, column);
        };
        QVERIFY(at(FindingsModel::IdColumn).data().toString().startsWith(u'F'));
        QCOMPARE(at(FindingsModel::WhereColumn).data().toString(),
                 QStringLiteral("source_code:%1").arg(hostile.line));
        QCOMPARE(at(FindingsModel::RuleColumn).data().toString(),
                 QStringLiteral("call-outside-vocabulary"));
        QVERIFY(at(FindingsModel::TextColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("os.system('touch ")));
        QVERIFY(!at(FindingsModel::WhyColumn).data().toString().isEmpty());
        QVERIFY(at(FindingsModel::AllowColumn).flags().testFlag(Qt::ItemIsUserCheckable));
        auto* summaryLabel = panel.findChild<QLabel*>(QStringLiteral("pullFindingsSummary"));
        QVERIFY(summaryLabel != nullptr);
        QCOMPARE(summaryLabel->textFormat(), Qt::PlainText);

        // Allowed: a dry run again, the value let in; cleared: refused again.
        QVERIFY(findings.setData(at(FindingsModel::AllowColumn), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(planned.wait(30'000));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("would write"));
        QCOMPARE(cell(code, ImportPlanModel::VerdictColumn),
                 QStringLiteral("code with findings (allowed)"));
        QCOMPARE(dialog.table()->currentIndex().row(), code);
        QCOMPARE(at(FindingsModel::AllowColumn).data(Qt::CheckStateRole), QVariant(Qt::Checked));
        QVERIFY(
            findings.setData(at(FindingsModel::AllowColumn), Qt::Unchecked, Qt::CheckStateRole));
        QVERIFY(planned.wait(30'000));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("refused"));
        QVERIFY(!fs::exists(into));

        // Pulled without it: only the real graph. Allowed, then pulled: the value as it came.
        dialog.confirmAndPull(false);
        QVERIFY(pulled.wait(30'000));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("refused"));
        QCOMPARE(files(into), std::set<std::string>{devsetFxFile(test::kBackward)});
        dialog.table()->setCurrentIndex(plan.index(code, 0));
        QVERIFY(findings.setData(at(FindingsModel::AllowColumn), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(planned.wait(30'000));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("would write"));
        dialog.confirmAndPull(false);
        QVERIFY(pulled.wait(30'000));
        QCOMPARE(cell(code, ImportPlanModel::ActionColumn), QStringLiteral("written"));
        QCOMPARE(test::read_bytes(into / plan.artifact(code)->check.destination), hostile.content);
        QCOMPARE(files(into).size(), std::size_t{2});
        QVERIFY(!fs::exists(marker));
    }

    void aValueThatDoesNotDecodeIsNamedAndNotPulled() {
        const std::string key = "f" + std::string(51, 'j');
        const std::string redisKey = "pt2:fx-graph-v1::" + key + ":c1";
        auto client = remote::RedisClient::connect(server_.endpoint());
        QVERIFY_RESULT(client);
        QVERIFY_RESULT(client->set(redisKey, "not JSON at all", remote::SetMode::Always));

        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "into";
        JobPool jobs;
        PullDialog dialog(jobs, server_.endpoint(), {key, std::string(test::kForward)}, {}, into);
        QSignalSpy stages(&dialog.job(), &JobTracker::progress);
        QSignalSpy planned(&dialog, &PullDialog::planned);
        QVERIFY(planned.wait(30'000));
        // The dialog's status line follows the stages: a dry run only reads.
        QVERIFY(!stages.isEmpty());
        QCOMPARE(stages.last().at(2).toString(),
                 QStringLiteral("Reading 2 values from %1…")
                     .arg(QString::fromStdString(server_.endpoint().display())));
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        // The good entry is planned; the bad value is named under the table.
        QCOMPARE(dialog.plan()->count(bundle::ImportAction::Write), std::size_t{1});
        QVERIFY2(dialog.notesText().contains(
                     QStringLiteral("Not pulled: %1: ").arg(QString::fromStdString(redisKey))) &&
                     dialog.notesText().contains(QStringLiteral("not JSON")),
                 qPrintable(dialog.notesText()));
        QVERIFY2(dialog.summaryText().contains(QStringLiteral("1 not pulled")),
                 qPrintable(dialog.summaryText()));
        QVERIFY(dialog.canPull());

        dialog.confirmAndPull(false);
        QSignalSpy pulled(&dialog, &PullDialog::pulled);
        QVERIFY(pulled.wait(30'000));
        QCOMPARE(
            stages.last().at(2).toString(),
            QStringLiteral("Writing 1 file into %1…").arg(QString::fromStdString(into.string())));
    }

    void aConflictIsLeftAloneWithoutForce() {
        // Someone else's graph under the forward key; the backward key is gone.
        auto client = remote::RedisClient::connect(server_.endpoint());
        QVERIFY_RESULT(client);
        const std::string forwardKey = fxRedisKey(test::kForward);
        const QByteArray otherGraph =
            test::read_file(test::fixture("devset/cache") / devsetFxFile(test::kBackward));
        const std::string theirs = remote::encode_value(otherGraph.toStdString(), 7);
        QVERIFY_RESULT(client->set(forwardKey, theirs, remote::SetMode::Always));
        QVERIFY_RESULT(client->del(fxRedisKey(test::kBackward)));

        QTemporaryDir temp;
        MainWindow window(temp.filePath("catalog.sqlite"));
        window.show();
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {test::fixture("devset/cache")};
        request.openRedis = {url()};
        window.runStartupRequest(request);
        QVERIFY(done.wait(120'000));
        // The Redis root is shown: without the deleted key, and without the
        // forward key's value, which the importer refuses (not its graph).
        QTRY_COMPARE(window.browsePage()->entryModel()->rowCount(), 17);
        QTRY_VERIFY(window.browsePage()->banner()->isVisible());
        QVERIFY2(window.browsePage()->banner()->text().contains(QStringLiteral("refused")),
                 qPrintable(window.browsePage()->banner()->text()));

        // Browse the local dir and select its forward and backward graphs.
        QTreeView* sidebar = nullptr;
        for (auto* tree : window.findChildren<QTreeView*>()) {
            if (qobject_cast<RootLabelsModel*>(tree->model()) != nullptr) {
                sidebar = tree;
            }
        }
        QVERIFY(sidebar != nullptr);
        const QString local = location(test::fixture("devset/cache"));
        QModelIndex localRow;
        for (int row = 0; row < sidebar->model()->rowCount(); ++row) {
            const QModelIndex index = sidebar->model()->index(row, 0);
            if (location(index.data(RootsModel::RootPathRole).toString().toStdString()) == local) {
                localRow = index;
            }
        }
        QVERIFY(localRow.isValid());
        sidebar->selectionModel()->setCurrentIndex(localRow, QItemSelectionModel::ClearAndSelect |
                                                                 QItemSelectionModel::Rows);
        QTRY_VERIFY(window.browsePage()->entryModel()->rowCount() > 19 &&
                    !window.browsePage()->entryModel()->isLoading());
        QItemSelection selection;
        for (int row = 0; row < window.browsePage()->entryModel()->rowCount(); ++row) {
            const QModelIndex key =
                window.browsePage()->entryModel()->index(row, EntryTableModel::Key);
            const QString kind = window.browsePage()
                                     ->entryModel()
                                     ->index(row, EntryTableModel::Kind)
                                     .data()
                                     .toString();
            if (kind == QStringLiteral("fxgraph") &&
                (key.data().toString() == QLatin1String(test::kForward) ||
                 key.data().toString() == QLatin1String(test::kBackward))) {
                selection.select(key, key);
            }
        }
        QCOMPARE(selection.size(), 2);
        window.browsePage()->entryTable()->selectionModel()->select(
            selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);

        window.dialogs()->openPush();
        PushDialog* dialog = window.dialogs()->pushDialog();
        QVERIFY(dialog != nullptr);
        QCOMPARE(location(dialog->sourceDir()), local);
        QCOMPARE(std::set<std::string>(dialog->keys().begin(), dialog->keys().end()),
                 (std::set<std::string>{test::kForward, test::kBackward}));
        // The Redis root shown is the server offered.
        QVERIFY(dialog->server().has_value());
        QCOMPARE(QString::fromStdString(dialog->server()->display()), displayUrl());
        QAbstractItemModelTester tester(dialog->table()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy planned(dialog, &PushDialog::planned);
        QSignalSpy pushed(dialog, &PushDialog::pushed);
        QVERIFY(planned.wait(30'000));
        QVERIFY2(dialog->errorText().isEmpty(), qPrintable(dialog->errorText()));
        const PushPlanModel* plan = dialog->plan();
        // The two graphs, and the AOT entry linking them (export closes over
        // AOT/FX links), which the server holds already.
        QCOMPARE(plan->rowCount(), 3);
        QCOMPARE(plan->count(remote::PushAction::Conflict), std::size_t{1});
        QCOMPARE(plan->count(remote::PushAction::Set), std::size_t{1});
        QCOMPARE(plan->count(remote::PushAction::AlreadyThere), std::size_t{1});
        const auto rowOf = [plan](const char* key) {
            for (int row = 0; row < plan->rowCount(); ++row) {
                if (plan->index(row, PushPlanModel::KeyColumn).data().toString() ==
                    QLatin1String(key)) {
                    return row;
                }
            }
            return -1;
        };
        QCOMPARE(plan->index(rowOf(test::kForward), PushPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("conflict"));
        QCOMPARE(plan->index(rowOf(test::kBackward), PushPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("would set"));
        QVERIFY2(dialog->summaryText().contains(QStringLiteral("1 to set, 1 already there, "
                                                               "1 conflict")),
                 qPrintable(dialog->summaryText()));
        QCOMPARE(dialog->confirmationText(),
                 QStringLiteral("Set 1 key on %1? 1 key holds other data and is left alone "
                                "(Force replaces it).")
                     .arg(displayUrl()));
        QVERIFY(dialog->canPush());

        QSignalSpy remirrored(window.roots(), &RootJobs::redisRootAdded);
        dialog->confirmAndPush(false);
        QVERIFY(pushed.wait(30'000));
        QCOMPARE(plan->count(remote::PushAction::Set), std::size_t{1});
        QCOMPARE(plan->count(remote::PushAction::Conflict), std::size_t{1});
        QCOMPARE(plan->index(rowOf(test::kBackward), PushPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("set"));
        // Nothing replaced: theirs is still there, ours is there for the key that was free.
        auto stored = client->get(forwardKey);
        QVERIFY_RESULT(stored);
        QCOMPARE(stored->value_or(""), theirs);
        auto backward = client->get(fxRedisKey(test::kBackward));
        QVERIFY_RESULT(backward);
        QVERIFY(backward->has_value());
        // The server's root is mirrored again: the backward graph is back in it.
        QVERIFY(remirrored.wait(60'000));
        QTRY_COMPARE(window.browsePage()->entryModel()->rowCount(), 18);

        // With Force: the conflict is replaced by the local graph.
        dialog->setForce(true);
        QVERIFY(planned.wait(30'000));
        QCOMPARE(plan->count(remote::PushAction::Replaced), std::size_t{1});
        QCOMPARE(plan->count(remote::PushAction::AlreadyThere), std::size_t{2});
        QCOMPARE(plan->index(rowOf(test::kForward), PushPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("would replace"));
        QVERIFY(dialog->canPush());
        dialog->confirmAndPush(false);
        QVERIFY(pushed.wait(30'000));
        QCOMPARE(plan->count(remote::PushAction::Replaced), std::size_t{1});
        stored = client->get(forwardKey);
        QVERIFY_RESULT(stored);
        auto value = remote::decode_value(remote::CacheKind::FxGraph, stored->value_or(""));
        QVERIFY_RESULT(value);
        QCOMPARE(QByteArray::fromStdString(value->payload),
                 test::read_file(test::fixture("devset/cache") / devsetFxFile(test::kForward)));
        // And mirrored again: every devset entry is in the Redis root now.
        QVERIFY(remirrored.wait(60'000));
        QTRY_COMPARE(window.browsePage()->entryModel()->rowCount(), 19);
    }

    void aStoppedServerIsAnErrorAndAddsNothing() {
        QTemporaryDir temp;
        const QString catalogPath = temp.filePath("catalog.sqlite");
        server_.stop();
        MainWindow window(catalogPath);
        window.show();
        window.dialogs()->openRedis(url());
        RedisDialog* dialog = window.dialogs()->redisDialog();
        QVERIFY(dialog != nullptr);
        QSignalSpy failed(dialog, &RedisDialog::failed);
        QSignalSpy added(window.roots(), &RootJobs::redisRootAdded);
        dialog->connectNow();
        QVERIFY(failed.wait(30'000));
        QVERIFY2(dialog->errorText().contains(QStringLiteral("connection refused")),
                 qPrintable(dialog->errorText()));
        QVERIFY(dialog->errorText().contains(displayUrl()));
        QVERIFY(!dialog->isBusy());
        QVERIFY(dialog->isVisible()); // the error stays to be read
        QCOMPARE(added.size(), 0);
        QTRY_VERIFY(window.jobs().isIdle());
        auto* labels = window.findChild<RootLabelsModel*>();
        QCOMPARE(labels->rowCount(), 0);
        QVERIFY(!fs::exists(remote_work::mirrorBase(catalogPath.toStdString())));

        // A URL that does not parse: the engine's words, at once.
        dialog->setUrl(QStringLiteral("redis://localhost:notaport"));
        dialog->connectNow();
        QCOMPARE(failed.size(), 2);
        QVERIFY2(dialog->errorText().contains(QStringLiteral("notaport")),
                 qPrintable(dialog->errorText()));

        // --open redis://... at start: the error in the status bar, no root.
        QSignalSpy done(&window, &MainWindow::requestDone);
        StartupRequest request;
        request.openRedis = {url()};
        window.runStartupRequest(request);
        QVERIFY(done.wait(60'000));
        QVERIFY2(window.statusText().contains(QStringLiteral("Cannot add the Redis server")),
                 qPrintable(window.statusText()));
        QCOMPARE(labels->rowCount(), 0);
    }

    void mirroringStopsWhenCancelled() {
        QTemporaryDir temp;
        const fs::path catalogPath = temp.filePath("catalog.sqlite").toStdString();
        // Stopped while scanning (what Cancel and the dialog's Stop do): nothing mirrored.
        std::vector<remote_work::MirrorStage> stages;
        const auto stopped = remote_work::mirrorServer(
            endpoint(), catalogPath, [&stages](remote_work::MirrorStage stage, std::size_t) {
                stages.push_back(stage);
                return stage != remote_work::MirrorStage::Scanning;
            });
        QVERIFY(!stopped);
        QVERIFY(stopped.error().kind == ErrorKind::Cancelled);
        QCOMPARE(stages.front(), remote_work::MirrorStage::Connecting);
        QCOMPARE(stages.back(), remote_work::MirrorStage::Scanning);
        QVERIFY(!fs::exists(remote_work::mirrorBase(catalogPath)));

        // Stopped once the keys are known, before their values are read: nothing either.
        const auto late = remote_work::mirrorServer(
            endpoint(), catalogPath, [](remote_work::MirrorStage stage, std::size_t) {
                return stage != remote_work::MirrorStage::Pulling;
            });
        QVERIFY(!late);
        QVERIFY(late.error().kind == ErrorKind::Cancelled);
        QVERIFY(!fs::exists(remote_work::mirrorBase(catalogPath)));

        // Not stopped: every stage reported, the keys counted, the dir filled.
        std::size_t found = 0;
        const auto mirrored = remote_work::mirrorServer(
            endpoint(), catalogPath, [&found](remote_work::MirrorStage stage, std::size_t keys) {
                if (stage == remote_work::MirrorStage::Pulling) {
                    found = keys;
                }
                return true;
            });
        QVERIFY2(mirrored, mirrored ? "" : mirrored.error().describe().c_str());
        QCOMPARE(found, std::size_t{19});
        QCOMPARE(mirrored->keys, std::size_t{19});
        QCOMPARE(mirrored->pulled, std::size_t{19});
        QCOMPARE(files(mirrored->root).size(), std::size_t{19});
        QCOMPARE(remote_work::mirrorOrigin(mirrored->root), std::optional(displayUrl()));
        QCOMPARE(mirrored->summary(), QStringLiteral("19 keys on %1: 19 pulled, 0 unchanged, "
                                                     "0 removed")
                                          .arg(displayUrl()));
    }

    void thePushModelOverADryRun() {
        PushPlanModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.summaryText().isEmpty());
        QCOMPARE(server_.command({"DEL", fxRedisKey(test::kForward)}), std::string(":1"));
        auto client = remote::RedisClient::connect(server_.endpoint());
        QVERIFY_RESULT(client);
        auto result =
            remote::push_local(*client, test::fixture("devset/cache"),
                               {.keys = {}, .dry_run = true, .force = false, .progress = {}});
        QVERIFY_RESULT(result);
        model.setResult(*result, true, displayUrl());
        QCOMPARE(model.rowCount(), 19);
        QCOMPARE(model.columnCount(), int(PushPlanModel::ColumnCount));
        QCOMPARE(model.count(remote::PushAction::Set), std::size_t{1});
        QCOMPARE(model.count(remote::PushAction::AlreadyThere), std::size_t{18});
        QCOMPARE(model.summaryText(),
                 QStringLiteral("19 entries to %1: 1 to set, 18 already there, 0 conflicts")
                     .arg(displayUrl()));
        int forward = -1;
        for (int row = 0; row < model.rowCount(); ++row) {
            if (model.item(row)->key.key == test::kForward) {
                forward = row;
            }
        }
        QVERIFY(forward >= 0);
        QCOMPARE(model.index(forward, PushPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("would set"));
        QCOMPARE(model.index(forward, PushPlanModel::ActionColumn)
                     .data(PushPlanModel::ActionRole)
                     .toInt(),
                 int(remote::PushAction::Set));
        QCOMPARE(model.index(forward, PushPlanModel::CacheColumn).data().toString(),
                 QStringLiteral("fx-graph"));
        QCOMPARE(model.index(forward, PushPlanModel::RedisKeyColumn).data().toString(),
                 QString::fromStdString(fxRedisKey(test::kForward)));
        QCOMPARE(model.index(forward, PushPlanModel::SourceColumn).data().toString(),
                 QString::fromStdString(devsetFxFile(test::kForward)));
        QVERIFY(model.index(forward, PushPlanModel::KeyColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QString::fromStdString(fxRedisKey(test::kForward))));
        // After the push: what was set, tinted as passing.
        model.setResult(*result, false, displayUrl());
        QCOMPARE(model.index(forward, PushPlanModel::ActionColumn).data().toString(),
                 QStringLiteral("set"));
        QVERIFY(model.index(forward, 0).data(Qt::BackgroundRole).isValid());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

private:
    QString url() const { return QStringLiteral("redis://127.0.0.1:%1").arg(server_.port()); }
    QString displayUrl() const {
        return QStringLiteral("redis://127.0.0.1:%1/0").arg(server_.port());
    }
    remote::RedisEndpoint endpoint() const { return server_.endpoint(); }

    QTemporaryDir home_;
    test::RedisServer server_;
};

QTEST_MAIN(TestRemoteUi)
#include "tst_remote_ui.moc"
