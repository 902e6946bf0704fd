#pragma once

// ComparePage: two FX graph entries' cache keys side by side, aligned by
// attribute (what `cachelens diff` prints): a table of attributes with the
// differences first, and below it the selected attribute's values, with a
// line diff inside multi-line values such as the `gm` graph code.

#include "data/entry_ref.h"
#include "data/key_comparison.h"

#include <QWidget>

#include <memory>

class QAbstractItemView;
class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTableView;

namespace cachelens::ui {

class JobPool;
class JobTracker;
class KeyDiffModel;

class ComparePage : public QWidget {
    Q_OBJECT

public:
    explicit ComparePage(JobPool& pool, QWidget* parent = nullptr);

    // Loads both entries off the GUI thread and shows how their keys differ.
    // Either may be in any root; both must be FX graph entries.
    void compare(const EntryRef& left, const EntryRef& right);
    // Shows a comparison already loaded.
    void showComparison(std::shared_ptr<const KeyComparison> comparison);
    void clear();

    KeyDiffModel* model() const { return model_; }

signals:
    void statusMessage(const QString& message);

private:
    void showError(const QString& message);
    void showSelected();
    void copySelection();

    JobTracker* job_;
    KeyDiffModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* keys_;
    QLabel* summary_;
    QLabel* verdict_; // why the right key misses the left one, in one line
    QLabel* causes_;  // the causes ranked, then the example inputs that changed
    QLabel* error_;
    QCheckBox* hideSame_;
    QCheckBox* rawCode_; // the graph code's diff as written, not normalized
    QTableView* table_;
    QPlainTextEdit* detail_;
};

} // namespace cachelens::ui
