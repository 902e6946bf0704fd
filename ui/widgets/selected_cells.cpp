#include "widgets/selected_cells.h"

#include <QAbstractItemView>
#include <QItemSelectionModel>

#include <algorithm>
#include <utility>

namespace cachelens::ui {

QString selectedCellsText(const QAbstractItemView& view, int role) {
    const auto* selection = view.selectionModel();
    if (!selection) {
        return {};
    }
    QModelIndexList indexes = selection->selectedIndexes();
    std::sort(indexes.begin(), indexes.end(), [](const QModelIndex& a, const QModelIndex& b) {
        return std::pair(a.row(), a.column()) < std::pair(b.row(), b.column());
    });
    QStringList lines;
    int row = -1;
    QStringList cells;
    for (const auto& index : indexes) {
        if (index.row() != row && row >= 0) {
            lines << cells.join(u'\t');
            cells.clear();
        }
        row = index.row();
        QVariant value = index.data(role);
        if (!value.isValid()) {
            value = index.data(Qt::DisplayRole);
        }
        cells << value.toString();
    }
    if (!cells.isEmpty()) {
        lines << cells.join(u'\t');
    }
    return lines.join(u'\n');
}

} // namespace cachelens::ui
