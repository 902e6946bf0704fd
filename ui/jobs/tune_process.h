#pragma once

// The Tune dialog's child process: `cachelens tune DIR KERNEL --json-lines`
// (a search timed on the GPU) or the same with --plan (what it would try, no
// GPU), read as it arrives with the engine's protocol reader
// (bench/bench_protocol.h): every record, line the reader could not read and
// refusal of another protocol version is an item(). As BenchProcesses does
// for a bench run, it keeps the tail of stderr, kills a program that speaks
// another protocol, and kills whatever still runs when it is destroyed,
// without reporting it. A stop is the CLI's Ctrl+C (SIGINT, whatever the
// GUI was started with): `cachelens tune` then ends the search, records what
// it measured and answers with it ("stopped"), where SIGTERM would kill it
// with nothing recorded; SIGKILL follows if it has not ended in
// kStopGraceMs. No widgets: TuneDialog shows what its signals carry.

#include "jobs/bench_processes.h"

#include <cachelens/bench/bench_protocol.h>

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

class QProcess;
class QTimer;

namespace cachelens::ui {

// What to tune, and how: the CLI's arguments.
struct TuneRequest {
    QString dir;
    QString kernel;                                // a kernel name or a module key
    QString strategy = QStringLiteral("coordesc"); // coordesc, grid, random
    QString space;                                 // --space; empty: none
    QString budget;                                // --budget; empty: the CLI's default
    QString python;                                // --python; empty, or with plan: none
    bool plan = false;                             // --plan: list the configs, time nothing
};

class TuneProcess : public QObject {
    Q_OBJECT

public:
    // `catalogPath`: where the tune is recorded (--catalog).
    explicit TuneProcess(QString catalogPath, QObject* parent = nullptr);
    ~TuneProcess() override;

    // The `cachelens` binary to run; BenchProcesses::findCli() by default.
    void setProgram(const QString& program) { program_ = program; }
    const QString& program() const { return program_; }

    // The command line of `request`, after the program.
    QStringList argumentsOf(const TuneRequest& request) const;

    // Runs `request`: item() per record or unreadable line, then ended().
    // Ignored while one is under way.
    void start(const TuneRequest& request);
    // Asks it to stop (SIGINT: the CLI ends the search and answers with
    // what it measured) and kills it kStopGraceMs later if it has not ended.
    void stop();
    // Long enough for the CLI to stop its compile server, record the run and answer.
    static constexpr int kStopGraceMs = 10'000;
    bool isRunning() const { return process_ != nullptr; }
    bool isStopping() const { return stopping_; }
    // The arguments of the last start().
    const QStringList& lastArguments() const { return lastArguments_; }

signals:
    // A record, a line that is not one, or (once, then nothing) a stream of
    // another protocol version or program.
    void item(const cachelens::bench::protocol::StreamItem& item);
    // It ended (after its last item) or could not be started; isRunning() is
    // false by now.
    void ended(const cachelens::ui::BenchExit& exit);

private:
    void readOutput();
    void finished(int exitCode, bool crashed);
    void failedToStart();
    void emitItems(std::vector<bench::protocol::StreamItem> items);
    void release();

    QString catalogPath_;
    QString program_;
    QProcess* process_ = nullptr;
    QTimer* killTimer_ = nullptr;
    bench::protocol::StreamReader reader_;
    QByteArray stderr_;
    bool stopping_ = false;
    bool refused_ = false; // it spoke another protocol: killed
    QStringList lastArguments_;
};

} // namespace cachelens::ui
