#pragma once

// The GUI's one pool of worker threads, and what a job running on it sees.
// Work is started through a JobTracker (jobs/job_tracker.h), one per purpose
// (hotspot's JobTracker); the pool only runs it and knows whether any job is
// still running. Work must not touch widgets.

#include <cachelens/core/progress.h>

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace cachelens::ui {

// What a running job sees: whether it should stop, and how to say how far it is.
class JobContext {
public:
    // Its tracker cancelled it, started a newer job, or is gone; or the pool shuts down.
    bool cancelled() const { return cancel_->load(); }
    const std::atomic<bool>* cancelFlag() const { return cancel_.get(); }
    // Thread-safe; delivered on the GUI thread as JobTracker::progress.
    void progress(qint64 done, qint64 total, const QString& what = {}) const {
        if (report_) {
            report_(done, total, what);
        }
    }
    // The engine's progress (core/progress.h) of this job's work, worded by
    // `describe`, as progress(done, total, text): throttled to what a person
    // can read (each stage's first and last report always). A stage whose
    // total is not known while it runs reports total 0 (a busy bar) to its
    // end. The work stops once the job is cancelled.
    ProgressFn engineProgress(std::function<QString(const Progress&)> describe) const;

    // Held by a job that runs until it is stopped (a watch): while it lives,
    // the job's thread does not count against the pool's size, so the jobs
    // started meanwhile do not wait behind it (QThreadPool::releaseThread).
    class LongRunning {
    public:
        explicit LongRunning(const JobContext& context);
        ~LongRunning();
        LongRunning(const LongRunning&) = delete;
        LongRunning& operator=(const LongRunning&) = delete;

    private:
        QThreadPool* threads_;
    };

private:
    friend class JobTracker;
    std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
    QThreadPool* threads_ = nullptr;
    std::function<void(qint64, qint64, const QString&)> report_;
};

class JobPool : public QObject {
    Q_OBJECT

public:
    explicit JobPool(QObject* parent = nullptr);
    // Cancels every job and waits for the work to return.
    ~JobPool() override;

    // No job running, or waiting to be delivered.
    bool isIdle() const { return running_ == 0; }
    // Asks every job to stop; none is delivered.
    void cancelAll();
    // Blocks until every job's work has returned (tests, shutdown).
    void waitForAll();

signals:
    // The last running job ended, delivered or not. Whose job it was is not
    // said: a caller waits for its own job with its tracker.
    void idle();

private:
    friend class JobTracker;
    // Runs `work` on a worker thread, then `finish` on the GUI thread.
    void start(const std::shared_ptr<std::atomic<bool>>& cancel, std::function<void()> work,
               std::function<void()> finish);

    QThreadPool threads_;
    int running_ = 0;
    std::vector<std::weak_ptr<std::atomic<bool>>> cancels_; // of the jobs running
};

} // namespace cachelens::ui
