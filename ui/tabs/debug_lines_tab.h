#pragma once

// The Debug lines tab (FX entries): the cache-key debug lines in a table
// (hash, attribute, value), a filter over attribute and value (Ctrl+F), the
// selected line's whole value below in a code view, Ctrl+C copying the
// selected lines as recorded.

#include "tabs/entry_tab.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace cachelens::ui {

class CodeView;
class DebugLinesModel;

class DebugLinesTab : public EntryTab {
    Q_OBJECT

public:
    explicit DebugLinesTab(QWidget* parent = nullptr);

    bool appliesTo(cachedir::FileKind kind) const override;
    void showEntry(const EntryRef& ref, const SharedContent& content) override;
    void clear() override;

    void setFilterText(const QString& text);
    // Copies the selected lines, whole, one per line.
    void copySelection();

    DebugLinesModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLineEdit* filterEdit() const { return filter_; }
    CodeView* valueView() const { return value_; }

private:
    void updateCount();
    void showCurrentValue();

    QLineEdit* filter_ = nullptr;
    QLabel* count_ = nullptr;
    QTableView* table_ = nullptr;
    CodeView* value_ = nullptr;
    DebugLinesModel* model_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
};

} // namespace cachelens::ui
