#include "dialogs/tune_dialog.h"

#include "models/tune_results_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "widgets/banner.h"

#include <cachelens/bench/tune.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace cachelens::ui {

namespace protocol = bench::protocol;

namespace {

const QString kCoordesc = QStringLiteral("coordesc");

// The space and budget options as the CLI takes them: surrounding blanks are the user's typing.
QString option(const QLineEdit* edit) {
    return edit->isEnabled() ? edit->text().trimmed() : QString();
}

} // namespace

TuneDialog::TuneDialog(QString catalogPath, QWidget* parent)
    : QDialog(parent)
    , process_(new TuneProcess(std::move(catalogPath), this))
    , results_(new TuneResultsModel(this)) {
    setWindowTitle(tr("Tune"));

    // The answer, or the error in the CLI's words: from the cache and the CLI, never markup.
    answer_ = makeBanner(QStringLiteral("tuneAnswer"), BannerTone::Info);
    title_ = new QLabel;
    title_->setObjectName(QStringLiteral("tuneTitle"));
    title_->setTextFormat(Qt::PlainText);
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    strategy_ = new QComboBox;
    strategy_->setObjectName(QStringLiteral("tuneStrategy"));
    strategy_->addItems({kCoordesc, QStringLiteral("grid"), QStringLiteral("random")});
    strategy_->setToolTip(tr("coordesc: Inductor's coordinate descent from the current best "
                             "config; grid: every config of the space; random: a sample of it"));
    space_ = new QLineEdit;
    space_->setObjectName(QStringLiteral("tuneSpace"));
    space_->setPlaceholderText(QStringLiteral("XBLOCK=256..4096,num_warps=2..16"));
    space_->setClearButtonEnabled(true);
    space_->setToolTip(tr("The values to try, field by field (--space): grid and random need it"));
    budget_ = new QLineEdit;
    budget_->setObjectName(QStringLiteral("tuneBudget"));
    budget_->setPlaceholderText(text(bench::tune::kDefaultBudget));
    budget_->setClearButtonEnabled(true);
    budget_->setToolTip(tr("When to stop (--budget): a time (90s, 10m), a number of configs "
                           "(40), or both (10m,200); empty: %1")
                            .arg(text(bench::tune::kDefaultBudget)));
    python_ = new QLineEdit(QStringLiteral("python3"));
    python_->setObjectName(QStringLiteral("tunePython"));
    python_->setToolTip(tr("The Python with the PyTorch and Triton that compiled the cache "
                           "(--python): it compiles the new configs"));

    plan_ = new QPushButton(tr("Plan"));
    plan_->setObjectName(QStringLiteral("tunePlan"));
    plan_->setToolTip(tr("List the configs the search would try (cachelens tune --plan; no GPU)"));
    start_ = new QPushButton(tr("Start"));
    start_->setObjectName(QStringLiteral("tuneStart"));
    start_->setToolTip(tr("Compile and time new configs on this machine's GPU (cachelens tune)"));
    stop_ = new QPushButton(tr("Stop"));
    stop_->setObjectName(QStringLiteral("tuneStop"));
    stop_->setToolTip(tr("End the search: the answer is what was measured so far"));
    accept_ = new QPushButton(tr("Make best config"));
    accept_->setObjectName(QStringLiteral("tuneAccept"));
    accept_->setToolTip(tr("Make the selected config the kernel's best config (cachelens bench "
                           "accept): re-timed beside the current best first; a config the tune "
                           "compiled is written only where PyTorch reads it"));
    progress_ = new QProgressBar;
    progress_->setObjectName(QStringLiteral("tuneProgress"));
    progress_->setFormat(QString()); // "%v / %m" once a result says how many
    progress_->setRange(0, 1);
    progress_->setValue(0);
    status_ = new QLabel(tr("Not run yet."));
    status_->setObjectName(QStringLiteral("tuneStatus"));
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true);
    notice_ = makeBanner(QStringLiteral("tuneNotice"), BannerTone::Warning);

    table_ = new QTableView;
    table_->setObjectName(QStringLiteral("tuneResults"));
    table_->setModel(results_);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
    table_->setAlternatingRowColors(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->horizontalHeader()->setStretchLastSection(true);
    // A phase is read whole; the config column is sized as rows come (below).
    table_->horizontalHeader()->setSectionResizeMode(TuneResultsModel::PhaseColumn,
                                                     QHeaderView::ResizeToContents);
    table_->setWordWrap(false);

    auto* options = new QHBoxLayout;
    auto addOption = [&](const QString& label, QWidget* field, int stretch) {
        auto* name = new QLabel(label);
        name->setBuddy(field);
        options->addWidget(name);
        options->addWidget(field, stretch);
    };
    addOption(tr("S&trategy:"), strategy_, 0);
    addOption(tr("S&pace:"), space_, 3);
    addOption(tr("&Budget:"), budget_, 1);
    addOption(tr("P&ython:"), python_, 1);
    auto* actions = new QHBoxLayout;
    actions->addWidget(plan_);
    actions->addWidget(start_);
    actions->addWidget(stop_);
    actions->addWidget(accept_);
    actions->addWidget(progress_, 1);
    actions->addWidget(status_, 2);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(answer_);
    layout->addWidget(title_);
    layout->addLayout(options);
    layout->addLayout(actions);
    layout->addWidget(notice_);
    layout->addWidget(table_, 1);
    layout->addWidget(buttons);
    resize(1100, 600);

    connect(strategy_, &QComboBox::currentTextChanged, this, [this] { updateButtons(); });
    connect(plan_, &QPushButton::clicked, this, &TuneDialog::plan);
    connect(start_, &QPushButton::clicked, this, &TuneDialog::start);
    connect(stop_, &QPushButton::clicked, this, &TuneDialog::stop);
    connect(accept_, &QPushButton::clicked, this, &TuneDialog::requestAccept);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { updateButtons(); });
    connect(buttons, &QDialogButtonBox::rejected, this, &TuneDialog::reject);
    connect(process_, &TuneProcess::item, this, &TuneDialog::handle);
    connect(process_, &TuneProcess::ended, this, &TuneDialog::showEnd);
    connect(results_, &TuneResultsModel::rowsInserted, this, [this] {
        table_->resizeColumnToContents(TuneResultsModel::ConfigColumn);
        table_->setColumnWidth(TuneResultsModel::ConfigColumn,
                               std::min(table_->columnWidth(TuneResultsModel::ConfigColumn),
                                        fontMetrics().averageCharWidth() * 64));
    });
    updateButtons();
}

TuneDialog::~TuneDialog() = default;

void TuneDialog::setTarget(const QString& dir, const QString& kernel, const QString& name) {
    if (isRunning()) {
        return;
    }
    if (dir != dir_ || kernel != kernel_) {
        results_->clear();
        end_.reset();
        failure_.reset();
        answer_->hide();
        notice_->hide();
        progress_->setFormat(QString());
        progress_->setRange(0, 1);
        progress_->setValue(0);
        status_->setText(tr("Not run yet."));
    }
    dir_ = dir;
    kernel_ = kernel;
    name_ = name;
    setWindowTitle(tr("Tune %1").arg(name));
    title_->setText(tr("%1 in %2").arg(name, dir));
    updateButtons();
}

void TuneDialog::setProgram(const QString& program) {
    process_->setProgram(program);
    cliRefused_ = false;
    updateButtons();
}

void TuneDialog::setGpuBusy(bool busy) {
    gpuBusy_ = busy;
    updateButtons();
}

QString TuneDialog::answerText() const {
    return answer_->isHidden() ? QString() : answer_->text();
}

QString TuneDialog::statusText() const {
    return status_->text();
}

QString TuneDialog::noticeText() const {
    return notice_->isHidden() ? QString() : notice_->text();
}

QString TuneDialog::incompatibleText(const QString& why) const {
    return tr("Refused to use %1: %2. Tune needs the cachelens command-line tool of this version: "
              "install the one built with this cachelens-gui beside it or on PATH.")
        .arg(program(), why);
}

void TuneDialog::updateButtons() {
    const bool running = isRunning();
    const bool ready =
        !running && !dir_.isEmpty() && !kernel_.isEmpty() && !program().isEmpty() && !cliRefused_;
    plan_->setEnabled(ready);
    start_->setEnabled(ready && !gpuBusy_);
    stop_->setEnabled(running && !process_->isStopping());
    accept_->setEnabled(acceptableRow().has_value());
    strategy_->setEnabled(!running);
    // Coordinate descent walks from the current best: no space to give.
    space_->setEnabled(!running && strategy_->currentText() != kCoordesc);
    budget_->setEnabled(!running);
    python_->setEnabled(!running);
}

void TuneDialog::setStatus(const QString& message) {
    status_->setText(message);
    emit statusMessage(message);
}

void TuneDialog::showAnswer(const QString& answer, bool isError, bool isGood) {
    answer_->setStyleSheet(bannerStyle(isError  ? BannerTone::Error
                                       : isGood ? BannerTone::Success
                                                : BannerTone::Info));
    answer_->setText(answer);
    answer_->show();
}

void TuneDialog::plan() {
    begin(true);
}

void TuneDialog::start() {
    begin(false);
}

void TuneDialog::begin(bool planOnly) {
    if (isRunning() || dir_.isEmpty() || kernel_.isEmpty() || cliRefused_ ||
        (gpuBusy_ && !planOnly)) {
        return;
    }
    results_->clear();
    end_.reset();
    failure_.reset();
    done_ = 0;
    total_ = 0;
    badLines_ = 0;
    firstBadLine_.clear();
    planning_ = planOnly;
    answer_->hide();
    notice_->hide();
    progress_->setFormat(QString());
    progress_->setRange(0, 0); // busy until the first result says how many
    table_->setColumnHidden(TuneResultsModel::PhaseColumn, !planOnly);
    setStatus(planOnly ? tr("Listing the configs to try…")
                       : tr("Starting %1…").arg(QFileInfo(program()).fileName()));
    TuneRequest request;
    request.dir = dir_;
    request.kernel = kernel_;
    request.strategy = strategy_->currentText();
    request.space = option(space_);
    request.budget = option(budget_);
    request.python = option(python_);
    request.plan = planOnly;
    process_->start(request);
    updateButtons();
    emit runningChanged(true);
}

void TuneDialog::stop() {
    if (!isRunning() || process_->isStopping()) {
        return;
    }
    setStatus(tr("Stopping…"));
    process_->stop();
    updateButtons();
}

void TuneDialog::reject() {
    stop();
    QDialog::reject();
}

void TuneDialog::handle(const protocol::StreamItem& item) {
    if (const auto* record = std::get_if<protocol::Record>(&item)) {
        handleRecord(*record);
    } else if (const auto* bad = std::get_if<protocol::BadLine>(&item)) {
        noteBadLine(text(bad->line), text(bad->why));
    } else if (const auto* incompatible = std::get_if<protocol::Incompatible>(&item)) {
        cliRefused_ = true;
        const QString why = text(incompatible->why);
        showAnswer(incompatibleText(why), true);
        emit refused(why);
    }
}

void TuneDialog::handleRecord(const protocol::Record& record) {
    if (std::holds_alternative<protocol::Header>(record)) {
        return; // checked by the reader
    }
    if (const auto* end = std::get_if<protocol::TuneEnd>(&record)) {
        end_ = *end;
        showAnswer(text(end->answer), false, end->faster);
        return;
    }
    if (const auto* failure = std::get_if<protocol::Failure>(&record)) {
        // The CLI's words, exactly as it prints them on stderr.
        failure_ = text(failure->message);
        showAnswer(*failure_, true);
        return;
    }
    if (!results_->add(record)) {
        noteBadLine(tr("a record of cachelens bench"), tr("not a record of a tune"));
        return;
    }
    if (const auto* start = std::get_if<protocol::TuneStart>(&record)) {
        total_ = static_cast<int>(start->planned);
        QString how = text(start->strategy);
        if (!start->budget.empty()) {
            how += tr(", budget %1").arg(text(start->budget));
        }
        if (!start->device.name.empty()) {
            how += tr(", on %1").arg(text(start->device.name));
        }
        setStatus(planning_
                      ? tr("Listing the configs to try (%1)…").arg(how)
                      : tr("Tuning from %1 (%2)…").arg(text(start->start_config.describe()), how));
    } else if (const auto* result = std::get_if<protocol::Result>(&record)) {
        done_ = std::max(done_, static_cast<int>(result->index));
        if (result->total > 0) {
            total_ = static_cast<int>(result->total);
        }
        total_ = std::max(total_, done_);
        progress_->setFormat(QStringLiteral("%v / %m"));
        progress_->setRange(0, std::max(total_, 1));
        progress_->setValue(done_);
        setStatus(tr("Tried %1 of %2: %3")
                      .arg(done_)
                      .arg(total_)
                      .arg(text(result->result.config.describe())));
    } else if (const auto* compiled = std::get_if<protocol::Compiled>(&record)) {
        setStatus(tr("Compiled %1: %2")
                      .arg(text(compiled->config.describe()),
                           TuneResultsModel::statusText(compiled->status)));
    }
}

void TuneDialog::noteBadLine(const QString& line, const QString& why) {
    // Not fatal: the lines after it may be fine; but never silent.
    if (++badLines_ == 1) {
        firstBadLine_ = tr("%1 (%2)").arg(line, why);
    }
    notice_->setText(tr("%1 of cachelens output were not understood; the first: %2")
                         .arg(counted(static_cast<std::size_t>(badLines_), "line"))
                         .arg(firstBadLine_));
    notice_->show();
}

void TuneDialog::showEnd(const BenchExit& exit) {
    const QString& tail = exit.stderrText;
    const QString why = tail.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + tail;
    if (!exit.started()) {
        showAnswer(tr("Could not start %1: %2. Tune runs the cachelens command-line tool; "
                      "install it beside cachelens-gui or on PATH.")
                       .arg(program(), exit.notStarted),
                   true);
        setStatus(tr("Failed."));
    } else if (exit.refused) {
        setStatus(tr("Refused %1.").arg(program()));
    } else if (end_ && !planning_ && !exit.crashed) {
        // Its answer is shown: ended by its budget, converged, all tried, or
        // stopped (by Stop: exit code 130) with what it measured until then.
        progress_->setRange(0, std::max({total_, done_, 1}));
        progress_->setValue(done_);
        setStatus(tr("Tune run %2 ended (%3) in %4 s: %1 tried, %5 compiled.")
                      .arg(counted(static_cast<std::size_t>(end_->tried), "config"))
                      .arg(end_->run_id)
                      .arg(text(end_->ended))
                      .arg(end_->seconds, 0, 'f', 0)
                      .arg(end_->compiled));
    } else if (exit.cancelled) {
        setStatus(tr("Stopped after %1 of %2 configs.").arg(done_).arg(total_));
    } else if (exit.crashed) {
        if (!failure_) {
            showAnswer(tr("cachelens tune crashed after %1 of %2 configs%3")
                           .arg(done_)
                           .arg(total_)
                           .arg(why),
                       true);
        }
        setStatus(tr("Failed."));
    } else if (failure_) {
        // The error record says it best; it is shown already.
        setStatus(tr("Failed (exit code %1).").arg(exit.code));
    } else if (planning_ && exit.code == 0) {
        int fresh = 0;
        for (int row = 0; row < results_->rowCount(); ++row) {
            const auto& candidate = results_->row(row).candidate;
            fresh += candidate && candidate->origin == "new" ? 1 : 0;
        }
        setStatus(tr("Planned: %1 to try, %2 of them new (compiled by a tune).")
                      .arg(counted(static_cast<std::size_t>(results_->rowCount()), "config"))
                      .arg(fresh));
    } else if (exit.code != 0) {
        showAnswer(tr("cachelens tune exited with code %1%2").arg(exit.code).arg(why), true);
        setStatus(tr("Failed."));
    } else {
        showAnswer(planning_ ? tr("cachelens tune --plan ended without a listing%1").arg(why)
                             : tr("cachelens tune ended without its answer (no \"tune_end\" "
                                  "record)%1")
                                   .arg(why),
                   true);
        setStatus(tr("Failed."));
    }
    if (progress_->maximum() == 0) {
        progress_->setRange(0, 1); // out of the busy state
        progress_->setValue(0);
    }
    table_->setColumnHidden(TuneResultsModel::PhaseColumn, !results_->hasPhases());
    updateButtons();
    emit runningChanged(false);
    emit tuneEnded();
}

std::optional<int> TuneDialog::acceptableRow() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    if (isRunning() || planning_ || !current.isValid() || cliRefused_) {
        return std::nullopt;
    }
    const auto& row = results_->row(current.row());
    if (!row.ok() || row.result->result.triton_hash.empty() ||
        results_->index(current.row(), 0).data(TuneResultsModel::StartRole).toBool()) {
        return std::nullopt;
    }
    return current.row();
}

void TuneDialog::requestAccept() {
    const auto row = acceptableRow();
    if (!row) {
        return;
    }
    const auto& result = results_->row(*row).result->result;
    setStatus(tr("Making %1 the best config (the Benchmarks page runs cachelens bench accept)…")
                  .arg(text(result.config.describe())));
    emit acceptRequested(kernel_, name_, text(result.triton_hash), text(result.config.describe()));
}

void TuneDialog::showAcceptOutcome(const QString& words, bool written) {
    showAnswer(words, !written, written);
    setStatus(written ? tr("Best config changed.") : tr("Make best config refused."));
}

} // namespace cachelens::ui
