#pragma once

// What the import/pull and push reports have in common: one row per thing a
// dry run (or the run) touches, an action per row worded for a dry run or
// for what happened, a size column shown for people and sorted by bytes, key
// and path columns in a fixed font, the action bold where it needs a look,
// and a tooltip with all of a row. A subclass supplies its rows and columns.

#include <QAbstractTableModel>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>

namespace cachelens::ui {

class PlanTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        ActionRole = Qt::UserRole + 1, // the row's action enum, as an int
        SortRole,                      // raw size; the display text elsewhere
    };

    // Nothing written yet (a dry run), or what the run did.
    bool isDryRun() const { return dryRun_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

protected:
    struct Columns {
        QStringList headers; // one per column, in order
        int action = 0;      // the column of the action
        int size = 0;        // the column of the size
        QList<int> fixedFont{};
    };
    PlanTableModel(Columns columns, QObject* parent);

    virtual int rows() const = 0;
    virtual QString display(int row, int column) const = 0;
    virtual std::uint64_t bytes(int row) const = 0;
    virtual int action(int row) const = 0;
    // Whether the row's action is shown bold.
    virtual bool needsALook(int row) const = 0;
    // The row's tint; none: an invalid QVariant.
    virtual QVariant background(int row) const = 0;
    // Plain text, one fact a line.
    virtual QString toolTip(int row) const = 0;

    bool dryRun_ = true;

private:
    Columns columns_;
};

} // namespace cachelens::ui
