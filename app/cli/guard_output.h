#pragma once

// How guard evaluations are printed, shared by `guards` and `lookup`.

#include "output.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/explain/guard_symbols.h>
#include <cachelens/guards/guard_expression.h>

#include <string>
#include <vector>

namespace cachelens::cli {

// A Python number as JSON: bool, int (a string of digits past int64), float
// (a string for inf/nan), null for None.
Json number_json(const guards::Number& number);

// {"result", "first_failure", "clauses": [{"text", "value", "pass", "reached", "symbols",
// "operands", "error"}]}
Json evaluation_json(const guards::Evaluation& evaluation);

// One line per clause: PASS/FAIL/ERROR/skip, the clause, its value and operands.
void print_evaluation(const guards::Evaluation& evaluation, const char* indent);

// "L['t1']*L['t0'] <= 2147483647 (L['t1']*L['t0'] = 2147549184)": the first failing clause.
std::string describe_failure(const guards::Evaluation& evaluation);

// The example inputs of an FX graph key, from the first of its entries that
// loads (a key's entries share them: the key hashes them). An aotautograd
// key or entry is an error: its guards read the inputs of the whole
// compiled function, which no debug line of it lists.
Result<std::vector<explain::ExampleInput>>
fx_key_inputs(const cachedir::Scan& scan, const std::vector<cachedir::Entry>& entries);

// What `--hints` or `--sizes` give (one of them, not both): hints for the
// guards, the sizes turned into t0, t1, ... through `inputs` (called only
// for --sizes).
template <typename InputsOf>
Result<guards::Hints> hints_or_sizes(const std::string& hints, const std::string& sizes,
                                     InputsOf inputs_of) {
    if (!hints.empty() && !sizes.empty()) {
        return fail(ErrorKind::InvalidArgument,
                    "give --hints or --sizes, not both: --sizes names the sizes (s72=48 or "
                    "input2.dim0=48) and derives the hints");
    }
    if (sizes.empty()) {
        auto parsed = guards::Hints::parse(hints);
        if (!parsed) {
            return fail(ErrorKind::InvalidArgument, "--hints: " + parsed.error().message);
        }
        return parsed;
    }
    auto inputs = inputs_of();
    if (!inputs) {
        return fail(ErrorKind::InvalidArgument, "--sizes: " + inputs.error().describe());
    }
    auto derived = explain::hints_from_sizes(*inputs, sizes);
    if (!derived) {
        return fail(ErrorKind::InvalidArgument, "--sizes: " + derived.error().message);
    }
    return derived;
}

// The hints of `--hints`/`--sizes` for a key's entries (hints_or_sizes), and
// its guard symbols named where its inputs say (none for an aotautograd key).
struct KeyHints {
    guards::Hints hints;
    std::vector<explain::GuardSymbol> symbols;
};
Result<KeyHints> key_hints(const cachedir::Scan& scan, const std::vector<cachedir::Entry>& entries,
                           const std::string& hints, const std::string& sizes);

// "t0=64, t1=128": what --sizes derived, as both commands print it.
std::string hints_text(const guards::Hints& hints);

// [{"name": "t0", "symbol": "s72", "expression": "s72", "input": 0, "dims":
// ["input 2 dim 0 ([s72, 128] int64 on cuda:0)"]}]: every symbol the
// guards read (`read`, "t0", ...), named where `symbols` knows it (null
// fields where not: an aotautograd entry's).
Json guard_symbols_json(const std::vector<explain::GuardSymbol>& symbols,
                        const std::vector<std::string>& read);

// "  t0 = s72 (input 0): input 2 dim 0 ([s72, 128] int64 on cuda:0)", one
// line per symbol read that `symbols` names.
void print_guard_symbols(const std::vector<explain::GuardSymbol>& symbols,
                         const std::vector<std::string>& read, const char* indent);

} // namespace cachelens::cli
