#include "catalog_option.h"
#include "commands.h"
#include "output.h"
#include "serving_output.h"

#include <cachelens/cachedir/cache_dir.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct StatsOptions {
    std::string dir;
    std::string catalog;
    std::size_t largest = 10;
    bool json = false;
    bool as_indexed = false; // DIR as the catalog holds it, not indexed first
};

Json summary_json(const catalog::EntrySummary& entry) {
    Json json = {{"kind", cachedir::to_string(entry.kind)},
                 {"key", entry.key},
                 {"path", entry.path},
                 {"size", entry.size},
                 {"mtime", format_time(entry.mtime_ns)}};
    if (!entry.error.empty()) {
        json["error"] = entry.error;
    }
    return json;
}

int run_stats(const StatsOptions& options) {
    auto catalog = open_catalog(options.catalog);
    if (!catalog) {
        return report(catalog.error());
    }
    std::optional<std::filesystem::path> dir;
    if (!options.dir.empty()) {
        // Numbers about a dir are only worth having up to date, unless the
        // user keeps them so (`watch --index`, the GUI's Follow changes).
        auto held = options.as_indexed ? catalog->find_root(options.dir)
                                       : Result<std::optional<catalog::Root>>(std::nullopt);
        if (!held) {
            return report(held.error());
        }
        if (!*held || !(*held)->indexed_ns) {
            if (auto indexed = catalog->index(options.dir); !indexed) {
                return report(indexed.error());
            }
        }
        dir = options.dir;
    }
    auto stats = catalog->stats(dir, options.largest);
    if (!stats) {
        return report(stats.error());
    }
    if (options.json) {
        Json roots = Json::array();
        for (const auto& root : *stats) {
            Json kinds = Json::object();
            for (const auto& [kind, counts] : root.kinds) {
                kinds[std::string(cachedir::to_string(kind))] = {
                    {"entries", counts.entries},
                    {"files", counts.files},
                    {"bytes", counts.bytes},
                    {"oldest", format_time(counts.oldest_ns)},
                    {"newest", format_time(counts.newest_ns)},
                    {"parse_errors", counts.parse_errors}};
            }
            Json largest = Json::array();
            for (const auto& entry : root.largest) {
                largest.push_back(summary_json(entry));
            }
            Json errors = Json::array();
            for (const auto& entry : root.parse_errors) {
                errors.push_back(summary_json(entry));
            }
            Json unknown = Json::array();
            for (const auto& entry : root.unknown) {
                unknown.push_back(summary_json(entry));
            }
            const auto groups_json = [](const std::vector<catalog::TritonGroupStats>& groups) {
                Json list = Json::array();
                for (const auto& group : groups) {
                    list.push_back({{"group", text(group.group)},
                                    {"kernels", group.kernels},
                                    {"bytes", group.bytes},
                                    {"oldest", format_time(group.oldest_ns)},
                                    {"newest", format_time(group.newest_ns)}});
                }
                return list;
            };
            roots.push_back(
                {{"root", root.root.location},
                 {"indexed",
                  root.root.indexed_ns ? Json(format_time(*root.root.indexed_ns)) : Json(nullptr)},
                 {"kinds", std::move(kinds)},
                 {"largest", std::move(largest)},
                 {"triton_by_name", groups_json(root.triton_by_name)},
                 {"triton_by_arch", groups_json(root.triton_by_arch)},
                 {"parse_errors", std::move(errors)},
                 {"unknown", std::move(unknown)}});
        }
        print_json({{"catalog", catalog->path().string()}, {"roots", std::move(roots)}});
        return kExitOk;
    }
    if (stats->empty()) {
        std::printf("the catalog %s has no cache dirs yet: cachelens index DIR\n",
                    catalog->path().c_str());
    }
    for (const auto& root : *stats) {
        std::printf("%s\n", root.root.location.c_str());
        if (options.as_indexed && root.root.indexed_ns) {
            std::printf("  as indexed %s\n", format_age(*root.root.indexed_ns).c_str());
        }
        if (root.root.layout == cachedir::RootLayout::Vllm ||
            root.root.layout == cachedir::RootLayout::Sglang) {
            if (const auto summary = serving_summary_of(root.root.location)) {
                std::printf("  %s\n", summary->c_str());
            }
        }
        std::printf("  %-16s %8s %8s %12s  %-22s %s\n", "kind", "entries", "files", "size",
                    "oldest", "newest");
        std::uint64_t entries = 0, bytes = 0;
        for (const auto& [kind, counts] : root.kinds) {
            std::printf("  %-16s %8llu %8llu %12s  %-22s %s\n",
                        std::string(cachedir::to_string(kind)).c_str(),
                        static_cast<unsigned long long>(counts.entries),
                        static_cast<unsigned long long>(counts.files),
                        format_bytes(counts.bytes).c_str(), format_age(counts.oldest_ns).c_str(),
                        format_age(counts.newest_ns).c_str());
            entries += counts.entries;
            bytes += counts.bytes;
        }
        std::printf("  %-16s %8llu %8s %12s\n", "total", static_cast<unsigned long long>(entries),
                    "", format_bytes(bytes).c_str());
        if (!root.largest.empty()) {
            std::printf("\n  largest:\n");
            for (const auto& entry : root.largest) {
                std::printf("  %10s  %s\n", format_bytes(entry.size).c_str(), entry.path.c_str());
            }
        }
        // A Triton cache is sorted by kernel and GPU: which kernels fill it, for which arch.
        for (const auto& [title, groups] :
             {std::pair{"Triton kernels by name (the largest)", &root.triton_by_name},
              std::pair{"Triton kernels by arch", &root.triton_by_arch}}) {
            if (groups->empty()) {
                continue;
            }
            std::printf("\n  %s:\n", title);
            for (const auto& group : *groups) {
                std::printf("  %10s  %5llu  %-22s %-22s %s\n", format_bytes(group.bytes).c_str(),
                            static_cast<unsigned long long>(group.kernels),
                            format_age(group.oldest_ns).c_str(),
                            format_age(group.newest_ns).c_str(),
                            group.group.empty() ? "(unknown)" : group.group.c_str());
            }
        }
        const auto unknown = root.kinds.find(cachedir::FileKind::Unknown);
        const catalog::KindStats none;
        const auto& unknown_counts = unknown == root.kinds.end() ? none : unknown->second;
        std::printf("\n  %s\n",
                    cachedir::coverage_line(root.parse_errors.size(), unknown_counts.files,
                                            unknown_counts.bytes, {})
                        .c_str());
        std::vector<std::string> unknown_paths;
        for (const auto& entry : root.unknown) {
            unknown_paths.push_back(entry.path);
        }
        if (const auto nested = cachedir::nested_cache_dirs(unknown_paths); !nested.empty()) {
            std::printf("  %s\n",
                        cachedir::nested_cache_dirs_note(root.root.location, nested).c_str());
        }
        for (const auto& entry : root.parse_errors) {
            std::printf("  %s: %s\n", entry.path.c_str(), entry.error.c_str());
        }
        if (!root.unknown.empty()) {
            std::printf("\n  kind unknown (the largest):\n");
            for (const auto& entry : root.unknown) {
                std::printf("  %10s  %s\n", format_bytes(entry.size).c_str(), entry.path.c_str());
            }
        }
        std::printf("\n");
    }
    return kExitOk;
}

} // namespace

void add_stats_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<StatsOptions>();
    auto* command = app.add_subcommand(
        "stats", "Counts, bytes, ages, the largest entries and the parse errors, per cache dir "
                 "and kind, and its compiled Triton kernels by name and by arch, from the catalog "
                 "(DIR is indexed first).");
    command->add_option("DIR", options->dir, "one cache dir (default: every indexed one)");
    command->add_option("--largest", options->largest, "how many of the largest entries (10)");
    add_catalog_option(*command, options->catalog);
    command->add_flag("--as-indexed", options->as_indexed,
                      "read DIR as its last index left it, without walking it first (instant "
                      "on any size; says when that index was): for a dir kept up to date by "
                      "`cachelens watch DIR --index` or the GUI's Follow changes. A dir the "
                      "catalog does not hold yet is indexed first");
    command->add_flag(
        "--json", options->json,
        "print {catalog, roots: [{root, indexed, kinds: {KIND: {entries, files, "
        "bytes, oldest, newest, parse_errors}}, largest, triton_by_name, triton_by_arch: "
        "[{group, kernels, bytes, oldest, newest}], parse_errors}]}");
    command->callback([options, &exit_code] { exit_code = run_stats(*options); });
}

} // namespace cachelens::cli
