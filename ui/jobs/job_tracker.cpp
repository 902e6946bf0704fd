#include "jobs/job_tracker.h"

#include <QMetaObject>

namespace cachelens::ui {

JobTracker::JobTracker(JobPool& pool, QObject* owner)
    : QObject(owner)
    , pool_(pool) {}

JobTracker::~JobTracker() {
    cancel();
}

void JobTracker::start(std::function<void(const JobContext&)> work, std::function<void()> deliver,
                       std::function<void(bool)> ended) {
    if (cancel_) {
        cancel_->store(true); // the older job's result is stale now
    }
    const quint64 generation = ++generation_;
    JobContext context;
    context.threads_ = &pool_.threads_;
    cancel_ = context.cancel_;
    ++running_;
    QPointer<JobTracker> self(this);
    context.report_ = [self, generation](qint64 done, qint64 total, const QString& what) {
        QMetaObject::invokeMethod(
            self,
            [self, generation, done, total, what] {
                if (self && self->generation_ == generation) {
                    emit self->progress(done, total, what);
                }
            },
            Qt::QueuedConnection);
    };
    emit started();
    pool_.start(
        context.cancel_, [work = std::move(work), context] { work(context); },
        [self, generation, context, deliver = std::move(deliver), ended = std::move(ended)] {
            if (!self) {
                return; // its owner is gone, and with it whatever the result was for
            }
            --self->running_;
            const bool delivered = self->generation_ == generation && !context.cancelled();
            if (delivered) {
                deliver();
            }
            if (ended && self) {
                ended(delivered);
            }
            if (self) {
                emit self->finished(delivered);
            }
        });
}

void JobTracker::cancel() {
    if (cancel_) {
        cancel_->store(true);
    }
}

} // namespace cachelens::ui
