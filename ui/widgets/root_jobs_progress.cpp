#include "widgets/root_jobs_progress.h"

#include "jobs/root_jobs.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QPushButton>

namespace cachelens::ui {

RootJobsProgress::RootJobsProgress(RootJobs& roots, QWidget* parent)
    : QWidget(parent)
    , bar_(new QProgressBar)
    , cancel_(new QPushButton(tr("Cancel"))) {
    bar_->setMaximumWidth(220);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(bar_);
    layout->addWidget(cancel_);
    hide();
    connect(cancel_, &QPushButton::clicked, &roots, &RootJobs::cancel);
    connect(&roots, &RootJobs::busyChanged, this, [this](bool busy) {
        bar_->setRange(0, 0);
        setVisible(busy);
    });
    connect(&roots, &RootJobs::progress, this, [this](qint64 done, qint64 total) {
        bar_->setRange(0, static_cast<int>(total)); // 0: busy
        bar_->setValue(static_cast<int>(done));
    });
}

} // namespace cachelens::ui
