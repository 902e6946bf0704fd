#include "commands.h"
#include "guard_output.h"
#include "output.h"

#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/format.h>
#include <cachelens/guards/guard_expression.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct GuardsOptions {
    std::string expression; // check
    std::string dir;        // eval
    std::string query;      // eval
    std::string hints;
    std::string sizes; // eval
    bool json = false;
};

Result<guards::Hints> hints_of(const GuardsOptions& options) {
    auto hints = guards::Hints::parse(options.hints);
    if (!hints) {
        return fail(ErrorKind::InvalidArgument, "--hints: " + hints.error().message);
    }
    return hints;
}

Result<guards::GuardExpression> parse_guards(const std::string& text) {
    auto expression = guards::GuardExpression::parse(text);
    if (!expression) {
        return fail(ErrorKind::InvalidArgument,
                    "guards do not parse: " + expression.error().message);
    }
    return expression;
}

// The hints against what `expressions` read, named `reader` in the error.
Result<void> check_hints(const guards::Hints& hints,
                         std::span<const guards::GuardExpression> expressions,
                         const std::string& reader) {
    std::vector<std::vector<std::string>> symbols_read;
    for (const auto& expression : expressions) {
        symbols_read.push_back(expression.symbols());
    }
    if (auto fits = guards::check_hints(hints, symbols_read, reader); !fits) {
        return fail(ErrorKind::InvalidArgument, "--hints: " + fits.error().message);
    }
    return {};
}

// Evaluates one expression; prints it, its symbols named by `symbols`
// where they are known; returns the JSON for it.
Result<Json> evaluate(const guards::GuardExpression& expression, const guards::Hints& hints,
                      const std::vector<explain::GuardSymbol>& symbols, bool print) {
    auto evaluation = expression.evaluate(hints);
    if (!evaluation) {
        return std::unexpected(evaluation.error());
    }
    if (print) {
        print_guard_symbols(symbols, expression.symbols(), "  ");
        print_evaluation(*evaluation, "  ");
        std::printf("result: %s\n", evaluation->result ? "True" : "False");
    }
    Json json = evaluation_json(*evaluation);
    json["expression"] = expression.text();
    json["symbols"] = guard_symbols_json(symbols, expression.symbols());
    return json;
}

int run_check(const GuardsOptions& options) {
    auto hints = hints_of(options);
    if (!hints) {
        return report(hints.error());
    }
    auto expression = parse_guards(options.expression);
    if (!expression) {
        return report(expression.error());
    }
    if (auto fits = check_hints(*hints, std::span(&*expression, 1), "the guards"); !fits) {
        return report(fits.error());
    }
    auto json = evaluate(*expression, *hints, {}, !options.json);
    if (!json) {
        return report(json.error());
    }
    if (options.json) {
        print_json(*json);
    }
    return kExitOk;
}

// The guards of an FX or AOT entry; nullopt when it has none.
Result<std::optional<std::string>> guards_of(const cachedir::Scan& scan,
                                             const cachedir::Entry& entry) {
    const auto path = scan.root / entry.path;
    if (entry.kind == cachedir::FileKind::FxGraph) {
        auto fx = cachedir::load_fx_graph_entry(path);
        if (!fx) {
            return std::unexpected(fx.error());
        }
        return fx->guards_expr ? std::optional<std::string>(*fx->guards_expr) : std::nullopt;
    }
    if (entry.kind == cachedir::FileKind::AotAutograd) {
        auto aot = cachedir::load_aot_autograd_entry(path);
        if (!aot) {
            return std::unexpected(aot.error());
        }
        return aot->guards_expr ? std::optional<std::string>(*aot->guards_expr) : std::nullopt;
    }
    return fail(ErrorKind::InvalidArgument,
                entry.path + " is a " + std::string(cachedir::to_string(entry.kind)) +
                    "; only fxgraph and aotautograd entries have guards",
                scan.root.string());
}

int run_eval(const GuardsOptions& options) {
    auto scan = cachedir::scan_cache_dir(options.dir);
    if (!scan) {
        return report(scan.error());
    }
    auto found = cachedir::resolve_entries(*scan, options.query);
    if (!found) {
        return report(found.error());
    }
    const auto& entries = *found;
    // t0, t1, ... named by the inputs they are; an entry that does not say
    // (an aotautograd one) leaves them unnamed.
    auto given = key_hints(*scan, entries, options.hints, options.sizes);
    if (!given) {
        return report(given.error());
    }
    const guards::Hints* hints = &given->hints;
    const auto& symbols = given->symbols;
    if (!options.sizes.empty() && !options.json && !hints->values.empty()) {
        std::printf("--sizes %s: %s\n", options.sizes.c_str(), hints_text(*hints).c_str());
    }
    // Every entry read and parsed first: the hints must fit all of them.
    std::vector<std::optional<guards::GuardExpression>> expressions;
    std::vector<guards::GuardExpression> guarded;
    for (const auto& entry : entries) {
        auto guards = guards_of(*scan, entry);
        if (!guards) {
            return report(guards.error());
        }
        if (!*guards) {
            expressions.emplace_back();
            continue;
        }
        auto expression = parse_guards(**guards);
        if (!expression) {
            return report(std::move(expression.error()).at((scan->root / entry.path).string()));
        }
        guarded.push_back(*expression);
        expressions.emplace_back(std::move(*expression));
    }
    const std::string reader = entries.size() == 1 ? "the guards of " + entries[0].path
                                                   : "the guards of " + options.query + "'s " +
                                                         plural(entries.size(), "entry");
    if (auto fits = check_hints(*hints, guarded, reader); !fits) {
        return report(fits.error());
    }
    Json all = Json::array();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& entry = entries[i];
        if (!options.json) {
            std::printf("%s\n", entry.path.c_str());
        }
        if (!expressions[i]) {
            if (!options.json) {
                std::printf("  no guards: every shape hits this entry\nresult: True\n");
            }
            all.push_back({{"path", entry.path},
                           {"expression", nullptr},
                           {"result", true},
                           {"first_failure", nullptr},
                           {"clauses", Json::array()}});
            continue;
        }
        auto json = evaluate(*expressions[i], *hints, symbols, !options.json);
        if (!json) {
            return report(std::move(json.error()).at((scan->root / entry.path).string()));
        }
        Json item = {{"path", entry.path}};
        item.update(*json);
        all.push_back(std::move(item));
    }
    if (options.json) {
        print_json(all.size() == 1 ? all[0] : all);
    }
    return kExitOk;
}

} // namespace

void add_guards_command(CLI::App& app, int& exit_code) {
    auto* guards = app.add_subcommand(
        "guards", "Evaluate guard expressions as PyTorch does, clause by clause: would these "
                  "symbolic sizes (hints) pass?");
    guards->require_subcommand(1);
    const char* hints_help = "values for L['t0'], L['t1'], ...: \"64,128\" or \"t1=128,t0=64\"; "
                             "one for each symbol the guards read (none when they read none)";
    const char* json_help =
        "print {expression, symbols: [{name, symbol, expression, input, dims}] (each L['tN'] read: "
        "the SymInt input it is and the tensor dims of that size; null where unknown, as for "
        "check), result, first_failure, clauses: [{text, value, pass, reached, symbols, "
        "operands[, error]}]}";

    auto check_options = std::make_shared<GuardsOptions>();
    auto* check = guards->add_subcommand("check", "Evaluate a guard expression given as text.");
    check->add_option("EXPR", check_options->expression, "the guard expression")->required();
    check->add_option("--hints", check_options->hints, hints_help);
    check->add_flag("--json", check_options->json, json_help);
    check->callback([check_options, &exit_code] { exit_code = run_check(*check_options); });

    auto eval_options = std::make_shared<GuardsOptions>();
    auto* eval = guards->add_subcommand(
        "eval", "Evaluate the guards of cache entries: an fxgraph or aotautograd key (each of "
                "its entries) or an entry path.");
    eval->add_option("DIR", eval_options->dir, "the cache dir")->required();
    eval->add_option("KEY_OR_PATH", eval_options->query, "an fxgraph/aotautograd key or entry path")
        ->required();
    eval->add_option("--hints", eval_options->hints, hints_help);
    eval->add_option("--sizes", eval_options->sizes,
                     "the sizes instead of the hints, by symbol or by the dim that carries one: "
                     "\"s72=48,s27=128\" or \"input2.dim0=48\"; every L['tN'] follows from them "
                     "(an FX graph key: its SymInt inputs say which sizes they are)");
    eval->add_flag(
        "--json", eval_options->json,
        "as for check, plus the entry's path; an array when the key has several entries");
    eval->callback([eval_options, &exit_code] { exit_code = run_eval(*eval_options); });
}

} // namespace cachelens::cli
