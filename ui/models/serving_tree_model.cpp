#include "models/serving_tree_model.h"

#include "text/engine_text.h"

#include <cachelens/core/format.h>

namespace cachelens::ui {

ServingTreeModel::ServingTreeModel(QObject* parent)
    : QAbstractItemModel(parent) {}

void ServingTreeModel::setTree(std::shared_ptr<const serving::ServingTree> tree) {
    beginResetModel();
    tree_ = std::move(tree);
    nodes_.clear();
    top_.clear();
    if (tree_) {
        for (const auto& hash : tree_->hash_dirs) {
            const int hash_node = static_cast<int>(nodes_.size());
            nodes_.push_back({-1, 0, &hash, nullptr, nullptr, {}, static_cast<int>(top_.size())});
            top_.push_back(hash_node);
            for (const auto& rank : hash.ranks) {
                const int rank_node = static_cast<int>(nodes_.size());
                nodes_.push_back({hash_node,
                                  1,
                                  &hash,
                                  &rank,
                                  nullptr,
                                  {},
                                  static_cast<int>(nodes_[hash_node].children.size())});
                nodes_[hash_node].children.push_back(rank_node);
                for (const auto& prefix : rank.prefixes) {
                    const int prefix_node = static_cast<int>(nodes_.size());
                    nodes_.push_back({rank_node,
                                      2,
                                      &hash,
                                      &rank,
                                      &prefix,
                                      {},
                                      static_cast<int>(nodes_[rank_node].children.size())});
                    nodes_[rank_node].children.push_back(prefix_node);
                }
            }
        }
    }
    endResetModel();
}

QModelIndex ServingTreeModel::indexOf(const QString& relative) const {
    // From the deepest: vLLM 0.8's prefix has its rank dir's path.
    for (std::size_t i = nodes_.size(); i-- > 0;) {
        const Node& node = nodes_[i];
        const std::string& path = node.prefix ? node.prefix->path
                                  : node.rank ? node.rank->path
                                              : node.hash->path;
        if (text(path) == relative) {
            return createIndex(node.row, 0, static_cast<quintptr>(i));
        }
    }
    return {};
}

QModelIndex ServingTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount) {
        return {};
    }
    const std::vector<int>& rows =
        parent.isValid() ? nodes_[static_cast<std::size_t>(parent.internalId())].children : top_;
    if (row >= static_cast<int>(rows.size())) {
        return {};
    }
    return createIndex(row, column, static_cast<quintptr>(rows[static_cast<std::size_t>(row)]));
}

QModelIndex ServingTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) {
        return {};
    }
    const int parent = nodes_[static_cast<std::size_t>(child.internalId())].parent;
    if (parent < 0) {
        return {};
    }
    return createIndex(nodes_[static_cast<std::size_t>(parent)].row, 0,
                       static_cast<quintptr>(parent));
}

int ServingTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) {
        return static_cast<int>(top_.size());
    }
    if (parent.column() != 0) {
        return 0;
    }
    return static_cast<int>(nodes_[static_cast<std::size_t>(parent.internalId())].children.size());
}

int ServingTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant ServingTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) {
        return {};
    }
    const Node& node = nodes_[static_cast<std::size_t>(index.internalId())];
    if (role == RelativePathRole) {
        return text(node.prefix ? node.prefix->path
                    : node.rank ? node.rank->path
                                : node.hash->path);
    }
    if (role == LevelRole) {
        return node.level;
    }
    if (role == Qt::ToolTipRole && node.level == 0) {
        return node.hash->kind == serving::HashDir::Kind::Aot
                   ? tr("vLLM's AOT-compiled model (torch_aot_compile)")
                   : tr("A cache dir: vLLM names it by a hash of its settings");
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (index.column()) {
    case NameColumn:
        if (node.prefix != nullptr) {
            return node.prefix->name.empty() ? tr("(index in the rank dir)")
                                             : text(node.prefix->name);
        }
        if (node.rank != nullptr) {
            return text(node.rank->name);
        }
        return node.hash->name.empty() ? tr("(no hash: eager)") : text(node.hash->name);
    case GraphsColumn:
        if (node.prefix != nullptr) {
            if (node.prefix->index_error) {
                return tr("unreadable index");
            }
            return node.prefix->index
                       ? QVariant(static_cast<qulonglong>(node.prefix->index->entries.size()))
                       : QVariant(tr("no index"));
        }
        return {};
    case SizeColumn:
        return node.level == 0 ? text(format_bytes(node.hash->bytes)) : QVariant();
    }
    return {};
}

QVariant ServingTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case NameColumn:
        return tr("Cache dir / rank / prefix");
    case GraphsColumn:
        return tr("Graphs");
    case SizeColumn:
        return tr("Size");
    }
    return {};
}

} // namespace cachelens::ui
