#pragma once

// A file read on its own, outside any cache dir (File > Open file, File >
// Read InMemoryCache variable): an OnDiskCache value, an InMemoryCache file
// or variable value, as `cachelens show FILE` / `show --env` shows it and
// with the verdict `cachelens verify FILE` gives. Read-only: nothing here
// writes, and the file is read off the GUI thread. The fields are the
// engine's description (cachedir::load_standalone_file, describe_entry), in
// the Overview tab's model.

#include <QDialog>
#include <QString>

#include <filesystem>

class QLabel;
class QTreeView;

namespace cachelens::ui {

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
    // The error shown, empty when the last read succeeded.
    QString errorText() const;
    bool isLoading() const;

signals:
    // The newest read ended (shown or failed).
    void loaded();

private:
    template <class Load>
    void load(const QString& title, Load loadFile);

    QLabel* title_;
    QLabel* error_;
    QTreeView* view_;
    EntryFieldsModel* model_;
    JobTracker* job_;
};

} // namespace cachelens::ui
