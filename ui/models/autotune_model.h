#pragma once

// The Autotune tab's model: what autotuning chose among what, one row per
// config or timed choice, the winners marked (bold, "best" in the marker
// column, a tinted background):
//  - a best_config: the config it records;
//  - an FX entry: every kernel's candidates, the current best
//    (cachedir::current_best: the one the kernel's best_config names, or the
//    only one) the winner; a winner none of them is (coordinate descent
//    refined it) as a row of its own;
//  - the benchmark cache: every timed choice, the fastest per (op, inputs,
//    precision) the winner;
//  - a module: the best_configs of its kernels and the benchmarks that timed it.
// Columns a mode does not fill stay empty; isColumnUsed() lets a view hide them.

#include "data/entry_links.h"

#include <cachelens/cachedir/benchmark_cache.h>
#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/fx_graph_entry.h>

#include <QAbstractTableModel>
#include <QString>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::ui {

class AutotuneModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        MarkerColumn, // "best", "this module"
        KernelColumn, // kernel name, or the benchmarked op
        ConfigColumn, // config kwargs, or the benchmark choice
        TimeColumn,   // a benchmark's time, ms
        NumWarpsColumn,
        NumStagesColumn,
        AutotuneTimeColumn, // how long autotuning took, ms
        CoordescColumn,
        TritonColumn,     // the candidate's / winner's Triton kernel dir
        BestConfigColumn, // where the winner is recorded
        PrecisionColumn,
        InputsColumn, // long: last
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1,  // numbers as numbers
        IsBestRole,                   // bool
        LinkKindRole = kLinkKindRole, // int(FileKind) when the cell links somewhere
        LinkTargetRole = kLinkTargetRole,
    };

    explicit AutotuneModel(QObject* parent = nullptr);

    // `path`: where it is, shown (and linked) when not empty; `kernel`: the
    // kernel it is for, when known (its winner's Triton dir names it).
    void showBestConfig(const cachedir::BestConfig& best, const QString& path,
                        const QString& kernel = {});
    // `bestConfigs`: the best_configs found for the entry's kernels, by the
    // path relative to the root (cacheRelativePath of best_config_path).
    void showFxGraph(const cachedir::FxGraphEntry& fx,
                     const std::map<std::string, cachedir::BestConfig>& bestConfigs = {});
    // `moduleKey`: a module whose choices to mark; empty for none.
    void showBenchmarkCache(const cachedir::BenchmarkCache& cache, const QString& moduleKey = {});
    // A module's best_configs, and the benchmarks (from `caches`) that timed it.
    void showModule(const QString& moduleKey,
                    const std::vector<cachedir::LocatedBestConfig>& bestConfigs,
                    const std::vector<cachedir::BenchmarkCache>& caches);
    void clear();

    bool isColumnUsed(int column) const;
    int bestCount() const;
    std::optional<EntryLink> linkAt(const QModelIndex& index) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row {
        std::array<QVariant, ColumnCount> cells;
        std::array<std::optional<EntryLink>, ColumnCount> links;
        bool best = false;
        bool marked = false; // the module the tab is about
        QString note;        // the tooltip of its cells that link nowhere
    };
    static Row configRow(const cachedir::KernelConfig& config);
    static Row bestConfigRow(const cachedir::BestConfig& best, const QString& path);
    static void appendBenchmarkRows(std::vector<Row>& rows, const cachedir::BenchmarkCache& cache,
                                    const QString& moduleKey, bool onlyGroupsWithModule);
    void setRows(std::vector<Row> rows);

    std::vector<Row> rows_;
    std::array<bool, ColumnCount> used_{};
};

} // namespace cachelens::ui
