#pragma once

// The main window: the pages (Browse, Compare, Why missed, Stats,
// Benchmarks, Warm start, Serving), the menus that reach them and the dialogs, and the status bar
// with the root jobs' progress. It switches pages and wires their signals;
// the work is theirs: the roots and their jobs in RootJobs, the dialogs in
// DialogLauncher, the start-up request in StartupScript.

#include "jobs/job_tracker.h"

#include <QMainWindow>

#include <filesystem>

class QAction;
class QLabel;
class QTabWidget;

namespace cachelens::ui {

class BenchPage;
class BrowsePage;
class ComparePage;
class DialogLauncher;
class RecentRootsMenu;
class RootJobs;
class ServingPage;
class LivePage;
class RootFollower;
class StartupScript;
class StatsPage;
class WarmStartPage;
struct EntryRef;
class WhyPage;
struct StartupRequest;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    enum class Page { Browse, Compare, Why, Stats, Bench, WarmStart, Serving, Live };

    explicit MainWindow(QString catalogPath, QWidget* parent = nullptr);
    ~MainWindow() override;

    void showPage(Page page);
    // Compares the selected entry with the FX graph entry `query` names.
    bool compareWith(const QString& query);
    // Why the selected FX graph entry missed, on the Why missed page.
    void explainCurrent();
    // Carries out `request` (cachelens-gui's command line); requestDone()
    // once everything it asked for is on screen.
    void runStartupRequest(const StartupRequest& request);
    // What --screenshot saves: the dialog shown, else the window.
    QWidget* screenshotTarget();
    // The status bar's message.
    QString statusText() const;
    // View > Follow changes: the dir open on Browse indexed again as PyTorch
    // writes it (only what is new is parsed), its new rows in bold.
    void setFollowing(bool follow);
    bool isFollowing() const;

    JobPool& jobs() { return pool_; }
    RootJobs* roots() const { return roots_; }
    BrowsePage* browsePage() const { return browse_; }
    ComparePage* comparePage() const { return compare_; }
    WhyPage* whyPage() const { return why_; }
    StatsPage* statsPage() const { return stats_; }
    BenchPage* benchPage() const { return bench_; }
    WarmStartPage* warmStartPage() const { return warmStart_; }
    ServingPage* servingPage() const { return serving_; }
    LivePage* livePage() const { return live_; }
    DialogLauncher* dialogs() const { return dialogs_; }

signals:
    void requestDone();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    // The actions whose use depends on the selection or the root shown.
    struct Actions {
        QAction* compare = nullptr;
        QAction* why = nullptr;
        QAction* prune = nullptr;
        QAction* export_ = nullptr;
        QAction* refreshRedis = nullptr;
        QAction* pull = nullptr;
        QAction* push = nullptr;
        QAction* follow = nullptr;
    };
    void connectPages();
    void buildMenus();
    void buildStatusBar();
    void updateActions();
    void showComparison(const EntryRef& left, const EntryRef& right);
    void compareSelection();
    void showBenchRoot();
    // The Serving page follows the sidebar's root when it is a vLLM or SGLang tree.
    void showServingRoot();
    void showStatus(const QString& message);
    void showError(const QString& message);
    // Indexes the followed dir again once no other root job is under way.
    void indexFollowed(const std::filesystem::path& dir);

    QString catalogPath_;
    JobPool pool_;
    RootJobs* roots_;
    QTabWidget* pages_;
    BrowsePage* browse_;
    ComparePage* compare_;
    WhyPage* why_;
    StatsPage* stats_;
    BenchPage* bench_;
    WarmStartPage* warmStart_;
    ServingPage* serving_;
    LivePage* live_;
    RootFollower* follower_;
    DialogLauncher* dialogs_;
    StartupScript* startup_;
    Actions actions_;
    RecentRootsMenu* recentMenu_ = nullptr;
    QLabel* statusText_ = nullptr;
};

} // namespace cachelens::ui
