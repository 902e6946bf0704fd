#include "models/push_plan_model.h"

#include "text/engine_text.h"
#include "widgets/highlight_colors.h"
#include "text/plain_text.h"
#include "text/stats_text.h"

#include <cachelens/core/format.h>

#include <QBrush>
#include <QFont>
#include <QFontDatabase>
#include <QStringList>

namespace cachelens::ui {

namespace {

using remote::PushAction;

} // namespace

PushPlanModel::PushPlanModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void PushPlanModel::setResult(remote::PushResult result, bool dryRun, QString server) {
    beginResetModel();
    result_ = std::move(result);
    dryRun_ = dryRun;
    server_ = std::move(server);
    endResetModel();
}

void PushPlanModel::clear() {
    beginResetModel();
    result_.reset();
    server_.clear();
    endResetModel();
}

std::size_t PushPlanModel::count(PushAction action) const {
    return result_ ? result_->count(action) : 0;
}

const remote::PushItem* PushPlanModel::item(int row) const {
    if (!result_ || row < 0 || row >= static_cast<int>(result_->items.size())) {
        return nullptr;
    }
    return &result_->items[static_cast<std::size_t>(row)];
}

QString PushPlanModel::actionText(PushAction action, bool dryRun) {
    if (dryRun && action == PushAction::Set) {
        return tr("would set");
    }
    if (dryRun && action == PushAction::Replaced) {
        return tr("would replace");
    }
    return QString::fromUtf8(remote::to_string(action));
}

QString PushPlanModel::summaryText() const {
    if (!result_) {
        return {};
    }
    QString summary =
        tr("%1 to %2: ")
            .arg(stats_text::count(result_->items.size(), "entry", "entries"), server_) +
        (dryRun_ ? tr("%1 to set").arg(count(PushAction::Set))
                 : tr("%1 set").arg(count(PushAction::Set))) +
        tr(", %1 already there, %2")
            .arg(count(PushAction::AlreadyThere))
            .arg(stats_text::count(count(PushAction::Conflict), "conflict", "conflicts"));
    if (const auto replaced = count(PushAction::Replaced)) {
        summary += dryRun_ ? tr(", %1 to replace (Force)").arg(replaced)
                           : tr(", %1 replaced (Force)").arg(replaced);
    }
    return summary;
}

int PushPlanModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->items.size());
}

int PushPlanModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PushPlanModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto* row = item(index.row());
    if (row == nullptr) {
        return {};
    }
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case ActionColumn:
            return actionText(row->action, dryRun_);
        case CacheColumn:
            return QString::fromUtf8(remote::to_string(row->key.kind));
        case KeyColumn:
            return text(row->key.key);
        case SizeColumn:
            return text(format_bytes(row->size));
        case SourceColumn:
            return text(row->source);
        case RedisKeyColumn:
            return text(row->key.redis_key);
        }
        return {};
    case SortRole:
        if (column == SizeColumn) {
            return QVariant::fromValue<qulonglong>(row->size);
        }
        return data(index, Qt::DisplayRole);
    case ActionRole:
        return static_cast<int>(row->action);
    case Qt::ToolTipRole: {
        QStringList lines;
        lines << tr("%1 %2").arg(QString::fromUtf8(remote::to_string(row->key.kind)),
                                 text(row->key.key));
        lines << tr("Redis key %1").arg(text(row->key.redis_key));
        lines << tr("from %1, %L2 bytes; the stored value is %L3 bytes")
                     .arg(text(row->source))
                     .arg(static_cast<qulonglong>(row->size))
                     .arg(static_cast<qulonglong>(row->value.size()));
        if (row->action == PushAction::Conflict) {
            lines << tr("The server holds other data under this key: left alone unless Force is "
                        "checked.");
        }
        return literalText(lines.join(u'\n'));
    }
    case Qt::FontRole:
        if (column == KeyColumn || column == SourceColumn || column == RedisKeyColumn) {
            return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        }
        if (column == ActionColumn &&
            (row->action == PushAction::Conflict || row->action == PushAction::Replaced)) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::BackgroundRole:
        switch (row->action) {
        case PushAction::Conflict:
            return QBrush(highlight::changed());
        case PushAction::Replaced:
            return QBrush(dryRun_ ? highlight::changed() : highlight::pass());
        case PushAction::Set:
            return dryRun_ ? QVariant() : QVariant(QBrush(highlight::pass()));
        default:
            return {};
        }
    case Qt::TextAlignmentRole:
        if (column == SizeColumn) {
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    }
    return {};
}

QVariant PushPlanModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case ActionColumn:
        return tr("Action");
    case CacheColumn:
        return tr("Cache");
    case KeyColumn:
        return tr("Key");
    case SizeColumn:
        return tr("Size");
    case SourceColumn:
        return tr("Local file");
    case RedisKeyColumn:
        return tr("Redis key");
    }
    return {};
}

} // namespace cachelens::ui
