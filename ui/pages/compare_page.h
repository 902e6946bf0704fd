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

class JobRunner;
class KeyDiffModel;

class ComparePage : public QWidget {
    Q_OBJECT

public:
    explicit ComparePage(JobRunner& jobs, QWidget* parent = nullptr);

    // Loads both entries off the GUI thread and shows how their keys differ.
    // Either may be in any root; both must be FX graph entries.
    void compare(const EntryRef& left, const EntryRef& right);
    // Shows a comparison already loaded.
    void showComparison(std::shared_ptr<const KeyComparison> comparison);
    void clear();

    // The JobRunner channel loads go through ("compare"); a view embedded in
    // another one takes its own, so that the two do not supersede each other.
    void setChannel(const QString& channel) { channel_ = channel; }
    KeyDiffModel* model() const { return model_; }

signals:
    void statusMessage(const QString& message);

private:
    void showError(const QString& message);
    void showSelected();
    void copySelection();

    JobRunner& jobs_;
    QString channel_ = QStringLiteral("compare");
    KeyDiffModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* keys_;
    QLabel* summary_;
    QLabel* error_;
    QCheckBox* hideSame_;
    QTableView* table_;
    QPlainTextEdit* detail_;
};

} // namespace cachelens::ui
