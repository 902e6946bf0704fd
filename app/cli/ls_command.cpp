#include "commands.h"
#include "output.h"
#include "progress_line.h"
#include "serving_output.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_links.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>

namespace cachelens::cli {

namespace {

struct LsOptions {
    std::string dir;
    std::vector<std::string> kinds;
    std::string sort = "path";
    bool graphs = false;
    bool json = false;
};

int run_ls(const LsOptions& options) {
    std::vector<cachedir::FileKind> wanted;
    for (const auto& name : options.kinds) {
        auto kind = cachedir::file_kind_from_string(name);
        if (!kind) {
            return report("unknown kind '" + name + "' (see cachelens ls --help)");
        }
        wanted.push_back(*kind);
    }
    auto scan = cachedir::scan_cache_dir(options.dir);
    if (!scan) {
        return report(scan.error());
    }
    // A vLLM or SGLang tree says what it is, on stderr: stdout stays a line per entry.
    if (scan->serving && !options.json) {
        if (const auto summary = serving_summary_of(options.dir)) {
            std::fprintf(stderr, "%s\n", summary->c_str());
        }
    }
    // --graphs: what each FX graph is, read from the entries (slower).
    std::map<std::string, cachedir::GraphFacts> facts;
    if (options.graphs) {
        ProgressLine progress("reading graphs in " + options.dir, options.json);
        auto read = cachedir::read_graph_facts(*scan, progress.callback());
        if (!read) {
            return report_failure(progress, read.error(), "stopped: nothing was listed");
        }
        facts = std::move(*read);
    }
    std::vector<cachedir::Entry> rows;
    for (auto& entry : scan->entries()) {
        if (wanted.empty() || std::find(wanted.begin(), wanted.end(), entry.kind) != wanted.end()) {
            rows.push_back(std::move(entry));
        }
    }
    if (options.sort == "size") {
        std::ranges::stable_sort(rows, std::greater{}, &cachedir::Entry::size);
    } else if (options.sort == "age") {
        std::ranges::stable_sort(rows, std::less{}, &cachedir::Entry::mtime_ns);
    }
    const auto facts_of = [&](const cachedir::Entry& entry) -> const cachedir::GraphFacts* {
        if (entry.kind != cachedir::FileKind::FxGraph) {
            return nullptr;
        }
        const auto found = facts.find(entry.key);
        return found == facts.end() ? nullptr : &found->second;
    };
    if (options.json) {
        Json out = Json::array();
        for (const auto& entry : rows) {
            Json row = {{"kind", cachedir::to_string(entry.kind)},
                        {"key", entry.key},
                        {"path", entry.path},
                        {"size", entry.size},
                        {"mtime", format_time(entry.mtime_ns)}};
            if (!entry.name.empty()) {
                row["name"] = entry.name;
            }
            if (entry.kind == cachedir::FileKind::Triton) {
                row["files"] = entry.file_count;
            }
            if (options.graphs && entry.kind == cachedir::FileKind::FxGraph) {
                const auto* graph = facts_of(entry);
                row["role"] =
                    cachedir::to_string(graph ? graph->role : cachedir::GraphRole::Unknown);
                row["aot_keys"] = graph ? graph->aot_keys : std::vector<std::string>{};
            }
            out.push_back(std::move(row));
        }
        print_json(out);
        return kExitOk;
    }
    for (const auto& entry : rows) {
        std::string graph;
        if (options.graphs && entry.kind == cachedir::FileKind::FxGraph) {
            const auto* found = facts_of(entry);
            graph = "  (" +
                    std::string(
                        cachedir::to_string(found ? found->role : cachedir::GraphRole::Unknown)) +
                    " graph";
            for (const auto& key : found ? found->aot_keys : std::vector<std::string>{}) {
                graph += ", of aotautograd " + key;
            }
            graph += ")";
        }
        std::printf("%-15s %-53s %10s  %-14s %s%s\n",
                    std::string(cachedir::to_string(entry.kind)).c_str(), entry.key.c_str(),
                    format_bytes(entry.size).c_str(), format_age(entry.mtime_ns).c_str(),
                    entry.name.empty() ? entry.path.c_str() : entry.name.c_str(), graph.c_str());
    }
    if (rows.empty()) {
        std::cerr << "no entries" << (wanted.empty() ? "" : " of that kind") << " in "
                  << options.dir << '\n';
    }
    return kExitOk;
}

} // namespace

void add_ls_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<LsOptions>();
    auto* command = app.add_subcommand("ls", "List the entries of a cache dir, one per line: "
                                             "kind, key, size, age, and the path (or Triton "
                                             "kernel name).");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command
        ->add_option("--kind", options->kinds, "only these kinds: " + cachedir::file_kind_names())
        ->delimiter(',');
    command
        ->add_option("--sort", options->sort,
                     "path (the default), size (largest first), age "
                     "(oldest first)")
        ->check(CLI::IsMember({"path", "size", "age"}));
    command->add_flag("--graphs", options->graphs,
                      "name each FX graph: forward, backward or inference, and the AOTAutograd "
                      "entries that run it (reads every FX and AOTAutograd entry: slower, with "
                      "progress on a terminal)");
    command->add_flag("--json", options->json,
                      "print a JSON array of {kind, key, path, size, mtime[, name, files][, role, "
                      "aot_keys (with --graphs)]}");
    command->callback([options, &exit_code] { exit_code = run_ls(*options); });
}

} // namespace cachelens::cli
