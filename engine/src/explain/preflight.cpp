#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/entry_links.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/preflight.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/unpickler.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace cachelens::explain {

namespace {

using cachedir::Environment;
using cachedir::FileKind;

std::string or_none(const std::string& text) {
    return text.empty() ? "none" : text;
}

// The devices a graph was compiled for that the target lacks (or, from a
// cache dir, that it cannot be told to have).
std::vector<PreflightReason> device_type_differences(const cachedir::Fingerprint& graph,
                                                     const cachedir::Fingerprint& target) {
    std::vector<PreflightReason> reasons;
    for (const auto& device : graph.device_types) {
        if (std::ranges::binary_search(target.device_types, device)) {
            continue;
        }
        const std::string devices = join(target.device_types);
        if (target.lists_devices()) {
            reasons.push_back(
                {"device",
                 "compiled for " + device + "; the target has " + or_none(devices) + " only",
                 PreflightOutcome::WillMiss});
        } else {
            // A cache dir says which devices its graphs ran on, not which the machine has.
            reasons.push_back({"device",
                               "compiled for " + device + "; the target's cache holds no " +
                                   device + " graph, which does not say the machine has no " +
                                   device + " device (`cachelens env` there would)",
                               PreflightOutcome::CannotTell});
        }
    }
    return reasons;
}

// Why an entry compiled for `entry` will miss on `target`, in the words of
// the why engine's categories; empty when nothing PyTorch hashes differs.
std::vector<PreflightReason> differences(const cachedir::Fingerprint& graph,
                                         const cachedir::Fingerprint& target) {
    const Environment& entry = graph.environment;
    const Environment& there = target.environment;
    std::vector<PreflightReason> reasons = device_type_differences(graph, target);
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
    for (const auto& changed : cachedir::config_differences(graph, target)) {
        const std::string text =
            changed.name + " " + changed.graph_text + " -> " + changed.reference_text;
        if (is_environment_config(changed.name)) {
            reasons.push_back({"config", text, PreflightOutcome::WillMiss});
        } else {
            reasons.push_back({"config",
                               text + ": differs from the target's other compiles (set per "
                                      "torch.compile call, not by the machine)",
                               PreflightOutcome::CanHit});
        }
    }
    return reasons;
}

std::string listed(const std::vector<std::string>& items, std::string_view separator,
                   std::string (*shown)(std::string_view) = nullptr) {
    if (shown == nullptr) {
        return join(items, separator);
    }
    std::vector<std::string> said;
    said.reserve(items.size());
    for (const auto& item : items) {
        said.push_back(shown(item));
    }
    return join(said, separator);
}

// The outcome the reasons leave: a miss if any makes one, else cannot tell
// if any does, else can hit (remarks decide nothing).
PreflightOutcome worst_effect(const std::vector<PreflightReason>& reasons) {
    PreflightOutcome outcome = PreflightOutcome::CanHit;
    for (const auto& reason : reasons) {
        if (reason.effect == PreflightOutcome::WillMiss) {
            return PreflightOutcome::WillMiss;
        }
        if (reason.effect == PreflightOutcome::CannotTell) {
            outcome = PreflightOutcome::CannotTell;
        }
    }
    return outcome;
}

// What a fingerprint says of the machine, from its keys and its files alike.
struct MachineFacts {
    std::vector<std::string> gpus, targets, tritons, cudas, hips; // each sorted
};

MachineFacts machine_facts_of(const cachedir::Fingerprint& fingerprint) {
    MachineFacts facts{fingerprint.gpu_names, fingerprint.triton_targets,
                       fingerprint.triton_versions, fingerprint.cuda_versions,
                       fingerprint.hip_versions};
    const auto add = [](std::vector<std::string>& list, const std::string& value) {
        if (!value.empty() && !std::ranges::binary_search(list, value)) {
            list.insert(std::ranges::lower_bound(list, value), value);
        }
    };
    const Environment& keys = fingerprint.environment;
    add(facts.gpus, keys.device_name);
    add(facts.tritons, keys.triton_version);
    add(facts.cudas, keys.cuda_version);
    add(facts.hips, keys.hip_version);
    return facts;
}

// Where the entry's release or the target's stores no system info in its
// keys (no debug lines: 2.7 and older): the keys hashed the GPU, CUDA and
// Triton all the same, so what each side's files say (its kernels' Triton
// target and version, the benchmark cache's GPU and CUDA, the keys where one
// side has them) tells a miss; the rest (the torch build) cannot be told.
// `unrecorded` says which side records nothing.
std::vector<PreflightReason> differences_by_facts(const cachedir::Fingerprint& graph,
                                                  const cachedir::Fingerprint& target,
                                                  const std::string& unrecorded) {
    std::vector<PreflightReason> reasons = device_type_differences(graph, target);
    const MachineFacts ours = machine_facts_of(graph);
    const MachineFacts theirs = machine_facts_of(target);
    const auto differ = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
        return !a.empty() && !b.empty() && std::ranges::none_of(a, [&](const std::string& x) {
            return std::ranges::binary_search(b, x);
        });
    };
    const auto targets = [](const std::vector<std::string>& list) {
        return listed(list, ", ",
                      [](std::string_view t) { return cachedir::describe_triton_target(t); });
    };
    if (differ(ours.targets, theirs.targets)) {
        reasons.push_back({"device",
                           "GPU arch " + targets(ours.targets) + " -> " + targets(theirs.targets) +
                               " (its kernels' Triton target against the target's)",
                           PreflightOutcome::WillMiss});
    } else if (differ(ours.gpus, theirs.gpus)) {
        reasons.push_back({"device",
                           "GPU: " + listed(ours.gpus, " or ") + " -> " +
                               listed(theirs.gpus, " or ") + " (as each cache records it)",
                           PreflightOutcome::WillMiss});
    }
    for (const auto& [name, a, b] : {std::tuple{"Triton", &ours.tritons, &theirs.tritons},
                                     std::tuple{"CUDA", &ours.cudas, &theirs.cudas},
                                     std::tuple{"HIP", &ours.hips, &theirs.hips}}) {
        if (differ(*a, *b)) {
            reasons.push_back({"environment",
                               std::string(name) + " " + listed(*a, " or ") + " -> " +
                                   listed(*b, " or ") + " (as each cache records it)",
                               PreflightOutcome::WillMiss});
        }
    }
    if (worst_effect(reasons) == PreflightOutcome::WillMiss) {
        return reasons;
    }
    // What both sides say alike, then what one of them does not say.
    std::vector<std::string> agreed;
    std::vector<std::string> unknown;
    const auto compare = [&](const std::vector<std::string>& a, const std::vector<std::string>& b,
                             const std::string& known, const std::string& missing) {
        if (!a.empty() && !b.empty()) {
            agreed.push_back(known);
        } else if (!missing.empty()) {
            unknown.push_back(missing);
        }
    };
    compare(ours.targets, theirs.targets, "GPU arch " + targets(ours.targets), "the GPU arch");
    compare(ours.gpus, theirs.gpus, "GPU " + listed(ours.gpus, " or "), "the GPU's name");
    compare(ours.tritons, theirs.tritons, "Triton " + listed(ours.tritons, " or "), "Triton");
    compare(ours.cudas, theirs.cudas, "CUDA " + listed(ours.cudas, " or "), "");
    compare(ours.hips, theirs.hips, "HIP " + listed(ours.hips, " or "), "");
    if ((ours.cudas.empty() || theirs.cudas.empty()) &&
        (ours.hips.empty() || theirs.hips.empty())) {
        unknown.emplace_back("CUDA or HIP");
    }
    unknown.emplace_back("the torch build");
    const std::string last = unknown.back();
    unknown.pop_back();
    const std::string said = (agreed.empty() ? std::string() : ": both say " + join(agreed)) +
                             "; " + (unknown.empty() ? last : join(unknown) + " and " + last) +
                             " cannot be compared";
    reasons.push_back({"environment", unrecorded + said, PreflightOutcome::CannotTell});
    return reasons;
}

Result<std::shared_ptr<const pickle::Document>> document_of(const PreflightSource::Graph& graph) {
    return graph.file.empty() ? pickle::unpickle(graph.bytes) : pickle::unpickle_file(graph.file);
}

// Whether a graph takes a size as an input: PyTorch compiled it with
// dynamic shapes.
bool takes_dynamic_shapes(const cachedir::FxGraphEntry& fx) {
    return std::ranges::any_of(example_inputs_of(fx.debug_lines), [](const ExampleInput& input) {
        return input.kind == ExampleInput::Kind::SymInt;
    });
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

PreflightSource preflight_source(const cachedir::Scan& scan) {
    PreflightSource source;
    source.name = scan.root.string();
    for (const FileKind kind : {FileKind::FxGraph, FileKind::AotAutograd}) {
        for (auto& entry : scan.entries()) {
            if (entry.kind == kind) {
                source.graphs.push_back(
                    {kind, std::move(entry.key), entry.path, scan.root / entry.path, {}});
            }
        }
    }
    for (const auto& file : scan.files) {
        if (file.kind == FileKind::BestConfig) {
            source.best_configs.insert(file.path);
        } else if (file.kind == FileKind::DynamoProfile) {
            ++source.pgo_profiles;
        }
    }
    return source;
}

PreflightSource preflight_source(const bundle::MegaBundle& bundle, std::string name) {
    PreflightSource source;
    source.name = std::move(name);
    for (const auto& [type, kind] : {std::pair{"inductor", FileKind::FxGraph},
                                     std::pair{"aot_autograd", FileKind::AotAutograd}}) {
        for (const auto& section : bundle.sections) {
            if (section.type != type) {
                continue;
            }
            for (const auto& artifact : section.artifacts) {
                // Where import puts it (bundle/import.h).
                const std::string file = hash::sha256_hash(artifact.content);
                const std::string shard = artifact.key.size() > 3 ? artifact.key.substr(1, 2) : "";
                source.graphs.push_back({kind,
                                         artifact.key,
                                         kind == FileKind::FxGraph
                                             ? "fxgraph/" + shard + "/" + artifact.key + "/" + file
                                             : "aotautograd/" + artifact.key + "/" + file,
                                         {},
                                         artifact.content});
            }
        }
    }
    for (const auto& section : bundle.sections) {
        for (const auto& artifact : section.artifacts) {
            if (section.type == "autotune") {
                source.best_configs.insert(artifact.key);
            } else if (section.type == "pgo") {
                ++source.pgo_profiles;
            }
        }
    }
    return source;
}

std::string PreflightReport::answer() const {
    return std::to_string(count(PreflightOutcome::CanHit)) + " of " +
           plural(entries.size(), "entry") + " can" + " hit on the target; " +
           std::to_string(count(PreflightOutcome::WillMiss)) + " will miss, " +
           std::to_string(count(PreflightOutcome::CannotTell)) + " cannot tell";
}

bool PreflightReport::all_can_hit() const {
    return count(PreflightOutcome::CanHit) == entries.size() && incomplete.empty();
}

Result<TargetCheck> preflight_against(const PreflightSource& source,
                                      const std::filesystem::path& target,
                                      const ProgressFn& progress) {
    auto machine = cachedir::fingerprint_of_target(target, progress);
    if (!machine) {
        return std::unexpected(machine.error());
    }
    auto report = preflight(source, *machine, progress);
    if (!report) {
        return std::unexpected(report.error());
    }
    return TargetCheck{std::move(*machine), std::move(*report)};
}

Result<PreflightReport> preflight(const PreflightSource& source,
                                  const cachedir::Fingerprint& target, const ProgressFn& progress) {
    const auto& graphs = source.graphs;
    PreflightReport report;
    report.config_compared = !target.inductor_config.empty();
    if (!report.config_compared) {
        // Said once, in the words that fit what the target is.
        report.notes.push_back(
            target.lists_devices()
                ? "the target's Inductor config is not known (a fingerprint asked of Python): "
                  "entries were judged on their environment; a cache dir made there (--target "
                  "DIR, or `cachelens env --from DIR`) also compares the config"
                : "the target's cache records no Inductor config (its entries store no debug "
                  "lines: PyTorch 2.7 and older): entries were judged on what its files say of "
                  "the machine");
    }
    // The AOT entries read, by their index in report.entries: judged once
    // every FX entry is.
    std::vector<std::pair<std::size_t, cachedir::AotAutogradEntry>> aot_entries;
    std::size_t dynamic_graphs = 0;
    report.entries.reserve(graphs.size());
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        const PreflightSource::Graph& entry = graphs[i];
        if (!report_progress(progress, {ProgressStage::Reading, ProgressUnit::Entries, i,
                                        graphs.size(), 0, entry.path})) {
            return cachelens::cancelled();
        }
        PreflightEntry checked{entry.kind, entry.key, entry.path, PreflightOutcome::CannotTell, {}};
        auto document = document_of(entry);
        if (entry.kind == FileKind::AotAutograd) {
            auto aot = document ? cachedir::read_aot_autograd_entry(std::move(*document))
                                : std::unexpected(document.error());
            if (!aot) {
                checked.reasons.push_back({"other", "cannot be read: " + aot.error().message,
                                           PreflightOutcome::CannotTell});
                report.entries.push_back(std::move(checked));
                continue;
            }
            aot_entries.emplace_back(report.entries.size(), std::move(*aot));
            report.entries.push_back(std::move(checked));
            continue;
        }
        auto fx = document ? cachedir::read_fx_graph_entry(std::move(*document), entry.key)
                           : std::unexpected(document.error());
        if (!fx) {
            checked.reasons.push_back(
                {"other", "cannot be read: " + fx.error().message, PreflightOutcome::CannotTell});
        } else if (const cachedir::Fingerprint graph = cachedir::fingerprint_of(*fx);
                   graph.environment.empty()) {
            checked.reasons =
                differences_by_facts(graph, target,
                                     "PyTorch " + fx->written_by +
                                         " stores no system info in its entries (no debug lines)");
            checked.outcome = worst_effect(checked.reasons);
        } else if (target.environment.empty()) {
            checked.reasons = differences_by_facts(
                graph, target,
                "the target's cache records no system info in its keys (its entries store no "
                "debug lines: PyTorch 2.7 and older)");
            checked.outcome = worst_effect(checked.reasons);
        } else {
            checked.reasons = differences(graph, target);
            checked.outcome = worst_effect(checked.reasons);
        }
        if (fx) {
            dynamic_graphs += takes_dynamic_shapes(*fx) ? 1 : 0;
            std::set<std::string> missing; // each kernel once: graphs share autotuners' files
            for (const auto& tuner : fx->autotuners) {
                const std::string best_config =
                    cachedir::cache_relative_path(tuner.best_config_path);
                if (!tuner.best_config_path.empty() && !source.best_configs.contains(best_config) &&
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
    if (dynamic_graphs > 0 && source.pgo_profiles == 0) {
        report.notes.push_back(
            std::to_string(dynamic_graphs) +
            (dynamic_graphs == 1 ? " graph takes" : " graphs take") +
            " dynamic shapes and there is no PGO profile (dynamo/code_state_*.pkl) beside them: "
            "if automatic dynamic shapes made them dynamic (rather than dynamic=True or "
            "mark_dynamic), the first run there compiles static shapes and hits only after a "
            "recompile");
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
            if (link->bundled) {
                // Compiled inside the entry (precompile, the DynamoCache): no
                // FX entry of the cache says where it can run.
                if (checked->outcome == PreflightOutcome::CanHit) {
                    checked->outcome = PreflightOutcome::CannotTell;
                }
                checked->reasons.push_back(
                    {"other",
                     std::string(role) + " graph: bundled in the entry; its environment is not "
                                         "compared",
                     PreflightOutcome::CannotTell});
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
                    {reason.category, std::string(role) + " graph: " + reason.text, reason.effect});
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
