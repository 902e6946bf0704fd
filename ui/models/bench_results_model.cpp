#include "models/bench_results_model.h"

#include "text/plain_text.h"
#include "widgets/highlight_colors.h"

#include <QFont>

#include <limits>

namespace cachelens::ui {

namespace {

bool numeric(int column) {
    return column != BenchResultsModel::KernelColumn && column != BenchResultsModel::ConfigColumn &&
           column != BenchResultsModel::StatusColumn;
}

QVariant alignment(int column) {
    return static_cast<int>(numeric(column) ? Qt::AlignRight | Qt::AlignVCenter
                                            : Qt::AlignLeft | Qt::AlignVCenter);
}

} // namespace

QString formatMs(double ms) {
    const int decimals = ms < 0.1 ? 4 : (ms < 10 ? 3 : 2);
    return QString::number(ms, 'f', decimals);
}

QString launchText(const BenchPlanEvent& plan) {
    QStringList grid;
    for (const qint64 dim : plan.grid) {
        grid << QString::number(dim);
    }
    return BenchResultsModel::tr("%1 %2, %3 threads, %4 B shared")
        .arg(plan.gridType, grid.join(u'\u00d7'))
        .arg(plan.blockThreads)
        .arg(plan.sharedBytes);
}

BenchResultsModel::BenchResultsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

QString BenchResultsModel::kernelKey(const BenchResultEvent& result) {
    return result.module + u'/' + result.kernel;
}

void BenchResultsModel::clear() {
    beginResetModel();
    rows_.clear();
    kernels_.clear();
    endResetModel();
}

void BenchResultsModel::setRows(std::vector<BenchResultEvent> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    kernels_.clear();
    for (std::size_t row = 0; row < rows_.size(); ++row) {
        kernels_[kernelKey(rows_[row])].push_back(static_cast<int>(row));
    }
    endResetModel();
}

void BenchResultsModel::appendResult(BenchResultEvent result) {
    const int row = static_cast<int>(rows_.size());
    const QString key = kernelKey(result);
    beginInsertRows({}, row, row);
    rows_.push_back(std::move(result));
    kernels_[key].push_back(row);
    endInsertRows();
    // The kernel's fastest row and every row's "vs current" may have changed.
    kernelChanged(key);
}

BenchResultEvent BenchResultsModel::unplannableRow(const BenchUnplannableEvent& unplannable) {
    BenchResultEvent row;
    row.kernel = unplannable.kernel;
    row.module = unplannable.module;
    row.configText = unplannable.what;
    row.status = QStringLiteral("plan");
    row.message = unplannable.why;
    return row;
}

BenchResultEvent BenchResultsModel::plannedRow(const BenchPlanEvent& plan) {
    BenchResultEvent row;
    row.kernel = plan.kernel;
    row.module = plan.module;
    row.tritonHash = plan.tritonHash;
    row.configText = plan.configText;
    row.wasBest = plan.isCurrentBest;
    row.status = QStringLiteral("planned");
    row.message = launchText(plan);
    return row;
}

void BenchResultsModel::appendUnplannable(const BenchUnplannableEvent& unplannable) {
    appendResult(unplannableRow(unplannable));
}

void BenchResultsModel::markBest(const QString& key, const QString& tritonHash) {
    const auto found = kernels_.find(key);
    if (found == kernels_.end()) {
        return;
    }
    for (int row : found->second) {
        auto& result = rows_[static_cast<size_t>(row)];
        result.wasBest = !result.tritonHash.isEmpty() && result.tritonHash == tritonHash;
    }
    kernelChanged(key);
}

void BenchResultsModel::kernelChanged(const QString& key) {
    for (int row : kernels_[key]) {
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

std::vector<int> BenchResultsModel::rowsOfKernel(const QString& key) const {
    const auto found = kernels_.find(key);
    return found == kernels_.end() ? std::vector<int>{} : found->second;
}

std::optional<int> BenchResultsModel::fastestRow(const QString& key) const {
    std::optional<int> fastest;
    for (int row : rowsOfKernel(key)) {
        const auto& result = rows_[static_cast<size_t>(row)];
        if (result.ok() &&
            (!fastest || result.medianMs < rows_[static_cast<size_t>(*fastest)].medianMs)) {
            fastest = row;
        }
    }
    return fastest;
}

const BenchResultEvent* BenchResultsModel::currentBest(const QString& key) const {
    for (int row : rowsOfKernel(key)) {
        if (rows_[static_cast<size_t>(row)].wasBest) {
            return &rows_[static_cast<size_t>(row)];
        }
    }
    return nullptr;
}

// median / the current best's median - 1, when both were measured.
std::optional<double> BenchResultsModel::vsCurrent(const BenchResultEvent& result) const {
    const auto* best = currentBest(kernelKey(result));
    if (!result.ok() || best == nullptr || !best->ok() || best->medianMs <= 0) {
        return std::nullopt;
    }
    return result.medianMs / best->medianMs - 1;
}

int BenchResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int BenchResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BenchResultsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto& result = rows_[static_cast<size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(result, column);
    case SortRole:
        return sortValue(result, column);
    case FastestRole:
        return fastestRow(kernelKey(result)) == index.row();
    case WasBestRole:
        return result.wasBest;
    case OkRole:
        return result.ok();
    case KernelKeyRole:
        return kernelKey(result);
    case Qt::TextAlignmentRole:
        return alignment(column);
    case Qt::BackgroundRole:
        if (fastestRow(kernelKey(result)) == index.row()) {
            return highlight::pass();
        }
        if (!result.ok() && !result.planned() && column == StatusColumn) {
            return highlight::fail();
        }
        return {};
    case Qt::FontRole:
        if (result.wasBest) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ToolTipRole: {
        QStringList tips;
        if (column == StatusColumn && !result.message.isEmpty()) {
            tips << result.message;
        }
        if (result.planned()) {
            if (column != StatusColumn) {
                tips << result.message; // the launch geometry
            }
            tips << tr("Planned, not timed yet (bench --plan): Run times it");
        }
        if (column == KernelColumn) {
            tips << tr("module %1").arg(result.module);
        }
        if (column == ConfigColumn && !result.tritonHash.isEmpty()) {
            tips << tr("Triton hash %1").arg(result.tritonHash);
        }
        if (column == MedianColumn && !result.registersText.isEmpty()) {
            tips << result.registersText;
        }
        if (result.wasBest) {
            tips << tr("The current best config: the kernel's .best_config names it");
        }
        if (fastestRow(kernelKey(result)) == index.row()) {
            tips << tr("The fastest config of this kernel in this run");
        }
        return tips.isEmpty() ? QVariant() : QVariant(literalText(tips.join(u'\n')));
    }
    default:
        return {};
    }
}

QVariant BenchResultsModel::display(const BenchResultEvent& result, int column) const {
    const bool measured = result.ok() && !result.samplesMs.empty();
    switch (column) {
    case KernelColumn:
        return result.kernel;
    case ConfigColumn:
        return result.configText;
    case MedianColumn:
        return measured ? formatMs(result.medianMs) : QString();
    case SpreadColumn:
        return measured ? tr("%1–%2").arg(formatMs(result.p20Ms), formatMs(result.p80Ms))
                        : QString();
    case MinColumn:
        return measured ? formatMs(result.minMs) : QString();
    case SamplesColumn:
        return result.planned() ? QVariant() : QVariant(qulonglong(result.samplesMs.size()));
    case VsCurrentColumn: {
        if (result.wasBest) {
            return tr("current best");
        }
        const auto ratio = vsCurrent(result);
        return ratio ? QStringLiteral("%1%2 %")
                           .arg(*ratio > 0 ? QStringLiteral("+") : QString())
                           .arg(*ratio * 100, 0, 'f', 1)
                     : QVariant();
    }
    case StatusColumn:
        // A plan's message is its launch geometry: in the tooltip, the column stays narrow.
        return result.message.isEmpty() || result.planned()
                   ? result.status
                   : tr("%1: %2").arg(result.status, result.message);
    default:
        return {};
    }
}

QVariant BenchResultsModel::sortValue(const BenchResultEvent& result, int column) const {
    // Failed rows have no times: after every measured row when ascending.
    constexpr double kNone = std::numeric_limits<double>::max();
    const bool ok = result.ok() && !result.samplesMs.empty();
    switch (column) {
    case KernelColumn:
        return result.kernel;
    case ConfigColumn:
        return result.configText;
    case MedianColumn:
        return ok ? result.medianMs : kNone;
    case SpreadColumn:
        return ok ? result.p80Ms - result.p20Ms : kNone;
    case MinColumn:
        return ok ? result.minMs : kNone;
    case SamplesColumn:
        return static_cast<qulonglong>(result.samplesMs.size());
    case VsCurrentColumn:
        return vsCurrent(result).value_or(kNone);
    case StatusColumn:
        return result.status;
    default:
        return {};
    }
}

QVariant BenchResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        return alignment(section);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case SpreadColumn:
            return tr("The 20th to the 80th percentile of the samples");
        case VsCurrentColumn:
            return tr("The median against the current best config's median: negative is faster");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case KernelColumn:
        return tr("Kernel");
    case ConfigColumn:
        return tr("Config");
    case MedianColumn:
        return tr("Median (ms)");
    case SpreadColumn:
        return tr("p20–p80 (ms)");
    case MinColumn:
        return tr("Min (ms)");
    case SamplesColumn:
        return tr("Samples");
    case VsCurrentColumn:
        return tr("vs current");
    case StatusColumn:
        return tr("Status");
    default:
        return {};
    }
}

BenchResultsSortProxy::BenchResultsSortProxy(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(BenchResultsModel::SortRole);
}

} // namespace cachelens::ui
