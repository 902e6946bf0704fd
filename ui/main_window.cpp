#include "main_window.h"

#include "jobs/bundle_work.h"
#include "jobs/remote_work.h"
#include "text/engine_text.h"
#include "models/entry_table_model.h"
#include "models/root_labels_model.h"
#include "models/roots_model.h"
#include "text/stats_text.h"
#include "tabs/autotune_tab.h"
#include "pages/bench_page.h"
#include "pages/compare_page.h"
#include "tabs/debug_lines_tab.h"
#include "dialogs/export_dialog.h"
#include "tabs/guards_tab.h"
#include "dialogs/import_dialog.h"
#include "tabs/kernels_tab.h"
#include "tabs/overview_tab.h"
#include "dialogs/prune_dialog.h"
#include "dialogs/pull_dialog.h"
#include "dialogs/push_dialog.h"
#include "dialogs/redis_dialog.h"
#include "tabs/source_tab.h"
#include "pages/stats_page.h"
#include "pages/why_page.h"
#include "widgets/banner.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/format.h>

#include <sqlite3.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDialog>
#include <QFileDialog>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxRecentRoots = 10;

struct LoadedEntry {
    SharedContent content;
    QString error;
};

struct IndexOutcome {
    QString root;
    QString summary;
    QString error;
    bool cancelled = false;
};

const char* const kTabNames[] = {"overview", "debug", "guards", "source", "kernels", "autotune"};
const char* const kViewNames[] = {"browse", "compare", "why",   "stats", "prune",
                                  "bench",  "import",  "redis", "pull",  "push"};

} // namespace

MainWindow::MainWindow(QString catalogPath, QWidget* parent)
    : QMainWindow(parent)
    , catalogPath_(std::move(catalogPath)) {
    setWindowTitle(tr("cachelens"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/cachelens.svg")));
    rootsModel_ = new RootsModel(jobs_, catalogPath_, this);
    stagingBase_ = bundle_work::stagingBase();
    mirrorBase_ = remote_work::mirrorBase(catalogPath_.toStdString());
    rootLabels_ = new RootLabelsModel(stagingBase_, mirrorBase_, this);
    rootLabels_->setSourceModel(rootsModel_);
    entryModel_ = new EntryTableModel(jobs_, catalogPath_, this);

    pages_ = new QTabWidget;
    pages_->setDocumentMode(true);
    buildBrowsePage();
    comparePage_ = new ComparePage(jobs_);
    whyPage_ = new WhyPage(jobs_);
    statsPage_ = new StatsPage(jobs_, catalogPath_);
    benchPage_ = new BenchPage(jobs_, catalogPath_);
    pages_->addTab(comparePage_, tr("Compare"));
    pages_->addTab(whyPage_, tr("Why missed"));
    pages_->addTab(statsPage_, tr("Stats"));
    pages_->addTab(benchPage_, tr("Benchmarks"));
    setCentralWidget(pages_);

    buildActions();
    buildStatusBar();
    restoreSettings();

    connect(pages_, &QTabWidget::currentChanged, this, [this](int page) {
        if (page == static_cast<int>(Page::Stats)) {
            statsPage_->showRoot(filterRoot_);
        } else if (page == static_cast<int>(Page::Bench)) {
            showBenchRoot();
        }
    });
    connect(comparePage_, &ComparePage::statusMessage, statusText_, &QLabel::setText);
    connect(whyPage_, &WhyPage::statusMessage, statusText_, &QLabel::setText);
    connect(whyPage_, &WhyPage::compareRequested, this,
            [this](const EntryRef& left, const EntryRef& right) {
                comparePage_->compare(left, right);
                showPage(Page::Compare);
            });
    connect(statsPage_, &StatsPage::statusMessage, statusText_, &QLabel::setText);
    connect(benchPage_, &BenchPage::statusMessage, statusText_, &QLabel::setText);
    connect(benchPage_, &BenchPage::planFinished, this, [this] { advanceRequest(); });
    connect(statsPage_, &StatsPage::pruneRequested, this, [this](const fs::path& root) {
        filterRoot_ = root;
        openPruneDialog();
    });
    connect(statsPage_, &StatsPage::entryActivated, this,
            [this](const QString& root, const QString& path) {
                filterRoot_ = root.toStdString();
                showPage(Page::Browse);
                selectEntry(path);
            });
    connect(rootsModel_, &RootsModel::failed, this, &MainWindow::showError);
    connect(rootsModel_, &RootsModel::refreshed, this, [this] { sidebar_->expandToDepth(0); });
    // The Benchmarks page's cache dir may be the only one, known once the roots are read.
    connect(rootsModel_, &RootsModel::refreshed, this, [this] {
        if (pages_->currentIndex() == static_cast<int>(Page::Bench)) {
            showBenchRoot();
        }
    });
    // A bundle just opened is selected in the sidebar once the sidebar lists it.
    connect(rootsModel_, &RootsModel::refreshed, this, [this] {
        if (sidebarRoot_) {
            const QModelIndex index =
                rootLabels_->mapFromSource(rootsModel_->indexOfRoot(*sidebarRoot_));
            if (index.isValid()) {
                sidebarRoot_.reset();
                sidebar_->selectionModel()->setCurrentIndex(
                    index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            }
        }
        updateRootActions();
    });
    connect(this, &MainWindow::rootIndexed, this, &MainWindow::onBundleIndexed);
    connect(entryModel_, &EntryTableModel::failed, this, &MainWindow::showError);
    connect(entryModel_, &EntryTableModel::loaded, this, [this](int rows, qint64 elapsedMs) {
        tableSummary_->setText(tr("%n entries", nullptr, rows) + tr(" (%1 ms)").arg(elapsedMs));
        if (pendingSelection_) {
            if (auto row = entryModel_->rowOfId(*pendingSelection_)) {
                selectOnly(*row);
            }
            pendingSelection_.reset();
        }
        advanceRequest();
    });
    connect(&jobs_, &JobRunner::finished, this, [this] { advanceRequest(); });
    connect(this, &MainWindow::entryShown, this, [this] {
        waitingForEntry_ = false;
        advanceRequest();
    });

    rootsModel_->refresh();
    entryModel_->refresh();
}

MainWindow::~MainWindow() {
    jobs_.cancelAll();
    jobs_.waitForAll();
    // The dialogs hold jobs_ and use it as they close: they go while it is still here,
    // not with the rest of the children after the members.
    qDeleteAll(findChildren<QDialog*>(Qt::FindDirectChildrenOnly));
}

void MainWindow::buildBrowsePage() {
    sidebar_ = new QTreeView;
    sidebar_->setModel(rootLabels_);
    sidebar_->setRootIsDecorated(true);
    sidebar_->setUniformRowHeights(true);
    sidebar_->setSelectionMode(QAbstractItemView::SingleSelection);
    // Names elide; the counts and sizes beside them are always whole.
    sidebar_->header()->setStretchLastSection(false);
    sidebar_->header()->setSectionResizeMode(RootsModel::Name, QHeaderView::Stretch);
    sidebar_->header()->setSectionResizeMode(RootsModel::Entries, QHeaderView::ResizeToContents);
    sidebar_->header()->setSectionResizeMode(RootsModel::Size, QHeaderView::ResizeToContents);
    sidebar_->setTextElideMode(Qt::ElideMiddle);
    connect(sidebar_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& index) { onRootSelected(index); });

    search_ = new QLineEdit;
    search_->setPlaceholderText(tr("Search keys, kernel names, debug lines, source… (Ctrl+F)"));
    search_->setClearButtonEnabled(true);
    searchDelay_ = new QTimer(this);
    searchDelay_->setSingleShot(true);
    searchDelay_->setInterval(150); // one query per pause in typing, not per key
    connect(search_, &QLineEdit::textChanged, searchDelay_, qOverload<>(&QTimer::start));
    connect(searchDelay_, &QTimer::timeout, this, &MainWindow::applyFilter);
    tableSummary_ = new QLabel;
    tableSummary_->setTextFormat(Qt::PlainText);

    table_ = new QTableView;
    table_->setModel(entryModel_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setSortingEnabled(true);
    table_->sortByColumn(EntryTableModel::Kind, Qt::AscendingOrder);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(false);
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);
    const int charWidth = table_->fontMetrics().horizontalAdvance(QLatin1Char('m'));
    const std::pair<int, int> widths[] = {
        {EntryTableModel::Kind, 11},        {EntryTableModel::Key, 40},
        {EntryTableModel::KeyEntries, 7},   {EntryTableModel::Size, 9},
        {EntryTableModel::Modified, 11},    {EntryTableModel::Device, 7},
        {EntryTableModel::CompileTime, 10}, {EntryTableModel::Guards, 6},
    };
    for (auto [column, chars] : widths) {
        table_->setColumnWidth(column, chars * charWidth);
    }
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { onEntrySelected(); });

    auto* tableArea = new QWidget;
    auto* tableLayout = new QVBoxLayout(tableArea);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    auto* searchRow = new QHBoxLayout;
    searchRow->addWidget(search_, 1);
    searchRow->addWidget(tableSummary_);
    tableLayout->addLayout(searchRow);
    bundleBanner_ = new QLabel;
    bundleBanner_->setObjectName(QStringLiteral("bundleBanner"));
    bundleBanner_->setTextFormat(Qt::RichText); // its links; the text in it is escaped
    bundleBanner_->setWordWrap(true);
    bundleBanner_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    bundleBanner_->hide();
    connect(bundleBanner_, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("refresh")) {
            if (const auto root = actionRoot()) {
                refreshRedisRoot(*root);
            }
        } else if (link == QLatin1String("pull")) {
            openPullDialog();
        } else {
            openImportDialog();
        }
    });
    tableLayout->addWidget(bundleBanner_);
    tableLayout->addWidget(table_);

    entryError_ = new QLabel;
    entryError_->setTextFormat(Qt::PlainText);
    entryError_->setWordWrap(true);
    entryError_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    entryError_->setStyleSheet(QStringLiteral("QLabel { color: palette(bright-text); "
                                              "background: #b3261e; padding: 4px; }"));
    entryError_->hide();
    details_ = new QTabWidget;
    panels_ = {new OverviewTab, new DebugLinesTab, new GuardsTab,
               new SourceTab,   new KernelsTab,    new AutotuneTab};
    const QString titles[] = {tr("Overview"), tr("Debug lines"), tr("Guards"),
                              tr("Source"),   tr("Kernels"),     tr("Autotune")};
    for (std::size_t i = 0; i < panels_.size(); ++i) {
        details_->addTab(panels_[i], titles[i]);
        connect(panels_[i], &EntryTab::followRequested, this, &MainWindow::follow);
        connect(panels_[i], &EntryTab::statusMessage, this,
                [this](const QString& message) { statusText_->setText(message); });
    }
    auto* detailArea = new QWidget;
    auto* detailLayout = new QVBoxLayout(detailArea);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(entryError_);
    detailLayout->addWidget(details_);

    tableSplitter_ = new QSplitter(Qt::Vertical);
    tableSplitter_->addWidget(tableArea);
    tableSplitter_->addWidget(detailArea);
    tableSplitter_->setStretchFactor(0, 2);
    tableSplitter_->setStretchFactor(1, 3);
    browseSplitter_ = new QSplitter(Qt::Horizontal);
    browseSplitter_->addWidget(sidebar_);
    browseSplitter_->addWidget(tableSplitter_);
    browseSplitter_->setStretchFactor(0, 1);
    browseSplitter_->setStretchFactor(1, 4);
    // First start: room for the sidebar's counts; later starts restore the user's sizes.
    browseSplitter_->setSizes({300, 1100});
    tableSplitter_->setSizes({380, 520});
    pages_->addTab(browseSplitter_, tr("Browse"));
}

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open cache dir…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a cache dir"));
        if (!dir.isEmpty()) {
            openRoot(dir.toStdString());
        }
    });
    open->setShortcut(QKeySequence::Open);
    open->setIcon(style()->standardIcon(QStyle::SP_DirOpenIcon));
    QAction* openBundleAction = file->addAction(tr("Open &bundle…"), this, [this] {
        const QString bundle =
            QFileDialog::getOpenFileName(this, tr("Open a bundle (browsed read-only)"), {},
                                         tr("Bundles (*.bin);;All files (*)"));
        if (!bundle.isEmpty()) {
            openBundle(bundle.toStdString());
        }
    });
    openBundleAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openBundleAction->setToolTip(tr("Browse a PyTorch mega-cache bundle (or a signed one) like a "
                                    "cache dir, before importing it"));
    QAction* addRedis =
        file->addAction(tr("Add &Redis server…"), this, [this] { openRedisDialog(); });
    addRedis->setIcon(style()->standardIcon(QStyle::SP_DriveNetIcon));
    addRedis->setToolTip(tr("Browse PyTorch's remote cache on a Redis server as one more root "
                            "(mirrored read-only beside the catalog)"));
    refreshRedisAction_ = file->addAction(tr("Re&fresh Redis server"), this, [this] {
        if (const auto root = actionRoot(); root && isRedisRoot(*root)) {
            refreshRedisRoot(*root);
        }
    });
    refreshRedisAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    refreshRedisAction_->setToolTip(tr("Mirror the selected Redis root's server again: new "
                                       "entries pulled, entries gone from it removed"));
    refreshRedisAction_->setEnabled(false);
    recentMenu_ = file->addMenu(tr("Open &recent"));
    QAction* reindex = file->addAction(tr("&Index again"), this, [this] {
        for (const auto& root : rootDirs()) {
            openRoot(root);
        }
    });
    reindex->setShortcut(QKeySequence::Refresh);
    reindex->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    pruneAction_ = file->addAction(tr("&Prune…"), this, [this] { openPruneDialog(); });
    file->addSeparator();
    importAction_ = file->addAction(tr("&Import bundle…"), this, [this] { openImportDialog(); });
    importAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    importAction_->setToolTip(tr("Import the selected bundle (or one you choose) into a cache "
                                 "dir, after its safety report"));
    exportAction_ = file->addAction(tr("&Export selection…"), this, [this] { openExportDialog(); });
    exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAction_->setEnabled(false);
    table_->addAction(exportAction_);
    pullAction_ = file->addAction(tr("P&ull to cache dir…"), this, [this] { openPullDialog(); });
    pullAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U));
    pullAction_->setToolTip(tr("Write the selected entries of a Redis root into a cache dir, "
                               "where PyTorch writes a remote hit"));
    pullAction_->setEnabled(false);
    table_->addAction(pullAction_);
    pushAction_ = file->addAction(tr("Pus&h to Redis…"), this, [this] { openPushDialog(); });
    pushAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    pushAction_->setToolTip(tr("Store the selected entries (or the whole cache dir) on a Redis "
                               "server, as PyTorch stores them; a dry run first"));
    table_->addAction(pushAction_);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* find = edit->addAction(tr("&Find"), this, [this] {
        showPage(Page::Browse);
        search_->setFocus();
        search_->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
    QAction* copyKey =
        edit->addAction(tr("Copy &key"), this, [this] { copyFromSelection(EntryTableModel::Key); });
    copyKey->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    QAction* copyPath = edit->addAction(tr("Copy &path"), this,
                                        [this] { copyFromSelection(EntryTableModel::Path); });
    copyPath->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C));
    table_->addAction(copyKey);
    table_->addAction(copyPath);

    QMenu* entry = menuBar()->addMenu(tr("E&ntry"));
    compareAction_ =
        entry->addAction(tr("&Compare the two selected"), this, &MainWindow::compareSelection);
    compareAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    whyAction_ = entry->addAction(tr("&Why did this miss?"), this, &MainWindow::explainCurrent);
    whyAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Y));
    table_->addAction(compareAction_);
    table_->addAction(whyAction_);

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
        sidebar_->selectionModel()->clearSelection();
        sidebar_->selectionModel()->clearCurrentIndex();
        onRootSelected(QModelIndex());
    });
    allRoots->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    allRoots->setToolTip(tr("Show the entries of every cache dir, bundle and Redis server"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About cachelens"), this, &MainWindow::showAbout);
    updateRecentMenu();
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
    connect(cancel_, &QPushButton::clicked, this, [this] {
        for (const auto& channel : indexing_ + mirroring_) {
            jobs_.cancel(channel);
        }
    });
    connect(&jobs_, &JobRunner::progress, this,
            [this](const QString& channel, qint64 done, qint64 total, const QString& what) {
                if (mirroring_.contains(channel)) {
                    progress_->setRange(0, 0); // how many keys there are is not known
                    statusText_->setText(what);
                    return;
                }
                if (!indexing_.contains(channel)) {
                    return;
                }
                progress_->setRange(0, static_cast<int>(total)); // 0: busy
                progress_->setValue(static_cast<int>(done));
                statusText_->setText(what);
            });
}

void MainWindow::restoreSettings() {
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    browseSplitter_->restoreState(settings.value("browse/splitter").toByteArray());
    tableSplitter_->restoreState(settings.value("browse/tableSplitter").toByteArray());
    recentRoots_ = settings.value("recentRoots").toStringList();
    updateRecentMenu();
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("browse/splitter", browseSplitter_->saveState());
    settings.setValue("browse/tableSplitter", tableSplitter_->saveState());
    settings.setValue("recentRoots", recentRoots_);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
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
    if (recentMenu_ == nullptr) {
        return;
    }
    recentMenu_->clear();
    for (const QString& root : recentRoots_) {
        recentMenu_->addAction(root, this, [this, root] { openRoot(root.toStdString()); });
    }
    recentMenu_->setEnabled(!recentRoots_.isEmpty());
}

void MainWindow::openRoot(const fs::path& dir) {
    const QString channel = QStringLiteral("index:") + text(dir.string());
    indexing_.append(channel);
    ++rootsPending_;
    progress_->setRange(0, 0);
    progress_->show();
    cancel_->show();
    statusText_->setText(tr("Indexing %1…").arg(text(dir.string())));
    const fs::path catalogPath = catalogPath_.toStdString();
    // Once per index job, however it ends.
    const auto finish = [this, channel] {
        indexing_.removeOne(channel);
        --rootsPending_;
        if (indexing_.isEmpty() && mirroring_.isEmpty()) {
            progress_->hide();
            cancel_->hide();
        }
    };
    jobs_.run<IndexOutcome>(
        channel, this,
        [catalogPath, dir](const JobContext& context) {
            IndexOutcome outcome;
            auto catalog = catalog::Catalog::open(catalogPath);
            if (!catalog) {
                outcome.error = text(catalog.error().describe());
                return outcome;
            }
            catalog::IndexOptions options;
            const QString name = text(dir.filename().string());
            options.progress = context.engineProgress([name](const Progress& progress) {
                if (progress.stage == ProgressStage::Scanning) {
                    return QObject::tr("Indexing %1: %2 found…")
                        .arg(name, stats_text::count(progress.done, "file", "files"));
                }
                return QObject::tr("Indexing %1: %2 of %3 entries")
                    .arg(name)
                    .arg(progress.done)
                    .arg(progress.total);
            });
            auto report = catalog->index(dir, options);
            if (!report) {
                outcome.error = text(report.error().describe());
                return outcome;
            }
            outcome.root = text(report->root);
            outcome.cancelled = report->cancelled;
            outcome.summary = QObject::tr("%1: %2 entries (%3 parsed, %4 unchanged, %5 removed, "
                                          "%6 parse errors)")
                                  .arg(outcome.root)
                                  .arg(report->entries)
                                  .arg(report->parsed)
                                  .arg(report->unchanged)
                                  .arg(report->removed)
                                  .arg(report->parse_errors);
            return outcome;
        },
        [this, finish](IndexOutcome outcome) {
            finish();
            if (!outcome.error.isEmpty()) {
                showError(outcome.error);
                advanceRequest();
                return;
            }
            statusText_->setText(outcome.summary);
            addRecentRoot(outcome.root);
            rootsModel_->refresh();
            entryModel_->refresh();
            emit rootIndexed(outcome.root);
        },
        [this, finish](bool delivered) {
            if (delivered) {
                return; // finished above
            }
            // Cancelled (or indexed again meanwhile): no outcome comes.
            finish();
            statusText_->setText(tr("Indexing cancelled; what was indexed is kept."));
            rootsModel_->refresh();
            entryModel_->refresh();
        });
}

void MainWindow::applyFilter() {
    catalog::SearchQuery query;
    query.text = search_->text().toStdString();
    if (filterRoot_) {
        query.root = filterRoot_->string();
    }
    if (filterKind_) {
        query.kinds = {*filterKind_};
    }
    entryModel_->setQuery(query);
}

void MainWindow::onRootSelected(const QModelIndex& index) {
    std::optional<fs::path> root;
    std::optional<cachedir::FileKind> kind;
    if (index.isValid()) {
        root = index.data(RootsModel::RootPathRole).toString().toStdString();
        const QString kindName = index.data(RootsModel::KindRole).toString();
        kind = kindName.isEmpty() ? std::nullopt
                                  : cachedir::file_kind_from_string(kindName.toStdString());
    }
    // Selecting what is already shown (a bundle selected for the user) keeps the table.
    const bool same = root == filterRoot_ && kind == filterKind_;
    filterRoot_ = root;
    filterKind_ = kind;
    updateRootActions();
    if (!same) {
        applyFilter();
    }
}

std::vector<EntryRef> MainWindow::selectedEntries() const {
    std::vector<EntryRef> refs;
    for (const QModelIndex& row : table_->selectionModel()->selectedRows()) {
        const QVariant ref = row.data(EntryTableModel::EntryRefRole);
        if (ref.isValid()) {
            refs.push_back(ref.value<EntryRef>());
        }
    }
    return refs;
}

void MainWindow::onEntrySelected() {
    const auto refs = selectedEntries();
    compareAction_->setEnabled(refs.size() == 2);
    exportAction_->setEnabled(std::ranges::any_of(refs, [](const EntryRef& ref) {
        return ref.entry.kind == cachedir::FileKind::FxGraph ||
               ref.entry.kind == cachedir::FileKind::AotAutograd;
    }));
    // Asked once per root, not per row: a selection may hold thousands.
    std::map<fs::path, bool> redisRoots;
    pullAction_->setEnabled(std::ranges::any_of(refs, [&](const EntryRef& ref) {
        if (ref.entry.kind != cachedir::FileKind::FxGraph &&
            ref.entry.kind != cachedir::FileKind::AotAutograd) {
            return false;
        }
        auto known = redisRoots.find(ref.root);
        if (known == redisRoots.end()) {
            known = redisRoots.emplace(ref.root, isRedisRoot(ref.root)).first;
        }
        return known->second;
    }));
    if (refs.size() == 1 && !(current_ && *current_ == refs.front())) {
        loadEntry(refs.front());
    }
}

void MainWindow::loadEntry(const EntryRef& ref) {
    jobs_.run<LoadedEntry>(
        "entry", this,
        [ref](const JobContext&) {
            auto loaded = cachedir::load_entry(ref.root, ref.entry);
            if (!loaded) {
                return LoadedEntry{nullptr, text(loaded.error().describe())};
            }
            return LoadedEntry{std::make_shared<const cachedir::EntryContent>(std::move(*loaded)),
                               {}};
        },
        [this, ref](LoadedEntry loaded) {
            current_ = ref;
            updateRootActions();
            whyAction_->setEnabled(ref.entry.kind == cachedir::FileKind::FxGraph);
            if (!loaded.content) {
                entryError_->setText(
                    tr("Cannot show %1: %2").arg(text(ref.entry.path), loaded.error));
                entryError_->show();
                for (auto* panel : panels_) {
                    panel->clear();
                }
                emit entryShown(ref);
                return;
            }
            entryError_->hide();
            for (std::size_t i = 0; i < panels_.size(); ++i) {
                const bool applies = panels_[i]->appliesTo(ref.entry.kind);
                details_->setTabEnabled(static_cast<int>(i), applies);
                if (applies) {
                    panels_[i]->showEntry(ref, loaded.content);
                } else {
                    panels_[i]->clear();
                }
            }
            if (!details_->isTabEnabled(details_->currentIndex())) {
                details_->setCurrentIndex(static_cast<int>(Tab::Overview));
            }
            setWindowTitle(tr("%1 — cachelens").arg(text(ref.entry.key)));
            emit entryShown(ref);
        });
}

std::optional<MainWindow::FoundEntry>
MainWindow::findEntry(const QString& query, cachedir::FileKind kind,
                      const std::optional<fs::path>& root,
                      const std::optional<fs::path>& avoidRoot) const {
    auto catalog = catalog::Catalog::open(catalogPath_.toStdString());
    if (!catalog) {
        return std::nullopt;
    }
    const std::string wanted = query.toStdString();
    catalog::SearchQuery search;
    if (root) {
        search.root = catalog::root_location(*root);
    }
    // An absolute path names its root.
    if (fs::path(wanted).is_absolute()) {
        auto roots = catalog->roots();
        if (!roots) {
            return std::nullopt;
        }
        std::error_code ec;
        const fs::path absolute = fs::weakly_canonical(wanted, ec);
        const auto inside = std::ranges::find_if(*roots, [&](const catalog::Root& candidate) {
            const fs::path relative = absolute.lexically_relative(candidate.location);
            return !relative.empty() && *relative.begin() != "..";
        });
        if (inside == roots->end() || (search.root && *search.root != inside->location)) {
            return std::nullopt;
        }
        search.root = inside->location;
    }
    search.text = cachedir::EntryQuery(search.root.value_or(std::string()), wanted).search_key();
    if (kind != cachedir::FileKind::Unknown) {
        search.kinds = {kind};
    }
    // The entry its path names, else the first its key or name names; with
    // avoidRoot, one elsewhere first (a Redis root's entry is compared with
    // the local one, not with itself).
    const std::string avoid = avoidRoot ? catalog::root_location(*avoidRoot) : std::string();
    const auto rank = [&](cachedir::EntryQuery::Match match, const std::string& hitRoot) {
        const int how = match == cachedir::EntryQuery::Match::Path  ? 4
                        : match == cachedir::EntryQuery::Match::Key ? 2
                                                                    : 0;
        return how == 0 ? 0 : how + (avoidRoot && hitRoot != avoid ? 1 : 0);
    };
    // No better match can come: its path names it (a key or name names several
    // entries: the first is taken), in another root than avoidRoot.
    const bool byPath = wanted.find('/') != std::string::npos;
    const int bestPossible = (byPath ? 4 : 2) + (avoidRoot ? 1 : 0);
    std::map<std::string, cachedir::EntryQuery> queries; // per root: a path is relative to it
    std::optional<catalog::SearchHit> best;
    int bestRank = 0;
    search.limit = 500;
    for (search.offset = 0; bestRank < bestPossible; search.offset += search.limit) {
        auto hits = catalog->search(search);
        if (!hits) {
            return std::nullopt;
        }
        for (auto& hit : *hits) {
            auto entryQuery = queries.find(hit.root);
            if (entryQuery == queries.end()) {
                entryQuery =
                    queries.emplace(hit.root, cachedir::EntryQuery(hit.root, wanted)).first;
            }
            cachedir::Entry entry;
            entry.kind = hit.kind;
            entry.key = hit.key;
            entry.path = hit.path;
            entry.name = hit.name;
            const int hitRank = rank(entryQuery->second.match(entry), hit.root);
            if (hitRank > bestRank) {
                bestRank = hitRank;
                best = std::move(hit);
            }
        }
        if (hits->size() < search.limit) {
            break;
        }
    }
    if (!best) {
        return std::nullopt;
    }
    FoundEntry found;
    found.id = best->entry_id;
    found.ref.root = best->root;
    found.ref.entry.kind = best->kind;
    found.ref.entry.key = best->key;
    found.ref.entry.path = best->path;
    found.ref.entry.name = best->name;
    found.ref.entry.size = best->size;
    found.ref.entry.mtime_ns = best->mtime_ns;
    return found;
}

bool MainWindow::selectEntry(const QString& query) {
    auto found = findEntry(query, cachedir::FileKind::Unknown, filterRoot_);
    if (!found && filterRoot_) {
        found = findEntry(query, cachedir::FileKind::Unknown, std::nullopt);
    }
    if (!found) {
        statusText_->setText(tr("No entry %1 in the catalog").arg(query));
        return false;
    }
    showFoundEntry(*found);
    return true;
}

void MainWindow::showFoundEntry(const FoundEntry& found) {
    showPage(Page::Browse);
    if (auto row = entryModel_->rowOfId(found.id)) {
        pendingSelection_.reset();
        selectOnly(*row);
        return;
    }
    // Hidden by the filter: show everything, then select it when the rows are in.
    pendingSelection_ = found.id;
    search_->blockSignals(true);
    search_->clear();
    search_->blockSignals(false);
    sidebar_->selectionModel()->clearCurrentIndex();
    filterRoot_.reset();
    filterKind_.reset();
    applyFilter();
}

void MainWindow::browseRoot(const fs::path& root) {
    const QModelIndex index = rootLabels_->mapFromSource(rootsModel_->indexOfRoot(root));
    if (index.isValid()) {
        // The sidebar's current row filters the table (onRootSelected).
        sidebar_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                               QItemSelectionModel::Rows);
        return;
    }
    filterRoot_ = root;
    filterKind_.reset();
    sidebarRoot_ = root; // selected once the sidebar lists it
    applyFilter();
    updateRootActions();
}

// Not QTableView::selectRow: that honours the keyboard modifiers held at the
// time, and would extend or toggle the selection instead.
void MainWindow::selectOnly(int row) {
    const QModelIndex index = entryModel_->index(row, 0);
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    table_->scrollTo(index);
}

void MainWindow::follow(cachedir::FileKind kind, const QString& keyOrPath) {
    const std::optional<fs::path> root =
        current_ ? std::optional(current_->root) : std::optional<fs::path>();
    const auto found = findEntry(keyOrPath, kind, root);
    if (!found) {
        statusText_->setText(tr("%1 %2 is not in this cache dir")
                                 .arg(text(std::string(cachedir::to_string(kind))), keyOrPath));
        return;
    }
    showFoundEntry(*found);
}

bool MainWindow::compareWith(const QString& query) {
    if (!current_) {
        return false;
    }
    const auto other = findEntry(query, cachedir::FileKind::FxGraph, std::nullopt, current_->root);
    if (!other) {
        statusText_->setText(tr("No FX graph entry %1 to compare with").arg(query));
        return false;
    }
    comparePage_->compare(*current_, other->ref);
    showPage(Page::Compare);
    return true;
}

void MainWindow::compareSelection() {
    const auto refs = selectedEntries();
    if (refs.size() != 2) {
        statusText_->setText(tr("Select two FX graph entries to compare (Ctrl+click)."));
        return;
    }
    comparePage_->compare(refs[0], refs[1]);
    showPage(Page::Compare);
}

void MainWindow::explainCurrent() {
    if (!current_ || current_->entry.kind != cachedir::FileKind::FxGraph) {
        statusText_->setText(tr("Select an FX graph entry to see why it missed."));
        return;
    }
    whyPage_->explain(*current_, rootDirs());
    showPage(Page::Why);
}

std::vector<fs::path> MainWindow::rootDirs() const {
    std::vector<fs::path> roots;
    for (int row = 0; row < rootsModel_->rowCount(); ++row) {
        roots.emplace_back(
            rootsModel_->index(row, 0).data(RootsModel::RootPathRole).toString().toStdString());
    }
    return roots;
}

std::optional<fs::path> MainWindow::actionRoot() const {
    std::optional<fs::path> root = filterRoot_;
    if (!root && current_) {
        root = current_->root;
    }
    const auto roots = rootDirs();
    if (!root && roots.size() == 1) {
        root = roots.front();
    }
    return root;
}

void MainWindow::openPruneDialog(const QString& previewMaxSize, std::optional<fs::path> root) {
    if (!root) {
        root = actionRoot();
    }
    if (!root) {
        statusText_->setText(tr("Select a cache dir in the sidebar to prune it."));
        return;
    }
    if (isRedisRoot(*root)) {
        statusText_->setText(
            tr("%1 is a Redis server's mirror, browsed read-only: nothing in it is pruned (the "
               "next refresh would bring it back). Pull its entries into a cache dir to prune "
               "there.")
                .arg(remote_work::mirrorOrigin(*root).value_or(text(root->string()))));
        return;
    }
    if (isReadOnlyRoot(*root)) {
        statusText_->setText(tr("%1 is a bundle, opened read-only: nothing in it is pruned. "
                                "Import it into a cache dir to prune there.")
                                 .arg(text(root->filename().string())));
        return;
    }
    auto* dialog = new PruneDialog(jobs_, catalogPath_, *root, this);
    pruneDialog_ = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PruneDialog::statusMessage, statusText_, &QLabel::setText);
    connect(dialog, &PruneDialog::pruned, this, [this] {
        rootsModel_->refresh();
        entryModel_->refresh();
    });
    dialog->show();
    if (!previewMaxSize.isEmpty()) {
        dialog->setLimits(previewMaxSize, std::nullopt, QStringLiteral("10m"));
        dialog->preview();
    }
}

void MainWindow::copyFromSelection(int column) {
    QStringList lines;
    for (const QModelIndex& row : table_->selectionModel()->selectedRows()) {
        const auto hit = entryModel_->hitAt(row.row());
        if (hit) {
            lines << text(column == EntryTableModel::Path ? hit->path : hit->key);
        }
    }
    if (!lines.isEmpty()) {
        QApplication::clipboard()->setText(lines.join('\n'));
        statusText_->setText(tr("Copied %n line(s)", nullptr, static_cast<int>(lines.size())));
    }
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

QWidget* MainWindow::screenshotTarget() {
    if (importDialog_ && importDialog_->isVisible()) {
        return importDialog_;
    }
    if (exportDialog_ && exportDialog_->isVisible()) {
        return exportDialog_;
    }
    if (pruneDialog_ && pruneDialog_->isVisible()) {
        return pruneDialog_;
    }
    for (QWidget* dialog :
         std::initializer_list<QWidget*>{redisDialog_, pullDialog_, pushDialog_}) {
        if (dialog != nullptr && dialog->isVisible()) {
            return dialog;
        }
    }
    return this;
}

EntryTab* MainWindow::panel(Tab tab) const {
    return panels_[static_cast<std::size_t>(tab)];
}

void MainWindow::showPage(Page page) {
    pages_->setCurrentIndex(static_cast<int>(page));
}

void MainWindow::showTab(Tab tab) {
    showPage(Page::Browse);
    details_->setCurrentIndex(static_cast<int>(tab));
}

QStringList MainWindow::tabNames() {
    QStringList names;
    for (const char* name : kTabNames) {
        names << QLatin1String(name);
    }
    return names;
}

QStringList MainWindow::viewNames() {
    QStringList names;
    for (const char* name : kViewNames) {
        names << QLatin1String(name);
    }
    return names;
}

std::optional<MainWindow::Tab> MainWindow::tabFromName(const QString& name) {
    for (std::size_t i = 0; i < std::size(kTabNames); ++i) {
        if (name == QLatin1String(kTabNames[i])) {
            return static_cast<Tab>(i);
        }
    }
    return std::nullopt;
}

void MainWindow::runStartupRequest(const StartupRequest& request) {
    request_ = request;
    requestStep_ = 0;
    for (const auto& dir : request.open) {
        openRoot(dir);
    }
    for (const auto& file : request.openBundles) {
        openBundle(file);
    }
    for (const QString& url : request.openRedis) {
        const auto parsed = remote_work::parseEndpoint(url);
        if (parsed.endpoint) {
            addRedisServer(*parsed.endpoint);
        } else {
            showError(tr("Cannot add the Redis server %1: %2").arg(url, parsed.error));
        }
    }
    QTimer::singleShot(0, this, &MainWindow::advanceRequest);
}

// Each step starts what it needs and returns; the signal that its work is
// done calls this again. The steps: roots indexed, the first dir opened
// browsed, search, select, tab, compare, view, then everything idle.
void MainWindow::advanceRequest() {
    if (!request_ || rootsPending_ > 0 || entryModel_->isLoading() || waitingForEntry_) {
        return;
    }
    const StartupRequest& request = *request_;
    while (requestStep_ < 6) {
        const int step = requestStep_++;
        if (step == 0 && request.browseOpened && !request.open.empty() &&
            request.openBundles.empty() && request.openRedis.isEmpty()) {
            if (rootsModel_->isRefreshing()) {
                --requestStep_; // the sidebar lists the root once this refresh is in
                return;
            }
            const fs::path root = catalog::root_location(request.open.front());
            if (rootsModel_->indexOfRoot(root).isValid()) { // not when indexing it failed
                browseRoot(root);
                if (entryModel_->isLoading()) {
                    return; // the table's loaded() continues
                }
            }
        }
        if (step == 1 && !request.search.isEmpty()) {
            search_->setText(request.search);
            applyFilter();
            return;
        }
        if (step == 2 && !request.select.isEmpty() && selectEntry(request.select)) {
            waitingForEntry_ = true; // entryShown continues
            return;
        }
        if (step == 3 && !request.tab.isEmpty()) {
            if (auto tab = tabFromName(request.tab)) {
                showTab(*tab);
            }
        }
        if (step == 4 && !request.compare.isEmpty()) {
            compareWith(request.compare);
        }
        if (step == 5 && !request.view.isEmpty()) {
            if (request.view == "compare") {
                showPage(Page::Compare);
            } else if (request.view == "why") {
                explainCurrent();
            } else if (request.view == "stats") {
                showPage(Page::Stats);
            } else if (request.view == "bench") {
                showPage(Page::Bench);
            } else if (request.view == "import") {
                openImportDialog(request.openBundles.empty()
                                     ? std::nullopt
                                     : std::optional(request.openBundles.front()),
                                 request.importInto.isEmpty()
                                     ? std::nullopt
                                     : std::optional<fs::path>(request.importInto.toStdString()),
                                 false);
                if (importDialog_ && !request.select.isEmpty()) {
                    importDialog_->selectArtifact(request.select);
                }
            } else if (request.view == "redis") {
                openRedisDialog(request.openRedis.value(0));
            } else if (request.view == "pull") {
                openPullDialog(request.importInto.isEmpty()
                                   ? std::nullopt
                                   : std::optional<fs::path>(request.importInto.toStdString()));
            } else if (request.view == "push") {
                // Without --select: the whole of the first dir opened.
                const bool whole = request.select.isEmpty() && !request.open.empty();
                const auto server = remote_work::parseEndpoint(request.openRedis.value(0));
                openPushDialog(whole ? std::optional(request.open.front()) : std::nullopt,
                               server.endpoint ? text(server.endpoint->display()) : QString());
            } else if (request.view == "prune") {
                openPruneDialog(
                    request.pruneMaxSize.isEmpty() ? QStringLiteral("1M") : request.pruneMaxSize,
                    request.open.empty() ? std::nullopt : std::optional(request.open.front()));
            } else {
                showPage(Page::Browse);
            }
        }
    }
    // The Benchmarks page's plan listing is a child process, not a job.
    if (jobs_.isIdle() && !benchPage_->isPlanning()) {
        request_.reset();
        // One more turn of the event loop so that the last results are painted.
        QTimer::singleShot(150, this, &MainWindow::requestDone);
    }
}

QString MainWindow::statusText() const {
    return statusText_->text();
}

} // namespace cachelens::ui
