#include "widgets/bench_chart.h"

#include "models/bench_results_model.h"
#include "text/counted.h"
#include "text/plain_text.h"
#include "widgets/chart_style.h"
#include "widgets/highlight_colors.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QCursor>
#include <QLegend>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <limits>

namespace cachelens::ui {

namespace {

// Samples drawn per config: a 100 ms budget on a µs kernel keeps thousands.
constexpr std::size_t kMaxPointsPerConfig = 400;
const char* const kFastestProperty = "cachelensFastest";
const char* const kTipProperty = "cachelensTip";

// The page's words: translated in its context.
QString tr(const char* text, const char* disambiguation = nullptr, int n = -1) {
    return QCoreApplication::translate("BenchPage", text, disambiguation, n);
}

void clearChart(QChart* chart) {
    chart->removeAllSeries();
    for (auto* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

// Above this many configs the axis labels are short: values only.
constexpr std::size_t kLongLabelConfigs = 6;

// "XBLOCK=1, R0_BLOCK=4096, num_warps=4, num_stages=1" as an axis label: a
// line per block size, then warps and stages, then what the config is to
// this kernel; `compact`: "1 · 4096", "w4 s1". Axis labels are rich text.
QString configLabel(const BenchResultEvent& result, bool fastest, bool compact) {
    QStringList sizes;
    QStringList launch;
    for (const QString& part : result.configText.split(QStringLiteral(", "), Qt::SkipEmptyParts)) {
        if (part.startsWith(QLatin1String("num_"))) {
            launch << (compact ? part.mid(4, 1) + part.section(u'=', 1) : part.mid(4));
        } else {
            sizes << (compact ? part.section(u'=', 1) : part);
        }
    }
    QStringList lines;
    if (compact) {
        lines << sizes.join(QStringLiteral(" · ")).toHtmlEscaped();
    } else {
        for (const QString& size : sizes) {
            lines << size.toHtmlEscaped();
        }
    }
    if (!launch.isEmpty()) {
        lines << launch.join(u' ').toHtmlEscaped();
    }
    if (result.wasBest) {
        lines << tr("<b>current best</b>");
    }
    if (fastest) {
        lines << tr("<b>fastest</b>");
    }
    return lines.join(QStringLiteral("<br>"));
}

} // namespace

bool buildBenchChart(QChart* chart, const BenchResultsModel& results, const QString& kernelKey) {
    clearChart(chart);
    const auto rows = results.rowsOfKernel(kernelKey);
    if (rows.empty()) {
        chart->setTitle(tr("Samples per config of the selected kernel"));
        chart->legend()->hide();
        return false;
    }
    const auto fastest = results.fastestRow(kernelKey);
    std::vector<int> measured;
    double low = std::numeric_limits<double>::max();
    double high = 0;
    for (int row : rows) {
        const auto& result = results.result(row);
        if (result.ok() && !result.samplesMs.empty()) {
            measured.push_back(row);
            const auto [least, most] =
                std::minmax_element(result.samplesMs.begin(), result.samplesMs.end());
            low = std::min(low, *least);
            high = std::max(high, *most);
        }
    }
    const auto planned = static_cast<int>(std::count_if(
        rows.begin(), rows.end(), [&](int row) { return results.result(row).planned(); }));
    const int failed = static_cast<int>(rows.size() - measured.size()) - planned;
    const auto& first = results.result(rows.front());
    if (planned > 0 && measured.empty() && failed == 0) {
        chart->setTitle(tr("%2<br>%1 planned, not timed yet: Run times them")
                            .arg(counted(static_cast<std::size_t>(planned), "config"))
                            .arg(first.kernel.toHtmlEscaped()));
    } else {
        chart->setTitle(failed == 0
                            ? tr("%1: samples per config").arg(first.kernel.toHtmlEscaped())
                            : tr("%1: samples per config (%n failed, not shown)", nullptr, failed)
                                  .arg(first.kernel.toHtmlEscaped()));
    }
    if (measured.empty()) {
        chart->legend()->hide();
        return false;
    }
    // µs for kernels under a millisecond: 24.1 reads better than 0.0241.
    const bool micro = high < 1.0;
    const double scale = micro ? 1000.0 : 1.0;

    auto* boxes = new QBoxPlotSeries;
    boxes->setName(tr("min, p20, median, p80, max"));
    boxes->setBoxWidth(0.45);
    auto* points = new QScatterSeries;
    points->setName(tr("samples"));
    points->setMarkerSize(4);
    points->setBorderColor(Qt::transparent);
    QStringList labels;
    for (std::size_t i = 0; i < measured.size(); ++i) {
        const auto& result = results.result(measured[i]);
        const auto& samples = result.samplesMs;
        const auto [least, most] = std::minmax_element(samples.begin(), samples.end());
        const bool isFastest = fastest == measured[i];
        labels << configLabel(result, isFastest, measured.size() > kLongLabelConfigs);
        auto* set = new QBoxSet(*least * scale, result.p20Ms * scale, result.medianMs * scale,
                                result.p80Ms * scale, *most * scale, labels.back());
        set->setProperty(kFastestProperty, isFastest);
        set->setProperty(kTipProperty,
                         tr("%2\nmedian %3 ms, p20–p80 %4–%5 ms, %1")
                             .arg(counted(static_cast<std::size_t>(samples.size()), "sample"))
                             .arg(result.configText, formatMs(result.medianMs),
                                  formatMs(result.p20Ms), formatMs(result.p80Ms)));
        boxes->append(set);
        // Spread across the box's width, the same way each time (golden ratio).
        const std::size_t stride = std::max<std::size_t>(1, samples.size() / kMaxPointsPerConfig);
        for (std::size_t j = 0; j < samples.size(); j += stride) {
            const double spread = std::fmod(static_cast<double>(j) * 0.6180339887, 1.0) - 0.5;
            points->append(static_cast<double>(i) + spread * 0.4, samples[j] * scale);
        }
    }
    chart->addSeries(points);
    chart->addSeries(boxes);
    QObject::connect(boxes, &QBoxPlotSeries::hovered, boxes, [](bool status, QBoxSet* set) {
        if (status && set != nullptr) {
            QToolTip::showText(QCursor::pos(), literalText(set->property(kTipProperty).toString()));
        } else {
            QToolTip::hideText();
        }
    });

    auto* configs = new QBarCategoryAxis;
    configs->append(labels);
    configs->setTruncateLabels(false);
    // The legend's markers would take the first box's colour: say it in words.
    configs->setTitleText(
        tr("Config<br>boxes: p20–p80 and the median · whiskers: min–max · dots: the samples"));
    auto* pointsX = new QValueAxis; // the scatter's x, under the categories
    pointsX->setRange(-0.5, static_cast<double>(measured.size()) - 0.5);
    pointsX->setVisible(false);
    auto* time = new QValueAxis;
    time->setTitleText(micro ? tr("Time (µs)") : tr("Time (ms)"));
    const double pad = std::max((high - low) * 0.08, high * 0.01);
    time->setRange(std::max(0.0, low - pad) * scale, (high + pad) * scale);
    time->applyNiceNumbers();
    chart->addAxis(configs, Qt::AlignBottom);
    chart->addAxis(pointsX, Qt::AlignBottom);
    chart->addAxis(time, Qt::AlignLeft);
    boxes->attachAxis(configs);
    boxes->attachAxis(time);
    points->attachAxis(pointsX);
    points->attachAxis(time);
    chart->legend()->hide();
    return true;
}

void styleBenchChart(QChartView* view, const QWidget& styleSource) {
    const QPalette& colours = styleSource.palette();
    const QColor text = colours.color(QPalette::Text);
    QColor box = colours.color(QPalette::Highlight);
    box.setAlpha(110);
    QColor fastest = highlight::pass();
    fastest.setAlpha(170);
    QColor point = text;
    point.setAlpha(110);
    applyChartStyle(view, styleSource);
    for (auto* series : view->chart()->series()) {
        if (auto* boxes = qobject_cast<QBoxPlotSeries*>(series)) {
            boxes->setPen(QPen(text, 1.2));
            for (auto* set : boxes->boxSets()) {
                set->setBrush(set->property(kFastestProperty).toBool() ? fastest : box);
                set->setPen(QPen(text, 1.2));
            }
        } else if (auto* points = qobject_cast<QScatterSeries*>(series)) {
            points->setColor(point);
            points->setBorderColor(Qt::transparent);
        }
    }
}

} // namespace cachelens::ui
