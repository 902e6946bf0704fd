#include "job_runner.h"

#include <QMetaObject>
#include <QRunnable>

#include <algorithm>

namespace cachelens::ui {

JobRunner::JobRunner(QObject* parent)
    : QObject(parent) {
    // One core stays with the GUI thread.
    pool_.setMaxThreadCount(std::max(2, QThread::idealThreadCount() - 1));
}

JobRunner::~JobRunner() {
    cancelAll();
    pool_.waitForDone();
}

void JobRunner::start(const QString& channel, QObject* receiver,
                      std::function<void(const JobContext&)> work, std::function<void()> deliver,
                      std::function<void(bool)> ended) {
    Channel& state = channels_[channel];
    if (state.cancel) {
        state.cancel->store(true); // the older job's result is stale now
    }
    const quint64 generation = ++state.generation;
    JobContext context;
    state.cancel = context.cancel_;
    ++state.running;
    QPointer<JobRunner> self(this);
    context.report_ = [self, channel](qint64 done, qint64 total, const QString& what) {
        QMetaObject::invokeMethod(
            self,
            [self, channel, done, total, what] {
                if (self) {
                    emit self->progress(channel, done, total, what);
                }
            },
            Qt::QueuedConnection);
    };
    QPointer<QObject> guard(receiver);
    emit started(channel);
    pool_.start([this, self, channel, generation, context, guard, work = std::move(work),
                 deliver = std::move(deliver), ended = std::move(ended)] {
        work(context);
        QMetaObject::invokeMethod(
            self,
            [this, channel, generation, context, guard, deliver, ended] {
                Channel& current = channels_[channel];
                --current.running;
                const bool fresh = current.generation == generation && !context.cancelled();
                const bool delivered = fresh && guard;
                if (delivered) {
                    deliver();
                }
                if (ended && guard) {
                    ended(delivered);
                }
                emit finished(channel, delivered);
            },
            Qt::QueuedConnection);
    });
}

void JobRunner::cancel(const QString& channel) {
    auto it = channels_.find(channel);
    if (it != channels_.end() && it->second.cancel) {
        it->second.cancel->store(true);
    }
}

void JobRunner::cancelAll() {
    for (auto& [name, channel] : channels_) {
        if (channel.cancel) {
            channel.cancel->store(true);
        }
    }
}

bool JobRunner::isRunning(const QString& channel) const {
    auto it = channels_.find(channel);
    return it != channels_.end() && it->second.running > 0;
}

bool JobRunner::isIdle() const {
    return std::ranges::all_of(channels_,
                               [](const auto& channel) { return channel.second.running == 0; });
}

void JobRunner::waitForAll() {
    pool_.waitForDone();
}

} // namespace cachelens::ui
