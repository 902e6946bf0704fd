#pragma once

// Qt Charts take no colours from the palette: this gives a chart the
// widget's palette and font (background, title, legend, axes and grid), so a
// dark palette gives a dark chart. Series colours stay with each view.

class QChartView;
class QWidget;

namespace cachelens::ui {

void applyChartStyle(QChartView* view, const QWidget& styleSource);

} // namespace cachelens::ui
