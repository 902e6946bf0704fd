#include "commands.h"
#include "guard_output.h"
#include "output.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/format.h>
#include <cachelens/explain/lookup.h>

#include <cstdio>
#include <set>

namespace cachelens::cli {

namespace {

struct LookupOptions {
    std::string dir;
    std::string key;
    std::string hints;
    std::string sizes;
    bool json = false;
};

// A full key is 52 characters ("f" or "a" and 51); a shorter one is the
// start of one, which must name exactly one key of the dir.
constexpr std::size_t kKeyLength = 52;

Result<std::string> resolve_key(const cachedir::Scan& scan, const std::string& key) {
    if (key.size() >= kKeyLength) {
        return key; // a key not in the cache is a full miss, as PyTorch sees it
    }
    auto found = cachedir::resolve_entries(scan, key);
    if (!found) {
        return std::unexpected(found.error());
    }
    for (const auto& entry : *found) {
        if (entry.kind == cachedir::FileKind::FxGraph ||
            entry.kind == cachedir::FileKind::AotAutograd) {
            return entry.key;
        }
    }
    return fail(ErrorKind::InvalidArgument,
                "'" + key + "' names " + std::string(cachedir::to_string(found->front().kind)) +
                    " " + found->front().path + ", not an FX graph or AOTAutograd entry",
                scan.root.string());
}

// `lookup DIR --sizes ...` without a key: every FX graph key whose inputs
// take those sizes, looked up with them.
int run_lookup_anywhere(const LookupOptions& options, const cachedir::Scan& scan) {
    std::set<std::string> keys;
    for (const auto& entry : scan.entries()) {
        if (entry.kind == cachedir::FileKind::FxGraph) {
            keys.insert(entry.key);
        }
    }
    struct Tried {
        explain::LookupResult lookup;
        guards::Hints hints;
    };
    std::vector<Tried> tried;
    std::vector<std::string> refusals; // why each other key does not take the sizes
    for (const auto& key : keys) {
        const auto entries = cachedir::find_entries(scan, key);
        auto hints =
            hints_or_sizes({}, options.sizes, [&] { return fx_key_inputs(scan, entries); });
        if (!hints) {
            refusals.push_back(key + ": " + hints.error().message);
            continue;
        }
        auto lookup = explain::simulate_lookup(options.dir, key, *hints);
        if (!lookup) {
            return report(lookup.error());
        }
        if (!explain::check_hints(*lookup, *hints)) {
            refusals.push_back(key + ": its guards read other symbols");
            continue;
        }
        tried.push_back({std::move(*lookup), std::move(*hints)});
    }
    if (tried.empty()) {
        std::string message = "no FX graph key of " + options.dir + " takes --sizes " +
                              options.sizes + " (" + plural(keys.size(), "key") + ")";
        for (const auto& refusal : refusals) {
            message += "\n  " + refusal;
        }
        return report(message);
    }
    const auto hits = std::ranges::count_if(
        tried, [](const Tried& t) { return t.lookup.status == explain::LookupStatus::Hit; });
    if (options.json) {
        Json list = Json::array();
        for (const auto& [lookup, hints] : tried) {
            Json hint_values = Json::object();
            for (const auto& [name, value] : hints.values) {
                hint_values[name] = number_json(value);
            }
            list.push_back({{"key", lookup.key},
                            {"status", explain::to_string(lookup.status)},
                            {"hit", lookup.hit ? Json(*lookup.hit) : Json(nullptr)},
                            {"hints", std::move(hint_values)}});
        }
        print_json({{"sizes", options.sizes},
                    {"hits", hits},
                    {"keys", std::move(list)},
                    {"keys_not_taking_sizes", refusals.size()}});
        return kExitOk;
    }
    std::printf(
        "%s: %td of the %s that take these sizes would hit (%s other sizes)\n",
        hits > 0 ? "hit" : "miss", hits, plural(tried.size(), "FX graph key").c_str(),
        (plural(refusals.size(), "key") + (refusals.size() == 1 ? " has" : " have")).c_str());
    for (const auto& [lookup, hints] : tried) {
        std::printf("%-10s  %s%s%s  (%s)\n", std::string(explain::to_string(lookup.status)).c_str(),
                    lookup.key_dir.c_str(), lookup.hit ? "/" : "",
                    lookup.hit ? lookup.hit->c_str() : "", hints_text(hints).c_str());
    }
    return kExitOk;
}

int run_lookup(const LookupOptions& options) {
    auto scan = cachedir::scan_cache_dir(options.dir);
    if (!scan) {
        return report(scan.error());
    }
    if (options.key.empty()) {
        if (options.sizes.empty()) {
            return report("give a KEY, or --sizes without one to try every FX graph key");
        }
        return run_lookup_anywhere(options, *scan);
    }
    auto key = resolve_key(*scan, options.key);
    if (!key) {
        return report(key.error());
    }
    const auto entries = cachedir::find_entries(*scan, *key);
    auto given = key_hints(*scan, entries, options.hints, options.sizes);
    if (!given) {
        return report(given.error());
    }
    const guards::Hints* hints = &given->hints;
    const auto& symbols = given->symbols;
    auto lookup = explain::simulate_lookup(options.dir, *key, *hints);
    if (!lookup) {
        return report(lookup.error());
    }
    if (auto fits = explain::check_hints(*lookup, *hints); !fits) {
        return report((options.sizes.empty() ? "--hints: " : "--sizes: ") + fits.error().message);
    }
    // Every symbol any entry's guards read, in order, for naming them.
    std::vector<std::string> read;
    for (const auto& symbols_read : lookup->symbols_read) {
        for (const auto& name : symbols_read) {
            if (std::ranges::find(read, name) == read.end()) {
                read.push_back(name);
            }
        }
    }
    std::ranges::sort(read, [](const std::string& a, const std::string& b) {
        return std::pair(a.size(), a) < std::pair(b.size(), b);
    });
    // PyTorch skips an entry it cannot load; the answer stands, but the
    // damage is a problem found.
    const int exit_code = lookup->any_unreadable() ? kExitProblems : kExitOk;
    if (options.json) {
        Json tried = Json::array();
        for (const auto& entry : lookup->tried) {
            Json item = {
                {"file", entry.file},
                {"guards_expr", entry.guards_expr ? Json(*entry.guards_expr) : Json(nullptr)},
                {"hit", entry.hit},
                {"unreadable", entry.unreadable}};
            if (entry.evaluation) {
                item["evaluation"] = evaluation_json(*entry.evaluation);
                if (entry.evaluation->first_failure) {
                    const auto& clause =
                        entry.evaluation->clauses[*entry.evaluation->first_failure];
                    item["first_failure"] = {{"clause", clause.text},
                                             {"detail", describe_failure(*entry.evaluation)}};
                }
            }
            if (!entry.error.empty()) {
                item["error"] = entry.error;
            }
            tried.push_back(std::move(item));
        }
        print_json({{"key", lookup->key},
                    {"key_dir", lookup->key_dir},
                    {"symbols", guard_symbols_json(symbols, read)},
                    {"hit", lookup->hit ? Json(*lookup->hit) : Json(nullptr)},
                    {"status", explain::to_string(lookup->status)},
                    {"tried", std::move(tried)},
                    {"key_dir_empty", lookup->key_dir_empty}});
        return exit_code;
    }
    if (!options.sizes.empty()) {
        std::printf("--sizes %s: %s\n", options.sizes.c_str(), hints_text(*hints).c_str());
    }
    for (const auto& entry : lookup->tried) {
        if (entry.unreadable) {
            std::printf("unreadable  %s: %s (PyTorch would skip this entry)\n", entry.file.c_str(),
                        entry.error.c_str());
            continue;
        }
        std::printf("%s  %s\n", entry.hit ? "HIT " : "miss", entry.file.c_str());
        if (!entry.guards_expr) {
            std::printf("      no guards\n");
        } else if (!entry.error.empty()) {
            std::printf("      %s\n", entry.error.c_str());
        } else if (entry.evaluation && entry.evaluation->first_failure) {
            std::printf("      fails: %s\n", describe_failure(*entry.evaluation).c_str());
        }
    }
    switch (lookup->status) {
    case explain::LookupStatus::Hit:
        std::printf("hit: %s/%s\n", lookup->key_dir.c_str(), lookup->hit->c_str());
        break;
    case explain::LookupStatus::GuardMiss:
        std::printf("guard_miss: %s under %s, none whose guards pass\n",
                    plural(lookup->tried.size(), "entry").c_str(), lookup->key_dir.c_str());
        break;
    case explain::LookupStatus::FullMiss:
        if (lookup->tried.empty()) {
            std::printf("full_miss: no entries under %s%s\n", lookup->key_dir.c_str(),
                        lookup->key_dir_empty ? " (its dir is empty)" : "");
        } else {
            std::printf("full_miss: none of the %s under %s can be read\n",
                        plural(lookup->tried.size(), "entry").c_str(), lookup->key_dir.c_str());
        }
        break;
    }
    if (!read.empty() && !symbols.empty()) {
        std::printf("where\n");
        print_guard_symbols(symbols, read, "  ");
    }
    return exit_code;
}

} // namespace

void add_lookup_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<LookupOptions>();
    auto* command = app.add_subcommand(
        "lookup", "Would these shapes hit? Simulate PyTorch's lookup of a key: try its entries in "
                  "sorted order and take the first whose guards pass for the hints (or the "
                  "sizes). Without a KEY, --sizes tries every FX graph key that takes them.");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command->add_option("KEY", options->key,
                        "an fxgraph (f...) or aotautograd (a...) key, or its first characters (at "
                        "least 4); leave it out to try every FX graph key with --sizes");
    command->add_option("--hints", options->hints,
                        "values for L['t0'], L['t1'], ...: \"64,128\" or \"t1=128,t0=64\"; one "
                        "for each symbol the key's guards read (none for a key without guards)");
    command->add_option("--sizes", options->sizes,
                        "the sizes instead of the hints, by symbol or by the dim that carries "
                        "one: \"s72=48,s27=128\" or \"input2.dim0=48\"; every L['tN'] follows "
                        "(an FX graph key)");
    command->add_flag("--json", options->json,
                      "print {key, key_dir, symbols: [{name, symbol, expression, input, dims}], "
                      "hit: FILE|null, status: hit|guard_miss|full_miss, "
                      "tried: [{file, guards_expr, hit, unreadable, evaluation, first_failure, "
                      "error}], key_dir_empty}. Exit 1 when an entry tried cannot be read (PyTorch "
                      "skips it). Without a KEY: {sizes, hits, keys: [{key, status, hit, hints}], "
                      "keys_not_taking_sizes}");
    command->callback([options, &exit_code] { exit_code = run_lookup(*options); });
}

} // namespace cachelens::cli
