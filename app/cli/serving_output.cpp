#include "serving_output.h"

#include "import_report.h"
#include "output.h"
#include "progress_line.h"
#include "verify_output.h"

#include <cachelens/core/format.h>
#include <cachelens/serving/piecewise.h>

#include <algorithm>
#include <cstdio>

namespace cachelens::cli {

namespace {

Json shape_json(const serving::CompileShape& shape) {
    switch (shape.kind) {
    case serving::CompileShape::Kind::General:
        return {{"kind", "general"}};
    case serving::CompileShape::Kind::Size:
        return {{"kind", "size"}, {"size", shape.start}};
    case serving::CompileShape::Kind::Range:
        return {{"kind", "range"}, {"start", shape.start}, {"end", shape.end}};
    }
    return {};
}

Json factors_json(const serving::CacheKeyFactors& factors) {
    Json env = Json::object();
    for (const auto& [name, value] : factors.env) {
        env[name] = Json::parse(value, nullptr, false);
    }
    Json out = {{"config_hash", factors.config_hash},
                {"code_hash", factors.code_hash},
                {"compiler_hash", factors.compiler_hash},
                {"env", std::move(env)}};
    const auto recomputed = serving::recompute_hash_dir_name(factors);
    out["dir_name"] = recomputed ? Json(*recomputed) : Json();
    return out;
}

std::string seconds(std::int64_t ns) {
    return format_duration_ns(ns);
}

Result<std::pair<serving::ServingTree, serving::TreeSelection>>
read_selection(const serving::ServingLocation& location, std::string_view relative) {
    auto tree = serving::read_serving_tree(location.root);
    if (!tree) {
        return std::unexpected(tree.error());
    }
    std::pair<serving::ServingTree, serving::TreeSelection> out{std::move(*tree), {}};
    auto selection = serving::select_in_tree(out.first, relative);
    if (!selection) {
        return std::unexpected(selection.error());
    }
    out.second = *selection;
    return out;
}

template <class Visit>
void for_each_prefix(const serving::ServingTree& tree, const serving::TreeSelection& selection,
                     Visit visit) {
    for (const auto& dir : tree.hash_dirs) {
        if (selection.hash_dir != nullptr && &dir != selection.hash_dir) {
            continue;
        }
        for (const auto& rank : dir.ranks) {
            if (selection.rank != nullptr && &rank != selection.rank) {
                continue;
            }
            for (const auto& prefix : rank.prefixes) {
                if (selection.prefix == nullptr || &prefix == selection.prefix) {
                    visit(dir, rank, prefix);
                }
            }
        }
    }
}

} // namespace

std::optional<serving::ServingLocation> serving_location_of(const std::string& path) {
    return serving::locate_serving_tree(path);
}

std::optional<std::string> serving_summary_of(const std::string& path) {
    const auto location = serving::locate_serving_tree(path);
    if (!location) {
        return std::nullopt;
    }
    auto tree = serving::read_serving_tree(location->root);
    if (!tree) {
        return std::nullopt;
    }
    return serving::describe_tree_with_graphs(*tree);
}

int show_serving(const serving::ServingLocation& location, std::string_view selection_text,
                 bool json) {
    std::string relative = location.relative;
    if (!selection_text.empty()) {
        relative = relative.empty() ? std::string(selection_text)
                                    : relative + "/" + std::string(selection_text);
    }
    auto read = read_selection(location, relative);
    if (!read) {
        return report(read.error());
    }
    const auto& [tree, selection] = *read;
    Json prefixes = Json::array();
    if (!json) {
        std::printf("%s\n", serving::describe_tree_with_graphs(tree).c_str());
    }
    for_each_prefix(
        tree, selection,
        [&](const serving::HashDir&, const serving::RankDir&, const serving::PrefixDir& prefix) {
            const auto graphs = serving::read_piecewise_graphs(tree, prefix, /*details=*/true);
            if (json) {
                Json list = Json::array();
                for (const auto& graph : graphs.graphs) {
                    Json item = {
                        {"graph_index",
                         graph.entry.graph_index ? Json(*graph.entry.graph_index) : Json(nullptr)},
                        {"graph_hash", graph.entry.graph_hash},
                        {"shape", shape_json(graph.entry.shape)},
                        {"compiler", graph.entry.compiler},
                        {"link", serving::to_string(graph.link)},
                        {"present", graph.present},
                        {"found_path", graph.found_path},
                        {"moved", graph.moved},
                        {"problem", graph.problem},
                        {"fx_key", graph.fx_key},
                        {"kernels", graph.kernels ? Json(*graph.kernels) : Json()},
                        {"compile_ns", graph.compile_ns ? Json(*graph.compile_ns) : Json()}};
                    item["handle"] = graph.entry.handle
                                         ? Json{{"key", text(graph.entry.handle->key)},
                                                {"path", text(graph.entry.handle->path)}}
                                         : Json();
                    list.push_back(std::move(item));
                }
                prefixes.push_back(
                    {{"path", prefix.path},
                     {"name", prefix.name},
                     {"index_file", prefix.index_file},
                     {"index_error",
                      prefix.index_error ? Json(prefix.index_error->message) : Json()},
                     {"inductor_cache", prefix.inductor_cache},
                     {"triton_cache", prefix.triton_cache},
                     {"graphs", std::move(list)},
                     {"unindexed_artifacts", graphs.unindexed_artifacts},
                     {"factors", prefix.factors ? factors_json(*prefix.factors) : Json()}});
                return;
            }
            // A blank line before each prefix: after the summary, and between prefixes.
            std::printf("\n%s: %zu piecewise graph%s, %zu linked%s\n", prefix.path.c_str(),
                        graphs.graphs.size(), graphs.graphs.size() == 1 ? "" : "s", graphs.linked(),
                        prefix.index_file.empty() ? " (no index file)" : "");
            if (prefix.index_error) {
                std::printf("  %s does not parse: %s\n", prefix.index_file.c_str(),
                            prefix.index_error->message.c_str());
            }
            // A graph is named by its index, or (2026 vLLM) by its hash.
            int graph_width = 5;
            for (const auto& graph : graphs.graphs) {
                graph_width =
                    std::max(graph_width, static_cast<int>(graph.entry.graph_name().size()));
            }
            if (!graphs.graphs.empty()) {
                std::printf("  %*s  %-16s %-20s %-8s %7s %9s  %s\n", graph_width, "graph", "shape",
                            "compiler", "present", "kernels", "compile", "handle");
            }
            for (const auto& graph : graphs.graphs) {
                const std::string handle =
                    graph.entry.handle
                        ? graph.entry.handle->key + (graph.moved ? " (recorded elsewhere)" : "")
                        : "(none)";
                std::printf("  %*s  %-16s %-20s %-8s %7s %9s  %s\n", graph_width,
                            graph.entry.graph_name().c_str(), graph.entry.shape.describe().c_str(),
                            graph.entry.compiler.c_str(),
                            graph.link == serving::PiecewiseGraph::Link::None ? "-"
                            : graph.present                                   ? "yes"
                                                                              : "MISSING",
                            graph.kernels ? std::to_string(*graph.kernels).c_str() : "",
                            graph.compile_ns ? seconds(*graph.compile_ns).c_str() : "",
                            handle.c_str());
                if (!graph.problem.empty()) {
                    std::printf("         %s\n", graph.problem.c_str());
                }
            }
            for (const auto& name : graphs.unindexed_artifacts) {
                std::printf("  not in the index: %s\n", name.c_str());
            }
            if (prefix.factors_error) {
                std::printf("  %s does not parse: %s\n",
                            std::string(serving::kFactorsFileName).c_str(),
                            prefix.factors_error->message.c_str());
            }
            if (prefix.factors) {
                const auto& factors = *prefix.factors;
                const auto recomputed = serving::recompute_hash_dir_name(factors);
                std::printf("  factors (%s): config %s, code %s, compiler %s; names the dir %s\n",
                            std::string(serving::kFactorsFileName).c_str(),
                            factors.config_hash.c_str(), factors.code_hash.c_str(),
                            factors.compiler_hash.c_str(),
                            recomputed ? recomputed->c_str() : "(cannot be recomputed)");
                for (const auto& [name, value] : factors.env) {
                    std::printf("    %s = %s\n", name.c_str(), value.c_str());
                }
            }
        });
    if (json) {
        print_json({{"root", tree.root.string()},
                    {"stack", serving::to_string(tree.stack)},
                    {"summary", serving::describe_tree_with_graphs(tree)},
                    {"selection", relative},
                    {"prefixes", std::move(prefixes)}});
    }
    return kExitOk;
}

int why_serving(const serving::ServingLocation& location, std::string_view against,
                std::optional<std::int64_t> tokens, bool json) {
    auto read = read_selection(location, location.relative);
    if (!read) {
        return report(read.error());
    }
    const auto& [tree, selection] = *read;
    if (selection.hash_dir == nullptr) {
        return report("name one cache dir of " + tree.root.string() +
                      " (a hash dir, or a rank or prefix dir in it) to ask why vLLM made it");
    }
    if (tokens) {
        Json list = Json::array();
        int status = kExitOk;
        for_each_prefix(tree, selection,
                        [&](const serving::HashDir&, const serving::RankDir&,
                            const serving::PrefixDir& prefix) {
                            const auto lookup = serving::lookup_shape(prefix, *tokens);
                            if (!lookup.unserved_graphs.empty()) {
                                status = kExitProblems;
                            }
                            if (json) {
                                Json shapes = Json::array();
                                for (const auto& shape : lookup.shapes) {
                                    shapes.push_back(shape_json(shape));
                                }
                                Json unserved = Json::array();
                                for (const auto* entry : lookup.unserved_graphs) {
                                    unserved.push_back(entry->graph_index
                                                           ? Json(*entry->graph_index)
                                                           : Json(entry->graph_hash));
                                }
                                list.push_back({{"prefix", prefix.path},
                                                {"answer", lookup.answer},
                                                {"served", lookup.served.size()},
                                                {"unserved_graphs", std::move(unserved)},
                                                {"shapes", std::move(shapes)}});
                            } else {
                                std::printf("%s: %s\n", prefix.path.c_str(), lookup.answer.c_str());
                            }
                        });
        if (json) {
            print_json({{"tokens", *tokens}, {"prefixes", std::move(list)}});
        }
        return status;
    }
    const serving::HashDir* other = nullptr;
    if (!against.empty()) {
        auto other_location = serving_location_of(std::string(against));
        std::string name(against);
        if (other_location && other_location->root == tree.root) {
            name = other_location->relative.substr(0, other_location->relative.find('/'));
            if (name == "torch_aot_compile") {
                name = other_location->relative;
            }
        }
        other = tree.find_hash_dir(name);
        if (other == nullptr) {
            return report("--against " + std::string(against) + ": no cache dir of that name in " +
                          tree.root.string());
        }
    }
    auto comparison = serving::compare_hash_dirs(tree, *selection.hash_dir, other);
    if (!comparison) {
        return report(comparison.error());
    }
    if (json) {
        Json changes = Json::array();
        for (const auto& change : comparison->changes) {
            changes.push_back({{"factor", change.factor},
                               {"name", change.name},
                               {"from", change.from},
                               {"to", change.to},
                               {"text", serving::describe(change)}});
        }
        print_json({{"dir", comparison->dir},
                    {"against", comparison->against},
                    {"nearest", comparison->nearest},
                    {"factors_recorded", comparison->factors_recorded},
                    {"answer", comparison->answer},
                    {"changes", std::move(changes)}});
        return kExitOk;
    }
    std::printf("%s\n\n", comparison->answer.c_str());
    std::printf("%s against %s%s:\n", comparison->dir.c_str(), comparison->against.c_str(),
                comparison->nearest ? " (the nearest cache dir by its factors)" : "");
    if (comparison->changes.empty()) {
        std::printf("  %s\n", comparison->factors_recorded ? "no factor differs"
                                                           : "no factors recorded to compare");
    }
    for (const auto& change : comparison->changes) {
        std::printf("  %s\n", serving::describe(change).c_str());
    }
    return kExitOk;
}

int verify_serving(const serving::ServingLocation& location, bool json) {
    auto read = read_selection(location, location.relative);
    if (!read) {
        return report(read.error());
    }
    const auto& [tree, selection] = *read;
    ProgressLine progress("verifying the caches in " + tree.root.string(), json);
    auto verified = serving::verify_serving_tree(tree, selection, progress.callback());
    progress.clear();
    if (!verified) {
        return report_failure(progress, verified.error(), "verify stopped");
    }
    const auto& found = verified->report;
    std::vector<const bundle::ArtifactCheck*> checks;
    for (const auto& file : verified->code) {
        checks.push_back(&file.check);
    }
    if (json) {
        print_json({{"root", tree.root.string()},
                    {"stack", serving::to_string(tree.stack)},
                    {"clean", verified->clean()},
                    {"code_clean", code_clean(verified->code)},
                    {"code", verdicts_json(verified->code)},
                    {"graphs_checked", verified->graphs_checked},
                    {"inner_caches", verified->inner_caches},
                    {"entries_checked", found.entries_checked},
                    {"names_verified", found.names_verified},
                    {"problems", problems_json(found.problems)},
                    {"warnings", problems_json(found.warnings)},
                    {"notes", verified->notes}});
        return verified->clean() ? kExitOk : kExitProblems;
    }
    std::printf("%s\n", serving::describe_tree_with_graphs(tree).c_str());
    print_verify_findings(verified->code, found);
    for (const auto& note : verified->notes) {
        std::printf("note: %s\n", note.c_str());
    }
    std::fprintf(stderr, "%s, %s, %s checked, %s verified, %s\n",
                 plural(verified->graphs_checked, "piecewise graph").c_str(),
                 plural(verified->inner_caches, "inner cache").c_str(),
                 plural(found.entries_checked, "entry").c_str(),
                 plural(found.names_verified, "name").c_str(),
                 plural(found.problems.size(), "problem").c_str());
    std::fprintf(stderr, "%s PyTorch would unpickle, import or compile: %s\n",
                 plural(verified->code.size(), "file").c_str(), verdict_summary(checks).c_str());
    return verified->clean() ? kExitOk : kExitProblems;
}

} // namespace cachelens::cli
