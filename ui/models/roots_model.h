#pragma once

// The sidebar: the catalog's cache dirs, each with its entries and bytes,
// and under it one row per kind.

#include "jobs/job_tracker.h"

#include <cachelens/catalog/catalog.h>

#include <QAbstractItemModel>

#include <filesystem>
#include <optional>
#include <vector>

namespace cachelens::ui {

class RootsModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { Name, Entries, Size, ColumnCount };
    enum Role {
        RootPathRole = Qt::UserRole + 1, // the root's dir, on root and kind rows
        KindRole,                        // the kind's name, on kind rows
    };

    RootsModel(JobPool& pool, QString catalogPath, QObject* parent = nullptr);

    // Reads the catalog's roots and their counts again (in a job).
    void refresh();
    bool isRefreshing() const;
    // Takes stats already read (tests, and the job's result).
    void setStats(std::vector<catalog::RootStats> stats);
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
    // Internal ids: 0 for a root row, root index + 1 for its kind rows.
    struct RootRow {
        catalog::RootStats stats;
        std::uint64_t entries = 0;
        std::uint64_t bytes = 0;
        std::vector<std::pair<cachedir::FileKind, catalog::KindStats>> kinds;
    };

    // TRITON_CACHE_DIR (or an Inductor cache's triton/<device>/), not an Inductor cache.
    static bool isTritonCache(const RootRow& root);

    JobTracker* job_;
    QString catalogPath_;
    std::vector<RootRow> roots_;
};

} // namespace cachelens::ui
