#pragma once

// The central table: every catalog entry a search matches, sorted and
// filtered. The first query loads the catalog's EntryIndex (every entry's
// filter and sort fields) in a job; each later filter or sort selects from
// that index in memory, with only the text's matches read from SQL (and
// those only when the text changed), so a 100k-entry catalog filters and
// sorts in milliseconds. The rows themselves are read a page at a time as
// the view scrolls to them, so the first paint never waits for the whole
// result. refresh() loads the index again (after an index or a prune).

#include "data/entry_ref.h"
#include "jobs/job_tracker.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/catalog/entry_index.h>

#include <QAbstractTableModel>
#include <QElapsedTimer>

#include <list>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace cachelens::ui {

class EntryTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        Kind,
        Graph, // an FX graph's role: forward, backward, inference
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

    EntryTableModel(JobPool& pool, QString catalogPath, QObject* parent = nullptr);

    // Runs the query (its sort, limit and offset are the model's own). Until
    // the first setQuery() or refresh(), sort() only sets the order.
    void setQuery(const catalog::SearchQuery& query);
    const catalog::SearchQuery& query() const { return query_; }
    // Runs the current query again on a fresh index (after an index or a prune).
    void refresh();
    bool isLoading() const { return loading_; }
    // The job its queries run in (benchmarks count them).
    JobTracker& job() const { return *job_; }

    // The row of the entry with this catalog id, if the table holds it.
    std::optional<int> rowOfId(std::int64_t id) const;
    // The row's entry, once its page is in (rows are read a page at a time,
    // in a job): nullopt until then.
    std::optional<catalog::SearchHit> hitAt(int row) const;
    bool isRowLoaded(int row) const;
    // The catalog id of the row's entry (known for every row, loaded or not).
    std::optional<std::int64_t> idAt(int row) const;
    // Rows of entries written at or after `ns` are shown in bold (View >
    // Follow changes marks what came since it began); nullopt: none.
    void markNewSince(std::optional<std::int64_t> ns);
    std::optional<std::int64_t> newSince() const { return newSince_; }

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

    // Selects the current query's rows; `reload`: from a fresh index and text matches.
    void select(bool reload);
    const catalog::SearchHit* hit(int row) const;
    // The page, or nullptr after asking for it (loadWantedPage()).
    const std::vector<catalog::SearchHit>* page(int number) const;
    void keepPage(int number, std::vector<catalog::SearchHit> hits) const;
    // Reads the newest page asked for in a job; the rest follow, one at a time.
    void loadWantedPage();

    JobTracker* job_;
    JobTracker* pageJob_;
    QString catalogPath_;
    catalog::SearchQuery query_;
    std::vector<std::int64_t> ids_;
    // Kept between queries, shared with the job that selects (both immutable).
    std::shared_ptr<const catalog::EntryIndex> index_;
    std::string matchedText_; // the text `matches_` are for
    std::shared_ptr<const std::optional<std::vector<std::int64_t>>> matches_;
    bool loading_ = false;
    bool queried_ = false; // refresh() ran: sort() runs the query again
    QElapsedTimer timer_;
    // Read in pageJob_, a page at a time, as the view asks for rows.
    mutable std::unordered_map<int, std::vector<catalog::SearchHit>> pages_;
    mutable std::list<int> pageOrder_; // least recently loaded first
    mutable std::set<int> wantedPages_;
    std::optional<int> loadingPage_;
    std::optional<std::int64_t> newSince_;
};

} // namespace cachelens::ui
