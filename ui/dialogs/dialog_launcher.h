#pragma once

// Opens the window's dialogs — open a cache dir or a bundle, import, export,
// prune, Add Redis Server, pull, push, about — on what the Browse page has selected, and keeps the
// open one of each (for tests and --screenshot). Each dialog writes only where the user points it;
// what it wrote is indexed again when the window shows that dir.

#include <QObject>
#include <QPointer>
#include <QString>

#include <filesystem>
#include <optional>
#include <vector>

class QWidget;

namespace cachelens::ui {

class BrowsePage;
class ExportDialog;
class FileViewDialog;
class ImportDialog;
class JobPool;
class JobTracker;
class PruneDialog;
class PullDialog;
class PushDialog;
class RedisDialog;
class RootJobs;

class DialogLauncher : public QObject {
    Q_OBJECT

public:
    // The dialogs are children of `window`.
    DialogLauncher(JobPool& pool, const QString& catalogPath, BrowsePage& browse, RootJobs& roots,
                   QWidget* window);

    // Asks for a cache dir and indexes it.
    void chooseCacheDir();
    // Asks for a bundle file and opens it read-only.
    void chooseBundle();
    // Asks for a file read on its own (an OnDiskCache value, an InMemoryCache
    // file) and shows it; `file` when given.
    void chooseFile(std::optional<std::filesystem::path> file = std::nullopt);
    // Asks for the value of an InMemoryCache variable and shows it.
    void askVariableValue();
    void showAbout();

    // Import `bundleFile`, else the selected bundle root's file, else (with
    // `askForFile`) the one the user picks; into `into`, else PyTorch's cache dir.
    void openImport(std::optional<std::filesystem::path> bundleFile = std::nullopt,
                    std::optional<std::filesystem::path> into = std::nullopt,
                    bool askForFile = true);
    // Export the FX graph and AOT entries selected.
    void openExport();
    // Prune `root`, else the selected cache dir; with a size, previews a prune to it.
    void openPrune(const QString& previewMaxSize = {},
                   std::optional<std::filesystem::path> root = std::nullopt);
    // Add Redis Server, on `url` (else PyTorch's server).
    void openRedis(const QString& url = {});
    // Pull the FX graph and AOT entries of a Redis root selected into
    // `into`, else PyTorch's cache dir.
    void openPull(std::optional<std::filesystem::path> into = std::nullopt);
    // Push the FX graph and AOT entries of a local root selected, or the
    // whole of `wholeDir`, else of the cache dir shown when nothing is
    // selected; to `server` (a URL), else the first Redis root's.
    void openPush(std::optional<std::filesystem::path> wholeDir = std::nullopt,
                  const QString& server = {});

    ImportDialog* importDialog() const;
    ExportDialog* exportDialog() const;
    PruneDialog* pruneDialog() const;
    RedisDialog* redisDialog() const;
    PullDialog* pullDialog() const;
    PushDialog* pushDialog() const;
    FileViewDialog* fileViewDialog() const;
    // The one shown, if any: what --screenshot saves.
    QWidget* visibleDialog() const;

signals:
    void statusMessage(const QString& message);
    // A dialog changed a cache dir's entries (pruned).
    void entriesChanged();
    // Prune asked of a vLLM or SGLang tree: whole hash dirs, on the Serving page.
    void servingPruneRequested(const std::filesystem::path& root);

private:
    // Indexes `dir` again when it is a root shown (after an import or a pull into it).
    void reindexIfShown(const std::filesystem::path& dir);
    // Shows `dialog`, deleted once closed, its status in the window's.
    template <class Dialog>
    void show(Dialog* dialog);

    JobPool& pool_;
    QString catalogPath_;
    BrowsePage& browse_;
    RootJobs& roots_;
    QWidget* window_;
    QPointer<ImportDialog> import_;
    QPointer<ExportDialog> export_;
    QPointer<PruneDialog> prune_;
    QPointer<RedisDialog> redis_;
    QPointer<PullDialog> pull_;
    QPointer<PushDialog> push_;
    QPointer<FileViewDialog> fileView_;
};

} // namespace cachelens::ui
