#pragma once

// "Why did this miss?": the FX graph keys nearest to one entry's key among the
// FX entries of some cache dirs (explain::nearest_graphs, what `cachelens why`
// prints), and NearestKeysModel, one row per candidate: rank, key, root, its
// relation (the same graph compiled before, or another graph), shared debug
// lines / total, the attributes that differ.

#include "data/entry_ref.h"

#include <cachelens/core/error.h>
#include <cachelens/explain/nearest_keys.h>

#include <QAbstractTableModel>

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace cachelens::ui {

struct NearestKeys {
    EntryRef target;
    std::string targetKey;
    std::size_t debugLines = 0; // the target's
    cachedir::GraphRole targetRole = cachedir::GraphRole::Unknown;
    std::size_t candidateCount = 0; // FX entries searched (the target's own key excluded)
    std::size_t rootCount = 0;
    struct Candidate {
        EntryRef ref; // root and FX graph entry, ready to compare
        explain::NearKey near;
    };
    std::vector<Candidate> nearest;        // the target's family first, then other graphs
    bool firstCompile = false;             // no graph searched is the target's compiled before
    std::size_t family = 0;                // graphs searched of the target's family
    std::vector<explain::SameKey> sameKey; // the target's very key in another root
    std::string answer;                    // explain::why_answer: the first line
    std::string detail;                    // explain::why_detail, for entries without debug lines
    bool fromFacts = false;                // compared by what the entries hold
    std::size_t incomparable = 0;          // entries not comparable with the target
    std::vector<std::string> skipped;      // what could not be read (Error::describe)
};

// explain::why_missed (what `cachelens why` runs) for `target`, searching its
// own root and `roots`, each once; keeps the first `limit`. Fails when the
// target is not a readable FX graph entry or a root is not a cache dir, or
// when `cancel` is set. Slow (reads every FX entry): call it off the GUI thread.
Result<NearestKeys> findNearestKeys(const EntryRef& target,
                                    std::vector<std::filesystem::path> roots, std::size_t limit,
                                    const std::atomic<bool>* cancel = nullptr);

class NearestKeysModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        RankColumn,
        KeyColumn,
        RootColumn,
        RelationColumn, // "forward graph compiled before" or "other forward graph"
        SharedColumn,
        VerdictColumn, // why the explained key missed this one, in one line
        DifferingColumn,
        InputsColumn, // the example inputs that changed, aligned by what they are
        ColumnCount
    };
    enum Role { SharedFractionRole = Qt::UserRole + 1 }; // shared / total, a double

    explicit NearestKeysModel(QObject* parent = nullptr);

    void setResult(std::shared_ptr<const NearestKeys> result); // null clears
    void clear() { setResult(nullptr); }
    const NearestKeys* result() const { return result_.get(); }
    const NearestKeys::Candidate& candidate(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const NearestKeys> result_;
};

} // namespace cachelens::ui
