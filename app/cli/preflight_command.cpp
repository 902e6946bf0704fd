#include "commands.h"
#include "output.h"
#include "preflight_output.h"
#include "progress_line.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/explain/preflight.h>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace cachelens::cli {

namespace {

struct PreflightOptions {
    std::string source;
    std::string target;
    bool json = false;
};

// What SOURCE names: a cache dir, or a bundle file read in place.
struct LoadedSource {
    std::optional<bundle::BundleFile> bundle;
    explain::PreflightSource graphs;
};

Result<LoadedSource> load_source(const std::string& source) {
    LoadedSource loaded;
    std::error_code error;
    if (std::filesystem::is_regular_file(source, error)) {
        auto file = bundle::open_bundle_file(source);
        if (!file) {
            return std::unexpected(file.error());
        }
        loaded.bundle = std::move(*file);
        loaded.graphs = explain::preflight_source(loaded.bundle->bundle, source);
        return loaded;
    }
    auto scan = cachedir::scan_cache_dir(source);
    if (!scan) {
        return std::unexpected(scan.error());
    }
    loaded.graphs = explain::preflight_source(*scan);
    return loaded;
}

int run_preflight(const PreflightOptions& options) {
    ProgressLine progress("reading the target " + options.target, options.json);
    auto target = cachedir::fingerprint_of_target(options.target, progress.callback());
    if (!target) {
        return report_failure(progress, target.error(), "stopped: nothing was compared");
    }
    progress.set_label("reading " + options.source);
    auto source = load_source(options.source);
    if (!source) {
        progress.clear();
        return report(source.error());
    }
    progress.set_label("checking " + options.source);
    auto checked = explain::preflight(source->graphs, *target, progress.callback());
    if (!checked) {
        return report_failure(progress, checked.error(), "stopped: nothing was compared");
    }
    progress.clear();
    const int exit_code = checked->all_can_hit() ? kExitOk : kExitProblems;
    if (options.json) {
        Json json = {{"source", text(options.source)},
                     {"source_kind", source->bundle ? "bundle" : "dir"},
                     {"target",
                      {{"path", text(options.target)},
                       {"fingerprint", Json::parse(cachedir::to_json(*target))}}}};
        json.update(preflight_json(*checked));
        print_json(json);
        return exit_code;
    }
    // The answer first, in one line.
    print_preflight_answer(*checked);
    std::printf(
        "target: %s (%s; graphs for %s; learnt from %s", options.target.c_str(),
        target->describe().c_str(),
        [&] {
            std::string devices;
            for (const auto& device : target->device_types) {
                devices += (devices.empty() ? "" : " ") + device;
            }
            return devices;
        }()
            .c_str(),
        target->learnt_from.c_str());
    if (target->fx_entries > 0) {
        std::printf(", %zu of its %zu FX entries", target->agreeing, target->fx_entries);
    }
    std::printf(")\n\n");
    print_preflight_details(*checked);
    return exit_code;
}

} // namespace

void add_preflight_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<PreflightOptions>();
    auto* command = app.add_subcommand(
        "preflight",
        "Will this cache hit on another machine? Each FX graph and AOTAutograd entry of SOURCE "
        "(a cache dir or a bundle, read in place) against the target machine's fingerprint (a "
        "file `cachelens env --output` wrote there, or a cache dir made there): the GPU, CUDA "
        "or HIP, Triton, the torch build, the devices, and, from a cache dir, the Inductor "
        "config its compiles used. Each entry can_hit, will_miss with what differs "
        "(\"config: max_autotune True -> False\"), or cannot_tell. Also what SOURCE lacks: an "
        "AOTAutograd entry's missing graph (it can never hit), a kernel's missing .best_config "
        "(autotuning runs again), a PGO profile for graphs with dynamic shapes (a note). Exit 0 "
        "when every entry can hit and nothing is missing, 1 otherwise, 2 on an error (a target "
        "with no FX entry to learn from, a file that is no fingerprint)");
    command->add_option("SOURCE", options->source, "the cache dir or bundle to ship")->required();
    command
        ->add_option("--target", options->target,
                     "the target machine: a fingerprint file (cachelens env --output) or a "
                     "cache dir made there")
        ->required();
    command->add_flag("--json", options->json,
                      "print {source, source_kind: dir|bundle, target: {path, fingerprint: "
                      "(cachelens env --json)}, entries: [{kind, key, path, outcome, reasons: "
                      "[{category, text}]}], incomplete: [{kind, key, text}], notes: [text], "
                      "config_compared}");
    command->callback([options, &exit_code] { exit_code = run_preflight(*options); });
}

} // namespace cachelens::cli
