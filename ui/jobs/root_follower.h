#pragma once

// Following the cache dir open on Browse while PyTorch writes it (View >
// Follow changes): a DirWatcher (watch/cache_watch.h) in a job of its own
// says when files were completed there; changed() then, at most every
// 300 ms, for the window to index the dir again (only what is new is parsed)
// and refresh its rows. Half-written files (temp names, Triton's staging
// dirs) never count as a change.

#include <QObject>
#include <QTimer>

#include <atomic>
#include <filesystem>
#include <memory>

namespace cachelens::ui {

class JobPool;
class JobTracker;

class RootFollower : public QObject {
    Q_OBJECT

public:
    RootFollower(JobPool& pool, QObject* parent = nullptr);
    // Waits for its watch to end (it posts to this object).
    ~RootFollower() override;

    // Follows `dir` (after what was followed before).
    void follow(const std::filesystem::path& dir);
    void stop();
    bool isFollowing() const { return !dir_.empty(); }
    const std::filesystem::path& dir() const { return dir_; }

signals:
    // The watch is in place: what is written from now on is seen.
    void watching(const std::filesystem::path& dir);
    // Files were completed in `dir` since the last changed() (once, too,
    // right after watching(): for what came before the watch was in place).
    void changed(const std::filesystem::path& dir);
    void failed(const QString& message);

private:
    JobTracker* job_;
    std::filesystem::path dir_;
    std::shared_ptr<std::atomic<bool>> stop_;
    QTimer debounce_;
};

} // namespace cachelens::ui
