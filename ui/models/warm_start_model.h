#pragma once

// WarmStartModel: the compiles of the Warm start page, one row each: its id
// and function, each layer's outcome (an icon, the layer's word, the detail
// as tooltip), its compile time (a bar, TimeBarRole) and the cause of a miss.
// What it shows is the engine's warm-start report (trace/warm_start.h), as
// `cachelens report` prints it.

#include "data/entry_ref.h"

#include <cachelens/trace/warm_start.h>

#include <QAbstractTableModel>

#include <memory>
#include <optional>
#include <vector>

namespace cachelens::ui {

// What the page's job computes: the reports of every log read, and for each
// missed compile the FX entry of the cache dir whose miss it was (what the
// Why missed page explains), when the cache dir holds it.
struct WarmStartResult {
    std::vector<trace::WarmStartReport> reports;
    trace::WarmStartSummary summary;
    std::filesystem::path cacheDir; // empty: none given
    std::vector<Error> skipped;     // its entries that could not be read
    // Per row (every compile of every report, in order): the missed FX entry.
    std::vector<std::optional<EntryRef>> missEntries;
};

class WarmStartModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        CompileColumn,
        FunctionColumn,
        DynamoColumn,
        AotColumn,
        FxColumn,
        AutotuneColumn,
        TritonColumn,
        TimeColumn,
        CauseColumn,
        ColumnCount
    };
    enum Role {
        // TimeColumn: QVariantList of each layer's own time / the longest
        // compile's time (0..1, kLayers order), then the rest of its own time.
        TimeBarRole = Qt::UserRole + 1,
        MissedRole, // bool: the compile missed
    };

    explicit WarmStartModel(QObject* parent = nullptr);

    void setResult(std::shared_ptr<const WarmStartResult> result);
    void clear();
    const WarmStartResult* result() const { return result_.get(); }

    const trace::CompileWarmStart& compile(int row) const;
    const std::optional<EntryRef>& missEntry(int row) const;
    static std::optional<trace::Layer> layerOfColumn(int column);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const WarmStartResult> result_;
    std::vector<const trace::CompileWarmStart*> rows_;
    std::vector<const std::string*> logs_; // per row: the log it is from
    std::int64_t longest_ns_ = 0;
};

} // namespace cachelens::ui
