#pragma once

// The Benchmarks page's history table: every result the catalog keeps for one
// kernel (or module), across runs and GPUs, oldest run first; read with
// bench::kernel_history in a job that opens its own catalog connection.

#include "jobs/job_tracker.h"

#include <cachelens/bench/bench_store.h>

#include <QAbstractTableModel>

#include <vector>

namespace cachelens::ui {

class BenchHistoryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        RunColumn,
        StartedColumn,
        DeviceColumn,
        ConfigColumn,
        MedianColumn,
        SpreadColumn, // p20–p80
        MinColumn,
        SamplesColumn,
        StatusColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw numbers
        WasBestRole,                 // the .best_config named it when it ran
        RunIdRole,
    };

    BenchHistoryModel(JobPool& pool, QString catalogPath, QObject* parent = nullptr);

    // Reads the history of a kernel name or module key (in a job, which a
    // newer load supersedes); emits loaded() or failed().
    void load(const QString& kernelOrModule);
    // Takes a history already read (tests, and the job's result).
    void setHistory(const QString& kernelOrModule, std::vector<bench::HistoryRow> rows);
    void clear();

    const QString& kernel() const { return kernel_; }
    const std::vector<bench::HistoryRow>& rows() const { return rows_; }
    // How many different runs the rows come from.
    int runCount() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

signals:
    void loaded(int rows);
    void failed(const QString& message);

private:
    QVariant display(const bench::HistoryRow& row, int column) const;
    QVariant sortValue(const bench::HistoryRow& row, int column) const;

    JobTracker* job_;
    QString catalogPath_;
    QString kernel_;
    std::vector<bench::HistoryRow> rows_;
};

} // namespace cachelens::ui
