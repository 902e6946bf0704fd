#pragma once

// PyTorch's guard expressions, evaluated as PyTorch evaluates them without
// Python: `eval(guards_expr, SYMPY_INTERP, {"L": {"t0": hint0, ...}})` decides
// which cached entry of an FX graph key a shape hits. The expression is parsed
// once; check() then answers in a few hundred nanoseconds, evaluate() explains
// the answer clause by clause.

#include <cachelens/core/error.h>
#include <cachelens/guards/number.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::guards {

struct Program;

// Symbol values by name: L['t0'] reads the hint named "t0".
struct Hints {
    std::vector<std::pair<std::string, Number>> values;

    // t0, t1, ... in order.
    static Hints positional(std::span<const Number> values);
    // "64,128" (t0, t1) or "t1=5,t0=3"; ints of any size, floats ("1.5",
    // "inf"), True/False. Errors name the bad item.
    static Result<Hints> parse(std::string_view text);
    const Number* find(std::string_view symbol) const;
};

// Whether `hints` are values for exactly what some guards read, so that a
// typo is an error and not a plausible miss. `symbols_read` holds what each
// expression reads (symbols(); one set, or one per entry of a key: checked
// against their union). Every symbol read needs a value; every value must
// name a symbol read, except an L['tN'] below the highest one read: PyTorch
// passes one hint per symbolic input, t0, t1, ..., and a guard need not read
// each. `reader` names what reads them ("the guards of fabc"). Errors name
// the symbols: "1 value given, but the guards of fabc read 2 symbols:
// L['t0'], L['t1']".
Result<void> check_hints(const Hints& hints, std::span<const std::vector<std::string>> symbols_read,
                         std::string_view reader);

// One operand of a guard's top-level `and`, evaluated.
struct ClauseResult {
    std::string text;                 // the clause as written: "L['t1']*L['t0'] <= 2147483647"
    std::vector<std::string> symbols; // the symbols it reads ("t0"), sorted, unique
    std::optional<Number> value;      // nullopt when evaluating it raised
    std::string error;                // what it raised: "division by zero", "math domain error"
    bool passed = false;              // value is truthy
    bool reached = true;              // false when Python's `and` stopped before this clause
    // For a comparison (or Eq(a, b) ...): each operand's text and value, for
    // "fails: L['t1']*L['t0'] <= 2147483647 (got 2147549184)". Operands that
    // raised are left out.
    std::vector<std::pair<std::string, Number>> operands;
};

struct Evaluation {
    bool result = false;                      // what Python's eval gives, as a bool
    std::vector<ClauseResult> clauses;        // one per top-level `and` operand
    std::optional<std::size_t> first_failure; // the first clause that failed or raised
};

class GuardExpression {
public:
    // The empty guard: no clauses, always true (PyTorch hits an entry whose
    // guards_expr is empty without evaluating it).
    GuardExpression();
    // Parses a guard. Empty text is the empty guard. Errors say what was
    // expected and at which column ("column 7: expected an expression, found ')'").
    static Result<GuardExpression> parse(std::string_view text);

    const std::string& text() const;
    // Every symbol read, in natural order: t0, t1, ..., t10.
    const std::vector<std::string>& symbols() const;
    std::size_t clause_count() const;
    // The source text of clause `index` (below clause_count()) as written.
    std::string_view clause_text(std::size_t index) const;

    // Evaluates every clause (for display). `result`, `reached` and
    // `first_failure` follow Python's short circuit: a clause that raises
    // makes the result false; one after the first failing clause changes
    // nothing. Fails only when a reached clause reads a symbol with no hint
    // ("no hint for L['t2']").
    Result<Evaluation> evaluate(const Hints& hints) const;
    // Python's answer only, with the short circuit; no allocation in the
    // common all-int case. Fails as evaluate() does, and wherever Python
    // raises ("ZeroDivisionError: division by zero").
    Result<bool> check(const Hints& hints) const;
    // What Python's eval returns (`2 and 3` is 3); fails as check() does.
    Result<Number> value(const Hints& hints) const;

private:
    explicit GuardExpression(std::shared_ptr<const Program> program);

    std::shared_ptr<const Program> program_;
};

} // namespace cachelens::guards
