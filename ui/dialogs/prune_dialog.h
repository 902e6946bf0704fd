#pragma once

// The Prune dialog: `cachelens prune` for one cache dir, with a look first.
// The user sets a max size, an age, or both (and how recent is always kept);
// Preview indexes the dir and plans in a job (progress, Cancel) and lists what
// would go, oldest first, grouped as it goes together; Delete, enabled only
// for a preview of the inputs as they are, asks, deletes in a job and shows
// what was deleted, what was kept and why, and what failed.

#include <cachelens/catalog/prune.h>

#include <QDialog>
#include <QString>

#include <filesystem>
#include <optional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTreeView;

namespace cachelens::ui {

class JobRunner;
class PrunePlanModel;

class PruneDialog : public QDialog {
    Q_OBJECT

public:
    PruneDialog(JobRunner& jobs, QString catalogPath, std::filesystem::path root,
                QWidget* parent = nullptr);
    ~PruneDialog() override;

    // Test hooks, and what the buttons do.
    // Sets the inputs as if typed (an absent limit is left empty).
    void setLimits(std::optional<QString> maxSize, std::optional<QString> olderThan,
                   QString keepRecent);
    // Indexes the dir and plans with the inputs, in a job on this dialog's channel.
    void preview();
    // Deletes what the current preview lists; asks first when `askUser`.
    void confirmAndDelete(bool askUser);
    const PrunePlanModel* plan() const { return plan_; }

    bool canDelete() const;
    bool isBusy() const;
    // What the dialog shows: an error (empty when none), the plan's summary,
    // and the outcome of a delete (empty before one).
    QString errorText() const;
    QString summaryText() const;
    QString outcomeText() const;

signals:
    // After a delete ran (whatever it managed to delete).
    void pruned();
    void statusMessage(const QString& message);

public slots:
    void reject() override;

private:
    enum class State { Idle, Previewing, Previewed, Deleting, Deleted };

    void inputsChanged();
    void setState(State state);
    void showError(const QString& message);
    void showPlan(catalog::PrunePlan plan);
    void showOutcome(const catalog::PruneOutcome& outcome);
    void onProgress(const QString& channel, qint64 done, qint64 total, const QString& what);
    void cancelJob();

    JobRunner& jobs_;
    QString catalogPath_;
    std::filesystem::path root_;
    QString channel_;
    State state_ = State::Idle;

    PrunePlanModel* plan_ = nullptr;
    QLineEdit* maxSize_ = nullptr;
    QLineEdit* olderThan_ = nullptr;
    QLineEdit* keepRecent_ = nullptr;
    QLabel* error_ = nullptr;
    QLabel* summary_ = nullptr;
    QTreeView* tree_ = nullptr;
    QPlainTextEdit* outcome_ = nullptr;
    QLabel* progressText_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* preview_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QPushButton* delete_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
};

} // namespace cachelens::ui
