#pragma once

// The Benchmarks page: re-benchmarks a cache dir's Triton kernels on this
// machine's GPU with `cachelens bench`, run as a child process by
// BenchProcesses (jobs/bench_processes.h). It shows the progress, a table
// of every candidate's timings with the fastest of each kernel marked, a chart
// of the selected kernel's samples per config, the kernel's history from the
// catalog, and "Make best config", which runs `cachelens bench accept`.
// Before a run (and without a GPU) the table lists what a run would time:
// `cachelens bench --plan`, again whenever the dir, the filter or "All
// configs" changes. "Tune…" opens the Tune dialog (dialogs/tune_dialog.h) on
// the selected row's kernel: `cachelens tune` explores configs beyond the
// cached ones.

#include "data/bench_run_parser.h"
#include "jobs/bench_processes.h"

#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <filesystem>
#include <map>
#include <optional>

class QChart;
class QChartView;
class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QTimer;

namespace cachelens::ui {

class BenchHistoryModel;
class BenchResultsModel;
class BenchResultsSortProxy;
class JobPool;
class TuneDialog;

class BenchPage : public QWidget {
    Q_OBJECT

public:
    BenchPage(JobPool& pool, QString catalogPath, QWidget* parent = nullptr);

    // The cache dir to benchmark (the sidebar's); nullopt: none chosen.
    void showRoot(const std::optional<std::filesystem::path>& root);
    // A bundle or a Redis server's mirror, browsed read-only: none to
    // benchmark, and the status says why (`bench accept` would rewrite the
    // staged copy, or the mirror the next refresh undoes).
    void showReadOnlyRoot(const std::filesystem::path& root);
    // The `cachelens` binary to run; findCli() by default.
    void setProgram(const QString& program);
    const QString& program() const { return processes_->program(); }
    // Beside this executable (installed), then the build tree's app/cli, then $PATH.
    static QString findCli() { return BenchProcesses::findCli(); }

    void run();
    // Lists the launch plans of the dir and filter now (`bench --plan`),
    // replacing a listing under way; not while a run is.
    void listPlans();
    // A plan listing is asked for or under way.
    bool isPlanning() const;
    // Asks the run to stop (SIGTERM), kills it 2 s later if it has not.
    void cancel();
    // Makes the selected result's config the kernel's best config, in the
    // dir of the run it came from; asks first when askUser.
    void acceptSelected(bool askUser);
    // A config `cachelens tune` compiled made the best config of the kernel
    // `target` (its module key) in the dir shown, through the same `bench
    // accept` (asks first when askUser); the Tune dialog's Make best config.
    void acceptExplored(const QString& target, const QString& name, const QString& tritonHash,
                        const QString& configText, bool askUser);
    // The refused accept again, with --force (asks first when askUser).
    void forceAccept(bool askUser);
    // What that asks: the kernel, the config and the dir written in; empty
    // when no result can be accepted.
    QString acceptConfirmationText() const;
    bool isRunning() const;
    bool isAccepting() const;
    // Opens the Tune dialog on the selected row's kernel, in the dir of the
    // rows shown; while it tunes another kernel, shows that tune.
    void openTune();
    // A tune is under way (it times on the same GPU: no bench run meanwhile).
    bool isTuning() const;

    // For tests and the main window.
    const BenchResultsModel* results() const { return results_; }
    const BenchHistoryModel* history() const { return history_; }
    QChart* chart() const;
    QTableView* resultsTable() const { return table_; }
    QTableView* historyTable() const { return historyTable_; }
    QProgressBar* progressBar() const { return progress_; }
    QLineEdit* kernelFilter() const { return filter_; }
    QCheckBox* allConfigsBox() const { return allConfigs_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QPushButton* acceptButton() const { return accept_; }
    // Shown after accept refused: the same accept with --force.
    QPushButton* forceAcceptButton() const { return forceAccept_; }
    QPushButton* tuneButton() const { return tune_; }
    // Once opened: the Tune dialog (one, reused for the next kernel).
    TuneDialog* tuneDialog() const { return tuneDialog_; }
    // Every side-by-side verdict of the run, one per line.
    QString verdictsText() const;
    // Why the CLI found is not used, and what to do.
    QString incompatibleText(const QString& why) const;
    // The selected result's kernel (BenchResultsModel::kernelKey), or empty.
    QString selectedKernel() const;
    // Selects a row of the results model (source row).
    void selectResult(int row);
    QString statusText() const;
    QString errorText() const;     // what failed; empty when nothing did
    QString noticeText() const;    // what went wrong without stopping the run
    QString outcomeText() const;   // what the last accept did
    QString selectionText() const; // the selected result, and its kernel's verdict
    QString deviceText() const;
    // The arguments of the last run.
    const QStringList& lastArguments() const { return processes_->lastRunArguments(); }
    const QStringList& lastPlanArguments() const { return processes_->lastPlanArguments(); }

signals:
    void statusMessage(const QString& message);
    // The child process ended (or never started) and the page says how.
    void runFinished();
    void acceptFinished();
    // A plan listing ended, failed, or was not started (a run is under way).
    void planFinished();

protected:
    void changeEvent(QEvent* event) override;

private:
    void answerTuneAccept();
    void startAccept(const QString& kernelKey, const QString& target, const QString& name,
                     const QString& tritonHash, const QString& configText);
    void handle(const BenchEvent& event);
    void showRunEnd(const BenchExit& exit);
    void endRun();
    std::optional<QStringList> kernelWords();
    void showPlans(const BenchPlanListing& listing);
    void showAcceptEnd(const BenchAcceptEnd& end);
    void onResultsInserted(int first, int last);
    void onSelectionChanged();
    void loadHistory();
    void updateChart();
    void updateButtons();
    void applyPalette();
    void showError(const QString& message);
    void setStatus(const QString& message);

    QString catalogPath_;
    std::optional<std::filesystem::path> root_;

    BenchProcesses* processes_ = nullptr;
    QTimer* planTimer_ = nullptr; // debounces the filter's plan listing
    QElapsedTimer elapsed_;
    std::optional<BenchStartEvent> start_;
    std::optional<BenchEndEvent> end_;
    std::optional<QString> fatal_; // the "error" event's message
    int done_ = 0;
    int total_ = 0;
    int badLines_ = 0;
    QString runDir_; // the cache dir of the results shown
    // The CLI spoke another protocol version (a listing or a run said so):
    // nothing more is run with it, an accept least of all (it might write
    // and report in words this page cannot read). Cleared by a good listing.
    bool cliRefused_ = false;
    QString acceptKernel_; // kernelKey, hash and config of the accept under way
    QString acceptHash_;
    QString acceptConfig_;
    QString acceptTarget_; // kernel (module key or name) of the accept under way
    // Side-by-side verdicts of the run, by kernelKey.
    std::map<QString, BenchVerdictEvent> verdicts_;
    QString shownKernel_; // the kernel the chart and history show

    QLabel* title_ = nullptr;
    QLabel* dir_ = nullptr;
    QLabel* device_ = nullptr;
    QLineEdit* filter_ = nullptr;
    QCheckBox* allConfigs_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* error_ = nullptr;
    QLabel* notice_ = nullptr;
    QLabel* outcome_ = nullptr;
    BenchResultsModel* results_ = nullptr;
    BenchResultsSortProxy* sorted_ = nullptr;
    QTableView* table_ = nullptr;
    QLabel* selection_ = nullptr;
    QPushButton* accept_ = nullptr;
    QPushButton* forceAccept_ = nullptr;
    QPushButton* tune_ = nullptr;
    TuneDialog* tuneDialog_ = nullptr;
    bool acceptForTune_ = false; // the accept under way was asked for by the Tune dialog
    QLabel* verdictsLabel_ = nullptr;
    QChartView* chartView_ = nullptr;
    BenchHistoryModel* history_ = nullptr;
    QTableView* historyTable_ = nullptr;
    QLabel* historyTitle_ = nullptr;
};

} // namespace cachelens::ui
