#include "dialogs/pull_dialog.h"

#include "jobs/job_runner.h"
#include "jobs/remote_work.h"
#include "text/engine_text.h"
#include "data/graph_selection.h"
#include "models/import_plan_model.h"
#include "text/stats_text.h"
#include "widgets/banner.h"
#include "dialogs/confirm.h"
#include "widgets/findings_panel.h"
#include "widgets/job_status_line.h"
#include "widgets/plan_table.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace fs = std::filesystem;

PullDialog::PullDialog(JobRunner& jobs, remote::RedisEndpoint server, std::vector<std::string> keys,
                       QStringList ignored, fs::path destination, QWidget* parent)
    : QDialog(parent)
    , jobs_(jobs)
    , server_(std::move(server))
    , keys_(std::move(keys))
    , channel_(QStringLiteral("pull:%1").arg(quintptr(this)))
    , model_(new ImportPlanModel(this)) {
    const QString serverText = text(server_.display());
    setWindowTitle(tr("Pull from %1").arg(serverText));

    QStringList lines;
    lines << tr("<b>Pull %1</b> from %2 into a cache dir, where PyTorch writes a remote hit. "
                "Values pass the safety checks of an import; a file there with other bytes is "
                "left alone.")
                 .arg(stats_text::count(keys_.size(), "entry", "entries"),
                      serverText.toHtmlEscaped());
    lines << keysHtml(keys_);
    for (const QString& line : ignored) {
        lines << line.toHtmlEscaped();
    }
    auto* header = new QLabel(lines.join(QStringLiteral("<br>")));
    header->setObjectName(QStringLiteral("pullHeader"));
    header->setTextFormat(Qt::RichText); // the keys and names in it are escaped
    header->setWordWrap(true);
    header->setTextInteractionFlags(Qt::TextSelectableByMouse);

    destination_ = new QLineEdit(text(destination.string()));
    destination_->setObjectName(QStringLiteral("pullInto"));
    destination_->setToolTip(tr("The cache dir to write into (created when missing). PyTorch "
                                "reads $TORCHINDUCTOR_CACHE_DIR, else /tmp/torchinductor_$USER."));
    browse_ = new QPushButton(tr("&Browse…"));
    auto* intoRow = new QHBoxLayout;
    intoRow->addWidget(destination_, 1);
    intoRow->addWidget(browse_);
    auto* intoLabel = new QLabel(tr("&Into cache dir:"));
    intoLabel->setBuddy(destination_);
    auto* form = new QFormLayout;
    form->addRow(intoLabel, intoRow);
    destinationDelay_ = new QTimer(this);
    destinationDelay_->setSingleShot(true);
    destinationDelay_->setInterval(300); // one dry run per pause in typing
    connect(destination_, &QLineEdit::textEdited, destinationDelay_, qOverload<>(&QTimer::start));
    connect(destinationDelay_, &QTimer::timeout, this, [this] { run(true); });
    connect(browse_, &QPushButton::clicked, this, &PullDialog::chooseDestination);

    error_ = makeBanner(QStringLiteral("pullError"), BannerTone::Error);
    summary_ = new JobStatusLine(jobs_, channel_, QStringLiteral("pullSummary"));

    table_ = makePlanTable(QStringLiteral("pullPlan"), model_,
                           {
                               {ImportPlanModel::ActionColumn, 7},
                               {ImportPlanModel::VerdictColumn, 16},
                               {ImportPlanModel::TypeColumn, 9},
                               {ImportPlanModel::KeyColumn, 16},
                               {ImportPlanModel::SizeColumn, 6},
                               {ImportPlanModel::DestinationColumn, 14},
                               {ImportPlanModel::ParsesToColumn, 17},
                           });
    notes_ = new QLabel;
    notes_->setTextFormat(Qt::PlainText);
    notes_->setObjectName(QStringLiteral("pullNotes"));
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->hide();

    findings_ = new FindingsPanel(QStringLiteral("pullFindings"));
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &PullDialog::showSelectedFindings);
    connect(findings_, &FindingsPanel::allowedChanged, this, [this] { run(true); });

    pull_ = new QPushButton(tr("&Pull…"));
    pull_->setDefault(true);
    pull_->setEnabled(false);
    pull_->setToolTip(tr("Write what the table marks \"would write\" into the cache dir above "
                         "(asks first); refused values are never written"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(pull_, QDialogButtonBox::AcceptRole);
    connect(pull_, &QPushButton::clicked, this, [this] { confirmAndPull(true); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(header);
    layout->addLayout(form);
    layout->addWidget(error_);
    layout->addWidget(summary_);
    layout->addWidget(table_, 2);
    layout->addWidget(findings_, 1);
    layout->addWidget(notes_);
    layout->addWidget(buttons);
    resize(1200, 600);

    run(true);
}

PullDialog::~PullDialog() {
    // A dry run nobody will see is not worth finishing; a pull finishes.
    if (busy_ && !pulling_) {
        jobs_.cancel(channel_);
    }
}

fs::path PullDialog::destination() const {
    return destination_->text().trimmed().toStdString();
}

void PullDialog::setDestination(const fs::path& dir) {
    destinationDelay_->stop();
    destination_->setText(text(dir.string()));
    run(true);
}

bool PullDialog::canPull() const {
    return !busy_ && model_->plan() && model_->isDryRun() &&
           model_->count(bundle::ImportAction::Write) > 0;
}

QString PullDialog::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

QString PullDialog::summaryText() const {
    return summary_->text();
}

QString PullDialog::notesText() const {
    return notes_->isHidden() ? QString() : notes_->text();
}

void PullDialog::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
}

void PullDialog::setBusy(bool busy) {
    busy_ = busy;
    destination_->setEnabled(!pulling_);
    browse_->setEnabled(!pulling_);
    summary_->setBusy(busy);
    pull_->setEnabled(canPull());
}

QString PullDialog::confirmationText() const {
    return model_->confirmationText();
}

void PullDialog::confirmAndPull(bool askUser) {
    if (!canPull()) {
        return;
    }
    if (askUser && !askBeforeWriting(this, tr("Pull"), confirmationText())) {
        return;
    }
    run(false);
}

void PullDialog::run(bool dryRun) {
    const fs::path dir = destination();
    // The row selected stays selected in the new plan (ticking Allow re-plans).
    const int selectedRow = table_->currentIndex().row();
    if (dir.empty()) {
        model_->clear();
        summary_->clear();
        showError(tr("Choose the cache dir to pull into."));
        setBusy(false);
        emit planned();
        return;
    }
    showError({});
    pulling_ = !dryRun;
    if (dryRun) {
        model_->clear();
        summary_->setText(
            tr("Reading %1 from %2…")
                .arg(stats_text::count(keys_.size(), "value", "values"), text(server_.display())));
    } else {
        summary_->setText(tr("Pulling into %1…").arg(text(dir.string())));
    }
    setBusy(true);
    const remote::RedisEndpoint server = server_;
    const std::vector<std::string> keys = keys_;
    const std::vector<std::string> allowed = findings_->allowedIds();
    jobs_.run<remote_work::PullOutcome>(
        channel_, this,
        [server, keys, dir, dryRun, allowed](const JobContext& context) {
            return remote_work::pullEntries(
                server, keys, dir, dryRun, allowed,
                remote_work::transferProgress(context, remote_work::Transfer::Pull,
                                              text(server.display()), text(dir.string())));
        },
        [this, dir, dryRun, selectedRow](remote_work::PullOutcome outcome) {
            pulling_ = false;
            QStringList notes;
            for (const QString& problem : outcome.problems) {
                notes << tr("Not pulled: %1").arg(problem);
            }
            notes << outcome.notes;
            notes_->setText(notes.join(u'\n'));
            notes_->setVisible(!notes.isEmpty());
            if (!outcome.plan) {
                model_->clear();
                summary_->clear();
                showError(outcome.error);
                setBusy(false);
                emit statusMessage(
                    tr("Cannot pull from %1: %2").arg(outcome.server, outcome.error));
                emit planned();
                return;
            }
            model_->setPlan(std::move(*outcome.plan), dryRun);
            if (selectedRow >= 0 && selectedRow < model_->rowCount()) {
                table_->setCurrentIndex(model_->index(selectedRow, 0));
            }
            showSelectedFindings();
            const auto refused = model_->count(bundle::ImportAction::Refused);
            QString summary = model_->summaryText();
            if (!outcome.problems.isEmpty()) {
                summary += tr(", %1 not pulled (below)").arg(outcome.problems.size());
            }
            if (dryRun) {
                summary += refused > 0 ? tr(". Refused values are never written: select one "
                                            "for its findings, hover it for every reason.")
                                       : tr(". Nothing is written before Pull.");
            }
            summary_->setText(summary);
            setBusy(false);
            if (dryRun) {
                emit planned();
                return;
            }
            emit statusMessage(tr("Pulled from %1 into %2: %3")
                                   .arg(outcome.server, text(dir.string()), model_->summaryText()));
            emit pulled(dir);
        });
}

void PullDialog::showSelectedFindings() {
    findings_->showArtifact(model_->artifact(table_->currentIndex().row()));
}

void PullDialog::chooseDestination() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Pull into cache dir"), destination_->text());
    if (!dir.isEmpty()) {
        setDestination(dir.toStdString());
    }
}

} // namespace cachelens::ui
