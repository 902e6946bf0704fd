#include "commands.h"
#include "fx_entry_argument.h"
#include "output.h"

#include <cachelens/explain/nearest_keys.h>

#include <cstdio>
#include <iostream>

namespace cachelens::cli {

namespace {

struct WhyOptions {
    std::string dir;
    std::string key;
    std::vector<std::string> against;
    std::size_t limit = 5;
    bool json = false;
};

int run_why(const WhyOptions& options) {
    auto scan = cachedir::scan_cache_dir(options.dir);
    if (!scan) {
        return report(scan.error());
    }
    auto target = load_fx_argument(*scan, options.key);
    if (!target) {
        return report(target.error());
    }
    std::vector<Error> unreadable;
    auto candidates = explain::fx_graph_candidates(*scan, options.dir, unreadable);
    for (const auto& other_dir : options.against) {
        auto other = cachedir::scan_cache_dir(other_dir);
        if (!other) {
            return report(other.error());
        }
        auto more = explain::fx_graph_candidates(*other, other_dir, unreadable);
        std::move(more.begin(), more.end(), std::back_inserter(candidates));
    }
    for (const auto& error : unreadable) {
        std::cerr << "cachelens: skipped " << error.describe() << '\n';
    }
    const auto nearest =
        explain::nearest_keys(target->fx.debug_lines, target->fx.key, candidates, options.limit);
    if (options.json) {
        Json list = Json::array();
        for (const auto& near : nearest) {
            Json item = {{"key", near.key},
                         {"dir", near.dir},
                         {"path", near.path},
                         {"shared", near.shared},
                         {"total", near.total}};
            add_causes_json(item, near.causes);
            item["role"] = cachedir::to_string(near.role);
            item["graph_similarity"] = near.graph_similarity;
            item["differing"] = near.differing;
            item["lines"] = line_counts_json(near.lines);
            item["inputs"] = inputs_json(near.inputs);
            list.push_back(std::move(item));
        }
        print_json({{"key", target->fx.key},
                    {"path", target->entry.path},
                    {"role", cachedir::to_string(cachedir::graph_role(target->fx.debug_lines))},
                    {"debug_lines", target->fx.debug_lines.size()},
                    {"first_compile", !nearest.empty() && explain::is_first_compile(nearest)},
                    {"nearest", std::move(list)}});
        return kExitOk;
    }
    std::printf(
        "%s (%s graph, %zu debug lines)\n", target->fx.key.c_str(),
        std::string(cachedir::to_string(cachedir::graph_role(target->fx.debug_lines))).c_str(),
        target->fx.debug_lines.size());
    if (nearest.empty()) {
        std::printf("no other FX graph entries to compare with\n");
    } else if (explain::is_first_compile(nearest)) {
        std::printf("A first compile: no key searched runs this graph's ops; the nearest are "
                    "other graphs.\n");
    }
    for (const auto& near : nearest) {
        std::printf("\n%s  %s graph in %s\n", near.key.c_str(),
                    std::string(cachedir::to_string(near.role)).c_str(), near.dir.c_str());
        for (const auto& line : causes_text(near.causes)) {
            std::printf("  %s\n", line.c_str());
        }
        std::printf("  %s%s\n", describe_line_counts(near.lines).c_str(),
                    near.differing.empty() ? "" : ":");
        for (const auto& name : near.differing) {
            std::printf("    %s\n", name.c_str());
        }
        const auto inputs = changed_inputs_text(near.inputs);
        if (!inputs.empty()) {
            std::printf("  example inputs, from this key to %s:\n", target->fx.key.c_str());
        }
        for (const auto& line : inputs) {
            std::printf("  %s\n", line.c_str());
        }
    }
    return kExitOk;
}

} // namespace

void add_why_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<WhyOptions>();
    auto* command = app.add_subcommand(
        "why", "Why did this graph miss? The keys nearest to an FX graph key (in the same cache "
               "dir, and in others with --against), ranked by the debug lines they share (counted "
               "as diff counts them), each with a verdict line, the causes ranked, the attributes "
               "that differ and the example inputs that changed.");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command->add_option("KEY", options->key, "an FX graph key or entry path")->required();
    command->add_option("--against", options->against, "other cache dirs to search too");
    command->add_option("--limit", options->limit, "how many keys to show (default 5)");
    command->add_flag(
        "--json", options->json,
        "print {key, path, role (forward, backward, inference or unknown), debug_lines, "
        "first_compile (no key searched runs KEY's "
        "ops), nearest: [{key, dir, path, shared, total, "
        "verdict, causes: [{category, text, attributes}] (read from that key to "
        "KEY: why KEY missed it), role, graph_similarity (0-1: the ops both graphs run), "
        "differing, lines: {shared, left, right, changed, "
        "only_left, only_right, "
        "differ}, inputs: [{left, right, changes}] (left: that key's input, right: "
        "KEY's)}]}");
    command->callback([options, &exit_code] { exit_code = run_why(*options); });
}

} // namespace cachelens::cli
