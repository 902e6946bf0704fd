#include <cachelens/cachedir/debug_line.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/core/small_sort.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace cachelens::cachedir {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kFormatVersion = 1;

std::vector<std::string> sorted(const std::set<std::string>& items) {
    return {items.begin(), items.end()};
}

// "cuda 90" from a kernel's metadata JSON; empty when it names no target.
std::string triton_target_of(std::string_view metadata_json) {
    auto metadata = parse_triton_metadata(metadata_json);
    if (!metadata || metadata->backend.empty()) {
        return {};
    }
    return metadata->backend + (metadata->arch.empty() ? "" : " " + metadata->arch);
}

// The kernel's metadata is the one .json file of its dir that is not a group file.
bool is_metadata_file(std::string_view name) {
    return name.ends_with(".json") && !is_triton_group_file_name(name) &&
           !name.ends_with(".autotune.json");
}

// A JSON field that must be a string (or null/absent: empty).
Result<std::string> string_field(const Json& object, const char* name, std::string_view file) {
    const auto found = object.find(name);
    if (found == object.end() || found->is_null()) {
        return std::string();
    }
    if (!found->is_string()) {
        return fail(ErrorKind::Corrupt, std::string("'") + name + "' is not a string",
                    std::string(file));
    }
    return found->get<std::string>();
}

Result<std::vector<std::string>> string_list(const Json& object, const char* name,
                                             std::string_view file) {
    std::set<std::string> items;
    const auto found = object.find(name);
    if (found == object.end() || found->is_null()) {
        return std::vector<std::string>{};
    }
    if (!found->is_array()) {
        return fail(ErrorKind::Corrupt, std::string("'") + name + "' is not a list",
                    std::string(file));
    }
    for (const auto& item : *found) {
        if (!item.is_string()) {
            return fail(ErrorKind::Corrupt, std::string("'") + name + "' holds a non-string",
                        std::string(file));
        }
        items.insert(item.get<std::string>());
    }
    return sorted(items);
}

} // namespace

std::string Fingerprint::describe() const {
    Environment shown = environment;
    if (!triton_targets.empty() && !shown.device_name.empty()) {
        std::string targets;
        for (const auto& target : triton_targets) {
            targets += (targets.empty() ? "" : ", ") + target;
        }
        shown.device_name += " (" + targets + ")";
    }
    std::string text = shown.describe();
    if (!torch_version.empty()) {
        text += ", torch " + torch_version;
    }
    return text;
}

std::string Fingerprint::describe_with_devices() const {
    std::string devices;
    for (const auto& device : device_types) {
        devices += (devices.empty() ? "" : ", ") + device;
    }
    return describe() + (devices.empty() ? std::string() : " for " + devices);
}

Fingerprint fingerprint_of(const FxGraphEntry& entry) {
    Fingerprint fingerprint;
    fingerprint.environment = environment_of(entry.debug_lines);
    // The repro header of its runnable graph: "# torch version: 2.11.0+cu130".
    if (entry.runnable_graph) {
        constexpr std::string_view kTorchVersion = "# torch version: ";
        const std::string_view graph = *entry.runnable_graph;
        if (const auto found = graph.find(kTorchVersion); found != std::string_view::npos) {
            const auto from = found + kTorchVersion.size();
            std::string_view version = graph.substr(from, graph.find('\n', from) - from);
            while (!version.empty() && (version.back() == '\r' || version.back() == ' ')) {
                version.remove_suffix(1);
            }
            fingerprint.torch_version = std::string(version);
        }
    }
    fingerprint.device_types = sorted({entry.device_types.begin(), entry.device_types.end()});
    std::set<std::string> targets;
    for (const auto& kernel : entry.triton_artifacts) {
        for (const auto& file : kernel.files) {
            if (is_metadata_file(file.name)) {
                if (auto target = triton_target_of(file.payload); !target.empty()) {
                    targets.insert(std::move(target));
                }
            }
        }
    }
    fingerprint.triton_targets = sorted(targets);
    for (const DebugLine& line : parse_debug_lines(entry.debug_lines)) {
        if (line.attribute == "inductor_config" && line.has_subkey && !line.hash.empty()) {
            fingerprint.inductor_config[std::string(line.subkey)] = {
                InductorSetting{std::string(line.hash), std::string(line.value)}};
        }
    }
    return fingerprint;
}

void FingerprintTally::add(Fingerprint graph) {
    ++machine_.fx_entries;
    const auto merge = [](std::vector<std::string>& into, const std::vector<std::string>& from) {
        std::set<std::string> all(into.begin(), into.end());
        all.insert(from.begin(), from.end());
        into.assign(all.begin(), all.end());
    };
    merge(machine_.device_types, graph.device_types);
    merge(machine_.triton_targets, graph.triton_targets);
    const auto same = std::ranges::find_if(
        environments_, [&](const auto& known) { return known.first == graph.environment; });
    if (same != environments_.end()) {
        ++same->second;
    } else {
        environments_.emplace_back(std::move(graph.environment), 1);
    }
    for (auto& [name, values] : graph.inductor_config) {
        auto& seen = machine_.inductor_config[name];
        for (auto& value : values) {
            const auto known = std::ranges::find(seen, value.hash, &InductorSetting::hash);
            if (known != seen.end()) {
                ++known->graphs;
            } else {
                seen.push_back(std::move(value));
            }
        }
    }
}

Result<Fingerprint> FingerprintTally::result(const std::filesystem::path& root) const {
    if (machine_.fx_entries == 0) {
        return fail(ErrorKind::NotFound,
                    "no FX graph entry to learn the machine's environment from", root.string());
    }
    Fingerprint machine = machine_;
    machine.learnt_from = "cache dir " + root.string();
    // The first of the most named: scan order breaks ties.
    const auto environment = std::ranges::max_element(
        environments_, [](const auto& a, const auto& b) { return a.second < b.second; });
    machine.environment = environment->first;
    machine.agreeing = environment->second;
    // The most common value first, the first seen first among equals.
    for (auto& [name, values] : machine.inductor_config) {
        stable_sort_small(values, [](const InductorSetting& a, const InductorSetting& b) {
            return a.graphs > b.graphs;
        });
    }
    return machine;
}

Result<Fingerprint> fingerprint_of_dir(const Scan& scan, const ProgressFn& progress) {
    std::vector<Entry> graphs;
    for (auto& entry : scan.entries()) {
        if (entry.kind == FileKind::FxGraph) {
            graphs.push_back(std::move(entry));
        }
    }
    FingerprintTally tally;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        if (!report_progress(progress, {ProgressStage::Reading, ProgressUnit::Entries, i,
                                        graphs.size(), 0, graphs[i].path})) {
            return cachelens::cancelled();
        }
        if (auto fx = load_fx_graph_entry(scan.root / graphs[i].path)) {
            tally.add(fingerprint_of(*fx));
        }
    }
    report_progress(
        progress,
        {ProgressStage::Reading, ProgressUnit::Entries, graphs.size(), graphs.size(), 0, {}});
    return tally.result(scan.root);
}

std::vector<std::string> Fingerprint::varying_config() const {
    std::vector<std::string> names;
    for (const auto& [name, values] : inductor_config) {
        if (values.size() > 1) {
            names.push_back(name);
        }
    }
    return names;
}

std::vector<ConfigDifference> config_differences(const Fingerprint& graph,
                                                 const Fingerprint& reference) {
    std::vector<ConfigDifference> out;
    for (const auto& [name, values] : graph.inductor_config) {
        const auto there = reference.inductor_config.find(name);
        if (values.empty() || there == reference.inductor_config.end() || there->second.empty() ||
            std::ranges::find(there->second, values.front().hash, &InductorSetting::hash) !=
                there->second.end()) {
            continue;
        }
        std::string reference_text;
        for (const auto& value : there->second) {
            reference_text += (reference_text.empty() ? "" : " or ") + value.text;
        }
        out.push_back({name, values.front().text, std::move(reference_text)});
    }
    return out;
}

std::string to_json(const Fingerprint& fingerprint) {
    Json environment = Json::object();
    for (const auto& [name, text] : fingerprint.environment.json_fields()) {
        environment[std::string(name)] = text->empty() ? Json() : Json(*text);
    }
    Json config = Json::object();
    for (const auto& [name, values] : fingerprint.inductor_config) {
        Json list = Json::array();
        for (const auto& value : values) {
            list.push_back({{"hash", value.hash}, {"value", value.text}, {"graphs", value.graphs}});
        }
        config[name] = std::move(list);
    }
    const auto or_null = [](const std::string& text) {
        return text.empty() ? Json() : Json(text);
    };
    const Json json = {{"cachelens_fingerprint", kFormatVersion},
                       {"learnt_from", fingerprint.learnt_from},
                       {"torch_version", or_null(fingerprint.torch_version)},
                       {"environment", std::move(environment)},
                       {"device_types", fingerprint.device_types},
                       {"triton_targets", fingerprint.triton_targets},
                       {"inductor_config", std::move(config)},
                       {"fx_entries", fingerprint.fx_entries},
                       {"agreeing", fingerprint.agreeing}};
    return json.dump(2);
}

Result<Fingerprint> fingerprint_from_json(std::string_view text, std::string_view file) {
    const std::string where(file);
    const Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) {
        return fail(ErrorKind::Corrupt, "not a JSON object", where);
    }
    const auto version = json.find("cachelens_fingerprint");
    if (version == json.end() || !version->is_number_integer()) {
        return fail(ErrorKind::Corrupt,
                    "not a fingerprint (no \"cachelens_fingerprint\" version): make one with "
                    "`cachelens env`",
                    where);
    }
    if (version->get<std::int64_t>() != kFormatVersion) {
        return fail(ErrorKind::Unsupported,
                    "fingerprint format " + version->dump() + " (this cachelens reads " +
                        std::to_string(kFormatVersion) + ")",
                    where);
    }
    Fingerprint fingerprint;
    auto learnt_from = string_field(json, "learnt_from", file);
    auto torch_version = string_field(json, "torch_version", file);
    auto devices = string_list(json, "device_types", file);
    auto targets = string_list(json, "triton_targets", file);
    for (const auto* failed : {&learnt_from, &torch_version}) {
        if (!*failed) {
            return std::unexpected(failed->error());
        }
    }
    for (const auto* failed : {&devices, &targets}) {
        if (!*failed) {
            return std::unexpected(failed->error());
        }
    }
    fingerprint.learnt_from = std::move(*learnt_from);
    fingerprint.torch_version = std::move(*torch_version);
    fingerprint.device_types = std::move(*devices);
    fingerprint.triton_targets = std::move(*targets);

    const auto environment = json.find("environment");
    if (environment == json.end() || !environment->is_object()) {
        return fail(ErrorKind::Corrupt, "'environment' is not an object", where);
    }
    for (const auto& [name, field] : fingerprint.environment.json_fields()) {
        auto value = string_field(*environment, std::string(name).c_str(), file);
        if (!value) {
            return std::unexpected(value.error());
        }
        *field = std::move(*value);
    }
    if (const auto config = json.find("inductor_config");
        config != json.end() && !config->is_null()) {
        if (!config->is_object()) {
            return fail(ErrorKind::Corrupt, "'inductor_config' is not an object", where);
        }
        for (const auto& [name, list] : config->items()) {
            if (!list.is_array() || list.empty()) {
                return fail(ErrorKind::Corrupt,
                            "inductor_config '" + name + "' is not a list of values", where);
            }
            auto& values = fingerprint.inductor_config[name];
            for (const auto& value : list) {
                auto hash = value.is_object() ? string_field(value, "hash", file) : std::string();
                auto shown = value.is_object() ? string_field(value, "value", file) : std::string();
                const auto graphs = value.is_object() ? value.find("graphs") : value.end();
                if (!hash || !shown || hash->empty() || graphs == value.end() ||
                    !graphs->is_number_unsigned()) {
                    return fail(ErrorKind::Corrupt,
                                "inductor_config '" + name +
                                    "': a value without a hash, a text and a count of graphs",
                                where);
                }
                values.push_back({std::move(*hash), std::move(*shown), graphs->get<std::size_t>()});
            }
        }
    }
    for (auto [name, count] : {std::pair{"fx_entries", &fingerprint.fx_entries},
                               std::pair{"agreeing", &fingerprint.agreeing}}) {
        if (const auto found = json.find(name); found != json.end() && !found->is_null()) {
            if (!found->is_number_unsigned()) {
                return fail(ErrorKind::Corrupt, std::string("'") + name + "' is not a count",
                            where);
            }
            *count = found->get<std::size_t>();
        }
    }
    if (fingerprint.environment.empty() && fingerprint.device_types.empty()) {
        return fail(ErrorKind::Corrupt, "the fingerprint names no environment and no device",
                    where);
    }
    return fingerprint;
}

Result<Fingerprint> load_fingerprint(const std::filesystem::path& file) {
    auto mapped = MappedFile::open(file);
    if (!mapped) {
        return std::unexpected(mapped.error());
    }
    return fingerprint_from_json((*mapped)->bytes(), file.string());
}

Result<Fingerprint> fingerprint_of_target(const std::filesystem::path& target,
                                          const ProgressFn& progress) {
    std::error_code error;
    if (std::filesystem::is_regular_file(target, error)) {
        return load_fingerprint(target);
    }
    auto scan = scan_cache_dir(target, progress);
    if (!scan) {
        return std::unexpected(scan.error());
    }
    return fingerprint_of_dir(*scan, progress);
}

} // namespace cachelens::cachedir
