#pragma once

// What cachelens-gui shows right after start (--open, --select, --view,
// --screenshot ...): a request carried out step by step, each step waiting
// for the work the one before started (indexing, the table's rows, the
// selected entry) to finish, then done() once everything is on screen.

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>

#include <filesystem>
#include <optional>
#include <vector>

namespace cachelens::ui {

class MainWindow;

struct StartupRequest {
    std::vector<std::filesystem::path> open;
    // Browse the first dir of `open`, selected in the sidebar (--open), unless
    // a bundle or a Redis server is opened too (that is selected once it is
    // in); false when it is the default cache dir, shown among every root.
    // View "prune" prunes it either way.
    bool browseOpened = true;
    // Bundle files, browsed read-only.
    std::vector<std::filesystem::path> openBundles;
    // Redis servers (redis://... URLs), mirrored and browsed read-only.
    QStringList openRedis;
    QString select;  // a key, path (relative or absolute) or kernel name to select
    QString tab;     // BrowsePage::tabNames()
    QString compare; // a second key to compare the selection with
    // StartupScript::viewNames(): browse, compare, why, stats, prune (the first
    // dir of `open`), bench, import, redis (Add Redis Server), pull (the
    // selection into importInto), push (the selection, or the first dir
    // opened, to the first server opened)
    QString view;
    QString search;       // text for the search field
    QString pruneMaxSize; // with view "prune": preview a prune to this size
    QString importInto;   // with view "import" or "pull": the cache dir to write into
    // With view "warmstart": the TORCH_TRACE dir or log to report on (the
    // first dir of `open` is the cache dir its misses are compared with).
    std::filesystem::path trace;
    // A file shown on its own, read-only (File > Open file): an OnDiskCache
    // value, an InMemoryCache file.
    std::filesystem::path file;
};

class StartupScript : public QObject {
    Q_OBJECT

public:
    explicit StartupScript(MainWindow& window);

    // Opens the request's roots and carries out the rest as they come in.
    void run(const StartupRequest& request);

    // What --view accepts.
    static QStringList viewNames();

signals:
    void done();

private:
    // In the order they run.
    enum class Step { BrowseOpened, Search, Select, Tab, Compare, View, Tune, Live, Finished };
    // What a step asks of the script.
    enum class Then {
        Next,        // go on to the next step now
        WaitForWork, // the next step, once the work this one started is done
        Retry,       // this step again, once some work is done
    };
    void advance();
    Then runStep(Step step);
    Then browseOpened();
    void showView();
    Then openTunePlan();
    Then settleLive();

    MainWindow& window_;
    std::optional<StartupRequest> request_;
    Step step_ = Step::Finished;
    bool waitingForEntry_ = false;
    bool waitingForTune_ = false; // --view tune: its plan listing is under way
    QElapsedTimer liveWatched_;   // --view live: since the watch started
};

} // namespace cachelens::ui
