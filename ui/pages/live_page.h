#pragma once

// LivePage: "it just recompiled — why?", while the run goes on. Watches a
// cache dir (and, when chosen, the run's TORCH_TRACE dir) and lists each
// event as PyTorch writes it: a new FX graph with the cause of its miss
// against the nearest graph already there, AOTAutograd entries, autotune
// results, Triton kernels, and the trace's cache hits and misses. A graph
// row opens on the Why missed page, another entry on Browse. The same loop
// as `cachelens watch` (watch/follow.h), on the job pool; Stop ends it with
// the same summary.

#include "data/entry_ref.h"

#include <QWidget>

#include <atomic>
#include <filesystem>
#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QTableView;

namespace cachelens::ui {

class JobPool;
class JobTracker;
class LiveEventsModel;

class LivePage : public QWidget {
    Q_OBJECT

public:
    explicit LivePage(JobPool& pool, QWidget* parent = nullptr);
    ~LivePage() override;

    // Starts watching `cacheDir` (and `traceDir` when not empty), after
    // stopping a watch running; the table starts empty. watching() once
    // the watch is in place.
    void start(const std::filesystem::path& cacheDir, const std::filesystem::path& traceDir = {});
    // Ends the watch; stopped() with the summary once it has.
    void stop();
    bool isWatching() const;
    // The cache dir shown when nothing is watched (the root open on Browse).
    void suggestCacheDir(const std::filesystem::path& dir);
    // Opens `row`: a graph on Why missed, another entry on Browse; false
    // (and a status message) for a trace row.
    bool openRow(int row);

    LiveEventsModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QString statusText() const;

signals:
    void whyRequested(const cachelens::ui::EntryRef& fxEntry,
                      const std::vector<std::filesystem::path>& searchRoots);
    void entryRequested(const QString& root, const QString& path);
    void statusMessage(const QString& message);
    void watching();
    void stopped();

private:
    void chooseCacheDir();
    void chooseTraceDir();
    void updateControls();

    JobTracker* job_;
    LiveEventsModel* model_;
    std::filesystem::path cacheDir_;
    std::filesystem::path traceDir_;
    std::shared_ptr<std::atomic<bool>> stop_;
    QLabel* source_;
    QLabel* status_;
    QPushButton* cacheButton_;
    QPushButton* traceButton_;
    QPushButton* startButton_;
    QPushButton* openButton_;
    QTableView* table_;
};

} // namespace cachelens::ui
