#pragma once

// The one way the GUI runs long work: off the GUI thread, with progress and
// cancel, and a generation counter per channel so that only the newest job's
// result is delivered (an older search finishing late is dropped, like
// hotspot's JobTracker). Work must not touch widgets; `done` runs on the GUI
// thread.

#include "jobs/job_pool.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace cachelens::ui {

class JobRunner : public QObject {
    Q_OBJECT

public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;

    // Runs `work` on the pool; `done(result)` runs on the GUI thread if no
    // newer job was started on `channel` meanwhile and the job was not
    // cancelled. Then `ended(delivered)`, when given, runs on the GUI thread
    // for this job and no other, whether it was delivered, cancelled or
    // superseded: the tidying up a job needs either way (a progress bar, a
    // count of jobs waited for). `receiver` guards both: nothing runs once it
    // is gone.
    template <class T>
    void run(const QString& channel, QObject* receiver, std::function<T(const JobContext&)> work,
             std::function<void(T)> done, std::function<void(bool delivered)> ended = {}) {
        auto result = std::make_shared<std::optional<T>>();
        start(
            channel, receiver,
            [work = std::move(work), result](const JobContext& context) {
                result->emplace(work(context));
            },
            [done = std::move(done), result] { done(std::move(**result)); }, std::move(ended));
    }

    // Asks the channel's running job to stop; its result will not be delivered.
    void cancel(const QString& channel);
    void cancelAll();
    bool isRunning(const QString& channel) const;
    // No job running on any channel.
    bool isIdle() const;
    // Blocks until every job has finished (tests, shutdown).
    void waitForAll();

signals:
    void started(const QString& channel);
    void progress(const QString& channel, qint64 done, qint64 total, const QString& what);
    // After `done` and `ended` ran, or when a job was cancelled or superseded.
    // Any job's: a caller waiting for its own job passes `ended` to run().
    void finished(const QString& channel, bool delivered);

private:
    void start(const QString& channel, QObject* receiver,
               std::function<void(const JobContext&)> work, std::function<void()> deliver,
               std::function<void(bool)> ended);

    struct Channel {
        quint64 generation = 0;
        std::shared_ptr<std::atomic<bool>> cancel;
        int running = 0;
    };
    std::map<QString, Channel> channels_;
    QThreadPool pool_;
};

} // namespace cachelens::ui
