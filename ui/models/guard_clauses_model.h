#pragma once

// The guard playground's model: one row per clause of an entry's guards_expr
// (the operands of its top-level `and`) with the value it computed for the
// current symbol values and whether it passed, as `cachelens guards eval`
// prints them; and the helpers the playground needs around it (a passing hint
// vector to start from, a failing clause in one line).

#include <cachelens/guards/guard_expression.h>

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

namespace cachelens::ui {

class GuardClausesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { ClauseColumn, ValueColumn, ResultColumn, ColumnCount };
    enum class State { Unknown, Pass, Fail, Error };
    enum Role {
        StateRole = Qt::UserRole + 1, // int(State)
        ReachedRole,                  // false when Python's `and` stopped before the clause
    };

    explicit GuardClausesModel(QObject* parent = nullptr);

    // The clauses of `expression`, not yet evaluated.
    void setExpression(const guards::GuardExpression& expression);
    // Lights each clause pass/fail; the clauses must be `setExpression`'s.
    void setEvaluation(const guards::Evaluation& evaluation);
    // Back to unevaluated (a symbol has no value), keeping the clauses.
    void clearEvaluation();
    void clear();

    State state(int row) const;
    static QString stateName(State state);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString text;
        QString detail; // "L['t0'] = 64", or what it raised
        State state = State::Unknown;
        bool reached = true;
    };
    void rowsChanged();

    std::vector<Row> rows_;
};

// Values for every symbol of `expression` under which it passes, when a quick
// search over typical sizes and the expression's own constants finds some
// (a few thousand checks at most); otherwise every symbol is 1.
guards::Hints suggestHints(const guards::GuardExpression& expression);

// What one clause computed, for a person: the values of its non-literal
// operands ("L['t1']*L['t0'] = 2147549184"), what it raised, or its value.
QString clauseDetail(const guards::ClauseResult& clause);
// The first failing clause and its detail, "" when the evaluation passed:
// "L['t1']*L['t0'] <= 2147483647 (L['t1']*L['t0'] = 2147549184)".
QString describeFailure(const guards::Evaluation& evaluation);

// "t0" as PyTorch writes it in a guard: "L['t0']".
QString symbolLabel(const std::string& symbol);

} // namespace cachelens::ui
