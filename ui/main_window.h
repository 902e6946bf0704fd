#pragma once

// The main window: a sidebar of cache dirs, the entry table with its search
// field, the detail tabs for the selected entry; and the Compare, Why missed,
// Stats and Benchmarks pages. It wires models, panels and jobs together and
// holds no logic of its own beyond that wiring. Bundles: Open Bundle… stages
// one (jobs/bundle_work.h) and browses it as a read-only root; Import… and
// Export Selection… open their dialogs.

#include "jobs/job_runner.h"
#include "models/entry_ref.h"

#include <cachelens/cachedir/file_kind.h>

#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <filesystem>
#include <optional>
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

class BenchView;
class CompareView;
class EntryPanel;
class EntryTableModel;
class ExportDialog;
class ImportDialog;
class RootLabelsModel;
class RootsModel;
class StatsView;
class WhyView;

// What to show right after start: the command line of cachelens-gui.
struct StartupRequest {
    std::vector<std::filesystem::path> open;
    // Bundle files, browsed read-only.
    std::vector<std::filesystem::path> openBundles;
    QString select;       // a key, path or kernel name to select
    QString tab;          // overview, debug, guards, source, kernels, autotune
    QString compare;      // a second key to compare the selection with
    QString view;         // browse, compare, why, stats, prune, bench, import
    QString search;       // text for the search field
    QString pruneMaxSize; // with view "prune": preview a prune to this size
    QString importInto;   // with view "import": the cache dir to import into
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
    // A staged bundle: no prune, no bench accept.
    bool isReadOnlyRoot(const std::filesystem::path& root) const;
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
    EntryPanel* panel(Tab tab) const;
    CompareView* compareView() const { return compareView_; }
    WhyView* whyView() const { return whyView_; }
    StatsView* statsView() const { return statsView_; }
    BenchView* benchView() const { return benchView_; }
    void showPage(Page page);
    void showTab(Tab tab);
    std::optional<EntryRef> currentEntry() const { return current_; }
    // Selects the entry a user means by `query` (key, path, kernel name) in
    // the current table; false when the table has no such entry.
    bool selectEntry(const QString& query);
    // Compares the selected entry with the one `query` names.
    bool compareWith(const QString& query);
    void explainCurrent();
    // Opens the prune dialog for the selected cache dir; with a size, previews
    // a prune to it right away.
    void openPruneDialog(const QString& previewMaxSize = {});
    ImportDialog* importDialog() const;
    ExportDialog* exportDialog() const;
    // The status bar's message, and the banner over the table for a bundle root.
    QString statusText() const;
    QLabel* bundleBanner() const { return bundleBanner_; }

    static std::optional<Tab> tabFromName(const QString& name);
    // What --screenshot saves: the import, export or prune dialog when one
    // is open, else the window.
    QWidget* screenshotTarget();

signals:
    void rootIndexed(const QString& root);
    // A bundle was staged, indexed and selected (`root` is its staged dir).
    void bundleOpened(const QString& root);
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
    std::optional<EntryRef> findEntry(const QString& query, cachedir::FileKind kind,
                                      const std::optional<std::filesystem::path>& root) const;
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
    std::vector<EntryPanel*> panels_; // in Tab order
    CompareView* compareView_ = nullptr;
    WhyView* whyView_ = nullptr;
    StatsView* statsView_ = nullptr;
    BenchView* benchView_ = nullptr;

    QLabel* statusText_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QAction* compareAction_ = nullptr;
    QAction* whyAction_ = nullptr;
    QAction* pruneAction_ = nullptr;
    QAction* importAction_ = nullptr;
    QAction* exportAction_ = nullptr;

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
    QStringList bundlesIndexing_;                      // staged roots to select once indexed
    std::optional<std::filesystem::path> sidebarRoot_; // to select once the sidebar has it
    int bundleJobs_ = 0;                               // for unique job channels
    int rootsPending_ = 0;
    QStringList indexing_; // the index jobs' channels
};

} // namespace cachelens::ui
