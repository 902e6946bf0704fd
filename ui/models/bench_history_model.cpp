#include "models/bench_history_model.h"

#include "models/bench_results_model.h"
#include "text/engine_text.h"
#include "text/plain_text.h"
#include "text/stats_text.h"
#include "widgets/highlight_colors.h"

#include <cachelens/catalog/catalog.h>

#include <QDateTime>
#include <QFont>

#include <limits>
#include <set>

namespace cachelens::ui {

namespace {

bool numeric(int column) {
    return column == BenchHistoryModel::RunColumn || column == BenchHistoryModel::MedianColumn ||
           column == BenchHistoryModel::SpreadColumn || column == BenchHistoryModel::MinColumn ||
           column == BenchHistoryModel::SamplesColumn;
}

QVariant alignment(int column) {
    return static_cast<int>(numeric(column) ? Qt::AlignRight | Qt::AlignVCenter
                                            : Qt::AlignLeft | Qt::AlignVCenter);
}

bool measured(const bench::CandidateResult& result) {
    return result.status == "ok" && !result.samples_ms.empty();
}

} // namespace

BenchHistoryModel::BenchHistoryModel(JobPool& pool, QString catalogPath, QObject* parent)
    : QAbstractTableModel(parent)
    , job_(new JobTracker(pool, this))
    , catalogPath_(std::move(catalogPath)) {}

void BenchHistoryModel::load(const QString& kernelOrModule) {
    const std::filesystem::path path = catalogPath_.toStdString();
    const std::string kernel = kernelOrModule.toStdString();
    job_->run<Result<std::vector<bench::HistoryRow>>>(
        [path, kernel](const JobContext&) -> Result<std::vector<bench::HistoryRow>> {
            auto catalog = catalog::Catalog::open(path);
            if (!catalog) {
                return std::unexpected(std::move(catalog.error()));
            }
            return bench::kernel_history(*catalog, kernel);
        },
        [this, kernelOrModule](Result<std::vector<bench::HistoryRow>> history) {
            if (!history) {
                clear();
                emit failed(text(history.error().describe()));
                return;
            }
            setHistory(kernelOrModule, std::move(*history));
        });
}

void BenchHistoryModel::setHistory(const QString& kernelOrModule,
                                   std::vector<bench::HistoryRow> rows) {
    beginResetModel();
    kernel_ = kernelOrModule;
    rows_ = std::move(rows);
    endResetModel();
    emit loaded(static_cast<int>(rows_.size()));
}

void BenchHistoryModel::clear() {
    beginResetModel();
    kernel_.clear();
    rows_.clear();
    endResetModel();
}

int BenchHistoryModel::runCount() const {
    std::set<std::int64_t> runs;
    for (const auto& row : rows_) {
        runs.insert(row.run_id);
    }
    return static_cast<int>(runs.size());
}

int BenchHistoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int BenchHistoryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BenchHistoryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto& row = rows_[static_cast<size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(row, column);
    case SortRole:
        return sortValue(row, column);
    case WasBestRole:
        return row.result.was_best;
    case RunIdRole:
        return static_cast<qlonglong>(row.run_id);
    case Qt::TextAlignmentRole:
        return alignment(column);
    case Qt::BackgroundRole:
        return column == StatusColumn && row.result.status != "ok" ? QVariant(highlight::fail())
                                                                   : QVariant();
    case Qt::FontRole:
        if (row.result.was_best) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ToolTipRole:
        switch (column) {
        case StartedColumn:
            return stats_text::time(row.started_ns);
        case DeviceColumn:
            return literalText(tr("%1, compute capability %2, driver %3; %4")
                                   .arg(text(row.device.name), text(row.device.compute_capability),
                                        text(row.device.driver_version), text(row.protocol)));
        case ConfigColumn:
            return literalText(
                tr("Triton hash %1%2%3")
                    .arg(text(row.result.triton_hash),
                         row.result.was_best ? tr("\nThe best config when it ran") : QString(),
                         row.result.origin == "new"
                             ? tr("\nCompiled by cachelens tune: not one of the cache's configs")
                             : QString()));
        case StatusColumn:
            return row.result.message.empty() ? QVariant()
                                              : QVariant(literalText(text(row.result.message)));
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant BenchHistoryModel::display(const bench::HistoryRow& row, int column) const {
    const auto& result = row.result;
    const bool ok = measured(result);
    switch (column) {
    case RunColumn:
        // A tune's run says so, as `bench history` does: "7 (tune coordesc)".
        return row.kind.empty()
                   ? QVariant(static_cast<qlonglong>(row.run_id))
                   : QVariant(
                         tr("%1 (%2 %3)").arg(row.run_id).arg(text(row.kind), text(row.strategy)));
    case StartedColumn:
        return QDateTime::fromMSecsSinceEpoch(row.started_ns / 1'000'000)
            .toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    case DeviceColumn:
        return text(row.device.name);
    case ConfigColumn:
        // "+": a config a tune compiled, not one of the cache's (bench history's mark).
        return result.origin == "new" ? tr("+ %1").arg(text(result.config.describe()))
                                      : text(result.config.describe());
    case MedianColumn:
        return ok ? formatMs(result.stats.median_ms) : QString();
    case SpreadColumn:
        return ok ? tr("%1–%2").arg(formatMs(result.stats.p20_ms), formatMs(result.stats.p80_ms))
                  : QString();
    case MinColumn:
        return ok ? formatMs(result.stats.min_ms) : QString();
    case SamplesColumn:
        return static_cast<qulonglong>(result.samples_ms.size());
    case StatusColumn:
        return result.message.empty() ? text(result.status)
                                      : tr("%1: %2").arg(text(result.status), text(result.message));
    default:
        return {};
    }
}

QVariant BenchHistoryModel::sortValue(const bench::HistoryRow& row, int column) const {
    constexpr double kNone = std::numeric_limits<double>::max();
    const auto& result = row.result;
    const bool ok = measured(result);
    switch (column) {
    case RunColumn:
        return static_cast<qlonglong>(row.run_id);
    case StartedColumn:
        return static_cast<qlonglong>(row.started_ns);
    case DeviceColumn:
        return text(row.device.name);
    case ConfigColumn:
        return text(result.config.describe());
    case MedianColumn:
        return ok ? result.stats.median_ms : kNone;
    case SpreadColumn:
        return ok ? result.stats.p80_ms - result.stats.p20_ms : kNone;
    case MinColumn:
        return ok ? result.stats.min_ms : kNone;
    case SamplesColumn:
        return static_cast<qulonglong>(result.samples_ms.size());
    case StatusColumn:
        return text(result.status);
    default:
        return {};
    }
}

QVariant BenchHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        return alignment(section);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case RunColumn:
        return tr("Run");
    case StartedColumn:
        return tr("Started");
    case DeviceColumn:
        return tr("GPU");
    case ConfigColumn:
        return tr("Config");
    case MedianColumn:
        return tr("Median");
    case SpreadColumn:
        return tr("p20–p80");
    case MinColumn:
        return tr("Min");
    case SamplesColumn:
        return tr("Samples");
    case StatusColumn:
        return tr("Status");
    default:
        return {};
    }
}

} // namespace cachelens::ui
