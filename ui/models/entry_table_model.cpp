#include "models/entry_table_model.h"

#include "text/engine_text.h"
#include "text/plain_text.h"

#include <cachelens/core/format.h>

#include <QApplication>
#include <QColor>
#include <QFont>
#include <QFontDatabase>
#include <QStyle>

#include <algorithm>

namespace cachelens::ui {

namespace {

catalog::SortColumn sortColumnOf(int column) {
    using enum catalog::SortColumn;
    switch (column) {
    case EntryTableModel::Kind:
        return Kind;
    case EntryTableModel::Graph:
        return Role;
    case EntryTableModel::Key:
        return Key;
    case EntryTableModel::KeyEntries:
        return KeyEntries;
    case EntryTableModel::Size:
        return Size;
    case EntryTableModel::Modified:
        return Modified;
    case EntryTableModel::Device:
        return Device;
    case EntryTableModel::CompileTime:
        return CompileTime;
    case EntryTableModel::Guards:
        return Guards;
    default:
        return Location;
    }
}

using Matches = std::optional<std::vector<std::int64_t>>;

struct Selection {
    std::shared_ptr<const catalog::EntryIndex> index;
    std::shared_ptr<const Matches> matches;
    std::vector<std::int64_t> ids;
    std::vector<catalog::SearchHit>
        firstPage; // read with the ids: the first paint waits for nothing
};

struct LoadedPage {
    int number = 0;
    std::vector<catalog::SearchHit> hits;
};

} // namespace

EntryTableModel::EntryTableModel(JobPool& pool, QString catalogPath, QObject* parent)
    : QAbstractTableModel(parent)
    , job_(new JobTracker(pool, this))
    , pageJob_(new JobTracker(pool, this))
    , catalogPath_(std::move(catalogPath)) {
    query_.limit = 0;
}

void EntryTableModel::setQuery(const catalog::SearchQuery& query) {
    const auto sort = query_.sort;
    const bool descending = query_.descending;
    query_ = query;
    query_.sort = sort;
    query_.descending = descending;
    select(false);
}

void EntryTableModel::refresh() {
    select(true);
}

void EntryTableModel::select(bool reload) {
    queried_ = true;
    loading_ = true;
    timer_.start();
    if (reload) {
        index_.reset();
    }
    if (reload || matchedText_ != query_.text) {
        matches_.reset();
    }
    const std::filesystem::path path = catalogPath_.toStdString();
    job_->run<Result<Selection>>(
        [path, query = query_, index = index_,
         matches = matches_](const JobContext&) -> Result<Selection> {
            Selection out{index, matches, {}, {}};
            if (!out.index || !out.matches) {
                auto catalog = catalog::Catalog::open(path);
                if (!catalog) {
                    return std::unexpected(std::move(catalog.error()));
                }
                if (!out.index) {
                    auto loaded = catalog->load_index();
                    if (!loaded) {
                        return std::unexpected(std::move(loaded.error()));
                    }
                    out.index = std::make_shared<const catalog::EntryIndex>(std::move(*loaded));
                }
                if (!out.matches) {
                    auto found = catalog->text_match_ids(query.text);
                    if (!found) {
                        return std::unexpected(std::move(found.error()));
                    }
                    out.matches = std::make_shared<const Matches>(std::move(*found));
                }
            }
            out.ids = *out.matches ? out.index->select(query, std::span(**out.matches))
                                   : out.index->select(query);
            if (!out.ids.empty()) {
                auto catalog = catalog::Catalog::open(path);
                if (!catalog) {
                    return std::unexpected(std::move(catalog.error()));
                }
                const auto count = std::min<std::size_t>(kPageSize, out.ids.size());
                auto hits = catalog->entries_by_id(std::span(out.ids).first(count));
                if (!hits) {
                    return std::unexpected(std::move(hits.error()));
                }
                out.firstPage = std::move(*hits);
            }
            return out;
        },
        [this, queried = query_.text](Result<Selection> selected) {
            loading_ = false;
            if (!selected) {
                emit failed(text(selected.error().describe()));
                return;
            }
            index_ = std::move(selected->index);
            matches_ = std::move(selected->matches);
            matchedText_ = queried;
            // Pages of the old rows, loaded or on their way, are of no use now.
            pageJob_->cancel();
            loadingPage_.reset();
            wantedPages_.clear();
            beginResetModel();
            ids_ = std::move(selected->ids);
            pages_.clear();
            pageOrder_.clear();
            if (!ids_.empty()) {
                keepPage(0, std::move(selected->firstPage));
            }
            endResetModel();
            emit loaded(rowCount(), timer_.elapsed());
        });
}

std::optional<int> EntryTableModel::rowOfId(std::int64_t id) const {
    auto it = std::find(ids_.begin(), ids_.end(), id);
    if (it == ids_.end()) {
        return std::nullopt;
    }
    return static_cast<int>(it - ids_.begin());
}

std::optional<catalog::SearchHit> EntryTableModel::hitAt(int row) const {
    const auto* found = hit(row);
    return found != nullptr ? std::optional(*found) : std::nullopt;
}

const std::vector<catalog::SearchHit>* EntryTableModel::page(int number) const {
    if (auto it = pages_.find(number); it != pages_.end()) {
        return &it->second;
    }
    // Never read on the GUI thread (a writer may hold the catalog for
    // seconds): asked for, and shown when it is in.
    wantedPages_.insert(number);
    if (!loadingPage_) {
        QMetaObject::invokeMethod(const_cast<EntryTableModel*>(this),
                                  &EntryTableModel::loadWantedPage, Qt::QueuedConnection);
    }
    return nullptr;
}

void EntryTableModel::keepPage(int number, std::vector<catalog::SearchHit> hits) const {
    if (pages_.size() >= kPagesKept) {
        pages_.erase(pageOrder_.front());
        pageOrder_.pop_front();
    }
    pageOrder_.push_back(number);
    pages_.insert_or_assign(number, std::move(hits));
}

void EntryTableModel::loadWantedPage() {
    if (loadingPage_ || wantedPages_.empty()) {
        return;
    }
    // The page asked for last is the one the view shows now.
    const int number = *wantedPages_.rbegin();
    wantedPages_.erase(number);
    const std::size_t first = static_cast<std::size_t>(number) * kPageSize;
    if (first >= ids_.size() || pages_.contains(number)) {
        loadWantedPage();
        return;
    }
    loadingPage_ = number;
    const std::size_t count = std::min<std::size_t>(kPageSize, ids_.size() - first);
    std::vector<std::int64_t> ids(ids_.begin() + static_cast<std::ptrdiff_t>(first),
                                  ids_.begin() + static_cast<std::ptrdiff_t>(first + count));
    const std::filesystem::path path = catalogPath_.toStdString();
    pageJob_->run<Result<LoadedPage>>(
        [path, number, ids = std::move(ids)](const JobContext&) -> Result<LoadedPage> {
            auto catalog = catalog::Catalog::open(path);
            if (!catalog) {
                return std::unexpected(std::move(catalog.error()));
            }
            auto hits = catalog->entries_by_id(ids);
            if (!hits) {
                return std::unexpected(std::move(hits.error()));
            }
            return LoadedPage{number, std::move(*hits)};
        },
        [this](Result<LoadedPage> loaded) {
            if (!loaded) {
                emit failed(text(loaded.error().describe()));
                return;
            }
            keepPage(loaded->number, std::move(loaded->hits));
            const int firstRow = loaded->number * kPageSize;
            const int lastRow = std::min(rowCount(), firstRow + kPageSize) - 1;
            if (lastRow >= firstRow) {
                emit dataChanged(index(firstRow, 0), index(lastRow, ColumnCount - 1));
            }
        },
        [this](bool) {
            loadingPage_.reset();
            loadWantedPage();
        });
}

void EntryTableModel::markNewSince(std::optional<std::int64_t> ns) {
    newSince_ = ns;
    if (rowCount() > 0) {
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::FontRole});
    }
}

std::optional<std::int64_t> EntryTableModel::idAt(int row) const {
    if (row < 0 || static_cast<std::size_t>(row) >= ids_.size()) {
        return std::nullopt;
    }
    return ids_[static_cast<std::size_t>(row)];
}

bool EntryTableModel::isRowLoaded(int row) const {
    return pages_.contains(row / kPageSize);
}

const catalog::SearchHit* EntryTableModel::hit(int row) const {
    if (row < 0 || static_cast<std::size_t>(row) >= ids_.size()) {
        return nullptr;
    }
    const auto* rows = page(row / kPageSize);
    if (rows == nullptr) {
        return nullptr;
    }
    // An entry removed since the ids were read is skipped in its page: find it by id.
    const std::int64_t id = ids_[static_cast<std::size_t>(row)];
    const std::size_t at = static_cast<std::size_t>(row % kPageSize);
    if (at < rows->size() && (*rows)[at].entry_id == id) {
        return &(*rows)[at];
    }
    for (const auto& candidate : *rows) {
        if (candidate.entry_id == id) {
            return &candidate;
        }
    }
    return nullptr;
}

int EntryTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(ids_.size());
}

int EntryTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EntryTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto* entry = hit(index.row());
    if (entry == nullptr) {
        if (role != Qt::DisplayRole || index.column() != Key) {
            return {};
        }
        return isRowLoaded(index.row()) ? QVariant(tr("(removed)")) : QVariant(tr("Loading…"));
    }
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Kind:
            return text(std::string(cachedir::to_string(entry->kind)));
        case Graph:
            return text(entry->role);
        case Key:
            return text(entry->name.empty() ? entry->key : entry->key + "  " + entry->name);
        case KeyEntries:
            return entry->key_entries;
        case Size:
            return text(format_bytes(entry->size));
        case Modified:
            return text(format_age(entry->mtime_ns));
        case Device:
            return text(entry->device);
        case CompileTime:
            return entry->compile_time_ns ? text(format_duration_ns(*entry->compile_time_ns))
                                          : QVariant();
        case Guards:
            return entry->has_guards ? QVariant(*entry->has_guards ? tr("yes") : tr("no"))
                                     : QVariant();
        case Path:
            return text(entry->path);
        }
        break;
    case RawValueRole:
        switch (index.column()) {
        case Size:
            return QVariant::fromValue<qulonglong>(entry->size);
        case Modified:
            return QVariant::fromValue<qlonglong>(entry->mtime_ns);
        case CompileTime:
            return entry->compile_time_ns ? QVariant::fromValue<qlonglong>(*entry->compile_time_ns)
                                          : QVariant();
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::ToolTipRole:
        return literalText(tr("%1\nin %2\n%3, modified %4%5")
                               .arg(text(entry->path), text(entry->root),
                                    text(format_bytes(entry->size)),
                                    text(format_time(entry->mtime_ns)),
                                    entry->parse_status == "ok"
                                        ? QString()
                                        : tr("\nparse: %1").arg(text(entry->parse_status))));
    case Qt::FontRole: {
        const bool fixed = index.column() == Key || index.column() == Path;
        const bool isNew = newSince_ && entry->mtime_ns >= *newSince_;
        if (!fixed && !isNew) {
            break;
        }
        QFont font = fixed ? QFontDatabase::systemFont(QFontDatabase::FixedFont) : QFont();
        font.setBold(isNew);
        return font;
    }
    case Qt::TextAlignmentRole:
        if (index.column() == KeyEntries || index.column() == Size ||
            index.column() == CompileTime) {
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        break;
    case Qt::ForegroundRole:
        if (entry->parse_status != "ok") {
            return QColor(Qt::red);
        }
        break;
    case Qt::DecorationRole:
        // A row that did not parse is marked where the eye starts, not only by colour.
        if (index.column() == Kind && entry->parse_status != "ok") {
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        }
        break;
    case EntryRefRole: {
        EntryRef ref;
        ref.root = entry->root;
        ref.entry.kind = entry->kind;
        ref.entry.key = entry->key;
        ref.entry.path = entry->path;
        ref.entry.name = entry->name;
        ref.entry.size = entry->size;
        ref.entry.mtime_ns = entry->mtime_ns;
        return QVariant::fromValue(ref);
    }
    case EntryIdRole:
        return QVariant::fromValue<qlonglong>(entry->entry_id);
    }
    return {};
}

QVariant EntryTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case Kind:
        return tr("Kind");
    case Graph:
        return tr("Graph");
    case Key:
        return tr("Key");
    case KeyEntries:
        return tr("Entries");
    case Size:
        return tr("Size");
    case Modified:
        return tr("Modified");
    case Device:
        return tr("Device");
    case CompileTime:
        return tr("Compile time");
    case Guards:
        return tr("Guards");
    case Path:
        return tr("Path");
    }
    return {};
}

void EntryTableModel::sort(int column, Qt::SortOrder order) {
    query_.sort = sortColumnOf(column);
    query_.descending = order == Qt::DescendingOrder;
    // A view sets its sort (setSortingEnabled, sortByColumn) before its owner
    // runs the first query: one query then, not one per call (each of them a
    // full sort of the catalog, queued ahead of the one that counts).
    if (queried_) {
        select(false);
    }
}

} // namespace cachelens::ui
