#include "jobs/bench_processes.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>

namespace cachelens::ui {

namespace {

// The stderr kept of a run: its end says what went wrong.
constexpr qsizetype kStderrKeptBytes = 16 * 1024;
constexpr int kKillAfterMs = 2000;

void keepTail(QByteArray& kept, const QByteArray& more) {
    kept.append(more);
    if (kept.size() > kStderrKeptBytes) {
        kept.remove(0, kept.size() - kStderrKeptBytes);
    }
}

BenchExit exitOf(int exitCode, bool crashed, const QByteArray& stderrBytes) {
    BenchExit exit;
    exit.crashed = crashed;
    exit.code = exitCode;
    exit.stderrText = QString::fromUtf8(stderrBytes).trimmed();
    return exit;
}

BenchExit notStarted(const QProcess& process) {
    BenchExit exit;
    exit.notStarted = process.errorString();
    return exit;
}

} // namespace

BenchProcesses::BenchProcesses(QString catalogPath, QObject* parent)
    : QObject(parent)
    , catalogPath_(std::move(catalogPath))
    , program_(findCli())
    , killTimer_(new QTimer(this)) {
    killTimer_->setSingleShot(true);
    connect(killTimer_, &QTimer::timeout, this, [this] {
        if (run_ != nullptr && run_->state() != QProcess::NotRunning) {
            run_->kill();
        }
    });
}

BenchProcesses::~BenchProcesses() {
    // A run, an accept or a plan listing must not outlive its owner, nor report to it.
    for (QProcess* process : {run_, accept_, plan_}) {
        if (process != nullptr) {
            process->disconnect(this);
            if (process->state() != QProcess::NotRunning) {
                process->kill();
                process->waitForFinished(kKillAfterMs);
            }
        }
    }
}

QString BenchProcesses::findCli() {
    const QString dir = QCoreApplication::applicationDirPath();
    for (const QString& candidate :
         {dir + QStringLiteral("/cachelens"), dir + QStringLiteral("/../cli/cachelens")}) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable()) {
            return info.canonicalFilePath();
        }
    }
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("cachelens"));
    // Not found anywhere: starting it fails and the owner says so.
    return onPath.isEmpty() ? QStringLiteral("cachelens") : onPath;
}

QProcess* BenchProcesses::startProcess(const QStringList& arguments) {
    auto* process = new QProcess(this);
    process->setProgram(program_);
    process->setArguments(arguments);
    return process;
}

void BenchProcesses::release(QProcess*& process) {
    process->disconnect(this);
    process->deleteLater();
    process = nullptr;
}

void BenchProcesses::startRun(const QString& dir, const QStringList& kernels, bool allConfigs) {
    if (isRunning()) {
        return;
    }
    QStringList arguments{QStringLiteral("bench"), dir};
    arguments << kernels;
    if (allConfigs) {
        arguments << QStringLiteral("--all-configs");
    }
    arguments << QStringLiteral("--json-lines") << QStringLiteral("--catalog") << catalogPath_;
    lastRunArguments_ = arguments;
    parser_.reset();
    runStderr_.clear();
    cancelling_ = false;
    refused_ = false;

    run_ = startProcess(arguments);
    connect(run_, &QProcess::readyReadStandardOutput, this, &BenchProcesses::readRunOutput);
    connect(run_, &QProcess::readyReadStandardError, this,
            [this] { keepTail(runStderr_, run_->readAllStandardError()); });
    connect(run_, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        runFinished(exitCode, status == QProcess::CrashExit);
    });
    connect(run_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        // Only a failed start never reaches finished(); the rest end there.
        if (error == QProcess::FailedToStart) {
            runFailedToStart();
        }
    });
    run_->start();
}

void BenchProcesses::cancelRun() {
    if (!isRunning() || cancelling_) {
        return;
    }
    cancelling_ = true;
    run_->terminate();
    killTimer_->start(kKillAfterMs);
}

void BenchProcesses::readRunOutput() {
    if (run_ == nullptr) {
        return;
    }
    for (const auto& event : parser_.feed(run_->readAllStandardOutput())) {
        emit runEvent(event);
    }
    // A program that speaks another protocol is not left running on the GPU.
    if (parser_.incompatible() && !refused_) {
        refused_ = true;
        run_->kill();
    }
}

void BenchProcesses::runFinished(int exitCode, bool crashed) {
    killTimer_->stop();
    readRunOutput();
    for (const auto& event : parser_.finish()) {
        emit runEvent(event);
    }
    keepTail(runStderr_, run_->readAllStandardError());
    BenchExit exit = exitOf(exitCode, crashed, runStderr_);
    exit.cancelled = cancelling_;
    exit.refused = refused_;
    release(run_);
    cancelling_ = false;
    emit runEnded(exit);
}

void BenchProcesses::runFailedToStart() {
    killTimer_->stop();
    BenchExit exit = notStarted(*run_);
    exit.cancelled = cancelling_;
    release(run_);
    cancelling_ = false;
    emit runEnded(exit);
}

void BenchProcesses::listPlans(const QString& dir, const QStringList& kernels) {
    stopPlans();
    lastPlanArguments_ = QStringList{QStringLiteral("bench"), dir} + kernels +
                         QStringList{QStringLiteral("--plan"), QStringLiteral("--json-lines"),
                                     QStringLiteral("--catalog"), catalogPath_};
    planDir_ = dir;
    plan_ = startProcess(lastPlanArguments_);
    connect(plan_, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        planFinished(exitCode, status == QProcess::CrashExit);
    });
    connect(plan_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            planFailedToStart();
        }
    });
    plan_->start();
}

void BenchProcesses::stopPlans() {
    if (plan_ == nullptr) {
        return;
    }
    // Killed without waiting for it: it deletes itself once it has ended.
    QProcess* process = plan_;
    plan_ = nullptr;
    process->disconnect(this);
    connect(process, &QProcess::finished, process, &QObject::deleteLater);
    connect(process, &QProcess::errorOccurred, process, [process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            process->deleteLater();
        }
    });
    process->kill();
}

void BenchProcesses::planFinished(int exitCode, bool crashed) {
    BenchPlanListing listing;
    listing.dir = planDir_;
    BenchRunParser parser;
    listing.events = parser.feed(plan_->readAllStandardOutput());
    for (auto& event : parser.finish()) {
        listing.events.push_back(std::move(event));
    }
    listing.exit = exitOf(exitCode, crashed, plan_->readAllStandardError());
    release(plan_);
    emit plansListed(listing);
}

void BenchProcesses::planFailedToStart() {
    BenchPlanListing listing;
    listing.dir = planDir_;
    listing.exit = notStarted(*plan_);
    release(plan_);
    emit plansListed(listing);
}

void BenchProcesses::accept(const QString& kernel, const QString& tritonHash, const QString& dir,
                            bool force) {
    if (isAccepting()) {
        return;
    }
    QStringList arguments{QStringLiteral("bench"),
                          QStringLiteral("accept"),
                          kernel,
                          tritonHash,
                          QStringLiteral("--dir"),
                          dir,
                          QStringLiteral("--catalog"),
                          catalogPath_,
                          QStringLiteral("--json")};
    if (force) {
        arguments << QStringLiteral("--force");
    }
    accept_ = startProcess(arguments);
    connect(accept_, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        acceptFinished(exitCode, status == QProcess::CrashExit);
    });
    connect(accept_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            acceptFailedToStart();
        }
    });
    accept_->start();
}

void BenchProcesses::acceptFinished(int exitCode, bool crashed) {
    const QByteArray output = accept_->readAllStandardOutput();
    BenchAcceptEnd end;
    end.exit = exitOf(exitCode, crashed, accept_->readAllStandardError());
    end.output = QString::fromUtf8(output).trimmed();
    if (end.exit.started() && !end.exit.crashed) {
        BenchErrorEvent refusal;
        auto outcome = parseAcceptOutput(output, &refusal);
        if (!outcome && !refusal.message.isEmpty()) {
            end.refusal = std::move(refusal);
        } else if (!outcome && outcome.error().kind == ErrorKind::Unsupported) {
            end.incompatible = QString::fromStdString(outcome.error().message);
        }
        if (end.exit.succeeded()) {
            end.outcome = std::move(outcome);
        }
    }
    release(accept_);
    emit acceptEnded(end);
}

void BenchProcesses::acceptFailedToStart() {
    BenchAcceptEnd end;
    end.exit = notStarted(*accept_);
    release(accept_);
    emit acceptEnded(end);
}

} // namespace cachelens::ui
