#include "pages/warm_start_page.h"

#include "jobs/job_tracker.h"
#include "models/warm_start_model.h"
#include "text/counted.h"
#include "text/engine_text.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/format.h>
#include <cachelens/explain/nearest_keys.h>
#include <cachelens/watch/trace_watch.h>

#include <QCheckBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

// One colour per layer (kLayers order), then the time in no layer's phase.
const QColor kLayerColors[] = {QColor(70, 120, 200), QColor(150, 90, 190), QColor(230, 140, 30),
                               QColor(30, 160, 150), QColor(170, 100, 60), QColor(150, 150, 150)};

// The compile time column: a bar, one segment per layer, as long as the
// compile took against the longest one, the time written beside it.
class TimeBarDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        QStyleOptionViewItem background = option;
        initStyleOption(&background, index);
        const QString label = background.text;
        background.text.clear();
        QStyledItemDelegate::paint(painter, background, index); // selection, focus
        const QVariantList parts = index.data(WarmStartModel::TimeBarRole).toList();
        const QFontMetrics metrics(option.font);
        const int labelWidth = metrics.horizontalAdvance(QStringLiteral("000.0 ms")) + 8;
        const QRect bar = option.rect.adjusted(4, 5, -labelWidth, -5);
        painter->save();
        double x = bar.left();
        for (qsizetype i = 0; i < parts.size(); ++i) {
            const double width = parts[i].toDouble() * bar.width();
            if (width > 0) {
                painter->fillRect(
                    QRectF(x, bar.top(), width, bar.height()),
                    kLayerColors[std::min<qsizetype>(i, std::size(kLayerColors) - 1)]);
            }
            x += width;
        }
        painter->setPen(option.palette.color(
            option.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
        painter->drawText(option.rect.adjusted(0, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter,
                          label);
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        size.setWidth(std::max(size.width(), 260));
        return size;
    }
};

WarmStartResult toResult(trace::WarmStartAnalysis analysisValue, const fs::path& cacheDir) {
    auto* analysis = &analysisValue;
    WarmStartResult result;
    result.cacheDir = cacheDir;
    result.reports = std::move(analysis->reports);
    result.summary = std::move(analysis->summary);
    result.skipped = std::move(analysis->skipped);
    for (auto& entry : analysis->missed_entries) {
        result.missEntries.push_back(entry ? std::optional(EntryRef{cacheDir, std::move(*entry)})
                                           : std::nullopt);
    }
    return result;
}

Result<WarmStartResult> computeWarmStart(const fs::path& traceDirOrLog, const fs::path& cacheDir) {
    auto analysis = trace::analyze_warm_start(traceDirOrLog, cacheDir);
    if (!analysis) {
        return std::unexpected(std::move(analysis.error()));
    }
    return toResult(std::move(*analysis), cacheDir);
}

// One look at a trace dir being followed: nullopt when no log grew.
Result<std::optional<WarmStartResult>> followWarmStart(watch::TraceWatch& traceWatch,
                                                       const fs::path& cacheDir, bool first) {
    auto analysis = watch::follow_warm_start(traceWatch, cacheDir, first);
    if (!analysis) {
        return std::unexpected(std::move(analysis.error()));
    }
    if (!*analysis) {
        return std::optional<WarmStartResult>();
    }
    return std::optional(toResult(std::move(**analysis), cacheDir));
}

} // namespace

WarmStartPage::WarmStartPage(JobPool& pool, QWidget* parent)
    : QWidget(parent)
    , job_(new JobTracker(pool, this))
    , model_(new WarmStartModel(this))
    , source_(new QLabel(this))
    , summary_(new QLabel(this))
    , error_(new QLabel(this))
    , table_(new QTableView(this))
    , detail_(new QLabel(this))
    , whyButton_(new QPushButton(tr("&Why did it miss?"), this))
    , follow_(new QCheckBox(tr("&Follow"), this))
    , followTimer_(new QTimer(this)) {
    follow_->setToolTip(tr("Read the trace dir again as the run writes it (each log from where "
                           "it stopped), as cachelens report --follow does"));
    follow_->setEnabled(false);
    followTimer_->setInterval(1000);
    auto* openDir = new QPushButton(tr("Open trace &dir…"), this);
    openDir->setToolTip(tr("A TORCH_TRACE dir: every *.log in it"));
    auto* openLog = new QPushButton(tr("Open &log…"), this);
    auto* chooseCache = new QPushButton(tr("&Cache dir…"), this);
    chooseCache->setToolTip(tr("The cache dir to find each miss's cause against (the why engine "
                               "compares the missed key with its nearest entry there)"));
    source_->setObjectName(QStringLiteral("warmStartSource"));
    source_->setTextFormat(Qt::PlainText);
    source_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setObjectName(QStringLiteral("warmStartSummary"));
    summary_->setTextFormat(Qt::RichText); // the one line is escaped
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setObjectName(QStringLiteral("warmStartError"));
    error_->setTextFormat(Qt::PlainText);
    error_->setWordWrap(true);
    error_->setVisible(false);

    table_->setObjectName(QStringLiteral("warmStartTable"));
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setWordWrap(false);
    table_->verticalHeader()->setVisible(false);
    table_->setItemDelegateForColumn(WarmStartModel::TimeColumn, new TimeBarDelegate(table_));
    auto* header = table_->horizontalHeader();
    for (int column = 0; column < WarmStartModel::ColumnCount; ++column) {
        header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    header->setSectionResizeMode(WarmStartModel::TimeColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(WarmStartModel::CauseColumn, QHeaderView::Stretch);
    table_->setColumnWidth(WarmStartModel::TimeColumn, 280);

    // The bar's colours, named once.
    QStringList legend;
    for (std::size_t i = 0; i <= trace::kLayers.size(); ++i) {
        const QString name = i < trace::kLayers.size() ? text(trace::layer_title(trace::kLayers[i]))
                                                       : tr("in no layer's phase");
        legend << QStringLiteral("<span style=\"color:%1\">&#9632;</span> %2")
                      .arg(kLayerColors[i].name(), name.toHtmlEscaped());
    }
    auto* legendLabel =
        new QLabel(tr("Compile time: ") + legend.join(QStringLiteral("&nbsp; ")), this);
    legendLabel->setTextFormat(Qt::RichText);

    detail_->setObjectName(QStringLiteral("warmStartDetail"));
    detail_->setTextFormat(Qt::PlainText);
    detail_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    detail_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    whyButton_->setObjectName(QStringLiteral("warmStartWhyButton"));
    whyButton_->setEnabled(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(openDir);
    buttons->addWidget(openLog);
    buttons->addWidget(chooseCache);
    buttons->addWidget(follow_);
    buttons->addWidget(source_, 1);
    auto* detailRow = new QHBoxLayout;
    detailRow->addWidget(detail_, 1);
    detailRow->addWidget(whyButton_, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(buttons);
    layout->addWidget(summary_);
    layout->addWidget(error_);
    layout->addWidget(table_, 3);
    layout->addWidget(legendLabel);
    layout->addLayout(detailRow, 1);

    connect(openDir, &QPushButton::clicked, this, [this] { chooseTrace(true); });
    connect(openLog, &QPushButton::clicked, this, [this] { chooseTrace(false); });
    connect(chooseCache, &QPushButton::clicked, this, &WarmStartPage::chooseCacheDir);
    connect(follow_, &QCheckBox::toggled, this, &WarmStartPage::setFollowing);
    connect(followTimer_, &QTimer::timeout, this, &WarmStartPage::followTick);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &WarmStartPage::showSelected);
    connect(table_, &QTableView::activated, this,
            [this](const QModelIndex& index) { explainRow(index.row()); });
    connect(whyButton_, &QPushButton::clicked, this,
            [this] { explainRow(table_->currentIndex().row()); });
    summary_->setText(tr("Open a TORCH_TRACE dir (TORCH_TRACE=dir python train.py) to see which "
                         "layer of each compile hit its cache and how long each took."));
}

QString WarmStartPage::summaryText() const {
    return summary_->text();
}

void WarmStartPage::openTrace(const fs::path& traceDirOrLog, const fs::path& cacheDir) {
    trace_ = traceDirOrLog;
    cacheDir_ = cacheDir;
    traceWatch_.reset();
    job_->cancel(); // what was being read of the trace before is not shown
    std::error_code error;
    const bool isDir = fs::is_directory(traceDirOrLog, error);
    follow_->setEnabled(isDir);
    if (!isDir) {
        follow_->setChecked(false);
    }
    model_->clear();
    error_->setVisible(false);
    detail_->clear();
    whyButton_->setEnabled(false);
    source_->setText(cacheDir.empty() ? tr("%1 (no cache dir: causes not looked for)")
                                            .arg(QString::fromStdString(traceDirOrLog.string()))
                                      : tr("%1 against %2")
                                            .arg(QString::fromStdString(traceDirOrLog.string()),
                                                 QString::fromStdString(cacheDir.string())));
    summary_->setText(
        tr("Reading %1…").arg(QString::fromStdString(traceDirOrLog.string()).toHtmlEscaped()));
    if (isFollowing()) {
        followTick(); // a new dir, followed from its start
        return;
    }
    job_->run<Result<WarmStartResult>>(
        [traceDirOrLog, cacheDir](const JobContext&) {
            return computeWarmStart(traceDirOrLog, cacheDir);
        },
        [this](Result<WarmStartResult> result) { showResult(std::move(result)); });
}

void WarmStartPage::showResult(Result<WarmStartResult> result) {
    if (!result) {
        summary_->clear();
        error_->setText(QString::fromStdString(result.error().describe()));
        error_->setVisible(true);
        follow_->setChecked(false);
        emit statusMessage(error_->text());
        emit loaded();
        return;
    }
    const auto shared = std::make_shared<const WarmStartResult>(std::move(*result));
    // What vLLM logged of its own compile, when it wrote the log: a line each.
    QString summary = QStringLiteral("<b>%1</b>").arg(text(shared->summary.line()).toHtmlEscaped());
    for (const auto& report : shared->reports) {
        for (const auto& line : report.vllm) {
            summary += QStringLiteral("<br>") + text(line).toHtmlEscaped();
        }
    }
    summary_->setText(summary);
    // Following, the row read stays selected as rows are added.
    const int kept = isFollowing() ? table_->currentIndex().row() : -1;
    model_->setResult(shared);
    if (model_->rowCount() > 0) {
        const int row = kept >= 0 && kept < model_->rowCount() ? kept : 0;
        table_->selectionModel()->setCurrentIndex(
            model_->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    std::size_t warnings = 0;
    for (const auto& report : shared->reports) {
        warnings += report.warnings.size();
    }
    QString status =
        tr("%1 read").arg(counted(static_cast<std::size_t>(model_->rowCount()), "compile"));
    if (warnings > 0) {
        status +=
            tr("; %1 of the log skipped").arg(counted(static_cast<std::size_t>(warnings), "line"));
    }
    // As `report` says them: left out of the comparison, not hidden.
    if (!shared->skipped.empty()) {
        status += tr("; %1 could not be read and %2 left out of the comparison (first: %3)")
                      .arg(counted(shared->skipped.size(), "cache file"))
                      .arg(shared->skipped.size() == 1 ? tr("was") : tr("were"))
                      .arg(text(shared->skipped.front().describe()));
    }
    emit statusMessage(status);
    emit loaded();
}

bool WarmStartPage::isFollowing() const {
    return followTimer_->isActive();
}

void WarmStartPage::setFollowing(bool follow) {
    std::error_code error;
    follow = follow && fs::is_directory(trace_, error);
    if (follow_->isChecked() != follow) {
        follow_->setChecked(follow); // comes back here
        return;
    }
    if (!follow) {
        followTimer_->stop();
        return;
    }
    traceWatch_.reset(); // read from the start, then as it grows
    followTimer_->start();
    followTick();
}

void WarmStartPage::followTick() {
    if (job_->isRunning()) {
        return; // the read before is still going: the next tick looks again
    }
    const bool first = !traceWatch_;
    if (first) {
        auto started = watch::TraceWatch::start(trace_, true);
        if (!started) {
            showResult(std::unexpected(std::move(started.error())));
            return;
        }
        traceWatch_ = std::make_shared<watch::TraceWatch>(std::move(*started));
    }
    job_->run<Result<std::optional<WarmStartResult>>>(
        [traceWatch = traceWatch_, cacheDir = cacheDir_, first](const JobContext&) {
            return followWarmStart(*traceWatch, cacheDir, first);
        },
        [this](Result<std::optional<WarmStartResult>> result) {
            if (!result) {
                showResult(std::unexpected(std::move(result.error())));
            } else if (*result) {
                showResult(std::move(**result));
            }
        });
}

void WarmStartPage::chooseTrace(bool dir) {
    const QString start = QString::fromStdString(trace_.string());
    const QString chosen =
        dir ? QFileDialog::getExistingDirectory(this, tr("Open a TORCH_TRACE dir"), start)
            : QFileDialog::getOpenFileName(this, tr("Open a TORCH_TRACE log"), start,
                                           tr("Trace logs (*.log);;All files (*)"));
    if (!chosen.isEmpty()) {
        openTrace(chosen.toStdString(), cacheDir_);
    }
}

void WarmStartPage::chooseCacheDir() {
    const QString chosen =
        QFileDialog::getExistingDirectory(this, tr("The cache dir to compare misses with"),
                                          QString::fromStdString(cacheDir_.string()));
    if (chosen.isEmpty()) {
        return;
    }
    cacheDir_ = chosen.toStdString();
    if (!trace_.empty()) {
        openTrace(trace_, cacheDir_);
    }
}

void WarmStartPage::showSelected() {
    const QModelIndex current = table_->currentIndex();
    if (!current.isValid() || model_->result() == nullptr) {
        detail_->clear();
        whyButton_->setEnabled(false);
        return;
    }
    const trace::CompileWarmStart& compile = model_->compile(current.row());
    QStringList lines;
    lines << tr("compile %1  %2  %3")
                 .arg(text(compile.compile_id), text(compile.function),
                      compile.total_ns ? text(format_duration_ns(*compile.total_ns))
                                       : QStringLiteral("-"));
    if (compile.cause) {
        lines << tr("cause: %1").arg(text(compile.cause->text));
    }
    if (!compile.fail_reason.empty()) {
        lines << tr("failed: %1").arg(text(compile.fail_reason));
    }
    for (const auto& layer : compile.layers) {
        lines << QStringLiteral("%1 %2 %3  %4")
                     .arg(text(trace::layer_title(layer.layer)), -18)
                     .arg(text(trace::outcome_label(layer.layer, layer.outcome)), -12)
                     .arg(layer.time_ns ? text(format_duration_ns(*layer.time_ns))
                                        : QStringLiteral("-"),
                          10)
                     .arg(text(layer.detail));
    }
    detail_->setText(lines.join(u'\n'));
    const bool explainable = model_->missEntry(current.row()).has_value();
    whyButton_->setEnabled(explainable);
    whyButton_->setToolTip(
        explainable ? tr("Open the missed FX graph entry on the Why missed page")
        : compile.missed
            ? tr("The cache dir holds no entry of the missed key (choose the cache dir the run "
                 "wrote to)")
            : tr("This compile did not miss"));
}

bool WarmStartPage::explainRow(int row) {
    if (row < 0 || row >= model_->rowCount()) {
        return false;
    }
    const auto& entry = model_->missEntry(row);
    if (!entry) {
        emit statusMessage(tr("No missed FX graph entry of compile %1 in the cache dir to explain")
                               .arg(text(model_->compile(row).compile_id)));
        return false;
    }
    emit whyRequested(*entry, {model_->result()->cacheDir});
    return true;
}

} // namespace cachelens::ui
