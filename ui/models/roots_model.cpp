#include "models/roots_model.h"

#include "text/plain_text.h"

#include <cachelens/core/format.h>

#include <QDir>

namespace cachelens::ui {

RootsModel::RootsModel(JobPool& pool, QString catalogPath, QObject* parent)
    : QAbstractItemModel(parent)
    , job_(new JobTracker(pool, this))
    , catalogPath_(std::move(catalogPath)) {}

void RootsModel::refresh() {
    const std::filesystem::path path = catalogPath_.toStdString();
    job_->run<Result<std::vector<catalog::RootStats>>>(
        [path](const JobContext&) -> Result<std::vector<catalog::RootStats>> {
            auto catalog = catalog::Catalog::open(path);
            if (!catalog) {
                return std::unexpected(std::move(catalog.error()));
            }
            return catalog->stats(std::nullopt, 0);
        },
        [this](Result<std::vector<catalog::RootStats>> stats) {
            if (!stats) {
                emit failed(QString::fromStdString(stats.error().describe()));
                return;
            }
            setStats(std::move(*stats));
        });
}

void RootsModel::setStats(std::vector<catalog::RootStats> stats) {
    beginResetModel();
    roots_.clear();
    for (auto& root : stats) {
        RootRow row;
        for (const auto& [kind, counts] : root.kinds) {
            row.entries += counts.entries;
            row.bytes += counts.bytes;
            row.kinds.emplace_back(kind, counts);
        }
        row.stats = std::move(root);
        roots_.push_back(std::move(row));
    }
    endResetModel();
    emit refreshed();
}

bool RootsModel::isRefreshing() const {
    return job_->isRunning();
}

QModelIndex RootsModel::indexOfRoot(const std::filesystem::path& root) const {
    const std::string location = catalog::root_location(root);
    for (std::size_t i = 0; i < roots_.size(); ++i) {
        if (roots_[i].stats.root.location == location) {
            return createIndex(static_cast<int>(i), 0, quintptr(0));
        }
    }
    return {};
}

QModelIndex RootsModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    if (!parent.isValid()) {
        return createIndex(row, column, quintptr(0));
    }
    return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex RootsModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == 0) {
        return {};
    }
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int RootsModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) {
        return static_cast<int>(roots_.size());
    }
    if (parent.internalId() == 0 && parent.column() == 0) {
        return static_cast<int>(roots_[static_cast<std::size_t>(parent.row())].kinds.size());
    }
    return 0;
}

int RootsModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

bool RootsModel::isTritonCache(const RootRow& root) {
    return root.stats.root.layout == cachedir::RootLayout::Triton;
}

QVariant RootsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) {
        return {};
    }
    const bool isRoot = index.internalId() == 0;
    const RootRow& root =
        roots_[static_cast<std::size_t>(isRoot ? index.row() : index.internalId() - 1)];
    const QString location = QString::fromStdString(root.stats.root.location);
    if (role == RootPathRole) {
        return location;
    }
    if (isRoot) {
        switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
            case Name: {
                const QString name = QDir::toNativeSeparators(location).section('/', -2);
                switch (root.stats.root.layout) {
                case cachedir::RootLayout::Triton:
                    return tr("%1 (Triton cache)").arg(name);
                case cachedir::RootLayout::Vllm:
                    return tr("%1 (vLLM)").arg(name);
                case cachedir::RootLayout::Sglang:
                    return tr("%1 (SGLang)").arg(name);
                case cachedir::RootLayout::Inductor:
                    break;
                }
                return name;
            }
            case Entries:
                return QVariant::fromValue<qulonglong>(root.entries);
            case Size:
                return QString::fromStdString(format_bytes(root.bytes));
            }
            break;
        case Qt::ToolTipRole:
            return literalText(
                (root.stats.root.indexed_ns ? tr("%1\nindexed %2")
                                                  .arg(location, QString::fromStdString(format_age(
                                                                     *root.stats.root.indexed_ns)))
                                            : tr("%1\nnot completely indexed").arg(location)) +
                (isTritonCache(root) ? tr("\nTriton's own cache: one dir per compiled kernel")
                 : root.stats.root.layout == cachedir::RootLayout::Vllm ||
                         root.stats.root.layout == cachedir::RootLayout::Sglang
                     ? tr("\nA server's torch_compile_cache: its cache dirs, ranks and prefixes "
                          "on the Serving page")
                     : QString()));
        case Qt::TextAlignmentRole:
            if (index.column() != Name) {
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            }
            break;
        }
        return {};
    }
    const auto& [kind, counts] = root.kinds[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name:
            return QString::fromStdString(std::string(cachedir::to_string(kind)));
        case Entries:
            return QVariant::fromValue<qulonglong>(counts.entries);
        case Size:
            return QString::fromStdString(format_bytes(counts.bytes));
        }
        break;
    case KindRole:
        return QString::fromStdString(std::string(cachedir::to_string(kind)));
    case Qt::ToolTipRole:
        return tr("%1 files, oldest %2, newest %3%4")
            .arg(counts.files)
            .arg(QString::fromStdString(format_age(counts.oldest_ns)),
                 QString::fromStdString(format_age(counts.newest_ns)),
                 counts.parse_errors > 0 ? tr(", %1 do not parse").arg(counts.parse_errors)
                                         : QString());
    case Qt::TextAlignmentRole:
        if (index.column() != Name) {
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        break;
    }
    return {};
}

QVariant RootsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case Name:
        return tr("Cache dir");
    case Entries:
        return tr("Entries");
    case Size:
        return tr("Size");
    }
    return {};
}

} // namespace cachelens::ui
