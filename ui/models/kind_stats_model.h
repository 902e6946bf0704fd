#pragma once

// The stats view's table: one row per entry kind (entries, files, bytes,
// oldest, newest, parse errors), summed over the roots shown, and a total
// row; and the proxy that sorts it by raw numbers while keeping the total last.

#include <cachelens/catalog/catalog.h>

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <vector>

namespace cachelens::ui {

class KindStatsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        KindColumn,
        EntriesColumn,
        FilesColumn,
        BytesColumn,
        OldestColumn,
        NewestColumn,
        ParseErrorsColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // the raw number (bytes, ns, count) or the kind's name
        IsTotalRole,                 // true on the total row
    };

    struct Row {
        cachedir::FileKind kind = cachedir::FileKind::Unknown;
        catalog::KindStats stats;
    };

    explicit KindStatsModel(QObject* parent = nullptr);

    // Sums every root's kinds; ages are shown relative to `now_ns`.
    void setStats(const std::vector<catalog::RootStats>& roots, std::int64_t now_ns);
    void clear();

    // The kinds (not the total), by kind.
    const std::vector<Row>& kinds() const { return rows_; }
    const catalog::KindStats& total() const { return total_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant cell(const catalog::KindStats& stats, const QString& name, int column, int role) const;

    std::vector<Row> rows_;
    catalog::KindStats total_;
    std::int64_t now_ns_ = 0;
};

// Sorts a KindStatsModel by SortRole; the total row stays last either way.
class KindStatsSortProxy : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit KindStatsSortProxy(QObject* parent = nullptr);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace cachelens::ui
