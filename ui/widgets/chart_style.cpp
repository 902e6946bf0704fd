#include "widgets/chart_style.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QWidget>

namespace cachelens::ui {

void applyChartStyle(QChartView* view, const QWidget& styleSource) {
    const QPalette& colours = styleSource.palette();
    const QColor text = colours.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(40);
    QColor axisLine = text;
    axisLine.setAlpha(120);
    QChart* chart = view->chart();
    view->setBackgroundBrush(colours.color(QPalette::Base));
    chart->setBackgroundBrush(colours.color(QPalette::Base));
    chart->setBackgroundPen(Qt::NoPen);
    chart->setTitleBrush(text);
    QFont titleFont = styleSource.font();
    titleFont.setBold(true);
    chart->setTitleFont(titleFont);
    chart->legend()->setLabelColor(text);
    chart->legend()->setFont(styleSource.font());
    for (auto* axis : chart->axes()) {
        axis->setLabelsBrush(text);
        axis->setLabelsFont(styleSource.font());
        axis->setTitleBrush(text);
        axis->setTitleFont(styleSource.font());
        axis->setLinePenColor(axisLine);
        axis->setGridLineColor(grid);
        axis->setShadesVisible(false);
    }
}

} // namespace cachelens::ui
