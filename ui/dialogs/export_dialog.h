#pragma once

// The Export dialog: `cachelens export DIR KEY... -o FILE [--sign KEY]` for
// the entries selected in the entry table. It lists what goes (the FX graph
// and AOT keys; what else was selected is listed as ignored), asks for the
// file and, optionally, a private key to sign with, then exports, encodes,
// signs and replaces the file atomically in a job, and says how many
// artifacts were written where, with the export's notes.

#include <QDialog>
#include <QString>
#include <QStringList>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace cachelens::ui {

class JobPool;
class JobTracker;

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    // `ignored`: one line per part of the selection that is not exported.
    ExportDialog(JobPool& pool, std::filesystem::path root, std::vector<std::string> keys,
                 QStringList ignored, QWidget* parent = nullptr);
    ~ExportDialog() override;

    // What the fields and the button do, for tests.
    void setOutputFile(const std::filesystem::path& file);
    // A private key to sign with; nullopt: an unsigned (plain PyTorch) bundle.
    void setSigningKey(const std::optional<std::filesystem::path>& key);
    void exportNow();

    const std::vector<std::string>& keys() const { return keys_; }
    std::filesystem::path outputFile() const;
    bool isBusy() const { return busy_; }
    QPushButton* exportButton() const { return export_; }
    // What the dialog shows: an error (empty when none), the outcome of the
    // last export with its notes (empty before one).
    QString errorText() const;
    QString outcomeText() const;

signals:
    // An export finished: the outcome's one-line summary, or the error.
    void exported(const QString& summary);
    void statusMessage(const QString& message);

private:
    void setBusy(bool busy);
    void updateButtons();
    void chooseFile();
    void chooseKey();

    JobTracker* job_;
    std::filesystem::path root_;
    std::vector<std::string> keys_;
    bool busy_ = false;

    QLineEdit* file_ = nullptr;
    QPushButton* browseFile_ = nullptr;
    QCheckBox* sign_ = nullptr;
    QLineEdit* key_ = nullptr;
    QPushButton* browseKey_ = nullptr;
    QLabel* error_ = nullptr;
    QPlainTextEdit* outcome_ = nullptr;
    QPushButton* export_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
};

} // namespace cachelens::ui
