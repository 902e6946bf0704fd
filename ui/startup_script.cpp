#include "startup_script.h"

#include "dialogs/dialog_launcher.h"
#include "dialogs/import_dialog.h"
#include "dialogs/tune_dialog.h"
#include "jobs/remote_work.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/bench_results_model.h"
#include "models/entry_table_model.h"
#include "models/live_events_model.h"
#include "models/roots_model.h"
#include "pages/bench_page.h"
#include "pages/browse_page.h"
#include "pages/live_page.h"
#include "pages/serving_page.h"
#include "pages/warm_start_page.h"
#include "text/engine_text.h"

#include <cachelens/catalog/catalog.h>

#include <QDateTime>
#include <QTimer>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

const char* const kViewNames[] = {"browse",    "compare", "why",     "stats", "prune",
                                  "bench",     "import",  "redis",   "pull",  "push",
                                  "warmstart", "tune",    "serving", "live"};

} // namespace

StartupScript::StartupScript(MainWindow& window)
    : QObject(&window)
    , window_(window) {
    BrowsePage* browse = window.browsePage();
    connect(window.roots(), &RootJobs::settled, this, &StartupScript::advance);
    connect(browse, &BrowsePage::rowsLoaded, this, &StartupScript::advance);
    connect(browse, &BrowsePage::entryShown, this, [this] {
        waitingForEntry_ = false;
        advance();
    });
    // Not found: said in the status bar; the script goes on.
    connect(browse, &BrowsePage::entryNotFound, this, [this] {
        waitingForEntry_ = false;
        advance();
    });
    connect(&window.jobs(), &JobPool::idle, this, &StartupScript::advance);
    // The Benchmarks page's plan listing is a child process, not a job.
    connect(window.benchPage(), &BenchPage::planFinished, this, &StartupScript::advance);
}

QStringList StartupScript::viewNames() {
    QStringList names;
    for (const char* name : kViewNames) {
        names << QLatin1String(name);
    }
    return names;
}

void StartupScript::run(const StartupRequest& request) {
    request_ = request;
    step_ = Step::BrowseOpened;
    RootJobs* roots = window_.roots();
    for (const auto& dir : request.open) {
        roots->index(dir);
    }
    for (const auto& file : request.openBundles) {
        roots->openBundle(file);
    }
    for (const QString& url : request.openRedis) {
        const auto parsed = remote_work::parseEndpoint(url);
        if (parsed) {
            roots->addRedisServer(*parsed);
        } else {
            emit roots->failed(
                tr("Cannot add the Redis server %1: %2").arg(url, text(parsed.error().describe())));
        }
    }
    QTimer::singleShot(0, this, &StartupScript::advance);
}

void StartupScript::advance() {
    BrowsePage* browse = window_.browsePage();
    if (!request_ || window_.roots()->pending() > 0 || browse->entryModel()->isLoading() ||
        waitingForEntry_ || waitingForTune_) {
        return;
    }
    while (step_ != Step::Finished) {
        const Step step = step_;
        const Then then = runStep(step);
        if (then == Then::Retry) {
            return;
        }
        step_ = static_cast<Step>(static_cast<int>(step) + 1);
        if (then == Then::WaitForWork) {
            return;
        }
    }
    if (window_.jobs().isIdle() && !window_.benchPage()->isPlanning()) {
        request_.reset();
        // One more turn of the event loop so that the last results are painted.
        QTimer::singleShot(150, this, &StartupScript::done);
    }
}

StartupScript::Then StartupScript::runStep(Step step) {
    const StartupRequest& request = *request_;
    BrowsePage* browse = window_.browsePage();
    switch (step) {
    case Step::BrowseOpened:
        return browseOpened();
    case Step::Search:
        if (request.search.isEmpty()) {
            return Then::Next;
        }
        browse->setSearchText(request.search);
        return Then::WaitForWork;
    case Step::Select:
        if (request.select.isEmpty() || !browse->selectEntry(request.select)) {
            return Then::Next;
        }
        waitingForEntry_ = true; // entryShown continues
        return Then::WaitForWork;
    case Step::Tab:
        if (!request.tab.isEmpty()) {
            if (auto tab = BrowsePage::tabFromName(request.tab)) {
                window_.showPage(MainWindow::Page::Browse);
                browse->showTab(*tab);
            }
        }
        return Then::Next;
    case Step::Compare:
        if (!request.compare.isEmpty()) {
            window_.compareWith(request.compare);
        }
        return Then::Next;
    case Step::View:
        if (!request.view.isEmpty()) {
            showView();
        }
        if (!request.file.empty()) {
            window_.dialogs()->chooseFile(request.file);
            return Then::WaitForWork;
        }
        return Then::Next;
    case Step::Tune:
        return request.view == "tune" ? openTunePlan() : Then::Next;
    case Step::Live:
        return request.view == "live" ? settleLive() : Then::Next;
    case Step::Finished:
        break;
    }
    return Then::Next;
}

// The first dir opened, browsed: once the sidebar lists it (not when
// indexing it failed).
StartupScript::Then StartupScript::browseOpened() {
    const StartupRequest& request = *request_;
    if (!request.browseOpened || request.open.empty() || !request.openBundles.empty() ||
        !request.openRedis.isEmpty()) {
        return Then::Next;
    }
    BrowsePage* browse = window_.browsePage();
    if (browse->rootsModel()->isRefreshing()) {
        return Then::Retry; // the sidebar lists the root once this refresh is in
    }
    const fs::path root = catalog::root_location(request.open.front());
    if (!browse->rootsModel()->indexOfRoot(root).isValid()) {
        return Then::Next;
    }
    browse->browseRoot(root);
    return browse->entryModel()->isLoading() ? Then::WaitForWork : Then::Next;
}

void StartupScript::showView() {
    const StartupRequest& request = *request_;
    DialogLauncher* dialogs = window_.dialogs();
    const QString& view = request.view;
    const auto into = request.importInto.isEmpty()
                          ? std::nullopt
                          : std::optional<fs::path>(request.importInto.toStdString());
    if (view == "compare") {
        window_.showPage(MainWindow::Page::Compare);
    } else if (view == "why") {
        window_.explainCurrent();
    } else if (view == "stats") {
        window_.showPage(MainWindow::Page::Stats);
    } else if (view == "bench" || view == "tune") {
        window_.showPage(MainWindow::Page::Bench);
    } else if (view == "import") {
        dialogs->openImport(
            request.openBundles.empty() ? std::nullopt : std::optional(request.openBundles.front()),
            into, false);
        if (dialogs->importDialog() && !request.select.isEmpty()) {
            dialogs->importDialog()->selectArtifact(request.select);
        }
    } else if (view == "redis") {
        dialogs->openRedis(request.openRedis.value(0));
    } else if (view == "pull") {
        dialogs->openPull(into);
    } else if (view == "push") {
        // Without --select: the whole of the first dir opened.
        const bool whole = request.select.isEmpty() && !request.open.empty();
        const auto server = remote_work::parseEndpoint(request.openRedis.value(0));
        dialogs->openPush(whole ? std::optional(request.open.front()) : std::nullopt,
                          server ? text(server->display()) : QString());
    } else if (view == "warmstart") {
        window_.showPage(MainWindow::Page::WarmStart);
        if (!request.trace.empty()) {
            window_.warmStartPage()->openTrace(
                request.trace, request.open.empty() ? fs::path() : request.open.front());
        }
    } else if (view == "live") {
        window_.showPage(MainWindow::Page::Live);
        if (!request.open.empty()) {
            window_.livePage()->start(request.open.front(), request.trace);
            liveWatched_.start();
        }
    } else if (view == "serving") {
        window_.showPage(MainWindow::Page::Serving);
        if (!request.open.empty()) {
            window_.servingPage()->setRoot(request.open.front());
        }
    } else if (view == "prune") {
        dialogs->openPrune(
            request.pruneMaxSize.isEmpty() ? QStringLiteral("1M") : request.pruneMaxSize,
            request.open.empty() ? std::nullopt : std::optional(request.open.front()));
    } else {
        window_.showPage(MainWindow::Page::Browse);
    }
}

// --view live: the watch runs until the events written meanwhile have come
// (none for 2 s after the first, or 30 s with none), then stops, so that its
// rows and summary are what the window shows.
StartupScript::Then StartupScript::settleLive() {
    LivePage* live = window_.livePage();
    if (!live->isWatching()) {
        return Then::Next;
    }
    const LiveEventsModel& events = *live->model();
    const bool none = events.rowCount() == 0;
    const qint64 quiet =
        none ? liveWatched_.elapsed()
             : events.row(events.rowCount() - 1).at.msecsTo(QDateTime::currentDateTime());
    if ((none && quiet < 30'000) || (!none && quiet < 2'000)) {
        QTimer::singleShot(250, this, &StartupScript::advance);
        return Then::Retry;
    }
    live->stop();
    return Then::WaitForWork;
}

// --view tune: once the Benchmarks page has listed its plans, the Tune
// dialog of its first kernel, with what a tune would try (its --plan).
StartupScript::Then StartupScript::openTunePlan() {
    BenchPage* bench = window_.benchPage();
    if (bench->isPlanning()) {
        return Then::Retry; // planFinished continues
    }
    if (bench->results()->rowCount() == 0) {
        return Then::Next;
    }
    bench->selectResult(0);
    bench->openTune();
    TuneDialog* dialog = bench->tuneDialog();
    if (dialog == nullptr) {
        return Then::Next;
    }
    connect(
        dialog, &TuneDialog::tuneEnded, this,
        [this] {
            waitingForTune_ = false;
            advance();
        },
        Qt::SingleShotConnection);
    waitingForTune_ = true;
    dialog->plan();
    return Then::WaitForWork;
}

} // namespace cachelens::ui
