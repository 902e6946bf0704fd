#include "models/tune_results_model.h"

#include "models/bench_results_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/plain_text.h"
#include "widgets/highlight_colors.h"

#include <QFont>
#include <QStringList>

namespace cachelens::ui {

namespace protocol = bench::protocol;

namespace {

QVariant alignment(int column) {
    const bool numeric =
        column == TuneResultsModel::MedianColumn || column == TuneResultsModel::VsStartColumn;
    return static_cast<int>(numeric ? Qt::AlignRight | Qt::AlignVCenter
                                    : Qt::AlignLeft | Qt::AlignVCenter);
}

// Not measured and not waiting to be: failed somewhere on the way.
bool failed(const std::string& status) {
    return status != "ok" && status != "compiled" && status != "planned";
}

} // namespace

const cachedir::KernelConfig& TuneResultsModel::Row::config() const {
    if (result) {
        return result->result.config;
    }
    if (compiled) {
        return compiled->config;
    }
    return candidate->config;
}

std::string TuneResultsModel::Row::status() const {
    if (result) {
        return result->result.status;
    }
    if (compiled) {
        return compiled->status == "ok" ? "compiled" : compiled->status;
    }
    return "planned";
}

bool TuneResultsModel::Row::currentBest() const {
    return (candidate && candidate->is_current_best) || (result && result->result.was_best);
}

QString TuneResultsModel::statusText(const std::string& status) {
    // The CLI's words: the result's failing step, or the compile server's reason.
    if (status == "compile") {
        return tr("compile error");
    }
    if (status == "resources") {
        return tr("out of resources");
    }
    if (status == "timeout") {
        return tr("timeout");
    }
    if (status == "crashed") {
        return tr("compiler crashed");
    }
    if (status == "invalid") {
        return tr("invalid config");
    }
    if (status == "load") {
        return tr("load failed");
    }
    if (status == "launch") {
        return tr("launch failed");
    }
    if (status == "plan") {
        return tr("no launch plan");
    }
    if (status == "compiled") {
        return tr("compiled, to time");
    }
    return text(status);
}

TuneResultsModel::TuneResultsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void TuneResultsModel::clear() {
    beginResetModel();
    start_.reset();
    rows_.clear();
    endResetModel();
}

bool TuneResultsModel::add(const protocol::Record& record) {
    if (const auto* start = std::get_if<protocol::TuneStart>(&record)) {
        setStart(*start);
    } else if (const auto* candidate = std::get_if<protocol::TuneCandidate>(&record)) {
        addCandidate(*candidate);
    } else if (const auto* compiled = std::get_if<protocol::Compiled>(&record)) {
        addCompiled(*compiled);
    } else if (const auto* result = std::get_if<protocol::Result>(&record)) {
        addResult(*result);
    } else if (const auto* verdict = std::get_if<protocol::Verdict>(&record)) {
        addVerdict(*verdict);
    } else {
        return false;
    }
    return true;
}

void TuneResultsModel::setStart(const protocol::TuneStart& start) {
    start_ = start;
    if (!rows_.empty()) {
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    }
}

template <class Record>
void TuneResultsModel::put(std::optional<Record> Row::*field, const Record& record,
                           const cachedir::KernelConfig& config) {
    for (std::size_t at = 0; at < rows_.size(); ++at) {
        Row& row = rows_[at];
        if (!(row.*field) && cachedir::same_config(row.config(), config)) {
            row.*field = record;
            const int changed = static_cast<int>(at);
            emit dataChanged(index(changed, 0), index(changed, ColumnCount - 1));
            return;
        }
    }
    const int added = rowCount();
    beginInsertRows({}, added, added);
    Row row;
    row.*field = record;
    rows_.push_back(std::move(row));
    endInsertRows();
}

void TuneResultsModel::addCandidate(const protocol::TuneCandidate& candidate) {
    put(&Row::candidate, candidate, candidate.config);
}

void TuneResultsModel::addCompiled(const protocol::Compiled& compiled) {
    put(&Row::compiled, compiled, compiled.config);
}

void TuneResultsModel::addResult(const protocol::Result& result) {
    put(&Row::result, result, result.result.config);
    // The start config's time is what every other row is compared with.
    if (isStart(rows_[static_cast<std::size_t>(*rowOf(result.result.config))])) {
        emit dataChanged(index(0, VsStartColumn), index(rowCount() - 1, VsStartColumn));
    }
}

void TuneResultsModel::addVerdict(const protocol::Verdict& verdict) {
    // The challenger's row: the verdict names its config in words.
    for (std::size_t at = 0; at < rows_.size(); ++at) {
        Row& row = rows_[at];
        if (row.config().describe() == verdict.candidate_config_text) {
            row.verdict = verdict;
            const int changed = static_cast<int>(at);
            emit dataChanged(index(changed, 0), index(changed, ColumnCount - 1));
            return;
        }
    }
}

std::optional<int> TuneResultsModel::rowOf(const cachedir::KernelConfig& config) const {
    for (std::size_t at = 0; at < rows_.size(); ++at) {
        if (cachedir::same_config(rows_[at].config(), config)) {
            return static_cast<int>(at);
        }
    }
    return std::nullopt;
}

bool TuneResultsModel::hasPhases() const {
    for (const Row& row : rows_) {
        if (row.candidate && !row.candidate->phase.empty()) {
            return true;
        }
    }
    return false;
}

bool TuneResultsModel::isStart(const Row& row) const {
    return start_ && cachedir::same_config(row.config(), start_->start_config);
}

std::optional<double> TuneResultsModel::startMs() const {
    for (const Row& row : rows_) {
        if (isStart(row) && row.ok() && row.result->result.stats.median_ms > 0) {
            return row.result->result.stats.median_ms;
        }
    }
    return std::nullopt;
}

// median / the start config's median - 1, when both were measured.
std::optional<double> TuneResultsModel::vsStart(const Row& row) const {
    const auto start = startMs();
    if (!row.ok() || !start) {
        return std::nullopt;
    }
    return row.result->result.stats.median_ms / *start - 1;
}

int TuneResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int TuneResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TuneResultsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(row, column);
    case Qt::ToolTipRole: {
        const QString tip = toolTip(row, column);
        return tip.isEmpty() ? QVariant() : QVariant(literalText(tip));
    }
    case StatusRole:
        return text(row.status());
    case CurrentBestRole:
        return row.currentBest();
    case StartRole:
        return isStart(row);
    case MedianRole:
        return row.ok() ? QVariant(row.result->result.stats.median_ms) : QVariant();
    case Qt::TextAlignmentRole:
        return alignment(column);
    case Qt::FontRole:
        if (row.currentBest()) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::BackgroundRole:
        if (column == StatusColumn && failed(row.status())) {
            return highlight::fail();
        }
        if (column == VerdictColumn && row.verdict && row.verdict->candidate_faster()) {
            return highlight::pass();
        }
        return {};
    default:
        return {};
    }
}

QVariant TuneResultsModel::display(const Row& row, int column) const {
    switch (column) {
    case ConfigColumn:
        return text(row.config().describe());
    case OriginColumn:
        if (row.result && !row.result->result.origin.empty()) {
            return text(row.result->result.origin);
        }
        if (row.candidate) {
            return text(row.candidate->origin);
        }
        // Only a new config is compiled.
        return row.compiled ? QStringLiteral("new") : QString();
    case PhaseColumn:
        return row.candidate ? text(row.candidate->phase) : QString();
    case StatusColumn:
        return statusText(row.status());
    case MedianColumn:
        return row.ok() ? formatMs(row.result->result.stats.median_ms) : QString();
    case VsStartColumn: {
        if (isStart(row)) {
            return tr("start");
        }
        const auto ratio = vsStart(row);
        return ratio ? QStringLiteral("%1%2 %")
                           .arg(*ratio > 0 ? QStringLiteral("+") : QString())
                           .arg(*ratio * 100, 0, 'f', 1)
                     : QVariant();
    }
    case VerdictColumn:
        return row.verdict ? text(row.verdict->text) : QString();
    case MessageColumn:
        if (row.result && !row.result->result.message.empty()) {
            return text(row.result->result.message);
        }
        return row.compiled ? text(row.compiled->message) : QString();
    default:
        return {};
    }
}

QString TuneResultsModel::toolTip(const Row& row, int column) const {
    QStringList tips;
    if (column == StatusColumn || column == MessageColumn) {
        const QString message = display(row, MessageColumn).toString();
        if (!message.isEmpty()) {
            tips << message;
        }
    }
    if (column == ConfigColumn) {
        const std::string& hash = row.result && !row.result->result.triton_hash.empty()
                                      ? row.result->result.triton_hash
                                  : row.compiled ? row.compiled->triton_hash
                                                 : std::string();
        if (!hash.empty()) {
            tips << tr("Triton hash %1").arg(text(hash));
        }
        if (row.compiled && row.compiled->status == "ok") {
            tips << tr("Compiled by cachelens tune in %1 s").arg(row.compiled->seconds, 0, 'f', 1);
        }
    }
    if (column == MedianColumn && row.result && row.result->result.registers) {
        // What the driver said of it: the first thing to look at when a
        // bigger block is slower.
        tips << text(bench::describe_registers(row.result->result));
    }
    if (column == VerdictColumn && row.verdict) {
        tips << tr("%2 against %3: %1")
                    .arg(counted(static_cast<std::size_t>(row.verdict->rounds), "paired round"))
                    .arg(text(row.verdict->candidate_config_text),
                         text(row.verdict->best_config_text));
        if (!row.verdict->message.empty()) {
            tips << text(row.verdict->message);
        }
    }
    if (isStart(row)) {
        tips << tr("The config the tune started from: every other is compared with it");
    }
    if (row.currentBest()) {
        tips << tr("The current best config: the kernel's .best_config names it");
    }
    return tips.join(u'\n');
}

QVariant TuneResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        return alignment(section);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case OriginColumn:
            return tr("cached: its cubin is in the cache; new: compiled by cachelens tune");
        case VsStartColumn:
            return tr("The median against the start config's median: negative is faster");
        case VerdictColumn:
            return tr("Re-timed side by side with the start config");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case ConfigColumn:
        return tr("Config");
    case OriginColumn:
        return tr("Origin");
    case PhaseColumn:
        return tr("Phase");
    case StatusColumn:
        return tr("Status");
    case MedianColumn:
        return tr("Median (ms)");
    case VsStartColumn:
        return tr("vs start");
    case VerdictColumn:
        return tr("Verdict");
    case MessageColumn:
        return tr("Message");
    default:
        return {};
    }
}

} // namespace cachelens::ui
