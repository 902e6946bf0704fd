#pragma once

// The Serving page's tree: a vLLM or SGLang torch_compile_cache tree as its
// hash dirs, each with its ranks, each with its prefixes (serving/
// serving_tree.h), with how many piecewise graphs each index names and the
// bytes of each hash dir. The engine's tree is kept as read; text becomes a
// QString only in data().

#include <cachelens/serving/serving_tree.h>

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace cachelens::ui {

class ServingTreeModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { NameColumn, GraphsColumn, SizeColumn, ColumnCount };
    enum Role {
        // The row's path relative to the tree's root ("3fbdd5227b/rank_0_0/backbone").
        RelativePathRole = Qt::UserRole + 1,
        LevelRole, // 0 hash dir, 1 rank, 2 prefix
    };

    explicit ServingTreeModel(QObject* parent = nullptr);

    void setTree(std::shared_ptr<const serving::ServingTree> tree);
    const serving::ServingTree* tree() const { return tree_.get(); }
    // The row of `relative` (a hash dir, rank or prefix path), or an invalid index.
    QModelIndex indexOf(const QString& relative) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    // One row: a hash dir, a rank or a prefix, by its place in the engine's tree.
    struct Node {
        int parent = -1; // index into nodes_, -1 for a hash dir
        int level = 0;
        const serving::HashDir* hash = nullptr;
        const serving::RankDir* rank = nullptr;
        const serving::PrefixDir* prefix = nullptr;
        std::vector<int> children;
        int row = 0; // among its parent's children
    };

    std::shared_ptr<const serving::ServingTree> tree_;
    std::vector<Node> nodes_;
    std::vector<int> top_; // the hash dirs' nodes
};

} // namespace cachelens::ui
