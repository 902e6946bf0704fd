#pragma once

// The Benchmarks page's chart: a box per measured config of one kernel
// (min, p20, median, p80, max) with its samples as dots over it, the fastest
// config's box tinted. Planned and failed candidates have no box.

#include <QString>

class QChart;
class QChartView;
class QWidget;

namespace cachelens::ui {

class BenchResultsModel;

// Replaces what `chart` shows with the rows of `kernelKey`
// (BenchResultsModel::kernelKey); none: an empty chart with a title that says what it is for.
// Returns whether the chart shows samples: before a run there are none to
// show, and the page hides the chart rather than show an empty pane.
bool buildBenchChart(QChart* chart, const BenchResultsModel& results, const QString& kernelKey);
// The palette's colours on the chart built, the fastest box in the "pass" tint.
void styleBenchChart(QChartView* view, const QWidget& styleSource);

} // namespace cachelens::ui
