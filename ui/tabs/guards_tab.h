#pragma once

// GuardsTab, the "Guards" tab of FX graph and AOTAutograd entries: a
// playground for the entry's guards_expr. One field per symbol (L['t0'] ...),
// prefilled with values that pass; each clause lit pass/fail as the values
// change (evaluated on the GUI thread: microseconds); the verdict; and which
// entry of the key PyTorch would load for these values (explain::simulate_lookup,
// off the GUI thread: it reads every entry of the key dir).

#include "tabs/entry_tab.h"

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

    // Sets a symbol's value as if typed: "t0" or "L['t0']". Unknown symbols are ignored.
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
        std::string symbol; // "t0"
        QAbstractSpinBox* edit;
    };
    std::vector<SymbolEditor> editors_;

    GuardClausesModel* model_;
    QLabel* title_;
    QLabel* expressionText_;
    QLabel* error_;
    QWidget* playground_;
    QGridLayout* symbols_;
    QPushButton* reset_;
    QTableView* table_;
    QLabel* verdict_;
    QLabel* lookupResult_;
    QTimer* lookupDelay_;
};

} // namespace cachelens::ui
