#include "widgets/job_status_line.h"

#include "jobs/job_tracker.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>

namespace cachelens::ui {

JobStatusLine::JobStatusLine(JobTracker& job, const QString& objectName, QWidget* parent)
    : QWidget(parent)
    , bar_(new QProgressBar(this))
    , text_(new QLabel(this)) {
    bar_->setRange(0, 0); // stages, not fractions: busy, the stage in the text
    bar_->setTextVisible(false);
    bar_->setMaximumWidth(120);
    bar_->hide();
    text_->setObjectName(objectName);
    text_->setTextFormat(Qt::PlainText);
    text_->setWordWrap(true);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(bar_);
    layout->addWidget(text_, 1);
    connect(&job, &JobTracker::progress, this, [this](qint64, qint64, const QString& what) {
        if (busy_ && !what.isEmpty()) {
            text_->setText(what);
        }
    });
}

void JobStatusLine::setBusy(bool busy) {
    busy_ = busy;
    bar_->setVisible(busy);
}

void JobStatusLine::setText(const QString& text) {
    text_->setText(text);
}

QString JobStatusLine::text() const {
    return text_->text();
}

void JobStatusLine::clear() {
    text_->clear();
}

} // namespace cachelens::ui
