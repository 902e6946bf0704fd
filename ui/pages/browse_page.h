#pragma once

// The Browse page: the sidebar of roots (cache dirs, bundles, Redis servers),
// the entry table with its search field and the banner of a read-only root,
// and the detail tabs of the selected entry. It filters the table by the
// sidebar's row and the search text, loads the selected entry off the GUI
// thread for the tabs, and finds the entry a user names (a key, path or
// kernel name) with the catalog.

#include "data/entry_ref.h"
#include "jobs/job_tracker.h"

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/error.h>

#include <QString>
#include <QWidget>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QModelIndex;
class QSettings;
class QSplitter;
class QTabWidget;
class QTableView;
class QTimer;
class QTreeView;

namespace cachelens::ui {

class EntryTab;
class EntryTableModel;
class RootBanner;
class RootJobs;
class RootLabelsModel;
class RootsModel;

class BrowsePage : public QWidget {
    Q_OBJECT

public:
    // In the order of the detail tabs.
    enum class Tab { Overview, DebugLines, Guards, Source, Kernels, Autotune };

    BrowsePage(JobPool& pool, const QString& catalogPath, const RootJobs& roots,
               QWidget* parent = nullptr);
    ~BrowsePage() override;

    // Reads the catalog's roots and the table's rows again.
    void refresh();
    // Shows `root`'s entries, selected in the sidebar (once it lists it).
    void browseRoot(const std::filesystem::path& root);
    // Shows the entries of every root.
    void browseAllRoots();
    void setSearchText(const QString& text);
    void focusSearch();
    // Selects the entry a user means by `query` (cachedir::EntryQuery: a key,
    // a path relative to its root or absolute, a kernel name; a path is that
    // entry exactly), in the root shown first. The catalog is searched in a
    // job: entryShown() follows, or entryNotFound() with the reason in the
    // status bar. False when there is nothing to look up.
    bool selectEntry(const QString& query);
    // Selects the entry at `path` (relative) of `root`, searched there first.
    bool selectEntryIn(const std::filesystem::path& root, const QString& path);
    // Looks up, in a job, the FX graph entry `query` names, in another root
    // than the selected entry's before that one (a Redis root's entry is
    // compared with the local one): `found` gets it, or nullopt.
    void findGraphToCompare(const QString& query,
                            std::function<void(std::optional<EntryRef>)> found);
    void showTab(Tab tab);
    // Copies the selected rows' keys or paths (EntryTableModel columns).
    void copyFromSelection(int column);
    // Actions shown in the table's context menu.
    void addTableActions(const QList<QAction*>& actions);

    std::optional<EntryRef> currentEntry() const { return current_; }
    std::vector<EntryRef> selectedEntries() const;
    // The roots in the sidebar.
    std::vector<std::filesystem::path> rootDirs() const;
    bool showsRoot(const std::filesystem::path& dir) const;
    // The cache dir a page or dialog acts on: the sidebar's, the selected
    // entry's, or the only one.
    std::optional<std::filesystem::path> actionRoot() const;
    // The root the sidebar filters the table by, if any.
    std::optional<std::filesystem::path> filterRoot() const { return filterRoot_; }
    // Loading its roots or its rows.
    bool isLoading() const;

    static std::optional<Tab> tabFromName(const QString& name);
    // What --tab accepts.
    static QStringList tabNames();

    // For tests and the startup script.
    EntryTableModel* entryModel() const { return entryModel_; }
    RootsModel* rootsModel() const { return rootsModel_; }
    QTableView* entryTable() const { return table_; }
    QLineEdit* searchField() const { return search_; }
    QLabel* banner() const;
    EntryTab* tab(Tab tab) const;

    // The splitters' sizes, kept in the window's settings.
    void saveSettings(QSettings& settings) const;
    void restoreSettings(const QSettings& settings);

signals:
    void statusMessage(const QString& message);
    void failed(const QString& message);
    // The selection changed: what the window's actions apply to.
    void selectionChanged();
    // The root actions apply to (actionRoot()) may have changed.
    void actionRootChanged();
    // The table's rows are in (after a filter, a search or a refresh).
    void rowsLoaded();
    void entryShown(const cachelens::ui::EntryRef& ref);
    // selectEntry() found no such entry, or could not read the catalog.
    void entryNotFound(const QString& query);
    // An entry is being selected for the user: the page should be shown.
    void showRequested();
    // A link in a read-only root's banner.
    void importRequested();
    void pullRequested();
    void refreshRequested(const std::filesystem::path& root);
    // A vLLM or SGLang tree's cache dir, rank or prefix picked in the sidebar:
    // `relative` is its path below the tree's root.
    void servingSelected(const std::filesystem::path& root, const QString& relative);

private:
    struct FoundEntry {
        EntryRef ref;
        std::int64_t id = 0; // in the catalog
    };
    QWidget* buildTableArea();
    QWidget* buildDetailArea();
    void applyFilter();
    void onRootSelected(const QModelIndex& index);
    void onEntrySelected();
    void loadEntry(const EntryRef& ref);
    void follow(cachedir::FileKind kind, const QString& keyOrPath);
    void selectOnly(int row);
    void updateBanner();
    // An entry to look up (Catalog::find_entry): `query` is a key, path,
    // kernel name, or with KeyPrefix::Accepted what a user typed, the start
    // of one key; of `kind` unless Unknown, in `root` unless none (then, with
    // `thenAnyRoot`, anywhere); with `avoidRoot`, one elsewhere before one there.
    struct EntryLookup {
        std::string query;
        cachedir::FileKind kind = cachedir::FileKind::Unknown;
        std::optional<std::filesystem::path> root;
        std::optional<std::filesystem::path> avoidRoot;
        catalog::Catalog::KeyPrefix prefix = catalog::Catalog::KeyPrefix::Refused;
        bool thenAnyRoot = false;
    };
    using Found = Result<std::optional<FoundEntry>>;
    // Runs the lookup on `tracker` (never on the GUI thread: an index job may
    // hold the catalog): `done` gets what it found.
    void lookUp(JobTracker* tracker, EntryLookup lookup, std::function<void(Found)> done);
    // Selects it in the table, showing every root when the filter hides it.
    void showFoundEntry(const FoundEntry& found);

    JobPool& pool_;
    JobTracker* entryJob_;   // the selected entry's loading
    JobTracker* findJob_;    // the entry a user asked for (--select, a link followed)
    JobTracker* compareJob_; // the graph to compare the selected one with
    JobTracker* copyJob_;    // selected rows whose page is not in yet, for the clipboard
    QString catalogPath_;
    const RootJobs& roots_;
    RootsModel* rootsModel_;
    RootLabelsModel* rootLabels_; // the sidebar's: bundles and servers labelled
    EntryTableModel* entryModel_;

    QSplitter* browseSplitter_ = nullptr;
    QSplitter* tableSplitter_ = nullptr;
    QTreeView* sidebar_ = nullptr;
    QLineEdit* search_ = nullptr;
    QTimer* searchDelay_ = nullptr;
    QTableView* table_ = nullptr;
    QLabel* tableSummary_ = nullptr;
    QLabel* entryError_ = nullptr;
    RootBanner* banner_ = nullptr;
    QTabWidget* details_ = nullptr;
    std::vector<EntryTab*> tabs_; // in Tab order

    std::optional<std::filesystem::path> filterRoot_;
    std::optional<cachedir::FileKind> filterKind_;
    std::optional<EntryRef> current_;
    std::optional<std::int64_t> pendingSelection_;     // select once the table has it
    std::optional<std::filesystem::path> sidebarRoot_; // to select once the sidebar has it
};

} // namespace cachelens::ui
