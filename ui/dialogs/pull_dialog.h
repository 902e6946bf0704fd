#pragma once

// Pull to Cache Dir: `cachelens remote pull URL --into DIR KEY...` for the
// FX graph and AOT entries selected in a Redis root. It names the server and
// the keys, asks for the cache dir (PyTorch's own by default), shows what
// pulling would do there (a dry run, in a job, whenever the dir changes:
// would write, already present, conflict, refused with the reasons, and
// whether the values will hit on the machine the dir was made on), then
// Pull writes it in a job and the same table shows what happened. Values
// are as untrusted as a bundle: the importer's safety checks apply.

#include "dialogs/plan_dialog.h"

#include <cachelens/remote/redis_endpoint.h>

#include <QString>
#include <QStringList>

#include <filesystem>
#include <string>
#include <vector>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace cachelens::ui {

class FindingsPanel;
class ImportPlanModel;

class PullDialog : public PlanDialog {
    Q_OBJECT

public:
    // `keys`: FX graph and AOT keys; `ignored`: one line per part of the
    // selection that is not pulled. Starts the dry run into `destination`.
    PullDialog(JobPool& pool, remote::RedisEndpoint server, std::vector<std::string> keys,
               QStringList ignored, std::filesystem::path destination, QWidget* parent = nullptr);

    // Each replans at once.
    void setDestination(const std::filesystem::path& dir);
    // Pulls what the plan shown writes; asks first (naming the dir) when askUser.
    void confirmAndPull(bool askUser) { confirmAndRun(askUser); }
    // What that asks; empty without a plan.
    QString confirmationText() const override;

    std::filesystem::path destination() const;
    const std::vector<std::string>& keys() const { return keys_; }
    const ImportPlanModel* plan() const { return model_; }
    QTableView* table() const { return table_; }
    FindingsPanel* findings() const { return findings_; }
    QPushButton* pullButton() const { return runButton(); }
    bool canPull() const { return canRun(); }
    // What was not pulled and why (values that do not decode, keys not on
    // the server), then the engine's notes.
    QString notesText() const;
    // Will the values hit on the destination's machine (a dry run's preflight).
    QString preflightText() const;

signals:
    // The pull ran into `dir` (whatever it managed to write).
    void pulled(const std::filesystem::path& dir);

private:
    void startPlan() override { run(true); }
    void startRun() override { run(false); }
    bool planWrites() const override;
    void clearPlan() override;
    void showPhase(Phase phase) override;

    // The dry run or the pull: one engine call, one outcome.
    void run(bool dryRun);
    void chooseDestination();
    void showSelectedFindings();

    remote::RedisEndpoint server_;
    std::vector<std::string> keys_;

    QLineEdit* destination_ = nullptr;
    QPushButton* browse_ = nullptr;
    QTableView* table_ = nullptr;
    ImportPlanModel* model_ = nullptr;
    FindingsPanel* findings_ = nullptr;
    QLabel* notes_ = nullptr;
    QLabel* preflight_ = nullptr;
};

} // namespace cachelens::ui
