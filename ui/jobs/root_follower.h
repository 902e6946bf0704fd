#pragma once

// Following the cache dir open on Browse while PyTorch writes it (View >
// Follow changes): a DirWatcher (watch/cache_watch.h) in a job of its own
// says which files were completed there; changed() then, at most every
// 300 ms, for the window to take them (takeChanges()) and index their
// entries alone (Catalog::index_paths: milliseconds, however large the dir),
// then refresh its rows. Half-written files (temp names, Triton's staging
// dirs) never count as a change.

#include <QObject>
#include <QTimer>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

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

    // What changed since the last call: the files completed (relative to the
    // dir), or `whole` when the dir is to be indexed whole (first, for what
    // came before the watch was in place; and after so many files that a
    // walk costs less).
    struct Changes {
        bool whole = false;
        std::vector<std::string> paths;
    };
    Changes takeChanges();
    // More completed files than this at once: the dir is indexed whole.
    static constexpr std::size_t kMostPaths = 20'000;
    const std::filesystem::path& dir() const { return dir_; }

signals:
    // The watch is in place: what is written from now on is seen.
    void watching(const std::filesystem::path& dir);
    // Files were completed in `dir` since the last changed() (once, too,
    // right after watching(): for what came before the watch was in place);
    // takeChanges() says which.
    void changed(const std::filesystem::path& dir);
    void failed(const QString& message);

private:
    JobTracker* job_;
    std::filesystem::path dir_;
    std::shared_ptr<std::atomic<bool>> stop_;
    QTimer debounce_;
    Changes changes_;
};

} // namespace cachelens::ui
