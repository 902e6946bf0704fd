#include "models/live_events_model.h"

#include "text/engine_text.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace cachelens::ui {

LiveEventsModel::LiveEventsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void LiveEventsModel::clear() {
    beginResetModel();
    rows_.clear();
    endResetModel();
}

void LiveEventsModel::append(Row row) {
    const int at = static_cast<int>(rows_.size());
    beginInsertRows({}, at, at);
    rows_.push_back(std::move(row));
    endInsertRows();
}

void LiveEventsModel::addEntry(const watch::WatchEvent& event, const QDateTime& at) {
    append({at, event, std::nullopt});
}

void LiveEventsModel::addTrace(const watch::TraceWatchEvent& event, const QDateTime& at) {
    append({at, std::nullopt, event});
}

int LiveEventsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int LiveEventsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LiveEventsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) {
        return {};
    }
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    // A recompile stands out; a trace event is the log's word on a compile
    // the rows above already show, so it is quieter.
    const bool recompile = row.entry && row.entry->recompile;
    if (role == Qt::ForegroundRole && (recompile || row.trace)) {
        return recompile ? QBrush(QColor(0xb0, 0x40, 0x00)) : QBrush(QColor(0x60, 0x60, 0x60));
    }
    if (role == Qt::FontRole && recompile) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole && index.column() == EventColumn) {
        if (row.entry) {
            return row.entry->kind == watch::WatchEvent::Kind::FxGraph
                       ? tr("%1\n%2\nDouble-click: why it missed, on the Why missed page")
                             .arg(text(row.entry->line), text(row.entry->path))
                       : tr("%1\n%2\nDouble-click: show it on Browse")
                             .arg(text(row.entry->line), text(row.entry->path));
        }
        return tr("%1\nIn the trace log %2, line %3")
            .arg(text(row.trace->line), text(row.trace->log))
            .arg(row.trace->event.line);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (index.column()) {
    case TimeColumn:
        return row.at.toString("HH:mm:ss");
    case KindColumn:
        if (row.trace) {
            return tr("trace");
        }
        return recompile ? tr("recompile") : text(watch::to_string(row.entry->kind));
    case EventColumn:
        return text(row.entry ? row.entry->line : row.trace->line);
    default:
        return {};
    }
}

QVariant LiveEventsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case KindColumn:
        return tr("Kind");
    case EventColumn:
        return tr("Event");
    default:
        return {};
    }
}

} // namespace cachelens::ui
