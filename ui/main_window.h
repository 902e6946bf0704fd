#pragma once

// The main window: a sidebar of cache dirs, the entry table with its search
// field, the detail tabs for the selected entry; and the Compare, Why missed,
// Stats and Benchmarks pages. It wires models, panels and jobs together and
// holds no logic of its own beyond that wiring. Bundles: Open Bundle… stages
// one (jobs/bundle_work.h) and browses it as a read-only root; Import… and
// Export Selection… open their dialogs. Redis: Add Redis Server… mirrors a
// server (jobs/remote_work.h) and browses the mirror as a read-only root;
// Pull to Cache Dir… and Push to Redis… open their dialogs.

#include "jobs/job_runner.h"
#include "data/entry_ref.h"

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/remote/redis_endpoint.h>

#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QModelIndex;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;
class QTimer;
class QTreeView;

namespace cachelens::ui {

class BenchPage;
class ComparePage;
class EntryTab;
class EntryTableModel;
class ExportDialog;
class ImportDialog;
class PullDialog;
class PushDialog;
class RedisDialog;
class RootLabelsModel;
class RootsModel;
class StatsPage;
class WhyPage;
namespace remote_work {
struct MirrorOutcome;
}

// What to show right after start: the command line of cachelens-gui.
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
    QString tab;     // MainWindow::tabNames()
    QString compare; // a second key to compare the selection with
    // MainWindow::viewNames(): browse, compare, why, stats, prune (the first
    // dir of `open`), bench, import, redis (Add Redis Server), pull (the
    // selection into importInto), push (the selection, or the first dir
    // opened, to the first server opened)
    QString view;
    QString search;       // text for the search field
    QString pruneMaxSize; // with view "prune": preview a prune to this size
    QString importInto;   // with view "import" or "pull": the cache dir to write into
};

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    enum class Page { Browse, Compare, Why, Stats, Bench };
    enum class Tab { Overview, DebugLines, Guards, Source, Kernels, Autotune };

    explicit MainWindow(QString catalogPath, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Indexes `dir` (in the background) and shows it.
    void openRoot(const std::filesystem::path& dir);
    // Stages the bundle `file`'s safe artifacts (in the background), then
    // opens the staged dir as a read-only root and selects it.
    void openBundle(const std::filesystem::path& file);
    // A staged bundle or a Redis server's mirror: no prune, no bench accept.
    bool isReadOnlyRoot(const std::filesystem::path& root) const;
    // A Redis server's mirror (jobs/remote_work.h).
    bool isRedisRoot(const std::filesystem::path& root) const;
    // Opens Add Redis Server, on `url` (else PyTorch's server).
    void openRedisDialog(const QString& url = {});
    // Mirrors `endpoint`'s server (in the background), then indexes the
    // mirror and selects it; an error goes to a message box. Mirroring a
    // server shown already refreshes its root.
    void addRedisServer(const remote::RedisEndpoint& endpoint);
    // Mirrors a Redis root's server again and indexes the result.
    void refreshRedisRoot(const std::filesystem::path& root);
    // The servers of the Redis roots shown, with the passwords they were
    // added with in this session.
    std::vector<remote::RedisEndpoint> redisServers() const;
    // Opens Pull to Cache Dir for the FX graph and AOT entries of a Redis
    // root selected, into `into`, else PyTorch's cache dir.
    void openPullDialog(std::optional<std::filesystem::path> into = std::nullopt);
    // Opens Push to Redis for the FX graph and AOT entries of a local root
    // selected, or for the whole of `wholeDir`, else of the cache dir shown
    // when nothing is selected; to `server` (a URL), else the first Redis root's.
    void openPushDialog(std::optional<std::filesystem::path> wholeDir = std::nullopt,
                        const QString& server = {});
    // Opens the Import dialog for `bundleFile`, else for the selected bundle
    // root's file, else (with `askForFile`) the one the user picks; into
    // `into`, else PyTorch's cache dir.
    void openImportDialog(std::optional<std::filesystem::path> bundleFile = std::nullopt,
                          std::optional<std::filesystem::path> into = std::nullopt,
                          bool askForFile = true);
    // Opens the Export dialog for the FX graph and AOT entries selected.
    void openExportDialog();
    // Carries out `request` step by step as the jobs it needs finish; emits
    // requestDone() when everything it asked for is on screen.
    void runStartupRequest(const StartupRequest& request);

    // For tests and the startup request.
    JobRunner& jobs() { return jobs_; }
    EntryTableModel* entryModel() const { return entryModel_; }
    QTableView* entryTable() const { return table_; }
    QLineEdit* searchField() const { return search_; }
    EntryTab* panel(Tab tab) const;
    ComparePage* comparePage() const { return comparePage_; }
    WhyPage* whyPage() const { return whyPage_; }
    StatsPage* statsPage() const { return statsPage_; }
    BenchPage* benchPage() const { return benchPage_; }
    void showPage(Page page);
    void showTab(Tab tab);
    std::optional<EntryRef> currentEntry() const { return current_; }
    // Selects the entry a user means by `query` (cachedir::EntryQuery: a key,
    // a path relative to its root or absolute, a kernel name; a path is that
    // entry exactly), in the root shown first; false when the catalog has no
    // such entry.
    bool selectEntry(const QString& query);
    // Compares the selected entry with the one `query` names.
    bool compareWith(const QString& query);
    void explainCurrent();
    // Opens the prune dialog for `root`, else the selected cache dir; with a
    // size, previews a prune to it right away.
    void openPruneDialog(const QString& previewMaxSize = {},
                         std::optional<std::filesystem::path> root = std::nullopt);
    ImportDialog* importDialog() const;
    ExportDialog* exportDialog() const;
    RedisDialog* redisDialog() const;
    PullDialog* pullDialog() const;
    PushDialog* pushDialog() const;
    // The status bar's message, and the banner over the table for a bundle or Redis root.
    QString statusText() const;
    QLabel* bundleBanner() const { return bundleBanner_; }

    static std::optional<Tab> tabFromName(const QString& name);
    // What --tab and --view accept.
    static QStringList tabNames();
    static QStringList viewNames();
    // What --screenshot saves: the import, export, Redis, pull, push or prune
    // dialog when one is open, else the window.
    QWidget* screenshotTarget();

signals:
    void rootIndexed(const QString& root);
    // A bundle was staged, indexed and selected (`root` is its staged dir).
    void bundleOpened(const QString& root);
    // A Redis server was mirrored, indexed and selected (`root` is its mirror dir).
    void redisRootAdded(const QString& root);
    void entryShown(const cachelens::ui::EntryRef& ref);
    void requestDone();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildActions();
    void buildBrowsePage();
    void buildStatusBar();
    void restoreSettings();
    void saveSettings() const;
    void addRecentRoot(const QString& root);
    void updateRecentMenu();

    void applyFilter();
    void onRootSelected(const QModelIndex& index);
    void onEntrySelected();
    void loadEntry(const EntryRef& ref);
    void follow(cachedir::FileKind kind, const QString& keyOrPath);
    void selectOnly(int row);
    struct FoundEntry {
        EntryRef ref;
        std::int64_t id = 0; // in the catalog
    };
    // The entry `query` names (cachedir::EntryQuery), of `kind` unless
    // Unknown, in `root` unless none: one its path names before one its key
    // or name does; with `avoidRoot`, one elsewhere before one there.
    std::optional<FoundEntry>
    findEntry(const QString& query, cachedir::FileKind kind,
              const std::optional<std::filesystem::path>& root,
              const std::optional<std::filesystem::path>& avoidRoot = std::nullopt) const;
    // Selects it in the table, showing every root when the filter hides it.
    void showFoundEntry(const FoundEntry& found);
    // Selects `root` in the sidebar, which shows its entries.
    void browseRoot(const std::filesystem::path& root);
    std::vector<EntryRef> selectedEntries() const;
    std::vector<std::filesystem::path> rootDirs() const;
    // The cache dir a page or dialog acts on: the sidebar's, the selected
    // entry's, or the only one.
    std::optional<std::filesystem::path> actionRoot() const;
    void compareSelection();
    void copyFromSelection(int column);
    void showError(const QString& message);
    void showAbout();
    void advanceRequest();
    // Prune and the banner follow whether the action root is a bundle.
    void updateRootActions();
    void showBenchRoot();
    void onBundleIndexed(const QString& root);
    void onMirrored(const remote::RedisEndpoint& endpoint,
                    const remote_work::MirrorOutcome& outcome);
    void showRedisBanner(const std::filesystem::path& root);
    // The server a Redis root mirrors, with the password it was added with.
    std::optional<remote::RedisEndpoint> endpointOf(const std::filesystem::path& root) const;
    // Indexes `dir` again when it is a root shown (after an import or a pull into it).
    void reindexIfShown(const std::filesystem::path& dir);

    QString catalogPath_;
    JobRunner jobs_;
    RootsModel* rootsModel_ = nullptr;
    RootLabelsModel* rootLabels_ = nullptr; // the sidebar's: bundles labelled
    std::filesystem::path stagingBase_;     // where opened bundles are staged
    EntryTableModel* entryModel_ = nullptr;

    QTabWidget* pages_ = nullptr;
    QSplitter* browseSplitter_ = nullptr;
    QSplitter* tableSplitter_ = nullptr;
    QTreeView* sidebar_ = nullptr;
    QLineEdit* search_ = nullptr;
    QTimer* searchDelay_ = nullptr;
    QTableView* table_ = nullptr;
    QLabel* tableSummary_ = nullptr;
    QLabel* entryError_ = nullptr;
    QLabel* bundleBanner_ = nullptr;
    QTabWidget* details_ = nullptr;
    std::vector<EntryTab*> panels_; // in Tab order
    ComparePage* comparePage_ = nullptr;
    WhyPage* whyPage_ = nullptr;
    StatsPage* statsPage_ = nullptr;
    BenchPage* benchPage_ = nullptr;

    QLabel* statusText_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QAction* compareAction_ = nullptr;
    QAction* whyAction_ = nullptr;
    QAction* pruneAction_ = nullptr;
    QAction* importAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* refreshRedisAction_ = nullptr;
    QAction* pullAction_ = nullptr;
    QAction* pushAction_ = nullptr;

    std::optional<std::filesystem::path> filterRoot_;
    std::optional<cachedir::FileKind> filterKind_;
    std::optional<EntryRef> current_;
    std::optional<std::int64_t> pendingSelection_; // select once the table has it
    QStringList recentRoots_;

    // The startup request being carried out, and how far it got.
    std::optional<StartupRequest> request_;
    int requestStep_ = 0;
    bool waitingForEntry_ = false;
    QPointer<QWidget> pruneDialog_;
    QPointer<ImportDialog> importDialog_;
    QPointer<ExportDialog> exportDialog_;
    QPointer<RedisDialog> redisDialog_;
    QPointer<PullDialog> pullDialog_;
    QPointer<PushDialog> pushDialog_;
    QStringList bundlesIndexing_;                      // staged roots to select once indexed
    std::optional<std::filesystem::path> sidebarRoot_; // to select once the sidebar has it
    int bundleJobs_ = 0;                               // for unique job channels
    int rootsPending_ = 0;
    QStringList indexing_;             // the index jobs' channels
    std::filesystem::path mirrorBase_; // where Redis servers are mirrored
    // Root location -> the server it mirrors (with its password, never
    // written to disk) and what its last mirroring reported.
    std::map<std::string, remote::RedisEndpoint> endpoints_;
    std::map<std::string, QString> mirrorReports_;
    QStringList redisIndexing_; // mirror roots to select once indexed
    QStringList mirroring_;     // the mirror jobs' channels
    int redisJobs_ = 0;         // for unique job channels
};

} // namespace cachelens::ui
