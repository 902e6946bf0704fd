#include "main_window.h"

#include "dialogs/dialog_launcher.h"
#include "jobs/root_jobs.h"
#include "models/entry_table_model.h"
#include "pages/bench_page.h"
#include "pages/browse_page.h"
#include "pages/compare_page.h"
#include "pages/stats_page.h"
#include "pages/why_page.h"
#include "startup_script.h"
#include "text/engine_text.h"

#include <cachelens/cachedir/file_kind.h>

#include <sqlite3.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QFileDialog>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>

#include <algorithm>
#include <map>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxRecentRoots = 10;

bool isGraphEntry(const EntryRef& ref) {
    return ref.entry.kind == cachedir::FileKind::FxGraph ||
           ref.entry.kind == cachedir::FileKind::AotAutograd;
}

} // namespace

MainWindow::MainWindow(QString catalogPath, QWidget* parent)
    : QMainWindow(parent)
    , catalogPath_(std::move(catalogPath))
    , roots_(new RootJobs(jobs_, catalogPath_, this))
    , pages_(new QTabWidget)
    , browse_(new BrowsePage(jobs_, catalogPath_, *roots_))
    , compare_(new ComparePage(jobs_))
    , why_(new WhyPage(jobs_))
    , stats_(new StatsPage(jobs_, catalogPath_))
    , bench_(new BenchPage(jobs_, catalogPath_))
    , dialogs_(new DialogLauncher(jobs_, catalogPath_, *browse_, *roots_, this))
    , startup_(new StartupScript(*this)) {
    setWindowTitle(tr("cachelens"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/cachelens.svg")));
    pages_->setDocumentMode(true);
    pages_->addTab(browse_, tr("Browse"));
    pages_->addTab(compare_, tr("Compare"));
    pages_->addTab(why_, tr("Why missed"));
    pages_->addTab(stats_, tr("Stats"));
    pages_->addTab(bench_, tr("Benchmarks"));
    setCentralWidget(pages_);

    buildMenus();
    buildStatusBar();
    connectPages();

    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    browse_->restoreSettings(settings);
    recentRoots_ = settings.value("recentRoots").toStringList();
    updateRecentMenu();
}

MainWindow::~MainWindow() {
    jobs_.cancelAll();
    jobs_.waitForAll();
    // The dialogs hold jobs_ and use it as they close: they go while it is still here,
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
    connect(roots_, &RootJobs::rootIndexed, this, &MainWindow::addRecentRoot);
    connect(roots_, &RootJobs::bundleOpened, browse_,
            [this](const QString& root) { browse_->browseRoot(root.toStdString()); });
    connect(roots_, &RootJobs::redisRootAdded, browse_,
            [this](const QString& root) { browse_->browseRoot(root.toStdString()); });
    connect(dialogs_, &DialogLauncher::entriesChanged, browse_, &BrowsePage::refresh);

    connect(why_, &WhyPage::compareRequested, this,
            [this](const EntryRef& left, const EntryRef& right) {
                compare_->compare(left, right);
                showPage(Page::Compare);
            });
    connect(stats_, &StatsPage::pruneRequested, this,
            [this](const fs::path& root) { dialogs_->openPrune({}, root); });
    connect(stats_, &StatsPage::entryActivated, this,
            [this](const QString& root, const QString& path) {
                browse_->setFilterRoot(root.toStdString());
                showPage(Page::Browse);
                browse_->selectEntry(path);
            });
    connect(startup_, &StartupScript::done, this, &MainWindow::requestDone);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open cache dir…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a cache dir"));
        if (!dir.isEmpty()) {
            roots_->index(dir.toStdString());
        }
    });
    open->setShortcut(QKeySequence::Open);
    open->setIcon(style()->standardIcon(QStyle::SP_DirOpenIcon));
    QAction* openBundle = file->addAction(tr("Open &bundle…"), this, [this] {
        const QString bundle =
            QFileDialog::getOpenFileName(this, tr("Open a bundle (browsed read-only)"), {},
                                         tr("Bundles (*.bin);;All files (*)"));
        if (!bundle.isEmpty()) {
            roots_->openBundle(bundle.toStdString());
        }
    });
    openBundle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openBundle->setToolTip(tr("Browse a PyTorch mega-cache bundle (or a signed one) like a "
                              "cache dir, before importing it"));
    QAction* addRedis =
        file->addAction(tr("Add &Redis server…"), this, [this] { dialogs_->openRedis(); });
    addRedis->setIcon(style()->standardIcon(QStyle::SP_DriveNetIcon));
    addRedis->setToolTip(tr("Browse PyTorch's remote cache on a Redis server as one more root "
                            "(mirrored read-only beside the catalog)"));
    actions_.refreshRedis = file->addAction(tr("Re&fresh Redis server"), this, [this] {
        if (const auto root = browse_->actionRoot(); root && roots_->isRedisRoot(*root)) {
            roots_->refreshRedisRoot(*root);
        }
    });
    actions_.refreshRedis->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    actions_.refreshRedis->setToolTip(tr("Mirror the selected Redis root's server again: new "
                                         "entries pulled, entries gone from it removed"));
    actions_.refreshRedis->setEnabled(false);
    recentMenu_ = file->addMenu(tr("Open &recent"));
    QAction* reindex = file->addAction(tr("&Index again"), this, [this] {
        for (const auto& root : browse_->rootDirs()) {
            roots_->index(root);
        }
    });
    reindex->setShortcut(QKeySequence::Refresh);
    reindex->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    actions_.prune = file->addAction(tr("&Prune…"), this, [this] { dialogs_->openPrune(); });
    file->addSeparator();
    QAction* import =
        file->addAction(tr("&Import bundle…"), this, [this] { dialogs_->openImport(); });
    import->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    import->setToolTip(tr("Import the selected bundle (or one you choose) into a cache "
                          "dir, after its safety report"));
    actions_.export_ =
        file->addAction(tr("&Export selection…"), this, [this] { dialogs_->openExport(); });
    actions_.export_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    actions_.export_->setEnabled(false);
    actions_.pull =
        file->addAction(tr("P&ull to cache dir…"), this, [this] { dialogs_->openPull(); });
    actions_.pull->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U));
    actions_.pull->setToolTip(tr("Write the selected entries of a Redis root into a cache dir, "
                                 "where PyTorch writes a remote hit"));
    actions_.pull->setEnabled(false);
    actions_.push = file->addAction(tr("Pus&h to Redis…"), this, [this] { dialogs_->openPush(); });
    actions_.push->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    actions_.push->setToolTip(tr("Store the selected entries (or the whole cache dir) on a Redis "
                                 "server, as PyTorch stores them; a dry run first"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* find = edit->addAction(tr("&Find"), this, [this] {
        showPage(Page::Browse);
        browse_->focusSearch();
    });
    find->setShortcut(QKeySequence::Find);
    QAction* copyKey = edit->addAction(
        tr("Copy &key"), this, [this] { browse_->copyFromSelection(EntryTableModel::Key); });
    copyKey->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    QAction* copyPath = edit->addAction(
        tr("Copy &path"), this, [this] { browse_->copyFromSelection(EntryTableModel::Path); });
    copyPath->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C));

    QMenu* entry = menuBar()->addMenu(tr("E&ntry"));
    actions_.compare =
        entry->addAction(tr("&Compare the two selected"), this, &MainWindow::compareSelection);
    actions_.compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    actions_.why = entry->addAction(tr("&Why did this miss?"), this, &MainWindow::explainCurrent);
    actions_.why->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Y));
    browse_->addTableActions({actions_.export_, actions_.pull, actions_.push, copyKey, copyPath,
                              actions_.compare, actions_.why});

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const std::pair<Page, QString> pages[] = {{Page::Browse, tr("&Browse")},
                                              {Page::Compare, tr("&Compare")},
                                              {Page::Why, tr("&Why missed")},
                                              {Page::Stats, tr("&Stats")},
                                              {Page::Bench, tr("Bench&marks")}};
    for (const auto& [page, title] : pages) {
        QAction* action = view->addAction(title, this, [this, page] { showPage(page); });
        action->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + static_cast<int>(page))));
    }
    view->addSeparator();
    // The way back from one root to all: entries of two roots (a Redis
    // server's and a local dir's) can then be selected together and compared.
    QAction* allRoots = view->addAction(tr("&All cache dirs"), this, [this] {
        showPage(Page::Browse);
        browse_->browseAllRoots();
    });
    allRoots->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    allRoots->setToolTip(tr("Show the entries of every cache dir, bundle and Redis server"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About cachelens"), this, &MainWindow::showAbout);
}

void MainWindow::buildStatusBar() {
    statusText_ = new QLabel;
    statusText_->setTextFormat(Qt::PlainText);
    progress_ = new QProgressBar;
    progress_->setMaximumWidth(220);
    progress_->hide();
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->hide();
    statusBar()->addWidget(statusText_, 1);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, roots_, &RootJobs::cancel);
    connect(roots_, &RootJobs::busyChanged, this, [this](bool busy) {
        progress_->setRange(0, 0);
        progress_->setVisible(busy);
        cancel_->setVisible(busy);
    });
    connect(roots_, &RootJobs::progress, this,
            [this](qint64 done, qint64 total, const QString& what) {
                progress_->setRange(0, static_cast<int>(total)); // 0: busy
                progress_->setValue(static_cast<int>(done));
                if (!what.isEmpty()) {
                    statusText_->setText(what);
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

void MainWindow::showPage(Page page) {
    pages_->setCurrentIndex(static_cast<int>(page));
}

void MainWindow::compareSelection() {
    const auto refs = browse_->selectedEntries();
    if (refs.size() != 2) {
        showStatus(tr("Select two FX graph entries to compare (Ctrl+click)."));
        return;
    }
    compare_->compare(refs[0], refs[1]);
    showPage(Page::Compare);
}

bool MainWindow::compareWith(const QString& query) {
    const auto current = browse_->currentEntry();
    if (!current) {
        return false;
    }
    const auto other = browse_->findGraphToCompare(query);
    if (!other) {
        showStatus(tr("No FX graph entry %1 to compare with").arg(query));
        return false;
    }
    compare_->compare(*current, *other);
    showPage(Page::Compare);
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
        // `bench accept` would rewrite the staged copy or the mirror (which the
        // next refresh undoes): a bundle or a server is benchmarked once in a cache dir.
        bench_->showRoot(std::nullopt);
        if (roots_->isRedisRoot(*root)) {
            const auto provenance = roots_->provenance(*root);
            showStatus(
                tr("%1 is a Redis server's mirror, browsed read-only: pull its entries "
                   "into a cache dir to benchmark their kernels and change their best "
                   "configs.")
                    .arg(provenance.origin.isEmpty() ? text(root->string()) : provenance.origin));
        } else {
            showStatus(tr("%1 is a bundle, opened read-only: import it into a cache dir to "
                          "benchmark its kernels and change their best configs.")
                           .arg(text(root->filename().string())));
        }
        return;
    }
    bench_->showRoot(root);
}

void MainWindow::runStartupRequest(const StartupRequest& request) {
    startup_->run(request);
}

QWidget* MainWindow::screenshotTarget() {
    QWidget* dialog = dialogs_->visibleDialog();
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

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About cachelens"),
        tr("<h3>cachelens %1</h3>"
           "<p>An inspector and tuner for PyTorch's compile caches: what sits in the Inductor "
           "cache, why a graph missed it, whether a shape would hit it, which kernel configs "
           "won.</p>"
           "<p>Qt %2 · SQLite %3<br>Catalog: %4</p>")
            .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion()),
                 QString::fromLatin1(sqlite3_libversion()), catalogPath_.toHtmlEscaped()));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    browse_->saveSettings(settings);
    settings.setValue("recentRoots", recentRoots_);
    QMainWindow::closeEvent(event);
}

void MainWindow::addRecentRoot(const QString& root) {
    recentRoots_.removeAll(root);
    recentRoots_.prepend(root);
    while (recentRoots_.size() > kMaxRecentRoots) {
        recentRoots_.removeLast();
    }
    updateRecentMenu();
    QSettings().setValue("recentRoots", recentRoots_);
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    for (const QString& root : recentRoots_) {
        recentMenu_->addAction(root, this, [this, root] { roots_->index(root.toStdString()); });
    }
    recentMenu_->setEnabled(!recentRoots_.isEmpty());
}

} // namespace cachelens::ui
