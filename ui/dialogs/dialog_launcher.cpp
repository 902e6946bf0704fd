#include "dialogs/dialog_launcher.h"

#include "data/graph_selection.h"
#include "dialogs/export_dialog.h"
#include "dialogs/file_view_dialog.h"
#include "dialogs/import_dialog.h"
#include "dialogs/prune_dialog.h"
#include "dialogs/pull_dialog.h"
#include "dialogs/push_dialog.h"
#include "dialogs/redis_dialog.h"
#include "jobs/bundle_work.h"
#include "jobs/remote_work.h"
#include "jobs/root_jobs.h"
#include "pages/browse_page.h"
#include "text/engine_text.h"

#include <cachelens/cachedir/precompile.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/policy/root_policy.h>
#include <cachelens/serving/serving_tree.h>

#include <sqlite3.h>

#include <QApplication>
#include <QFileDialog>
#include <QInputDialog>
#include <QMessageBox>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

// "Select ... to export." and, after it, why some of the selection was left out.
QString withIgnored(const QString& message, const QStringList& ignored) {
    return ignored.isEmpty() ? message : message + u' ' + ignored.join(QStringLiteral("; "));
}

} // namespace

DialogLauncher::DialogLauncher(JobPool& pool, const QString& catalogPath, BrowsePage& browse,
                               RootJobs& roots, QWidget* window)
    : QObject(window)
    , pool_(pool)
    , catalogPath_(catalogPath)
    , browse_(browse)
    , roots_(roots)
    , window_(window) {}

template <class Dialog>
void DialogLauncher::show(Dialog* dialog) {
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &Dialog::statusMessage, this, &DialogLauncher::statusMessage);
    dialog->show();
}

void DialogLauncher::chooseCacheDir() {
    const QString dir = QFileDialog::getExistingDirectory(window_, tr("Open a cache dir"));
    if (!dir.isEmpty()) {
        roots_.index(dir.toStdString());
    }
}

void DialogLauncher::chooseBundle() {
    const QString bundle = QFileDialog::getOpenFileName(
        window_, tr("Open a bundle (browsed read-only)"), {}, tr("Bundles (*.bin);;All files (*)"));
    if (bundle.isEmpty()) {
        return;
    }
    // save_compiled_function files are often named *.bin too: show them as files.
    if (auto file = MappedFile::open(bundle.toStdString());
        file && cachedir::looks_like_precompile((*file)->bytes())) {
        chooseFile(fs::path(bundle.toStdString()));
        return;
    }
    roots_.openBundle(bundle.toStdString());
}

void DialogLauncher::chooseFile(std::optional<fs::path> file) {
    if (!file) {
        const QString chosen = QFileDialog::getOpenFileName(
            window_,
            tr("Open a file (read-only): a .pt2, a precompiled function, an OnDiskCache value, an "
               "InMemoryCache file"));
        if (chosen.isEmpty()) {
            return;
        }
        file = chosen.toStdString();
    }
    if (fileView_ == nullptr) {
        fileView_ = new FileViewDialog(pool_, window_);
    }
    fileView_->showFile(*file);
    fileView_->show();
    fileView_->raise();
}

void DialogLauncher::askVariableValue() {
    bool ok = false;
    const QString value = QInputDialog::getMultiLineText(
        window_, tr("Read an InMemoryCache variable"),
        tr("The variable's value, as InMemoryCache.from_env_var reads it: ';'-separated pairs "
           "b'<pickled key>',b'<pickled value>'. Nothing in it is run."),
        {}, &ok);
    if (!ok) {
        return;
    }
    if (fileView_ == nullptr) {
        fileView_ = new FileViewDialog(pool_, window_);
    }
    fileView_->showVariableValue(value);
    fileView_->show();
    fileView_->raise();
}

void DialogLauncher::showAbout() {
    QMessageBox::about(
        window_, tr("About cachelens"),
        tr("<h3>cachelens %1</h3>"
           "<p>An inspector and tuner for PyTorch's compile caches: what sits in the Inductor "
           "cache, why a graph missed it, whether a shape would hit it, which kernel configs "
           "won.</p>"
           "<p>Qt %2 · SQLite %3<br>Catalog: %4</p>")
            .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion()),
                 QString::fromLatin1(sqlite3_libversion()), catalogPath_.toHtmlEscaped()));
}

void DialogLauncher::openImport(std::optional<fs::path> bundleFile, std::optional<fs::path> into,
                                bool askForFile) {
    if (!bundleFile) {
        if (const auto root = browse_.actionRoot(); root && roots_.isReadOnlyRoot(*root)) {
            bundleFile = bundle_work::stagedOrigin(*root);
            if (!bundleFile) {
                emit statusMessage(tr("Where %1 came from is not recorded: choose the bundle "
                                      "file.")
                                       .arg(text(root->filename().string())));
            }
        }
    }
    if (!bundleFile && askForFile) {
        const QString file = QFileDialog::getOpenFileName(window_, tr("Import a bundle"), {},
                                                          tr("Bundles (*.bin);;All files (*)"));
        if (!file.isEmpty()) {
            bundleFile = file.toStdString();
        }
    }
    if (!bundleFile) {
        if (!askForFile) {
            emit statusMessage(tr("Open a bundle to import it."));
        }
        return;
    }
    import_ = new ImportDialog(pool_, *bundleFile, into.value_or(bundle_work::defaultImportDir()),
                               window_);
    connect(import_, &ImportDialog::imported, this, &DialogLauncher::reindexIfShown);
    show(import_.data());
}

void DialogLauncher::openExport() {
    const auto selection = graphSelection(browse_.selectedEntries(), tr("exported"));
    if (selection.keys.empty()) {
        emit statusMessage(
            withIgnored(tr("Select FX graph or AOT entries to export."), selection.ignored));
        return;
    }
    export_ = new ExportDialog(pool_, selection.root, selection.keys, selection.ignored, window_);
    show(export_.data());
}

void DialogLauncher::openPrune(const QString& previewMaxSize, std::optional<fs::path> root) {
    if (!root) {
        root = browse_.actionRoot();
    }
    if (!root) {
        emit statusMessage(tr("Select a cache dir in the sidebar to prune it."));
        return;
    }
    // The engine's rule and words, as `cachelens prune` says them.
    if (auto allowed = policy::allow_write(*root, policy::RootWrite::Prune); !allowed) {
        emit statusMessage(text(allowed.error().message));
        return;
    }
    // A serving tree goes by whole hash dirs, never entry by entry.
    if (serving::locate_serving_tree(*root)) {
        emit servingPruneRequested(*root);
        return;
    }
    prune_ = new PruneDialog(pool_, catalogPath_, *root, window_);
    connect(prune_, &PruneDialog::pruned, this, &DialogLauncher::entriesChanged);
    show(prune_.data());
    if (!previewMaxSize.isEmpty()) {
        prune_->setLimits(previewMaxSize, std::nullopt, QStringLiteral("10m"));
        prune_->preview();
    }
}

void DialogLauncher::openRedis(const QString& url) {
    auto* dialog = new RedisDialog(pool_, catalogPath_.toStdString(), url, window_);
    redis_ = dialog;
    connect(dialog, &RedisDialog::mirrored, this,
            [this, dialog] { roots_.addMirrored(*dialog->endpoint(), dialog->outcome()); });
    show(dialog);
}

void DialogLauncher::openPull(std::optional<fs::path> into) {
    const auto selection =
        graphSelection(browse_.selectedEntries(), tr("pulled"),
                       [this](const fs::path& root) { return roots_.isRedisRoot(root); });
    const auto endpoint = selection.root.empty() ? std::nullopt : roots_.endpointOf(selection.root);
    if (selection.keys.empty() || !endpoint) {
        emit statusMessage(withIgnored(
            tr("Select FX graph or AOT entries of a Redis root to pull them."), selection.ignored));
        return;
    }
    pull_ = new PullDialog(pool_, *endpoint, selection.keys, selection.ignored,
                           into.value_or(bundle_work::defaultImportDir()), window_);
    connect(pull_, &PullDialog::pulled, this, &DialogLauncher::reindexIfShown);
    show(pull_.data());
}

void DialogLauncher::openPush(std::optional<fs::path> wholeDir, const QString& server) {
    fs::path dir;
    std::vector<std::string> keys;
    QStringList ignored;
    if (wholeDir) {
        dir = *wholeDir;
    } else {
        const auto refs = browse_.selectedEntries();
        auto selection = graphSelection(
            refs, tr("pushed"), [this](const fs::path& root) { return !roots_.isRedisRoot(root); });
        const auto root = browse_.actionRoot();
        if (!selection.keys.empty()) {
            dir = selection.root;
            keys = std::move(selection.keys);
            ignored = std::move(selection.ignored);
        } else if (refs.empty() && root && !roots_.isRedisRoot(*root)) {
            dir = *root; // nothing selected: the cache dir shown, whole
        } else {
            emit statusMessage(
                withIgnored(tr("Select FX graph or AOT entries of a local cache dir to push them."),
                            selection.ignored));
            return;
        }
    }
    // The servers of the Redis roots shown, with the passwords they were added with.
    std::vector<remote::RedisEndpoint> servers;
    for (const auto& root : browse_.rootDirs()) {
        if (auto endpoint = roots_.endpointOf(root)) {
            servers.push_back(std::move(*endpoint));
        }
    }
    auto* dialog = new PushDialog(pool_, dir, std::move(keys), ignored, servers, window_);
    push_ = dialog;
    if (!server.isEmpty()) {
        dialog->setServer(server);
    }
    connect(dialog, &PushDialog::pushed, this, [this, dialog] {
        // The server's root, when shown, mirrors what is there now.
        const auto endpoint = dialog->server();
        if (endpoint && browse_.showsRoot(roots_.mirrorDirOf(*endpoint))) {
            roots_.addRedisServer(*endpoint);
        }
    });
    show(dialog);
}

void DialogLauncher::reindexIfShown(const fs::path& dir) {
    // The catalog learns what was written when that dir is one it shows.
    if (browse_.showsRoot(dir)) {
        roots_.index(dir);
    }
}

ImportDialog* DialogLauncher::importDialog() const {
    return import_;
}

ExportDialog* DialogLauncher::exportDialog() const {
    return export_;
}

PruneDialog* DialogLauncher::pruneDialog() const {
    return prune_;
}

RedisDialog* DialogLauncher::redisDialog() const {
    return redis_;
}

PullDialog* DialogLauncher::pullDialog() const {
    return pull_;
}

PushDialog* DialogLauncher::pushDialog() const {
    return push_;
}

FileViewDialog* DialogLauncher::fileViewDialog() const {
    return fileView_;
}

QWidget* DialogLauncher::visibleDialog() const {
    for (QWidget* dialog : std::initializer_list<QWidget*>{import_, export_, prune_, redis_, pull_,
                                                           push_, fileView_}) {
        if (dialog != nullptr && dialog->isVisible()) {
            return dialog;
        }
    }
    return nullptr;
}

} // namespace cachelens::ui
