#pragma once

// WarmStartPage: "my warm start still takes seconds: which layer missed?"
// Opens TORCH_TRACE logs (a dir or one log) and shows each compile as a row:
// every caching layer's outcome as an icon, the compile's time as a bar of
// its layers' times, and the cause of a miss against a cache dir. A missed
// compile whose FX entry the cache dir holds opens on the Why missed page.
// The same report as `cachelens report` (trace/warm_start.h). With Follow,
// a trace dir being written is read again as it grows (watch/trace_watch.h:
// each log from where it stopped), as `cachelens report --follow` does.

#include "data/entry_ref.h"

#include <QWidget>

#include <filesystem>
#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QTimer;
class QPushButton;
class QTableView;

namespace cachelens::watch {
class TraceWatch;
}

namespace cachelens::ui {

struct WarmStartResult;
class JobPool;
class JobTracker;
class WarmStartModel;

class WarmStartPage : public QWidget {
    Q_OBJECT

public:
    explicit WarmStartPage(JobPool& pool, QWidget* parent = nullptr);

    // Reads `traceDirOrLog` off the GUI thread and finds each miss's cause
    // against `cacheDir` (none when empty); loaded() once it is shown.
    void openTrace(const std::filesystem::path& traceDirOrLog,
                   const std::filesystem::path& cacheDir = {});
    // Asks the Why missed page about `row`'s missed FX entry, when the cache
    // dir holds it; false (and a status message) when it cannot.
    bool explainRow(int row);
    // Follows the trace dir open as it grows: read again each second when a
    // log grew (loaded() after each read that changed something).
    void setFollowing(bool follow);
    bool isFollowing() const;

    WarmStartModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QString summaryText() const;

signals:
    void whyRequested(const cachelens::ui::EntryRef& fxEntry,
                      const std::vector<std::filesystem::path>& searchRoots);
    void statusMessage(const QString& message);
    void loaded();

private:
    void chooseTrace(bool dir);
    void chooseCacheDir();
    void showSelected();
    void showResult(Result<WarmStartResult> result);
    void followTick();

    JobTracker* job_;
    WarmStartModel* model_;
    std::filesystem::path trace_;
    std::filesystem::path cacheDir_;
    QLabel* source_;
    QLabel* summary_;
    QLabel* error_;
    QTableView* table_;
    QLabel* detail_;
    QPushButton* whyButton_;
    QCheckBox* follow_;
    QTimer* followTimer_;
    // The logs as read so far while following; a new one for each trace opened.
    std::shared_ptr<watch::TraceWatch> traceWatch_;
};

} // namespace cachelens::ui
