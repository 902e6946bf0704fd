#pragma once

// The Push dialog's report: one row per value push_local stores (or would
// store) on a Redis server: what happens to it (would set, already there,
// conflict, replaced; after the push: set), its cache, key, size, the local
// file it comes from and its Redis key. Conflicts are tinted and bold; a
// row's tooltip holds the whole Redis key and source.

#include "models/plan_table_model.h"

#include <cachelens/remote/remote_ops.h>

#include <QString>

#include <optional>

namespace cachelens::ui {

class PushPlanModel : public PlanTableModel {
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
    // ActionRole: the row's remote::PushAction.

    explicit PushPlanModel(QObject* parent = nullptr);

    // push_local's result: a dry run (`dryRun`) or what was stored, to `server`.
    void setResult(remote::PushResult result, bool dryRun, QString server);
    void clear();

    const std::optional<remote::PushResult>& result() const { return result_; }
    std::size_t count(remote::PushAction action) const;
    const remote::PushItem* item(int row) const;

    // "would set" / "would replace" before the push, the engine's word otherwise.
    static QString actionText(remote::PushAction action, bool dryRun);
    // As the CLI ends its report: "2 entries to redis://...: 1 to set, 0
    // already there, 1 conflicts".
    QString summaryText() const;

private:
    int rows() const override;
    QString display(int row, int column) const override;
    std::uint64_t bytes(int row) const override;
    int action(int row) const override;
    bool needsALook(int row) const override;
    QVariant background(int row) const override;
    QString toolTip(int row) const override;

    std::optional<remote::PushResult> result_;
    QString server_;
};

} // namespace cachelens::ui
