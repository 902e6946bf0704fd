#pragma once

// Push to Redis: `cachelens remote push DIR URL KEY... [--force]` for the FX
// graph and AOT entries selected in a local root (or the whole dir). The
// server is one of the Redis roots shown, or a URL typed in; a dry run (in a
// job, whenever the server or Force changes) lists what would be set, what
// is already there and what conflicts (other data under the key: left alone
// unless Force). Push asks, stores in a job and shows what happened in the
// same table; `pushed` lets the window mirror that server again.

#include "dialogs/plan_dialog.h"

#include <cachelens/remote/redis_endpoint.h>

#include <QString>
#include <QStringList>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace cachelens::ui {

class PushPlanModel;

class PushDialog : public PlanDialog {
    Q_OBJECT

public:
    // `keys` empty: the whole of `sourceDir`. `ignored`: one line per part of
    // the selection not pushed. `servers`: offered first (the Redis roots);
    // the first is checked against at once.
    PushDialog(JobPool& pool, std::filesystem::path sourceDir, std::vector<std::string> keys,
               QStringList ignored, std::vector<remote::RedisEndpoint> servers,
               QWidget* parent = nullptr);

    // Each checks again at once: one of the servers offered (by its URL as
    // display() writes it) or any URL.
    void setServer(const QString& url);
    // Replaces the server's password when not empty.
    void setPassword(const QString& password);
    void setForce(bool force);
    // The dry run, now.
    void check() { planNow(); }
    // Pushes what the dry run shown sets (and, with Force, replaces); asks
    // first when `askUser`.
    void confirmAndPush(bool askUser) { confirmAndRun(askUser); }

    // The server chosen, with its password; nullopt when the URL does not parse.
    std::optional<remote::RedisEndpoint> server() const;
    const std::filesystem::path& sourceDir() const { return dir_; }
    const std::vector<std::string>& keys() const { return keys_; }
    const PushPlanModel* plan() const { return model_; }
    QTableView* table() const { return table_; }
    QPushButton* pushButton() const { return runButton(); }
    bool canPush() const { return canRun(); }
    // The question Push asks, for the dry run shown.
    QString confirmationText() const override;
    // push_local's notes: what was not pushed and why.
    QString notesText() const;

signals:
    // Values were stored on `server` (display()).
    void pushed(const QString& server);

private:
    void startPlan() override { run(true); }
    void startRun() override { run(false); }
    bool planWrites() const override;
    void clearPlan() override;
    void showPhase(Phase phase) override;

    // The dry run or the push: one engine call, one outcome.
    void run(bool dryRun);
    // The server or password is being typed: what is shown no longer answers for it.
    void scheduleCheck();

    std::filesystem::path dir_;
    std::vector<std::string> keys_;
    std::vector<remote::RedisEndpoint> servers_;

    QComboBox* server_ = nullptr;
    QLineEdit* password_ = nullptr;
    QCheckBox* force_ = nullptr;
    QTableView* table_ = nullptr;
    PushPlanModel* model_ = nullptr;
    QLabel* notes_ = nullptr;
};

} // namespace cachelens::ui
