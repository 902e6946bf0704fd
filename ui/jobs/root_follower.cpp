#include "jobs/root_follower.h"

#include "jobs/job_tracker.h"
#include "text/engine_text.h"

#include <cachelens/watch/cache_watch.h>

#include <algorithm>
#include <iterator>

namespace cachelens::ui {

namespace fs = std::filesystem;

RootFollower::RootFollower(JobPool& pool, QObject* parent)
    : QObject(parent)
    , job_(new JobTracker(pool, this)) {
    debounce_.setSingleShot(true);
    debounce_.setInterval(300);
    connect(&debounce_, &QTimer::timeout, this, [this] {
        if (isFollowing()) {
            emit changed(dir_);
        }
    });
}

RootFollower::~RootFollower() {
    if (stop_ && job_->isRunning()) {
        stop_->store(true);
        job_->pool().waitForAll();
    }
}

void RootFollower::stop() {
    if (stop_) {
        stop_->store(true);
    }
    dir_.clear();
    debounce_.stop();
    changes_ = {};
}

RootFollower::Changes RootFollower::takeChanges() {
    Changes taken = std::move(changes_);
    changes_ = {};
    if (taken.paths.size() > kMostPaths) {
        taken = {.whole = true, .paths = {}};
    }
    if (taken.whole) {
        taken.paths.clear();
    }
    return taken;
}

void RootFollower::follow(const fs::path& dir) {
    stop();
    dir_ = dir;
    stop_ = std::make_shared<std::atomic<bool>>(false);
    job_->run<Result<void>>(
        [this, dir, stop = stop_](const JobContext& context) -> Result<void> {
            const JobContext::LongRunning untilStopped(context);
            auto watcher = watch::DirWatcher::open(dir);
            if (!watcher) {
                return std::unexpected(watcher.error());
            }
            QMetaObject::invokeMethod(
                this,
                [this, dir, stop] {
                    if (!stop->load()) {
                        emit watching(dir);
                        changes_.whole = true; // what was written before the watch was in place
                        debounce_.start();
                    }
                },
                Qt::QueuedConnection);
            while (!context.cancelled() && !stop->load()) {
                auto completed = (*watcher)->wait(std::chrono::milliseconds(200));
                if (!completed) {
                    return std::unexpected(completed.error());
                }
                if (!completed->empty()) {
                    QMetaObject::invokeMethod(
                        this,
                        [this, stop, paths = std::move(*completed)]() mutable {
                            if (stop->load()) {
                                return;
                            }
                            if (!changes_.whole && changes_.paths.size() <= kMostPaths) {
                                std::ranges::move(paths, std::back_inserter(changes_.paths));
                            }
                            if (!debounce_.isActive()) {
                                debounce_.start();
                            }
                        },
                        Qt::QueuedConnection);
                }
            }
            return {};
        },
        [this](Result<void> ended) {
            if (!ended) {
                dir_.clear();
                emit failed(text(ended.error().describe()));
            }
        });
}

} // namespace cachelens::ui
