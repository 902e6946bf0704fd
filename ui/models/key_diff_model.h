#pragma once

// KeyDiffModel: two cache keys' debug lines aligned by attribute, one row per
// attribute: the differences first (in explain::diff_keys' order), then the
// attributes both keys share. Columns: attribute, change, left value, right value.

#include "data/key_comparison.h"

#include <cachelens/explain/line_diff.h>

#include <QAbstractTableModel>
#include <QString>

#include <memory>
#include <vector>

namespace cachelens::ui {

class KeyDiffModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { AttributeColumn, ChangeColumn, LeftColumn, RightColumn, ColumnCount };
    enum class Change { Changed, OnlyLeft, OnlyRight, Same };
    enum Role {
        ChangeRole = Qt::UserRole + 1, // int(Change)
        FullValueRole, // the whole value of a value column (Display is its first line)
    };

    struct Row {
        QString attribute; // "inductor_config[benchmark_kernel]"
        Change change = Change::Same;
        QString left;  // the whole value; empty when only on the right
        QString right; // the whole value; empty when only on the left
        bool hasLeft = false;
        bool hasRight = false;
        std::vector<explain::DiffLine> valueDiff;    // multi-line changed values (gm normalized)
        std::vector<explain::DiffLine> rawValueDiff; // gm's code as written
    };

    explicit KeyDiffModel(QObject* parent = nullptr);

    // Shows `comparison` (kept alive: valueDiff views into it); null clears.
    void setComparison(std::shared_ptr<const KeyComparison> comparison);
    void clear() { setComparison(nullptr); }
    const KeyComparison* comparison() const { return comparison_.get(); }

    const Row& row(int index) const { return rows_.at(static_cast<std::size_t>(index)); }
    int differing() const { return differing_; }
    int same() const { return static_cast<int>(rows_.size()) - differing_; }

    static QString changeName(Change change);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const KeyComparison> comparison_;
    std::vector<Row> rows_;
    int differing_ = 0;
};

} // namespace cachelens::ui
