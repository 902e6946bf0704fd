#pragma once

// The Serving page's table: one prefix's piecewise graphs (serving/
// piecewise.h), each with its shape or compile range, graph index, compiler,
// what its handle names and whether it is there, kernels and compile time.
// The engine's records are kept; text from the cache becomes a QString only
// in data(), as plain text.

#include <cachelens/serving/piecewise.h>

#include <QAbstractTableModel>

#include <vector>

namespace cachelens::ui {

class PiecewiseModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        GraphColumn,
        ShapeColumn,
        CompilerColumn,
        PresentColumn,
        KernelsColumn,
        CompileTimeColumn,
        HandleColumn,
        ProblemColumn,
        ColumnCount
    };

    explicit PiecewiseModel(QObject* parent = nullptr);

    void setGraphs(std::vector<serving::PiecewiseGraph> graphs);
    const std::vector<serving::PiecewiseGraph>& graphs() const { return graphs_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<serving::PiecewiseGraph> graphs_;
};

} // namespace cachelens::ui
