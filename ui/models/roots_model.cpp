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
    using Trees = std::map<std::string, std::shared_ptr<const serving::ServingTree>>;
    using Read = std::pair<std::vector<catalog::RootStats>, Trees>;
    const std::filesystem::path path = catalogPath_.toStdString();
    job_->run<Result<Read>>(
        [path](const JobContext&) -> Result<Read> {
            auto catalog = catalog::Catalog::open(path);
            if (!catalog) {
                return std::unexpected(std::move(catalog.error()));
            }
            auto stats = catalog->stats(std::nullopt, 0);
            if (!stats) {
                return std::unexpected(std::move(stats.error()));
            }
            // A server's tree is shown as its cache dirs: read them here, off the GUI thread.
            Trees trees;
            for (const auto& root : *stats) {
                const auto layout = root.root.layout;
                if (layout != cachedir::RootLayout::Vllm &&
                    layout != cachedir::RootLayout::Sglang) {
                    continue;
                }
                if (const auto location = serving::locate_serving_tree(root.root.location)) {
                    if (auto tree = serving::read_serving_tree(location->root)) {
                        trees.emplace(
                            root.root.location,
                            std::make_shared<const serving::ServingTree>(std::move(*tree)));
                    }
                }
            }
            return Read{std::move(*stats), std::move(trees)};
        },
        [this](Result<Read> read) {
            if (!read) {
                emit failed(QString::fromStdString(read.error().describe()));
                return;
            }
            setStats(std::move(read->first), std::move(read->second));
        });
}

void RootsModel::setStats(
    std::vector<catalog::RootStats> stats,
    std::map<std::string, std::shared_ptr<const serving::ServingTree>> trees) {
    beginResetModel();
    roots_.clear();
    nodes_.clear();
    rootChildren_.clear();
    for (auto& root : stats) {
        RootRow row;
        for (const auto& [kind, counts] : root.kinds) {
            row.entries += counts.entries;
            row.bytes += counts.bytes;
            row.kinds.emplace_back(kind, counts);
        }
        if (const auto tree = trees.find(root.root.location); tree != trees.end()) {
            row.tree = tree->second;
        }
        row.stats = std::move(root);
        roots_.push_back(std::move(row));
    }
    const auto add = [this](Node node, std::vector<int>& siblings) {
        node.row = static_cast<int>(siblings.size());
        const int id = static_cast<int>(nodes_.size());
        nodes_.push_back(std::move(node));
        siblings.push_back(id);
        return id;
    };
    rootChildren_.resize(roots_.size());
    for (std::size_t r = 0; r < roots_.size(); ++r) {
        const RootRow& root = roots_[r];
        if (root.tree) {
            // The hash dirs under the dir indexed (the whole tree, or a dir in it).
            const std::string location = root.stats.root.location;
            for (const auto& hash : root.tree->hash_dirs) {
                const std::string path = (root.tree->root / hash.path).string();
                if (!(path == location || path.starts_with(location + "/") ||
                      location.starts_with(path + "/") || location == root.tree->root.string())) {
                    continue;
                }
                const int hashNode =
                    add({r, -1, 0, 0, &hash, nullptr, nullptr, {}}, rootChildren_[r]);
                for (const auto& rank : hash.ranks) {
                    std::vector<int> ranks = nodes_[static_cast<std::size_t>(hashNode)].children;
                    const int rankNode = add({r, hashNode, 0, 0, &hash, &rank, nullptr, {}}, ranks);
                    nodes_[static_cast<std::size_t>(hashNode)].children = std::move(ranks);
                    for (const auto& prefix : rank.prefixes) {
                        std::vector<int> prefixes =
                            nodes_[static_cast<std::size_t>(rankNode)].children;
                        add({r, rankNode, 0, 0, &hash, &rank, &prefix, {}}, prefixes);
                        nodes_[static_cast<std::size_t>(rankNode)].children = std::move(prefixes);
                    }
                }
            }
            continue;
        }
        for (std::size_t k = 0; k < root.kinds.size(); ++k) {
            add({r, -1, 0, k, nullptr, nullptr, nullptr, {}}, rootChildren_[r]);
        }
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

const std::vector<int>& RootsModel::childrenOf(const QModelIndex& parent) const {
    if (parent.internalId() == 0) {
        return rootChildren_[static_cast<std::size_t>(parent.row())];
    }
    return nodes_[static_cast<std::size_t>(parent.internalId() - 1)].children;
}

QModelIndex RootsModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    if (!parent.isValid()) {
        return createIndex(row, column, quintptr(0));
    }
    const auto& children = childrenOf(parent);
    return createIndex(row, column, quintptr(children[static_cast<std::size_t>(row)] + 1));
}

QModelIndex RootsModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == 0) {
        return {};
    }
    const Node& node = nodes_[static_cast<std::size_t>(child.internalId() - 1)];
    if (node.parent < 0) {
        return createIndex(static_cast<int>(node.root), 0, quintptr(0));
    }
    const Node& parent = nodes_[static_cast<std::size_t>(node.parent)];
    return createIndex(parent.row, 0, quintptr(node.parent + 1));
}

int RootsModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) {
        return static_cast<int>(roots_.size());
    }
    if (parent.column() != 0) {
        return 0;
    }
    return static_cast<int>(childrenOf(parent).size());
}

int RootsModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

bool RootsModel::isTritonCache(const RootRow& root) {
    return root.stats.root.layout == cachedir::RootLayout::Triton;
}

bool RootsModel::isServing(const RootRow& root) {
    return root.stats.root.layout == cachedir::RootLayout::Vllm ||
           root.stats.root.layout == cachedir::RootLayout::Sglang;
}

QVariant RootsModel::servingData(const Node& node, int column, int role) const {
    if (role == ServingPathRole) {
        return QString::fromStdString(node.prefix ? node.prefix->path
                                      : node.rank ? node.rank->path
                                                  : node.hash->path);
    }
    if (role == Qt::ToolTipRole) {
        return tr("Open it on the Serving page: its piecewise graphs, and why vLLM made it");
    }
    if (role == Qt::TextAlignmentRole && column != Name) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    if (column == Name) {
        if (node.prefix != nullptr) {
            return node.prefix->name.empty() ? tr("(index in the rank dir)")
                                             : QString::fromStdString(node.prefix->name);
        }
        if (node.rank != nullptr) {
            return QString::fromStdString(node.rank->name);
        }
        return node.hash->name.empty() ? tr("(no hash: eager)")
                                       : QString::fromStdString(node.hash->name);
    }
    if (column == Entries && node.prefix != nullptr && node.prefix->index) {
        return QVariant::fromValue<qulonglong>(node.prefix->index->entries.size());
    }
    if (column == Size && node.rank == nullptr) {
        return QString::fromStdString(format_bytes(node.hash->bytes));
    }
    return {};
}

QVariant RootsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) {
        return {};
    }
    const bool isRoot = index.internalId() == 0;
    const Node* node = isRoot ? nullptr : &nodes_[static_cast<std::size_t>(index.internalId() - 1)];
    const RootRow& root = roots_[isRoot ? static_cast<std::size_t>(index.row()) : node->root];
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
                 : isServing(root)
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
    if (node->hash != nullptr) {
        return servingData(*node, index.column(), role);
    }
    const auto& [kind, counts] = root.kinds[node->kind];
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
