#include "commands.h"
#include "guard_output.h"
#include "output.h"

#include <cachelens/explain/lookup.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct LookupOptions {
    std::string dir;
    std::string key;
    std::string hints;
    bool json = false;
};

int run_lookup(const LookupOptions& options) {
    auto hints = guards::Hints::parse(options.hints);
    if (!hints) {
        return report("--hints: " + hints.error().message);
    }
    auto lookup = explain::simulate_lookup(options.dir, options.key, *hints);
    if (!lookup) {
        return report(lookup.error());
    }
    if (auto fits = explain::check_hints(*lookup, *hints); !fits) {
        return report("--hints: " + fits.error().message);
    }
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
                    {"hit", lookup->hit ? Json(*lookup->hit) : Json(nullptr)},
                    {"status", explain::to_string(lookup->status)},
                    {"tried", std::move(tried)},
                    {"key_dir_empty", lookup->key_dir_empty}});
        return exit_code;
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
        std::printf("guard_miss: %zu entries under %s, none whose guards pass\n",
                    lookup->tried.size(), lookup->key_dir.c_str());
        break;
    case explain::LookupStatus::FullMiss:
        if (lookup->tried.empty()) {
            std::printf("full_miss: no entries under %s%s\n", lookup->key_dir.c_str(),
                        lookup->key_dir_empty ? " (its dir is empty)" : "");
        } else {
            std::printf("full_miss: none of the %zu entries under %s can be read\n",
                        lookup->tried.size(), lookup->key_dir.c_str());
        }
        break;
    }
    return exit_code;
}

} // namespace

void add_lookup_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<LookupOptions>();
    auto* command = app.add_subcommand(
        "lookup", "Would these shapes hit? Simulate PyTorch's lookup of a key: try its entries in "
                  "sorted order and take the first whose guards pass for the hints.");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command->add_option("KEY", options->key, "an fxgraph (f...) or aotautograd (a...) key")
        ->required();
    command->add_option("--hints", options->hints,
                        "values for L['t0'], L['t1'], ...: \"64,128\" or \"t1=128,t0=64\"; one "
                        "for each symbol the key's guards read (none for a key without guards)");
    command->add_flag("--json", options->json,
                      "print {key, key_dir, hit: FILE|null, status: hit|guard_miss|full_miss, "
                      "tried: [{file, guards_expr, hit, unreadable, evaluation, first_failure, "
                      "error}], key_dir_empty}. Exit 1 when an entry tried cannot be read (PyTorch "
                      "skips it)");
    command->callback([options, &exit_code] { exit_code = run_lookup(*options); });
}

} // namespace cachelens::cli
