#pragma once

// GuardsTab, the "Guards" tab of FX graph and AOTAutograd entries: a
// playground for the entry's guards_expr. For an FX graph, one field per size
// of the graph (s72, named by the input dims that carry it) and each L['tN']
// derived from them (explain::hints_from_sizes, what `--sizes` does); where
// the inputs do not say (an AOTAutograd entry), one field per L['tN']. Both
// prefilled with values that pass; each clause lit pass/fail as the values
// change (evaluated on the GUI thread: microseconds); the verdict; and which
// entry of the key PyTorch would load for these values (explain::simulate_lookup,
// off the GUI thread: it reads every entry of the key dir).

#include "tabs/entry_tab.h"

#include <cachelens/explain/guard_symbols.h>
#include <cachelens/guards/guard_expression.h>

#include <QString>

#include <optional>
#include <string>
#include <vector>

class QAbstractItemModel;
class QAbstractSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QTableView;
class QTimer;

namespace cachelens::ui {

class GuardClausesModel;
class JobPool;
class JobTracker;

class GuardsTab : public EntryTab {
    Q_OBJECT

public:
    explicit GuardsTab(JobPool& pool, QWidget* parent = nullptr);
    ~GuardsTab() override;

    bool appliesTo(cachedir::FileKind kind) const override;
    void showEntry(const EntryRef& ref, const SharedContent& content) override;
    void clear() override;

    // Sets a value as if typed: a size ("s72"), or a guard symbol ("t0",
    // "L['t0']"; one that is a size sets that size's field). Others are ignored.
    void setSymbolValue(const QString& symbol, qint64 value);
    QAbstractItemModel* clauses() const;

private:
    void buildSymbolEditors();
    void resetToSuggested();
    void evaluate();
    void startLookup();
    // The values typed so far; nullopt (and the symbol) when one is not a number.
    std::optional<guards::Hints> currentHints(QString* bad = nullptr) const;

    JobTracker* lookupJob_;
    EntryRef ref_;
    std::optional<guards::GuardExpression> expression_;
    struct SymbolEditor {
        std::string symbol; // "t0", or a size ("s72") in sizes mode
        QAbstractSpinBox* edit;
    };
    std::vector<SymbolEditor> editors_;
    // Sizes mode: the graph's inputs say what every symbol read is.
    std::vector<explain::ExampleInput> inputs_;
    std::vector<explain::GuardSymbol> guardSymbols_;
    bool sizesMode_ = false;

    GuardClausesModel* model_;
    QLabel* title_;
    QLabel* expressionText_;
    QLabel* error_;
    QWidget* playground_;
    QGridLayout* symbols_;
    QLabel* derived_; // sizes mode: "t0 = s72 = 48, t1 = 128*s72 = 6144"
    QPushButton* reset_;
    QTableView* table_;
    QLabel* verdict_;
    QLabel* lookupResult_;
    QTimer* lookupDelay_;
};

} // namespace cachelens::ui
