#pragma once

// The Push dialog's report: one row per value push_local stores (or would
// store) on a Redis server: what happens to it (would set, already there,
// conflict, replaced; after the push: set), its cache, key, size, the local
// file it comes from and its Redis key. Conflicts are tinted and bold; a
// row's tooltip holds the whole Redis key and source.

#include <cachelens/remote/remote_ops.h>

#include <QAbstractTableModel>
#include <QString>

#include <optional>

namespace cachelens::ui {

class PushPlanModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        ActionColumn,
        CacheColumn,
        KeyColumn,
        SizeColumn,
        SourceColumn,
        RedisKeyColumn,
        ColumnCount
    };
    enum Role {
        ActionRole = Qt::UserRole + 1, // the row's remote::PushAction, as an int
        SortRole,                      // raw size; the display text elsewhere
    };

    explicit PushPlanModel(QObject* parent = nullptr);

    // push_local's result: a dry run (`dryRun`) or what was stored, to `server`.
    void setResult(remote::PushResult result, bool dryRun, QString server);
    void clear();

    const std::optional<remote::PushResult>& result() const { return result_; }
    bool isDryRun() const { return dryRun_; }
    std::size_t count(remote::PushAction action) const;
    const remote::PushItem* item(int row) const;

    // "would set" / "would replace" before the push, the engine's word otherwise.
    static QString actionText(remote::PushAction action, bool dryRun);
    // As the CLI ends its report: "2 entries to redis://...: 1 to set, 0
    // already there, 1 conflicts".
    QString summaryText() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::optional<remote::PushResult> result_;
    bool dryRun_ = true;
    QString server_;
};

} // namespace cachelens::ui
