#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/entry_links.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/explain/preflight.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

namespace cachelens::explain {

namespace {

using cachedir::Entry;
using cachedir::Environment;
using cachedir::FileKind;

// The FX and AOTAutograd entries of a scan, FX first, each in path order.
std::vector<Entry> graph_entries(const cachedir::Scan& scan) {
    std::vector<Entry> out;
    for (const FileKind kind : {FileKind::FxGraph, FileKind::AotAutograd}) {
        for (auto& entry : scan.entries()) {
            if (entry.kind == kind) {
                out.push_back(std::move(entry));
            }
        }
    }
    return out;
}

std::string or_none(const std::string& text) {
    return text.empty() ? "none" : text;
}

// Why an entry compiled for `entry` will miss on `target`, in the words of
// the why engine's categories; empty when nothing PyTorch hashes differs.
std::vector<PreflightReason> differences(const Environment& entry,
                                         const std::vector<std::string>& entry_devices,
                                         const MachineEnvironment& target) {
    const Environment& there = target.environment;
    std::vector<PreflightReason> reasons;
    for (const auto& device : entry_devices) {
        if (!std::ranges::binary_search(target.device_types, device)) {
            std::string devices;
            for (const auto& other : target.device_types) {
                devices += (devices.empty() ? "" : ", ") + other;
            }
            reasons.push_back({"device", "compiled for " + device +
                                             "; the target's graphs were compiled for " +
                                             or_none(devices) + " only"});
        }
    }
    if (entry.device_name != there.device_name) {
        reasons.push_back(
            {"device", "GPU: " + or_none(entry.device_name) + " -> " + or_none(there.device_name)});
    }
    if (entry.torch_build != there.torch_build) {
        reasons.push_back({"environment", "torch build differs (" +
                                              or_none(entry.torch_build.substr(0, 8)) + " -> " +
                                              or_none(there.torch_build.substr(0, 8)) + ")"});
    }
    if (entry.cuda_version != there.cuda_version) {
        reasons.push_back({"environment", "CUDA " + or_none(entry.cuda_version) + " -> " +
                                              or_none(there.cuda_version)});
    }
    if (entry.hip_version != there.hip_version) {
        reasons.push_back({"environment", "HIP " + or_none(entry.hip_version) + " -> " +
                                              or_none(there.hip_version)});
    }
    if (entry.triton_version != there.triton_version) {
        reasons.push_back({"environment", "Triton " + or_none(entry.triton_version) + " -> " +
                                              or_none(there.triton_version)});
    } else if (entry.triton_key != there.triton_key) {
        reasons.push_back({"environment",
                           "Triton build differs (" + or_none(entry.triton_version) + " on both)"});
    }
    if (reasons.empty() && entry.system_hash != there.system_hash) {
        reasons.push_back({"environment", "system_info hash differs"});
    }
    return reasons;
}

} // namespace

std::string_view to_string(PreflightOutcome outcome) {
    switch (outcome) {
    case PreflightOutcome::CanHit:
        return "can_hit";
    case PreflightOutcome::WillMiss:
        return "will_miss";
    case PreflightOutcome::CannotTell:
        break;
    }
    return "cannot_tell";
}

std::size_t PreflightReport::count(PreflightOutcome outcome) const {
    return static_cast<std::size_t>(std::ranges::count_if(
        entries, [&](const PreflightEntry& entry) { return entry.outcome == outcome; }));
}

Result<MachineEnvironment> environment_of_dir(const cachedir::Scan& scan,
                                              const ProgressFn& progress) {
    std::vector<Entry> graphs;
    for (auto& entry : scan.entries()) {
        if (entry.kind == FileKind::FxGraph) {
            graphs.push_back(std::move(entry));
        }
    }
    MachineEnvironment machine;
    std::vector<std::pair<Environment, std::size_t>> seen; // each environment, how many name it
    std::set<std::string> devices;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        if (!report_progress(progress, {ProgressStage::Reading, ProgressUnit::Entries, i,
                                        graphs.size(), 0, graphs[i].path})) {
            return cachelens::cancelled();
        }
        auto fx = cachedir::load_fx_graph_entry(scan.root / graphs[i].path);
        if (!fx) {
            continue;
        }
        ++machine.fx_entries;
        devices.insert(fx->device_types.begin(), fx->device_types.end());
        const Environment environment = cachedir::environment_of(fx->debug_lines);
        const auto same = std::ranges::find_if(
            seen, [&](const auto& known) { return known.first == environment; });
        if (same != seen.end()) {
            ++same->second;
        } else {
            seen.emplace_back(environment, 1);
        }
    }
    if (machine.fx_entries == 0) {
        return fail(ErrorKind::NotFound,
                    "no FX graph entry to learn the machine's environment from",
                    scan.root.string());
    }
    // The first of the most named: scan order breaks ties.
    const auto most = std::ranges::max_element(
        seen, [](const auto& a, const auto& b) { return a.second < b.second; });
    machine.environment = most->first;
    machine.agreeing = most->second;
    machine.device_types.assign(devices.begin(), devices.end());
    report_progress(
        progress,
        {ProgressStage::Reading, ProgressUnit::Entries, graphs.size(), graphs.size(), 0, {}});
    return machine;
}

Result<PreflightReport> preflight(const cachedir::Scan& source, const MachineEnvironment& target,
                                  const ProgressFn& progress) {
    const std::vector<Entry> graphs = graph_entries(source);
    PreflightReport report;
    // The AOT entries read, by their index in report.entries: judged once
    // every FX entry is.
    std::vector<std::pair<std::size_t, cachedir::AotAutogradEntry>> aot_entries;
    report.entries.reserve(graphs.size());
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        const Entry& entry = graphs[i];
        if (!report_progress(progress, {ProgressStage::Reading, ProgressUnit::Entries, i,
                                        graphs.size(), 0, entry.path})) {
            return cachelens::cancelled();
        }
        PreflightEntry checked{entry.kind, entry.key, entry.path, PreflightOutcome::CannotTell, {}};
        if (entry.kind == FileKind::AotAutograd) {
            auto aot = cachedir::load_aot_autograd_entry(source.root / entry.path);
            if (!aot) {
                checked.reasons.push_back({"other", "cannot be read: " + aot.error().message});
                report.entries.push_back(std::move(checked));
                continue;
            }
            aot_entries.emplace_back(report.entries.size(), std::move(*aot));
            report.entries.push_back(std::move(checked));
            continue;
        }
        auto fx = cachedir::load_fx_graph_entry(source.root / entry.path);
        if (!fx) {
            checked.reasons.push_back({"other", "cannot be read: " + fx.error().message});
        } else if (const Environment environment = cachedir::environment_of(fx->debug_lines);
                   environment.empty()) {
            checked.reasons.push_back({"environment", "its key names no environment"});
        } else {
            checked.reasons = differences(environment, fx->device_types, target);
            checked.outcome =
                checked.reasons.empty() ? PreflightOutcome::CanHit : PreflightOutcome::WillMiss;
        }
        if (fx) {
            std::set<std::string> missing; // each kernel once: graphs share autotuners' files
            for (const auto& tuner : fx->autotuners) {
                const std::string best_config =
                    cachedir::cache_relative_path(tuner.best_config_path);
                if (!tuner.best_config_path.empty() &&
                    !std::filesystem::exists(source.root / best_config) &&
                    missing.insert(tuner.kernel_name).second) {
                    report.incomplete.push_back(
                        {entry.kind, entry.key,
                         "the .best_config of " + tuner.kernel_name + " (" + best_config +
                             ") is not in the cache: autotuning runs again there"});
                }
            }
        }
        report.entries.push_back(std::move(checked));
    }
    // The worst outcome of each FX key's entries.
    std::map<std::string, PreflightEntry> fx_keys;
    for (const auto& entry : report.entries) {
        if (entry.kind != FileKind::FxGraph) {
            continue;
        }
        auto [it, added] = fx_keys.try_emplace(entry.key, entry);
        // An entry that can hit makes the key able to (PyTorch tries them all).
        if (!added && entry.outcome == PreflightOutcome::CanHit) {
            it->second = entry;
        }
    }
    for (const auto& [index, aot] : aot_entries) {
        PreflightEntry* checked = &report.entries[index];
        checked->outcome = PreflightOutcome::CanHit;
        for (const auto& [link, role] :
             {std::pair{aot.forward, "forward"}, std::pair{aot.backward, "backward"}}) {
            if (!link) {
                continue;
            }
            const auto graph = fx_keys.find(link->key);
            if (graph == fx_keys.end()) {
                report.incomplete.push_back({FileKind::AotAutograd, checked->key,
                                             std::string("its ") + role + " graph " + link->key +
                                                 " is not in the cache: it can never hit"});
                checked->outcome = PreflightOutcome::WillMiss;
                checked->reasons.push_back(
                    {"other", std::string(role) + " graph " + link->key + " is missing"});
                continue;
            }
            const PreflightEntry& fx = graph->second;
            for (const auto& reason : fx.reasons) {
                checked->reasons.push_back(
                    {reason.category, std::string(role) + " graph: " + reason.text});
            }
            if (fx.outcome == PreflightOutcome::WillMiss) {
                checked->outcome = PreflightOutcome::WillMiss;
            } else if (fx.outcome == PreflightOutcome::CannotTell &&
                       checked->outcome == PreflightOutcome::CanHit) {
                checked->outcome = PreflightOutcome::CannotTell;
            }
        }
    }
    report_progress(
        progress,
        {ProgressStage::Reading, ProgressUnit::Entries, graphs.size(), graphs.size(), 0, {}});
    return report;
}

} // namespace cachelens::explain
