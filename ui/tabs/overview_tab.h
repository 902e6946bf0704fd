#pragma once

// The Overview tab (every kind): the entry's fields as a tree, the ones that
// name another entry shown as links. Double-click, Enter or the context
// menu's "Go to" follows a link (followRequested); Ctrl+C copies the
// selected fields. A module's Triton kernels are found off the GUI thread
// and added when they are known.

#include "tabs/entry_tab.h"

class QLabel;
class QTreeView;

namespace cachelens::ui {

class EntryFieldsModel;
class JobPool;
class JobTracker;

class OverviewTab : public EntryTab {
    Q_OBJECT

public:
    explicit OverviewTab(JobPool& pool, QWidget* parent = nullptr);
    ~OverviewTab() override;

    bool appliesTo(cachedir::FileKind kind) const override;
    void showEntry(const EntryRef& ref, const SharedContent& content) override;
    void clear() override;

    EntryFieldsModel* model() const { return model_; }
    QTreeView* view() const { return view_; }
    // Follows the link at `index` (of model()); false when it is none.
    bool followLink(const QModelIndex& index);
    // One selected field: its value; several: "name<TAB>value" lines.
    void copySelection();

private:
    void showContextMenu(const QPoint& position);
    void onActivated(const QModelIndex& index);
    void fitNameColumn();

    QLabel* title_ = nullptr;
    QTreeView* view_ = nullptr;
    EntryFieldsModel* model_ = nullptr;
    JobTracker* tritonJob_;
    JobTracker* safetyJob_;
    JobTracker* aotJob_; // an FX graph's AOTAutograd entries
};

} // namespace cachelens::ui
