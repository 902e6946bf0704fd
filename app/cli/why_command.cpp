#include "commands.h"
#include "fx_entry_argument.h"
#include "output.h"
#include "serving_output.h"

#include <cachelens/core/format.h>
#include <cachelens/explain/nearest_keys.h>

#include <cstdio>
#include <iostream>
#include <optional>

namespace cachelens::cli {

namespace {

struct WhyOptions {
    std::string dir;
    std::string key;
    std::vector<std::string> against;
    std::size_t limit = 5;
    std::optional<std::int64_t> tokens;
    bool json = false;
};

int run_why(const WhyOptions& options) {
    // A vLLM or SGLang cache dir: why the server made it (its factors).
    if (const auto location = serving_location_of(options.dir); location && options.key.empty()) {
        if (options.against.size() > 1) {
            return report("--against names one other cache dir of the same tree");
        }
        return why_serving(*location, options.against.empty() ? "" : options.against.front(),
                           options.tokens, options.json);
    }
    if (options.tokens) {
        return report("--tokens asks a vLLM or SGLang cache dir; " + options.dir + " is none");
    }
    if (options.key.empty()) {
        return report("KEY is required with a cache dir (" + options.dir +
                      "): the FX graph key or entry path that missed");
    }
    // DIR and --against, each dir once (as the Why missed page searches them).
    std::vector<std::filesystem::path> search{options.dir};
    search.insert(search.end(), options.against.begin(), options.against.end());
    auto why =
        explain::why_missed({options.dir, options.key, std::move(search), options.limit, nullptr});
    if (!why) {
        return report(why.error());
    }
    for (const auto& error : why->skipped) {
        std::cerr << "cachelens: skipped " << error.describe() << '\n';
    }
    const auto& found = why->found;
    const cachedir::FxGraphEntry& fx = why->fx;
    const auto role = why->role;
    if (options.json) {
        Json list = Json::array();
        for (const auto& near : found.nearest) {
            Json item = {{"key", near.key},
                         {"dir", near.dir},
                         {"path", near.path},
                         {"shared", near.shared},
                         {"total", near.total}};
            add_causes_json(item, near.causes);
            item["role"] = cachedir::to_string(near.role);
            item["same_family"] = near.same_family;
            item["graph_similarity"] = near.graph_similarity;
            item["code_similarity"] = near.code_similarity;
            item["differing"] = near.differing;
            item["lines"] = line_counts_json(near.lines);
            item["inputs"] = inputs_json(near.inputs);
            list.push_back(std::move(item));
        }
        Json same_key = Json::array();
        for (const auto& copy : found.same_key) {
            same_key.push_back({{"dir", copy.dir}, {"path", copy.path}});
        }
        print_json({{"key", fx.key},
                    {"path", why->target.path},
                    {"role", cachedir::to_string(role)},
                    {"debug_lines", fx.debug_lines.size()},
                    {"answer", why->answer},
                    {"detail", why->detail},
                    {"from_facts", found.from_facts},
                    {"incomparable", found.incomparable},
                    {"first_compile", found.first_compile},
                    {"family", found.family},
                    {"searched", found.searched},
                    {"same_key", std::move(same_key)},
                    {"nearest", std::move(list)}});
        return kExitOk;
    }
    std::printf("%s\n", why->answer.c_str());
    if (!why->detail.empty()) {
        std::printf("%s\n", why->detail.c_str());
    }
    std::printf("\n%s (%s graph, %s): %s of %s searched %s this graph compiled before%s\n",
                fx.key.c_str(), std::string(cachedir::to_string(role)).c_str(),
                found.from_facts ? "compared by what the entries hold"
                                 : plural(fx.debug_lines.size(), "debug line").c_str(),
                format_count(found.family).c_str(), plural(found.searched, "graph").c_str(),
                found.family == 1 ? "is" : "are",
                found.incomparable == 0 ? ""
                                        : (" (" + plural(found.incomparable, "other entry") +
                                           " not compared: debug lines on one side only)")
                                              .c_str());
    for (const auto& near : found.nearest) {
        std::printf("\n%s  %s graph in %s: %s\n", near.key.c_str(),
                    std::string(cachedir::to_string(near.role)).c_str(), near.dir.c_str(),
                    near.same_family ? "this graph compiled before" : "nearest other graph");
        for (const auto& line : causes_text(near.causes, true)) {
            std::printf("  %s\n", line.c_str());
        }
        std::printf("  %s%s\n", describe_line_counts(near.lines, found.from_facts).c_str(),
                    near.differing.empty() ? "" : ":");
        for (const auto& name : near.differing) {
            std::printf("    %s\n", name.c_str());
        }
        const auto inputs = changed_inputs_text(near.inputs);
        if (!inputs.empty()) {
            std::printf("  example inputs, from this key to %s:\n", fx.key.c_str());
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
        "why",
        "Why did this graph miss? First line: the answer (why it missed the same graph "
        "compiled before, that it is a first compile, or that the very key is in another "
        "dir searched). Then the nearest keys (in the same cache dir, and in others with "
        "--against): graphs of its family first (the same role and ops, whatever dims "
        "became dynamic or values were renamed), ranked by the debug lines they share "
        "(counted as diff counts them), then the nearest other graphs; each with a verdict "
        "line, the causes ranked, the attributes that differ and the example inputs that "
        "changed. 'First compile' is decided over every key searched, whatever --limit "
        "shows. An entry of PyTorch 2.7 and older stores no debug lines: the first line says "
        "so, and the graphs are compared by what they hold, as diff compares them.\n"
        "Or why did vLLM compile again: DIR a vLLM/SGLang cache dir (a hash dir of "
        "torch_compile_cache, or a rank or prefix dir in it) and no KEY. The first line "
        "names the factor that differs from the nearest sibling by factors (or from "
        "--against), in the order vLLM hashes them: env, config, code, compiler; then "
        "every differing factor. With --tokens N: which compiled graph serves a batch of "
        "N tokens, and which sizes and ranges exist when none does (exit 1).");
    command->add_option("DIR", options->dir, "the cache dir, or a vLLM/SGLang cache dir")
        ->required();
    command->add_option("KEY", options->key,
                        "an FX graph key or entry path (not with a vLLM/SGLang cache dir)");
    command->add_option("--against", options->against,
                        "other cache dirs to search too; with a vLLM/SGLang cache dir, the one "
                        "sibling to compare with");
    command->add_option("--tokens", options->tokens,
                        "a vLLM/SGLang cache dir only: the batch size (tokens) to look up");
    command->add_option("--limit", options->limit, "how many keys to show (default 5)");
    command->add_flag(
        "--json", options->json,
        "print {key, path, role (forward, backward, inference or unknown), debug_lines, answer "
        "(the first line), first_compile (no key searched is KEY's graph compiled before, and "
        "none is KEY itself), family (keys searched of KEY's family), searched, same_key: "
        "[{dir, path}] (KEY itself in another dir), nearest: [{key, dir, path, shared, total, "
        "verdict, causes: [{category, text, attributes}] (read from that key to "
        "KEY: why KEY missed it), role, same_family, graph_similarity (0-1: the ops both "
        "graphs run), code_similarity (0-1: their code, value names and sizes aside), "
        "differing, lines: {shared, left, right, changed, "
        "only_left, only_right, "
        "differ}, inputs: [{left, right, changes}] (left: that key's input, right: "
        "KEY's)}]}");
    command->callback([options, &exit_code] { exit_code = run_why(*options); });
}

} // namespace cachelens::cli
