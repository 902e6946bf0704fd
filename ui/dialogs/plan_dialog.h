#pragma once

// What the Import, Pull, Push and Prune dialogs have in common: inputs that
// change a plan, the plan made in a job (a dry run: nothing written), shown
// in a table with a summary and an error line, then a button that asks
// before it writes, writes in a job and shows what happened.
//
//   inputs edited ─▶ (debounced) plan job ─▶ plan shown ─▶ Run? ─▶ run job ─▶ outcome shown
//
// A subclass supplies its inputs, the work of both jobs and its model; this
// class owns the rest: the debounce timer, its job tracker (its two job
// calls are runPlanJob and runWriteJob), the error banner, the status line,
// the run button in a Close button box, the confirm step and, for a dialog
// planned on request (Prune: Preview), the Preview and Cancel buttons with a
// progress bar. A plan nobody will see is cancelled when the dialog goes; a
// run finishes (what it writes is whole).
//
// The widgets are made without a parent: the subclass lays them out with
// its own, in its order (which is the tab order).

#include "jobs/job_tracker.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QString>

#include <chrono>
#include <functional>
#include <utility>

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace cachelens::ui {

class JobStatusLine;

class PlanDialog : public QDialog {
    Q_OBJECT

public:
    ~PlanDialog() override;

    // A plan or a run in a job.
    bool isBusy() const;
    // A plan that writes something is shown and nothing runs.
    bool canRun() const;
    // What the run button asks before it writes, for the plan shown; empty without one.
    virtual QString confirmationText() const = 0;
    // What the dialog shows: an error (empty when none) and the status line.
    QString errorText() const;
    QString summaryText() const;
    // The dialog's job (its progress, for tests).
    JobTracker& job() const { return *job_; }

signals:
    // A plan (or an error instead of one) is shown.
    void planned();
    void statusMessage(const QString& message);

protected:
    enum class Phase {
        Idle,     // no plan shown: none yet, the inputs changed, or an error
        Planning, // the plan job runs
        Planned,  // a plan is shown: the run button may write it
        Running,  // the run job writes
        Done,     // what the run did is shown
    };

    struct Setup {
        QString objectPrefix{}; // "import": importError, importSummary
        QString runText{};      // "&Import…"
        QString runToolTip{};
        QString confirmTitle{}; // the title of askBeforeWriting's question
        QDialogButtonBox::ButtonRole runRole = QDialogButtonBox::AcceptRole;
        bool runIsDefault = true; // Return presses it (else Preview, when there is one)
        // Debounce of schedulePlan(); zero: planned on request only (a
        // Preview button, Cancel and a progress bar; edits invalidate).
        std::chrono::milliseconds planDelay{300};
        QString statusText{}; // the status line before any plan
    };

    PlanDialog(JobPool& pool, Setup setup, QWidget* parent = nullptr);

    // The subclass's part.
    // Starts the plan: checks the inputs, then runPlanJob, or failed().
    virtual void startPlan() = 0;
    // Starts the run of the plan shown: runWriteJob.
    virtual void startRun() = 0;
    // Whether the plan shown writes anything.
    virtual bool planWrites() const = 0;
    // Drops the plan shown (the model, and what goes with it).
    virtual void clearPlan() = 0;
    // Enables the subclass's inputs for `phase` (they stay put while a run writes).
    virtual void showPhase(Phase phase) = 0;
    // Asks before the run: askBeforeWriting(confirmTitle, confirmationText()) unless overridden.
    virtual bool confirmRun();
    // The progress text of a dialog planned on request: a job's report (`what`
    // empty and total 0 as a job starts).
    virtual QString progressText(qint64 done, qint64 total, const QString& what) const;
    // A plan job was cancelled from the Cancel button.
    virtual void planCancelled() {}

    // The flow, for the subclass's inputs and buttons.
    // Inputs edited: plans again after the debounce (on-request dialogs: the plan shown is void).
    void schedulePlan();
    // Plans now (a field set from code, Allow ticked, Preview).
    void planNow();
    // The plan shown no longer answers for the inputs: nothing to run until planned again.
    void invalidatePlan();
    // What the run button does: asks when `askUser`, then startRun().
    void confirmAndRun(bool askUser);
    // Stops the plan job under way; false when none ran.
    bool cancelPlan();

    // The only job calls: `work` runs on the pool, `show` on the GUI thread
    // with its result and ends by calling planShown() (a plan job), runDone()
    // (a run job) or failed(), or by starting another plan job. `status` is
    // the status line's text meanwhile.
    template <class T>
    void runPlanJob(const QString& status, std::function<T(const JobContext&)> work,
                    std::function<void(T)> show) {
        beginJob(Phase::Planning, status);
        job_->run<T>(std::move(work), std::move(show));
    }
    template <class T>
    void runWriteJob(const QString& status, std::function<T(const JobContext&)> work,
                     std::function<void(T)> show) {
        beginJob(Phase::Running, status);
        job_->run<T>(std::move(work), std::move(show));
    }
    // The plan is in the model: the run button may write it; emits planned().
    void planShown();
    // What the run did is in the model.
    void runDone();
    // No plan (or no run): clears the plan, shows `error` (empty: none) and
    // `status`, and emits planned(): an error is shown instead of a plan.
    void failed(const QString& error, const QString& status = {});

    void showError(const QString& message);
    void setStatus(const QString& status);
    Phase phase() const { return phase_; }

    // The widgets to lay out.
    QLabel* errorBanner() const { return error_; }
    JobStatusLine* statusLine() const { return status_; }
    QPushButton* runButton() const { return run_; }
    QDialogButtonBox* buttonBox() const { return buttons_; }
    // Only for a dialog planned on request.
    QPushButton* previewButton() const { return preview_; }
    QPushButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }
    QLabel* progressLabel() const { return progressText_; }

private:
    void beginJob(Phase phase, const QString& status);
    void setPhase(Phase phase);
    void showProgress(qint64 done, qint64 total, const QString& what);

    JobTracker* job_;
    Setup setup_;
    Phase phase_ = Phase::Idle;

    QLabel* error_ = nullptr;
    JobStatusLine* status_ = nullptr;
    QPushButton* run_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
    QTimer* planDelay_ = nullptr;
    QPushButton* preview_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* progressText_ = nullptr;
};

} // namespace cachelens::ui
