#pragma once

// The sidebar: the catalog's cache dirs, each with its entries and bytes,
// and under it one row per kind; under a vLLM or SGLang tree instead its
// cache dirs, each with its ranks and their prefixes (serving/), whose rows
// lead to the Serving page.

#include "jobs/job_tracker.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/serving/serving_tree.h>

#include <QAbstractItemModel>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::ui {

class RootsModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { Name, Entries, Size, ColumnCount };
    enum Role {
        RootPathRole = Qt::UserRole + 1, // the root's dir, on every row
        KindRole,                        // the kind's name, on kind rows
        // On a serving tree's rows: the hash dir's, rank's or prefix's path
        // below the tree's root ("3fbdd5227b/rank_0_0/backbone").
        ServingPathRole,
    };

    RootsModel(JobPool& pool, QString catalogPath, QObject* parent = nullptr);

    // Reads the catalog's roots and their counts again (in a job).
    void refresh();
    bool isRefreshing() const;
    // Takes stats already read (tests, and the job's result), with the trees
    // of the roots that are vLLM or SGLang trees (by location; read when not given).
    void setStats(std::vector<catalog::RootStats> stats,
                  std::map<std::string, std::shared_ptr<const serving::ServingTree>> trees = {});
    QModelIndex indexOfRoot(const std::filesystem::path& root) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

signals:
    void refreshed();
    void failed(const QString& message);

private:
    struct RootRow {
        catalog::RootStats stats;
        std::uint64_t entries = 0;
        std::uint64_t bytes = 0;
        std::vector<std::pair<cachedir::FileKind, catalog::KindStats>> kinds;
        std::shared_ptr<const serving::ServingTree> tree; // a vLLM or SGLang root's
    };
    // A row below a root: a kind, or a serving tree's hash dir, rank or prefix.
    // The internal id of an index is its node's position + 1 (0: a root row).
    struct Node {
        std::size_t root = 0;
        int parent = -1; // -1: the root row itself
        int row = 0;
        std::size_t kind = 0; // into RootRow::kinds, for a kind row
        const serving::HashDir* hash = nullptr;
        const serving::RankDir* rank = nullptr;
        const serving::PrefixDir* prefix = nullptr;
        std::vector<int> children;
    };

    // TRITON_CACHE_DIR (or an Inductor cache's triton/<device>/), not an Inductor cache.
    static bool isTritonCache(const RootRow& root);
    static bool isServing(const RootRow& root);
    const std::vector<int>& childrenOf(const QModelIndex& parent) const;
    QVariant servingData(const Node& node, int column, int role) const;

    JobTracker* job_;
    QString catalogPath_;
    std::vector<RootRow> roots_;
    std::vector<Node> nodes_;
    std::vector<std::vector<int>> rootChildren_; // per root, its rows' nodes
};

} // namespace cachelens::ui
