#pragma once

// The central table: every catalog entry a search matches, sorted and
// filtered in SQL. The ids of all matching rows are fetched in one job (a
// 100k-row catalog is a few MB of ids); the rows themselves are read a page
// at a time as the view scrolls to them, so the first paint never waits for
// the whole result.

#include "jobs/job_runner.h"
#include "models/entry_ref.h"

#include <cachelens/catalog/catalog.h>

#include <QAbstractTableModel>
#include <QElapsedTimer>

#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

namespace cachelens::ui {

class EntryTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        Kind,
        Key,
        KeyEntries,
        Size,
        Modified,
        Device,
        CompileTime,
        Guards,
        Path,
        ColumnCount
    };
    enum Role { EntryRefRole = Qt::UserRole + 1, EntryIdRole, RawValueRole };

    EntryTableModel(JobRunner& jobs, QString catalogPath, QObject* parent = nullptr);

    // Runs the query (its sort, limit and offset are the model's own). Until
    // the first setQuery() or refresh(), sort() only sets the order.
    void setQuery(const catalog::SearchQuery& query);
    const catalog::SearchQuery& query() const { return query_; }
    // Runs the current query again (after an index or a prune).
    void refresh();
    bool isLoading() const { return loading_; }

    // The row of the entry with this catalog id, if the table holds it.
    std::optional<int> rowOfId(std::int64_t id) const;
    std::optional<catalog::SearchHit> hitAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

signals:
    // The rows of a new result are in; `elapsedMs` from the query to here.
    void loaded(int rows, qint64 elapsedMs);
    void failed(const QString& message);

private:
    static constexpr int kPageSize = 256;
    static constexpr std::size_t kPagesKept = 64;

    const catalog::SearchHit* hit(int row) const;
    const std::vector<catalog::SearchHit>* page(int number) const;

    JobRunner& jobs_;
    QString catalogPath_;
    catalog::SearchQuery query_;
    std::vector<std::int64_t> ids_;
    bool loading_ = false;
    bool queried_ = false; // refresh() ran: sort() runs the query again
    QElapsedTimer timer_;
    // Read on the GUI thread, a page at a time; opened on first use.
    mutable std::optional<catalog::Catalog> reader_;
    mutable std::unordered_map<int, std::vector<catalog::SearchHit>> pages_;
    mutable std::list<int> pageOrder_; // least recently loaded first
};

} // namespace cachelens::ui
