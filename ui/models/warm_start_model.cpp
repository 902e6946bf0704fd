#include "models/warm_start_model.h"

#include "text/engine_text.h"
#include "text/plain_text.h"

#include <cachelens/core/format.h>

#include <QColor>
#include <QIcon>
#include <QPainter>
#include <QPixmap>

namespace cachelens::ui {

namespace {

// A filled dot per outcome, drawn once: green hit, red miss, amber bypass,
// grey outline for nothing to do, hollow dashed for not logged.
QIcon outcomeIcon(trace::Outcome outcome) {
    static const auto make = [](QColor fill, QColor line, Qt::PenStyle style) {
        QPixmap pixmap(14, 14);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(line, 1.5, style));
        painter.setBrush(fill);
        painter.drawEllipse(QRectF(2, 2, 10, 10));
        return QIcon(pixmap);
    };
    static const QIcon hit = make(QColor(40, 170, 60), QColor(20, 110, 40), Qt::SolidLine);
    static const QIcon miss = make(QColor(220, 50, 50), QColor(150, 20, 20), Qt::SolidLine);
    static const QIcon bypass = make(QColor(240, 170, 0), QColor(160, 110, 0), Qt::SolidLine);
    static const QIcon notNeeded =
        make(QColor(170, 170, 170), QColor(120, 120, 120), Qt::SolidLine);
    static const QIcon notLogged = make(Qt::transparent, QColor(140, 140, 140), Qt::DotLine);
    switch (outcome) {
    case trace::Outcome::Hit:
        return hit;
    case trace::Outcome::Miss:
        return miss;
    case trace::Outcome::Bypass:
        return bypass;
    case trace::Outcome::NotNeeded:
        return notNeeded;
    case trace::Outcome::NotLogged:
        return notLogged;
    }
    return notLogged;
}

} // namespace

WarmStartModel::WarmStartModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void WarmStartModel::setResult(std::shared_ptr<const WarmStartResult> result) {
    beginResetModel();
    result_ = std::move(result);
    rows_.clear();
    logs_.clear();
    longest_ns_ = 0;
    if (result_) {
        for (const auto& report : result_->reports) {
            for (const auto& compile : report.compiles) {
                rows_.push_back(&compile);
                logs_.push_back(&report.path);
                longest_ns_ = std::max(longest_ns_, compile.total_ns.value_or(0));
            }
        }
    }
    endResetModel();
}

void WarmStartModel::clear() {
    setResult(nullptr);
}

const trace::CompileWarmStart& WarmStartModel::compile(int row) const {
    return *rows_.at(static_cast<std::size_t>(row));
}

const std::optional<EntryRef>& WarmStartModel::missEntry(int row) const {
    return result_->missEntries.at(static_cast<std::size_t>(row));
}

std::optional<trace::Layer> WarmStartModel::layerOfColumn(int column) {
    if (column < DynamoColumn || column > TritonColumn) {
        return std::nullopt;
    }
    return trace::kLayers[static_cast<std::size_t>(column - DynamoColumn)];
}

int WarmStartModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int WarmStartModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WarmStartModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const trace::CompileWarmStart& row = compile(index.row());
    if (role == MissedRole) {
        return row.missed;
    }
    if (const auto layer = layerOfColumn(index.column())) {
        const trace::LayerReport& report = row.layer(*layer);
        switch (role) {
        case Qt::DisplayRole:
            return text(trace::outcome_label(report.layer, report.outcome));
        case Qt::DecorationRole:
            return outcomeIcon(report.outcome);
        case Qt::ToolTipRole:
            return literalText(text(report.detail) +
                               (report.time_ns ? QStringLiteral("\n%1 in its phases")
                                                     .arg(text(format_duration_ns(*report.time_ns)))
                                               : QString()));
        default:
            return {};
        }
    }
    switch (index.column()) {
    case CompileColumn:
        if (role == Qt::DisplayRole) {
            return text(row.compile_id);
        }
        if (role == Qt::ToolTipRole) { // two logs (processes) both have a 0/0
            return literalText(text(*logs_[static_cast<std::size_t>(index.row())]));
        }
        break;
    case FunctionColumn:
        if (role == Qt::DisplayRole) {
            return row.function.empty() ? tr("(unknown frame)") : text(row.function);
        }
        if (role == Qt::ToolTipRole && !row.filename.empty()) {
            return literalText(
                QStringLiteral("%1:%2").arg(text(row.filename)).arg(row.line.value_or(0)));
        }
        break;
    case TimeColumn:
        if (role == Qt::DisplayRole) {
            return row.total_ns ? text(format_duration_ns(*row.total_ns)) : QStringLiteral("-");
        }
        if (role == Qt::TextAlignmentRole) {
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
        if (role == TimeBarRole && longest_ns_ > 0) {
            QVariantList parts;
            std::int64_t layers = 0;
            for (const auto& layer : row.layers) {
                const std::int64_t ns = layer.time_ns.value_or(0);
                layers += ns;
                parts << static_cast<double>(ns) / static_cast<double>(longest_ns_);
            }
            parts << static_cast<double>(
                         std::max<std::int64_t>(0, row.total_ns.value_or(0) - layers)) /
                         static_cast<double>(longest_ns_);
            return parts;
        }
        break;
    case CauseColumn:
        if (role == Qt::DisplayRole) {
            if (row.cause) {
                return text(row.cause->text);
            }
            return row.missed ? QString() : (row.has_cache_events() ? tr("hit") : QString());
        }
        if (role == Qt::ToolTipRole && row.cause) {
            return literalText(tr("%1\nmissed: %2\nnearest: %3")
                                   .arg(text(row.cause->text), text(row.cause->key),
                                        row.cause->nearest_key.empty()
                                            ? tr("none")
                                            : text(row.cause->nearest_key)));
        }
        break;
    default:
        break;
    }
    return {};
}

QVariant WarmStartModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    if (const auto layer = layerOfColumn(section)) {
        return text(trace::layer_title(*layer));
    }
    switch (section) {
    case CompileColumn:
        return tr("Compile");
    case FunctionColumn:
        return tr("Function");
    case TimeColumn:
        return tr("Compile time");
    case CauseColumn:
        return tr("Cause of the miss");
    default:
        return {};
    }
}

} // namespace cachelens::ui
