#pragma once

// Add Redis Server: the URL of a server holding PyTorch's remote cache
// (PyTorch's own by default: TORCHINDUCTOR_REDIS_URL, else _HOST / _PORT)
// and a password. Connect connects, scans and mirrors the server in a job
// (jobs/remote_work.h), with progress and Cancel while it scans; an error
// (refused, authentication failed, timed out, a URL that does not parse)
// stays in the dialog with the engine's words. Once mirrored, `mirrored`
// says where and the dialog closes: the window indexes and shows the root.

#include "jobs/remote_work.h"

#include <cachelens/remote/redis_endpoint.h>

#include <QDialog>
#include <QString>

#include <filesystem>
#include <optional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace cachelens::ui {

class JobPool;
class JobTracker;
class JobStatusLine;

class RedisDialog : public QDialog {
    Q_OBJECT

public:
    // `url` empty: PyTorch's server, from the environment.
    RedisDialog(JobPool& pool, std::filesystem::path catalogPath, const QString& url = {},
                QWidget* parent = nullptr);
    ~RedisDialog() override;

    void setUrl(const QString& url);
    // Replaces the URL's password when not empty.
    void setPassword(const QString& password);
    QString url() const;
    // Starts connecting and mirroring in the background.
    void connectNow();
    // Stops a scan under way; nothing is added.
    void cancel();

    bool isBusy() const { return busy_; }
    QString errorText() const;
    QString progressText() const;
    // The server connected to (with its password) and what mirroring did:
    // valid once `mirrored` was emitted.
    const std::optional<remote::RedisEndpoint>& endpoint() const { return endpoint_; }
    const remote_work::MirrorOutcome& outcome() const { return outcome_; }

signals:
    // The server is mirrored into `root`; the dialog closes right after.
    void mirrored(const QString& root);
    // Connecting or mirroring failed; the dialog shows `error`.
    void failed(const QString& error);
    void statusMessage(const QString& message);

private:
    void setBusy(bool busy);
    void showError(const QString& message);

    JobTracker* job_;
    std::filesystem::path catalogPath_;
    bool busy_ = false;
    std::optional<remote::RedisEndpoint> endpoint_;
    remote_work::MirrorOutcome outcome_;

    QLineEdit* url_ = nullptr;
    QLineEdit* password_ = nullptr;
    QLabel* error_ = nullptr;
    JobStatusLine* progressText_ = nullptr;
    QPushButton* connect_ = nullptr;
    QPushButton* close_ = nullptr;
};

} // namespace cachelens::ui
