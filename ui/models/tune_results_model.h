#pragma once

// The Tune dialog's table: one row per config of one `cachelens tune`, built
// from its records as they arrive (bench/bench_protocol.h) and kept as the
// engine wrote them. A run's rows come from its Result records; a Compiled
// record adds the row of a new config before it is timed (or, when it did not
// compile, for good, with the compiler's status and message), and the Result
// that follows fills the same row in: records are matched to a row by config
// (cachedir::same_config). A Verdict goes to the row whose config it re-timed
// beside the start. A --plan listing's rows are its TuneCandidate records:
// origin, phase and the current best. Text from the cache becomes a QString
// only in data(), as plain text.

#include <cachelens/bench/bench_protocol.h>

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace cachelens::ui {

class TuneResultsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        ConfigColumn,
        OriginColumn, // cached (its cubin is in the cache) or new (compiled by tune)
        PhaseColumn,  // a plan's: cached, step 1, grid, random, ...
        StatusColumn,
        MedianColumn,
        VsStartColumn, // the median against the start config's; "start" on its row
        VerdictColumn, // the side-by-side re-timing against the start config
        MessageColumn, // why it failed
        ColumnCount
    };
    enum Role {
        StatusRole = Qt::UserRole + 1, // the status word as the CLI wrote it ("ok", "compile", ...)
        CurrentBestRole,               // the .best_config names it
        StartRole,                     // the config the tune started from
        MedianRole,                    // the median in ms (a double); none unless timed ok
    };

    // A config's records: whichever arrived.
    struct Row {
        std::optional<bench::protocol::TuneCandidate> candidate;
        std::optional<bench::protocol::Compiled> compiled;
        std::optional<bench::protocol::Result> result;
        std::optional<bench::protocol::Verdict> verdict;

        const cachedir::KernelConfig& config() const;
        // The result's status, else the compile's ("compiled" when it
        // compiled and is not timed yet), else "planned".
        std::string status() const;
        bool ok() const { return result && result->result.status == "ok"; }
        bool currentBest() const;
    };

    explicit TuneResultsModel(QObject* parent = nullptr);

    void clear();
    // Takes a record of a tune's stream: false for one that is not a tune's
    // (a Header, a bench record, a Failure, a TuneEnd: nothing for a row).
    bool add(const bench::protocol::Record& record);
    void setStart(const bench::protocol::TuneStart& start);
    void addCandidate(const bench::protocol::TuneCandidate& candidate);
    void addCompiled(const bench::protocol::Compiled& compiled);
    void addResult(const bench::protocol::Result& result);
    void addVerdict(const bench::protocol::Verdict& verdict);

    const std::optional<bench::protocol::TuneStart>& start() const { return start_; }
    const Row& row(int row) const { return rows_.at(static_cast<std::size_t>(row)); }
    // The row of `config`, if it has one.
    std::optional<int> rowOf(const cachedir::KernelConfig& config) const;
    // A plan listing's rows (TuneCandidate records) have phases; a run's do not.
    bool hasPhases() const;

    // "compile error" for "compile", "out of resources" for "resources", ...;
    // a word it does not know as it is.
    static QString statusText(const std::string& status);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    // Into the first row of `config` without one, else a new row.
    template <class Record>
    void put(std::optional<Record> Row::*field, const Record& record,
             const cachedir::KernelConfig& config);
    QVariant display(const Row& row, int column) const;
    QString toolTip(const Row& row, int column) const;
    bool isStart(const Row& row) const;
    std::optional<double> startMs() const;
    std::optional<double> vsStart(const Row& row) const;

    std::optional<bench::protocol::TuneStart> start_;
    std::vector<Row> rows_;
};

} // namespace cachelens::ui
