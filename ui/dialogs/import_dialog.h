#pragma once

// The Import dialog: `cachelens import FILE --into DIR` with a look first.
// It shows the bundle (file, form, signed or not, the signer, the machine it
// was compiled on), a destination cache dir (PyTorch's own by default), an
// optional public key the bundle must be signed with, and the safety report:
// the plan, recomputed as a dry run in a job whenever the dir or the key
// changes, with each artifact's verdict. Under it, the selected artifact's
// findings: ticking Allow on each (the GUI's --allow-code) re-plans and lets
// it in. Above them, "Will it hit here?": the bundle's graphs against the
// machine the destination dir was made on (import --dry-run's preflight).
// Import asks ("Write N files into DIR? M artifacts are refused and
// will not be written."), writes in a job and shows what happened to each
// artifact in the same table.

#include "dialogs/plan_dialog.h"

#include <cachelens/bundle/bundle_file.h>

#include <QString>

#include <filesystem>
#include <memory>
#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace cachelens::ui {

class FindingsPanel;
class ImportPlanModel;

class ImportDialog : public PlanDialog {
    Q_OBJECT

public:
    // Starts reading `bundleFile` and planning an import into `destination`.
    ImportDialog(JobPool& pool, std::filesystem::path bundleFile, std::filesystem::path destination,
                 QWidget* parent = nullptr);

    // What the fields do, for tests and the startup request: each replans at once.
    void setDestination(const std::filesystem::path& dir);
    // A public key the bundle must be signed with; empty: none required.
    void setRequiredSigner(const std::filesystem::path& publicKey);
    // Selects the artifact with this key (its findings under the table) once
    // the plan shows it: now, or when the plan under way is in.
    void selectArtifact(const QString& key);
    // Imports what the plan shown writes; asks first when `askUser`.
    void confirmAndImport(bool askUser) { confirmAndRun(askUser); }

    const std::filesystem::path& bundleFile() const { return file_; }
    std::filesystem::path destination() const;
    const ImportPlanModel* plan() const { return model_; }
    QTableView* table() const { return table_; }
    FindingsPanel* findings() const { return findings_; }
    QPushButton* importButton() const { return runButton(); }
    bool canImport() const { return canRun(); }
    // The question Import asks, for the plan shown.
    QString confirmationText() const override;
    // What the dialog shows: the bundle (errorText() and summaryText(): PlanDialog's).
    QString bundleText() const;
    // Will it hit here: preflight against the destination's machine (its FX entries).
    QString preflightText() const;

signals:
    // An import ran into `dir` (whatever it managed to write).
    void imported(const std::filesystem::path& dir);

private:
    struct Loaded;

    // The bundle is read again (a plan follows) when the required signer changed.
    void startPlan() override;
    void startRun() override;
    bool planWrites() const override;
    void clearPlan() override;
    void showPhase(Phase phase) override;

    void load();
    void replan();
    void showBundle(const bundle::BundleFile& file, const QString& facts);
    void chooseDestination();
    void chooseKey();
    void showSelectedFindings();
    void selectPendingArtifact();
    QString signerText() const;

    std::filesystem::path file_;
    std::shared_ptr<const bundle::BundleFile> bundle_;
    // The signer key the bundle was last read with (read or not); nullopt before.
    std::optional<QString> loadedSigner_;
    QString pendingSelection_; // selectArtifact's key, until a plan is shown

    QLabel* bundleInfo_ = nullptr;
    QLabel* preflight_ = nullptr; // will the bundle hit on the destination's machine
    QLineEdit* destination_ = nullptr;
    QPushButton* browseDestination_ = nullptr;
    QLineEdit* signer_ = nullptr;
    QPushButton* browseSigner_ = nullptr;
    QTableView* table_ = nullptr;
    ImportPlanModel* model_ = nullptr;
    FindingsPanel* findings_ = nullptr;
};

} // namespace cachelens::ui
