#pragma once

// The prune dialog's tree: what a prune plan deletes, one top-level row per
// unit (what goes together), oldest first, with why it goes, when it was last
// written and its bytes; under it the entries, those that define it first,
// then what only they used.

#include <cachelens/catalog/prune.h>

#include <QAbstractItemModel>

#include <optional>

namespace cachelens::ui {

class PrunePlanModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { WhatColumn, SizeColumn, LastWrittenColumn, RoleColumn, PathColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw bytes or mtime
        DefinesUnitRole,             // entries: true for those that define their unit
    };

    explicit PrunePlanModel(QObject* parent = nullptr);

    // Ages are shown relative to the plan's now_ns.
    void setPlan(catalog::PrunePlan plan);
    void clear();

    const std::optional<catalog::PrunePlan>& prunePlan() const { return plan_; }
    std::size_t unitCount() const { return plan_ ? plan_->units.size() : 0; }
    std::size_t entryCount() const;
    // What the plan frees: bytes_before - bytes_after.
    std::uint64_t bytes() const;

    // Why a unit goes, as the CLI says it: "last written 40 days ago",
    // "oldest while over 12.0 MiB".
    static QString reasonText(const catalog::PrunePlan& plan, const catalog::PruneUnit& unit);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant unitData(std::size_t unit, int column, int role) const;
    QVariant entryData(std::size_t unit, std::size_t entry, int column, int role) const;

    // internalId: 0 for a unit, unit index + 1 for an entry under it.
    std::optional<catalog::PrunePlan> plan_;
};

} // namespace cachelens::ui
