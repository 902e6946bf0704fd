#include "models/guard_clauses_model.h"

#include "text/plain_text.h"
#include "widgets/highlight_colors.h"

#include <QStringList>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

namespace cachelens::ui {

namespace {

guards::Hints uniform(const std::vector<std::string>& symbols, std::int64_t value) {
    guards::Hints hints;
    for (const auto& symbol : symbols) {
        hints.values.emplace_back(symbol, guards::Number::integer(value));
    }
    return hints;
}

// How many clauses pass; -1 when the evaluation fails.
int score(const guards::GuardExpression& expression, const guards::Hints& hints) {
    auto evaluation = expression.evaluate(hints);
    if (!evaluation) {
        return -1;
    }
    return static_cast<int>(std::count_if(evaluation->clauses.begin(), evaluation->clauses.end(),
                                          [](const auto& clause) { return clause.passed; }));
}

bool passes(const guards::GuardExpression& expression, const guards::Hints& hints) {
    auto result = expression.check(hints);
    return result && *result;
}

// Typical sizes first (a prefilled 64 reads better than 2), then the bounds the
// guard itself names and their neighbours (Eq(L['t0'], 7), L['t1'] <= 4096).
std::vector<std::int64_t> candidateValues(std::string_view text) {
    std::vector<std::int64_t> values = {64, 128, 16, 8, 32, 1024, 4096, 4, 3, 2, 100, 1, 0};
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] < '0' || text[i] > '9' ||
            (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) != 0 ||
                       text[i - 1] == '_' || text[i - 1] == '.'))) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && text[end] >= '0' && text[end] <= '9') {
            ++end;
        }
        std::int64_t value = 0;
        const auto [ptr, error] = std::from_chars(text.data() + i, text.data() + end, value);
        // Sizes past 2^40 are overflow bounds, not sizes anyone picks.
        if (error == std::errc{} && ptr == text.data() + end && value < (std::int64_t{1} << 40)) {
            for (std::int64_t v : {value, value + 1, value - 1}) {
                if (v >= 0 && std::find(values.begin(), values.end(), v) == values.end()) {
                    values.push_back(v);
                }
            }
        }
        i = end;
    }
    constexpr std::size_t kMaxValues = 40; // bounds the search below
    if (values.size() > kMaxValues) {
        values.resize(kMaxValues);
    }
    return values;
}

} // namespace

GuardClausesModel::GuardClausesModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void GuardClausesModel::setExpression(const guards::GuardExpression& expression) {
    beginResetModel();
    rows_.clear();
    for (std::size_t i = 0; i < expression.clause_count(); ++i) {
        const auto text = expression.clause_text(i);
        rows_.push_back({QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())),
                         {},
                         State::Unknown,
                         true});
    }
    endResetModel();
}

void GuardClausesModel::setEvaluation(const guards::Evaluation& evaluation) {
    if (evaluation.clauses.size() != rows_.size()) {
        // Not this expression's: show the clauses it has (never index past them).
        beginResetModel();
        rows_.assign(evaluation.clauses.size(), Row{});
        endResetModel();
    }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const auto& clause = evaluation.clauses[i];
        Row& row = rows_[i];
        row.text = QString::fromStdString(clause.text);
        row.detail = clauseDetail(clause);
        row.state = !clause.error.empty() ? State::Error
                    : clause.passed       ? State::Pass
                                          : State::Fail;
        row.reached = clause.reached;
    }
    rowsChanged();
}

void GuardClausesModel::clearEvaluation() {
    for (Row& row : rows_) {
        row.detail.clear();
        row.state = State::Unknown;
        row.reached = true;
    }
    rowsChanged();
}

void GuardClausesModel::clear() {
    beginResetModel();
    rows_.clear();
    endResetModel();
}

void GuardClausesModel::rowsChanged() {
    // Values change in place as the user types: keep the view's selection and scroll.
    if (!rows_.empty()) {
        emit dataChanged(index(0, 0), index(static_cast<int>(rows_.size()) - 1, ColumnCount - 1));
    }
}

GuardClausesModel::State GuardClausesModel::state(int row) const {
    return rows_.at(static_cast<std::size_t>(row)).state;
}

QString GuardClausesModel::stateName(State state) {
    switch (state) {
    case State::Unknown:
        return tr("—");
    case State::Pass:
        return tr("PASS");
    case State::Fail:
        return tr("FAIL");
    case State::Error:
        return tr("ERROR");
    }
    return {};
}

int GuardClausesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int GuardClausesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GuardClausesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ClauseColumn:
            return row.text;
        case ValueColumn:
            return row.detail;
        case ResultColumn:
            return row.reached || row.state == State::Unknown
                       ? stateName(row.state)
                       : tr("%1 (not reached)").arg(stateName(row.state));
        }
        return {};
    case Qt::ToolTipRole:
        if (!row.reached) {
            return tr("Python's `and` stops at the first failing clause: PyTorch never "
                      "evaluates this one");
        }
        return literalText(index.column() == ValueColumn ? row.detail : row.text);
    case Qt::BackgroundRole:
        switch (row.state) {
        case State::Pass:
            return row.reached ? highlight::pass() : highlight::skipped();
        case State::Fail:
        case State::Error:
            return row.reached ? highlight::fail() : highlight::skipped();
        case State::Unknown:
            return {};
        }
        return {};
    case StateRole:
        return static_cast<int>(row.state);
    case ReachedRole:
        return row.reached;
    default:
        return {};
    }
}

QVariant GuardClausesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case ClauseColumn:
        return tr("Clause");
    case ValueColumn:
        return tr("Value");
    case ResultColumn:
        return tr("Result");
    }
    return {};
}

guards::Hints suggestHints(const guards::GuardExpression& expression) {
    const auto& symbols = expression.symbols();
    if (symbols.empty()) {
        return {};
    }
    const auto values = candidateValues(expression.text());
    for (std::int64_t value : values) {
        if (auto hints = uniform(symbols, value); passes(expression, hints)) {
            return hints;
        }
    }
    // Coordinate ascent from the best uniform vector: change one symbol at a
    // time to whatever passes more clauses. Each evaluation takes microseconds.
    guards::Hints best = uniform(symbols, values.front());
    int bestScore = score(expression, best);
    for (std::int64_t value : values) {
        auto hints = uniform(symbols, value);
        if (const int s = score(expression, hints); s > bestScore) {
            best = std::move(hints);
            bestScore = s;
        }
    }
    constexpr int kSweeps = 4;
    for (int sweep = 0; sweep < kSweeps && bestScore >= 0; ++sweep) {
        bool improved = false;
        for (auto& [symbol, number] : best.values) {
            for (std::int64_t value : values) {
                const guards::Number previous = number;
                number = guards::Number::integer(value);
                if (const int s = score(expression, best); s > bestScore) {
                    bestScore = s;
                    improved = true;
                } else {
                    number = previous;
                }
            }
            if (passes(expression, best)) {
                return best;
            }
        }
        if (!improved) {
            break;
        }
    }
    return uniform(symbols, 1);
}

QString clauseDetail(const guards::ClauseResult& clause) {
    if (!clause.error.empty()) {
        return QObject::tr("raises %1").arg(QString::fromStdString(clause.error));
    }
    QStringList values;
    for (const auto& [text, value] : clause.operands) {
        // Literal operands say nothing new.
        if (text != value.repr()) {
            values << QString::fromStdString(text + " = " + value.repr());
        }
    }
    if (values.isEmpty() && clause.value) {
        return QString::fromStdString(clause.value->repr());
    }
    return values.join(QStringLiteral(", "));
}

QString describeFailure(const guards::Evaluation& evaluation) {
    if (!evaluation.first_failure || *evaluation.first_failure >= evaluation.clauses.size()) {
        return {};
    }
    const auto& clause = evaluation.clauses[*evaluation.first_failure];
    const QString detail = clauseDetail(clause);
    const QString text = QString::fromStdString(clause.text);
    return detail.isEmpty() ? text : text + QStringLiteral(" (") + detail + u')';
}

QString symbolLabel(const std::string& symbol) {
    return QStringLiteral("L['%1']").arg(QString::fromStdString(symbol));
}

} // namespace cachelens::ui
