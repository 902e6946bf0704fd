#include "panels/bench_view.h"

#include "jobs/job_runner.h"
#include "models/bench_history_model.h"
#include "models/bench_results_model.h"
#include "models/highlight_colors.h"
#include "views/chart_style.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QCoreApplication>
#include <QCursor>
#include <QEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace cachelens::ui {

namespace {

// The stderr kept for an error message: its end says what went wrong.
constexpr qsizetype kStderrKeptBytes = 16 * 1024;
// Samples drawn per config: a 100 ms budget on a µs kernel keeps thousands.
constexpr std::size_t kMaxPointsPerConfig = 400;
constexpr int kKillAfterMs = 2000;
const char* const kFastestProperty = "cachelensFastest";
const char* const kTipProperty = "cachelensTip";

QLabel* makeBanner(const QString& objectName, const QString& rgb) {
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Translucent over the palette's background: readable in light and dark
    // palettes, the text keeps the palette's colour.
    label->setStyleSheet(
        QStringLiteral("QLabel { background: rgba(%1, 0.18); border: 1px solid rgba(%1, 0.6); "
                       "padding: 4px; }")
            .arg(rgb));
    label->hide();
    return label;
}

QTableView* makeTable(const QString& objectName) {
    auto* table = new QTableView;
    table->setObjectName(objectName);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    table->setAlternatingRowColors(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setSortingEnabled(true);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    return table;
}

// Columns as wide as their contents, the long text ones at most so many
// characters wide (elided; the tooltip has it all): {column, characters}.
void fitColumns(QTableView* table, std::initializer_list<std::pair<int, int>> caps) {
    table->resizeColumnsToContents();
    const int character = table->fontMetrics().averageCharWidth();
    for (const auto& [column, characters] : caps) {
        table->setColumnWidth(column, std::min(table->columnWidth(column), characters * character));
    }
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
        lines << QCoreApplication::translate("BenchView", "<b>current best</b>");
    }
    if (fastest) {
        lines << QCoreApplication::translate("BenchView", "<b>fastest</b>");
    }
    return lines.join(QStringLiteral("<br>"));
}

} // namespace

BenchView::BenchView(JobRunner& jobs, QString catalogPath, QWidget* parent)
    : QWidget(parent)
    , jobs_(jobs)
    , catalogPath_(std::move(catalogPath))
    , program_(findCli())
    , killTimer_(new QTimer(this))
    , results_(new BenchResultsModel(this))
    , sorted_(new BenchResultsSortProxy(this))
    , history_(new BenchHistoryModel(jobs, catalogPath_, this)) {
    title_ = new QLabel(tr("Benchmarks"));
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    title_->setFont(titleFont);
    dir_ = new QLabel;
    dir_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    dir_->setWordWrap(true);
    device_ = new QLabel(tr("Re-benchmarks the cache dir's Triton kernels on this machine's GPU "
                            "with the cachelens command-line tool."));
    device_->setObjectName(QStringLiteral("benchDevice"));
    device_->setWordWrap(true);
    device_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    filter_ = new QLineEdit;
    filter_->setObjectName(QStringLiteral("benchKernelFilter"));
    filter_->setPlaceholderText(tr("every kernel, or kernel names and module keys"));
    filter_->setClearButtonEnabled(true);
    filter_->setToolTip(tr("Kernel names or module keys (c…), separated by spaces"));
    allConfigs_ = new QCheckBox(tr("All configs"));
    allConfigs_->setToolTip(tr("Time every compiled config of each kernel (--all-configs)"));
    run_ = new QPushButton(tr("Run"));
    run_->setToolTip(tr("Run cachelens bench on this cache dir"));
    cancel_ = new QPushButton(tr("Cancel"));
    progress_ = new QProgressBar;
    progress_->setObjectName(QStringLiteral("benchProgress"));
    progress_->setFormat(QString()); // "%v / %m" once a run says how many
    progress_->setRange(0, 1);
    progress_->setValue(0);
    status_ = new QLabel(tr("Not run yet."));
    status_->setObjectName(QStringLiteral("benchStatus"));
    status_->setWordWrap(true);
    error_ = makeBanner(QStringLiteral("benchError"), QStringLiteral("220, 50, 47"));
    notice_ = makeBanner(QStringLiteral("benchNotice"), QStringLiteral("230, 160, 0"));
    outcome_ = makeBanner(QStringLiteral("benchOutcome"), QStringLiteral("40, 190, 60"));

    auto* header = new QHBoxLayout;
    header->addWidget(title_);
    header->addWidget(dir_, 1);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Kernels:")));
    controls->addWidget(filter_, 1);
    controls->addWidget(allConfigs_);
    controls->addWidget(run_);
    controls->addWidget(cancel_);
    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(progress_, 1);
    progressRow->addWidget(status_, 2);

    sorted_->setSourceModel(results_);
    table_ = makeTable(QStringLiteral("benchResults"));
    table_->setModel(sorted_);
    // No sort column until the user picks one: the order the results arrived.
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    selection_ = new QLabel;
    selection_->setWordWrap(true);
    selection_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    accept_ = new QPushButton(tr("Make best config"));
    accept_->setObjectName(QStringLiteral("benchAccept"));
    accept_->setToolTip(tr("Rewrite the kernel's .best_config to name the selected config "
                           "(cachelens bench accept; the old file is backed up)"));
    auto* resultsBox = new QGroupBox(tr("Results"));
    auto* resultsLayout = new QVBoxLayout(resultsBox);
    resultsLayout->addWidget(table_, 1);
    auto* acceptRow = new QHBoxLayout;
    acceptRow->addWidget(selection_, 1);
    acceptRow->addWidget(accept_, 0, Qt::AlignTop);
    resultsLayout->addLayout(acceptRow);

    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chartView_ = new QChartView(chart);
    chartView_->setObjectName(QStringLiteral("benchSamplesChart"));
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->setMinimumHeight(260);

    historyTable_ = makeTable(QStringLiteral("benchHistory"));
    historyTable_->setModel(history_);
    historyTable_->setSortingEnabled(false);
    historyTable_->setWordWrap(true);
    historyTitle_ = new QLabel(tr("Select a result to see its kernel's earlier runs."));
    historyTitle_->setWordWrap(true);
    auto* historyBox = new QGroupBox(tr("History in the catalog"));
    auto* historyLayout = new QVBoxLayout(historyBox);
    historyLayout->addWidget(historyTitle_);
    historyLayout->addWidget(historyTable_, 1);

    auto* lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(chartView_);
    lower->addWidget(historyBox);
    lower->setChildrenCollapsible(false);
    // Scaled to the width the page gets: the history's columns need a little more.
    lower->setSizes({380, 620});
    auto* parts = new QSplitter(Qt::Vertical);
    parts->addWidget(resultsBox);
    parts->addWidget(lower);
    parts->setChildrenCollapsible(false);
    parts->setStretchFactor(0, 2);
    parts->setStretchFactor(1, 3);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(device_);
    layout->addLayout(controls);
    layout->addLayout(progressRow);
    layout->addWidget(error_);
    layout->addWidget(notice_);
    layout->addWidget(outcome_);
    layout->addWidget(parts, 1);

    killTimer_->setSingleShot(true);
    connect(killTimer_, &QTimer::timeout, this, [this] {
        if (process_ != nullptr && process_->state() != QProcess::NotRunning) {
            process_->kill();
        }
    });
    connect(run_, &QPushButton::clicked, this, &BenchView::run);
    connect(filter_, &QLineEdit::returnPressed, this, &BenchView::run);
    connect(cancel_, &QPushButton::clicked, this, &BenchView::cancel);
    connect(accept_, &QPushButton::clicked, this, &BenchView::acceptSelected);
    connect(results_, &BenchResultsModel::rowsInserted, this,
            [this](const QModelIndex&, int first, int last) { onResultsInserted(first, last); });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &BenchView::onSelectionChanged);
    connect(history_, &BenchHistoryModel::loaded, this, [this](int rows) {
        // The config wraps onto two lines: the times stay in sight beside it.
        fitColumns(historyTable_, {{BenchHistoryModel::DeviceColumn, 16}});
        historyTable_->setColumnWidth(BenchHistoryModel::ConfigColumn,
                                      fontMetrics().averageCharWidth() * 38);
        historyTable_->resizeRowsToContents();
        historyTitle_->setText(
            rows == 0
                ? tr("%1 has no results in the catalog yet.").arg(history_->kernel())
                : tr("%n result(s) of %1 in %2 run(s), oldest first; times in ms.", nullptr, rows)
                      .arg(history_->kernel())
                      .arg(history_->runCount()));
    });
    connect(history_, &BenchHistoryModel::failed, this, [this](const QString& message) {
        historyTitle_->setText(tr("Could not read the history: %1").arg(message));
        emit statusMessage(message);
    });

    showRoot(std::nullopt);
    updateChart();
}

BenchView::~BenchView() {
    // A run or an accept must not outlive the page, nor report to it.
    for (QProcess* process : {process_, acceptProcess_}) {
        if (process != nullptr) {
            process->disconnect(this);
            if (process->state() != QProcess::NotRunning) {
                process->kill();
                process->waitForFinished(kKillAfterMs);
            }
        }
    }
}

QString BenchView::findCli() {
    const QString dir = QCoreApplication::applicationDirPath();
    for (const QString& candidate :
         {dir + QStringLiteral("/cachelens"), dir + QStringLiteral("/../cli/cachelens")}) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable()) {
            return info.canonicalFilePath();
        }
    }
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("cachelens"));
    // Not found anywhere: starting it fails and the page says so.
    return onPath.isEmpty() ? QStringLiteral("cachelens") : onPath;
}

void BenchView::setProgram(const QString& program) {
    program_ = program;
    updateButtons();
}

QChart* BenchView::chart() const {
    return chartView_->chart();
}

bool BenchView::isRunning() const {
    return process_ != nullptr;
}

bool BenchView::isAccepting() const {
    return acceptProcess_ != nullptr;
}

QString BenchView::statusText() const {
    return status_->text();
}

QString BenchView::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

QString BenchView::noticeText() const {
    return notice_->isHidden() ? QString() : notice_->text();
}

QString BenchView::outcomeText() const {
    return outcome_->isHidden() ? QString() : outcome_->text();
}

QString BenchView::deviceText() const {
    return device_->text();
}

void BenchView::showRoot(const std::optional<std::filesystem::path>& root) {
    root_ = root;
    dir_->setText(root ? QString::fromStdString(root->string())
                       : tr("Select a cache dir in the sidebar to benchmark its kernels."));
    updateButtons();
}

void BenchView::updateButtons() {
    const bool running = isRunning();
    run_->setEnabled(!running && !isAccepting() && root_.has_value() && !program_.isEmpty());
    cancel_->setEnabled(running);
    filter_->setEnabled(!running);
    allConfigs_->setEnabled(!running);

    const QModelIndex current = table_->selectionModel()->currentIndex();
    const int row = current.isValid() ? sorted_->mapToSource(current).row() : -1;
    bool acceptable = false;
    if (row >= 0) {
        const auto& result = results_->result(row);
        acceptable = result.ok() && !result.wasBest && !result.tritonHash.isEmpty();
        selection_->setText(
            tr("%1: %2%3")
                .arg(result.kernel, result.configText,
                     result.wasBest
                         ? tr(" (the current best config)")
                         : (result.ok() ? QString() : tr(" (failed: %1)").arg(result.status))));
    } else {
        selection_->setText(results_->rowCount() == 0
                                ? QString()
                                : tr("Select a result to chart its kernel and see its history."));
    }
    accept_->setEnabled(acceptable && !running && !isAccepting() && !runDir_.isEmpty());
}

void BenchView::setStatus(const QString& message) {
    status_->setText(message);
    emit statusMessage(message);
}

void BenchView::showError(const QString& message) {
    error_->setText(message);
    error_->show();
    emit statusMessage(message);
}

void BenchView::run() {
    if (isRunning() || isAccepting() || !root_) {
        return;
    }
    const QStringList kernels =
        filter_->text().split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    // They are positional arguments: a word starting with '-' would be an option.
    for (const QString& kernel : kernels) {
        if (kernel.startsWith(u'-')) {
            showError(tr("%1 is not a kernel name or module key.").arg(kernel));
            return;
        }
    }
    results_->clear();
    history_->clear();
    historyTitle_->setText(tr("Select a result to see its kernel's earlier runs."));
    parser_.reset();
    stderr_.clear();
    start_.reset();
    end_.reset();
    fatal_.reset();
    done_ = 0;
    total_ = 0;
    badLines_ = 0;
    cancelled_ = false;
    error_->hide();
    notice_->hide();
    outcome_->hide();
    shownKernel_.clear();
    updateChart();

    runDir_ = QString::fromStdString(root_->string());
    QStringList arguments{QStringLiteral("bench"), runDir_};
    arguments << kernels;
    if (allConfigs_->isChecked()) {
        arguments << QStringLiteral("--all-configs");
    }
    arguments << QStringLiteral("--json-lines") << QStringLiteral("--catalog") << catalogPath_;
    lastArguments_ = arguments;

    process_ = new QProcess(this);
    connect(process_, &QProcess::readyReadStandardOutput, this, &BenchView::readOutput);
    connect(process_, &QProcess::readyReadStandardError, this, [this] {
        stderr_.append(process_->readAllStandardError());
        if (stderr_.size() > kStderrKeptBytes) {
            stderr_.remove(0, stderr_.size() - kStderrKeptBytes);
        }
    });
    connect(process_, &QProcess::finished, this, &BenchView::processFinished);
    connect(process_, &QProcess::errorOccurred, this, &BenchView::processFailed);
    progress_->setRange(0, 0); // busy until the start event says how many
    progress_->setFormat(QString());
    elapsed_.start();
    setStatus(tr("Starting %1…").arg(QFileInfo(program_).fileName()));
    updateButtons();
    process_->start(program_, arguments);
}

void BenchView::cancel() {
    if (!isRunning() || cancelled_) {
        return;
    }
    cancelled_ = true;
    setStatus(tr("Cancelling…"));
    process_->terminate();
    killTimer_->start(kKillAfterMs);
}

void BenchView::readOutput() {
    if (process_ == nullptr) {
        return;
    }
    for (const auto& event : parser_.feed(process_->readAllStandardOutput())) {
        handle(event);
    }
}

void BenchView::handle(const BenchEvent& event) {
    if (const auto* start = std::get_if<BenchStartEvent>(&event)) {
        start_ = *start;
        total_ = start->candidates;
        progress_->setFormat(QStringLiteral("%v / %m"));
        progress_->setRange(0, std::max(total_, 1));
        progress_->setValue(0);
        const auto& device = start->device;
        QStringList facts{device.name, tr("compute capability %1").arg(device.computeCapability),
                          tr("driver %1").arg(device.driverVersion)};
        if (device.smClockMhz) {
            facts << tr("SM clock %1 MHz").arg(*device.smClockMhz);
        }
        if (device.l2Bytes > 0) {
            facts
                << tr("L2 %1 MiB").arg(static_cast<double>(device.l2Bytes) / (1 << 20), 0, 'f', 0);
        }
        device_->setText(tr("%1 · %2").arg(facts.join(QStringLiteral(", ")), start->protocol));
        setStatus(tr("Running: %n kernel(s), %1 candidate(s)…", nullptr, start->kernels)
                      .arg(start->candidates));
    } else if (const auto* result = std::get_if<BenchResultEvent>(&event)) {
        done_ = std::max(done_, result->index);
        if (result->total > 0) {
            total_ = result->total;
        }
        progress_->setRange(0, std::max(total_, 1));
        progress_->setValue(done_);
        setStatus(tr("Running: %1 of %2 (%3)").arg(done_).arg(total_).arg(result->kernel));
        results_->appendResult(*result);
    } else if (const auto* unplannable = std::get_if<BenchUnplannableEvent>(&event)) {
        results_->appendUnplannable(*unplannable);
    } else if (const auto* end = std::get_if<BenchEndEvent>(&event)) {
        end_ = *end;
    } else if (const auto* error = std::get_if<BenchErrorEvent>(&event)) {
        fatal_ = error->message;
        showError(error->message);
    } else if (const auto* bad = std::get_if<BenchBadLine>(&event)) {
        // Not fatal: the lines after it may be fine; but never silent.
        if (++badLines_ == 1) {
            notice_->setProperty("firstBadLine", tr("%1 (%2)").arg(bad->line, bad->why));
        }
        notice_->setText(tr("%n line(s) of cachelens output were not understood; the first: %1",
                            nullptr, badLines_)
                             .arg(notice_->property("firstBadLine").toString()));
        notice_->show();
    }
    // Plans are not asked for here (no --plan): nothing to show.
}

void BenchView::processFailed(QProcess::ProcessError error) {
    // Only a failed start never reaches finished(); the rest are handled there.
    if (error != QProcess::FailedToStart || process_ == nullptr) {
        return;
    }
    showError(tr("Could not start %1: %2. The Benchmarks page runs the cachelens command-line "
                 "tool; install it beside cachelens-gui or on PATH.")
                  .arg(program_, process_->errorString()));
    setStatus(tr("Failed."));
    endRun();
}

QString BenchView::stderrTail() const {
    return QString::fromUtf8(stderr_).trimmed();
}

void BenchView::processFinished(int exitCode, QProcess::ExitStatus status) {
    killTimer_->stop();
    readOutput();
    for (const auto& event : parser_.finish()) {
        handle(event);
    }
    const QString seconds =
        tr("%1 s").arg(static_cast<double>(elapsed_.elapsed()) / 1000, 0, 'f', 1);
    const QString tail = stderrTail();
    if (cancelled_) {
        setStatus(tr("Cancelled after %1 of %2 candidates.").arg(done_).arg(total_));
    } else if (status == QProcess::CrashExit) {
        showError(tr("cachelens bench crashed after %1 of %2 candidates%3")
                      .arg(done_)
                      .arg(total_)
                      .arg(tail.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + tail));
        setStatus(tr("Failed."));
    } else if (end_ && (exitCode == 0 || exitCode == 1)) {
        // Exit code 1: the run completed and some candidate failed; the end
        // line counts them and their rows say why.
        progress_->setRange(0, std::max(total_, 1));
        progress_->setValue(std::max(total_, 1));
        setStatus(tr("Run %1 finished in %2: %n result(s), %3 failed.", nullptr, end_->results)
                      .arg(end_->runId)
                      .arg(seconds)
                      .arg(end_->failed));
    } else if (exitCode != 0) {
        // The error event says it best; it is shown already.
        if (!fatal_) {
            showError(tail.isEmpty()
                          ? tr("cachelens bench exited with code %1.").arg(exitCode)
                          : tr("cachelens bench exited with code %1: %2").arg(exitCode).arg(tail));
        }
        setStatus(tr("Failed."));
    } else {
        showError(tr("cachelens bench ended without finishing the run (no \"end\" line)%1")
                      .arg(tail.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + tail));
        setStatus(tr("Failed."));
    }
    endRun();
}

void BenchView::endRun() {
    if (process_ != nullptr) {
        process_->disconnect(this);
        process_->deleteLater();
        process_ = nullptr;
    }
    if (progress_->maximum() == 0) {
        progress_->setRange(0, 1); // out of the busy state
        progress_->setValue(0);
    }
    updateButtons();
    // A finished run is in the catalog now.
    if (end_) {
        loadHistory();
    }
    emit runFinished();
}

void BenchView::onResultsInserted(int first, int last) {
    fitColumns(table_,
               {{BenchResultsModel::KernelColumn, 40}, {BenchResultsModel::ConfigColumn, 64}});
    // Nothing selected yet: the first measured result, so that the chart
    // and the history show something while the run goes on.
    if (!table_->selectionModel()->currentIndex().isValid()) {
        for (int row = first; row <= last; ++row) {
            if (results_->result(row).ok()) {
                selectResult(row);
                return;
            }
        }
    }
    for (int row = first; row <= last; ++row) {
        if (BenchResultsModel::kernelKey(results_->result(row)) == shownKernel_) {
            updateChart();
            return;
        }
    }
}

void BenchView::selectResult(int row) {
    const QModelIndex index = sorted_->mapFromSource(results_->index(row, 0));
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
}

QString BenchView::selectedKernel() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    return current.isValid() ? current.data(BenchResultsModel::KernelKeyRole).toString()
                             : QString();
}

void BenchView::onSelectionChanged() {
    updateButtons();
    const QString kernel = selectedKernel();
    if (kernel.isEmpty() || kernel == shownKernel_) {
        return;
    }
    shownKernel_ = kernel;
    updateChart();
    loadHistory();
}

void BenchView::loadHistory() {
    const auto rows = results_->rowsOfKernel(shownKernel_);
    if (rows.empty()) {
        return;
    }
    // The module key names one kernel; its name alone repeats across graphs.
    const auto& result = results_->result(rows.front());
    const QString kernel = result.module.isEmpty() ? result.kernel : result.module;
    historyTitle_->setText(tr("Reading the history of %1…").arg(kernel));
    history_->load(kernel);
}

void BenchView::updateChart() {
    QChart* chart = chartView_->chart();
    clearChart(chart);
    const auto rows = results_->rowsOfKernel(shownKernel_);
    if (rows.empty()) {
        chart->setTitle(tr("Samples per config of the selected kernel"));
        chart->legend()->hide();
        applyPalette();
        return;
    }
    const auto fastest = results_->fastestRow(shownKernel_);
    std::vector<int> measured;
    double low = std::numeric_limits<double>::max();
    double high = 0;
    for (int row : rows) {
        const auto& result = results_->result(row);
        if (result.ok() && !result.samplesMs.empty()) {
            measured.push_back(row);
            const auto [least, most] =
                std::minmax_element(result.samplesMs.begin(), result.samplesMs.end());
            low = std::min(low, *least);
            high = std::max(high, *most);
        }
    }
    const int failed = static_cast<int>(rows.size() - measured.size());
    const auto& first = results_->result(rows.front());
    chart->setTitle(failed == 0
                        ? tr("%1: samples per config").arg(first.kernel)
                        : tr("%1: samples per config (%n failed, not shown)", nullptr, failed)
                              .arg(first.kernel));
    if (measured.empty()) {
        chart->legend()->hide();
        applyPalette();
        return;
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
        const auto& result = results_->result(measured[i]);
        const auto& samples = result.samplesMs;
        const auto [least, most] = std::minmax_element(samples.begin(), samples.end());
        const bool isFastest = fastest == measured[i];
        labels << configLabel(result, isFastest, measured.size() > kLongLabelConfigs);
        auto* set = new QBoxSet(*least * scale, result.p20Ms * scale, result.medianMs * scale,
                                result.p80Ms * scale, *most * scale, labels.back());
        set->setProperty(kFastestProperty, isFastest);
        set->setProperty(kTipProperty, tr("%1\nmedian %2 ms, p20–p80 %3–%4 ms, %n sample(s)",
                                          nullptr, static_cast<int>(samples.size()))
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
    connect(boxes, &QBoxPlotSeries::hovered, this, [](bool status, QBoxSet* set) {
        if (status && set != nullptr) {
            QToolTip::showText(QCursor::pos(), set->property(kTipProperty).toString());
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
    applyPalette();
}

void BenchView::applyPalette() {
    const QPalette& colours = palette();
    const QColor text = colours.color(QPalette::Text);
    QColor box = colours.color(QPalette::Highlight);
    box.setAlpha(110);
    QColor fastest = highlight::pass();
    fastest.setAlpha(170);
    QColor point = text;
    point.setAlpha(110);
    applyChartStyle(chartView_, *this);
    for (auto* series : chartView_->chart()->series()) {
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

void BenchView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        applyPalette();
    }
}

void BenchView::acceptSelected() {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    if (!current.isValid() || !accept_->isEnabled()) {
        return;
    }
    const auto& result = results_->result(sorted_->mapToSource(current).row());
    acceptKernel_ = BenchResultsModel::kernelKey(result);
    acceptHash_ = result.tritonHash;
    acceptConfig_ = result.configText;
    const QString kernel = result.module.isEmpty() ? result.kernel : result.module;
    const QStringList arguments{QStringLiteral("bench"),
                                QStringLiteral("accept"),
                                kernel,
                                result.tritonHash,
                                QStringLiteral("--dir"),
                                runDir_,
                                QStringLiteral("--catalog"),
                                catalogPath_,
                                QStringLiteral("--json")};
    error_->hide();
    outcome_->hide();
    acceptProcess_ = new QProcess(this);
    connect(acceptProcess_, &QProcess::finished, this, &BenchView::acceptFinishedWith);
    connect(acceptProcess_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && acceptProcess_ != nullptr) {
            showError(tr("Could not start %1: %2").arg(program_, acceptProcess_->errorString()));
            acceptProcess_->disconnect(this);
            acceptProcess_->deleteLater();
            acceptProcess_ = nullptr;
            updateButtons();
            emit acceptFinished();
        }
    });
    setStatus(tr("Making %1 the best config of %2…").arg(acceptConfig_, result.kernel));
    updateButtons();
    acceptProcess_->start(program_, arguments);
    updateButtons();
}

void BenchView::acceptFinishedWith(int exitCode, QProcess::ExitStatus status) {
    const QByteArray out = acceptProcess_->readAllStandardOutput();
    const QString err = QString::fromUtf8(acceptProcess_->readAllStandardError()).trimmed();
    acceptProcess_->disconnect(this);
    acceptProcess_->deleteLater();
    acceptProcess_ = nullptr;

    if (status == QProcess::CrashExit || exitCode != 0) {
        const QString why = !err.isEmpty() ? err : QString::fromUtf8(out).trimmed();
        showError(status == QProcess::CrashExit
                      ? tr("cachelens bench accept crashed%1")
                            .arg(why.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + why)
                      : tr("cachelens bench accept refused (exit code %1)%2")
                            .arg(exitCode)
                            .arg(why.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + why));
        setStatus(tr("Make best config failed."));
    } else if (auto outcome = parseAcceptOutput(out); !outcome) {
        showError(QString::fromStdString(outcome.error().describe()));
        setStatus(tr("Make best config failed."));
    } else {
        results_->markBest(acceptKernel_, acceptHash_);
        outcome_->setText(
            tr("%1 is now the best config. Rewrote %2; the old one (%3) is saved as %4.")
                .arg(outcome->newConfig.isEmpty() ? acceptConfig_ : outcome->newConfig,
                     outcome->bestConfig, outcome->oldConfig, outcome->backup));
        outcome_->show();
        setStatus(tr("Best config changed."));
        updateChart();
    }
    updateButtons();
    emit acceptFinished();
}

} // namespace cachelens::ui
