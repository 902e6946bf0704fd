#include "widgets/plan_table.h"

#include "models/import_plan_model.h"
#include "widgets/selected_cells.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QShortcut>
#include <QTableView>

namespace cachelens::ui {

QTableView* makePlanTable(const QString& objectName, QAbstractItemModel* model,
                          std::initializer_list<ColumnWidth> widths) {
    auto* table = new QTableView;
    table->setObjectName(objectName);
    table->setModel(model);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideMiddle);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    const int charWidth = table->fontMetrics().horizontalAdvance(QLatin1Char('m'));
    for (const auto [column, characters] : widths) {
        table->setColumnWidth(column, characters * charWidth);
    }
    auto* copy = new QShortcut(QKeySequence::Copy, table);
    copy->setContext(Qt::WidgetShortcut);
    QObject::connect(copy, &QShortcut::activated, table, [table] {
        if (const QString cells = selectedCellsText(*table); !cells.isEmpty()) {
            QApplication::clipboard()->setText(cells);
        }
    });
    return table;
}

QTableView* makeImportPlanTable(const QString& objectName, ImportPlanModel* model) {
    return makePlanTable(objectName, model,
                         {
                             {ImportPlanModel::ActionColumn, 7},
                             {ImportPlanModel::VerdictColumn, 16},
                             {ImportPlanModel::TypeColumn, 9},
                             {ImportPlanModel::KeyColumn, 16},
                             {ImportPlanModel::SizeColumn, 6},
                             {ImportPlanModel::DestinationColumn, 14},
                             {ImportPlanModel::ParsesToColumn, 17},
                         });
}

} // namespace cachelens::ui
