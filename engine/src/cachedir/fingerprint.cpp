#include <cachelens/cachedir/debug_line.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/format.h>
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

// "cuda 90" from a kernel's metadata; empty when it names no target.
std::string triton_target_of(const TritonMetadata& metadata) {
    if (metadata.backend.empty()) {
        return {};
    }
    return metadata.backend + (metadata.arch.empty() ? "" : " " + metadata.arch);
}

void merge(std::vector<std::string>& into, const std::vector<std::string>& from) {
    std::set<std::string> all(into.begin(), into.end());
    all.insert(from.begin(), from.end());
    into.assign(all.begin(), all.end());
}

void merge_one(std::vector<std::string>& into, std::string item) {
    if (!item.empty() && !std::ranges::binary_search(into, item)) {
        into.insert(std::ranges::lower_bound(into, item), std::move(item));
    }
}

// The value of `name=` in the call text `args` ("type='hip', index=0,
// cc='gfx90a'"): 'hip' without its quotes, 86; empty when absent.
std::string keyword_value(std::string_view args, std::string_view name) {
    std::size_t at = 0;
    while ((at = args.find(name, at)) != std::string_view::npos) {
        const bool starts =
            at == 0 || args[at - 1] == ' ' || args[at - 1] == '(' || args[at - 1] == ',';
        const std::size_t equals = at + name.size();
        if (starts && equals < args.size() && args[equals] == '=') {
            std::string_view value = args.substr(equals + 1);
            value = value.substr(0, value.find_first_of(",)"));
            while (!value.empty() && (value.front() == '\'' || value.front() == '"')) {
                value.remove_prefix(1);
            }
            while (!value.empty() && (value.back() == '\'' || value.back() == '"')) {
                value.remove_suffix(1);
            }
            return std::string(value.substr(0, 32));
        }
        at = equals;
    }
    return {};
}

// The Triton targets of the kernels a wrapper module generated, from their
// DeviceProperties(type='cuda', index=0, cc=86, ...) (PyTorch 2.4 on): what
// an entry with no bundled kernels (2.5 and older) says of its machine.
std::set<std::string> device_properties_targets(std::string_view source) {
    constexpr std::string_view kCall = "DeviceProperties(";
    std::set<std::string> targets;
    std::size_t at = 0;
    while ((at = source.find(kCall, at)) != std::string_view::npos && targets.size() < 16) {
        at += kCall.size();
        const std::string_view args = source.substr(at, source.find(')', at) - at);
        const std::string type = keyword_value(args, "type");
        const std::string cc = keyword_value(args, "cc");
        if (!type.empty() && !cc.empty() && type != "cpu") {
            targets.insert(type + " " + cc);
        }
    }
    return targets;
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

std::string describe_triton_target(std::string_view target) {
    if (target.starts_with("cuda ")) {
        return "sm" + std::string(target.substr(5));
    }
    if (target.starts_with("hip ")) {
        return "HIP " + std::string(target.substr(4));
    }
    return std::string(target);
}

bool Fingerprint::has_machine_facts() const {
    return !gpu_names.empty() || !triton_versions.empty() || !cuda_versions.empty() ||
           !hip_versions.empty() || !triton_targets.empty();
}

bool Fingerprint::runs_on_hip() const {
    return !environment.hip_version.empty() || !hip_versions.empty() ||
           std::ranges::any_of(triton_targets, [](const std::string& target) {
               return target.starts_with("hip ");
           });
}

std::string Fingerprint::describe() const {
    return describe_for({});
}

std::string Fingerprint::describe_with_devices() const {
    std::string devices;
    for (const auto& device : device_types) {
        // ROCm's PyTorch names its GPUs "cuda".
        devices += (devices.empty() ? "" : ", ") + device +
                   (device == "cuda" && runs_on_hip() ? " (HIP)" : "");
    }
    return describe_for(devices);
}

std::string Fingerprint::describe_for(std::string_view devices) const {
    const auto listed = [](const std::vector<std::string>& items, std::string_view separator,
                           auto shown) {
        std::string out;
        for (const auto& item : items) {
            out += (out.empty() ? "" : std::string(separator)) + shown(item);
        }
        return out;
    };
    const auto as_is = [](const std::string& item) {
        return item;
    };
    const std::string targets = listed(triton_targets, ", ", describe_triton_target);
    const std::string for_devices = devices.empty() ? "" : " for " + std::string(devices);
    std::string text;
    const auto add = [&](const std::string& part) {
        if (!part.empty()) {
            text += (text.empty() ? "" : ", ") + part;
        }
    };
    if (!environment.empty()) {
        Environment shown = environment;
        if (!targets.empty() && !shown.device_name.empty()) {
            shown.device_name += " (" + targets + ")";
        }
        text = shown.describe();
        add(torch_version.empty() ? "" : "torch " + torch_version);
        return text + for_devices;
    }
    // No key records the machine: what the cache's files say, and that.
    const std::string gpus = listed(gpu_names, " or ", as_is);
    add(gpus.empty() ? targets : (targets.empty() ? gpus : gpus + " (" + targets + ")"));
    add(cuda_versions.empty() ? "" : "CUDA " + listed(cuda_versions, " or ", as_is));
    add(hip_versions.empty() ? "" : "HIP " + listed(hip_versions, " or ", as_is));
    add(triton_versions.empty() ? "" : "Triton " + listed(triton_versions, " or ", as_is));
    add(torch_version.empty() ? "" : "torch " + torch_version);
    if (text.empty()) {
        return (devices.empty() ? std::string("graphs") : "graphs" + for_devices) +
               "; the machine is not in their keys";
    }
    // The targets already say the GPU: the devices only where a CPU graph is too.
    const bool only_gpus = std::ranges::all_of(
        device_types, [](const std::string& device) { return device == "cuda"; });
    return text + (only_gpus && !triton_targets.empty() ? std::string() : for_devices) +
           "; the machine is not in the keys";
}

Fingerprint fingerprint_of(const FxGraphEntry& entry) {
    Fingerprint fingerprint;
    fingerprint.environment = environment_of(entry.debug_lines);
    fingerprint.torch_version = entry.torch_version;
    fingerprint.device_types = sorted({entry.device_types.begin(), entry.device_types.end()});
    std::set<std::string> targets;
    std::set<std::string> versions;
    for (const auto& kernel : entry.triton_artifacts) {
        for (const auto& file : kernel.files) {
            if (!is_metadata_file(file.name)) {
                continue;
            }
            if (auto metadata = parse_triton_metadata(file.payload)) {
                if (auto target = triton_target_of(*metadata); !target.empty()) {
                    targets.insert(std::move(target));
                }
                if (!metadata->triton_version.empty()) {
                    versions.insert(metadata->triton_version);
                }
            }
        }
    }
    if (targets.empty()) {
        targets = device_properties_targets(entry.source_code);
    }
    fingerprint.triton_targets = sorted(targets);
    fingerprint.triton_versions = sorted(versions);
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
    merge(machine_.device_types, graph.device_types);
    merge(machine_.triton_targets, graph.triton_targets);
    merge(machine_.triton_versions, graph.triton_versions);
    merge(machine_.gpu_names, graph.gpu_names);
    if (graph.environment.empty()) {
        // An entry that records no machine (no debug lines) votes for none:
        // the entries of one dir used across an upgrade still name theirs.
        return add_config(std::move(graph));
    }
    const auto same = std::ranges::find_if(
        environments_, [&](const auto& known) { return known.first == graph.environment; });
    if (same != environments_.end()) {
        ++same->second;
    } else {
        environments_.emplace_back(std::move(graph.environment), 1);
    }
    add_config(std::move(graph));
}

void FingerprintTally::add_config(Fingerprint graph) {
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

void FingerprintTally::add(const BenchmarkCache& benchmarks) {
    merge_one(machine_.gpu_names, benchmarks.device_name);
    for (const auto& [name, version] : benchmarks.versions) {
        if (name == "triton") {
            // "3.0.0" or Triton's key: its version and the hash of its sources.
            merge_one(machine_.triton_versions, triton_version_of_key(version));
        } else if (name == "cuda") {
            merge_one(machine_.cuda_versions, version);
        } else if (name == "hip") {
            merge_one(machine_.hip_versions, version);
        }
    }
}

void FingerprintTally::add(const TritonMetadata& kernel) {
    merge_one(machine_.triton_targets, triton_target_of(kernel));
    merge_one(machine_.triton_versions, kernel.triton_version);
}

std::string Fingerprint::agreement() const {
    if (environment.empty() || fx_entries == 0) {
        return {};
    }
    return std::to_string(agreeing) + " of its " + plural(fx_entries, "FX entry") +
           (agreeing == 1 ? " names it" : " name it");
}

Result<Fingerprint> FingerprintTally::result(const std::filesystem::path& root) const {
    if (machine_.fx_entries == 0 && !machine_.has_machine_facts()) {
        return fail(ErrorKind::NotFound,
                    "no FX graph entry, benchmark cache or Triton kernel to learn the machine "
                    "from",
                    root.string());
    }
    Fingerprint machine = machine_;
    machine.learnt_from = "cache dir " + root.string();
    if (environments_.empty()) {
        return machine;
    }
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
        if (entry.kind == FileKind::FxGraph || entry.kind == FileKind::BenchmarkCache ||
            entry.kind == FileKind::Triton) {
            graphs.push_back(std::move(entry));
        }
    }
    FingerprintTally tally;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        if (!report_progress(progress, {ProgressStage::Reading, ProgressUnit::Entries, i,
                                        graphs.size(), 0, graphs[i].path})) {
            return cachelens::cancelled();
        }
        const std::filesystem::path file = scan.root / graphs[i].path;
        if (graphs[i].kind == FileKind::FxGraph) {
            if (auto fx = load_fx_graph_entry(file)) {
                tally.add(fingerprint_of(*fx));
            }
        } else if (graphs[i].kind == FileKind::BenchmarkCache) {
            if (auto text = read_text_file(file)) {
                if (auto benchmarks = parse_benchmark_cache(*text)) {
                    tally.add(*benchmarks);
                }
            }
        } else if (auto kernel = read_triton_kernel_dir(file); kernel && kernel->metadata) {
            tally.add(*kernel->metadata);
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
                       {"gpu_names", fingerprint.gpu_names},
                       {"triton_versions", fingerprint.triton_versions},
                       {"cuda_versions", fingerprint.cuda_versions},
                       {"hip_versions", fingerprint.hip_versions},
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
    auto gpus = string_list(json, "gpu_names", file);
    auto triton_versions = string_list(json, "triton_versions", file);
    auto cuda_versions = string_list(json, "cuda_versions", file);
    auto hip_versions = string_list(json, "hip_versions", file);
    for (const auto* failed : {&learnt_from, &torch_version}) {
        if (!*failed) {
            return std::unexpected(failed->error());
        }
    }
    for (const auto* failed :
         {&devices, &targets, &gpus, &triton_versions, &cuda_versions, &hip_versions}) {
        if (!*failed) {
            return std::unexpected(failed->error());
        }
    }
    fingerprint.learnt_from = std::move(*learnt_from);
    fingerprint.torch_version = std::move(*torch_version);
    fingerprint.device_types = std::move(*devices);
    fingerprint.triton_targets = std::move(*targets);
    fingerprint.gpu_names = std::move(*gpus);
    fingerprint.triton_versions = std::move(*triton_versions);
    fingerprint.cuda_versions = std::move(*cuda_versions);
    fingerprint.hip_versions = std::move(*hip_versions);

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
    if (fingerprint.environment.empty() && fingerprint.device_types.empty() &&
        !fingerprint.has_machine_facts()) {
        return fail(ErrorKind::Corrupt,
                    "the fingerprint names no environment, no device and no machine fact", where);
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
