#include "pages/browse_page.h"

#include "jobs/root_jobs.h"
#include "models/entry_table_model.h"
#include "models/root_labels_model.h"
#include "models/roots_model.h"
#include "tabs/autotune_tab.h"
#include "tabs/debug_lines_tab.h"
#include "tabs/guards_tab.h"
#include "tabs/kernels_tab.h"
#include "tabs/overview_tab.h"
#include "tabs/source_tab.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "widgets/root_banner.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/catalog/catalog.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

const char* const kTabNames[] = {"overview", "debug", "guards", "source", "kernels", "autotune"};

} // namespace

BrowsePage::BrowsePage(JobPool& pool, const QString& catalogPath, const RootJobs& roots,
                       QWidget* parent)
    : QWidget(parent)
    , pool_(pool)
    , entryJob_(new JobTracker(pool, this))
    , findJob_(new JobTracker(pool, this))
    , compareJob_(new JobTracker(pool, this))
    , copyJob_(new JobTracker(pool, this))
    , catalogPath_(catalogPath)
    , roots_(roots)
    , rootsModel_(new RootsModel(pool, catalogPath, this))
    , rootLabels_(new RootLabelsModel(
          [&roots](const fs::path& root) { return roots.provenance(root); }, this))
    , entryModel_(new EntryTableModel(pool, catalogPath, this)) {
    rootLabels_->setSourceModel(rootsModel_);

    sidebar_ = new QTreeView;
    sidebar_->setObjectName(QStringLiteral("sidebar"));
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

    tableSplitter_ = new QSplitter(Qt::Vertical);
    tableSplitter_->addWidget(buildTableArea());
    tableSplitter_->addWidget(buildDetailArea());
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
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(browseSplitter_);

    connect(rootsModel_, &RootsModel::failed, this, &BrowsePage::failed);
    connect(rootsModel_, &RootsModel::refreshed, this, [this] {
        sidebar_->expandToDepth(0);
        // A root just opened is selected in the sidebar once the sidebar lists it.
        if (sidebarRoot_) {
            const QModelIndex index =
                rootLabels_->mapFromSource(rootsModel_->indexOfRoot(*sidebarRoot_));
            if (index.isValid()) {
                sidebarRoot_.reset();
                sidebar_->selectionModel()->setCurrentIndex(
                    index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            }
        }
        updateBanner();
    });
    connect(entryModel_, &EntryTableModel::failed, this, &BrowsePage::failed);
    // A row selected before its page was read: its entry is shown once it is in.
    connect(entryModel_, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& topLeft, const QModelIndex& bottomRight) {
                const int row = table_->selectionModel()->currentIndex().row();
                if (row >= topLeft.row() && row <= bottomRight.row()) {
                    onEntrySelected();
                }
            });
    connect(entryModel_, &EntryTableModel::loaded, this, [this](int rows, qint64 elapsedMs) {
        tableSummary_->setText(tr("%n entries", nullptr, rows) + tr(" (%1 ms)").arg(elapsedMs));
        if (pendingSelection_) {
            if (auto row = entryModel_->rowOfId(*pendingSelection_)) {
                selectOnly(*row);
            }
            pendingSelection_.reset();
        }
        emit rowsLoaded();
    });
    refresh();
}

BrowsePage::~BrowsePage() = default;

QWidget* BrowsePage::buildTableArea() {
    search_ = new QLineEdit;
    search_->setPlaceholderText(tr("Search keys, kernel names, debug lines, source… (Ctrl+F)"));
    search_->setClearButtonEnabled(true);
    searchDelay_ = new QTimer(this);
    searchDelay_->setSingleShot(true);
    searchDelay_->setInterval(150); // one query per pause in typing, not per key
    connect(search_, &QLineEdit::textChanged, searchDelay_, qOverload<>(&QTimer::start));
    connect(searchDelay_, &QTimer::timeout, this, &BrowsePage::applyFilter);
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
        {EntryTableModel::Kind, 11},  {EntryTableModel::Graph, 8},
        {EntryTableModel::Key, 40},   {EntryTableModel::KeyEntries, 7},
        {EntryTableModel::Size, 9},   {EntryTableModel::Modified, 11},
        {EntryTableModel::Device, 7}, {EntryTableModel::CompileTime, 10},
        {EntryTableModel::Guards, 6},
    };
    for (auto [column, chars] : widths) {
        table_->setColumnWidth(column, chars * charWidth);
    }
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { onEntrySelected(); });

    banner_ = new RootBanner;
    connect(banner_, &RootBanner::importRequested, this, &BrowsePage::importRequested);
    connect(banner_, &RootBanner::pullRequested, this, &BrowsePage::pullRequested);
    connect(banner_, &RootBanner::refreshRequested, this, [this] {
        if (const auto root = actionRoot()) {
            emit refreshRequested(*root);
        }
    });

    auto* area = new QWidget;
    auto* layout = new QVBoxLayout(area);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* searchRow = new QHBoxLayout;
    searchRow->addWidget(search_, 1);
    searchRow->addWidget(tableSummary_);
    layout->addLayout(searchRow);
    layout->addWidget(banner_);
    layout->addWidget(table_);
    return area;
}

QWidget* BrowsePage::buildDetailArea() {
    entryError_ = new QLabel;
    entryError_->setTextFormat(Qt::PlainText);
    entryError_->setWordWrap(true);
    entryError_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    entryError_->setStyleSheet(QStringLiteral("QLabel { color: palette(bright-text); "
                                              "background: #b3261e; padding: 4px; }"));
    entryError_->hide();
    details_ = new QTabWidget;
    tabs_ = {new OverviewTab(pool_), new DebugLinesTab,     new GuardsTab(pool_),
             new SourceTab,          new KernelsTab(pool_), new AutotuneTab(pool_)};
    const QString titles[] = {tr("Overview"), tr("Debug lines"), tr("Guards"),
                              tr("Source"),   tr("Kernels"),     tr("Autotune")};
    for (std::size_t i = 0; i < tabs_.size(); ++i) {
        details_->addTab(tabs_[i], titles[i]);
        connect(tabs_[i], &EntryTab::followRequested, this, &BrowsePage::follow);
        connect(tabs_[i], &EntryTab::statusMessage, this, &BrowsePage::statusMessage);
    }
    auto* area = new QWidget;
    auto* layout = new QVBoxLayout(area);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(entryError_);
    layout->addWidget(details_);
    return area;
}

void BrowsePage::refresh() {
    rootsModel_->refresh();
    entryModel_->refresh();
}

bool BrowsePage::isLoading() const {
    return rootsModel_->isRefreshing() || entryModel_->isLoading();
}

void BrowsePage::applyFilter() {
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

void BrowsePage::setSearchText(const QString& text) {
    search_->setText(text);
    applyFilter();
}

void BrowsePage::focusSearch() {
    search_->setFocus();
    search_->selectAll();
}

void BrowsePage::onRootSelected(const QModelIndex& index) {
    std::optional<fs::path> root;
    std::optional<cachedir::FileKind> kind;
    if (index.isValid()) {
        root = index.data(RootsModel::RootPathRole).toString().toStdString();
        const QString kindName = index.data(RootsModel::KindRole).toString();
        kind = kindName.isEmpty() ? std::nullopt
                                  : cachedir::file_kind_from_string(kindName.toStdString());
    }
    if (const QString serving = index.data(RootsModel::ServingPathRole).toString();
        index.isValid() && !serving.isEmpty()) {
        emit servingSelected(*root, serving);
    }
    // Selecting what is already shown (a bundle selected for the user) keeps the table.
    const bool same = root == filterRoot_ && kind == filterKind_;
    filterRoot_ = root;
    filterKind_ = kind;
    updateBanner();
    if (!same) {
        applyFilter();
    }
}

void BrowsePage::browseRoot(const fs::path& root) {
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
    updateBanner();
}

void BrowsePage::browseAllRoots() {
    sidebar_->selectionModel()->clearSelection();
    sidebar_->selectionModel()->clearCurrentIndex();
    onRootSelected(QModelIndex());
}

bool BrowsePage::selectEntryIn(const fs::path& root, const QString& path) {
    filterRoot_ = root;
    emit showRequested();
    return selectEntry(path);
}

std::vector<EntryRef> BrowsePage::selectedEntries() const {
    std::vector<EntryRef> refs;
    for (const QModelIndex& row : table_->selectionModel()->selectedRows()) {
        const QVariant ref = row.data(EntryTableModel::EntryRefRole);
        if (ref.isValid()) {
            refs.push_back(ref.value<EntryRef>());
        }
    }
    return refs;
}

void BrowsePage::onEntrySelected() {
    emit selectionChanged();
    const auto refs = selectedEntries();
    if (refs.size() == 1 && !(current_ && *current_ == refs.front())) {
        loadEntry(refs.front());
    }
}

void BrowsePage::loadEntry(const EntryRef& ref) {
    entryJob_->run<Result<SharedContent>>(
        [ref](const JobContext&) -> Result<SharedContent> {
            auto loaded = cachedir::load_entry(ref.root, ref.entry);
            if (!loaded) {
                return std::unexpected(std::move(loaded.error()));
            }
            return std::make_shared<const cachedir::EntryContent>(std::move(*loaded));
        },
        [this, ref](Result<SharedContent> loaded) {
            current_ = ref;
            updateBanner();
            if (!loaded) {
                entryError_->setText(
                    tr("Cannot show %1: %2")
                        .arg(text(ref.entry.path), text(loaded.error().describe())));
                entryError_->show();
                for (auto* tab : tabs_) {
                    tab->clear();
                }
                emit entryShown(ref);
                return;
            }
            entryError_->hide();
            for (std::size_t i = 0; i < tabs_.size(); ++i) {
                const bool applies = tabs_[i]->appliesTo(ref.entry.kind);
                details_->setTabEnabled(static_cast<int>(i), applies);
                if (applies) {
                    tabs_[i]->showEntry(ref, *loaded);
                } else {
                    tabs_[i]->clear();
                }
            }
            if (!details_->isTabEnabled(details_->currentIndex())) {
                details_->setCurrentIndex(static_cast<int>(Tab::Overview));
            }
            setWindowTitle(text(ref.entry.key));
            emit entryShown(ref);
        });
}
void BrowsePage::lookUp(JobTracker* tracker, EntryLookup lookup, std::function<void(Found)> done) {
    const fs::path path = catalogPath_.toStdString();
    tracker->run<Found>(
        [path, lookup = std::move(lookup)](const JobContext&) -> Found {
            auto catalog = catalog::Catalog::open(path);
            if (!catalog) {
                return std::unexpected(catalog.error());
            }
            auto hit = catalog->find_entry(lookup.query, lookup.kind, lookup.root, lookup.avoidRoot,
                                           lookup.prefix);
            if (hit && !*hit && lookup.root && lookup.thenAnyRoot) {
                hit = catalog->find_entry(lookup.query, lookup.kind, std::nullopt, lookup.avoidRoot,
                                          lookup.prefix);
            }
            if (!hit) {
                return std::unexpected(hit.error());
            }
            if (!*hit) {
                return std::nullopt;
            }
            const catalog::SearchHit& best = **hit;
            FoundEntry found;
            found.id = best.entry_id;
            found.ref.root = best.root;
            found.ref.entry.kind = best.kind;
            found.ref.entry.key = best.key;
            found.ref.entry.path = best.path;
            found.ref.entry.name = best.name;
            found.ref.entry.size = best.size;
            found.ref.entry.mtime_ns = best.mtime_ns;
            return found;
        },
        std::move(done));
}

bool BrowsePage::selectEntry(const QString& query) {
    if (query.isEmpty()) {
        return false;
    }
    // Typed by a user (--select): the start of one key names it.
    lookUp(findJob_,
           {query.toStdString(), cachedir::FileKind::Unknown, filterRoot_, std::nullopt,
            catalog::Catalog::KeyPrefix::Accepted, /*thenAnyRoot=*/true},
           [this, query](Found found) {
               if (!found) {
                   emit statusMessage(text(found.error().describe()));
                   emit entryNotFound(query);
               } else if (!*found) {
                   emit statusMessage(tr("No entry %1 in the catalog").arg(query));
                   emit entryNotFound(query);
               } else {
                   showFoundEntry(**found);
               }
           });
    return true;
}

void BrowsePage::findGraphToCompare(const QString& query,
                                    std::function<void(std::optional<EntryRef>)> found) {
    if (!current_) {
        found(std::nullopt);
        return;
    }
    lookUp(compareJob_,
           {query.toStdString(), cachedir::FileKind::FxGraph, std::nullopt, current_->root,
            catalog::Catalog::KeyPrefix::Accepted, false},
           [found = std::move(found)](Found entry) {
               found(entry && *entry ? std::optional((*entry)->ref) : std::nullopt);
           });
}

void BrowsePage::showFoundEntry(const FoundEntry& found) {
    emit showRequested();
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

// Not QTableView::selectRow: that honours the keyboard modifiers held at the
// time, and would extend or toggle the selection instead.
void BrowsePage::selectOnly(int row) {
    const QModelIndex index = entryModel_->index(row, 0);
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    table_->scrollTo(index);
}

void BrowsePage::follow(cachedir::FileKind kind, const QString& keyOrPath) {
    const std::optional<fs::path> root =
        current_ ? std::optional(current_->root) : std::optional<fs::path>();
    lookUp(findJob_,
           {keyOrPath.toStdString(), kind, root, std::nullopt, catalog::Catalog::KeyPrefix::Refused,
            false},
           [this, kind, keyOrPath](Found found) {
               if (!found || !*found) {
                   emit statusMessage(
                       tr("%1 %2 is not in this cache dir")
                           .arg(text(std::string(cachedir::to_string(kind))), keyOrPath));
                   return;
               }
               showFoundEntry(**found);
           });
}

std::vector<fs::path> BrowsePage::rootDirs() const {
    std::vector<fs::path> roots;
    for (int row = 0; row < rootsModel_->rowCount(); ++row) {
        roots.emplace_back(
            rootsModel_->index(row, 0).data(RootsModel::RootPathRole).toString().toStdString());
    }
    return roots;
}

bool BrowsePage::showsRoot(const fs::path& dir) const {
    const std::string location = catalog::root_location(dir);
    return std::ranges::any_of(
        rootDirs(), [&](const fs::path& root) { return catalog::root_location(root) == location; });
}

std::optional<fs::path> BrowsePage::actionRoot() const {
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

void BrowsePage::updateBanner() {
    if (const auto root = actionRoot()) {
        banner_->showRoot(*root, roots_.provenance(*root));
    } else {
        banner_->hide();
    }
    emit actionRootChanged();
}

void BrowsePage::copyFromSelection(int column) {
    const auto lineOf = [column](const catalog::SearchHit& hit) {
        return text(column == EntryTableModel::Path ? hit.path : hit.key);
    };
    const auto copy = [this](const QStringList& lines) {
        if (!lines.isEmpty()) {
            QApplication::clipboard()->setText(lines.join('\n'));
            emit statusMessage(
                tr("Copied %1").arg(counted(static_cast<std::size_t>(lines.size()), "line")));
        }
    };
    QStringList lines;
    std::vector<std::int64_t> ids;
    bool allLoaded = true;
    for (const QModelIndex& row : table_->selectionModel()->selectedRows()) {
        if (const auto id = entryModel_->idAt(row.row())) {
            ids.push_back(*id);
        }
        if (const auto hit = entryModel_->hitAt(row.row())) {
            lines << lineOf(*hit);
        } else {
            allLoaded = false;
        }
    }
    if (allLoaded) {
        copy(lines);
        return;
    }
    // A row whose page is not in yet: read the selected rows in a job.
    const fs::path path = catalogPath_.toStdString();
    copyJob_->run<Result<std::vector<catalog::SearchHit>>>(
        [path, ids = std::move(ids)](const JobContext&) -> Result<std::vector<catalog::SearchHit>> {
            auto catalog = catalog::Catalog::open(path);
            if (!catalog) {
                return std::unexpected(catalog.error());
            }
            return catalog->entries_by_id(ids);
        },
        [this, lineOf, copy](Result<std::vector<catalog::SearchHit>> hits) {
            if (!hits) {
                emit statusMessage(text(hits.error().describe()));
                return;
            }
            QStringList read;
            for (const auto& hit : *hits) {
                read << lineOf(hit);
            }
            copy(read);
        });
}

void BrowsePage::addTableActions(const QList<QAction*>& actions) {
    table_->addActions(actions);
}

void BrowsePage::showTab(Tab tab) {
    details_->setCurrentIndex(static_cast<int>(tab));
}

EntryTab* BrowsePage::tab(Tab tab) const {
    return tabs_[static_cast<std::size_t>(tab)];
}

QLabel* BrowsePage::banner() const {
    return banner_;
}

QStringList BrowsePage::tabNames() {
    QStringList names;
    for (const char* name : kTabNames) {
        names << QLatin1String(name);
    }
    return names;
}

std::optional<BrowsePage::Tab> BrowsePage::tabFromName(const QString& name) {
    for (std::size_t i = 0; i < std::size(kTabNames); ++i) {
        if (name == QLatin1String(kTabNames[i])) {
            return static_cast<Tab>(i);
        }
    }
    return std::nullopt;
}

void BrowsePage::saveSettings(QSettings& settings) const {
    settings.setValue("browse/splitter", browseSplitter_->saveState());
    settings.setValue("browse/tableSplitter", tableSplitter_->saveState());
}

void BrowsePage::restoreSettings(const QSettings& settings) {
    browseSplitter_->restoreState(settings.value("browse/splitter").toByteArray());
    tableSplitter_->restoreState(settings.value("browse/tableSplitter").toByteArray());
}

} // namespace cachelens::ui
