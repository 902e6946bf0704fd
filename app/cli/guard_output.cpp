#include "guard_output.h"

#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/explain/entry_facts.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cachelens::cli {

Json number_json(const guards::Number& number) {
    switch (number.kind()) {
    case guards::Number::Kind::None:
        return nullptr;
    case guards::Number::Kind::Bool:
        return number.bool_value();
    case guards::Number::Kind::Int:
        return number.is_small() ? Json(number.small()) : Json(number.repr());
    case guards::Number::Kind::Float:
        return std::isfinite(number.float_value()) ? Json(number.float_value())
                                                   : Json(number.repr());
    }
    return nullptr;
}

Json evaluation_json(const guards::Evaluation& evaluation) {
    Json clauses = Json::array();
    for (const auto& clause : evaluation.clauses) {
        Json operands = Json::array();
        for (const auto& [text, value] : clause.operands) {
            operands.push_back({{"text", text}, {"value", number_json(value)}});
        }
        Json item = {{"text", clause.text},
                     {"value", clause.value ? number_json(*clause.value) : Json(nullptr)},
                     {"pass", clause.passed},
                     {"reached", clause.reached},
                     {"symbols", clause.symbols},
                     {"operands", std::move(operands)}};
        if (!clause.error.empty()) {
            item["error"] = clause.error;
        }
        clauses.push_back(std::move(item));
    }
    return {{"result", evaluation.result},
            {"first_failure",
             evaluation.first_failure ? Json(*evaluation.first_failure) : Json(nullptr)},
            {"clauses", std::move(clauses)}};
}

std::string describe_failure(const guards::Evaluation& evaluation) {
    if (!evaluation.first_failure) {
        return {};
    }
    const auto& clause = evaluation.clauses[*evaluation.first_failure];
    std::string out = clause.text;
    if (!clause.error.empty()) {
        return out + " (raises " + clause.error + ")";
    }
    std::string values;
    for (const auto& [text, value] : clause.operands) {
        // Literal operands say nothing new.
        if (text == value.repr()) {
            continue;
        }
        values += (values.empty() ? "" : ", ") + text + " = " + value.repr();
    }
    if (values.empty() && clause.value) {
        values = "got " + clause.value->repr();
    }
    return values.empty() ? out : out + " (" + values + ")";
}

void print_evaluation(const guards::Evaluation& evaluation, const char* indent) {
    for (const auto& clause : evaluation.clauses) {
        const char* verdict = !clause.reached         ? "skip "
                              : !clause.error.empty() ? "ERROR"
                              : clause.passed         ? "PASS "
                                                      : "FAIL ";
        std::string detail;
        if (!clause.error.empty()) {
            detail = clause.error;
        } else {
            for (const auto& [text, value] : clause.operands) {
                if (text != value.repr()) {
                    detail += (detail.empty() ? "" : ", ") + text + " = " + value.repr();
                }
            }
        }
        std::printf("%s%s %s%s%s%s\n", indent, verdict, clause.text.c_str(),
                    detail.empty() ? "" : "   [", detail.c_str(), detail.empty() ? "" : "]");
    }
}

Result<std::vector<explain::ExampleInput>>
fx_key_inputs(const cachedir::Scan& scan, const std::vector<cachedir::Entry>& entries) {
    std::optional<Error> first_error;
    for (const auto& entry : entries) {
        if (entry.kind != cachedir::FileKind::FxGraph) {
            return fail(ErrorKind::InvalidArgument,
                        entry.path + " is " +
                            (entry.kind == cachedir::FileKind::AotAutograd
                                 ? std::string("an aotautograd entry: its guards read the "
                                               "compiled function's inputs, which it does not "
                                               "list; give --hints, or name its forward FX "
                                               "graph key")
                                 : "a " + std::string(cachedir::to_string(entry.kind)) +
                                       " entry, not an FX graph"),
                        scan.root.string());
        }
        auto fx = cachedir::load_fx_graph_entry(scan.root / entry.path);
        if (fx) {
            // Without debug lines (2.7 and older), the inputs its wrapper takes.
            return explain::example_inputs_of(explain::lines_to_compare(*fx).lines);
        }
        if (!first_error) {
            first_error = fx.error();
        }
    }
    if (first_error) {
        return std::unexpected(*first_error);
    }
    return fail(ErrorKind::NotFound, "no entries to read the inputs from", scan.root.string());
}

Result<KeyHints> key_hints(const cachedir::Scan& scan, const std::vector<cachedir::Entry>& entries,
                           const std::string& hints, const std::string& sizes) {
    auto inputs = fx_key_inputs(scan, entries);
    auto values = hints_or_sizes(hints, sizes, [&] { return inputs; });
    if (!values) {
        return std::unexpected(values.error());
    }
    return KeyHints{std::move(*values),
                    inputs ? explain::guard_symbols(*inputs) : std::vector<explain::GuardSymbol>{}};
}

std::string hints_text(const guards::Hints& hints) {
    std::string text;
    for (const auto& [name, value] : hints.values) {
        text += (text.empty() ? "" : ", ") + name + "=" + value.repr();
    }
    return text;
}

Json guard_symbols_json(const std::vector<explain::GuardSymbol>& symbols,
                        const std::vector<std::string>& read) {
    Json out = Json::array();
    for (const auto& name : read) {
        const auto found = std::ranges::find(symbols, name, &explain::GuardSymbol::name);
        if (found == symbols.end()) {
            out.push_back({{"name", name},
                           {"symbol", nullptr},
                           {"expression", nullptr},
                           {"input", nullptr},
                           {"dims", Json::array()}});
            continue;
        }
        // A bare symbol is the size itself; an expression (128*s72) has none.
        const bool bare = std::ranges::all_of(found->expression, [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        });
        out.push_back({{"name", name},
                       {"symbol", bare ? Json(found->expression) : Json(nullptr)},
                       {"expression", found->expression},
                       {"input", found->input},
                       {"dims", found->dims}});
    }
    return out;
}

void print_guard_symbols(const std::vector<explain::GuardSymbol>& symbols,
                         const std::vector<std::string>& read, const char* indent) {
    for (const auto& name : read) {
        const auto found = std::ranges::find(symbols, name, &explain::GuardSymbol::name);
        if (found != symbols.end()) {
            std::printf("%s%s\n", indent, found->describe().c_str());
        }
    }
}

} // namespace cachelens::cli
