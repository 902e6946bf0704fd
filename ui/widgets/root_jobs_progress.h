#pragma once

// The status bar's progress of the root jobs (jobs/root_jobs.h): a bar while
// a cache dir is indexed or a Redis server mirrored, and Cancel to stop them.

#include <QWidget>

class QProgressBar;
class QPushButton;

namespace cachelens::ui {

class RootJobs;

class RootJobsProgress : public QWidget {
    Q_OBJECT

public:
    explicit RootJobsProgress(RootJobs& roots, QWidget* parent = nullptr);

private:
    QProgressBar* bar_;
    QPushButton* cancel_;
};

} // namespace cachelens::ui
