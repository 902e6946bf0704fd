#include "catalog_option.h"
#include "commands.h"
#include "output.h"
#include "progress_line.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>
#include <cachelens/remote/mirror.h>
#include <cachelens/remote/redis_endpoint.h>

#include <cstdio>
#include <iostream>

namespace cachelens::cli {

namespace {

struct IndexOptions {
    std::vector<std::string> dirs;
    std::string catalog;
    unsigned threads = 0;
    bool json = false;
};

// A redis:// URL is indexed through its mirror dir; returns the dir to index.
Result<std::string> mirror_if_remote(const std::string& argument, const catalog::Catalog& catalog,
                                     Json& remote_report, ProgressLine& progress) {
    if (!argument.starts_with("redis://") && !argument.starts_with("rediss://")) {
        return argument;
    }
    auto endpoint = remote::parse_redis_endpoint(argument);
    if (!endpoint) {
        return std::unexpected(endpoint.error());
    }
    auto client = remote::RedisClient::connect(*endpoint);
    if (!client) {
        return std::unexpected(client.error());
    }
    progress.set_label("mirroring " + endpoint->display());
    auto mirrored = remote::mirror_server(*client, *endpoint, catalog.path(), progress.callback());
    progress.clear();
    if (!mirrored) {
        return std::unexpected(mirrored.error());
    }
    for (const auto& note : mirrored->notes) {
        std::cerr << "cachelens: " << endpoint->display() << ": " << note << '\n';
    }
    remote_report = {{"server", endpoint->display()},
                     {"pulled", mirrored->pulled},
                     {"unchanged", mirrored->unchanged},
                     {"removed", mirrored->removed}};
    return mirrored->dir.string();
}

int run_index(const IndexOptions& options) {
    auto catalog = open_catalog(options.catalog);
    if (!catalog) {
        return report(catalog.error());
    }
    Json reports = Json::array();
    ProgressLine progress("indexing", options.json);
    constexpr std::string_view kStopped =
        "index stopped; the catalog is consistent, run index again to finish";
    for (const auto& argument : options.dirs) {
        Json remote_report;
        auto mirrored = mirror_if_remote(argument, *catalog, remote_report, progress);
        if (!mirrored) {
            return report_failure(progress, mirrored.error(), kStopped);
        }
        const std::string& dir = *mirrored;
        catalog::IndexOptions index_options;
        index_options.threads = options.threads;
        progress.set_label("indexing " + dir);
        index_options.progress = progress.callback();
        auto result = catalog->index(dir, index_options);
        progress.clear();
        if (!result) {
            return report(result.error());
        }
        if (result->cancelled) {
            return report_stopped(progress, kStopped);
        }
        for (const auto& error : result->walk_errors) {
            std::cerr << "cachelens: " << error.describe() << '\n';
        }
        if (options.json) {
            reports.push_back({{"root", result->root},
                               {"entries", result->entries},
                               {"unchanged", result->unchanged},
                               {"parsed", result->parsed},
                               {"removed", result->removed},
                               {"parse_errors", result->parse_errors},
                               {"being_written", result->being_written},
                               {"empty_key_dirs", result->empty_key_dirs}});
            if (!remote_report.is_null()) {
                reports.back()["remote"] = remote_report;
            }
        } else {
            if (!remote_report.is_null()) {
                std::printf("%s: mirrored (%zu pulled, %zu unchanged, %zu removed)\n",
                            argument.c_str(), remote_report["pulled"].get<std::size_t>(),
                            remote_report["unchanged"].get<std::size_t>(),
                            remote_report["removed"].get<std::size_t>());
            }
            std::printf("%s: %s (%zu parsed, %zu unchanged, %zu removed, %s)\n",
                        result->root.c_str(), plural(result->entries, "entry").c_str(),
                        result->parsed, result->unchanged, result->removed,
                        plural(result->parse_errors, "parse error").c_str());
            for (const auto& path : result->being_written) {
                std::printf("note: %s did not parse and was written within the last minute: "
                            "taken as still being written, indexed next time\n",
                            path.c_str());
            }
            for (const auto& key_dir : result->empty_key_dirs) {
                std::printf("note: %s\n", cachedir::empty_key_dir_note(key_dir).c_str());
            }
        }
    }
    if (options.json) {
        print_json({{"catalog", catalog->path().string()}, {"roots", std::move(reports)}});
    }
    return kExitOk;
}

} // namespace

void add_index_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<IndexOptions>();
    auto* command = app.add_subcommand(
        "index", "Add cache dirs to the catalog, or bring them up to date: only new or changed "
                 "files are parsed, vanished ones are removed. A redis:// URL adds PyTorch's "
                 "remote cache on that server: its entries are mirrored into a dir beside the "
                 "catalog (remote/<host>-<port>-db<N>, as PyTorch would lay them out) and that "
                 "dir is indexed, so search, diff and why see remote entries too.");
    command->add_option("DIR", options->dirs, "cache dirs or redis:// URLs")->required();
    add_catalog_option(*command, options->catalog);
    command->add_option("--threads", options->threads, "parsing threads (default: one per core)");
    command->add_flag("--json", options->json,
                      "print {catalog, roots: [{root, entries, unchanged, parsed, removed, "
                      "parse_errors, being_written, empty_key_dirs, remote (for a URL): {server, "
                      "pulled, unchanged, "
                      "removed}}]}");
    command->callback([options, &exit_code] { exit_code = run_index(*options); });
}

} // namespace cachelens::cli
