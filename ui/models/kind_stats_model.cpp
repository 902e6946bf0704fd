#include "models/kind_stats_model.h"

#include "text/stats_text.h"

#include <QFont>

#include <algorithm>
#include <map>

namespace cachelens::ui {

namespace {

// Numbers right-aligned; an int, which every view and the model tester read.
QVariant alignment(int column) {
    return static_cast<int>(column == KindStatsModel::KindColumn
                                ? Qt::AlignLeft | Qt::AlignVCenter
                                : Qt::AlignRight | Qt::AlignVCenter);
}

} // namespace

KindStatsModel::KindStatsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void KindStatsModel::setStats(const std::vector<catalog::RootStats>& roots, std::int64_t now_ns) {
    beginResetModel();
    std::map<cachedir::FileKind, catalog::KindStats> kinds;
    total_ = {};
    for (const auto& root : roots) {
        for (const auto& [kind, stats] : root.kinds) {
            auto& sum = kinds[kind];
            const bool first = sum.entries == 0;
            sum.entries += stats.entries;
            sum.files += stats.files;
            sum.bytes += stats.bytes;
            sum.parse_errors += stats.parse_errors;
            sum.oldest_ns = first ? stats.oldest_ns : std::min(sum.oldest_ns, stats.oldest_ns);
            sum.newest_ns = first ? stats.newest_ns : std::max(sum.newest_ns, stats.newest_ns);
        }
    }
    rows_.clear();
    for (const auto& [kind, stats] : kinds) {
        const bool first = total_.entries == 0;
        total_.entries += stats.entries;
        total_.files += stats.files;
        total_.bytes += stats.bytes;
        total_.parse_errors += stats.parse_errors;
        total_.oldest_ns = first ? stats.oldest_ns : std::min(total_.oldest_ns, stats.oldest_ns);
        total_.newest_ns = first ? stats.newest_ns : std::max(total_.newest_ns, stats.newest_ns);
        rows_.push_back(Row{kind, stats});
    }
    now_ns_ = now_ns;
    endResetModel();
}

void KindStatsModel::clear() {
    beginResetModel();
    rows_.clear();
    total_ = {};
    endResetModel();
}

int KindStatsModel::rowCount(const QModelIndex& parent) const {
    // The total row only when there is something to total.
    return parent.isValid() || rows_.empty() ? 0 : static_cast<int>(rows_.size()) + 1;
}

int KindStatsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KindStatsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto row = static_cast<std::size_t>(index.row());
    const bool isTotal = row == rows_.size();
    if (role == IsTotalRole) {
        return isTotal;
    }
    if (role == Qt::FontRole && isTotal) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (role == Qt::TextAlignmentRole) {
        return alignment(index.column());
    }
    if (isTotal) {
        return cell(total_, tr("total"), index.column(), role);
    }
    return cell(rows_[row].stats, QString::fromUtf8(cachedir::to_string(rows_[row].kind)),
                index.column(), role);
}

QVariant KindStatsModel::cell(const catalog::KindStats& stats, const QString& name, int column,
                              int role) const {
    const bool display = role == Qt::DisplayRole;
    const bool sort = role == SortRole;
    if (!display && !sort && role != Qt::ToolTipRole) {
        return {};
    }
    switch (column) {
    case KindColumn:
        return display || sort ? QVariant(name) : QVariant();
    case EntriesColumn:
        return display || sort ? QVariant::fromValue<qulonglong>(stats.entries) : QVariant();
    case FilesColumn:
        return display || sort ? QVariant::fromValue<qulonglong>(stats.files) : QVariant();
    case BytesColumn:
        if (sort) {
            return QVariant::fromValue<qulonglong>(stats.bytes);
        }
        return display ? stats_text::bytes(stats.bytes)
                       : tr("%L1 bytes").arg(static_cast<qulonglong>(stats.bytes));
    case OldestColumn:
    case NewestColumn: {
        const auto ns = column == OldestColumn ? stats.oldest_ns : stats.newest_ns;
        if (sort) {
            return QVariant::fromValue<qlonglong>(ns);
        }
        return display ? stats_text::age(ns, now_ns_) : stats_text::time(ns);
    }
    case ParseErrorsColumn:
        return display || sort ? QVariant::fromValue<qulonglong>(stats.parse_errors) : QVariant();
    default:
        return {};
    }
}

QVariant KindStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
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
    case KindColumn:
        return tr("Kind");
    case EntriesColumn:
        return tr("Entries");
    case FilesColumn:
        return tr("Files");
    case BytesColumn:
        return tr("Size");
    case OldestColumn:
        return tr("Oldest");
    case NewestColumn:
        return tr("Newest");
    case ParseErrorsColumn:
        return tr("Parse errors");
    default:
        return {};
    }
}

KindStatsSortProxy::KindStatsSortProxy(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(KindStatsModel::SortRole);
}

bool KindStatsSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const bool leftTotal = left.data(KindStatsModel::IsTotalRole).toBool();
    const bool rightTotal = right.data(KindStatsModel::IsTotalRole).toBool();
    if (leftTotal || rightTotal) {
        // Last in either order: "greatest" when ascending, "least" when descending.
        return sortOrder() == Qt::AscendingOrder ? rightTotal : leftTotal;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace cachelens::ui
