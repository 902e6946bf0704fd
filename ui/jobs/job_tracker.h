#pragma once

// One purpose's background work (hotspot's JobTracker): the selected
// entry's loading, a dialog's plan, a root's indexing. Starting a job
// supersedes the one before (its work is told to stop and its result is
// dropped), so only the newest result is delivered; nothing is delivered
// once the tracker's owner is gone. A result is whatever the work returns,
// usually a Result<T> turned into text only where it is shown.

#include "jobs/job_pool.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>
#include <optional>

namespace cachelens::ui {

class JobTracker : public QObject {
    Q_OBJECT

public:
    // A child of `owner`: it goes with it, and its jobs' results with it.
    JobTracker(JobPool& pool, QObject* owner);
    // Cancels the job running.
    ~JobTracker() override;

    // Runs `work` on the pool; `done(result)` runs on the GUI thread unless a
    // newer job was started meanwhile or this one was cancelled. Then
    // `ended(delivered)`, when given, runs on the GUI thread for this job,
    // however it ended: the tidying up a job needs either way.
    template <class T>
    void run(std::function<T(const JobContext&)> work, std::function<void(T)> done,
             std::function<void(bool delivered)> ended = {}) {
        auto result = std::make_shared<std::optional<T>>();
        start([work = std::move(work),
               result](const JobContext& context) { result->emplace(work(context)); },
              [done = std::move(done), result] { done(std::move(**result)); }, std::move(ended));
    }

    // Asks the running job to stop; its result will not be delivered.
    void cancel();
    bool isRunning() const { return running_ > 0; }
    JobPool& pool() const { return pool_; }

signals:
    void started();
    // Of the newest job, on the GUI thread.
    void progress(qint64 done, qint64 total, const QString& what);
    // This tracker's job ended, after its `done` and `ended`.
    void finished(bool delivered);

private:
    void start(std::function<void(const JobContext&)> work, std::function<void()> deliver,
               std::function<void(bool)> ended);

    JobPool& pool_;
    quint64 generation_ = 0;
    std::shared_ptr<std::atomic<bool>> cancel_; // the newest job's
    int running_ = 0;
};

} // namespace cachelens::ui
