#pragma once

// The Benchmarks page's child processes: `cachelens bench --json-lines` (a
// run, its output parsed into BenchEvents as it arrives), `bench --plan` (a
// listing, replaced by the next one) and `bench accept`. The CUDA work stays
// out of the GUI process: a driver fault cannot take the window down, and a
// run can always be killed. It builds their command lines, keeps the tail of
// a run's stderr, stops a cancelled run (SIGTERM, then SIGKILL 2 s later) and
// kills whatever still runs when it is destroyed, without reporting it. No
// widgets: BenchPage shows what its signals carry.

#include "data/bench_run_parser.h"

#include <cachelens/core/error.h>

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

class QProcess;
class QTimer;

namespace cachelens::ui {

// How a child process ended.
struct BenchExit {
    // Why it could not be started (QProcess::errorString()); empty: it started.
    QString notStarted;
    bool crashed = false;
    int code = 0;
    // Asked to stop (BenchProcesses::cancelRun()) before it ended.
    bool cancelled = false;
    // Killed because its output was not of this protocol version (a
    // BenchIncompatible event said why).
    bool refused = false;
    // Its stderr, trimmed; of a run, the last 16 KiB (its end says what went wrong).
    QString stderrText;

    bool started() const { return notStarted.isEmpty(); }
    bool succeeded() const { return started() && !crashed && code == 0; }
};

// A `bench --plan` listing that ended.
struct BenchPlanListing {
    QString dir; // the cache dir it listed
    BenchExit exit;
    std::vector<BenchEvent> events; // of every line it printed, in order
};

// A `bench accept` that ended.
struct BenchAcceptEnd {
    BenchExit exit;
    QString output; // its stdout, trimmed
    // Only when exit.succeeded(): what it rewrote, or why its output says nothing.
    std::optional<Result<BenchAcceptOutcome>> outcome;
    // When it refused (exit code 2), its refusal as the CLI typed it: whether
    // --force would write is `refusal->refusal`, never read from the words.
    std::optional<BenchErrorEvent> refusal;
    // Its output was of another protocol version or program: why.
    QString incompatible;
};

class BenchProcesses : public QObject {
    Q_OBJECT

public:
    // `catalogPath`: where runs are recorded and history is read (--catalog).
    explicit BenchProcesses(QString catalogPath, QObject* parent = nullptr);
    ~BenchProcesses() override;

    // The `cachelens` binary to run; findCli() by default.
    void setProgram(const QString& program) { program_ = program; }
    const QString& program() const { return program_; }
    // Beside this executable (installed), then the build tree's app/cli, then $PATH.
    static QString findCli();

    // Times `kernels` (names or module keys; every kernel when empty) of
    // `dir`, the current best config of each or, with `allConfigs`, every
    // compiled one: runEvent() per line, then runEnded(). Ignored while a
    // run is under way.
    void startRun(const QString& dir, const QStringList& kernels, bool allConfigs);
    // Asks the run to stop (SIGTERM) and kills it 2 s later if it has not.
    void cancelRun();
    bool isRunning() const { return run_ != nullptr; }
    // cancelRun() was called and the run has not ended yet.
    bool isCancelling() const { return cancelling_; }

    // Lists the launch plans of `kernels` in `dir` (every config; no GPU
    // needed): plansListed() once it ends. Replaces a listing under way,
    // which then never reports.
    void listPlans(const QString& dir, const QStringList& kernels);
    // Kills the listing under way, without waiting and without a report.
    void stopPlans();
    bool isPlanning() const { return plan_ != nullptr; }

    // Makes `tritonHash`'s config the best config of `kernel` (its module
    // key, or its name) in `dir`: acceptEnded(). Ignored while one is under way.
    // `force`: without the side-by-side confirmation and the check that
    // PyTorch would launch it as written (bench accept --force).
    void accept(const QString& kernel, const QString& tritonHash, const QString& dir,
                bool force = false);
    bool isAccepting() const { return accept_ != nullptr; }

    // The arguments of the last run and of the last plan listing.
    const QStringList& lastRunArguments() const { return lastRunArguments_; }
    const QStringList& lastPlanArguments() const { return lastPlanArguments_; }

signals:
    // A line of the run's output (a line that is not JSON is a BenchBadLine).
    void runEvent(const cachelens::ui::BenchEvent& event);
    // The run ended (after its last runEvent) or could not be started;
    // isRunning() is false by now.
    void runEnded(const cachelens::ui::BenchExit& exit);
    void plansListed(const cachelens::ui::BenchPlanListing& listing);
    void acceptEnded(const cachelens::ui::BenchAcceptEnd& end);

private:
    QProcess* startProcess(const QStringList& arguments);
    void readRunOutput();
    void runFinished(int exitCode, bool crashed);
    void runFailedToStart();
    void planFinished(int exitCode, bool crashed);
    void planFailedToStart();
    void acceptFinished(int exitCode, bool crashed);
    void acceptFailedToStart();
    // Disconnects `process` from this object and deletes it once control
    // returns to the event loop.
    void release(QProcess*& process);

    QString catalogPath_;
    QString program_;

    QProcess* run_ = nullptr;
    QTimer* killTimer_ = nullptr;
    BenchRunParser parser_;
    QByteArray runStderr_;
    bool cancelling_ = false;
    bool refused_ = false; // the run spoke another protocol: killed
    QStringList lastRunArguments_;

    QProcess* plan_ = nullptr;
    QString planDir_;
    QStringList lastPlanArguments_;

    QProcess* accept_ = nullptr;
};

} // namespace cachelens::ui
