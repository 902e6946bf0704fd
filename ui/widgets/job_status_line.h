#pragma once

// A dialog's status line: a busy bar while its job runs and one line of text
// beside it, which follows each stage its job reports and
// then says what the job did.

#include <QString>
#include <QWidget>

class QLabel;
class QProgressBar;

namespace cachelens::ui {

class JobTracker;

class JobStatusLine : public QWidget {
    Q_OBJECT

public:
    // The text label is named `objectName` (for tests and style sheets).
    JobStatusLine(JobTracker& job, const QString& objectName, QWidget* parent = nullptr);

    // Busy: the bar shows, and the job's progress texts replace the text.
    void setBusy(bool busy);
    bool isBusy() const { return busy_; }
    void setText(const QString& text);
    QString text() const;
    void clear();

private:
    QProgressBar* bar_;
    QLabel* text_;
    bool busy_ = false;
};

} // namespace cachelens::ui
