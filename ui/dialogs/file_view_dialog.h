#pragma once

// A file read on its own, outside any cache dir (File > Open file, File >
// Read InMemoryCache variable): a .pt2 archive, an OnDiskCache value, an
// InMemoryCache file or variable value, as `cachelens show FILE` / `show
// --env` shows it and with the verdict `cachelens verify FILE` gives.
// Read-only: nothing here writes, nothing is extracted, and the file is read
// off the GUI thread. The Overview tab holds the engine's description
// (cachedir::load_standalone_file, describe_entry) in the Overview tab's
// model; for a .pt2, the Source tab shows a text member (C++ sources,
// metadata), read from the archive with its crc checked; for a precompiled
// function, each bundled Inductor module. The Checks tab answers, off the
// GUI thread, what `cachelens preflight FILE --target T` (a .pt2, a
// precompiled function) and `cachelens show FILE --against DIR` (a
// precompiled function's checked sources) answer, with the same engine
// functions and words.

#include <QDialog>
#include <QString>

#include <filesystem>
#include <memory>

class QComboBox;
class QPushButton;
class QTreeWidget;
class QLabel;
class QTabWidget;
class QTreeView;

namespace cachelens::cachedir {
struct StandaloneFile;
}

namespace cachelens::ui {

class CodeView;
class EntryFieldsModel;
class JobPool;
class JobTracker;

class FileViewDialog : public QDialog {
    Q_OBJECT

public:
    FileViewDialog(JobPool& pool, QWidget* parent = nullptr);

    // Reads `file` and shows it; an error (not a file cachelens reads on its
    // own, a pickle PyTorch would refuse) is shown in the banner.
    void showFile(const std::filesystem::path& file);
    // Reads `value` as InMemoryCache.from_env_var reads a variable's value.
    void showVariableValue(const QString& value);

    EntryFieldsModel* model() const { return model_; }
    // The .pt2 members the Source tab offers (their paths in the archive).
    QStringList sourceMembers() const;
    // Shows a member in the Source tab; its text arrives in sourceShown.
    void showSourceMember(const QString& path);
    QString sourceText() const;

    // Will it load on the machine `target` names (a cache dir made there or a
    // fingerprint file)? The answer arrives in checked().
    void preflightAgainst(const std::filesystem::path& target);
    // Which checked source spans changed in the checkout `dir`? The same.
    void checkSourcesAgainst(const std::filesystem::path& dir);
    // The Checks tab: the answer line, then one line per reason or span.
    QString checkText() const;
    bool canPreflight() const;
    bool canCheckSources() const;
    // The error shown, empty when the last read succeeded.
    QString errorText() const;
    bool isLoading() const;

signals:
    // The newest read ended (shown or failed).
    void loaded();
    // A member's text is in the Source tab (or its error).
    void sourceShown();
    // The Checks tab holds a new answer (or its error).
    void checked();

private:
    template <class Load>
    void load(const QString& title, Load loadFile);
    // `answered`: the lines are an answer (checked() is emitted), not a
    // line saying what is being read.
    void showChecks(const QStringList& lines, bool answered = true);
    void updateCheckButtons();

    QLabel* title_;
    QLabel* error_;
    QTabWidget* tabs_;
    QTreeView* view_;
    EntryFieldsModel* model_;
    QComboBox* members_;
    CodeView* source_;
    JobTracker* job_;
    JobTracker* sourceJob_;
    QTreeWidget* checks_;
    QPushButton* preflight_;
    QPushButton* sources_;
    JobTracker* checkJob_;
    std::shared_ptr<const cachedir::StandaloneFile> file_;
};

} // namespace cachelens::ui
