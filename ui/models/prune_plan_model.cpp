#include "models/prune_plan_model.h"

#include "text/plain_text.h"
#include "text/stats_text.h"

#include <QFont>
#include <QFontDatabase>

namespace cachelens::ui {

PrunePlanModel::PrunePlanModel(QObject* parent)
    : QAbstractItemModel(parent) {}

void PrunePlanModel::setPlan(catalog::PrunePlan plan) {
    beginResetModel();
    plan_ = std::move(plan);
    endResetModel();
}

void PrunePlanModel::clear() {
    beginResetModel();
    plan_.reset();
    endResetModel();
}

std::size_t PrunePlanModel::entryCount() const {
    std::size_t count = 0;
    if (plan_) {
        for (const auto& unit : plan_->units) {
            count += unit.entries.size();
        }
    }
    return count;
}

std::uint64_t PrunePlanModel::bytes() const {
    return plan_ ? plan_->bytes_before - plan_->bytes_after : 0;
}

QString PrunePlanModel::reasonText(const catalog::PrunePlan& plan, const catalog::PruneUnit& unit) {
    if (unit.reason == catalog::PruneReason::OlderThan) {
        return tr("last written %1").arg(stats_text::age(unit.mtime_ns, plan.now_ns));
    }
    return tr("oldest while over %1").arg(stats_text::bytes(plan.max_size.value_or(0)));
}

QModelIndex PrunePlanModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    if (!parent.isValid()) {
        return createIndex(row, column, quintptr(0));
    }
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex PrunePlanModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == 0) {
        return {};
    }
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int PrunePlanModel::rowCount(const QModelIndex& parent) const {
    if (!plan_) {
        return 0;
    }
    if (!parent.isValid()) {
        return static_cast<int>(plan_->units.size());
    }
    if (parent.internalId() != 0 || parent.column() != 0) {
        return 0; // entries have no children; only column 0 has children (tree convention)
    }
    return static_cast<int>(plan_->units[static_cast<std::size_t>(parent.row())].entries.size());
}

int PrunePlanModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant PrunePlanModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !plan_) {
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        return static_cast<int>(index.column() == SizeColumn ? Qt::AlignRight | Qt::AlignVCenter
                                                             : Qt::AlignLeft | Qt::AlignVCenter);
    }
    if (index.internalId() == 0) {
        return unitData(static_cast<std::size_t>(index.row()), index.column(), role);
    }
    return entryData(static_cast<std::size_t>(index.internalId() - 1),
                     static_cast<std::size_t>(index.row()), index.column(), role);
}

QVariant PrunePlanModel::unitData(std::size_t unitIndex, int column, int role) const {
    const auto& unit = plan_->units[unitIndex];
    if (role == Qt::FontRole && column == PathColumn) {
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case WhatColumn:
            return reasonText(*plan_, unit);
        case SizeColumn:
            return stats_text::bytes(unit.bytes);
        case LastWrittenColumn:
            return stats_text::age(unit.mtime_ns, plan_->now_ns);
        case RoleColumn:
            return unit.entries.size() == 1 ? tr("1 entry")
                                            : tr("%1 entries").arg(unit.entries.size());
        case PathColumn:
            return unit.entries.empty() ? QString()
                                        : QString::fromStdString(unit.entries.front().path);
        default:
            return {};
        }
    }
    if (role == SortRole) {
        if (column == SizeColumn) {
            return QVariant::fromValue<qulonglong>(unit.bytes);
        }
        if (column == LastWrittenColumn) {
            return QVariant::fromValue<qlonglong>(unit.mtime_ns);
        }
        return data(index(static_cast<int>(unitIndex), column), Qt::DisplayRole);
    }
    if (role == Qt::ToolTipRole) {
        if (column == LastWrittenColumn) {
            return stats_text::time(unit.mtime_ns);
        }
        if (column == SizeColumn) {
            return tr("%L1 bytes").arg(static_cast<qulonglong>(unit.bytes));
        }
        return tr("%1 defining entries and %2 used only by them, deleted together")
            .arg(unit.defining_entries)
            .arg(unit.entries.size() - unit.defining_entries);
    }
    return {};
}

QVariant PrunePlanModel::entryData(std::size_t unitIndex, std::size_t entryIndex, int column,
                                   int role) const {
    const auto& unit = plan_->units[unitIndex];
    const auto& entry = unit.entries[entryIndex];
    const bool defines = entryIndex < unit.defining_entries;
    if (role == DefinesUnitRole) {
        return defines;
    }
    if (role == Qt::FontRole && (column == PathColumn || !defines)) {
        QFont font =
            column == PathColumn ? QFontDatabase::systemFont(QFontDatabase::FixedFont) : QFont();
        // What only the unit used reads as secondary to what defines it.
        font.setItalic(!defines);
        return font;
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case WhatColumn:
            return QString::fromUtf8(cachedir::to_string(entry.kind));
        case SizeColumn:
            return stats_text::bytes(entry.size);
        case LastWrittenColumn:
            return stats_text::age(entry.mtime_ns, plan_->now_ns);
        case RoleColumn:
            return defines ? tr("defines it") : tr("used only by it");
        case PathColumn:
            return QString::fromStdString(entry.path);
        default:
            return {};
        }
    }
    if (role == SortRole) {
        if (column == SizeColumn) {
            return QVariant::fromValue<qulonglong>(entry.size);
        }
        if (column == LastWrittenColumn) {
            return QVariant::fromValue<qlonglong>(entry.mtime_ns);
        }
        return entryData(unitIndex, entryIndex, column, Qt::DisplayRole);
    }
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case LastWrittenColumn:
            return stats_text::time(entry.mtime_ns);
        case SizeColumn:
            return tr("%L1 bytes in %2 files")
                .arg(static_cast<qulonglong>(entry.size))
                .arg(entry.files.size());
        case PathColumn:
        case WhatColumn:
            return literalText(entry.key.empty()
                                   ? QString::fromStdString(entry.path)
                                   : tr("key %1").arg(QString::fromStdString(entry.key)));
        default:
            return {};
        }
    }
    return {};
}

QVariant PrunePlanModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case WhatColumn:
        return tr("Why / kind");
    case SizeColumn:
        return tr("Size");
    case LastWrittenColumn:
        return tr("Last written");
    case RoleColumn:
        return tr("Part");
    case PathColumn:
        return tr("Path");
    default:
        return {};
    }
}

} // namespace cachelens::ui
