#include "dialogs/plan_dialog.h"

#include "dialogs/confirm.h"
#include "widgets/banner.h"
#include "widgets/job_status_line.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>

namespace cachelens::ui {

PlanDialog::PlanDialog(JobPool& pool, Setup setup, QWidget* parent)
    : QDialog(parent)
    , job_(new JobTracker(pool, this))
    , setup_(std::move(setup)) {
    error_ = makeBanner(setup_.objectPrefix + QStringLiteral("Error"), BannerTone::Error);
    status_ = new JobStatusLine(*job_, setup_.objectPrefix + QStringLiteral("Summary"));
    status_->setText(setup_.statusText);

    run_ = new QPushButton(setup_.runText);
    run_->setEnabled(false);
    run_->setToolTip(setup_.runToolTip);
    if (setup_.runIsDefault) {
        run_->setDefault(true);
    } else {
        run_->setAutoDefault(false);
    }
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons_->addButton(run_, setup_.runRole);
    connect(run_, &QPushButton::clicked, this, [this] { confirmAndRun(true); });
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

    if (setup_.planDelay.count() > 0) {
        planDelay_ = new QTimer(this);
        planDelay_->setSingleShot(true);
        planDelay_->setInterval(setup_.planDelay); // one plan per pause in typing, not per key
        connect(planDelay_, &QTimer::timeout, this, &PlanDialog::planNow);
    } else {
        preview_ = new QPushButton(tr("&Preview"));
        preview_->setDefault(true);
        cancel_ = new QPushButton(tr("Cancel"));
        cancel_->setEnabled(false);
        progress_ = new QProgressBar;
        progress_->setTextVisible(false);
        progress_->hide();
        progressText_ = new QLabel;
        progressText_->setTextFormat(Qt::PlainText);
        connect(preview_, &QPushButton::clicked, this, &PlanDialog::planNow);
        connect(cancel_, &QPushButton::clicked, this, [this] {
            if (cancelPlan()) {
                planCancelled();
            }
        });
        connect(job_, &JobTracker::progress, this, &PlanDialog::showProgress);
    }
}

PlanDialog::~PlanDialog() {
    // A plan nobody will see is not worth finishing; a run finishes.
    if (phase_ == Phase::Planning) {
        job_->cancel();
    }
}

bool PlanDialog::isBusy() const {
    return phase_ == Phase::Planning || phase_ == Phase::Running;
}

bool PlanDialog::canRun() const {
    return phase_ == Phase::Planned && planWrites();
}

QString PlanDialog::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

QString PlanDialog::summaryText() const {
    return status_->text();
}

bool PlanDialog::confirmRun() {
    return askBeforeWriting(this, setup_.confirmTitle, confirmationText());
}

QString PlanDialog::progressText(qint64, qint64, const QString& what) const {
    return what;
}

void PlanDialog::schedulePlan() {
    if (planDelay_ != nullptr) {
        planDelay_->start();
    }
}

void PlanDialog::planNow() {
    if (planDelay_ != nullptr) {
        planDelay_->stop();
    }
    if (phase_ == Phase::Running) {
        return;
    }
    startPlan();
}

void PlanDialog::invalidatePlan() {
    if (phase_ == Phase::Running) {
        return;
    }
    if (phase_ == Phase::Planning) {
        job_->cancel();
    }
    setPhase(Phase::Idle);
}

bool PlanDialog::cancelPlan() {
    if (phase_ != Phase::Planning) {
        return false;
    }
    job_->cancel();
    setPhase(Phase::Idle);
    return true;
}

void PlanDialog::confirmAndRun(bool askUser) {
    if (!canRun()) {
        return;
    }
    if (askUser && !confirmRun()) {
        return;
    }
    startRun();
}

void PlanDialog::beginJob(Phase phase, const QString& status) {
    showError({});
    setStatus(status);
    setPhase(phase);
}

void PlanDialog::planShown() {
    setPhase(Phase::Planned);
    emit planned();
}

void PlanDialog::runDone() {
    setPhase(Phase::Done);
}

void PlanDialog::failed(const QString& error, const QString& status) {
    clearPlan();
    showError(error);
    setStatus(status);
    setPhase(Phase::Idle);
    emit planned();
}

void PlanDialog::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
}

void PlanDialog::setStatus(const QString& status) {
    status_->setText(status);
}

void PlanDialog::setPhase(Phase phase) {
    phase_ = phase;
    const bool busy = isBusy();
    if (preview_ == nullptr) {
        status_->setBusy(busy); // the status line follows the job's stages
    } else {
        preview_->setEnabled(phase != Phase::Running);
        // A run goes to its end: stopping it half way would leave half of what it writes.
        cancel_->setEnabled(phase == Phase::Planning);
        progress_->setVisible(busy);
        progressText_->setVisible(busy);
        if (busy) {
            progress_->setRange(0, 0);
            progressText_->setText(progressText(0, 0, {}));
        }
    }
    showPhase(phase);
    run_->setEnabled(canRun());
}

void PlanDialog::showProgress(qint64 done, qint64 total, const QString& what) {
    if (!isBusy()) {
        return;
    }
    if (total <= 0) {
        progress_->setRange(0, 0);
    } else {
        progress_->setRange(0, static_cast<int>(total));
        progress_->setValue(static_cast<int>(done));
    }
    progressText_->setText(progressText(done, total, what));
}

} // namespace cachelens::ui
