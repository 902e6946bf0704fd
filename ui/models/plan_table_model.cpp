#include "models/plan_table_model.h"

#include "text/plain_text.h"

#include <QFont>
#include <QFontDatabase>

namespace cachelens::ui {

PlanTableModel::PlanTableModel(Columns columns, QObject* parent)
    : QAbstractTableModel(parent)
    , columns_(std::move(columns)) {}

int PlanTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : rows();
}

int PlanTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(columns_.headers.size());
}

QVariant PlanTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const int row = index.row();
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(row, column);
    case SortRole:
        if (column == columns_.size) {
            return QVariant::fromValue<qulonglong>(bytes(row));
        }
        return display(row, column);
    case ActionRole:
        return action(row);
    case Qt::ToolTipRole:
        return literalText(toolTip(row));
    case Qt::FontRole:
        if (columns_.fixedFont.contains(column)) {
            return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        }
        if (column == columns_.action && needsALook(row)) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::BackgroundRole:
        return background(row);
    case Qt::TextAlignmentRole:
        if (column == columns_.size) {
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    }
    return {};
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= columns_.headers.size()) {
        return {};
    }
    return columns_.headers[section];
}

} // namespace cachelens::ui
