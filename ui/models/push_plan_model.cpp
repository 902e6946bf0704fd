#include "models/push_plan_model.h"

#include "text/counted.h"
#include "text/engine_text.h"
#include "text/stats_text.h"
#include "widgets/highlight_colors.h"

#include <cachelens/core/format.h>

#include <QBrush>
#include <QStringList>

namespace cachelens::ui {

namespace {

using remote::PushAction;

} // namespace

PushPlanModel::PushPlanModel(QObject* parent)
    : PlanTableModel({.headers = {tr("Action"), tr("Cache"), tr("Key"), tr("Size"),
                                  tr("Local file"), tr("Redis key")},
                      .action = ActionColumn,
                      .size = SizeColumn,
                      .fixedFont = {KeyColumn, SourceColumn, RedisKeyColumn}},
                     parent) {}

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
    QString summary = tr("%1 to %2: ").arg(counted(result_->items.size(), "entry"), server_) +
                      (dryRun_ ? tr("%1 to set").arg(count(PushAction::Set))
                               : tr("%1 set").arg(count(PushAction::Set))) +
                      tr(", %1 already there, %2")
                          .arg(count(PushAction::AlreadyThere))
                          .arg(counted(count(PushAction::Conflict), "conflict"));
    if (const auto replaced = count(PushAction::Replaced)) {
        summary += dryRun_ ? tr(", %1 to replace (Force)").arg(replaced)
                           : tr(", %1 replaced (Force)").arg(replaced);
    }
    return summary;
}

int PushPlanModel::rows() const {
    return result_ ? static_cast<int>(result_->items.size()) : 0;
}

QString PushPlanModel::display(int row, int column) const {
    const auto& pushed = result_->items[static_cast<std::size_t>(row)];
    switch (column) {
    case ActionColumn:
        return actionText(pushed.action, dryRun_);
    case CacheColumn:
        return QString::fromUtf8(remote::to_string(pushed.key.kind));
    case KeyColumn:
        return text(pushed.key.key);
    case SizeColumn:
        return text(format_bytes(pushed.size));
    case SourceColumn:
        return text(pushed.source);
    case RedisKeyColumn:
        return text(pushed.key.redis_key);
    }
    return {};
}

std::uint64_t PushPlanModel::bytes(int row) const {
    return result_->items[static_cast<std::size_t>(row)].size;
}

int PushPlanModel::action(int row) const {
    return static_cast<int>(result_->items[static_cast<std::size_t>(row)].action);
}

bool PushPlanModel::needsALook(int row) const {
    const auto action = result_->items[static_cast<std::size_t>(row)].action;
    return action == PushAction::Conflict || action == PushAction::Replaced;
}

QVariant PushPlanModel::background(int row) const {
    switch (result_->items[static_cast<std::size_t>(row)].action) {
    case PushAction::Conflict:
        return QBrush(highlight::changed());
    case PushAction::Replaced:
        return QBrush(dryRun_ ? highlight::changed() : highlight::pass());
    case PushAction::Set:
        return dryRun_ ? QVariant() : QVariant(QBrush(highlight::pass()));
    default:
        return {};
    }
}

QString PushPlanModel::toolTip(int row) const {
    const auto& pushed = result_->items[static_cast<std::size_t>(row)];
    QStringList lines;
    lines << tr("%1 %2").arg(QString::fromUtf8(remote::to_string(pushed.key.kind)),
                             text(pushed.key.key));
    lines << tr("Redis key %1").arg(text(pushed.key.redis_key));
    lines << tr("from %1, %L2 bytes; the stored value is %L3 bytes")
                 .arg(text(pushed.source))
                 .arg(static_cast<qulonglong>(pushed.size))
                 .arg(static_cast<qulonglong>(pushed.value.size()));
    if (pushed.action == PushAction::Conflict) {
        lines << tr("The server holds other data under this key: left alone unless Force is "
                    "checked.");
    }
    return lines.join(u'\n');
}

} // namespace cachelens::ui
