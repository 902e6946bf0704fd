#pragma once

// The Debug lines tab's model: an FX entry's cache-key debug lines, one row
// each (hash, attribute, value), split by cachedir::parse_debug_line. A value
// spanning lines (the `gm` graph) shows its first line; FullValueRole and
// the tooltip give all of it.

#include <QAbstractTableModel>
#include <QString>

#include <string_view>
#include <vector>

namespace cachelens::ui {

class DebugLinesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { HashColumn, AttributeColumn, ValueColumn, ColumnCount };
    enum Role {
        FullValueRole = Qt::UserRole + 1, // the whole value
        LineTextRole,                     // the whole line as recorded
        FilterTextRole,                   // attribute and value, for the filter
    };

    explicit DebugLinesModel(QObject* parent = nullptr);

    // Copies what it shows: the lines may be views into content that goes away.
    void setLines(const std::vector<std::string_view>& lines);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString hash;
        QString attribute; // "inductor_config[benchmark_kernel]"
        QString value;
        QString firstLine; // with " …(+N lines)" when the value has more
        QString text;
    };
    std::vector<Row> rows_;
};

} // namespace cachelens::ui
