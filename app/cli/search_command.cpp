#include "catalog_option.h"
#include "commands.h"
#include "output.h"

#include <cachelens/core/format.h>

#include <chrono>
#include <cstdio>

namespace cachelens::cli {

namespace {

struct SearchOptions {
    std::vector<std::string> words;
    std::vector<std::string> kinds;
    std::string root;
    std::string device;
    bool with_guards = false;
    bool without_guards = false;
    std::string min_size, max_size, older_than, newer_than;
    std::size_t limit = 50;
    std::string catalog;
    bool json = false;
};

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The query from the options; an error names the bad option.
Result<catalog::SearchQuery> query_of(const SearchOptions& options) {
    catalog::SearchQuery query;
    // Several words as one query: `search inductor_config max_autotune`.
    for (const auto& word : options.words) {
        query.text += (query.text.empty() ? "" : " ") + word;
    }
    query.limit = options.limit;
    for (const auto& name : options.kinds) {
        auto kind = cachedir::file_kind_from_string(name);
        if (!kind) {
            return fail(ErrorKind::InvalidArgument, "unknown kind '" + name + "'");
        }
        query.kinds.push_back(*kind);
    }
    if (!options.root.empty()) {
        query.root = options.root;
    }
    if (!options.device.empty()) {
        query.device = options.device;
    }
    if (options.with_guards || options.without_guards) {
        query.has_guards = options.with_guards;
    }
    for (const auto& [text, slot] : {std::pair{&options.min_size, &query.min_size},
                                     std::pair{&options.max_size, &query.max_size}}) {
        if (!text->empty()) {
            auto size = parse_size(*text);
            if (!size) {
                return std::unexpected(size.error());
            }
            *slot = *size;
        }
    }
    if (!options.older_than.empty()) {
        auto age = parse_age(options.older_than);
        if (!age) {
            return std::unexpected(age.error());
        }
        query.modified_before_ns = now_ns() - *age;
    }
    if (!options.newer_than.empty()) {
        auto age = parse_age(options.newer_than);
        if (!age) {
            return std::unexpected(age.error());
        }
        query.modified_after_ns = now_ns() - *age;
    }
    return query;
}

int run_search(const SearchOptions& options) {
    auto query = query_of(options);
    if (!query) {
        return report(query.error());
    }
    auto catalog = open_catalog(options.catalog);
    if (!catalog) {
        return report(catalog.error());
    }
    // One read: the text is matched once for the page and the count.
    auto page = catalog->search_page(*query);
    if (!page) {
        return report(page.error());
    }
    if (options.json) {
        Json rows = Json::array();
        for (const auto& hit : page->hits) {
            Json row = {{"root", hit.root},
                        {"kind", cachedir::to_string(hit.kind)},
                        {"key", hit.key},
                        {"path", hit.path},
                        {"size", hit.size},
                        {"mtime", format_time(hit.mtime_ns)},
                        {"parse_status", hit.parse_status},
                        {"matched", hit.matched}};
            if (!hit.name.empty()) {
                row["name"] = hit.name;
            }
            if (!hit.device.empty()) {
                row["device"] = hit.device;
            }
            if (!hit.role.empty()) {
                row["role"] = hit.role;
            }
            if (hit.has_guards) {
                row["has_guards"] = *hit.has_guards;
            }
            if (hit.compile_time_ns) {
                row["compile_time_ns"] = *hit.compile_time_ns;
            }
            rows.push_back(std::move(row));
        }
        print_json({{"total", page->total}, {"hits", std::move(rows)}});
        return kExitOk;
    }
    for (const auto& hit : page->hits) {
        std::string matched;
        for (const auto& field : hit.matched) {
            matched += (matched.empty() ? " [" : ", ") + field;
        }
        if (!matched.empty()) {
            matched += "]";
        }
        const std::string role = hit.role.empty() ? "" : "  (" + hit.role + " graph)";
        std::printf("%-12s %-53s %10s  %s/%s%s%s\n",
                    std::string(cachedir::to_string(hit.kind)).c_str(), hit.key.c_str(),
                    format_bytes(hit.size).c_str(), hit.root.c_str(),
                    hit.name.empty() ? hit.path.c_str() : (hit.path + " " + hit.name).c_str(),
                    role.c_str(), matched.c_str());
    }
    std::fprintf(stderr, "%zu of %s shown\n", page->hits.size(),
                 plural(page->total, "matching entry").c_str());
    return kExitOk;
}

} // namespace

void add_search_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<SearchOptions>();
    auto* command = app.add_subcommand(
        "search", "Search every indexed cache dir: words in keys, kernel names, debug lines and "
                  "source (every word must appear; a word's parts joined by _ or . stay together, "
                  "its last part a prefix), with filters.");
    command
        ->add_option("QUERY", options->words,
                     "words to find, as one argument or several (\"\" for every entry)")
        ->required();
    command->add_option("--kind", options->kinds, "only these kinds")->delimiter(',');
    command->add_option("--root", options->root, "only this cache dir");
    command->add_option("--device", options->device,
                        "FX graphs compiled for this device (cuda, cpu)");
    command->add_flag("--has-guards", options->with_guards, "only entries with guards");
    command->add_flag("--no-guards", options->without_guards, "only FX/AOT entries without guards");
    command->add_option("--min-size", options->min_size, "at least this big (100k, 2M)");
    command->add_option("--max-size", options->max_size, "at most this big");
    command->add_option("--older-than", options->older_than, "modified before this long ago (30d)");
    command->add_option("--newer-than", options->newer_than, "modified within this long (12h)");
    command->add_option("--limit", options->limit, "show at most this many (default 50)");
    add_catalog_option(*command, options->catalog);
    command->add_flag("--json", options->json,
                      "print {total, hits: [{root, kind, key, path, size, mtime, parse_status, "
                      "matched[, name, device, role, has_guards, compile_time_ns]}]}");
    command->callback([options, &exit_code] { exit_code = run_search(*options); });
}

} // namespace cachelens::cli
