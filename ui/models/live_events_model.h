#pragma once

// The Live page's table: what `cachelens watch` prints, one row per event as
// it happens — a new cache entry (an FX graph with the cause of its miss, an
// AOTAutograd entry, an autotune result, a Triton kernel) or a cache event of
// the run's TORCH_TRACE log — newest last, recompiles marked. The engine's
// events are kept; text from the cache becomes a QString only in data().

#include <cachelens/watch/cache_watch.h>
#include <cachelens/watch/trace_watch.h>

#include <QAbstractTableModel>
#include <QDateTime>

#include <optional>
#include <vector>

namespace cachelens::ui {

class LiveEventsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { TimeColumn, KindColumn, EventColumn, ColumnCount };

    struct Row {
        QDateTime at;
        std::optional<watch::WatchEvent> entry; // else `trace`
        std::optional<watch::TraceWatchEvent> trace;
    };

    explicit LiveEventsModel(QObject* parent = nullptr);

    void clear();
    void addEntry(const watch::WatchEvent& event, const QDateTime& at);
    void addTrace(const watch::TraceWatchEvent& event, const QDateTime& at);
    const Row& row(int index) const { return rows_[static_cast<std::size_t>(index)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void append(Row row);
    std::vector<Row> rows_;
};

} // namespace cachelens::ui
