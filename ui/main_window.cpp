#include "main_window.h"

#include "dialogs/dialog_launcher.h"
#include "dialogs/tune_dialog.h"
#include "jobs/root_follower.h"
#include "jobs/root_jobs.h"
#include "models/entry_table_model.h"
#include "pages/bench_page.h"
#include "pages/browse_page.h"
#include "pages/compare_page.h"
#include "pages/live_page.h"
#include "pages/serving_page.h"
#include "pages/stats_page.h"
#include "pages/warm_start_page.h"
#include "pages/why_page.h"
#include "startup_script.h"
#include "text/engine_text.h"
#include "widgets/recent_roots_menu.h"
#include "widgets/root_jobs_progress.h"

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/serving/serving_tree.h>
#include <cachelens/watch/cache_watch.h>

#include <QAction>
#include <QCloseEvent>
#include <QDialog>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <map>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

QAction* withTip(QAction* action, const QString& toolTip) {
    action->setToolTip(toolTip);
    return action;
}

bool isGraphEntry(const EntryRef& ref) {
    return ref.entry.kind == cachedir::FileKind::FxGraph ||
           ref.entry.kind == cachedir::FileKind::AotAutograd;
}

} // namespace

MainWindow::MainWindow(QString catalogPath, QWidget* parent)
    : QMainWindow(parent)
    , catalogPath_(std::move(catalogPath))
    , roots_(new RootJobs(pool_, catalogPath_, this))
    , pages_(new QTabWidget)
    , browse_(new BrowsePage(pool_, catalogPath_, *roots_))
    , compare_(new ComparePage(pool_))
    , why_(new WhyPage(pool_))
    , stats_(new StatsPage(pool_, catalogPath_))
    , bench_(new BenchPage(pool_, catalogPath_))
    , warmStart_(new WarmStartPage(pool_))
    , serving_(new ServingPage(pool_))
    , live_(new LivePage(pool_))
    , follower_(new RootFollower(pool_, this))
    , dialogs_(new DialogLauncher(pool_, catalogPath_, *browse_, *roots_, this))
    , startup_(new StartupScript(*this)) {
    setWindowTitle(tr("cachelens"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/cachelens.svg")));
    pages_->setDocumentMode(true);
    pages_->addTab(browse_, tr("Browse"));
    pages_->addTab(compare_, tr("Compare"));
    pages_->addTab(why_, tr("Why missed"));
    pages_->addTab(stats_, tr("Stats"));
    pages_->addTab(bench_, tr("Benchmarks"));
    pages_->addTab(warmStart_, tr("Warm start"));
    pages_->addTab(serving_, tr("Serving"));
    pages_->addTab(live_, tr("Live"));
    setCentralWidget(pages_);

    buildMenus();
    buildStatusBar();
    connectPages();

    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    browse_->restoreSettings(settings);
}

MainWindow::~MainWindow() {
    pool_.cancelAll();
    pool_.waitForAll();
    // The dialogs hold pool_ and use it as they close: they go while it is still here,
    // not with the rest of the children after the members.
    qDeleteAll(findChildren<QDialog*>(Qt::FindDirectChildrenOnly));
}

void MainWindow::connectPages() {
    connect(pages_, &QTabWidget::currentChanged, this, [this](int page) {
        if (page == static_cast<int>(Page::Stats)) {
            stats_->showRoot(browse_->filterRoot());
        } else if (page == static_cast<int>(Page::Bench)) {
            showBenchRoot();
        }
    });
    connect(browse_, &BrowsePage::statusMessage, this, &MainWindow::showStatus);
    connect(compare_, &ComparePage::statusMessage, this, &MainWindow::showStatus);
    connect(why_, &WhyPage::statusMessage, this, &MainWindow::showStatus);
    connect(stats_, &StatsPage::statusMessage, this, &MainWindow::showStatus);
    connect(bench_, &BenchPage::statusMessage, this, &MainWindow::showStatus);
    connect(warmStart_, &WarmStartPage::statusMessage, this, &MainWindow::showStatus);
    connect(serving_, &ServingPage::statusMessage, this, &MainWindow::showStatus);
    connect(live_, &LivePage::statusMessage, this, &MainWindow::showStatus);
    connect(follower_, &RootFollower::changed, this, &MainWindow::indexFollowed);
    connect(follower_, &RootFollower::failed, this, [this](const QString& message) {
        setFollowing(false);
        showError(tr("Cannot follow the changes: %1").arg(message));
    });
    connect(browse_, &BrowsePage::actionRootChanged, this, [this] {
        if (isFollowing()) {
            setFollowing(true); // the root now open
        }
    });
    connect(live_, &LivePage::whyRequested, this,
            [this](const EntryRef& fxEntry, const std::vector<fs::path>& searchRoots) {
                why_->explain(fxEntry, searchRoots);
                showPage(Page::Why);
            });
    connect(live_, &LivePage::entryRequested, this,
            [this](const QString& root, const QString& path) {
                showPage(Page::Browse);
                browse_->selectEntryIn(root.toStdString(), path);
            });
    // The dir open on Browse is the one to watch, until the user picks another.
    connect(browse_, &BrowsePage::actionRootChanged, this, [this] {
        if (const auto root = browse_->actionRoot()) {
            live_->suggestCacheDir(*root);
        }
    });
    connect(browse_, &BrowsePage::actionRootChanged, this, &MainWindow::showServingRoot);
    connect(browse_, &BrowsePage::servingSelected, this,
            [this](const fs::path& root, const QString& relative) {
                showPage(Page::Serving);
                const auto location = serving::locate_serving_tree(root);
                const auto* shown = serving_->tree();
                if (location && shown != nullptr && location->root == shown->root) {
                    serving_->select(relative);
                } else if (location) {
                    serving_->setRoot(location->root / relative.toStdString());
                }
            });
    connect(dialogs_, &DialogLauncher::servingPruneRequested, this, [this](const fs::path& root) {
        showPage(Page::Serving);
        serving_->setRoot(root);
        connect(
            serving_, &ServingPage::loaded, serving_, [this] { serving_->askPrune(); },
            Qt::SingleShotConnection);
    });
    connect(warmStart_, &WarmStartPage::whyRequested, this,
            [this](const EntryRef& fxEntry, const std::vector<fs::path>& searchRoots) {
                why_->explain(fxEntry, searchRoots);
                showPage(Page::Why);
            });
    connect(roots_, &RootJobs::statusMessage, this, &MainWindow::showStatus);
    connect(dialogs_, &DialogLauncher::statusMessage, this, &MainWindow::showStatus);
    connect(browse_, &BrowsePage::failed, this, &MainWindow::showError);
    connect(browse_, &BrowsePage::showRequested, this, [this] { showPage(Page::Browse); });
    connect(browse_, &BrowsePage::selectionChanged, this, &MainWindow::updateActions);
    connect(browse_, &BrowsePage::actionRootChanged, this, &MainWindow::updateActions);
    connect(browse_, &BrowsePage::entryShown, this, &MainWindow::updateActions);
    connect(browse_, &QWidget::windowTitleChanged, this,
            [this](const QString& key) { setWindowTitle(tr("%1 — cachelens").arg(key)); });
    connect(browse_, &BrowsePage::importRequested, this, [this] { dialogs_->openImport(); });
    connect(browse_, &BrowsePage::pullRequested, this, [this] { dialogs_->openPull(); });
    connect(browse_, &BrowsePage::refreshRequested, roots_, &RootJobs::refreshRedisRoot);
    // The Benchmarks page's cache dir may be the only one, known once the roots are read.
    connect(browse_, &BrowsePage::actionRootChanged, this, [this] {
        if (pages_->currentIndex() == static_cast<int>(Page::Bench)) {
            showBenchRoot();
        }
    });

    connect(roots_, &RootJobs::failed, this, &MainWindow::showError);
    connect(roots_, &RootJobs::rootsChanged, browse_, &BrowsePage::refresh);
    connect(roots_, &RootJobs::rootIndexed, recentMenu_, &RecentRootsMenu::add);
    const auto browseRoot = [this](const QString& root) {
        browse_->browseRoot(root.toStdString());
    };
    connect(roots_, &RootJobs::bundleOpened, browse_, browseRoot);
    connect(roots_, &RootJobs::redisRootAdded, browse_, browseRoot);
    connect(dialogs_, &DialogLauncher::entriesChanged, browse_, &BrowsePage::refresh);

    connect(why_, &WhyPage::compareRequested, this, &MainWindow::showComparison);
    connect(stats_, &StatsPage::pruneRequested, this,
            [this](const fs::path& root) { dialogs_->openPrune({}, root); });
    connect(stats_, &StatsPage::entryActivated, browse_,
            [this](const QString& root, const QString& path) {
                browse_->selectEntryIn(root.toStdString(), path);
            });
    connect(startup_, &StartupScript::done, this, &MainWindow::requestDone);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(style()->standardIcon(QStyle::SP_DirOpenIcon), tr("&Open cache dir…"),
                    QKeySequence::Open, dialogs_, &DialogLauncher::chooseCacheDir);
    withTip(file->addAction(tr("Open &bundle…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
                            dialogs_, &DialogLauncher::chooseBundle),
            tr("Browse a PyTorch mega-cache bundle (or a signed one) like a cache dir, before "
               "importing it"));
    withTip(file->addAction(tr("Open &file…"), dialogs_, [this] { dialogs_->chooseFile(); }),
            tr("Read one file on its own, read-only: an OnDiskCache value or an InMemoryCache "
               "file (torch/_inductor/cache.py)"));
    withTip(file->addAction(tr("Read InMemoryCache &variable…"), dialogs_,
                            &DialogLauncher::askVariableValue),
            tr("Read the value of an InMemoryCache variable (InMemoryCache.from_env_var)"));
    withTip(file->addAction(style()->standardIcon(QStyle::SP_DriveNetIcon),
                            tr("Add &Redis server…"), this, [this] { dialogs_->openRedis(); }),
            tr("Browse PyTorch's remote cache on a Redis server as one more root (mirrored "
               "read-only beside the catalog)"));
    actions_.refreshRedis = withTip(
        file->addAction(tr("Re&fresh Redis server"), QKeySequence(Qt::SHIFT | Qt::Key_F5), this,
                        [this] {
                            if (const auto root = browse_->actionRoot()) {
                                roots_->refreshRedisRoot(*root);
                            }
                        }),
        tr("Mirror the selected Redis root's server again: new entries pulled, entries gone "
           "from it removed"));
    recentMenu_ = new RecentRootsMenu(tr("Open &recent"), file);
    file->addMenu(recentMenu_);
    connect(recentMenu_, &RecentRootsMenu::rootChosen, roots_,
            [this](const QString& root) { roots_->index(root.toStdString()); });
    file->addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Index again"),
                    QKeySequence::Refresh, this, [this] {
                        for (const auto& root : browse_->rootDirs()) {
                            roots_->index(root);
                        }
                    });
    actions_.prune = file->addAction(tr("&Prune…"), this, [this] { dialogs_->openPrune(); });
    file->addSeparator();
    withTip(file->addAction(tr("&Import bundle…"), QKeySequence(Qt::CTRL | Qt::Key_I), this,
                            [this] { dialogs_->openImport(); }),
            tr("Import the selected bundle (or one you choose) into a cache dir, after its "
               "safety report"));
    actions_.export_ = file->addAction(tr("&Export selection…"), QKeySequence(Qt::CTRL | Qt::Key_E),
                                       this, [this] { dialogs_->openExport(); });
    actions_.pull = withTip(file->addAction(tr("P&ull to cache dir…"),
                                            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U), this,
                                            [this] { dialogs_->openPull(); }),
                            tr("Write the selected entries of a Redis root into a cache dir, "
                               "where PyTorch writes a remote hit"));
    actions_.push = withTip(file->addAction(tr("Pus&h to Redis…"),
                                            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this,
                                            [this] { dialogs_->openPush(); }),
                            tr("Store the selected entries (or the whole cache dir) on a Redis "
                               "server, as PyTorch stores them; a dry run first"));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("&Find"), QKeySequence::Find, this, [this] {
        showPage(Page::Browse);
        browse_->focusSearch();
    });
    QAction* copyKey =
        edit->addAction(tr("Copy &key"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this,
                        [this] { browse_->copyFromSelection(EntryTableModel::Key); });
    QAction* copyPath =
        edit->addAction(tr("Copy &path"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C), this,
                        [this] { browse_->copyFromSelection(EntryTableModel::Path); });

    QMenu* entry = menuBar()->addMenu(tr("E&ntry"));
    actions_.compare =
        entry->addAction(tr("&Compare the two selected"), QKeySequence(Qt::CTRL | Qt::Key_D), this,
                         &MainWindow::compareSelection);
    actions_.why = entry->addAction(tr("&Why did this miss?"), QKeySequence(Qt::CTRL | Qt::Key_Y),
                                    this, &MainWindow::explainCurrent);
    browse_->addTableActions({actions_.export_, actions_.pull, actions_.push, copyKey, copyPath,
                              actions_.compare, actions_.why});

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const std::pair<Page, QString> pages[] = {{Page::Browse, tr("&Browse")},
                                              {Page::Compare, tr("&Compare")},
                                              {Page::Why, tr("&Why missed")},
                                              {Page::Stats, tr("&Stats")},
                                              {Page::Bench, tr("Bench&marks")}};
    for (const auto& [page, title] : pages) {
        view->addAction(title, QKeySequence(Qt::CTRL | (Qt::Key_1 + static_cast<int>(page))), this,
                        [this, page] { showPage(page); });
    }
    view->addAction(tr("W&arm start"), QKeySequence(Qt::CTRL | Qt::Key_6), this,
                    [this] { showPage(Page::WarmStart); });
    view->addAction(tr("Se&rving"), QKeySequence(Qt::CTRL | Qt::Key_7), this,
                    [this] { showPage(Page::Serving); });
    view->addAction(tr("&Live"), QKeySequence(Qt::CTRL | Qt::Key_8), this,
                    [this] { showPage(Page::Live); });
    view->addSeparator();
    actions_.follow =
        withTip(view->addAction(tr("&Follow changes"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                                [this](bool checked) { setFollowing(checked); }),
                tr("Index the dir open on Browse again as PyTorch writes it (only what is new is "
                   "parsed); rows written since are in bold"));
    actions_.follow->setCheckable(true);
    // The way back from one root to all: entries of two roots (a Redis
    // server's and a local dir's) can then be selected together and compared.
    withTip(view->addAction(tr("&All cache dirs"), QKeySequence(Qt::CTRL | Qt::Key_0), this,
                            [this] {
                                showPage(Page::Browse);
                                browse_->browseAllRoots();
                            }),
            tr("Show the entries of every cache dir, bundle and Redis server"));

    menuBar()
        ->addMenu(tr("&Help"))
        ->addAction(tr("&About cachelens"), dialogs_, &DialogLauncher::showAbout);
    for (QAction* action : {actions_.export_, actions_.pull, actions_.refreshRedis}) {
        action->setEnabled(false); // until a selection or a root they apply to
    }
}

void MainWindow::buildStatusBar() {
    statusText_ = new QLabel;
    statusText_->setTextFormat(Qt::PlainText);
    statusBar()->addWidget(statusText_, 1);
    statusBar()->addPermanentWidget(new RootJobsProgress(*roots_));
    connect(roots_, &RootJobs::progress, this, [this](qint64, qint64, const QString& what) {
        if (!what.isEmpty()) {
            showStatus(what);
        }
    });
}

// What the actions apply to follows the selection and the root shown.
void MainWindow::updateActions() {
    const auto refs = browse_->selectedEntries();
    actions_.compare->setEnabled(refs.size() == 2);
    actions_.export_->setEnabled(std::ranges::any_of(refs, isGraphEntry));
    // Asked once per root, not per row: a selection may hold thousands.
    std::map<fs::path, bool> redisRoots;
    actions_.pull->setEnabled(std::ranges::any_of(refs, [&](const EntryRef& ref) {
        if (!isGraphEntry(ref)) {
            return false;
        }
        auto known = redisRoots.find(ref.root);
        if (known == redisRoots.end()) {
            known = redisRoots.emplace(ref.root, roots_->isRedisRoot(ref.root)).first;
        }
        return known->second;
    }));
    const auto current = browse_->currentEntry();
    actions_.why->setEnabled(!current || current->entry.kind == cachedir::FileKind::FxGraph);
    const auto root = browse_->actionRoot();
    const bool redis = root && roots_->isRedisRoot(*root);
    actions_.prune->setEnabled(!root || !roots_->isReadOnlyRoot(*root));
    actions_.refreshRedis->setEnabled(redis);
}

void MainWindow::showServingRoot() {
    const auto root = browse_->actionRoot();
    const auto location = root ? serving::locate_serving_tree(*root) : std::nullopt;
    if (!location) {
        return;
    }
    if (const auto* shown = serving_->tree(); shown == nullptr || location->root != shown->root) {
        serving_->setRoot(*root);
    }
}

void MainWindow::showPage(Page page) {
    pages_->setCurrentIndex(static_cast<int>(page));
}

void MainWindow::showComparison(const EntryRef& left, const EntryRef& right) {
    compare_->compare(left, right);
    showPage(Page::Compare);
}

void MainWindow::compareSelection() {
    const auto refs = browse_->selectedEntries();
    if (refs.size() != 2) {
        showStatus(tr("Select two FX graph entries to compare (Ctrl+click)."));
        return;
    }
    showComparison(refs[0], refs[1]);
}

bool MainWindow::compareWith(const QString& query) {
    const auto current = browse_->currentEntry();
    if (!current) {
        return false;
    }
    browse_->findGraphToCompare(
        query, [this, current = *current, query](std::optional<EntryRef> other) {
            if (!other) {
                showStatus(tr("No FX graph entry %1 to compare with").arg(query));
                return;
            }
            showComparison(current, *other);
        });
    return true;
}

void MainWindow::explainCurrent() {
    const auto current = browse_->currentEntry();
    if (!current || current->entry.kind != cachedir::FileKind::FxGraph) {
        showStatus(tr("Select an FX graph entry to see why it missed."));
        return;
    }
    why_->explain(*current, browse_->rootDirs());
    showPage(Page::Why);
}

void MainWindow::showBenchRoot() {
    const auto root = browse_->actionRoot();
    if (root && roots_->isReadOnlyRoot(*root)) {
        bench_->showReadOnlyRoot(*root);
    } else {
        bench_->showRoot(root);
    }
}

void MainWindow::runStartupRequest(const StartupRequest& request) {
    startup_->run(request);
}

QWidget* MainWindow::screenshotTarget() {
    QWidget* dialog = dialogs_->visibleDialog();
    if (dialog == nullptr && benchPage()->tuneDialog() != nullptr &&
        benchPage()->tuneDialog()->isVisible()) {
        dialog = benchPage()->tuneDialog();
    }
    return dialog != nullptr ? dialog : this;
}

QString MainWindow::statusText() const {
    return statusText_->text();
}

void MainWindow::showStatus(const QString& message) {
    statusText_->setText(message);
}

// Never modal: an error from background work must not stop the window (or
// the work still running) while it waits for a click.
void MainWindow::showError(const QString& message) {
    statusText_->setText(message);
    auto* box =
        new QMessageBox(QMessageBox::Warning, tr("cachelens"), message, QMessageBox::Ok, this);
    box->setTextFormat(Qt::PlainText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    browse_->saveSettings(settings);
    QMainWindow::closeEvent(event);
}

bool MainWindow::isFollowing() const {
    return follower_->isFollowing();
}

void MainWindow::setFollowing(bool follow) {
    const auto root = follow ? browse_->actionRoot() : std::nullopt;
    if (follow && !root) {
        showStatus(tr("Follow changes: open a cache dir on Browse first."));
    }
    if (root) {
        if (follower_->dir() != *root) {
            follower_->follow(*root);
            browse_->entryModel()->markNewSince(watch::file_clock_now_ns());
            showStatus(tr("Following %1: rows written from now on are in bold.")
                           .arg(text(root->string())));
        }
    } else {
        follower_->stop();
        browse_->entryModel()->markNewSince(std::nullopt);
    }
    actions_.follow->setChecked(follower_->isFollowing());
}

void MainWindow::indexFollowed(const fs::path& dir) {
    if (!follower_->isFollowing() || follower_->dir() != dir) {
        return;
    }
    if (roots_->pending() > 0) {
        // An index (of this dir or another) is under way: look again soon
        // (the changes wait in the follower).
        QTimer::singleShot(300, this, [this, dir] { indexFollowed(dir); });
        return;
    }
    auto changes = follower_->takeChanges();
    if (changes.whole) {
        roots_->index(dir);
    } else if (!changes.paths.empty()) {
        roots_->indexPaths(dir, std::move(changes.paths));
    }
}

} // namespace cachelens::ui
