#include "jobs/tune_process.h"

#include <signal.h>

#include <QProcess>
#include <QTimer>

#include <string_view>

namespace cachelens::ui {

namespace {

// The stderr kept: its end says what went wrong.
constexpr qsizetype kStderrKeptBytes = 16 * 1024;
// Waited for a killed process in the destructor.
constexpr int kReapMs = 2000;

void keepTail(QByteArray& kept, const QByteArray& more) {
    kept.append(more);
    if (kept.size() > kStderrKeptBytes) {
        kept.remove(0, kept.size() - kStderrKeptBytes);
    }
}

std::string_view view(const QByteArray& bytes) {
    return {bytes.constData(), static_cast<std::size_t>(bytes.size())};
}

} // namespace

TuneProcess::TuneProcess(QString catalogPath, QObject* parent)
    : QObject(parent)
    , catalogPath_(std::move(catalogPath))
    , program_(BenchProcesses::findCli())
    , killTimer_(new QTimer(this)) {
    killTimer_->setSingleShot(true);
    connect(killTimer_, &QTimer::timeout, this, [this] {
        if (process_ != nullptr && process_->state() != QProcess::NotRunning) {
            process_->kill();
        }
    });
}

TuneProcess::~TuneProcess() {
    // A tune must not outlive its owner on the GPU, nor report to it.
    if (process_ != nullptr) {
        process_->disconnect(this);
        if (process_->state() != QProcess::NotRunning) {
            process_->kill();
            process_->waitForFinished(kReapMs);
        }
    }
}

QStringList TuneProcess::argumentsOf(const TuneRequest& request) const {
    QStringList arguments{QStringLiteral("tune"), request.dir, request.kernel};
    if (request.plan) {
        arguments << QStringLiteral("--plan");
    }
    arguments << QStringLiteral("--json-lines") << QStringLiteral("--strategy") << request.strategy;
    if (!request.space.isEmpty()) {
        arguments << QStringLiteral("--space") << request.space;
    }
    if (!request.budget.isEmpty()) {
        arguments << QStringLiteral("--budget") << request.budget;
    }
    // A plan compiles nothing: no Python.
    if (!request.plan && !request.python.isEmpty()) {
        arguments << QStringLiteral("--python") << request.python;
    }
    arguments << QStringLiteral("--catalog") << catalogPath_;
    return arguments;
}

void TuneProcess::start(const TuneRequest& request) {
    if (isRunning()) {
        return;
    }
    lastArguments_ = argumentsOf(request);
    reader_.reset();
    stderr_.clear();
    stopping_ = false;
    refused_ = false;

    process_ = new QProcess(this);
    process_->setProgram(program_);
    process_->setArguments(lastArguments_);
    // A GUI started in the background inherits SIGINT ignored, and so would
    // the CLI: stop() could not reach its Ctrl+C handling.
    process_->setChildProcessModifier([] { ::signal(SIGINT, SIG_DFL); });
    connect(process_, &QProcess::readyReadStandardOutput, this, &TuneProcess::readOutput);
    connect(process_, &QProcess::readyReadStandardError, this,
            [this] { keepTail(stderr_, process_->readAllStandardError()); });
    connect(process_, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        finished(exitCode, status == QProcess::CrashExit);
    });
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        // Only a failed start never reaches finished(); the rest end there.
        if (error == QProcess::FailedToStart) {
            failedToStart();
        }
    });
    process_->start();
}

void TuneProcess::stop() {
    if (!isRunning() || stopping_) {
        return;
    }
    stopping_ = true;
    // Never kill(0, ...): that would be this process's whole group.
    if (const qint64 pid = process_->processId(); pid > 0) {
        ::kill(static_cast<pid_t>(pid), SIGINT);
        killTimer_->start(kStopGraceMs);
    } else {
        process_->kill();
    }
}

void TuneProcess::emitItems(std::vector<bench::protocol::StreamItem> items) {
    for (const auto& streamItem : items) {
        emit item(streamItem);
    }
}

void TuneProcess::readOutput() {
    if (process_ == nullptr) {
        return;
    }
    emitItems(reader_.feed(view(process_->readAllStandardOutput())));
    // A program that speaks another protocol is not left running on the GPU.
    if (reader_.incompatible() && !refused_) {
        refused_ = true;
        process_->kill();
    }
}

void TuneProcess::release() {
    process_->disconnect(this);
    process_->deleteLater();
    process_ = nullptr;
}

void TuneProcess::finished(int exitCode, bool crashed) {
    killTimer_->stop();
    readOutput();
    emitItems(reader_.finish());
    keepTail(stderr_, process_->readAllStandardError());
    BenchExit exit;
    exit.crashed = crashed;
    exit.code = exitCode;
    exit.stderrText = QString::fromUtf8(stderr_).trimmed();
    exit.cancelled = stopping_;
    exit.refused = refused_;
    release();
    stopping_ = false;
    emit ended(exit);
}

void TuneProcess::failedToStart() {
    killTimer_->stop();
    BenchExit exit;
    exit.notStarted = process_->errorString();
    exit.cancelled = stopping_;
    release();
    stopping_ = false;
    emit ended(exit);
}

} // namespace cachelens::ui
