#pragma once

// The table of a dry run (import, pull, push): one row per thing the action
// would touch, whole rows selected, each on one line with long keys and
// paths elided in the middle (the models' tooltips hold them whole), and
// Ctrl+C copying the selected rows.

#include <QString>

#include <initializer_list>

class QAbstractItemModel;
class QTableView;

namespace cachelens::ui {

struct ColumnWidth {
    int column;
    int characters; // of the table's font ('m' wide)
};

// The last column stretches; the others take `widths`.
QTableView* makePlanTable(const QString& objectName, QAbstractItemModel* model,
                          std::initializer_list<ColumnWidth> widths);

class ImportPlanModel;
// The table of an import plan, as the Import and Pull dialogs show it.
QTableView* makeImportPlanTable(const QString& objectName, ImportPlanModel* model);

} // namespace cachelens::ui
