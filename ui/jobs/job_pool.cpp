#include "jobs/job_pool.h"

#include <QMetaObject>
#include <QPointer>
#include <QThread>

#include <algorithm>

namespace cachelens::ui {

ProgressFn JobContext::engineProgress(std::function<QString(const Progress&)> describe) const {
    struct State {
        ProgressThrottle throttle{std::chrono::milliseconds(100)};
        std::optional<ProgressStage> stage;
        bool totalKnown = false;
    };
    return [this, describe = std::move(describe),
            state = std::make_shared<State>()](const Progress& report) {
        if (report.stage != state->stage) {
            state->stage = report.stage;
            state->totalKnown = report.total != 0;
        }
        if (state->throttle.due(report)) {
            progress(static_cast<qint64>(report.done),
                     state->totalKnown ? static_cast<qint64>(report.total) : 0, describe(report));
        }
        return !cancelled();
    };
}

JobPool::JobPool(QObject* parent)
    : QObject(parent) {
    // One core stays with the GUI thread.
    threads_.setMaxThreadCount(std::max(2, QThread::idealThreadCount() - 1));
}

JobPool::~JobPool() {
    cancelAll();
    threads_.waitForDone();
}

void JobPool::start(const std::shared_ptr<std::atomic<bool>>& cancel, std::function<void()> work,
                    std::function<void()> finish) {
    ++running_;
    std::erase_if(cancels_, [](const auto& flag) { return flag.expired(); });
    cancels_.push_back(cancel);
    QPointer<JobPool> self(this);
    threads_.start([self, work = std::move(work), finish = std::move(finish)] {
        work();
        QMetaObject::invokeMethod(
            self,
            [self, finish] {
                --self->running_;
                finish();
                if (self && self->running_ == 0) {
                    emit self->idle();
                }
            },
            Qt::QueuedConnection);
    });
}

JobContext::LongRunning::LongRunning(const JobContext& context)
    : threads_(context.threads_) {
    if (threads_ != nullptr) {
        threads_->releaseThread();
    }
}

JobContext::LongRunning::~LongRunning() {
    if (threads_ != nullptr) {
        threads_->reserveThread();
    }
}

void JobPool::cancelAll() {
    for (const auto& weak : cancels_) {
        if (auto flag = weak.lock()) {
            flag->store(true);
        }
    }
}

void JobPool::waitForAll() {
    threads_.waitForDone();
}

} // namespace cachelens::ui
