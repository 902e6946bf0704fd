#include "commands.h"
#include "entry_json.h"
#include "entry_text.h"
#include "output.h"
#include "serving_output.h"

#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/entry_links.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/serving/piecewise.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace cachelens::cli {

namespace {

struct ShowOptions {
    std::string dir; // a cache dir, or a file shown on its own
    std::string query;
    std::string env;      // an InMemoryCache in this variable
    std::string env_file; // ... or in this file, as the variable's value
    std::string against;  // a checkout to check a precompiled function's sources against
    bool json = false;
    TextOptions text;
};

const char* status_name(cachedir::SourceCheck::Status status) {
    switch (status) {
    case cachedir::SourceCheck::Status::Same:
        return "same";
    case cachedir::SourceCheck::Status::Changed:
        return "changed";
    case cachedir::SourceCheck::Status::Missing:
        break;
    }
    return "missing";
}

// Which of a precompiled function's checked sources changed in the checkout:
// the answer first, then each span.
int print_source_checks(const cachedir::Entry& entry, const cachedir::EntryContent& content,
                        const ShowOptions& options) {
    const auto* file = std::get_if<cachedir::PrecompileFile>(&content);
    if (file == nullptr) {
        return report("--against checks the sources of a precompiled function or DynamoCache "
                      "entry; " +
                      entry.path + " is " + std::string(cachedir::to_string(entry.kind)));
    }
    std::error_code error;
    if (!std::filesystem::is_directory(options.against, error)) {
        return report(Error{ErrorKind::NotFound, "not a directory (--against takes your checkout)",
                            options.against});
    }
    const auto checks = cachedir::check_sources_against(*file, options.against);
    const std::string answer = cachedir::source_checks_answer(checks);
    const bool changed = std::ranges::any_of(checks, [](const cachedir::SourceCheck& check) {
        return check.status == cachedir::SourceCheck::Status::Changed;
    });
    if (options.json) {
        Json list = Json::array();
        for (const auto& check : checks) {
            list.push_back({{"module", text(check.source->module)},
                            {"first_line", check.source->first_line},
                            {"last_line", check.source->last_line},
                            {"path", text(check.path)},
                            {"status", status_name(check.status)},
                            {"text", text(check.text)}});
        }
        print_json({{"file", text(entry.path)},
                    {"against", text(options.against)},
                    {"answer", answer},
                    {"rejected", changed},
                    {"sources", std::move(list)}});
    } else {
        std::printf("%s\n", answer.c_str());
        for (const auto& check : checks) {
            std::printf("  %-8s %s\n", status_name(check.status), check.text.c_str());
        }
    }
    return changed ? kExitProblems : kExitOk;
}

int print_standalone(const Result<cachedir::StandaloneFile>& file, const ShowOptions& options) {
    if (!file) {
        return report(file.error());
    }
    if (!options.against.empty()) {
        return print_source_checks(file->entry, file->content, options);
    }
    if (options.json) {
        print_json(entry_json(file->entry, file->content));
    } else {
        print_entry(file->entry, file->content, options.text);
    }
    return kExitOk;
}

int run_show_env(const ShowOptions& options) {
    if (!options.dir.empty()) {
        return report("--env and --env-file read an InMemoryCache, not " + options.dir +
                      ": give one of them alone");
    }
    if (!options.env_file.empty()) {
        auto value = read_text_file(options.env_file);
        if (!value) {
            return report(value.error());
        }
        return print_standalone(
            cachedir::load_in_memory_cache_env(*value, options.env_file, options.env_file),
            options);
    }
    const char* value = std::getenv(options.env.c_str());
    if (value == nullptr) {
        return report(Error{ErrorKind::NotFound,
                            "$" + options.env +
                                " is not set (InMemoryCache.from_env_var reads an unset variable "
                                "as an empty cache)",
                            {}});
    }
    return print_standalone(
        cachedir::load_in_memory_cache_env(value, options.env, "$" + options.env), options);
}

int run_show(const ShowOptions& options) {
    if (!options.env.empty() || !options.env_file.empty()) {
        return run_show_env(options);
    }
    if (options.dir.empty()) {
        return report("give a cache dir and a key, a file, or --env VAR / --env-file FILE");
    }
    std::error_code error;
    if (std::filesystem::exists(options.dir, error) &&
        !std::filesystem::is_directory(options.dir, error)) {
        if (!options.query.empty()) {
            return report(options.dir + " is a file: KEY_OR_PATH names an entry of a cache dir");
        }
        return print_standalone(cachedir::load_standalone_file(options.dir), options);
    }
    // A vLLM or SGLang tree: a hash dir (rank, prefix) shows its piecewise graphs.
    if (const auto location = serving_location_of(options.dir);
        location && options.against.empty()) {
        std::string relative = location->relative;
        if (!options.query.empty()) {
            relative = relative.empty() ? options.query : relative + "/" + options.query;
        }
        auto tree = serving::read_serving_tree(location->root);
        // A query that names a dir of the tree (a hash, rank or prefix dir)
        // shows it, and one that looks like such a dir but is not there is
        // said so; anything else is an entry: a key or a path, as `ls` of
        // that dir prints them.
        const std::string first = options.query.substr(0, options.query.find('/'));
        const bool looks_like_dir =
            tree && (tree->find_hash_dir(first) != nullptr || first == "torch_aot_compile" ||
                     serving::parse_rank_dir_name(first).has_value());
        if (tree &&
            (options.query.empty() || looks_like_dir || serving::select_in_tree(*tree, relative))) {
            return show_serving(*location, options.query, options.json);
        }
    }
    if (options.query.empty()) {
        return report("KEY_OR_PATH is required with a cache dir (" + options.dir +
                      "): a key, a kernel name or a path in it");
    }
    auto scan = cachedir::scan_cache_dir(options.dir);
    if (!scan) {
        return report(scan.error());
    }
    auto found = cachedir::resolve_entries(*scan, options.query);
    if (!found) {
        return report(found.error());
    }
    const auto& matches = *found;
    Json all = Json::array();
    int status = kExitOk;
    for (std::size_t i = 0; i < matches.size(); ++i) {
        const auto& entry = matches[i];
        auto content = cachedir::load_entry(scan->root, entry);
        if (!content) {
            status = report(content.error());
            continue;
        }
        if (!options.against.empty()) {
            status = std::max(status, print_source_checks(entry, *content, options));
            continue;
        }
        // What an FX graph belongs to: the AOTAutograd entries that run it.
        std::vector<cachedir::AotUse> uses;
        if (entry.kind == cachedir::FileKind::FxGraph) {
            uses = cachedir::find_aot_entries_using(scan->root, entry.key);
        }
        if (options.json) {
            Json item = entry_json(entry, *content);
            if (entry.kind == cachedir::FileKind::FxGraph) {
                Json list = Json::array();
                for (const auto& use : uses) {
                    list.push_back({{"key", use.key},
                                    {"path", use.path},
                                    {"as", cachedir::to_string(use.as)}});
                }
                item["aot_entries"] = std::move(list);
            }
            all.push_back(std::move(item));
        } else {
            if (i > 0) {
                std::printf("\n");
            }
            print_entry(entry, *content, options.text);
            for (const auto& use : uses) {
                std::printf("  %-22s %s (its %s graph)\n", "AOTAutograd entry", use.path.c_str(),
                            std::string(cachedir::to_string(use.as)).c_str());
            }
        }
    }
    if (options.json && !all.empty()) {
        print_json(all.size() == 1 ? all[0] : all);
    }
    return status;
}

} // namespace

void add_show_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ShowOptions>();
    auto* command = app.add_subcommand(
        "show", "Show everything parsed from an entry: an FX graph (guards, debug lines, "
                "kernels and their autotune candidates), an AOT entry (its graphs), a module, "
                "a best_config, a Triton kernel, the benchmark cache, an OnDiskCache value "
                "(torch/_inductor/cache.py), a DynamoCache entry. Or a file on its own (a "
                "precompiled function from save_compiled_function, a .pt2, an OnDiskCache "
                "value, an InMemoryCache file: a pickled dict), or the InMemoryCache in a variable "
                "(--env, --env-file). Values are decoded by cachelens's own unpickler, never "
                "loaded.");
    command->add_option("DIR", options->dir,
                        "the cache dir, or a file shown on its own; or a vLLM/SGLang "
                        "torch_compile_cache tree (or a dir in it)");
    command->add_option("KEY_OR_PATH", options->query,
                        "with a vLLM/SGLang tree: HASH_DIR[/rank_R_D[/PREFIX]] shows its "
                        "piecewise graphs (shape or compile range, graph index, compiler, the FX "
                        "entry or artifact each handle names, present or missing, kernels, "
                        "compile time) and the factors its name was hashed from; "
                        "with a cache dir: an fxgraph/aotautograd key (every entry under it), a "
                        "module or best_config name, a Triton hash or kernel name, an "
                        "OnDiskCache value's name, or a path in DIR");
    command->add_option("--env", options->env,
                        "show the InMemoryCache in this environment variable, as "
                        "InMemoryCache.from_env_var reads it: ';'-separated pairs "
                        "b'<pickled key>',b'<pickled value>'");
    command->add_option("--env-file", options->env_file,
                        "the same, the variable's value read from this file");
    command->add_option("--against", options->against,
                        "with a precompiled function or DynamoCache entry: check the source "
                        "spans it records against this checkout, as PyTorch's DynamoCache and "
                        "vLLM do on load (exit 1 when one changed)");
    command->add_flag("--json", options->json,
                      "print JSON: one object per entry (an array when several match); fxgraph "
                      "entries carry kind, key, path, guards_expr, debug_lines, "
                      "source_code_sha256, cache_key, device_types, time_taken_ns, kernels, role "
                      "(forward, backward, inference), aot_entries: [{key, path, as}] (the "
                      "AOTAutograd entries that run it)");
    command->add_flag("--source", options->text.source, "print source code and graphs in full");
    command->add_flag("--debug-lines", options->text.debug_lines,
                      "print every cache-key debug line of an FX graph entry");
    command->callback([options, &exit_code] { exit_code = run_show(*options); });
}

} // namespace cachelens::cli
