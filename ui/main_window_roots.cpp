// MainWindow's read-only roots and the ways entries move between machines:
// a bundle opened as a root, a Redis server mirrored as one, and the import,
// export, pull and push dialogs over them. The rest of the window is in
// main_window.cpp.

#include "jobs/bundle_work.h"
#include "jobs/remote_work.h"
#include "main_window.h"
#include "text/engine_text.h"
#include "data/graph_selection.h"
#include "models/root_labels_model.h"
#include "models/roots_model.h"
#include "pages/bench_page.h"
#include "dialogs/export_dialog.h"
#include "dialogs/import_dialog.h"
#include "dialogs/pull_dialog.h"
#include "dialogs/push_dialog.h"
#include "dialogs/redis_dialog.h"
#include "widgets/banner.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/remote/mirror.h>

#include <QFileDialog>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QTreeView>

namespace cachelens::ui {

namespace fs = std::filesystem;

void MainWindow::openBundle(const fs::path& file) {
    ++rootsPending_; // the startup request waits for the bundle's root too
    statusText_->setText(tr("Reading bundle %1…").arg(text(file.string())));
    const fs::path base = stagingBase_;
    // One channel per bundle opened: opening a second must not drop the first.
    const QString channel = QStringLiteral("bundle:%1").arg(++bundleJobs_);
    jobs_.run<bundle_work::StagedBundle>(
        channel, this,
        [file, base](const JobContext&) { return bundle_work::stageBundle(file, base); },
        [this](bundle_work::StagedBundle staged) {
            if (!staged.error.isEmpty()) {
                --rootsPending_;
                showError(tr("Cannot open the bundle %1: %2")
                              .arg(text(staged.file.string()), staged.error));
                advanceRequest();
                return;
            }
            bundlesIndexing_.append(text(catalog::root_location(staged.root)));
            openRoot(staged.root); // counted in rootsPending_ before this one is let go
            --rootsPending_;
        });
}

void MainWindow::onBundleIndexed(const QString& root) {
    if (redisIndexing_.removeOne(root)) {
        // Browse it, as a bundle just opened.
        filterRoot_ = root.toStdString();
        filterKind_.reset();
        sidebarRoot_ = filterRoot_;
        applyFilter();
        updateRootActions();
        const auto report = mirrorReports_.find(root.toStdString());
        if (report != mirrorReports_.end()) {
            statusText_->setText(tr("Mirrored %1").arg(report->second.section(u'\n', 0, 0)));
        }
        emit redisRootAdded(root);
        return;
    }
    if (!bundlesIndexing_.removeOne(root)) {
        return;
    }
    // Browse it: the sidebar selects it once its refresh lists it.
    filterRoot_ = root.toStdString();
    filterKind_.reset();
    sidebarRoot_ = filterRoot_;
    applyFilter();
    updateRootActions();
    const QString report = bundle_work::stagedReport(root.toStdString());
    statusText_->setText(
        tr("Bundle %1 opened read-only: %2")
            .arg(text(filterRoot_->filename().string()), report.section(u'\n', 0, 0)));
    emit bundleOpened(root);
}

bool MainWindow::isReadOnlyRoot(const fs::path& root) const {
    return bundle_work::isStagedBundle(root, stagingBase_) || isRedisRoot(root);
}

bool MainWindow::isRedisRoot(const fs::path& root) const {
    return remote_work::isMirrorRoot(root, mirrorBase_);
}

void MainWindow::updateRootActions() {
    const std::optional<fs::path> root = actionRoot();
    const bool redis = root && isRedisRoot(*root);
    const bool bundle = root && !redis && isReadOnlyRoot(*root);
    pruneAction_->setEnabled(!bundle && !redis);
    refreshRedisAction_->setEnabled(redis);
    if (redis) {
        showRedisBanner(*root);
        return;
    }
    if (!bundle) {
        bundleBanner_->hide();
        return;
    }
    const auto origin = bundle_work::stagedOrigin(*root);
    const QStringList report = bundle_work::stagedReport(*root).split(u'\n', Qt::SkipEmptyParts);
    QString banner =
        tr("<b>Bundle %1</b>, opened read-only%2: %3. Prune and best-config changes are off. "
           "<a href=\"import\">Import…</a>")
            .arg(text(root->filename().string()).toHtmlEscaped(),
                 origin ? tr(" from %1").arg(text(origin->string()).toHtmlEscaped()) : QString(),
                 report.value(0).toHtmlEscaped());
    // The safety report: what was not materialised and why, a few lines of it.
    constexpr int kShownProblems = 6;
    for (int line = 1; line < report.size() && line <= kShownProblems; ++line) {
        banner += QStringLiteral("<br>") + report[line].toHtmlEscaped();
    }
    if (report.size() > kShownProblems + 1) {
        banner += QStringLiteral("<br>") + tr("… and %1 more (the Import dialog lists them all)")
                                               .arg(report.size() - 1 - kShownProblems);
    }
    bundleBanner_->setStyleSheet(
        bannerStyle(report.size() > 1 ? BannerTone::Error : BannerTone::Info));
    bundleBanner_->setText(banner);
    bundleBanner_->show();
}

void MainWindow::showBenchRoot() {
    const std::optional<fs::path> root = actionRoot();
    if (root && isRedisRoot(*root)) {
        // `bench accept` would rewrite the mirror, which the next refresh undoes.
        benchPage_->showRoot(std::nullopt);
        statusText_->setText(
            tr("%1 is a Redis server's mirror, browsed read-only: pull its entries into a cache "
               "dir to benchmark their kernels and change their best configs.")
                .arg(remote_work::mirrorOrigin(*root).value_or(text(root->string()))));
        return;
    }
    if (root && isReadOnlyRoot(*root)) {
        // `bench accept` would rewrite the staged copy: a bundle is benchmarked once imported.
        benchPage_->showRoot(std::nullopt);
        statusText_->setText(tr("%1 is a bundle, opened read-only: import it into a cache dir to "
                                "benchmark its kernels and change their best configs.")
                                 .arg(text(root->filename().string())));
        return;
    }
    benchPage_->showRoot(root);
}

void MainWindow::openImportDialog(std::optional<fs::path> bundleFile, std::optional<fs::path> into,
                                  bool askForFile) {
    if (!bundleFile) {
        if (const auto root = actionRoot(); root && isReadOnlyRoot(*root)) {
            bundleFile = bundle_work::stagedOrigin(*root);
            if (!bundleFile) {
                statusText_->setText(tr("Where %1 came from is not recorded: choose the bundle "
                                        "file.")
                                         .arg(text(root->filename().string())));
            }
        }
    }
    if (!bundleFile && askForFile) {
        const QString file = QFileDialog::getOpenFileName(this, tr("Import a bundle"), {},
                                                          tr("Bundles (*.bin);;All files (*)"));
        if (!file.isEmpty()) {
            bundleFile = file.toStdString();
        }
    }
    if (!bundleFile) {
        if (!askForFile) {
            statusText_->setText(tr("Open a bundle to import it."));
        }
        return;
    }
    auto* dialog =
        new ImportDialog(jobs_, *bundleFile, into.value_or(bundle_work::defaultImportDir()), this);
    importDialog_ = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ImportDialog::statusMessage, statusText_, &QLabel::setText);
    connect(dialog, &ImportDialog::imported, this, &MainWindow::reindexIfShown);
    dialog->show();
}

void MainWindow::openExportDialog() {
    const auto selection = graphSelection(selectedEntries(), tr("exported"));
    if (selection.keys.empty()) {
        statusText_->setText(tr("Select FX graph or AOT entries to export.") +
                             (selection.ignored.isEmpty()
                                  ? QString()
                                  : u' ' + selection.ignored.join(QStringLiteral("; "))));
        return;
    }
    auto* dialog = new ExportDialog(jobs_, selection.root, selection.keys, selection.ignored, this);
    exportDialog_ = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ExportDialog::statusMessage, statusText_, &QLabel::setText);
    dialog->show();
}

ImportDialog* MainWindow::importDialog() const {
    return importDialog_;
}

ExportDialog* MainWindow::exportDialog() const {
    return exportDialog_;
}

RedisDialog* MainWindow::redisDialog() const {
    return redisDialog_;
}

PullDialog* MainWindow::pullDialog() const {
    return pullDialog_;
}

PushDialog* MainWindow::pushDialog() const {
    return pushDialog_;
}

void MainWindow::reindexIfShown(const fs::path& dir) {
    // The catalog learns what was written when that dir is one it shows.
    const std::string location = catalog::root_location(dir);
    for (const auto& root : rootDirs()) {
        if (catalog::root_location(root) == location) {
            openRoot(root);
            return;
        }
    }
}

void MainWindow::openRedisDialog(const QString& url) {
    auto* dialog = new RedisDialog(jobs_, catalogPath_.toStdString(), url, this);
    redisDialog_ = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &RedisDialog::statusMessage, statusText_, &QLabel::setText);
    connect(dialog, &RedisDialog::mirrored, this,
            [this, dialog] { onMirrored(*dialog->endpoint(), dialog->outcome()); });
    dialog->show();
}

void MainWindow::addRedisServer(const remote::RedisEndpoint& endpoint) {
    ++rootsPending_; // the startup request waits for the server's root too
    const QString server = text(endpoint.display());
    // One channel per mirroring: adding a second server must not drop the first.
    const QString channel = QStringLiteral("mirror:%1").arg(++redisJobs_);
    mirroring_.append(channel);
    progress_->setRange(0, 0);
    progress_->show();
    cancel_->show();
    statusText_->setText(
        remote_work::progressText(remote_work::MirrorStage::Connecting, 0, server));
    // Once per mirroring, however it ends.
    const auto finish = [this, channel] {
        mirroring_.removeOne(channel);
        --rootsPending_;
        if (indexing_.isEmpty() && mirroring_.isEmpty()) {
            progress_->hide();
            cancel_->hide();
        }
    };
    const fs::path catalogPath = catalogPath_.toStdString();
    jobs_.run<remote_work::MirrorOutcome>(
        channel, this,
        [endpoint, catalogPath, server](const JobContext& context) {
            return remote_work::mirrorServer(endpoint, catalogPath,
                                             remote_work::jobProgress(context, server));
        },
        [this, endpoint, finish](remote_work::MirrorOutcome outcome) {
            if (!outcome.error.isEmpty()) {
                finish();
                showError(tr("Cannot add the Redis server: %1").arg(outcome.errorText()));
                advanceRequest();
                return;
            }
            onMirrored(endpoint, outcome); // indexes: counted before this one is let go
            finish();
        },
        [this, finish](bool delivered) {
            if (delivered) {
                return; // finished above
            }
            finish();
            statusText_->setText(tr("Mirroring cancelled: nothing changed."));
        });
}

void MainWindow::onMirrored(const remote::RedisEndpoint& endpoint,
                            const remote_work::MirrorOutcome& outcome) {
    const std::string location = catalog::root_location(outcome.root);
    endpoints_[location] = endpoint;
    mirrorReports_[location] = (QStringList{outcome.summary()} + outcome.notes).join(u'\n');
    redisIndexing_.append(text(location));
    openRoot(outcome.root);
}

void MainWindow::refreshRedisRoot(const fs::path& root) {
    const auto endpoint = endpointOf(root);
    if (!endpoint) {
        statusText_->setText(tr("%1 is not a Redis server's mirror.").arg(text(root.string())));
        return;
    }
    addRedisServer(*endpoint);
}

std::optional<remote::RedisEndpoint> MainWindow::endpointOf(const fs::path& root) const {
    if (!isRedisRoot(root)) {
        return std::nullopt;
    }
    if (auto known = endpoints_.find(catalog::root_location(root)); known != endpoints_.end()) {
        return known->second;
    }
    return remote_work::mirrorEndpoint(root);
}

std::vector<remote::RedisEndpoint> MainWindow::redisServers() const {
    std::vector<remote::RedisEndpoint> servers;
    for (const auto& root : rootDirs()) {
        if (auto endpoint = endpointOf(root)) {
            servers.push_back(std::move(*endpoint));
        }
    }
    return servers;
}

void MainWindow::showRedisBanner(const fs::path& root) {
    const QString server = remote_work::mirrorOrigin(root).value_or(text(root.string()));
    QString banner = tr("<b>Redis server %1</b>, browsed read-only: its entries mirrored into %2, "
                        "as PyTorch would lay out a remote hit. Prune and best-config changes "
                        "are off. <a href=\"refresh\">Refresh</a> · <a href=\"pull\">Pull "
                        "selected to a cache dir…</a>")
                         .arg(server.toHtmlEscaped(), text(root.string()).toHtmlEscaped());
    // What the last mirroring in this session reported: a few lines of it.
    constexpr int kShownLines = 6;
    if (const auto report = mirrorReports_.find(catalog::root_location(root));
        report != mirrorReports_.end()) {
        const QStringList lines = report->second.split(u'\n', Qt::SkipEmptyParts);
        for (int line = 0; line < lines.size() && line <= kShownLines; ++line) {
            banner += QStringLiteral("<br>") + lines[line].toHtmlEscaped();
        }
        if (lines.size() > kShownLines + 1) {
            banner += QStringLiteral("<br>") +
                      tr("… and %1 more notes").arg(lines.size() - 1 - kShownLines);
        }
    }
    bundleBanner_->setStyleSheet(bannerStyle(BannerTone::Info));
    bundleBanner_->setText(banner);
    bundleBanner_->show();
}

void MainWindow::openPullDialog(std::optional<fs::path> into) {
    const auto selection =
        graphSelection(selectedEntries(), tr("pulled"),
                       [this](const fs::path& root) { return isRedisRoot(root); });
    const auto endpoint = selection.root.empty() ? std::nullopt : endpointOf(selection.root);
    if (selection.keys.empty() || !endpoint) {
        statusText_->setText(tr("Select FX graph or AOT entries of a Redis root to pull them.") +
                             (selection.ignored.isEmpty()
                                  ? QString()
                                  : u' ' + selection.ignored.join(QStringLiteral("; "))));
        return;
    }
    auto* dialog = new PullDialog(jobs_, *endpoint, selection.keys, selection.ignored,
                                  into.value_or(bundle_work::defaultImportDir()), this);
    pullDialog_ = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PullDialog::statusMessage, statusText_, &QLabel::setText);
    connect(dialog, &PullDialog::pulled, this, &MainWindow::reindexIfShown);
    dialog->show();
}

void MainWindow::openPushDialog(std::optional<fs::path> wholeDir, const QString& server) {
    fs::path dir;
    std::vector<std::string> keys;
    QStringList ignored;
    if (wholeDir) {
        dir = *wholeDir;
    } else {
        const auto refs = selectedEntries();
        auto selection = graphSelection(
            refs, tr("pushed"), [this](const fs::path& root) { return !isRedisRoot(root); });
        const auto root = actionRoot();
        if (!selection.keys.empty()) {
            dir = selection.root;
            keys = std::move(selection.keys);
            ignored = std::move(selection.ignored);
        } else if (refs.empty() && root && !isRedisRoot(*root)) {
            dir = *root; // nothing selected: the cache dir shown, whole
        } else {
            statusText_->setText(
                tr("Select FX graph or AOT entries of a local cache dir to push them.") +
                (selection.ignored.isEmpty()
                     ? QString()
                     : u' ' + selection.ignored.join(QStringLiteral("; "))));
            return;
        }
    }
    auto* dialog = new PushDialog(jobs_, dir, std::move(keys), ignored, redisServers(), this);
    pushDialog_ = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!server.isEmpty()) {
        dialog->setServer(server);
    }
    connect(dialog, &PushDialog::statusMessage, statusText_, &QLabel::setText);
    connect(dialog, &PushDialog::pushed, this, [this, dialog] {
        // The server's root, when shown, mirrors what is there now.
        const auto endpoint = dialog->server();
        if (!endpoint) {
            return;
        }
        const std::string location = catalog::root_location(
            remote::mirror_dir_for(fs::absolute(catalogPath_.toStdString()), *endpoint));
        for (const auto& root : rootDirs()) {
            if (catalog::root_location(root) == location) {
                addRedisServer(*endpoint);
                return;
            }
        }
    });
    dialog->show();
}

} // namespace cachelens::ui
