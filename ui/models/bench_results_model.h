#pragma once

// The Benchmarks page's results table: one row per candidate of the current
// run as `cachelens bench --json-lines` reports it (and one per kernel or
// candidate it could not plan), with its median, p20–p80 and min, how it
// compares with the config the .best_config names, and the fastest ok
// candidate of each kernel marked and tinted.

#include "data/bench_run_parser.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <map>
#include <optional>
#include <vector>

namespace cachelens::ui {

class BenchResultsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        KernelColumn,
        ConfigColumn,
        MedianColumn,
        SpreadColumn, // p20–p80
        MinColumn,
        SamplesColumn,
        VsCurrentColumn, // median relative to the current best config's
        StatusColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw numbers; failed rows sort after every time
        FastestRole,                 // the fastest ok candidate of its kernel
        WasBestRole,                 // the .best_config names it
        OkRole,                      // measured without an error
        KernelKeyRole,               // what groups a kernel's rows (kernelKey)
    };

    explicit BenchResultsModel(QObject* parent = nullptr);

    void clear();
    // All rows at once (a plan listing): one reset instead of a row at a time.
    void setRows(std::vector<BenchResultEvent> rows);
    void appendResult(BenchResultEvent result);
    // Shown as a row with status "plan" and the reason as its message.
    void appendUnplannable(const BenchUnplannableEvent& unplannable);
    // After `bench accept`: the kernel's .best_config now names `tritonHash`.
    void markBest(const QString& kernelKey, const QString& tritonHash);

    // A launch plan as a row: status "planned", the launch geometry as its message.
    static BenchResultEvent plannedRow(const BenchPlanEvent& plan);
    static BenchResultEvent unplannableRow(const BenchUnplannableEvent& unplannable);

    const BenchResultEvent& result(int row) const { return rows_.at(static_cast<size_t>(row)); }
    // A kernel's rows, in the order they arrived.
    std::vector<int> rowsOfKernel(const QString& kernelKey) const;
    std::optional<int> fastestRow(const QString& kernelKey) const;
    // The module and kernel name: names alone repeat across graphs.
    static QString kernelKey(const BenchResultEvent& result);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant display(const BenchResultEvent& result, int column) const;
    QVariant sortValue(const BenchResultEvent& result, int column) const;
    std::optional<double> vsCurrent(const BenchResultEvent& result) const;
    const BenchResultEvent* currentBest(const QString& kernelKey) const;
    void kernelChanged(const QString& kernelKey);

    std::vector<BenchResultEvent> rows_;
    std::map<QString, std::vector<int>> kernels_;
};

// Sorts by SortRole; with no sort column, in the order the results arrived.
class BenchResultsSortProxy : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit BenchResultsSortProxy(QObject* parent = nullptr);
};

// Milliseconds with the digits that matter: 0.0241, 1.250, 12.50.
QString formatMs(double ms);
// "Grid1D 4096×1×1, 128 threads, 16 B shared".
QString launchText(const BenchPlanEvent& plan);

} // namespace cachelens::ui
