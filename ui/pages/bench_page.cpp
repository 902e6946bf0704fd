#include "pages/bench_page.h"

#include "dialogs/confirm.h"
#include "dialogs/tune_dialog.h"
#include "jobs/job_tracker.h"
#include "models/bench_history_model.h"
#include "models/bench_results_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "widgets/banner.h"
#include "widgets/bench_chart.h"
#include "widgets/highlight_colors.h"

#include <cachelens/bench/launch_plan.h>
#include <cachelens/policy/root_policy.h>

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QEvent>
#include <QFileInfo>
#include <QFontMetrics>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace cachelens::ui {

namespace {

// A pause in typing before the filter's plan is listed.
constexpr int kPlanDelayMs = 300;

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
    // Bold: the current best config's row is.
    QFont bold = table->font();
    bold.setBold(true);
    const int character = QFontMetrics(bold).averageCharWidth();
    for (const auto& [column, characters] : caps) {
        table->setColumnWidth(column, std::min(table->columnWidth(column), characters * character));
    }
}

} // namespace

BenchPage::BenchPage(JobPool& pool, QString catalogPath, QWidget* parent)
    : QWidget(parent)
    , catalogPath_(std::move(catalogPath))
    , processes_(new BenchProcesses(catalogPath_, this))
    , planTimer_(new QTimer(this))
    , results_(new BenchResultsModel(this))
    , sorted_(new BenchResultsSortProxy(this))
    , history_(new BenchHistoryModel(pool, catalogPath_, this)) {
    title_ = new QLabel(tr("Benchmarks"));
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    title_->setFont(titleFont);
    dir_ = new QLabel;
    dir_->setTextFormat(Qt::PlainText);
    dir_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    dir_->setWordWrap(true);
    device_ = new QLabel(tr("Re-benchmarks the cache dir's Triton kernels on this machine's GPU "
                            "with the cachelens command-line tool."));
    device_->setObjectName(QStringLiteral("benchDevice"));
    device_->setTextFormat(Qt::PlainText);
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
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true);
    error_ = makeBanner(QStringLiteral("benchError"), BannerTone::Error);
    notice_ = makeBanner(QStringLiteral("benchNotice"), BannerTone::Warning);
    outcome_ = makeBanner(QStringLiteral("benchOutcome"), BannerTone::Success);

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
    selection_->setTextFormat(Qt::PlainText);
    selection_->setWordWrap(true);
    selection_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    accept_ = new QPushButton(tr("Make best config"));
    accept_->setObjectName(QStringLiteral("benchAccept"));
    accept_->setToolTip(tr("Rewrite the kernel's .best_config, in the dir of the run, to name "
                           "the selected config (cachelens bench accept --dir; asks first; the "
                           "old file is backed up)"));
    forceAccept_ = new QPushButton(tr("Make best anyway"));
    forceAccept_->setObjectName(QStringLiteral("benchForceAccept"));
    forceAccept_->setToolTip(tr("Write the refused config all the same (cachelens bench accept "
                                "--force; asks first)"));
    forceAccept_->hide();
    tune_ = new QPushButton(tr("Tune…"));
    tune_->setObjectName(QStringLiteral("benchTune"));
    tune_->setToolTip(tr("Explore new configs of the selected kernel beyond the cached ones: "
                         "compiled with your Python and timed on this GPU (cachelens tune)"));
    // Text from the cache and the CLI: shown as plain text, never as markup.
    verdictsLabel_ = new QLabel;
    verdictsLabel_->setObjectName(QStringLiteral("benchVerdicts"));
    verdictsLabel_->setTextFormat(Qt::PlainText);
    verdictsLabel_->setWordWrap(true);
    verdictsLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdictsLabel_->hide();
    auto* resultsBox = new QGroupBox(tr("Results"));
    auto* resultsLayout = new QVBoxLayout(resultsBox);
    resultsLayout->addWidget(table_, 1);
    resultsLayout->addWidget(verdictsLabel_);
    auto* acceptRow = new QHBoxLayout;
    acceptRow->addWidget(selection_, 1);
    acceptRow->addWidget(accept_, 0, Qt::AlignTop);
    acceptRow->addWidget(forceAccept_, 0, Qt::AlignTop);
    acceptRow->addWidget(tune_, 0, Qt::AlignTop);
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
    historyTitle_->setTextFormat(Qt::PlainText);
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

    connect(processes_, &BenchProcesses::runEvent, this, &BenchPage::handle);
    connect(processes_, &BenchProcesses::runEnded, this, &BenchPage::showRunEnd);
    connect(processes_, &BenchProcesses::plansListed, this, &BenchPage::showPlans);
    connect(processes_, &BenchProcesses::acceptEnded, this, &BenchPage::showAcceptEnd);
    planTimer_->setSingleShot(true);
    connect(planTimer_, &QTimer::timeout, this, &BenchPage::listPlans);
    connect(filter_, &QLineEdit::textChanged, this, [this] { planTimer_->start(kPlanDelayMs); });
    connect(allConfigs_, &QCheckBox::toggled, this, [this] { planTimer_->start(kPlanDelayMs); });
    connect(run_, &QPushButton::clicked, this, &BenchPage::run);
    connect(filter_, &QLineEdit::returnPressed, this, &BenchPage::run);
    connect(cancel_, &QPushButton::clicked, this, &BenchPage::cancel);
    connect(accept_, &QPushButton::clicked, this, [this] { acceptSelected(true); });
    connect(forceAccept_, &QPushButton::clicked, this, [this] { forceAccept(true); });
    connect(tune_, &QPushButton::clicked, this, &BenchPage::openTune);
    connect(results_, &BenchResultsModel::rowsInserted, this,
            [this](const QModelIndex&, int first, int last) { onResultsInserted(first, last); });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &BenchPage::onSelectionChanged);
    connect(history_, &BenchHistoryModel::loaded, this, [this](int rows) {
        // The config wraps onto two lines: the times stay in sight beside it.
        fitColumns(historyTable_, {{BenchHistoryModel::DeviceColumn, 16}});
        historyTable_->setColumnWidth(BenchHistoryModel::ConfigColumn,
                                      fontMetrics().averageCharWidth() * 38);
        historyTable_->resizeRowsToContents();
        historyTitle_->setText(
            rows == 0 ? tr("%1 has no results in the catalog yet.").arg(history_->kernel())
                      : tr("%1 of %2 in %3, oldest first; times in ms.")
                            .arg(counted(static_cast<std::size_t>(rows), "result"))
                            .arg(history_->kernel())
                            .arg(counted(static_cast<std::size_t>(history_->runCount()), "run")));
    });
    connect(history_, &BenchHistoryModel::failed, this, [this](const QString& message) {
        historyTitle_->setText(tr("Could not read the history: %1").arg(message));
        emit statusMessage(message);
    });

    showRoot(std::nullopt);
    updateChart();
}

void BenchPage::setProgram(const QString& program) {
    processes_->setProgram(program);
    if (tuneDialog_ != nullptr) {
        tuneDialog_->setProgram(program);
    }
    cliRefused_ = false;
    updateButtons();
}

QChart* BenchPage::chart() const {
    return chartView_->chart();
}

bool BenchPage::isRunning() const {
    return processes_->isRunning();
}

bool BenchPage::isAccepting() const {
    return processes_->isAccepting();
}

bool BenchPage::isTuning() const {
    return tuneDialog_ != nullptr && tuneDialog_->isRunning();
}

QString BenchPage::statusText() const {
    return status_->text();
}

QString BenchPage::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

QString BenchPage::noticeText() const {
    return notice_->isHidden() ? QString() : notice_->text();
}

QString BenchPage::outcomeText() const {
    return outcome_->isHidden() ? QString() : outcome_->text();
}

QString BenchPage::selectionText() const {
    return selection_->text();
}

QString BenchPage::deviceText() const {
    return device_->text();
}

void BenchPage::showRoot(const std::optional<std::filesystem::path>& root) {
    // The main window shows the same dir again on every refresh: its plan stands.
    if (root && root != root_) {
        planTimer_->start(0);
    }
    root_ = root;
    dir_->setText(root ? QString::fromStdString(root->string())
                       : tr("Select a cache dir in the sidebar to benchmark its kernels."));
    updateButtons();
}

void BenchPage::showReadOnlyRoot(const std::filesystem::path& root) {
    showRoot(std::nullopt);
    // The engine's rule and words, as `cachelens bench accept` says them.
    if (auto allowed = policy::allow_write(root, policy::RootWrite::BestConfig); !allowed) {
        emit statusMessage(QString::fromStdString(allowed.error().message));
    }
}

void BenchPage::updateButtons() {
    const bool running = isRunning();
    run_->setEnabled(!running && !isAccepting() && !isTuning() && root_.has_value() &&
                     !program().isEmpty() && !cliRefused_);
    cancel_->setEnabled(running);
    filter_->setEnabled(!running);
    allConfigs_->setEnabled(!running);

    const QModelIndex current = table_->selectionModel()->currentIndex();
    const int row = current.isValid() ? sorted_->mapToSource(current).row() : -1;
    bool acceptable = false;
    if (row >= 0) {
        const auto& result = results_->result(row);
        acceptable = result.ok() && !result.wasBest && !result.tritonHash.isEmpty();
        QString what;
        if (result.planned()) {
            what = (result.wasBest ? tr(" (the current best config; planned, not timed yet: %1)")
                                   : tr(" (planned, not timed yet: %1)"))
                       .arg(result.message);
        } else if (result.wasBest) {
            what = tr(" (the current best config)");
        } else if (!result.ok()) {
            what = tr(" (failed: %1)").arg(result.status);
        }
        QString text = tr("%1: %2%3").arg(result.kernel, result.configText, what);
        const auto verdict =
            verdicts_.find(result.module.isEmpty() ? result.kernel : result.module);
        if (verdict != verdicts_.end() && (result.tritonHash == verdict->second.candidateHash ||
                                           result.tritonHash == verdict->second.bestHash)) {
            text += QLatin1Char('\n') + tr("Side by side: %1 (%2 against %3)")
                                            .arg(verdict->second.text,
                                                 verdict->second.candidateConfigText,
                                                 verdict->second.bestConfigText);
        }
        selection_->setText(text);
    } else {
        selection_->setText(results_->rowCount() == 0
                                ? QString()
                                : tr("Select a result to chart its kernel and see its history."));
    }
    accept_->setEnabled(acceptable && !running && !isAccepting() && !runDir_.isEmpty() &&
                        !cliRefused_);
    forceAccept_->setEnabled(!running && !isAccepting() && !cliRefused_);
    tune_->setEnabled(row >= 0 && !running && !runDir_.isEmpty() && !program().isEmpty() &&
                      !cliRefused_);
    if (tuneDialog_ != nullptr) {
        // One GPU: a tune waits for the bench run.
        tuneDialog_->setGpuBusy(running);
    }
}

void BenchPage::openTune() {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    if (!current.isValid() || !tune_->isEnabled()) {
        return;
    }
    const auto& result = results_->result(sorted_->mapToSource(current).row());
    if (tuneDialog_ == nullptr) {
        tuneDialog_ = new TuneDialog(catalogPath_, this);
        connect(tuneDialog_, &TuneDialog::runningChanged, this, &BenchPage::updateButtons);
        connect(tuneDialog_, &TuneDialog::statusMessage, this, &BenchPage::statusMessage);
        connect(tuneDialog_, &TuneDialog::acceptRequested, this,
                [this](const QString& target, const QString& name, const QString& hash,
                       const QString& config) {
                    acceptForTune_ = true;
                    acceptExplored(target, name, hash, config, /*askUser=*/true);
                    if (!isAccepting()) {
                        acceptForTune_ = false; // not asked to, or the user said no
                    }
                });
        connect(tuneDialog_, &TuneDialog::refused, this, [this](const QString& why) {
            // The same program runs bench: nothing more is run with it.
            cliRefused_ = true;
            showError(incompatibleText(why));
            updateButtons();
        });
    }
    if (!tuneDialog_->isRunning()) {
        tuneDialog_->setProgram(program());
        // The module key names one kernel; its name alone repeats across graphs.
        tuneDialog_->setTarget(runDir_, result.module.isEmpty() ? result.kernel : result.module,
                               result.kernel);
    }
    tuneDialog_->show();
    tuneDialog_->raise();
    tuneDialog_->activateWindow();
}

void BenchPage::setStatus(const QString& message) {
    status_->setText(message);
    emit statusMessage(message);
}

void BenchPage::showError(const QString& message) {
    error_->setText(message);
    error_->show();
    emit statusMessage(message);
}

std::optional<QStringList> BenchPage::kernelWords() {
    const QStringList kernels =
        filter_->text().split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    // They are positional arguments: a word starting with '-' would be an option.
    for (const QString& kernel : kernels) {
        if (kernel.startsWith(u'-')) {
            showError(tr("%1 is not a kernel name or module key.").arg(kernel));
            return std::nullopt;
        }
    }
    return kernels;
}

void BenchPage::run() {
    if (isRunning() || isAccepting() || isTuning() || !root_) {
        return;
    }
    const auto words = kernelWords();
    if (!words) {
        return;
    }
    const QStringList& kernels = *words;
    // The run's results replace the plans: a listing under way would overwrite them.
    planTimer_->stop();
    processes_->stopPlans();
    results_->clear();
    verdicts_.clear();
    verdictsLabel_->clear();
    verdictsLabel_->hide();
    forceAccept_->hide();
    history_->clear();
    historyTitle_->setText(tr("Select a result to see its kernel's earlier runs."));
    start_.reset();
    end_.reset();
    fatal_.reset();
    done_ = 0;
    total_ = 0;
    badLines_ = 0;
    error_->hide();
    notice_->hide();
    outcome_->hide();
    shownKernel_.clear();
    updateChart();

    runDir_ = QString::fromStdString(root_->string());
    progress_->setRange(0, 0); // busy until the start event says how many
    progress_->setFormat(QString());
    elapsed_.start();
    setStatus(tr("Starting %1…").arg(QFileInfo(program()).fileName()));
    processes_->startRun(runDir_, kernels, allConfigs_->isChecked());
    updateButtons();
}

bool BenchPage::isPlanning() const {
    return planTimer_->isActive() || processes_->isPlanning();
}

void BenchPage::listPlans() {
    planTimer_->stop();
    processes_->stopPlans();
    const auto words = (isRunning() || !root_ || program().isEmpty()) ? std::optional<QStringList>()
                                                                      : kernelWords();
    if (!words) {
        emit planFinished();
        return;
    }
    processes_->listPlans(QString::fromStdString(root_->string()), *words);
}

void BenchPage::showPlans(const BenchPlanListing& listing) {
    if (!listing.exit.started()) {
        showError(tr("Could not start %1: %2").arg(program(), listing.exit.notStarted));
        emit planFinished();
        return;
    }
    const QString& dir = listing.dir;
    const QString& err = listing.exit.stderrText;
    // --plan lists every config; without "All configs" a run times the current best only.
    const bool all = allConfigs_->isChecked();
    std::vector<BenchResultEvent> rows;
    std::set<QString> kernels;
    std::set<QString> unplannedKernels;
    int planned = 0;
    int unplanned = 0;
    std::optional<QString> fatal;
    // Per kernel: a plan of it and how many configs it has, -1 once one is the current best.
    std::map<QString, std::pair<BenchPlanEvent, int>> withoutBest;
    for (const auto& event : listing.events) {
        if (const auto* plan = std::get_if<BenchPlanEvent>(&event)) {
            const QString key = plan->module + u'/' + plan->kernel;
            int& count = withoutBest.try_emplace(key, *plan, 0).first->second.second;
            count = plan->isCurrentBest ? -1 : (count < 0 ? count : count + 1);
            if (all || plan->isCurrentBest) {
                rows.push_back(BenchResultsModel::plannedRow(*plan));
                kernels.insert(BenchResultsModel::kernelKey(rows.back()));
                ++planned;
            }
        } else if (const auto* unplannable = std::get_if<BenchUnplannableEvent>(&event)) {
            rows.push_back(BenchResultsModel::unplannableRow(*unplannable));
            unplannedKernels.insert(BenchResultsModel::kernelKey(rows.back()));
            ++unplanned;
        } else if (const auto* error = std::get_if<BenchErrorEvent>(&event)) {
            fatal = error->message;
        } else if (const auto* refused = std::get_if<BenchIncompatible>(&event)) {
            cliRefused_ = true;
            showError(incompatibleText(refused->why));
            results_->clear();
            shownKernel_.clear();
            updateChart();
            setStatus(tr("Refused %1.").arg(program()));
            updateButtons();
            emit planFinished();
            return;
        }
    }
    // As a run without --all-configs says of a kernel no .best_config names a config of.
    for (const auto& [key, planAndCount] : withoutBest) {
        const auto& [plan, count] = planAndCount;
        if (!all && count > 0) {
            rows.push_back(BenchResultsModel::unplannableRow(
                {plan.kernel, plan.module, tr("current best"),
                 text(bench::no_current_best(static_cast<std::size_t>(count))) +
                     tr("; tick All configs to see them")}));
        }
    }
    if (!listing.exit.succeeded() || fatal) {
        const QString why = fatal ? *fatal : err;
        showError(tr("cachelens bench --plan failed (exit code %1)%2")
                      .arg(listing.exit.code)
                      .arg(why.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + why));
        // The rows shown were another dir's or filter's.
        results_->clear();
        shownKernel_.clear();
        updateChart();
        setStatus(tr("Could not list the launch plans."));
        updateButtons();
        emit planFinished();
        return;
    }
    error_->hide();
    notice_->hide();
    cliRefused_ = false;
    runDir_ = dir;
    shownKernel_.clear();
    history_->clear();
    historyTitle_->setText(tr("Select a result to see its kernel's earlier runs."));
    results_->setRows(std::move(rows));
    fitColumns(table_,
               {{BenchResultsModel::KernelColumn, 40}, {BenchResultsModel::ConfigColumn, 64}});
    // As a run's first result: the chart, the history and the launch geometry in sight.
    for (int row = 0; row < results_->rowCount(); ++row) {
        if (results_->result(row).planned()) {
            selectResult(row);
            break;
        }
    }
    updateChart();
    progress_->setFormat(QString());
    progress_->setRange(0, 1);
    progress_->setValue(0);
    QString status = tr("Planned: %1 of %2")
                         .arg(counted(static_cast<std::size_t>(planned), "candidate"))
                         .arg(counted(kernels.size(), "kernel"));
    if (unplanned > 0) {
        status += tr("; %1 of %2 not planned (the rows marked)")
                      .arg(counted(static_cast<std::size_t>(unplanned), "candidate"))
                      .arg(counted(unplannedKernels.size(), "kernel"));
    }
    setStatus(status);
    updateButtons();
    emit planFinished();
}

void BenchPage::cancel() {
    if (!isRunning() || processes_->isCancelling()) {
        return;
    }
    setStatus(tr("Cancelling…"));
    processes_->cancelRun();
}

void BenchPage::handle(const BenchEvent& event) {
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
        setStatus(tr("Running: %1, %2…")
                      .arg(counted(static_cast<std::size_t>(start->kernels), "kernel"))
                      .arg(counted(static_cast<std::size_t>(start->candidates), "candidate")));
    } else if (const auto* result = std::get_if<BenchResultEvent>(&event)) {
        done_ = std::max(done_, result->index);
        if (result->total > 0) {
            total_ = result->total;
        }
        progress_->setRange(0, std::max(total_, 1));
        progress_->setValue(done_);
        setStatus(tr("Running: %1 of %2 (%3)").arg(done_).arg(total_).arg(result->kernel));
        results_->appendResult(*result);
    } else if (const auto* verdict = std::get_if<BenchVerdictEvent>(&event)) {
        verdicts_[verdict->module.isEmpty() ? verdict->kernel : verdict->module] = *verdict;
        verdictsLabel_->setText(verdictsText());
        verdictsLabel_->show();
        updateButtons();
    } else if (const auto* unplannable = std::get_if<BenchUnplannableEvent>(&event)) {
        results_->appendUnplannable(*unplannable);
    } else if (const auto* end = std::get_if<BenchEndEvent>(&event)) {
        end_ = *end;
    } else if (const auto* error = std::get_if<BenchErrorEvent>(&event)) {
        fatal_ = error->message;
        showError(error->message);
    } else if (const auto* refused = std::get_if<BenchIncompatible>(&event)) {
        fatal_ = refused->why;
        cliRefused_ = true;
        showError(incompatibleText(refused->why));
    } else if (const auto* bad = std::get_if<BenchBadLine>(&event)) {
        // Not fatal: the lines after it may be fine; but never silent.
        if (++badLines_ == 1) {
            notice_->setProperty("firstBadLine", tr("%1 (%2)").arg(bad->line, bad->why));
        }
        notice_->setText(tr("%1 of cachelens output were not understood; the first: %2")
                             .arg(counted(static_cast<std::size_t>(badLines_), "line"))
                             .arg(notice_->property("firstBadLine").toString()));
        notice_->show();
    }
    // A run prints no plans (they come from listPlans()).
}

void BenchPage::showRunEnd(const BenchExit& exit) {
    if (!exit.started()) {
        showError(tr("Could not start %1: %2. The Benchmarks page runs the cachelens command-line "
                     "tool; install it beside cachelens-gui or on PATH.")
                      .arg(program(), exit.notStarted));
        setStatus(tr("Failed."));
        endRun();
        return;
    }
    const QString seconds =
        tr("%1 s").arg(static_cast<double>(elapsed_.elapsed()) / 1000, 0, 'f', 1);
    const QString& tail = exit.stderrText;
    if (exit.refused) {
        setStatus(tr("Refused %1.").arg(program()));
    } else if (exit.cancelled) {
        setStatus(tr("Cancelled after %1 of %2 candidates.").arg(done_).arg(total_));
    } else if (exit.crashed) {
        showError(tr("cachelens bench crashed after %1 of %2 candidates%3")
                      .arg(done_)
                      .arg(total_)
                      .arg(tail.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + tail));
        setStatus(tr("Failed."));
    } else if (end_ && (exit.code == 0 || exit.code == 1)) {
        // Exit code 1: the run completed and some candidate failed; the end
        // line counts them and their rows say why.
        progress_->setRange(0, std::max(total_, 1));
        progress_->setValue(std::max(total_, 1));
        setStatus(tr("Run %2 finished in %3: %1, %4 failed.")
                      .arg(counted(static_cast<std::size_t>(end_->results), "result"))
                      .arg(end_->runId)
                      .arg(seconds)
                      .arg(end_->failed));
    } else if (exit.code != 0) {
        // The error event says it best; it is shown already.
        if (!fatal_) {
            showError(tail.isEmpty()
                          ? tr("cachelens bench exited with code %1.").arg(exit.code)
                          : tr("cachelens bench exited with code %1: %2").arg(exit.code).arg(tail));
        }
        setStatus(tr("Failed."));
    } else {
        showError(tr("cachelens bench ended without finishing the run (no \"end\" line)%1")
                      .arg(tail.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + tail));
        setStatus(tr("Failed."));
    }
    endRun();
}

void BenchPage::endRun() {
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

void BenchPage::onResultsInserted(int first, int last) {
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

void BenchPage::selectResult(int row) {
    const QModelIndex index = sorted_->mapFromSource(results_->index(row, 0));
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
}

QString BenchPage::selectedKernel() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    return current.isValid() ? current.data(BenchResultsModel::KernelKeyRole).toString()
                             : QString();
}

void BenchPage::onSelectionChanged() {
    updateButtons();
    const QString kernel = selectedKernel();
    if (kernel.isEmpty() || kernel == shownKernel_) {
        return;
    }
    shownKernel_ = kernel;
    updateChart();
    loadHistory();
}

void BenchPage::loadHistory() {
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

void BenchPage::updateChart() {
    // No samples yet (a listing before a run): no empty chart pane.
    chartView_->setVisible(buildBenchChart(chartView_->chart(), *results_, shownKernel_));
    applyPalette();
}

void BenchPage::applyPalette() {
    styleBenchChart(chartView_, *this);
}

void BenchPage::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        applyPalette();
    }
}

QString BenchPage::incompatibleText(const QString& why) const {
    return tr("Refused to use %1: %2. The Benchmarks page needs the cachelens command-line tool "
              "of this version: install the one built with this cachelens-gui beside it or on "
              "PATH.")
        .arg(program(), why);
}

QString BenchPage::verdictsText() const {
    QStringList lines;
    for (const auto& [key, verdict] : verdicts_) {
        lines << tr("%1 (%2 against %3): %4")
                     .arg(verdict.kernel, verdict.candidateConfigText, verdict.bestConfigText,
                          verdict.text);
    }
    return lines.join(QLatin1Char('\n'));
}

QString BenchPage::acceptConfirmationText() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    if (!current.isValid() || !accept_->isEnabled()) {
        return {};
    }
    const auto& result = results_->result(sorted_->mapToSource(current).row());
    return tr("Make %1 the best config of %2? cachelens first re-times it side by side with the "
              "current best and writes only if it is faster beyond the noise; then it rewrites "
              "the .best_config in %3 and keeps the old file as a backup beside it.")
        .arg(result.configText, result.kernel, runDir_);
}

void BenchPage::acceptSelected(bool askUser) {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    if (!current.isValid() || !accept_->isEnabled()) {
        return;
    }
    if (askUser && !askBeforeWriting(this, tr("Make best config"), acceptConfirmationText())) {
        return;
    }
    const auto& result = results_->result(sorted_->mapToSource(current).row());
    startAccept(BenchResultsModel::kernelKey(result),
                result.module.isEmpty() ? result.kernel : result.module, result.kernel,
                result.tritonHash, result.configText);
}

void BenchPage::startAccept(const QString& kernelKey, const QString& target, const QString& name,
                            const QString& tritonHash, const QString& configText) {
    acceptKernel_ = kernelKey;
    acceptHash_ = tritonHash;
    acceptConfig_ = configText;
    acceptTarget_ = target;
    error_->hide();
    outcome_->hide();
    forceAccept_->hide();
    setStatus(tr("Re-timing %1 beside the best config of %2…").arg(acceptConfig_, name));
    processes_->accept(acceptTarget_, acceptHash_, runDir_);
    updateButtons();
}

void BenchPage::acceptExplored(const QString& target, const QString& name,
                               const QString& tritonHash, const QString& configText, bool askUser) {
    if (isAccepting() || isRunning() || isTuning() || runDir_.isEmpty() || cliRefused_) {
        return;
    }
    if (askUser &&
        !askBeforeWriting(this, tr("Make best config"),
                          tr("Make %1, a config cachelens tune compiled, the best config of %2 in "
                             "%3? It is re-timed beside the current best first; PyTorch reads it "
                             "only for a kernel compiled with coordinate descent, and cachelens "
                             "refuses it otherwise. The old file is kept as a backup beside it.")
                              .arg(configText, name, runDir_))) {
        return;
    }
    startAccept(target, target, name, tritonHash, configText);
}

void BenchPage::forceAccept(bool askUser) {
    if (acceptTarget_.isEmpty() || isAccepting() || isRunning()) {
        return;
    }
    if (askUser && !askBeforeWriting(this, tr("Make best anyway"),
                                     tr("Write %1 into the .best_config of %2 in %3 although "
                                        "cachelens refused it? The old file is kept as a backup "
                                        "beside it.")
                                         .arg(acceptConfig_, acceptTarget_, runDir_))) {
        return;
    }
    error_->hide();
    forceAccept_->hide();
    setStatus(tr("Making %1 the best config of %2…").arg(acceptConfig_, acceptTarget_));
    processes_->accept(acceptTarget_, acceptHash_, runDir_, /*force=*/true);
    updateButtons();
}

void BenchPage::showAcceptEnd(const BenchAcceptEnd& end) {
    const BenchExit& exit = end.exit;
    if (!exit.started()) {
        showError(tr("Could not start %1: %2").arg(program(), exit.notStarted));
        updateButtons();
        answerTuneAccept();
        emit acceptFinished();
        return;
    }
    if (exit.crashed) {
        const QString& why = !exit.stderrText.isEmpty() ? exit.stderrText : end.output;
        showError(tr("cachelens bench accept crashed%1")
                      .arg(why.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + why));
        setStatus(tr("Make best config failed."));
    } else if (!end.incompatible.isEmpty()) {
        // Another protocol version: what it printed cannot be trusted either way.
        cliRefused_ = true;
        showError(incompatibleText(end.incompatible));
        setStatus(tr("Refused %1.").arg(program()));
    } else if (!exit.succeeded()) {
        // The CLI's own words: its refusal record, else its stderr.
        const QString& why = end.refusal ? end.refusal->message : exit.stderrText;
        showError(tr("cachelens bench accept refused (exit code %1)%2")
                      .arg(exit.code)
                      .arg(why.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + why));
        setStatus(tr("Make best config failed."));
        // Refused for a reason the user may overrule: offer exactly that.
        forceAccept_->setVisible(end.refusal && end.refusal->refusal.has_value());
    } else if (const auto& outcome = *end.outcome; !outcome) {
        showError(QString::fromStdString(outcome.error().describe()));
        setStatus(tr("Make best config failed."));
    } else {
        results_->markBest(acceptKernel_, acceptHash_);
        outcome_->setText(
            tr("%1 is now the best config. Rewrote %2; the old one (%3) is saved as %4. %5%6")
                .arg(outcome->newConfig.isEmpty() ? acceptConfig_ : outcome->newConfig,
                     outcome->bestConfig, outcome->oldConfig, outcome->backup,
                     outcome->verdict.isEmpty() ? tr("Written without a side-by-side comparison.")
                                                : tr("Side by side: %1.").arg(outcome->verdict),
                     outcome->exploredPolicy.isEmpty()
                         ? QString()
                         : QStringLiteral(" ") + outcome->exploredPolicy + QStringLiteral(".")));
        outcome_->show();
        setStatus(tr("Best config changed."));
        updateChart();
    }
    updateButtons();
    answerTuneAccept();
    emit acceptFinished();
}

// An accept the Tune dialog asked for: it shows the outcome in the page's words.
void BenchPage::answerTuneAccept() {
    if (std::exchange(acceptForTune_, false) && tuneDialog_ != nullptr) {
        const bool written = !outcome_->isHidden();
        tuneDialog_->showAcceptOutcome(written ? outcome_->text() : errorText(), written);
    }
}

} // namespace cachelens::ui
