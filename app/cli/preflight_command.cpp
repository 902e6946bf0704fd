#include "commands.h"
#include "output.h"
#include "progress_line.h"

#include <cachelens/explain/preflight.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct PreflightOptions {
    std::string source;
    std::string target;
    bool json = false;
};

Json environment_json(const explain::MachineEnvironment& machine) {
    Json json = Json::object();
    for (const auto& [name, text] : machine.environment.json_fields()) {
        json[std::string(name)] = text->empty() ? Json() : Json(*text);
    }
    json["device_types"] = machine.device_types;
    json["fx_entries"] = machine.fx_entries;
    json["agreeing"] = machine.agreeing;
    return json;
}

int run_preflight(const PreflightOptions& options) {
    auto target_scan = cachedir::scan_cache_dir(options.target);
    if (!target_scan) {
        return report(target_scan.error());
    }
    auto source_scan = cachedir::scan_cache_dir(options.source);
    if (!source_scan) {
        return report(source_scan.error());
    }
    ProgressLine progress("reading the target " + options.target, options.json);
    auto target = explain::environment_of_dir(*target_scan, progress.callback());
    if (!target) {
        return report_failure(progress, target.error(), "stopped: nothing was compared");
    }
    progress.set_label("checking " + options.source);
    auto checked = explain::preflight(*source_scan, *target, progress.callback());
    if (!checked) {
        return report_failure(progress, checked.error(), "stopped: nothing was compared");
    }
    progress.clear();
    const auto& report_ = *checked;
    using enum explain::PreflightOutcome;
    const int exit_code =
        report_.count(CanHit) == report_.entries.size() && report_.incomplete.empty()
            ? kExitOk
            : kExitProblems;
    if (options.json) {
        Json entries = Json::array();
        for (const auto& entry : report_.entries) {
            Json reasons = Json::array();
            for (const auto& reason : entry.reasons) {
                reasons.push_back({{"category", reason.category}, {"text", reason.text}});
            }
            entries.push_back({{"kind", cachedir::to_string(entry.kind)},
                               {"key", entry.key},
                               {"path", entry.path},
                               {"outcome", explain::to_string(entry.outcome)},
                               {"reasons", std::move(reasons)}});
        }
        Json incomplete = Json::array();
        for (const auto& gap : report_.incomplete) {
            incomplete.push_back(
                {{"kind", cachedir::to_string(gap.kind)}, {"key", gap.key}, {"text", gap.text}});
        }
        print_json(
            {{"source", source_scan->root.string()},
             {"target",
              {{"dir", target_scan->root.string()}, {"environment", environment_json(*target)}}},
             {"entries", std::move(entries)},
             {"incomplete", std::move(incomplete)}});
        return exit_code;
    }
    // The answer first, in one line.
    std::printf("%zu of %zu entries can hit on the target; %zu will miss, %zu cannot tell\n",
                report_.count(CanHit), report_.entries.size(), report_.count(WillMiss),
                report_.count(CannotTell));
    std::printf("target: %s (%s; graphs for", target_scan->root.c_str(),
                target->environment.describe().c_str());
    for (const auto& device : target->device_types) {
        std::printf(" %s", device.c_str());
    }
    std::printf("; from %zu of its %zu FX entries)\n\n", target->agreeing, target->fx_entries);
    for (const auto& entry : report_.entries) {
        const std::string outcome(explain::to_string(entry.outcome));
        std::printf("%-12s %-12s %s\n", outcome.c_str(),
                    std::string(cachedir::to_string(entry.kind)).c_str(), entry.key.c_str());
        for (const auto& reason : entry.reasons) {
            std::printf("    %s: %s\n", reason.category.c_str(), reason.text.c_str());
        }
    }
    if (!report_.incomplete.empty()) {
        std::printf("\nincomplete:\n");
        for (const auto& gap : report_.incomplete) {
            std::printf("  %s %s: %s\n", std::string(cachedir::to_string(gap.kind)).c_str(),
                        gap.key.c_str(), gap.text.c_str());
        }
    }
    return exit_code;
}

} // namespace

void add_preflight_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<PreflightOptions>();
    auto* command = app.add_subcommand(
        "preflight",
        "Will this cache hit on another machine? Each FX graph and AOTAutograd entry of SOURCE "
        "against the environment the target's own compiles wrote into their keys (a cache dir "
        "made there: the GPU, CUDA or HIP, Triton, the torch build, the devices its graphs were "
        "compiled for): can_hit, will_miss with what differs, or cannot_tell. Also what SOURCE "
        "lacks: an AOTAutograd entry's missing graph (it can never hit), a kernel's missing "
        ".best_config (autotuning runs again). Exit 0 when every entry can hit and nothing is "
        "missing, 1 otherwise, 2 on an error (a target with no FX entry to learn from)");
    command->add_option("SOURCE", options->source, "the cache dir to ship")->required();
    command->add_option("--target", options->target, "a cache dir made on the target machine")
        ->required();
    command->add_flag("--json", options->json,
                      "print {source, target: {dir, environment: {device_name, cuda, hip, "
                      "triton, triton_key, torch_build, system_hash, device_types, fx_entries, "
                      "agreeing}}, entries: [{kind, key, path, outcome, reasons: [{category, "
                      "text}]}], incomplete: [{kind, key, text}]}");
    command->callback([options, &exit_code] { exit_code = run_preflight(*options); });
}

} // namespace cachelens::cli
