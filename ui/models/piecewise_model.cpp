#include "models/piecewise_model.h"

#include "text/engine_text.h"

#include <cachelens/core/format.h>

#include <QBrush>
#include <QColor>

namespace cachelens::ui {

PiecewiseModel::PiecewiseModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void PiecewiseModel::setGraphs(std::vector<serving::PiecewiseGraph> graphs) {
    beginResetModel();
    graphs_ = std::move(graphs);
    endResetModel();
}

int PiecewiseModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(graphs_.size());
}

int PiecewiseModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PiecewiseModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= static_cast<int>(graphs_.size())) {
        return {};
    }
    const auto& graph = graphs_[static_cast<std::size_t>(index.row())];
    const bool missing = graph.link != serving::PiecewiseGraph::Link::None && !graph.present;
    if (role == Qt::ForegroundRole && (missing || !graph.problem.empty()) &&
        (index.column() == PresentColumn || index.column() == ProblemColumn)) {
        return QBrush(QColor(0xc0, 0x20, 0x20));
    }
    if (role == Qt::ToolTipRole && index.column() == HandleColumn && graph.entry.handle) {
        return tr("Recorded as %1%2")
            .arg(text(graph.entry.handle->path))
            .arg(graph.moved ? tr(" (not this tree: compiled elsewhere, or moved)") : QString());
    }
    if (role == Qt::TextAlignmentRole &&
        (index.column() == GraphColumn || index.column() == KernelsColumn ||
         index.column() == CompileTimeColumn)) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (index.column()) {
    case GraphColumn:
        return graph.entry.graph_index ? QVariant(static_cast<qlonglong>(*graph.entry.graph_index))
                                       : QVariant(text(graph.entry.graph_name()));
    case ShapeColumn:
        return text(graph.entry.shape.describe());
    case CompilerColumn:
        return text(graph.entry.compiler);
    case PresentColumn:
        return graph.link == serving::PiecewiseGraph::Link::None ? tr("-")
               : graph.present                                   ? tr("yes")
                                                                 : tr("missing");
    case KernelsColumn:
        return graph.kernels ? QVariant(static_cast<qulonglong>(*graph.kernels)) : QVariant();
    case CompileTimeColumn:
        return graph.compile_ns ? text(format_duration_ns(*graph.compile_ns)) : QVariant();
    case HandleColumn:
        return graph.entry.handle ? text(graph.entry.handle->key) : tr("(none)");
    case ProblemColumn:
        return text(graph.problem);
    }
    return {};
}

QVariant PiecewiseModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case GraphColumn:
        return tr("Graph");
    case ShapeColumn:
        return tr("Shape / range");
    case CompilerColumn:
        return tr("Compiler");
    case PresentColumn:
        return tr("Present");
    case KernelsColumn:
        return tr("Kernels");
    case CompileTimeColumn:
        return tr("Compile time");
    case HandleColumn:
        return tr("FX entry / artifact");
    case ProblemColumn:
        return tr("Problem");
    }
    return {};
}

} // namespace cachelens::ui
