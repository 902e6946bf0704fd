#pragma once

// The Autotune tab: what autotuning chose, winners highlighted. A
// best_config: its config; the benchmark cache: every timed choice, the
// fastest per benchmark; an FX entry: each kernel's candidates, the winner
// the one its best_config names (best_configs are read off the GUI thread);
// a module: its kernels' best_configs and the benchmarks that timed it.
// Sortable; double-click or Enter follows a link (Triton kernel, module,
// best_config); Ctrl+C copies the selected rows.

#include "tabs/entry_tab.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace cachelens::ui {

class AutotuneModel;
class JobPool;
class JobTracker;

class AutotuneTab : public EntryTab {
    Q_OBJECT

public:
    explicit AutotuneTab(JobPool& pool, QWidget* parent = nullptr);
    ~AutotuneTab() override;

    bool appliesTo(cachedir::FileKind kind) const override;
    void showEntry(const EntryRef& ref, const SharedContent& content) override;
    void clear() override;

    // Copies the selected rows, tab-separated, visible columns only.
    void copySelection();

    AutotuneModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLabel* summaryLabel() const { return summary_; }

private:
    void modelChanged();
    void follow(const QModelIndex& index);

    QLabel* summary_ = nullptr;
    QTableView* table_ = nullptr;
    AutotuneModel* model_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    JobTracker* job_;
    QString emptyText_;
};

} // namespace cachelens::ui
