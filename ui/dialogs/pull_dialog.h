#pragma once

// Pull to Cache Dir: `cachelens remote pull URL --into DIR KEY...` for the
// FX graph and AOT entries selected in a Redis root. It names the server and
// the keys, asks for the cache dir (PyTorch's own by default), shows what
// pulling would do there (a dry run, in a job, whenever the dir changes:
// would write, already present, conflict, refused with the reasons), then
// Pull writes it in a job and the same table shows what happened. Values
// are as untrusted as a bundle: the importer's safety checks apply.

#include <cachelens/remote/redis_endpoint.h>

#include <QDialog>
#include <QString>
#include <QStringList>

#include <filesystem>
#include <string>
#include <vector>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;

namespace cachelens::ui {

class FindingsPanel;
class ImportPlanModel;
class JobStatusLine;
class JobRunner;

class PullDialog : public QDialog {
    Q_OBJECT

public:
    // `keys`: FX graph and AOT keys; `ignored`: one line per part of the
    // selection that is not pulled. Starts the dry run into `destination`.
    PullDialog(JobRunner& jobs, remote::RedisEndpoint server, std::vector<std::string> keys,
               QStringList ignored, std::filesystem::path destination, QWidget* parent = nullptr);
    ~PullDialog() override;

    // Each replans at once.
    void setDestination(const std::filesystem::path& dir);
    // Pulls what the plan shown writes; asks first (naming the dir) when askUser.
    void confirmAndPull(bool askUser);
    // What that asks; empty without a plan.
    QString confirmationText() const;

    std::filesystem::path destination() const;
    const std::vector<std::string>& keys() const { return keys_; }
    const ImportPlanModel* plan() const { return model_; }
    QTableView* table() const { return table_; }
    FindingsPanel* findings() const { return findings_; }
    QPushButton* pullButton() const { return pull_; }
    bool isBusy() const { return busy_; }
    bool canPull() const;
    QString errorText() const;
    QString summaryText() const;
    // What was not pulled and why (values that do not decode, keys not on
    // the server), then the engine's notes.
    QString notesText() const;

signals:
    // A dry run (or an error instead) is shown.
    void planned();
    // The pull ran into `dir` (whatever it managed to write).
    void pulled(const std::filesystem::path& dir);
    void statusMessage(const QString& message);

private:
    void run(bool dryRun);
    void setBusy(bool busy);
    void showError(const QString& message);
    void chooseDestination();
    void showSelectedFindings();

    JobRunner& jobs_;
    remote::RedisEndpoint server_;
    std::vector<std::string> keys_;
    QString channel_;
    bool busy_ = false;
    bool pulling_ = false;

    QLineEdit* destination_ = nullptr;
    QPushButton* browse_ = nullptr;
    QLabel* error_ = nullptr;
    JobStatusLine* summary_ = nullptr;
    QTableView* table_ = nullptr;
    ImportPlanModel* model_ = nullptr;
    FindingsPanel* findings_ = nullptr;
    QLabel* notes_ = nullptr;
    QPushButton* pull_ = nullptr;
    QTimer* destinationDelay_ = nullptr;
};

} // namespace cachelens::ui
