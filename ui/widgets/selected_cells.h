#pragma once

// Ctrl+C on a table: the selected cells as text a spreadsheet or an editor
// takes (tab-separated, one line per row).

#include <QString>

class QAbstractItemView;

namespace cachelens::ui {

// The selected cells of `view`, tab-separated, one line per row, read with
// `role` (a model's whole-value role rather than a cell's one-line display;
// DisplayRole where the model has none).
QString selectedCellsText(const QAbstractItemView& view, int role = Qt::DisplayRole);

} // namespace cachelens::ui
