#include "dialogs/pull_dialog.h"

#include "data/graph_selection.h"
#include "jobs/remote_work.h"
#include "models/import_plan_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/preflight_text.h"
#include "text/stats_text.h"
#include "widgets/findings_panel.h"
#include "widgets/job_status_line.h"
#include "widgets/plan_table.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace fs = std::filesystem;

PullDialog::PullDialog(JobPool& pool, remote::RedisEndpoint server, std::vector<std::string> keys,
                       QStringList ignored, fs::path destination, QWidget* parent)
    : PlanDialog(pool,
                 {.objectPrefix = QStringLiteral("pull"),
                  .runText = tr("&Pull…"),
                  .runToolTip = tr("Write what the table marks \"would write\" into the cache dir "
                                   "above (asks first); refused values are never written"),
                  .confirmTitle = tr("Pull")},
                 parent)
    , server_(std::move(server))
    , keys_(std::move(keys))
    , model_(new ImportPlanModel(this)) {
    const QString serverText = text(server_.display());
    setWindowTitle(tr("Pull from %1").arg(serverText));

    QStringList lines;
    lines << tr("<b>Pull %1</b> from %2 into a cache dir, where PyTorch writes a remote hit. "
                "Values pass the safety checks of an import; a file there with other bytes is "
                "left alone.")
                 .arg(counted(keys_.size(), "entry"), serverText.toHtmlEscaped());
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
    destination_->setToolTip(
        tr("The cache dir to write into (created when missing). PyTorch "
           "reads $TORCHINDUCTOR_CACHE_DIR, else torchinductor_$USER in $TMPDIR (else /tmp)."));
    browse_ = new QPushButton(tr("&Browse…"));
    auto* intoRow = new QHBoxLayout;
    intoRow->addWidget(destination_, 1);
    intoRow->addWidget(browse_);
    auto* intoLabel = new QLabel(tr("&Into cache dir:"));
    intoLabel->setBuddy(destination_);
    auto* form = new QFormLayout;
    form->addRow(intoLabel, intoRow);
    connect(destination_, &QLineEdit::textEdited, this, &PullDialog::schedulePlan);
    connect(browse_, &QPushButton::clicked, this, &PullDialog::chooseDestination);

    table_ = makeImportPlanTable(QStringLiteral("pullPlan"), model_);
    notes_ = new QLabel;
    notes_->setTextFormat(Qt::PlainText);
    notes_->setObjectName(QStringLiteral("pullNotes"));
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->hide();

    preflight_ = new QLabel;
    preflight_->setObjectName(QStringLiteral("pullPreflight"));
    preflight_->setTextFormat(Qt::RichText); // the text from the server in it is escaped
    preflight_->setWordWrap(true);
    preflight_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    preflight_->hide();

    findings_ = new FindingsPanel(QStringLiteral("pullFindings"));
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &PullDialog::showSelectedFindings);
    connect(findings_, &FindingsPanel::allowedChanged, this, &PullDialog::planNow);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(header);
    layout->addLayout(form);
    layout->addWidget(preflight_);
    layout->addWidget(errorBanner());
    layout->addWidget(statusLine());
    layout->addWidget(table_, 2);
    layout->addWidget(findings_, 1);
    layout->addWidget(notes_);
    layout->addWidget(buttonBox());
    resize(1200, 600);

    planNow();
}

fs::path PullDialog::destination() const {
    return destination_->text().trimmed().toStdString();
}

void PullDialog::setDestination(const fs::path& dir) {
    destination_->setText(text(dir.string()));
    planNow();
}

bool PullDialog::planWrites() const {
    return model_->plan() && model_->isDryRun() && model_->count(bundle::ImportAction::Write) > 0;
}

void PullDialog::clearPlan() {
    model_->clear();
}

QString PullDialog::preflightText() const {
    return preflight_->isHidden()
               ? QString()
               : QTextDocumentFragment::fromHtml(preflight_->text()).toPlainText();
}

QString PullDialog::notesText() const {
    return notes_->isHidden() ? QString() : notes_->text();
}

void PullDialog::showPhase(Phase phase) {
    destination_->setEnabled(phase != Phase::Running);
    browse_->setEnabled(phase != Phase::Running);
}

QString PullDialog::confirmationText() const {
    return model_->confirmationText();
}

void PullDialog::run(bool dryRun) {
    const fs::path dir = destination();
    // The row selected stays selected in the new plan (ticking Allow re-plans).
    const int selectedRow = table_->currentIndex().row();
    if (dir.empty()) {
        failed(tr("Choose the cache dir to pull into."));
        return;
    }
    if (dryRun) {
        model_->clear();
    }
    const QString status =
        dryRun
            ? tr("Reading %1 from %2…").arg(counted(keys_.size(), "value"), text(server_.display()))
            : tr("Pulling into %1…").arg(text(dir.string()));
    const remote::RedisEndpoint server = server_;
    const std::vector<std::string> keys = keys_;
    const std::vector<std::string> allowed = findings_->allowedIds();
    auto work = [server, keys, dir, dryRun, allowed](const JobContext& context) {
        return remote_work::pullEntries(
            server, keys, dir, dryRun, allowed,
            remote_work::transferProgress(context, remote_work::Transfer::Pull,
                                          text(server.display()), text(dir.string())));
    };
    auto show = [this, server, dir, dryRun,
                 selectedRow](Result<remote_work::PullOutcome> transfer) {
        if (!transfer) {
            notes_->clear();
            notes_->hide();
            const QString error = text(transfer.error().describe());
            emit statusMessage(tr("Cannot pull from %1: %2").arg(text(server.display()), error));
            failed(error);
            return;
        }
        remote_work::PullOutcome& outcome = *transfer;
        QStringList notes;
        for (const QString& problem : outcome.problems) {
            notes << tr("Not pulled: %1").arg(problem);
        }
        notes << outcome.notes;
        notes_->setText(notes.join(u'\n'));
        notes_->setVisible(!notes.isEmpty());
        if (dryRun) { // after a pull the plan shows what was written
            preflight_->setText(preflightHtml(outcome.preflight));
            preflight_->show();
        }
        model_->setPlan(std::move(outcome.plan), dryRun);
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
        setStatus(summary);
        if (dryRun) {
            planShown();
            return;
        }
        runDone();
        emit statusMessage(tr("Pulled from %1 into %2: %3")
                               .arg(outcome.server, text(dir.string()), model_->summaryText()));
        emit pulled(dir);
    };
    if (dryRun) {
        runPlanJob<Result<remote_work::PullOutcome>>(status, work, show);
    } else {
        runWriteJob<Result<remote_work::PullOutcome>>(status, work, show);
    }
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
