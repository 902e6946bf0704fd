#pragma once

// The Prune dialog: `cachelens prune` for one cache dir, with a look first.
// The user sets a max size, an age, or both (and how recent is always kept);
// Preview indexes the dir and plans in a job (progress, Cancel) and lists what
// would go, oldest first, grouped as it goes together; Delete, enabled only
// for a preview of the inputs as they are, asks, deletes in a job and shows
// what was deleted, what was kept and why, and what failed.

#include "dialogs/plan_dialog.h"

#include <cachelens/catalog/prune.h>

#include <QString>

#include <filesystem>
#include <optional>

class QLineEdit;
class QPlainTextEdit;
class QTreeView;

namespace cachelens::ui {

class PrunePlanModel;

class PruneDialog : public PlanDialog {
    Q_OBJECT

public:
    PruneDialog(JobPool& pool, QString catalogPath, std::filesystem::path root,
                QWidget* parent = nullptr);

    // Test hooks, and what the buttons do.
    // Sets the inputs as if typed (an absent limit is left empty).
    void setLimits(std::optional<QString> maxSize, std::optional<QString> olderThan,
                   QString keepRecent);
    // Indexes the dir and plans with the inputs, in this dialog's job.
    void preview() { planNow(); }
    // Deletes what the current preview lists; asks first when `askUser`.
    void confirmAndDelete(bool askUser) { confirmAndRun(askUser); }
    const PrunePlanModel* plan() const { return plan_; }

    bool canDelete() const { return canRun(); }
    // The question Delete asks, for the preview shown.
    QString confirmationText() const override;
    // The outcome of a delete (empty before one); errorText() and
    // summaryText() are PlanDialog's.
    QString outcomeText() const;

signals:
    // After a delete ran (whatever it managed to delete).
    void pruned();

public slots:
    void reject() override;

private:
    void startPlan() override;
    void startRun() override;
    bool planWrites() const override;
    void clearPlan() override;
    void showPhase(Phase phase) override;
    bool confirmRun() override;
    QString progressText(qint64 done, qint64 total, const QString& what) const override;
    void planCancelled() override;

    void inputsChanged();
    // Shows `message` in the error banner and the window's status bar.
    void reportError(const QString& message);
    void showPlan(catalog::PrunePlan plan);
    void showOutcome(const catalog::PruneOutcome& outcome);

    QString catalogPath_;
    std::filesystem::path root_;

    PrunePlanModel* plan_ = nullptr;
    QLineEdit* maxSize_ = nullptr;
    QLineEdit* olderThan_ = nullptr;
    QLineEdit* keepRecent_ = nullptr;
    QTreeView* tree_ = nullptr;
    QPlainTextEdit* outcome_ = nullptr;
};

} // namespace cachelens::ui
