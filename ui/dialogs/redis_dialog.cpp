#include "dialogs/redis_dialog.h"

#include "jobs/job_tracker.h"
#include "text/engine_text.h"
#include "widgets/banner.h"
#include "widgets/job_status_line.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace fs = std::filesystem;

RedisDialog::RedisDialog(JobPool& pool, fs::path catalogPath, const QString& url, QWidget* parent)
    : QDialog(parent)
    , job_(new JobTracker(pool, this))
    , catalogPath_(std::move(catalogPath)) {
    setWindowTitle(tr("Add Redis Server"));

    auto* intro = new QLabel(
        tr("PyTorch's remote cache on a Redis server (<tt>TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE=1"
           "</tt>): its entries are mirrored into a dir beside the catalog, laid out as PyTorch "
           "would lay out a remote hit, and browsed read-only as one more root. Nothing on the "
           "server is changed."));
    intro->setWordWrap(true);

    url_ = new QLineEdit(url.isEmpty() ? remote_work::defaultUrl() : url);
    url_->setObjectName(QStringLiteral("redisUrl"));
    url_->setPlaceholderText(QStringLiteral("redis://[user@]host:port/db"));
    url_->setToolTip(tr("redis://[[user]:password@]host[:port][/db][?socket_timeout=5], or "
                        "host:port. The default is PyTorch's: $TORCHINDUCTOR_REDIS_URL, else "
                        "$TORCHINDUCTOR_REDIS_HOST and _PORT (localhost:6379)."));
    password_ = new QLineEdit(url.isEmpty() ? remote_work::defaultPassword() : QString());
    password_->setObjectName(QStringLiteral("redisPassword"));
    password_->setEchoMode(QLineEdit::Password);
    password_->setClearButtonEnabled(true);
    password_->setPlaceholderText(tr("none, or the URL's"));
    password_->setToolTip(tr("Kept for this session only: the mirror records the URL without it."));
    auto* urlLabel = new QLabel(tr("&URL:"));
    urlLabel->setBuddy(url_);
    auto* passwordLabel = new QLabel(tr("&Password:"));
    passwordLabel->setBuddy(password_);
    auto* form = new QFormLayout;
    form->addRow(urlLabel, url_);
    form->addRow(passwordLabel, password_);

    error_ = makeBanner(QStringLiteral("redisError"), BannerTone::Error);

    progressText_ = new JobStatusLine(*job_, QStringLiteral("redisProgress"));

    connect_ = new QPushButton(tr("&Connect"));
    connect_->setDefault(true);
    connect_->setToolTip(tr("Connect, mirror the server's entries and show them as a root"));
    auto* buttons = new QDialogButtonBox;
    buttons->addButton(connect_, QDialogButtonBox::AcceptRole);
    close_ = buttons->addButton(QDialogButtonBox::Cancel);
    connect(connect_, &QPushButton::clicked, this, &RedisDialog::connectNow);
    connect(close_, &QPushButton::clicked, this, [this] {
        if (busy_) {
            cancel();
        } else {
            reject();
        }
    });
    connect(url_, &QLineEdit::textEdited, this, [this] { showError({}); });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(error_);
    layout->addWidget(progressText_);
    layout->addStretch(1);
    layout->addWidget(buttons);
    resize(620, 260);
}

RedisDialog::~RedisDialog() {
    if (busy_) {
        job_->cancel();
    }
}

void RedisDialog::setUrl(const QString& url) {
    url_->setText(url);
    showError({});
}

void RedisDialog::setPassword(const QString& password) {
    password_->setText(password);
}

QString RedisDialog::url() const {
    return url_->text().trimmed();
}

QString RedisDialog::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

QString RedisDialog::progressText() const {
    return progressText_->text();
}

void RedisDialog::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
}

void RedisDialog::setBusy(bool busy) {
    busy_ = busy;
    url_->setEnabled(!busy);
    password_->setEnabled(!busy);
    connect_->setEnabled(!busy);
    progressText_->setBusy(busy);
    close_->setText(busy ? tr("Stop") : tr("Cancel"));
}

void RedisDialog::cancel() {
    if (!busy_) {
        return;
    }
    job_->cancel();
    setBusy(false);
    progressText_->setText(tr("Stopped: nothing was added."));
}

void RedisDialog::connectNow() {
    if (busy_) {
        return;
    }
    auto parsed = remote_work::parseEndpoint(url_->text(), password_->text());
    if (!parsed) {
        const QString error = text(parsed.error().describe());
        showError(error);
        emit failed(error);
        return;
    }
    showError({});
    const remote::RedisEndpoint endpoint = *parsed;
    const QString server = text(endpoint.display());
    progressText_->setText(
        remote_work::progressText(remote_work::MirrorStage::Connecting, 0, server));
    setBusy(true);
    const fs::path catalogPath = catalogPath_;
    job_->run<Result<remote_work::MirrorOutcome>>(
        [endpoint, catalogPath, server](const JobContext& context) {
            return remote_work::mirrorServer(endpoint, catalogPath,
                                             remote_work::jobProgress(context, server));
        },
        [this, endpoint, server](Result<remote_work::MirrorOutcome> result) {
            setBusy(false);
            if (!result) {
                progressText_->clear();
                showError(tr("Cannot add the server: %1")
                              .arg(remote_work::mirrorErrorText(result.error(), server)));
                emit statusMessage(errorText());
                emit failed(text(result.error().describe()));
                return;
            }
            endpoint_ = endpoint;
            outcome_ = std::move(*result);
            progressText_->setText(outcome_.summary());
            emit statusMessage(outcome_.summary());
            emit mirrored(QString::fromStdString(outcome_.root.string()));
            accept();
        });
}

} // namespace cachelens::ui
