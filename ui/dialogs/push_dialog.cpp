#include "dialogs/push_dialog.h"

#include "data/graph_selection.h"
#include "jobs/remote_work.h"
#include "models/push_plan_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/stats_text.h"
#include "widgets/job_status_line.h"
#include "widgets/plan_table.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace fs = std::filesystem;

PushDialog::PushDialog(JobPool& pool, fs::path sourceDir, std::vector<std::string> keys,
                       QStringList ignored, std::vector<remote::RedisEndpoint> servers,
                       QWidget* parent)
    : PlanDialog(pool,
                 {.objectPrefix = QStringLiteral("push"),
                  .runText = tr("&Push…"),
                  .runToolTip = tr("Store what the table marks \"would set\" (asks first); "
                                   "conflicts are left alone unless Force is checked"),
                  .confirmTitle = tr("Push"),
                  .planDelay = std::chrono::milliseconds(400)},
                 parent)
    , dir_(std::move(sourceDir))
    , keys_(std::move(keys))
    , servers_(std::move(servers))
    , model_(new PushPlanModel(this)) {
    setWindowTitle(tr("Push to Redis"));

    QStringList lines;
    if (keys_.empty()) {
        lines << tr("<b>Push every FX graph and AOT entry</b> of %1 to a Redis server, as "
                    "PyTorch stores them on a remote cache miss.")
                     .arg(text(dir_.string()).toHtmlEscaped());
    } else {
        lines << tr("<b>Push %1</b> of %2 (AOT entries with the FX graphs they link to) to a "
                    "Redis server, as PyTorch stores them on a remote cache miss.")
                     .arg(counted(keys_.size(), "entry"), text(dir_.string()).toHtmlEscaped());
        lines << keysHtml(keys_);
    }
    for (const QString& line : ignored) {
        lines << line.toHtmlEscaped();
    }
    auto* header = new QLabel(lines.join(QStringLiteral("<br>")));
    header->setObjectName(QStringLiteral("pushHeader"));
    header->setTextFormat(Qt::RichText); // the keys and names in it are escaped
    header->setWordWrap(true);
    header->setTextInteractionFlags(Qt::TextSelectableByMouse);

    server_ = new QComboBox;
    server_->setObjectName(QStringLiteral("pushServer"));
    server_->setEditable(true);
    server_->setInsertPolicy(QComboBox::NoInsert);
    for (const auto& endpoint : servers_) {
        server_->addItem(text(endpoint.display()));
    }
    if (servers_.empty()) {
        server_->setEditText(remote_work::defaultUrl());
    }
    server_->lineEdit()->setPlaceholderText(QStringLiteral("redis://[user@]host:port/db"));
    server_->setToolTip(tr("A Redis server shown as a root, or any URL: "
                           "redis://[[user]:password@]host[:port][/db], or host:port"));
    password_ = new QLineEdit(servers_.empty() ? remote_work::defaultPassword() : QString());
    password_->setObjectName(QStringLiteral("pushPassword"));
    password_->setEchoMode(QLineEdit::Password);
    password_->setClearButtonEnabled(true);
    password_->setPlaceholderText(tr("none, or the server's"));
    force_ = new QCheckBox(tr("&Force: replace other data under existing keys"));
    force_->setObjectName(QStringLiteral("pushForce"));
    force_->setToolTip(tr("Without it, a key that holds other data is a conflict and is left "
                          "alone (`cachelens remote push --force`)"));
    auto* serverLabel = new QLabel(tr("&Server:"));
    serverLabel->setBuddy(server_);
    auto* passwordLabel = new QLabel(tr("P&assword:"));
    passwordLabel->setBuddy(password_);
    auto* form = new QFormLayout;
    form->addRow(serverLabel, server_);
    form->addRow(passwordLabel, password_);
    form->addRow(QString(), force_);

    connect(server_, &QComboBox::currentTextChanged, this, &PushDialog::scheduleCheck);
    connect(password_, &QLineEdit::textEdited, this, &PushDialog::scheduleCheck);
    connect(force_, &QCheckBox::toggled, this, &PushDialog::planNow);

    table_ = makePlanTable(QStringLiteral("pushPlan"), model_,
                           {
                               {PushPlanModel::ActionColumn, 9},
                               {PushPlanModel::CacheColumn, 6},
                               {PushPlanModel::KeyColumn, 37},
                               {PushPlanModel::SizeColumn, 7},
                               {PushPlanModel::SourceColumn, 32},
                           });
    notes_ = new QLabel;
    notes_->setTextFormat(Qt::PlainText);
    notes_->setObjectName(QStringLiteral("pushNotes"));
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(header);
    layout->addLayout(form);
    layout->addWidget(errorBanner());
    layout->addWidget(statusLine());
    layout->addWidget(table_, 1);
    layout->addWidget(notes_);
    layout->addWidget(buttonBox());
    resize(1320, 520);

    planNow();
}

void PushDialog::setServer(const QString& url) {
    server_->blockSignals(true);
    if (const int index = server_->findText(url); index >= 0) {
        server_->setCurrentIndex(index);
    } else {
        server_->setEditText(url);
    }
    server_->blockSignals(false);
    check();
}

void PushDialog::setPassword(const QString& password) {
    password_->setText(password);
    check();
}

void PushDialog::setForce(bool force) {
    if (force_->isChecked() == force) {
        check();
        return;
    }
    force_->setChecked(force); // toggled checks
}

std::optional<remote::RedisEndpoint> PushDialog::server() const {
    const QString chosen = server_->currentText().trimmed();
    const QString password = password_->text();
    // A server offered keeps the password it was added with.
    for (const auto& endpoint : servers_) {
        if (text(endpoint.display()) == chosen) {
            remote::RedisEndpoint known = endpoint;
            if (!password.isEmpty()) {
                known.password = password.toStdString();
            }
            return known;
        }
    }
    auto parsed = remote_work::parseEndpoint(chosen, password);
    return parsed ? std::optional(std::move(*parsed)) : std::nullopt;
}

bool PushDialog::planWrites() const {
    return model_->result() && model_->isDryRun() &&
           model_->count(remote::PushAction::Set) + model_->count(remote::PushAction::Replaced) > 0;
}

void PushDialog::clearPlan() {
    model_->clear();
    notes_->hide();
}

QString PushDialog::confirmationText() const {
    if (!model_->result()) {
        return {};
    }
    const auto endpoint = server();
    const QString where = endpoint ? text(endpoint->display()) : server_->currentText();
    QString question;
    const auto set = model_->count(remote::PushAction::Set);
    const auto replaced = model_->count(remote::PushAction::Replaced);
    if (set > 0 && replaced > 0) {
        question = tr("Set %1 on %2 and replace the other data under %3?")
                       .arg(counted(set, "key"), where, counted(replaced, "key"));
    } else if (replaced > 0) {
        question =
            tr("Replace the other data under %1 on %2?").arg(counted(replaced, "key"), where);
    } else {
        question = tr("Set %1 on %2?").arg(counted(set, "key"), where);
    }
    if (const auto conflicts = model_->count(remote::PushAction::Conflict)) {
        question +=
            u' ' + (conflicts == 1 ? tr("1 key holds other data and is left alone (Force replaces "
                                        "it).")
                                   : tr("%1 keys hold other data and are left alone (Force "
                                        "replaces them).")
                                         .arg(conflicts));
    }
    return question;
}

QString PushDialog::notesText() const {
    return notes_->isHidden() ? QString() : notes_->text();
}

void PushDialog::showPhase(Phase phase) {
    for (QWidget* input : std::initializer_list<QWidget*>{server_, password_, force_}) {
        input->setEnabled(phase != Phase::Running);
    }
}

void PushDialog::scheduleCheck() {
    invalidatePlan();
    model_->clear();
    setStatus({});
    schedulePlan();
}

void PushDialog::run(bool dryRun) {
    const auto endpoint = server();
    if (!endpoint) {
        const auto parsed = remote_work::parseEndpoint(server_->currentText(), {});
        failed(parsed ? tr("Choose the Redis server to push to.")
                      : text(parsed.error().describe()));
        return;
    }
    const bool force = force_->isChecked();
    const QString where = text(endpoint->display());
    if (dryRun) {
        model_->clear();
    }
    const QString status =
        dryRun ? tr("Checking what %1 holds…").arg(where) : tr("Pushing to %1…").arg(where);
    const fs::path dir = dir_;
    const std::vector<std::string> keys = keys_;
    const remote::RedisEndpoint target = *endpoint;
    auto work = [target, dir, keys, dryRun, force, where](const JobContext& context) {
        return remote_work::pushEntries(target, dir, keys, dryRun, force,
                                        remote_work::transferProgress(context,
                                                                      remote_work::Transfer::Push,
                                                                      where, text(dir.string())));
    };
    auto show = [this, dryRun, where](Result<remote_work::PushOutcome> transfer) {
        if (!transfer) {
            const QString error = text(transfer.error().describe());
            emit statusMessage(tr("Cannot push to %1: %2").arg(where, error));
            failed(error);
            return;
        }
        remote_work::PushOutcome& outcome = *transfer;
        QStringList notes;
        for (const auto& note : outcome.result.notes) {
            notes << text(note);
        }
        notes_->setText(notes.join(u'\n'));
        notes_->setVisible(!notes.isEmpty());
        model_->setResult(std::move(outcome.result), dryRun, outcome.server);
        QString summary = model_->summaryText();
        if (dryRun) {
            summary += model_->count(remote::PushAction::Conflict) > 0 && !outcome.force
                           ? tr(". Conflicting keys are left alone unless Force is checked.")
                           : tr(". Nothing is stored before you confirm.");
        }
        setStatus(summary);
        if (dryRun) {
            planShown();
            return;
        }
        runDone();
        emit statusMessage(tr("Pushed %1").arg(model_->summaryText()));
        emit pushed(outcome.server);
    };
    if (dryRun) {
        runPlanJob<Result<remote_work::PushOutcome>>(status, work, show);
    } else {
        runWriteJob<Result<remote_work::PushOutcome>>(status, work, show);
    }
}

} // namespace cachelens::ui
