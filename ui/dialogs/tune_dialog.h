#pragma once

// Tune: explores new Triton configs of one kernel with `cachelens tune`, run
// as a child process by TuneProcess (jobs/tune_process.h), opened from the
// Benchmarks page for its selected kernel. The strategy (coordinate descent
// from the current best, a grid or a random sample of a space), the space,
// the budget and the Python that compiles the new configs are the CLI's
// options. Plan lists what would be tried (no GPU, no Python); Start runs
// the search, with progress and a row per config tried as it is timed
// (TuneResultsModel); Stop ends it (the CLI answers with what it measured).
// The answer, the first line the CLI prints, or the CLI's error in its own
// words, is at the top. Closing the dialog stops a tune under way.

#include "jobs/tune_process.h"

#include <cachelens/bench/bench_protocol.h>

#include <QDialog>
#include <QString>
#include <QStringList>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;

namespace cachelens::ui {

class TuneResultsModel;

class TuneDialog : public QDialog {
    Q_OBJECT

public:
    // `catalogPath`: where tunes are recorded (--catalog).
    explicit TuneDialog(QString catalogPath, QWidget* parent = nullptr);
    ~TuneDialog() override;

    // The kernel to tune, a kernel name or a module key, in `dir`; `name`
    // is how the dialog names it. Ignored while a tune is under way.
    void setTarget(const QString& dir, const QString& kernel, const QString& name);
    const QString& dir() const { return dir_; }
    const QString& kernel() const { return kernel_; }
    // The `cachelens` binary to run (the Benchmarks page's); a refused one
    // is tried again.
    void setProgram(const QString& program);
    const QString& program() const { return process_->program(); }

    // `cachelens tune --plan`: the configs the search would try.
    void plan();
    // `cachelens tune`: the search, timed on the GPU.
    void start();
    // Asks the tune to stop (the CLI's Ctrl+C: it answers with what it
    // measured), kills it if it has not ended TuneProcess::kStopGraceMs later.
    void stop();
    bool isRunning() const { return process_->isRunning(); }
    // The GPU is busy with something else (a bench run): no Start meanwhile (Plan needs no GPU).
    void setGpuBusy(bool busy);
    // The CLI spoke another protocol version: nothing more is run with it.
    bool cliRefused() const { return cliRefused_; }

    // For tests and the Benchmarks page.
    const TuneResultsModel* results() const { return results_; }
    QTableView* resultsTable() const { return table_; }
    QComboBox* strategyBox() const { return strategy_; }
    QLineEdit* spaceEdit() const { return space_; }
    QLineEdit* budgetEdit() const { return budget_; }
    QLineEdit* pythonEdit() const { return python_; }
    QPushButton* planButton() const { return plan_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* stopButton() const { return stop_; }
    QPushButton* acceptButton() const { return accept_; }
    // What Make best config would accept: the selected row of a finished run,
    // timed ok, not the start config; nullopt otherwise.
    std::optional<int> acceptableRow() const;
    // The accept the Benchmarks page ran for this dialog ended: its words.
    void showAcceptOutcome(const QString& text, bool written);
    QProgressBar* progressBar() const { return progress_; }
    // The label at the top: the tune's answer, or what failed; empty when hidden.
    QString answerText() const;
    QString statusText() const;
    // What went wrong without stopping the tune (lines not understood).
    QString noticeText() const;
    // The last tune's end record, if it printed one.
    const std::optional<bench::protocol::TuneEnd>& end() const { return end_; }
    // The Failure record's message, if the last tune printed one.
    const std::optional<QString>& failure() const { return failure_; }
    const QStringList& lastArguments() const { return process_->lastArguments(); }
    // Why the CLI found is not used, and what to do.
    QString incompatibleText(const QString& why) const;

public slots:
    // Stops a tune under way, then closes.
    void reject() override;

signals:
    void runningChanged(bool running);
    // A plan or a tune ended (or never started) and the dialog says how.
    void tuneEnded();
    // The CLI's output was of another protocol version or program: `why`.
    void refused(const QString& why);
    void statusMessage(const QString& message);
    // Make best config: the Benchmarks page runs `bench accept` on the
    // kernel `target` (module key) with this config's Triton hash.
    void acceptRequested(const QString& target, const QString& name, const QString& tritonHash,
                         const QString& configText);

private:
    void begin(bool planOnly);
    void handle(const bench::protocol::StreamItem& item);
    void handleRecord(const bench::protocol::Record& record);
    void noteBadLine(const QString& line, const QString& why);
    void showEnd(const BenchExit& exit);
    void showAnswer(const QString& answer, bool isError, bool isGood = false);
    void setStatus(const QString& message);
    void updateButtons();

    void requestAccept();

    QString dir_;
    QString kernel_;
    QString name_;
    TuneProcess* process_ = nullptr;
    TuneResultsModel* results_ = nullptr;
    bool planning_ = false; // the process under way (or last) is a --plan
    bool cliRefused_ = false;
    bool gpuBusy_ = false;
    std::optional<bench::protocol::TuneEnd> end_;
    std::optional<QString> failure_;
    int done_ = 0;
    int total_ = 0;
    int badLines_ = 0;
    QString firstBadLine_;

    QLabel* answer_ = nullptr;
    QLabel* title_ = nullptr;
    QComboBox* strategy_ = nullptr;
    QLineEdit* space_ = nullptr;
    QLineEdit* budget_ = nullptr;
    QLineEdit* python_ = nullptr;
    QPushButton* plan_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* stop_ = nullptr;
    QPushButton* accept_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* notice_ = nullptr;
    QTableView* table_ = nullptr;
};

} // namespace cachelens::ui
