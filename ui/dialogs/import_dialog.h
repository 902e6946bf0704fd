#pragma once

// The Import dialog: `cachelens import FILE --into DIR` with a look first.
// It shows the bundle (file, form, signed or not, the signer, the machine it
// was compiled on), a destination cache dir (PyTorch's own by default), an
// optional public key the bundle must be signed with, and the safety report:
// the plan, recomputed as a dry run in a job whenever the dir or the key
// changes, with each artifact's verdict. Under it, the selected artifact's
// findings: ticking Allow on each (the GUI's --allow-code) re-plans and lets
// it in. Import asks ("Write N files into DIR? M artifacts are refused and
// will not be written."), writes in a job and shows what happened to each
// artifact in the same table.

#include <cachelens/bundle/bundle_file.h>

#include <QDialog>
#include <QString>

#include <filesystem>
#include <memory>
#include <optional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;

namespace cachelens::ui {

class FindingsPanel;
class ImportPlanModel;
class JobRunner;

class ImportDialog : public QDialog {
    Q_OBJECT

public:
    // Starts reading `bundleFile` and planning an import into `destination`.
    ImportDialog(JobRunner& jobs, std::filesystem::path bundleFile,
                 std::filesystem::path destination, QWidget* parent = nullptr);
    ~ImportDialog() override;

    // What the fields do, for tests and the startup request: each replans at once.
    void setDestination(const std::filesystem::path& dir);
    // A public key the bundle must be signed with; empty: none required.
    void setRequiredSigner(const std::filesystem::path& publicKey);
    // Selects the artifact with this key (its findings under the table) once
    // the plan shows it: now, or when the plan under way is in.
    void selectArtifact(const QString& key);
    // Imports what the plan shown writes; asks first when `askUser`.
    void confirmAndImport(bool askUser);

    const std::filesystem::path& bundleFile() const { return file_; }
    std::filesystem::path destination() const;
    const ImportPlanModel* plan() const { return model_; }
    QTableView* table() const { return table_; }
    FindingsPanel* findings() const { return findings_; }
    QPushButton* importButton() const { return import_; }
    bool isBusy() const { return busy_; }
    bool canImport() const;
    // The question Import asks, for the plan shown.
    QString confirmationText() const;
    // What the dialog shows: the bundle, an error (empty when none), the
    // plan's or the import's summary.
    QString bundleText() const;
    QString errorText() const;
    QString summaryText() const;

signals:
    // A plan (or an error instead) is shown.
    void planned();
    // An import ran into `dir` (whatever it managed to write).
    void imported(const std::filesystem::path& dir);
    void statusMessage(const QString& message);

private:
    struct Loaded;

    void load();
    void replan();
    void showBundle(const bundle::BundleFile& file, const QString& facts);
    void showError(const QString& message);
    void setBusy(bool busy);
    void chooseDestination();
    void chooseKey();
    void showSelectedFindings();
    void selectPendingArtifact();

    JobRunner& jobs_;
    std::filesystem::path file_;
    QString channel_;
    std::shared_ptr<const bundle::BundleFile> bundle_;
    bool busy_ = false;
    bool importing_ = false;
    QString pendingSelection_; // selectArtifact's key, until a plan is shown

    QLabel* bundleInfo_ = nullptr;
    QLineEdit* destination_ = nullptr;
    QPushButton* browseDestination_ = nullptr;
    QLineEdit* signer_ = nullptr;
    QPushButton* browseSigner_ = nullptr;
    QLabel* error_ = nullptr;
    QLabel* summary_ = nullptr;
    QTableView* table_ = nullptr;
    ImportPlanModel* model_ = nullptr;
    FindingsPanel* findings_ = nullptr;
    QPushButton* import_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
    QTimer* destinationDelay_ = nullptr;
    QTimer* signerDelay_ = nullptr;
};

} // namespace cachelens::ui
