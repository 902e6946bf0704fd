#include "commands.h"
#include "fx_entry_argument.h"
#include "output.h"

#include <cachelens/explain/causes.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/key_diff.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct DiffOptions {
    std::string left;  // DIR:KEY
    std::string right; // [DIR:]KEY
    bool json = false;
    bool raw_code = false;
};

struct DirAndKey {
    std::string dir;
    std::string key;
};

// "DIR:KEY" splits at the last ':' (keys have none); a bare KEY takes `default_dir`.
DirAndKey split_argument(const std::string& argument, const std::string& default_dir) {
    const auto colon = argument.rfind(':');
    if (colon == std::string::npos) {
        return {default_dir, argument};
    }
    return {argument.substr(0, colon), argument.substr(colon + 1)};
}

Json line_json(const std::optional<cachedir::DebugLine>& line) {
    if (!line) {
        return nullptr;
    }
    return {{"hash", line->hash}, {"value", std::string(line->value)}};
}

// The inputs that differ, aligned by meaning; those that do not, counted.
void print_inputs_text(const std::vector<explain::AlignedInput>& aligned) {
    const auto lines = changed_inputs_text(aligned);
    if (lines.empty()) {
        return;
    }
    std::printf("\nexample inputs, aligned by what they are (%zu unchanged):\n",
                aligned.size() - lines.size());
    for (const auto& line : lines) {
        std::printf("%s\n", line.c_str());
    }
}

int run_diff(const DiffOptions& options) {
    const DirAndKey left = split_argument(options.left, "");
    if (left.dir.empty()) {
        return report("the first argument must be DIR:KEY (the cache dir and an FX graph key or "
                      "entry path)");
    }
    const DirAndKey right = split_argument(options.right, left.dir);
    auto left_scan = cachedir::scan_cache_dir(left.dir);
    if (!left_scan) {
        return report(left_scan.error());
    }
    auto right_scan = right.dir == left.dir ? left_scan : cachedir::scan_cache_dir(right.dir);
    if (!right_scan) {
        return report(right_scan.error());
    }
    auto a = explain::find_graph_to_compare(*left_scan, left.key);
    if (!a) {
        return report(a.error());
    }
    auto b = explain::find_graph_to_compare(*right_scan, right.key);
    if (!b) {
        return report(b.error());
    }
    // Inputs paired by what they are: a SymInt put in front shifts nothing.
    // Entries without debug lines are compared by what they hold.
    const auto pair = explain::explain_entries(a->fx, b->fx);
    const explain::KeyDiff& diff = pair.diff;
    const auto& aligned = pair.inputs;
    const auto& causes = pair.causes;
    if (options.json) {
        Json differences = Json::array();
        for (const auto& difference : diff.differences) {
            Json item = {{"attribute", difference.name},
                         {"change", explain::to_string(difference.change)},
                         {"left", line_json(difference.left)},
                         {"right", line_json(difference.right)}};
            const auto lines_json = [](const std::vector<explain::DiffLine>& diff_lines) {
                Json lines = Json::array();
                for (const auto& line : diff_lines) {
                    const char* op = line.op == explain::DiffLine::Op::Same      ? " "
                                     : line.op == explain::DiffLine::Op::Removed ? "-"
                                                                                 : "+";
                    lines.push_back(std::string(op) + std::string(line.text));
                }
                return lines;
            };
            if (!difference.value_diff.empty()) {
                item["value_diff"] = lines_json(difference.value_diff);
            }
            if (!difference.raw_value_diff.empty()) {
                item["raw_value_diff"] = lines_json(difference.raw_value_diff);
            }
            differences.push_back(std::move(item));
        }
        const auto side = [](const std::string& dir, const explain::GraphArgument& entry) {
            return Json{{"dir", dir},
                        {"key", entry.fx.key},
                        {"path", entry.entry.path},
                        {"role", cachedir::to_string(entry.fx.role)}};
        };
        Json out = {{"left", side(left.dir, *a)}, {"right", side(right.dir, *b)}};
        add_causes_json(out, causes);
        out["differences"] = std::move(differences);
        out["inputs"] = inputs_json(aligned);
        out["same"] = diff.same;
        out["from_facts"] = pair.from_facts;
        out["lines"] = line_counts_json(diff.counts());
        print_json(out);
        return kExitOk;
    }
    for (const auto& line : causes_text(causes)) {
        std::printf("%s\n", line.c_str());
    }
    const auto role = [](const cachedir::FxGraphEntry& fx) {
        return std::string(cachedir::to_string(fx.role));
    };
    std::printf("\n--- %s:%s (%s graph)\n+++ %s:%s (%s graph)\n", left.dir.c_str(),
                a->fx.key.c_str(), role(a->fx).c_str(), right.dir.c_str(), b->fx.key.c_str(),
                role(b->fx).c_str());
    std::printf("%s\n", describe_line_counts(diff.counts(), pair.from_facts).c_str());
    print_inputs_text(aligned);
    for (const auto& difference : diff.differences) {
        std::printf("\n%s (%s)\n", difference.name.c_str(),
                    std::string(explain::to_string(difference.change)).c_str());
        const auto& value_diff = options.raw_code && !difference.raw_value_diff.empty()
                                     ? difference.raw_value_diff
                                     : difference.value_diff;
        if (!value_diff.empty()) {
            for (const auto& line : value_diff) {
                if (line.op != explain::DiffLine::Op::Same) {
                    std::printf("  %c %.*s\n",
                                line.op == explain::DiffLine::Op::Removed ? '-' : '+',
                                static_cast<int>(line.text.size()), line.text.data());
                }
            }
            continue;
        }
        if (difference.left) {
            std::printf("  - %.*s\n", static_cast<int>(difference.left->value.size()),
                        difference.left->value.data());
        }
        if (difference.right) {
            std::printf("  + %.*s\n", static_cast<int>(difference.right->value.size()),
                        difference.right->value.data());
        }
    }
    return kExitOk;
}

} // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<DiffOptions>();
    auto* command = app.add_subcommand(
        "diff",
        "Compare the cache-key inputs (debug lines) of two FX graph entries: why the "
        "second misses the first in one verdict line, the causes ranked (dynamic, shapes, "
        "dtypes, device, layout, autograd, graph, config, environment, paths, other), "
        "the example inputs aligned by what they are, then every differing line, with a "
        "line diff inside the graph code: over the code normalized (the frees and sym_size "
        "lines dropped, the second graph's values named as the first's where their lines "
        "pair up), so a renumbering is no change; --raw-code shows it as written. Entries of "
        "PyTorch 2.7 and older store no debug lines: the first line says so, then they are "
        "compared by what they hold (fx_kwargs, the example inputs from the wrapper's "
        "asserts, the Inductor config their kernels recorded, the ops and kernels of "
        "their code, the Triton target and version).");
    command->add_option("DIR_A:KEY_A", options->left, "a cache dir and an FX key or entry path")
        ->required();
    command
        ->add_option("[DIR_B:]KEY_B", options->right, "the other entry; its dir defaults to DIR_A")
        ->required();
    command->add_flag("--raw-code", options->raw_code,
                      "the graph code's line diff over the code as written, not normalized");
    command->add_flag("--json", options->json,
                      "print {left: {dir, key, path, role}, right, verdict, causes: [{category, "
                      "text, attributes}], "
                      "differences: [{attribute, change, left, right"
                      "[, value_diff (normalized, for gm), raw_value_diff (gm as written)]}], "
                      "inputs: [{left, right, changes}] (the example inputs "
                      "aligned by what they are, an index null where one side has none), same, "
                      "lines: {shared, left, right, changed, only_left, only_right, differ}}");
    command->callback([options, &exit_code] { exit_code = run_diff(*options); });
}

} // namespace cachelens::cli
