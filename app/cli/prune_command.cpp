#include "catalog_option.h"
#include "commands.h"
#include "output.h"
#include "progress_line.h"

#include <cachelens/core/format.h>
#include <cachelens/policy/root_policy.h>
#include <cachelens/serving/prune.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct PruneCommandOptions {
    std::string dir;
    std::string catalog;
    std::string max_size;
    std::string older_than;
    std::string keep_recent = "10m";
    bool dry_run = false;
    bool json = false;
};

std::string reason_text(const catalog::PrunePlan& plan, const catalog::PruneUnit& unit) {
    if (unit.reason == catalog::PruneReason::OlderThan) {
        return "last written " + format_age(unit.mtime_ns);
    }
    return "oldest while over " + format_bytes(plan.max_size.value_or(0));
}

Json plan_json(const catalog::PrunePlan& plan) {
    Json units = Json::array();
    for (const auto& unit : plan.units) {
        Json entries = Json::array();
        for (std::size_t i = 0; i < unit.entries.size(); ++i) {
            const auto& entry = unit.entries[i];
            entries.push_back({{"kind", cachedir::to_string(entry.kind)},
                               {"key", entry.key},
                               {"path", entry.path},
                               {"size", entry.size},
                               {"mtime", format_time(entry.mtime_ns)},
                               {"files", entry.files.size()},
                               {"defines_unit", i < unit.defining_entries}});
        }
        units.push_back({{"reason", catalog::to_string(unit.reason)},
                         {"mtime", format_time(unit.mtime_ns)},
                         {"bytes", unit.bytes},
                         {"entries", std::move(entries)}});
    }
    Json json = {{"root", plan.root},
                 {"target", plan.root},
                 {"bytes_before", plan.bytes_before},
                 {"bytes_after", plan.bytes_after},
                 {"recent_bytes", plan.recent_bytes},
                 {"unevictable_bytes", plan.unevictable_bytes},
                 {"keep_recent_s", plan.keep_recent_ns / 1'000'000'000}};
    json["max_size"] = plan.max_size ? Json(*plan.max_size) : Json(nullptr);
    json["older_than_s"] =
        plan.older_than_ns ? Json(*plan.older_than_ns / 1'000'000'000) : Json(nullptr);
    json["size_reached"] = plan.size_reached;
    json["units"] = std::move(units);
    return json;
}

void print_plan(const catalog::PrunePlan& plan, bool dry_run) {
    std::size_t entries = 0;
    for (const auto& unit : plan.units) {
        entries += unit.entries.size();
    }
    std::printf("%s: %s", plan.root.c_str(), format_bytes(plan.bytes_before).c_str());
    if (plan.max_size) {
        std::printf(", limit %s", format_bytes(*plan.max_size).c_str());
    }
    std::printf("\n%s %s in %s, %s, oldest first:\n", dry_run ? "would delete" : "deleting",
                plural(entries, "entry").c_str(), plural(plan.units.size(), "group").c_str(),
                format_bytes(plan.bytes_before - plan.bytes_after).c_str());
    for (const auto& unit : plan.units) {
        std::printf("  %s (%s)\n", format_bytes(unit.bytes).c_str(),
                    reason_text(plan, unit).c_str());
        for (std::size_t i = 0; i < unit.entries.size(); ++i) {
            const auto& entry = unit.entries[i];
            std::printf("    %s%-11s %10s  %s\n", i < unit.defining_entries ? "" : "  ",
                        std::string(cachedir::to_string(entry.kind)).c_str(),
                        format_bytes(entry.size).c_str(), entry.path.c_str());
        }
    }
    std::printf("%s %s", dry_run ? "would leave" : "leaves",
                format_bytes(plan.bytes_after).c_str());
    if (plan.recent_bytes > 0 || plan.unevictable_bytes > 0) {
        std::printf(" (always kept: %s written in the last %s, %s of locks, files being written "
                    "and unknown files)",
                    format_bytes(plan.recent_bytes).c_str(),
                    format_duration_ns(plan.keep_recent_ns).c_str(),
                    format_bytes(plan.unevictable_bytes).c_str());
    }
    std::printf("\n");
    if (!plan.size_reached) {
        std::printf("the limit of %s cannot be reached without deleting what is always kept\n",
                    format_bytes(plan.max_size.value_or(0)).c_str());
    }
}

// A vLLM or SGLang tree: whole hash dirs, least recently written first.
int prune_serving(const serving::ServingLocation& location, const catalog::PruneOptions& limits,
                  const PruneCommandOptions& options) {
    auto tree = serving::read_serving_tree(location.root);
    if (!tree) {
        return report(tree.error());
    }
    if (!location.relative.empty()) {
        return report(options.dir + " is inside " + tree->root.string() +
                      ": prune the tree (its root), which deletes whole hash dirs");
    }
    const serving::ServingPrunePlan plan =
        serving::plan_serving_prune(*tree, {.max_size = limits.max_size,
                                            .older_than_ns = limits.older_than_ns,
                                            .keep_recent_ns = limits.keep_recent_ns,
                                            .now_ns = std::nullopt});
    const auto dirs_json = [](const auto& dirs) {
        Json list = Json::array();
        for (const auto& dir : dirs) {
            list.push_back({{"path", dir.path}, {"bytes", dir.bytes}});
        }
        return list;
    };
    const auto kept_json = [](const std::vector<serving::KeptDir>& kept) {
        Json list = Json::array();
        for (const auto& dir : kept) {
            list.push_back({{"path", dir.path}, {"bytes", dir.bytes}, {"why", text(dir.why)}});
        }
        return list;
    };
    Json json = {{"root", plan.root},
                 {"bytes_before", plan.bytes_before},
                 {"bytes_after", plan.bytes_after},
                 {"size_reached", plan.size_reached},
                 {"dirs", dirs_json(plan.dirs)},
                 {"kept", kept_json(plan.kept)},
                 {"dry_run", options.dry_run}};
    if (!options.json) {
        std::printf("%s: %s in %zu cache dirs\n%s %zu whole cache dirs, %s, least recently "
                    "written first:\n",
                    plan.root.c_str(), format_bytes(plan.bytes_before).c_str(),
                    tree->hash_dirs.size(), options.dry_run ? "would delete" : "deleting",
                    plan.dirs.size(), format_bytes(plan.bytes_before - plan.bytes_after).c_str());
        for (const auto& dir : plan.dirs) {
            std::printf("  %-14s %10s  last written %s\n", dir.path.c_str(),
                        format_bytes(dir.bytes).c_str(), format_age(dir.newest_mtime_ns).c_str());
        }
        for (const auto& dir : plan.kept) {
            std::printf("  kept %s: %s\n", dir.path.c_str(), dir.why.c_str());
        }
        if (!plan.size_reached) {
            std::printf("the limit cannot be reached without deleting a dir kept above\n");
        }
    }
    if (options.dry_run) {
        if (options.json) {
            print_json(json);
        }
        return plan.size_reached ? kExitOk : kExitProblems;
    }
    ProgressLine progress("pruning " + plan.root, options.json);
    const auto outcome = serving::run_serving_prune(*tree, plan, progress.callback());
    progress.clear();
    for (const auto& error : outcome.errors) {
        std::fprintf(stderr, "cachelens: %s\n", error.describe().c_str());
    }
    if (options.json) {
        json["deleted"] = outcome.deleted;
        json["bytes_freed"] = outcome.bytes_freed;
        json["kept_since_plan"] = kept_json(outcome.kept);
        print_json(json);
    } else {
        std::printf("deleted %zu cache dirs (%s)\n", outcome.deleted.size(),
                    format_bytes(outcome.bytes_freed).c_str());
        for (const auto& dir : outcome.kept) {
            std::printf("  kept %s: %s\n", dir.path.c_str(), dir.why.c_str());
        }
    }
    if (outcome.cancelled) {
        return report_stopped(progress, "prune stopped; each cache dir went whole or stayed");
    }
    return plan.size_reached && outcome.errors.empty() ? kExitOk : kExitProblems;
}

int run_prune(const PruneCommandOptions& options) {
    catalog::PruneOptions prune;
    if (!options.max_size.empty()) {
        auto size = parse_size(options.max_size);
        if (!size) {
            return report(size.error());
        }
        prune.max_size = *size;
    }
    if (!options.older_than.empty()) {
        auto age = parse_age(options.older_than);
        if (!age) {
            return report(age.error());
        }
        prune.older_than_ns = *age;
    }
    auto keep_recent = parse_age(options.keep_recent);
    if (!keep_recent) {
        return report(keep_recent.error());
    }
    prune.keep_recent_ns = *keep_recent;
    if (!prune.max_size && !prune.older_than_ns) {
        return report("prune needs --max-size, --older-than, or both");
    }
    // A mirror or a staged bundle is read-only, as in the GUI.
    if (auto allowed = policy::allow_write(options.dir, policy::RootWrite::Prune); !allowed) {
        return report(allowed.error());
    }
    if (const auto location = serving::locate_serving_tree(options.dir)) {
        return prune_serving(*location, prune, options);
    }
    auto catalog = open_catalog(options.catalog);
    if (!catalog) {
        return report(catalog.error());
    }
    ProgressLine progress("indexing " + options.dir, options.json);
    catalog::IndexOptions indexing;
    indexing.progress = progress.callback();
    // The plan is made from the dir as it is now.
    auto planned = catalog->index_and_plan_prune(options.dir, prune, indexing);
    progress.clear();
    if (!planned) {
        return report(planned.error());
    }
    if (!*planned) {
        return report_stopped(progress, "prune stopped before deleting anything; the catalog is "
                                        "consistent");
    }
    auto& plan = *planned;
    if (!options.json) {
        print_plan(*plan, options.dry_run);
    }
    if (options.dry_run) {
        if (options.json) {
            Json json = plan_json(*plan);
            json["dry_run"] = true;
            print_json(json);
        }
        return plan->size_reached ? kExitOk : kExitProblems;
    }
    progress.set_label("pruning " + options.dir);
    auto outcome = catalog->prune(*plan, indexing);
    progress.clear();
    if (!outcome) {
        return report(outcome.error());
    }
    for (const auto& error : outcome->errors) {
        std::fprintf(stderr, "cachelens: %s\n", error.describe().c_str());
    }
    if (options.json) {
        Json json = plan_json(*plan);
        json["dry_run"] = false;
        Json kept = Json::array();
        for (const auto& line : outcome->kept) {
            kept.push_back(text(line));
        }
        Json errors = Json::array();
        for (const auto& error : outcome->errors) {
            errors.push_back(text(error.describe()));
        }
        json["deleted"] = {
            {"entries", outcome->entries_deleted}, {"files", outcome->files_deleted},
            {"bytes", outcome->bytes_freed},       {"kept", std::move(kept)},
            {"errors", std::move(errors)},         {"empty_dirs", outcome->dirs_removed}};
        print_json(json);
    } else {
        std::printf("deleted %s (%s, %s)\n", plural(outcome->entries_deleted, "entry").c_str(),
                    plural(outcome->files_deleted, "file").c_str(),
                    format_bytes(outcome->bytes_freed).c_str());
        if (!outcome->dirs_removed.empty()) {
            std::printf("removed %zu empty key and shard dirs\n", outcome->dirs_removed.size());
        }
        if (!outcome->kept.empty()) {
            std::printf("kept %zu planned entries:\n", outcome->kept.size());
            for (const auto& line : outcome->kept) {
                std::printf("  %s\n", line.c_str());
            }
        }
    }
    if (outcome->cancelled) {
        return report_stopped(progress,
                              "prune stopped; each entry went whole or stayed, the catalog "
                              "is consistent, run prune again to finish");
    }
    return plan->size_reached && outcome->errors.empty() ? kExitOk : kExitProblems;
}

} // namespace

void add_prune_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<PruneCommandOptions>();
    auto* command = app.add_subcommand(
        "prune",
        "Delete the oldest cache entries: an FX key with all its entries, the AOT entries "
        "linking to it and the modules, best_configs and Triton kernels only they used go "
        "together. Files being written (.*.tmp), locks and unknown files are never deleted, "
        "symlinks never followed, and each file is checked again right before it goes: "
        "unchanged since the plan, and open or mapped by no process of this machine (read "
        "from /proc/*/fd and maps, matched by device and inode; other users' processes are "
        "seen only with the rights to read theirs); then it is moved into a trash dir of the "
        "prune's own and checked there once more, and put back if a writer replaced it. A "
        "group goes whole or stays whole. Key "
        "dirs left without entries (and shard dirs left empty) go too, once nothing was "
        "written in them for --keep-recent (and at least a minute). Exit code 1 when --max-size "
        "cannot be reached or a "
        "file could not be deleted.\n"
        "A vLLM or SGLang torch_compile_cache tree is pruned by whole hash dirs (never half a "
        "rank dir), least recently written first; a dir written within --keep-recent, or that "
        "a process of this machine has open or mapped (read from /proc; other users' "
        "processes are seen only with the rights to read theirs), is kept and said why. A dir "
        "goes by one rename out of the tree, is checked again there (put back if a compile "
        "wrote into it), then is removed.");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command->add_option("--max-size", options->max_size,
                        "delete oldest first until the dir holds at most this (2G, 500M)");
    command->add_option("--older-than", options->older_than,
                        "delete what was last written longer ago than this (30d, 12h)");
    command->add_option("--keep-recent", options->keep_recent,
                        "never delete what was written within this long before the prune began "
                        "(default 10m): PyTorch writes kernels minutes before the graph that "
                        "uses them");
    command->add_flag("--dry-run", options->dry_run, "list what would be deleted; delete nothing");
    add_catalog_option(*command, options->catalog);
    command->add_flag("--json", options->json,
                      "print {root, target (root, where it deletes), bytes_before, bytes_after, "
                      "max_size, older_than_s, "
                      "keep_recent_s, size_reached, units: [{reason, mtime, bytes, entries: "
                      "[{kind, key, path, size, mtime, files, defines_unit}]}], dry_run, deleted: "
                      "{entries, files, bytes, kept, errors, empty_dirs}}");
    command->callback([options, &exit_code] { exit_code = run_prune(*options); });
}

} // namespace cachelens::cli
