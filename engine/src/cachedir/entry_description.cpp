#include <cachelens/cachedir/entry_description.h>
#include <cachelens/cachedir/entry_links.h>
#include <cachelens/cachedir/environment.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/repr.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <set>
#include <tuple>

namespace cachelens::cachedir {

namespace {

// The fields are built in the order each reader sees them; a field for
// fewer readers sits where those readers expect it.

template <class... Handlers>
struct Overloaded : Handlers... {
    using Handlers::operator()...;
};

Field value_field(std::uint8_t audience, std::string label, std::string key, FieldValue value,
                  std::string text, bool monospace = false) {
    Field field;
    field.label = std::move(label);
    field.key = std::move(key);
    field.value = std::move(value);
    field.text = std::move(text);
    field.monospace = monospace;
    field.audience = audience;
    return field;
}

// A field for people only (`show` and the tree).
Field shown(std::uint8_t audience, std::string label, std::string text, bool monospace = false) {
    return value_field(audience, std::move(label), {}, {}, std::move(text), monospace);
}

// A field for the tree only.
Field tree(std::string label, std::string text, bool monospace = false) {
    return shown(kTree, std::move(label), std::move(text), monospace);
}

Field tree_link(std::string label, std::string text, FileKind kind, std::string target) {
    Field field = tree(std::move(label), std::move(text), true);
    field.link = FieldLink{kind, std::move(target)};
    return field;
}

// A group: `children` by reference, as callers count them in `summary`.
Field group(std::uint8_t audience, std::string label, std::string key, std::string summary,
            std::vector<Field>&& children, FieldShape shape = FieldShape::Group) {
    Field field = value_field(audience, std::move(label), std::move(key), {}, std::move(summary));
    field.shape = shape;
    field.children = std::move(children);
    return field;
}

// A field for the JSON only.
Field json(std::string key, FieldValue value) {
    return value_field(kJson, {}, std::move(key), std::move(value), {});
}

// An element of a JSON list.
Field json_element(FieldValue value) {
    return json({}, std::move(value));
}

Field json_object(std::string key, std::vector<Field>&& children) {
    return group(kJson, {}, std::move(key), {}, std::move(children));
}

Field json_list(std::string key, std::vector<Field>&& children) {
    return group(kJson, {}, std::move(key), {}, std::move(children), FieldShape::List);
}

template <class Item>
Field json_items(std::string key, const std::vector<Item>& items) {
    std::vector<Field> children;
    for (const auto& item : items) {
        if constexpr (std::is_integral_v<Item>) {
            children.push_back(json_element(static_cast<std::int64_t>(item)));
        } else {
            children.push_back(json_element(item));
        }
    }
    return json_list(std::move(key), std::move(children));
}

// `show`'s own lines, sections and blocks.
Field text_row(std::string label, std::string text) {
    return shown(kText, std::move(label), std::move(text));
}

Field text_line(std::string text, std::vector<Field>&& children = {}) {
    Field field = shown(kText, {}, std::move(text));
    field.layout = TextLayout::Line;
    field.children = std::move(children);
    return field;
}

Field text_section(std::string label, std::vector<Field>&& lines) {
    Field field = shown(kText, std::move(label), {});
    field.layout = TextLayout::Section;
    field.children = std::move(lines);
    return field;
}

Field text_block(std::string label, std::string_view text) {
    Field field = value_field(kText, std::move(label), {}, text, {});
    field.layout = TextLayout::Block;
    field.detail = TextDetail::Source;
    return field;
}

template <class T>
FieldValue optional_value(const std::optional<T>& value) {
    if (!value) {
        return std::monostate{};
    }
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> ||
                  std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
        return *value;
    } else if constexpr (std::is_signed_v<T>) {
        return static_cast<std::int64_t>(*value);
    } else {
        return static_cast<std::uint64_t>(*value);
    }
}

FieldValue config_value(const ConfigValue& value) {
    return std::visit([](const auto& v) { return FieldValue(v); }, value);
}

// `text` padded with spaces to `width` bytes, as printf's %-Ns pads.
std::string pad_right(std::string text, std::size_t width) {
    if (text.size() < width) {
        text.append(width - text.size(), ' ');
    }
    return text;
}

std::string pad_left(std::string text, std::size_t width) {
    if (text.size() < width) {
        text.insert(0, width - text.size(), ' ');
    }
    return text;
}

std::string yes_no(bool value) {
    return value ? "yes" : "no";
}

std::string optional_number(const std::optional<std::int64_t>& value) {
    return value ? std::to_string(*value) : "—";
}

std::string milliseconds(double ms) {
    return pickle::float_repr(ms) + " ms";
}

std::string pairs_text(const std::vector<std::pair<std::string, std::int64_t>>& pairs) {
    std::vector<std::string> out;
    for (const auto& [name, value] : pairs) {
        out.push_back(name + "=" + std::to_string(value));
    }
    return join(out);
}

std::string config_pairs_text(const std::vector<std::pair<std::string, ConfigValue>>& pairs) {
    std::vector<std::string> out;
    for (const auto& [name, value] : pairs) {
        out.push_back(name + "=" + to_string(value));
    }
    return join(out);
}

Field config_pairs_json(std::string key,
                        const std::vector<std::pair<std::string, ConfigValue>>& pairs) {
    std::vector<Field> children;
    for (const auto& [name, value] : pairs) {
        children.push_back(json(name, config_value(value)));
    }
    return json_object(std::move(key), std::move(children));
}

Field size_hints_json(const std::vector<std::pair<std::string, std::int64_t>>& hints) {
    std::vector<Field> children;
    for (const auto& [axis, size] : hints) {
        children.push_back(json(axis, size));
    }
    return json_object("size_hints", std::move(children));
}

// Counters by name: an object in the JSON, a group summing up the non-zero
// ones in the tree.
Field counts_group(std::string label, std::string key,
                   const std::vector<std::pair<std::string, std::int64_t>>& counts) {
    std::vector<Field> children;
    std::vector<std::pair<std::string, std::int64_t>> non_zero;
    for (const auto& [name, value] : counts) {
        children.push_back(value_field(kJson | kTree, name, name, value, std::to_string(value)));
        if (value != 0) {
            non_zero.emplace_back(name, value);
        }
    }
    return group(kJson | kTree, std::move(label), std::move(key), pairs_text(non_zero),
                 std::move(children));
}

// Every attribute of a pickled object not shown elsewhere, as Python-style text.
Field attributes_group(const pickle::Value& root, const std::vector<std::string_view>& names,
                       const std::set<std::string_view>& shown_elsewhere) {
    pickle::ReprOptions options;
    options.max_string = 2000;
    options.max_length = 20000;
    std::vector<Field> children;
    for (auto name : names) {
        if (shown_elsewhere.contains(name)) {
            continue;
        }
        if (const pickle::Value* value = root.attribute(name)) {
            std::string repr = pickle::repr(*value, options);
            children.push_back(
                value_field(kJson | kTree, std::string(name), std::string(name), repr, repr, true));
        }
    }
    const std::string count = std::to_string(children.size());
    return group(kJson | kTree, "Other attributes", "attributes", count, std::move(children));
}

Field guards_field(const std::optional<std::string_view>& guards) {
    return guards ? value_field(kEveryone, "Guards", "guards_expr", *guards, std::string(*guards),
                                true)
                  : value_field(kEveryone, "Guards", "guards_expr", {}, "none (always hits)");
}

// A graph's text: the JSON holds it, the tree says how long it is.
Field graph_text_field(std::uint8_t audience, std::string label, std::string key,
                       const std::optional<std::string_view>& text) {
    return value_field(audience, std::move(label), std::move(key), optional_value(text),
                       text ? format_text_size(*text) + " (in the Source tab)" : "none");
}

Field config_group(std::uint8_t audience, std::string label, const KernelConfig& config) {
    std::vector<Field> children;
    for (const auto& [key, value] : config.kwargs) {
        children.push_back(tree(key, to_string(value), true));
    }
    children.push_back(tree("num_warps", optional_number(config.num_warps)));
    children.push_back(tree("num_stages", optional_number(config.num_stages)));
    if (config.num_ctas) {
        children.push_back(tree("num_ctas", std::to_string(*config.num_ctas)));
    }
    if (config.maxnreg) {
        children.push_back(tree("maxnreg", std::to_string(*config.maxnreg)));
    }
    return group(audience, std::move(label), {}, config.describe(), std::move(children));
}

// The JSON of a kernel config, its fields at the level of `out`.
void add_config_json(std::vector<Field>& out, const KernelConfig& config) {
    out.push_back(config_pairs_json("kwargs", config.kwargs));
    out.push_back(json("num_warps", optional_value(config.num_warps)));
    out.push_back(json("num_stages", optional_value(config.num_stages)));
    out.push_back(json("num_ctas", optional_value(config.num_ctas)));
    out.push_back(json("maxnreg", optional_value(config.maxnreg)));
}

// --- FX graph -------------------------------------------------------------

Field candidate_json(const CompiledCandidate& candidate) {
    std::vector<Field> fields;
    add_config_json(fields, candidate.config);
    fields.push_back(json("result_class", candidate.result_class));
    fields.push_back(json("kernel_name", candidate.kernel_name));
    fields.push_back(json_items("arg_names", candidate.arg_names));
    fields.push_back(json("arg_types", candidate.arg_types));
    fields.push_back(json_items("declared_constexprs", candidate.declared_constexprs));
    fields.push_back(json("shared", optional_value(candidate.shared)));
    fields.push_back(json("has_global_scratch", candidate.has_global_scratch));
    fields.push_back(json("has_profile_scratch", candidate.has_profile_scratch));
    fields.push_back(json("triton_hash", candidate.triton_hash));
    fields.push_back(json("triton_dir", candidate.triton_dir()));
    return json_object({}, std::move(fields));
}

Field autotuner_json(const KernelAutotuner& tuner) {
    std::vector<Field> configs;
    for (const auto& candidate : tuner.candidates) {
        configs.push_back(candidate_json(candidate));
    }
    std::vector<Field> fields;
    fields.push_back(json("name", tuner.kernel_name));
    fields.push_back(json("module", tuner.module_key));
    fields.push_back(json("module_path", tuner.module_path));
    fields.push_back(json("heuristic", tuner.heuristic));
    fields.push_back(json("grid_type", tuner.grid_type));
    fields.push_back(size_hints_json(tuner.size_hints));
    fields.push_back(json("cache_key", tuner.cache_key));
    fields.push_back(json_list("configs", std::move(configs)));
    return json_object({}, std::move(fields));
}

Field candidate_tree(const CompiledCandidate& candidate, std::size_t index) {
    const std::string dir = candidate.triton_dir();
    std::vector<Field> children;
    children.push_back(config_group(kTree, "Config", candidate.config));
    children.push_back(tree_link("Triton kernel", dir, FileKind::Triton, dir));
    children.push_back(tree("Triton hash", candidate.triton_hash, true));
    children.push_back(tree("Kernel name", candidate.kernel_name, true));
    children.push_back(tree("Result class", candidate.result_class));
    children.push_back(tree("Arguments", join(candidate.arg_names), true));
    children.push_back(tree("Argument types", candidate.arg_types, true));
    children.push_back(tree("num_warps", optional_number(candidate.num_warps)));
    children.push_back(
        tree("Shared memory",
             candidate.shared ? format_bytes(static_cast<std::uint64_t>(*candidate.shared)) : "—"));
    children.push_back(tree("Global scratch", yes_no(candidate.has_global_scratch)));
    children.push_back(tree("Profile scratch", yes_no(candidate.has_profile_scratch)));
    Field node = tree_link("#" + std::to_string(index) + "  " + candidate.config.describe(), dir,
                           FileKind::Triton, dir);
    node.children = std::move(children);
    return node;
}

Field autotuner_tree(const KernelAutotuner& tuner) {
    std::vector<Field> children;
    if (!tuner.module_key.empty()) {
        children.push_back(
            tree_link("Module", tuner.module_key, FileKind::Module, tuner.module_key));
    } else {
        children.push_back(tree("Module", "(none)"));
    }
    children.push_back(tree("Module path", tuner.module_path, true));
    children.push_back(tree("Heuristic", tuner.heuristic));
    children.push_back(tree("Grid type", tuner.grid_type));
    children.push_back(tree("Size hints", pairs_text(tuner.size_hints), true));
    children.push_back(tree("Cache key", tuner.cache_key, true));
    if (!tuner.best_config_path.empty()) {
        const std::string relative = cache_relative_path(tuner.best_config_path);
        children.push_back(tree_link("Best config", relative, FileKind::BestConfig, relative));
    }
    std::vector<Field> candidates;
    for (std::size_t i = 0; i < tuner.candidates.size(); ++i) {
        candidates.push_back(candidate_tree(tuner.candidates[i], i + 1));
    }
    children.push_back(
        group(kTree, "Candidates", {}, std::to_string(candidates.size()), std::move(candidates)));
    std::string summary = tuner.heuristic;
    if (!tuner.grid_type.empty()) {
        summary += ", " + tuner.grid_type;
    }
    summary += ", " + std::to_string(tuner.candidates.size()) +
               (tuner.candidates.size() == 1 ? " candidate" : " candidates");
    Field node = group(kTree, tuner.kernel_name, {}, summary, std::move(children));
    node.monospace = true;
    return node;
}

// `show`'s line for an autotuned kernel, a line per compiled candidate below.
Field autotuner_text(const KernelAutotuner& tuner) {
    std::vector<Field> candidates;
    for (const auto& candidate : tuner.candidates) {
        candidates.push_back(text_line(pad_right(candidate.config.describe(), 48) +
                                       " -> triton/0/" + candidate.triton_dir()));
    }
    return text_line(tuner.kernel_name + "  [" + tuner.heuristic +
                         (tuner.grid_type.empty() ? "" : ", ") + tuner.grid_type + "]  module " +
                         (tuner.module_key.empty() ? "(none)" : tuner.module_key),
                     std::move(candidates));
}

Field bundle_kernel_tree(const TritonKernelArtifacts& kernel) {
    std::vector<Field> files;
    std::uint64_t total = 0;
    std::string kernel_name;
    for (const auto& file : kernel.files) {
        files.push_back(tree(file.name, format_bytes(file.payload.size())));
        total += file.payload.size();
        if (kernel_name.empty() && !is_triton_group_file_name(file.name)) {
            kernel_name = std::string(stem_of(file.name));
        }
    }
    Field node = tree_link(kernel_name.empty() ? kernel.kernel_hash : kernel_name,
                           kernel.kernel_hash, FileKind::Triton, kernel.kernel_hash);
    node.children.push_back(tree("Device", std::to_string(kernel.device)));
    const std::string summary = std::to_string(kernel.files.size()) + ", " + format_bytes(total);
    node.children.push_back(group(kTree, "Files", {}, summary, std::move(files)));
    return node;
}

Field bundle_kernel_json(const TritonKernelArtifacts& kernel) {
    std::vector<Field> files;
    for (const auto& file : kernel.files) {
        std::vector<Field> fields;
        fields.push_back(json("name", file.name));
        fields.push_back(json("size", static_cast<std::uint64_t>(file.payload.size())));
        files.push_back(json_object({}, std::move(fields)));
    }
    std::vector<Field> fields;
    fields.push_back(json("kernel_hash", kernel.kernel_hash));
    fields.push_back(json("device", kernel.device));
    fields.push_back(json_list("files", std::move(files)));
    return json_object({}, std::move(fields));
}

void describe_fx_graph(std::vector<Field>& out, const FxGraphEntry& fx) {
    const GraphRole role = fx.role;
    const std::string role_text =
        role == GraphRole::Unknown
            ? std::string("unknown (the entry records no fx_kwargs, in a field or its debug lines)")
            : std::string(to_string(role)) + (role == GraphRole::Inference
                                                  ? " graph (no backward)"
                                                  : " graph of a training compile");
    out.push_back(value_field(kEveryone, "Graph", "role", std::string(to_string(role)), role_text));
    // What another machine must match for it to hit there.
    const Fingerprint fingerprint = fingerprint_of(fx);
    const Environment& environment = fingerprint.environment;
    std::vector<Field> environment_json;
    for (const auto& [name, text] : environment.json_fields()) {
        environment_json.push_back(
            json(std::string(name), text->empty() ? FieldValue{} : FieldValue{*text}));
    }
    out.push_back(json_object("environment", std::move(environment_json)));
    if (!fingerprint.torch_version.empty()) {
        out.push_back(json("torch_version", fingerprint.torch_version));
    }
    std::vector<Field> targets_json;
    for (const auto& target : fingerprint.triton_targets) {
        targets_json.push_back(json({}, target));
    }
    out.push_back(json_list("triton_targets", std::move(targets_json)));
    out.push_back(shown(kPeople, "Compiled on", fingerprint.describe_with_devices()));
    // Where it came from in the user's code, as far as the wrapper says.
    const auto calls = traced_calls(fx.source_code);
    std::vector<Field> calls_json;
    for (const auto& call : calls) {
        calls_json.push_back(
            json_object({}, {json("name", call.name), json("count", std::int64_t{call.count})}));
    }
    out.push_back(json_list("traced_calls", std::move(calls_json)));
    if (!calls.empty()) {
        out.push_back(shown(kPeople, "Traced from", "calls of " + describe(calls)));
    }
    out.push_back(value_field(kJson | kTree, "Class", "class", fx.class_name, fx.class_name, true));
    out.push_back(guards_field(fx.guards_expr));

    std::vector<Field> lines;
    for (auto line : fx.debug_lines) {
        lines.push_back(json_element(line));
    }
    out.push_back(json_list("debug_lines", std::move(lines)));
    const std::string source_sha256 = hash::sha256_hex(fx.source_code);
    out.push_back(json("source_code_sha256", source_sha256));
    out.push_back(json("source_code", fx.source_code));
    out.push_back(json("cache_key", fx.cache_key));
    out.push_back(json_items("device_types", fx.device_types));
    out.push_back(json_items("device_idxs", fx.device_idxs));
    out.push_back(json("time_taken_ns", optional_value(fx.time_taken_ns)));

    std::vector<std::string> devices;
    for (std::size_t i = 0; i < fx.device_types.size(); ++i) {
        devices.push_back(fx.device_types[i] + (i < fx.device_idxs.size()
                                                    ? ":" + std::to_string(fx.device_idxs[i])
                                                    : ""));
    }
    out.push_back(shown(kPeople, "Devices", join(devices)));
    out.push_back(shown(fx.time_taken_ns ? kPeople : kTree, "Compile time",
                        fx.time_taken_ns ? format_duration_ns(*fx.time_taken_ns) : "—"));
    if (!fx.cache_key.empty()) {
        out.push_back(tree_link("Wrapper module", fx.cache_key, FileKind::Module, fx.cache_key));
    }
    out.push_back(
        text_row("wrapper module", fx.cache_key + " (" + format_text_size(fx.source_code) + ")"));
    out.push_back(tree("Wrapper source", format_text_size(fx.source_code)));
    out.push_back(tree("Source sha256", source_sha256, true));
    // Entries store their key's debug lines from PyTorch 2.8 on.
    const std::string line_count =
        !fx.release_stores_debug_lines
            ? "none (PyTorch " + fx.written_by + " stores no debug lines in its entries)"
            : std::to_string(fx.debug_lines.size());
    out.push_back(json("written_by", "PyTorch " + fx.written_by));
    out.push_back(shown(kPeople, "Written by", "PyTorch " + fx.written_by));
    Field line_count_field = shown(kPeople, "Debug lines", line_count);
    line_count_field.detail = TextDetail::DebugLines;
    out.push_back(std::move(line_count_field));
    Field line_count_hint =
        text_row("debug lines",
                 fx.debug_lines.empty() ? line_count : line_count + " (--debug-lines prints them)");
    line_count_hint.detail = TextDetail::NoDebugLines;
    out.push_back(std::move(line_count_hint));

    std::vector<Field> kernels_json;
    std::vector<Field> kernels_tree;
    std::vector<Field> kernels_text;
    for (const auto& tuner : fx.autotuners) {
        kernels_json.push_back(autotuner_json(tuner));
        kernels_tree.push_back(autotuner_tree(tuner));
        kernels_text.push_back(autotuner_text(tuner));
    }
    out.push_back(json_list("kernels", std::move(kernels_json)));
    // Entries keep their kernels' autotuners from PyTorch 2.8; an older bundle
    // holds the compiled kernel dirs alone (the Triton bundle below).
    const bool autotuners_unrecorded =
        fx.autotuners.empty() && !fx.triton_artifacts.empty() && !fx.release_stores_debug_lines;
    out.push_back(group(kTree, "Kernels", {},
                        autotuners_unrecorded
                            ? "no autotuners recorded (PyTorch " + fx.written_by +
                                  " keeps the compiled kernels only: the Triton bundle)"
                            : std::to_string(kernels_tree.size()),
                        std::move(kernels_tree)));

    std::vector<std::string> metrics;
    for (const auto& [name, count] : fx.metrics_deltas) {
        if (count != 0) {
            metrics.push_back(name + "=" + std::to_string(count));
        }
    }
    if (!metrics.empty()) {
        out.push_back(text_row("metrics", join(metrics)));
    }
    if (!fx.mutated_inputs.empty()) {
        out.push_back(text_row("mutated inputs", join(fx.mutated_inputs)));
    }

    std::vector<Field> bundle_json;
    std::vector<Field> bundle_tree;
    std::size_t files = 0;
    std::uint64_t total = 0;
    for (const auto& kernel : fx.triton_artifacts) {
        bundle_json.push_back(bundle_kernel_json(kernel));
        bundle_tree.push_back(bundle_kernel_tree(kernel));
        files += kernel.files.size();
        for (const auto& file : kernel.files) {
            total += file.payload.size();
        }
    }
    out.push_back(json_list("triton_artifacts", std::move(bundle_json)));
    // PyTorch bundles the compiled kernels into its entries from 2.6; an
    // older entry has no such field, and its kernels are in triton/ alone.
    const bool has_bundle_field =
        std::ranges::find(fx.attribute_names, "_triton_bundle") != fx.attribute_names.end();
    out.push_back(group(kPeople, "Triton bundle", {},
                        !has_bundle_field && fx.triton_artifacts.empty()
                            ? "none (PyTorch " + fx.written_by +
                                  " keeps no kernels in its entries: they are in triton/)"
                            : plural(fx.triton_artifacts.size(), "kernel dir") + ", " +
                                  plural(files, "file") + ", " + format_bytes(total),
                        std::move(bundle_tree)));
    out.push_back(counts_group("Metrics", "metrics_deltas", fx.metrics_deltas));
    out.push_back(counts_group("Counters", "counter_deltas", fx.counter_deltas));

    std::vector<Field> strides;
    for (std::size_t i = 0; i < fx.output_strides.size(); ++i) {
        const auto& output = fx.output_strides[i];
        const std::string label = "output " + std::to_string(i);
        strides.push_back(output
                              ? group(kJson | kTree, label, {}, "[" + join(*output) + "]",
                                      std::move(json_items({}, *output).children), FieldShape::List)
                              : value_field(kJson | kTree, label, {}, {}, "None"));
        strides.back().monospace = true;
    }
    out.push_back(group(kJson | kTree, "Output strides", "output_strides",
                        std::to_string(strides.size()), std::move(strides), FieldShape::List));
    Field mutated = group(kJson | kTree, "Mutated inputs", "mutated_inputs",
                          fx.mutated_inputs.empty() ? "none" : join(fx.mutated_inputs),
                          std::move(json_items({}, fx.mutated_inputs).children), FieldShape::List);
    mutated.monospace = true;
    out.push_back(std::move(mutated));
    out.push_back(
        graph_text_field(kJson | kTree, "Runnable graph", "runnable_graph", fx.runnable_graph));
    out.push_back(
        graph_text_field(kJson | kTree, "Post-grad graph", "post_grad_graph", fx.post_grad_graph));
    out.push_back(attributes_group(fx.root(), fx.attribute_names, decoded_fx_graph_attributes()));

    if (!kernels_text.empty()) {
        out.push_back(text_section("kernels", std::move(kernels_text)));
    }
    std::vector<Field> line_texts;
    for (auto line : fx.debug_lines) {
        line_texts.push_back(text_line(std::string(line)));
    }
    Field debug_lines = text_section("debug lines", std::move(line_texts));
    debug_lines.detail = TextDetail::DebugLines;
    out.push_back(std::move(debug_lines));
    out.push_back(text_block("source", fx.source_code));
}

// --- AOTAutograd ------------------------------------------------------------

Field graph_link_field(std::string label, std::string key, const std::optional<FxGraphLink>& link) {
    if (!link) {
        return value_field(kEveryone, std::move(label), std::move(key), {}, "none");
    }
    if (link->bundled) {
        // The graph travels inside the entry: no FX entry to link to, though
        // its key (when it had one) may name one the cache also holds.
        const std::string text = "bundled in this entry" +
                                 (link->key.empty() ? std::string(", no FX graph cache key")
                                                    : " (FX graph cache key " + link->key + ")");
        Field field =
            value_field(kEveryone, std::move(label), std::move(key),
                        link->key.empty() ? FieldValue{} : FieldValue{link->key}, text, true);
        field.children.push_back(
            tree("Debug lines recorded", std::to_string(link->debug_lines.size())));
        return field;
    }
    Field field =
        value_field(kEveryone, std::move(label), std::move(key), link->key, link->key, true);
    field.link = FieldLink{FileKind::FxGraph, link->key};
    field.children.push_back(
        tree("Debug lines recorded", std::to_string(link->debug_lines.size())));
    return field;
}

void describe_aot(std::vector<Field>& out, const AotAutogradEntry& aot) {
    out.push_back(
        value_field(kJson | kTree, "Class", "class", aot.class_name, aot.class_name, true));
    out.push_back(guards_field(aot.guards_expr));
    out.push_back(graph_link_field("Forward graph", "forward_key", aot.forward));
    out.push_back(graph_link_field("Backward graph", "backward_key", aot.backward));
    for (const auto& [key, link] : {std::pair{"forward_bundled", &aot.forward},
                                    std::pair{"backward_bundled", &aot.backward}}) {
        if (*link && (*link)->bundled) {
            out.push_back(json(key, true));
        }
    }
    const auto& forward_ns = aot.forward_time_taken_ns;
    out.push_back(value_field(kJson | (forward_ns ? kPeople : 0), "Forward compile",
                              "forward_time_taken_ns", optional_value(forward_ns),
                              forward_ns ? format_duration_ns(*forward_ns) : ""));
    const auto& backward_ns = aot.backward_time_taken_ns;
    const bool backward_shown = backward_ns && *backward_ns > 0;
    out.push_back(value_field(kJson | (backward_shown ? kPeople : 0), "Backward compile",
                              "backward_time_taken_ns", optional_value(backward_ns),
                              backward_shown ? format_duration_ns(*backward_ns) : ""));
    out.push_back(json("joint_graph", optional_value(aot.joint_graph)));
    out.push_back(
        graph_text_field(kJson | kTree, "Forward graph text", "forward_graph", aot.forward_graph));
    out.push_back(graph_text_field(kJson | kTree, "Backward graph text", "backward_graph",
                                   aot.backward_graph));
    out.push_back(graph_text_field(kTree, "Joint graph text", {}, aot.joint_graph));
    out.push_back(
        attributes_group(aot.root(), aot.attribute_names, decoded_aot_autograd_attributes()));
    for (const auto& [label, graph] : {std::pair{"forward graph", aot.forward_graph},
                                       std::pair{"backward graph", aot.backward_graph},
                                       std::pair{"joint graph", aot.joint_graph}}) {
        if (graph) {
            out.push_back(text_block(label, *graph));
        }
    }
}

// --- Generated modules --------------------------------------------------------

Field harness_json(const BenchmarkHarness& harness) {
    std::vector<Field> args;
    for (const auto& arg : harness.args) {
        std::vector<Field> fields;
        switch (arg.kind) {
        case HarnessArg::Kind::Tensor:
            fields.push_back(json("kind", std::string("tensor")));
            fields.push_back(json_items("shape", arg.tensor.shape));
            fields.push_back(json_items("stride", arg.tensor.stride));
            fields.push_back(json("device", arg.tensor.device));
            fields.push_back(json("dtype", arg.tensor.dtype));
            break;
        case HarnessArg::Kind::Int:
            fields.push_back(json("kind", std::string("int")));
            fields.push_back(json("value", arg.integer));
            break;
        case HarnessArg::Kind::Float:
            fields.push_back(json("kind", std::string("float")));
            fields.push_back(json("value", arg.real));
            break;
        case HarnessArg::Kind::Unknown:
            fields.push_back(json("kind", std::string("unknown")));
            fields.push_back(json("name", arg.name));
            break;
        }
        args.push_back(json_object({}, std::move(fields)));
    }
    std::vector<Field> fields;
    fields.push_back(json("get_args_line", static_cast<std::uint64_t>(harness.get_args_line)));
    fields.push_back(json_list("args", std::move(args)));
    fields.push_back(json("has_call", harness.has_call));
    fields.push_back(json("has_benchmark_all_configs", harness.has_benchmark_all_configs));
    fields.push_back(json_items("problems", harness.problems));
    return json_object("harness", std::move(fields));
}

std::string harness_args_text(const BenchmarkHarness& harness) {
    std::vector<std::string> args;
    for (const auto& arg : harness.args) {
        switch (arg.kind) {
        case HarnessArg::Kind::Tensor: {
            std::vector<std::string> dims;
            for (auto d : arg.tensor.shape) {
                dims.push_back(std::to_string(d));
            }
            args.push_back(arg.tensor.dtype + "[" + join(dims, ",") + "] " + arg.tensor.device);
            break;
        }
        case HarnessArg::Kind::Int:
            args.push_back(std::to_string(arg.integer));
            break;
        case HarnessArg::Kind::Float:
            args.push_back(pickle::float_repr(arg.real));
            break;
        case HarnessArg::Kind::Unknown:
            args.push_back(arg.name);
            break;
        }
    }
    return join(args);
}

Field harness_tree(std::string label, const BenchmarkHarness& harness) {
    std::vector<Field> children;
    if (harness.get_args_line > 0) {
        children.push_back(tree("get_args() line", std::to_string(harness.get_args_line)));
    }
    children.push_back(tree("Arguments", harness_args_text(harness), true));
    children.push_back(tree("call(args)", yes_no(harness.has_call)));
    children.push_back(tree("benchmark_all_configs", yes_no(harness.has_benchmark_all_configs)));
    for (const auto& problem : harness.problems) {
        children.push_back(tree("Problem", problem));
    }
    return group(kTree, std::move(label), {}, std::to_string(harness.args.size()) + " arguments",
                 std::move(children));
}

Field module_kernel_json(const KernelDefinition& kernel) {
    std::vector<Field> signature;
    for (const auto& entry : kernel.signature) {
        std::vector<Field> fields;
        fields.push_back(json("name", entry.name));
        fields.push_back(json("type", entry.type));
        signature.push_back(json_object({}, std::move(fields)));
    }
    std::vector<Field> parameters;
    for (const auto& parameter : kernel.parameters) {
        parameters.push_back(json_element(parameter.name));
    }
    std::vector<Field> fields;
    fields.push_back(json("name", kernel.name));
    fields.push_back(json("heuristic", kernel.heuristic));
    fields.push_back(json("def_line", static_cast<std::uint64_t>(kernel.def_line)));
    fields.push_back(json_list("parameters", std::move(parameters)));
    fields.push_back(json_list("signature", std::move(signature)));
    fields.push_back(config_pairs_json("constants", kernel.constants));
    fields.push_back(size_hints_json(kernel.size_hints));
    fields.push_back(json("grid_type", kernel.grid_type));
    fields.push_back(json("kernel_name", kernel.kernel_name));
    fields.push_back(json("kernel_num_gb", optional_value(kernel.kernel_num_gb)));
    fields.push_back(json("kernel_flop", optional_value(kernel.kernel_flop)));
    fields.push_back(json("num_warps", optional_value(kernel.num_warps)));
    fields.push_back(json("num_stages", optional_value(kernel.num_stages)));
    fields.push_back(config_pairs_json("config_args", kernel.config_args));
    fields.push_back(json("is_benchmark_candidate", kernel.is_benchmark_candidate));
    fields.push_back(harness_json(kernel.harness));
    fields.push_back(json_items("problems", kernel.problems));
    return json_object({}, std::move(fields));
}

Field module_kernel_tree(const KernelDefinition& kernel) {
    std::vector<Field> children;
    children.push_back(tree("Heuristic", kernel.heuristic));
    children.push_back(tree("Def line", std::to_string(kernel.def_line)));
    if (!kernel.kernel_name.empty()) {
        children.push_back(tree("Kernel name", kernel.kernel_name, true));
    }
    if (!kernel.wrapper_binding.empty()) {
        children.push_back(tree("Wrapper binding", kernel.wrapper_binding, true));
    }
    if (!kernel.grid_type.empty()) {
        children.push_back(tree("Grid type", kernel.grid_type));
    }
    std::vector<std::string> parameters;
    for (const auto& parameter : kernel.parameters) {
        parameters.push_back(parameter.annotation.empty()
                                 ? parameter.name
                                 : parameter.name + ": " + parameter.annotation);
    }
    children.push_back(tree("Parameters", join(parameters), true));
    std::vector<Field> signature;
    for (const auto& entry : kernel.signature) {
        signature.push_back(tree(entry.name, entry.type, true));
    }
    children.push_back(
        group(kTree, "Signature", {}, std::to_string(signature.size()), std::move(signature)));
    if (!kernel.constants.empty()) {
        children.push_back(tree("Constants", config_pairs_text(kernel.constants), true));
    }
    children.push_back(tree("Size hints", pairs_text(kernel.size_hints), true));
    if (!kernel.reduction_hint.empty()) {
        children.push_back(tree("Reduction hint", kernel.reduction_hint));
    }
    if (kernel.num_warps) {
        children.push_back(tree("num_warps", std::to_string(*kernel.num_warps)));
    }
    if (kernel.num_stages) {
        children.push_back(tree("num_stages", std::to_string(*kernel.num_stages)));
    }
    if (kernel.kernel_num_gb) {
        children.push_back(
            tree("Memory traffic", pickle::float_repr(*kernel.kernel_num_gb) + " GB"));
    }
    if (kernel.kernel_flop) {
        children.push_back(tree("FLOP", std::to_string(*kernel.kernel_flop)));
    }
    if (!kernel.config_args.empty()) {
        children.push_back(tree("Config args", config_pairs_text(kernel.config_args), true));
    }
    if (!kernel.mutated_arg_names.empty()) {
        children.push_back(tree("Mutated args", join(kernel.mutated_arg_names), true));
    }
    children.push_back(tree("Autotune candidate", yes_no(kernel.is_benchmark_candidate)));
    if (kernel.harness.get_args_line > 0 || !kernel.harness.args.empty()) {
        children.push_back(harness_tree("Benchmark harness", kernel.harness));
    }
    for (const auto& problem : kernel.problems) {
        children.push_back(tree("Problem", problem));
    }
    Field node =
        group(kTree, kernel.name, {},
              kernel.heuristic + ", line " + std::to_string(kernel.def_line), std::move(children));
    node.monospace = true;
    return node;
}

// `show`'s heading for a kernel of a module, its facts as rows below.
Field module_kernel_text(const KernelDefinition& kernel) {
    std::vector<Field> rows;
    if (!kernel.grid_type.empty()) {
        rows.push_back(text_row("grid", kernel.grid_type));
    }
    std::vector<std::string> signature;
    for (const auto& entry : kernel.signature) {
        signature.push_back(entry.name + ": " + entry.type);
    }
    rows.push_back(text_row("signature", join(signature)));
    if (!kernel.config_args.empty()) {
        rows.push_back(text_row("config args", config_pairs_text(kernel.config_args)));
    }
    std::vector<std::string> inputs;
    for (const auto& arg : kernel.harness.args) {
        if (arg.kind == HarnessArg::Kind::Tensor) {
            std::vector<std::string> dims;
            for (auto d : arg.tensor.shape) {
                dims.push_back(std::to_string(d));
            }
            inputs.push_back(arg.tensor.dtype + "[" + join(dims, ",") + "]");
        } else if (arg.kind == HarnessArg::Kind::Int) {
            inputs.push_back(std::to_string(arg.integer));
        } else if (arg.kind == HarnessArg::Kind::Float) {
            inputs.push_back(pickle::float_repr(arg.real));
        } else {
            inputs.push_back(arg.name);
        }
    }
    if (!inputs.empty()) {
        rows.push_back(text_row("benchmark args", join(inputs)));
    }
    for (const auto& problem : kernel.problems) {
        rows.push_back(text_row("problem", problem));
    }
    Field heading = shown(kText, {},
                          "kernel " + kernel.name + "  [" + kernel.heuristic + "]  line " +
                              std::to_string(kernel.def_line));
    heading.layout = TextLayout::Heading;
    heading.children = std::move(rows);
    return heading;
}

void describe_module(std::vector<Field>& out, const Entry& entry, const ModuleSource& source) {
    const KernelModule& module = source.module;
    const std::string role(to_string(module.role));
    out.push_back(value_field(kEveryone, "Role", "role", role, role));
    out.push_back(shown(kPeople, "Source", format_text_size(source.text())));
    const std::string code_hash = hash::code_hash(hash::python_strip(source.text()));
    const auto rule = hash::code_hash_rule(entry.key, source.text());
    out.push_back(tree(
        "Code hash",
        rule == hash::CodeHashRule::AsWritten
            ? hash::code_hash(source.text()) +
                  "  (of the text as written, as PyTorch 2.0 and 2.1 named "
                  "modules: matches the file name)"
            : code_hash + (rule ? "  (matches the file name)" : "  (differs from the file name)"),
        true));
    out.push_back(
        json("name_rule", std::string_view(rule == hash::CodeHashRule::AsWritten ? "as written"
                                           : rule                                ? "stripped"
                                                                                 : "none")));
    out.push_back(json_items("kernel_names", module.kernel_names()));
    out.push_back(value_field(kEveryone, "Benchmark harness", "has_benchmark_harness",
                              module.has_benchmark_harness, yes_no(module.has_benchmark_harness)));
    out.push_back(value_field(kJson | (module.is_autotune_template_candidate ? kPeople : 0),
                              "Autotune candidate", "is_autotune_template_candidate",
                              module.is_autotune_template_candidate,
                              "yes (named by its benchmark, not by its content)"));
    out.push_back(json("code_hash", code_hash));
    std::vector<Field> kernels_json;
    std::vector<Field> kernels_tree;
    for (const auto& kernel : module.kernels) {
        kernels_json.push_back(module_kernel_json(kernel));
        kernels_tree.push_back(module_kernel_tree(kernel));
    }
    out.push_back(json_list("kernels", std::move(kernels_json)));
    out.push_back(
        group(kTree, "Kernels", {}, join(module.kernel_names()), std::move(kernels_tree)));
    if (module.role == ModuleRole::Wrapper &&
        (module.wrapper_harness.get_args_line > 0 || !module.wrapper_harness.args.empty())) {
        out.push_back(harness_tree("Wrapper harness", module.wrapper_harness));
    }
    for (const auto& kernel : module.kernels) {
        out.push_back(module_kernel_text(kernel));
    }
    for (const auto& problem : module.problems) {
        out.push_back(shown(kPeople, "Problem", problem));
    }
    out.push_back(json_items("problems", module.problems));
    out.push_back(json("source", source.text()));
    out.push_back(text_block("source", source.text()));
}

void describe_cpp(std::vector<Field>& out, const CppSource& source) {
    out.push_back(shown(kPeople, "Source", format_text_size(source.text())));
    out.push_back(json("source", source.text()));
    out.push_back(text_block("source", source.text()));
}

// --- Autotuning -------------------------------------------------------------

void describe_best_config(std::vector<Field>& out, const BestConfig& best) {
    add_config_json(out, best.config);
    out.push_back(config_group(kPeople, "Config", best.config));
    out.push_back(json("configs_hash", optional_value(best.configs_hash)));
    if (best.triton_cache_hash) {
        Field winner = shown(kPeople, "Winner cubin", *best.triton_cache_hash, true);
        winner.brief = "triton/0/" + *best.triton_cache_hash;
        winner.link = FieldLink{FileKind::Triton, *best.triton_cache_hash};
        out.push_back(std::move(winner));
    }
    out.push_back(value_field(kJson | (best.found_by_coordesc ? kPeople : 0), "Coordinate descent",
                              "found_by_coordesc", optional_value(best.found_by_coordesc),
                              best.found_by_coordesc ? yes_no(*best.found_by_coordesc) : ""));
    out.push_back(value_field(kJson | (best.time_taken_ms ? kPeople : 0), "Autotune time",
                              "time_taken_ms", optional_value(best.time_taken_ms),
                              best.time_taken_ms ? milliseconds(*best.time_taken_ms) : ""));
    out.push_back(json("triton_cache_hash", optional_value(best.triton_cache_hash)));
    if (best.configs_hash) {
        out.push_back(shown(kPeople, "Configs hash", *best.configs_hash, true));
    }
    if (!best.other_fields.empty()) {
        std::vector<Field> other;
        for (const auto& [key, value] : best.other_fields) {
            other.push_back(tree(key, value, true));
        }
        out.push_back(
            group(kTree, "Other fields", {}, std::to_string(other.size()), std::move(other)));
    }
}

void describe_triton_autotune(std::vector<Field>& out, const Entry& entry,
                              const TritonAutotuneResult& result) {
    out.push_back(shown(kPeople, "Function", entry.name, true));
    out.push_back(json("function", entry.name));
    std::string key_text;
    std::vector<Field> key_json;
    for (const auto& part : result.key) {
        key_text += (key_text.empty() ? "" : ", ") + part;
        key_json.push_back(json_element(part));
    }
    out.push_back(shown(kPeople, "Tuning key", key_text, true));
    out.push_back(json_list("tuning_key", std::move(key_json)));
    const auto best = result.best();
    if (best) {
        out.push_back(shown(kPeople, "Fastest config", result.timings[*best].config, true));
        out.push_back(
            shown(kPeople, "Its median", milliseconds(result.timings[*best].milliseconds.front())));
    }
    std::vector<Field> timings_json;
    std::vector<Field> timings_people;
    for (std::size_t i = 0; i < result.timings.size(); ++i) {
        const auto& timing = result.timings[i];
        std::vector<Field> ms;
        std::string ms_text;
        for (double value : timing.milliseconds) {
            ms.push_back(json_element(value));
            ms_text += (ms_text.empty() ? "" : " / ") + milliseconds(value);
        }
        std::vector<Field> fields;
        fields.push_back(json("config", JsonText{timing.config}));
        fields.push_back(json_list("ms", std::move(ms)));
        timings_json.push_back(json_object({}, std::move(fields)));
        timings_people.push_back(
            shown(kPeople, timing.config, ms_text + (best == i ? "  (fastest)" : ""), true));
    }
    out.push_back(json_list("configs_timings", std::move(timings_json)));
    out.push_back(group(kPeople, "Configs (median / p20 / p80)", {},
                        std::to_string(result.timings.size()), std::move(timings_people)));
}

void describe_benchmark_cache(std::vector<Field>& out, const BenchmarkCache& cache) {
    out.push_back(json("system_hash", cache.system_hash));
    out.push_back(value_field(kEveryone, "Device", "device", cache.device_name, cache.device_name));
    out.push_back(shown(kPeople, "System hash", cache.system_hash, true));
    std::vector<Field> versions;
    for (const auto& [name, version] : cache.versions) {
        versions.push_back(value_field(kJson | kTree, name, name, version, version, true));
    }
    out.push_back(group(kJson | kTree, "Versions", "versions", std::to_string(versions.size()),
                        std::move(versions)));

    std::vector<Field> choices;
    for (const auto& choice : cache.choices) {
        std::vector<Field> fields;
        fields.push_back(json("op", choice.op));
        fields.push_back(json("inputs", choice.inputs));
        fields.push_back(json("precision", choice.precision));
        fields.push_back(json("choice", choice.choice));
        fields.push_back(json("ms", choice.ms));
        fields.push_back(
            json("best", cache.best(choice.op, choice.inputs, choice.precision) == &choice));
        choices.push_back(json_object({}, std::move(fields)));
    }
    out.push_back(json_list("choices", std::move(choices)));
    out.push_back(tree("Timed choices", std::to_string(cache.choices.size())));

    // One node per benchmark (op, inputs, precision) with its fastest choice.
    std::vector<Field> benchmarks;
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const auto& choice : cache.choices) {
        if (!seen.insert({choice.op, choice.inputs, choice.precision}).second) {
            continue;
        }
        const BenchmarkChoice* best = cache.best(choice.op, choice.inputs, choice.precision);
        const auto count = std::ranges::count_if(cache.choices, [&](const BenchmarkChoice& other) {
            return other.op == choice.op && other.inputs == choice.inputs &&
                   other.precision == choice.precision;
        });
        Field node = tree(choice.op, std::to_string(count) + " choices, fastest " +
                                         (best ? best->choice : std::string()));
        node.children.push_back(tree("Inputs", choice.inputs, true));
        node.children.push_back(tree("Precision", choice.precision));
        if (best) {
            const std::string module = module_key_of_choice(best->choice);
            Field fastest = module.empty()
                                ? tree("Fastest", best->choice, true)
                                : tree_link("Fastest", best->choice, FileKind::Module, module);
            fastest.children.push_back(tree("Time", milliseconds(best->ms)));
            node.children.push_back(std::move(fastest));
        }
        benchmarks.push_back(std::move(node));
    }
    out.push_back(
        group(kTree, "Benchmarks", {}, std::to_string(benchmarks.size()), std::move(benchmarks)));

    // `show`: every choice under its benchmark, the fastest starred.
    std::string last_group;
    for (const auto& choice : cache.choices) {
        const std::string group_name =
            choice.op + " " + choice.inputs + " [" + choice.precision + "]";
        if (group_name != last_group) {
            Field heading = shown(kText, {}, group_name);
            heading.layout = TextLayout::Heading;
            out.push_back(std::move(heading));
            last_group = group_name;
        }
        const bool best = cache.best(choice.op, choice.inputs, choice.precision) == &choice;
        char ms[64];
        std::snprintf(ms, sizeof ms, "%.4f ms", choice.ms);
        out.back().children.push_back(text_line(std::string(best ? "*" : " ") + " " +
                                                pad_right(choice.choice, 70) + " " + ms));
    }

    std::vector<Field> other;
    std::vector<Field> other_lines;
    for (const auto& [key, value] : cache.other_entries) {
        other.push_back(value_field(kJson | kTree, key, key, JsonText{value}, value, true));
        other_lines.push_back(text_line(key + " = " + value));
    }
    out.push_back(group(kJson | (other.empty() ? 0 : kTree), "Other entries", "other_entries",
                        std::to_string(other.size()), std::move(other)));
    if (!other_lines.empty()) {
        out.push_back(text_section("other entries", std::move(other_lines)));
    }
}

// --- Dynamo -------------------------------------------------------------------

void describe_dynamo_profile(std::vector<Field>& out, const DynamoProfile& profile) {
    const pickle::Value& root = profile.document->root();
    const std::string full = pickle::repr(root);
    out.push_back(value_field(kJson | kText, "State", "repr", full, full));
    pickle::ReprOptions options;
    options.max_string = 2000;
    if (root.is(pickle::Kind::Dict)) {
        std::vector<Field> items;
        for (const auto& item : root.dict_items()) {
            items.push_back(
                tree(pickle::repr(*item.key, options), pickle::repr(*item.value, options), true));
        }
        const std::string summary = std::to_string(items.size()) + " frames";
        out.push_back(group(kTree, "State", {}, summary, std::move(items)));
    } else {
        out.push_back(tree("State", pickle::repr(root, options), true));
    }
}

// --- Keyed caches (torch/_inductor/cache.py, runtime/caching) ------------------

std::string value_version_text(const KeyedCacheValue& value) {
    const std::string current = std::to_string(kOnDiskCacheVersion);
    switch (value.version) {
    case ValueVersion::Current:
        return current + " (prefix " + value.prefix_hex + "): PyTorch 2.10-2.11 read it";
    case ValueVersion::Stale:
        return "stale: prefix " + value.prefix_hex + " of version " +
               std::to_string(*value.prefix_version) + "; PyTorch (version " + current +
               ") deletes it the next time it reads this key";
    case ValueVersion::Bare:
        return "none: a bare pickle from before values were versioned; PyTorch 2.10-2.11 take "
               "its first 4 bytes for a stale prefix and delete it the next time they read "
               "this key";
    case ValueVersion::Unknown:
        break; // never read: no value follows an unknown prefix
    }
    return "unknown";
}

// A decoded value: its repr for `show` and the JSON, a browsable tree of its
// items for the GUI.
void describe_pickled_value(std::vector<Field>& out, std::string label, std::string key,
                            const pickle::Value& value) {
    const std::string full = pickle::repr(value);
    out.push_back(value_field(kJson | kText, label, std::move(key), full, full, true));
    pickle::ReprOptions options;
    options.max_string = 2000;
    if (value.is(pickle::Kind::Dict)) {
        std::vector<Field> items;
        for (const auto& item : value.dict_items()) {
            items.push_back(
                tree(pickle::repr(*item.key, options), pickle::repr(*item.value, options), true));
        }
        const std::string summary = std::to_string(items.size()) + " items";
        out.push_back(group(kTree, std::move(label), {}, summary, std::move(items)));
    } else {
        out.push_back(tree(std::move(label), pickle::repr(value, options), true));
    }
}

void describe_keyed_value(std::vector<Field>& out, const Entry& entry,
                          const KeyedCacheValue& value) {
    out.push_back(value_field(kEveryone, "Cache", "cache", value.cache_name,
                              value.cache_name + ": " + keyed_cache_owner(value.cache_name)));
    const bool named = is_keyed_cache_value_name(entry.key);
    out.push_back(shown(kPeople, "Key (hashed)",
                        named ? "not stored: the file is named by sha256(pickle.dumps(key))[:32] "
                                "(Python's default pickle protocol: 4, 5 from Python 3.14)"
                              : "none PyTorch could look up: not 32 lowercase hex digits"));
    out.push_back(value_field(kEveryone, "Version", "version",
                              std::string(to_string(value.version)), value_version_text(value)));
    if (value.prefix_version) {
        out.push_back(json("prefix_version", static_cast<std::int64_t>(*value.prefix_version)));
    }
    out.push_back(json("prefix", value.prefix_hex));
    out.push_back(value_field(kEveryone, "Type", "type", pickle::type_name(value.value()),
                              pickle::type_name(value.value()), true));
    if (value.memoized) {
        out.push_back(shown(kPeople, "Memoized call",
                            "a CacheEntry of Inductor's caching module: the call's encoded "
                            "parameters and the result it returned"));
        if (value.memoized->params != nullptr) {
            describe_pickled_value(out, "Parameters", "params", *value.memoized->params);
        }
        if (value.memoized->result != nullptr) {
            describe_pickled_value(out, "Result", "result", *value.memoized->result);
        }
        return;
    }
    describe_pickled_value(out, "Value", "value", value.value());
}

void describe_in_memory_cache(std::vector<Field>& out, const InMemoryCacheContents& cache) {
    out.push_back(value_field(kEveryone, "Source", "source", cache.source,
                              cache.from_env
                                  ? cache.source + ", read as InMemoryCache.from_env_var reads "
                                                   "a variable's value"
                                  : "a pickled dict, as InMemoryCache.from_file_path reads it"));
    pickle::ReprOptions options;
    options.max_string = 400;
    std::vector<Field> rows;
    std::vector<Field> lines;
    std::vector<Field> json_pairs;
    for (const auto& pair : cache.pairs) {
        const std::string key = pickle::repr(*pair.key, options);
        const std::string value = pickle::repr(*pair.value, options);
        rows.push_back(tree(key, value, true));
        lines.push_back(text_line(key + " -> " + value));
        json_pairs.push_back(group(
            kJson, {}, {}, {},
            {json("key", pickle::repr(*pair.key)), json("value", pickle::repr(*pair.value))}));
    }
    const std::string count =
        std::to_string(cache.pairs.size()) + " pair" + (cache.pairs.size() == 1 ? "" : "s");
    out.push_back(group(kTree, "Pairs", {}, count, std::move(rows)));
    out.push_back(text_row("pairs", count));
    out.push_back(text_section("pairs", std::move(lines)));
    out.push_back(json_list("pairs", std::move(json_pairs)));
}

// --- .pt2 archives (pt2/pt2_archive.h) ----------------------------------------

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
    }
    return out + "]";
}

std::string member_text(const pt2::Member& member) {
    return member.path + " (" + format_bytes(member.size) + ")";
}

// A model's file by its index: its path and size, wherever the model sits.
using ModelFileOf = std::function<std::pair<std::string, std::uint64_t>(pt2::MemberIndex)>;

std::string file_text(const std::pair<std::string, std::uint64_t>& file) {
    return file.first + " (" + format_bytes(file.second) + ")";
}

Field aoti_model_field(const pt2::AotiModel& model, const ModelFileOf& file_of) {
    std::vector<Field> children;
    children.push_back(json("name", model.name));
    const auto metadata = [&](const char* key) -> std::string {
        const auto found = model.metadata_values.find(key);
        return found == model.metadata_values.end() ? std::string() : found->second;
    };
    const std::string device = model.device_key();
    children.push_back(
        value_field(kEveryone, "Device", "device", device,
                    device.empty() ? "none recorded: PyTorch's loader refuses it" : device));
    const std::string capability = metadata("AOTI_COMPUTE_CAPABILITY");
    if (!capability.empty()) {
        children.push_back(value_field(kEveryone, "Compute capability", "compute_capability",
                                       capability, capability));
    }
    for (const auto& [label, key, json_key] : {std::tuple{"Platform", "AOTI_PLATFORM", "platform"},
                                               std::tuple{"Machine", "AOTI_MACHINE", "machine"},
                                               std::tuple{"CPU ISA", "AOTI_CPU_ISA", "cpu_isa"}}) {
        if (const std::string value = metadata(key); !value.empty()) {
            children.push_back(value_field(kEveryone, label, json_key, value, value));
        }
    }
    std::vector<Field> other_metadata;
    for (const auto& [key, value] : model.metadata_values) {
        if (!key.starts_with("AOTI_")) {
            other_metadata.push_back(value_field(kEveryone, key, key, value, value));
        }
    }
    if (!other_metadata.empty()) {
        children.push_back(group(kEveryone, "Metadata", "metadata",
                                 std::to_string(other_metadata.size()) + " user keys",
                                 std::move(other_metadata)));
    }
    const auto names = [](const std::vector<std::string>& list) {
        std::string out;
        for (const auto& name : list) {
            out += (out.empty() ? "" : ", ") + name;
        }
        return out.empty() ? std::string("none recorded") : out;
    };
    children.push_back(value_field(kPeople, "Inputs", {}, {}, names(model.inputs)));
    children.push_back(json_items("inputs", model.inputs));
    children.push_back(value_field(kPeople, "Outputs", {}, {}, names(model.outputs)));
    children.push_back(json_items("outputs", model.outputs));
    std::uint64_t weight_bytes = 0;
    std::vector<Field> constants;
    for (const auto& constant : model.constants) {
        weight_bytes += constant.data_size;
        const std::string label =
            constant.original_fqn.empty() ? constant.name : constant.original_fqn;
        std::vector<Field> parts{
            json("name", constant.name),         json("original_fqn", constant.original_fqn),
            json("dtype", constant.dtype),       json("device", constant.device),
            json_items("shape", constant.shape), json_items("stride", constant.stride),
            json("bytes", constant.data_size),   json("type", constant.type)};
        Field row = group(kEveryone, label, {},
                          constant.dtype + " " + shape_text(constant.shape) + ", " +
                              format_bytes(constant.data_size) +
                              (constant.type.empty() ? "" : ", " + constant.type) +
                              (constant.from_folded ? ", folded" : ""),
                          std::move(parts));
        row.monospace = true;
        constants.push_back(std::move(row));
    }
    children.push_back(value_field(kEveryone, "Weights", "weights_location", model.weights_location,
                                   model.weights_location));
    children.push_back(
        group(kEveryone, "Constants", "constants",
              std::to_string(model.constants.size()) + ", " + format_bytes(weight_bytes),
              std::move(constants), FieldShape::List));
    std::vector<Field> files;
    const auto file_row = [&](const char* label, const std::optional<pt2::MemberIndex>& index,
                              const std::string& note) {
        if (index) {
            const auto file = file_of(*index);
            files.push_back(
                value_field(kEveryone, label, {}, file.first, file_text(file) + note, true));
        }
    };
    file_row("Wrapper", model.wrapper_cpp, {});
    file_row("Kernels", model.kernel_cpp, {});
    file_row("Library", model.library,
             ": compiled code PyTorch loads with dlopen; cachelens cannot judge it");
    file_row("Metadata", model.metadata, ": what PyTorch's loader reads");
    for (const auto& kernel : model.kernels) {
        const auto file = file_of(kernel.member);
        files.push_back(value_field(
            kEveryone, "Kernel binary", {}, file.first,
            file_text(file) + (kernel.sm ? ", sm_" + std::to_string(*kernel.sm) : ""), true));
    }
    for (const auto index : model.other_files) {
        const auto file = file_of(index);
        files.push_back(value_field(kEveryone, "File", {}, file.first, file_text(file), true));
    }
    children.push_back(group(kEveryone, "Files", "files", std::to_string(files.size()),
                             std::move(files), FieldShape::List));
    return group(kEveryone, "Model " + model.name, {}, device, std::move(children));
}

void describe_pt2(std::vector<Field>& out, const pt2::Archive& archive) {
    const std::string layout(pt2::to_string(archive.layout));
    out.push_back(
        value_field(kEveryone, "Format", "layout", layout,
                    layout + (archive.root.empty() ? "" : ", root " + archive.root + "/")));
    std::string records;
    std::vector<Field> record_fields;
    for (const auto& [name, value] : archive.records) {
        records += (records.empty() ? "" : ", ") + name + " " + value;
        record_fields.push_back(json(name, value));
    }
    out.push_back(value_field(kPeople, "Records", {}, {}, records.empty() ? "none" : records));
    out.push_back(json_object("records", std::move(record_fields)));
    std::string what;
    if (archive.is_aoti_package()) {
        what = "an AOTInductor package: " + std::to_string(archive.models.size()) +
               (archive.models.size() == 1 ? " model" : " models");
    } else if (!archive.exported_programs.empty()) {
        what = "exported programs (torch.export.save)";
    } else {
        what = "neither AOTInductor models nor exported programs";
    }
    out.push_back(value_field(kEveryone, "What", "aoti_package", archive.is_aoti_package(), what));
    std::vector<Field> models;
    const ModelFileOf member_of = [&](pt2::MemberIndex index) {
        return std::pair(archive.members[index].path, archive.members[index].size);
    };
    for (const auto& model : archive.models) {
        models.push_back(aoti_model_field(model, member_of));
    }
    Field model_list = group(kJson, {}, "models", {}, std::move(models), FieldShape::List);
    for (auto& model : model_list.children) {
        Field shown_model = model; // the people's copy: a group of its own
        shown_model.audience = kPeople;
        out.push_back(std::move(shown_model));
    }
    out.push_back(std::move(model_list));
    if (!archive.exported_programs.empty()) {
        out.push_back(value_field(kPeople, "Exported programs", {}, {},
                                  std::to_string(archive.exported_programs.size())));
    }
    out.push_back(json_items("exported_programs", archive.exported_programs));
    for (const auto& [label, key, list] :
         {std::tuple{"Weights files", "weights_files", &archive.weights},
          std::tuple{"Constants files", "constants_files", &archive.constants},
          std::tuple{"Sample inputs", "sample_inputs", &archive.sample_inputs},
          std::tuple{"Extra files", "extra_files", &archive.extra}}) {
        std::vector<Field> rows;
        for (const auto index : *list) {
            rows.push_back(value_field(kEveryone, {}, {}, archive.members[index].path,
                                       member_text(archive.members[index]), true));
        }
        if (!rows.empty()) {
            out.push_back(group(kEveryone, label, key, std::to_string(rows.size()), std::move(rows),
                                FieldShape::List));
        }
    }
    std::vector<Field> members;
    std::vector<Field> problems;
    for (const auto& problem : archive.problems) {
        problems.push_back(value_field(kEveryone, {}, {}, problem, problem));
    }
    for (const auto& member : archive.members) {
        std::vector<Field> fields{json("name", member.name),
                                  json("size", member.size),
                                  json("compressed_size", member.compressed_size),
                                  json("crc", static_cast<std::uint64_t>(member.crc)),
                                  json("method", static_cast<std::uint64_t>(member.method)),
                                  json_items("problems", member.problems)};
        members.push_back(group(kJson, {}, {}, {}, std::move(fields)));
        for (const auto& problem : member.problems) {
            problems.push_back(value_field(kEveryone, {}, {}, member.name + ": " + problem,
                                           member.name + ": " + problem));
        }
    }
    out.push_back(group(kJson, {}, "members", {}, std::move(members), FieldShape::List));
    out.push_back(tree("Members", std::to_string(archive.members.size()) + ", " +
                                      format_bytes(archive.file_size)));
    out.push_back(group(kEveryone, "Problems", "problems",
                        problems.empty() ? "none" : std::to_string(problems.size()),
                        std::move(problems), FieldShape::List));
}

// --- Precompiled functions and DynamoCache entries (precompile.h) ------------

std::string function_text(const PrecompileFunction& function) {
    std::string out = function.qualname + function.signature;
    if (!function.file.empty()) {
        out += " at " + function.file + ":" + std::to_string(function.first_line);
    } else if (function.first_line != 0) {
        out += ", line " + std::to_string(function.first_line);
    }
    if (!function.python_module.empty()) {
        out += " (module " + function.python_module + ")";
    }
    if (function.bypassed) {
        out += ", bypassed: PyTorch skips it";
    }
    return out;
}

std::string system_text(const PrecompileSystem& system) {
    if (!system.recorded) {
        return "not recorded: PyTorch checks nothing before it runs the code";
    }
    std::string out = "Python " + system.python_version + ", torch " + system.torch_version;
    if (!system.toolkit_version.empty()) {
        out += ", toolkit " + system.toolkit_version;
    }
    if (!system.triton_version.empty()) {
        out += ", Triton " + system.triton_version;
    }
    if (!system.gpu_name.empty()) {
        out += ", " + system.gpu_name;
    }
    return out;
}

void describe_precompile(std::vector<Field>& out, const PrecompileFile& file) {
    std::string layout(to_string(file.layout));
    if (file.header_version != 0) {
        layout += ", PT2AOT header version " + std::to_string(file.header_version);
    }
    out.push_back(value_field(kEveryone, "Format", "layout", layout, layout));
    if (!file.key.empty()) {
        out.push_back(value_field(kEveryone, "Key", "key", file.key, file.key, true));
    }
    if (!file.expected_key.empty()) {
        out.push_back(
            value_field(kEveryone, "Looked up as", "expected_key", file.expected_key,
                        file.expected_key + (file.key.empty() || file.key == file.expected_key
                                                 ? " (sha256 of the function's name and first line)"
                                                 : " (not this dir's name: never loaded)"),
                        true));
    }
    std::vector<Field> functions;
    std::vector<Field> function_json;
    for (const auto& function : file.functions) {
        functions.push_back(value_field(kPeople, {}, {}, {}, function_text(function), true));
        function_json.push_back(group(
            kJson, {}, {}, {},
            {json("qualname", function.qualname), json("signature", function.signature),
             json("file", function.file), json("first_line", function.first_line),
             json("python_module", function.python_module), json("bypassed", function.bypassed),
             json_items("backend_ids", function.backend_ids)}));
    }
    out.push_back(group(kPeople, "Functions", {}, std::to_string(functions.size()),
                        std::move(functions), FieldShape::List));
    out.push_back(json_list("functions", std::move(function_json)));
    out.push_back(value_field(kEveryone, "Compiled on", "system", system_text(file.system),
                              system_text(file.system)));
    out.push_back(json_object("system_info", {json("recorded", file.system.recorded),
                                              json("python_version", file.system.python_version),
                                              json("torch_version", file.system.torch_version),
                                              json("toolkit_version", file.system.toolkit_version),
                                              json("triton_version", file.system.triton_version),
                                              json("gpu_name", file.system.gpu_name)}));
    out.push_back(value_field(kEveryone, "Device", "device_type", file.device_type,
                              file.device_type.empty() ? "not recorded" : file.device_type));
    if (!file.backend_name.empty()) {
        out.push_back(value_field(kEveryone, "Backend", "backend_name", file.backend_name,
                                  file.backend_name));
    }
    std::vector<Field> backends;
    std::vector<Field> backend_json;
    for (const auto& backend : file.backends) {
        std::vector<Field> graphs;
        std::vector<Field> graph_json;
        for (const auto& graph : backend.graphs) {
            std::string text = graph.role + " " + graph.cache_key +
                               (graph.key_matches ? "" : " (its source does not hash to it)");
            if (!graph.fx_graph_key.empty()) {
                text += ", FX graph " + graph.fx_graph_key;
            }
            Field row = value_field(kPeople, {}, {}, {}, std::move(text), true);
            // PyTorch writes the module out as <xx>/<cache_key>.py when it loads it.
            row.link = FieldLink{FileKind::Module, graph.cache_key};
            graphs.push_back(std::move(row));
            graph_json.push_back(
                group(kJson, {}, {}, {},
                      {json("role", graph.role), json("cache_key", graph.cache_key),
                       json("fx_graph_key", graph.fx_graph_key),
                       json("key_matches_source", graph.key_matches)}));
        }
        for (const auto& module : backend.kernel_modules) {
            graphs.push_back(value_field(kPeople, {}, {}, {},
                                         "imports " + module + " for a user Triton kernel", true));
        }
        const std::string summary =
            backend.present ? backend.kind : "missing: named by the code, not in the file";
        backends.push_back(group(kPeople, backend.id, {}, summary, std::move(graphs)));
        backend_json.push_back(group(
            kJson, {}, {}, {},
            {json("id", backend.id), json("kind", backend.kind), json("class", backend.class_name),
             json("present", backend.present), json_list("graphs", std::move(graph_json)),
             json_items("kernel_modules", backend.kernel_modules)}));
    }
    out.push_back(group(kPeople, "Backends", {}, std::to_string(backends.size()),
                        std::move(backends), FieldShape::List));
    out.push_back(json_list("backends", std::move(backend_json)));
    std::vector<Field> guard_sets;
    std::vector<Field> guard_json;
    for (const auto& set : file.guards) {
        std::vector<Field> rows;
        std::vector<Field> inputs_json;
        std::vector<Field> guards_json;
        if (!set.error.empty()) {
            rows.push_back(value_field(kPeople, {}, {}, {}, set.error));
        }
        for (const auto& input : set.inputs) {
            rows.push_back(
                value_field(kPeople, {}, {}, {}, input.name + ": " + input.description, true));
            inputs_json.push_back(
                group(kJson, {}, {}, {},
                      {json("name", input.name), json("description", input.description)}));
        }
        for (const auto& guard : set.guards) {
            std::string text = guard.kind + (guard.source.empty() ? "" : " " + guard.source);
            std::vector<Field> code;
            for (const auto& line : guard.code) {
                code.push_back(value_field(kPeople, {}, {}, {}, line, true));
            }
            rows.push_back(group(kPeople, {}, {}, std::move(text), std::move(code)));
            guards_json.push_back(group(kJson, {}, {}, {},
                                        {json("kind", guard.kind), json("source", guard.source),
                                         json_items("code", guard.code)}));
        }
        for (const auto& expr : set.shape_guards) {
            rows.push_back(value_field(kPeople, {}, {}, {}, "shape: " + expr, true));
        }
        for (const auto& expr : set.cpp_shape_guards) {
            rows.push_back(
                value_field(kPeople, {}, {}, {}, "shape (compiled as C++ on load): " + expr, true));
        }
        if (!set.global_state.empty()) {
            rows.push_back(
                value_field(kPeople, {}, {}, {}, "global state: " + set.global_state, true));
        }
        for (const auto& cls : set.user_classes) {
            rows.push_back(value_field(
                kPeople, {}, {}, {},
                "names your class " + cls + ": loading imports it and builds an instance", true));
        }
        guard_sets.push_back(group(
            kPeople, file.guards.size() == 1 ? std::string("Guards") : "Guards of " + set.where, {},
            std::to_string(set.guards.size()) + " guards, " + std::to_string(set.inputs.size()) +
                " inputs",
            std::move(rows)));
        guard_json.push_back(group(kJson, {}, {}, {},
                                   {json("where", set.where), json("error", set.error),
                                    json_list("inputs", std::move(inputs_json)),
                                    json_list("guards", std::move(guards_json)),
                                    json_items("shape_guards", set.shape_guards),
                                    json_items("cpp_shape_guards", set.cpp_shape_guards),
                                    json("global_state", set.global_state),
                                    json_items("user_classes", set.user_classes)}));
    }
    for (auto& set : guard_sets) {
        out.push_back(std::move(set));
    }
    out.push_back(json_list("guards", std::move(guard_json)));
    std::vector<Field> sources;
    std::vector<Field> sources_json;
    for (const auto& source : file.sources) {
        std::string text = source.module + " lines " + std::to_string(source.first_line) + "-" +
                           std::to_string(source.last_line - 1) + " sha256 " +
                           source.checksum.substr(0, 16);
        if (source.content_matches) {
            text += *source.content_matches ? " (matches the source recorded beside it)"
                                            : " (does NOT match the source recorded beside it)";
        }
        sources.push_back(value_field(kPeople, {}, {}, {}, std::move(text), true));
        sources_json.push_back(group(
            kJson, {}, {}, {},
            {json("module", source.module), json("first_line", source.first_line),
             json("last_line", source.last_line), json("checksum", source.checksum),
             json("content_matches",
                  source.content_matches ? FieldValue(*source.content_matches) : FieldValue())}));
    }
    out.push_back(group(kPeople, "Checked sources", {},
                        sources.empty() ? "none: nothing of your source is checked on load"
                                        : std::to_string(sources.size()) +
                                              " (PyTorch's DynamoCache and vLLM reject the entry "
                                              "when one changed; --against DIR checks them)",
                        std::move(sources), FieldShape::List));
    out.push_back(json_list("sources", std::move(sources_json)));
    std::vector<Field> imports;
    std::vector<Field> imports_json;
    for (const auto& [alias, module] : file.imports) {
        imports.push_back(value_field(kPeople, {}, {}, {}, alias + " = import " + module, true));
        imports_json.push_back(
            group(kJson, {}, {}, {}, {json("alias", alias), json("module", module)}));
    }
    out.push_back(group(kPeople, "Imports on load", {}, std::to_string(imports.size()),
                        std::move(imports), FieldShape::List));
    out.push_back(json_list("imports", std::move(imports_json)));
    std::vector<Field> codes;
    std::vector<Field> codes_json;
    for (const auto& code : file.codes) {
        std::string names;
        for (const auto name : code.names) {
            names += (names.empty() ? "" : ", ") + std::string(name);
        }
        codes.push_back(
            group(kPeople, code.role, {},
                  code.qualname + " at " + code.file + ":" + std::to_string(code.first_line),
                  {value_field(kPeople, {}, {}, {}, "names: " + names, true)}));
        codes_json.push_back(
            group(kJson, {}, {}, {},
                  {json("role", code.role), json("runs", code.runs),
                   json("qualname", code.qualname), json("file", code.file),
                   json("first_line", code.first_line), json_items("names", code.names),
                   json("bytecode_bytes", static_cast<std::uint64_t>(code.bytecode_bytes))}));
    }
    out.push_back(group(kPeople, "Code objects", {}, std::to_string(codes.size()), std::move(codes),
                        FieldShape::List));
    out.push_back(json_list("codes", std::move(codes_json)));
    if (!file.external_data.empty()) {
        out.push_back(value_field(kPeople, "External data", {}, {},
                                  std::to_string(file.external_data.size()) +
                                      " objects load must be handed (external_data=)"));
    }
    out.push_back(json_items("external_data", file.external_data));
    std::vector<Field> problems;
    for (const auto& problem : file.problems) {
        problems.push_back(value_field(kEveryone, {}, {}, problem, problem));
    }
    out.push_back(group(kEveryone, "Problems", "problems",
                        problems.empty() ? "none" : std::to_string(problems.size()),
                        std::move(problems), FieldShape::List));
    for (const auto& backend : file.backends) {
        for (const auto& graph : backend.graphs) {
            if (!graph.source_code.empty()) {
                out.push_back(text_block(backend.id + " " + graph.role + " module (" +
                                             graph.cache_key + ".py)",
                                         graph.source_code));
            }
        }
    }
}

// --- What the compilers leave beside the entries (compile_outputs.h) ----------

void describe_aoti_output(std::vector<Field>& out, const AotiOutputDir& output) {
    const bool eager = output.dir == "aoti_eager";
    const std::string what =
        eager ? "AOTInductor's eager kernels (aoti_eager): op configs and the libraries they name"
              : "the dir AOTInductor compiled one model into (AotCodeCompiler): aot_load and "
                "aoti_compile_and_package read it";
    out.push_back(value_field(kEveryone, "What", "what", what, what));
    if (!eager && (output.model.wrapper_cpp || output.model.library)) {
        const ModelFileOf file_of = [&](pt2::MemberIndex index) {
            return std::pair(output.files[index], output.sizes[index]);
        };
        Field model = aoti_model_field(output.model, file_of);
        model.label = "Model";
        model.key = "model";
        out.push_back(std::move(model));
    }
    std::vector<Field> files;
    for (std::size_t i = 0; i < output.files.size(); ++i) {
        const auto file = std::pair(output.files[i], output.sizes[i]);
        files.push_back(value_field(kEveryone, {}, {}, file.first, file_text(file), true));
    }
    out.push_back(group(kEveryone, "Files", "files", std::to_string(files.size()), std::move(files),
                        FieldShape::List));
    std::vector<Field> problems;
    for (const auto& problem : output.problems) {
        problems.push_back(value_field(kEveryone, {}, {}, problem, problem));
    }
    out.push_back(group(kEveryone, "Problems", "problems",
                        problems.empty() ? "none" : std::to_string(problems.size()),
                        std::move(problems), FieldShape::List));
}

void describe_companion(std::vector<Field>& out, const CompanionFile& file) {
    out.push_back(value_field(kEveryone, "What", "what", file.what, file.what));
    if (file.sm) {
        out.push_back(value_field(kEveryone, "Architecture", "sm",
                                  static_cast<std::int64_t>(*file.sm),
                                  "sm_" + std::to_string(*file.sm)));
    }
    std::vector<Field> owners;
    for (const auto& owner : file.owners) {
        Field row = value_field(kEveryone, {}, {}, owner, owner, true);
        const FileKind kind = owner.ends_with(".py")   ? FileKind::Module
                              : owner.ends_with(".so") ? FileKind::SharedLibrary
                                                       : FileKind::CppSource;
        row.link = FieldLink{kind, owner};
        owners.push_back(std::move(row));
    }
    if (!owners.empty()) {
        out.push_back(group(kEveryone, "Belongs to", "owners", std::to_string(owners.size()),
                            std::move(owners), FieldShape::List));
    }
}

void describe_text_file(std::vector<Field>& out, const TextFile& file) {
    out.push_back(value_field(kEveryone, "What", "what", file.what, file.what));
    out.push_back(json("text", file.text()));
    Field block = text_block("text", file.text());
    block.detail = TextDetail::Always; // the text is what the file is for
    out.push_back(std::move(block));
    out.push_back(tree("Text", std::string(file.text().substr(0, 4000)), true));
}

void describe_header(std::vector<Field>& out, const Entry& entry) {
    const std::string kind(to_string(entry.kind));
    out.push_back(value_field(kJson | kTree, "Kind", "kind", kind, kind));
    out.push_back(value_field(kJson | kTree, "Key", "key", entry.key, entry.key, true));
    out.push_back(value_field(kEveryone, "Path", "path", entry.path, entry.path, true));
    const std::string file = entry.path.substr(entry.path.rfind('/') + 1);
    out.push_back(value_field(kJson | kTree, "File", "file", file, file, true));
    Field size =
        value_field(kEveryone, "Size", "size", entry.size,
                    format_bytes(entry.size) + " (" + std::to_string(entry.size) + " bytes)");
    size.brief = format_bytes(entry.size);
    out.push_back(std::move(size));
    if (entry.file_count > 1) {
        out.push_back(tree("Files", std::to_string(entry.file_count)));
    }
    // mtime 0: not a file (a Redis value), which `show` leaves out.
    out.push_back(
        value_field(kJson | kTree | (entry.mtime_ns != 0 ? kText : 0), "Modified", "mtime",
                    format_time(entry.mtime_ns),
                    format_time(entry.mtime_ns) + " (" + format_age(entry.mtime_ns) + ")"));
}

} // namespace

std::string_view Field::value_text() const {
    if (const auto* owned = std::get_if<std::string>(&value)) {
        return *owned;
    }
    if (const auto* borrowed = std::get_if<std::string_view>(&value)) {
        return *borrowed;
    }
    return {};
}

std::vector<Field> describe_triton_kernel(const TritonKernelDir& kernel) {
    std::vector<Field> out;
    out.push_back(shown(kPeople, "Kernel", kernel.kernel_name, true));
    out.push_back(value_field(kJson | kTree, "Hash", "hash", kernel.hash, kernel.hash, true));
    out.push_back(value_field(kJson | kTree, "Device", "device",
                              kernel.device.empty() ? FieldValue{} : FieldValue{kernel.device},
                              kernel.device.empty() ? "none (a Triton cache dir)" : kernel.device));

    out.push_back(json("kernel_name", kernel.kernel_name));
    out.push_back(json("module_path", kernel.module_path));
    out.push_back(json("module", kernel.module_key));
    out.push_back(json("module_file",
                       kernel.module_file.empty() ? FieldValue{} : FieldValue{kernel.module_file}));
    std::vector<Field> files_json;
    for (const auto& file : kernel.files) {
        std::vector<Field> fields;
        fields.push_back(json("name", file.name));
        fields.push_back(json("size", file.size));
        files_json.push_back(json_object({}, std::move(fields)));
    }
    out.push_back(json_list("files", std::move(files_json)));
    if (kernel.metadata) {
        const TritonMetadata& meta = *kernel.metadata;
        std::vector<Field> fields;
        fields.push_back(json("name", meta.name));
        fields.push_back(json("hash", meta.hash));
        fields.push_back(json("num_warps", optional_value(meta.num_warps)));
        fields.push_back(json("num_stages", optional_value(meta.num_stages)));
        fields.push_back(json("num_ctas", optional_value(meta.num_ctas)));
        fields.push_back(json("shared", meta.shared));
        fields.push_back(json("global_scratch_size", meta.global_scratch_size));
        fields.push_back(json("profile_scratch_size", meta.profile_scratch_size));
        fields.push_back(json("backend", meta.backend));
        fields.push_back(json("arch", meta.arch));
        fields.push_back(json("triton_version", meta.triton_version));
        out.push_back(json_object("metadata", std::move(fields)));
    }
    if (kernel.ptx) {
        std::vector<Field> parameters;
        for (const auto& parameter : kernel.ptx->parameters) {
            std::vector<Field> fields;
            fields.push_back(json("type", parameter.type));
            fields.push_back(json("pointer", parameter.pointer));
            fields.push_back(json("bytes", static_cast<std::uint64_t>(parameter.bytes)));
            parameters.push_back(json_object({}, std::move(fields)));
        }
        std::vector<Field> fields;
        fields.push_back(json("entry", kernel.ptx->entry));
        fields.push_back(json("version", kernel.ptx->version));
        fields.push_back(json("target", kernel.ptx->target));
        fields.push_back(json_list("parameters", std::move(parameters)));
        fields.push_back(json("reqntid", optional_value(kernel.ptx->reqntid)));
        out.push_back(json_object("ptx", std::move(fields)));
    }

    if (!kernel.module_key.empty()) {
        out.push_back(tree_link("Module", kernel.module_key, FileKind::Module, kernel.module_key));
    }
    out.push_back(
        tree("Module path", kernel.module_path.empty() ? "(unknown)" : kernel.module_path, true));
    if (kernel.metadata) {
        const TritonMetadata& meta = *kernel.metadata;
        const auto bytes = [](std::int64_t size) {
            return std::to_string(size) + " B";
        };
        const auto scratch = [&](std::int64_t size, std::int64_t align) {
            return bytes(size) + " (align " + std::to_string(align) + ")";
        };
        std::vector<Field> children;
        children.push_back(tree("Name", meta.name, true));
        children.push_back(tree("Hash", meta.hash, true));
        children.push_back(tree("Target", meta.backend + " " + meta.arch));
        children.push_back(tree("num_warps", optional_number(meta.num_warps)));
        children.push_back(tree("num_stages", optional_number(meta.num_stages)));
        children.push_back(tree("num_ctas", optional_number(meta.num_ctas)));
        if (meta.warp_size) {
            children.push_back(tree("Warp size", std::to_string(*meta.warp_size)));
        }
        if (meta.maxnreg) {
            children.push_back(tree("maxnreg", std::to_string(*meta.maxnreg)));
        }
        children.push_back(tree("Shared memory", bytes(meta.shared)));
        children.push_back(
            tree("Global scratch", scratch(meta.global_scratch_size, meta.global_scratch_align)));
        children.push_back(tree("Profile scratch",
                                scratch(meta.profile_scratch_size, meta.profile_scratch_align)));
        if (meta.tmem_size != 0) {
            children.push_back(tree("Tensor memory", bytes(meta.tmem_size)));
        }
        children.push_back(tree("Triton version", meta.triton_version));
        children.push_back(tree("Launch PDL", yes_no(meta.launch_pdl)));
        children.push_back(tree("Cooperative grid", yes_no(meta.launch_cooperative_grid)));
        children.push_back(tree("Keys", join(meta.keys), true));
        const std::string summary =
            meta.backend + " " + meta.arch + ", num_warps=" + optional_number(meta.num_warps) +
            ", num_stages=" + optional_number(meta.num_stages) + ", shared " + bytes(meta.shared);
        out.push_back(group(kTree, "Metadata", {}, summary, std::move(children)));
    }
    if (kernel.ptx) {
        const PtxInfo& ptx = *kernel.ptx;
        std::vector<Field> children;
        children.push_back(tree("Entry", ptx.entry, true));
        children.push_back(tree("Version", ptx.version, true));
        children.push_back(tree("Target", ptx.target, true));
        if (ptx.reqntid) {
            children.push_back(tree("Threads per block", std::to_string(*ptx.reqntid)));
        }
        std::vector<Field> parameters;
        std::vector<std::string> summary;
        for (std::size_t i = 0; i < ptx.parameters.size(); ++i) {
            const PtxParameter& p = ptx.parameters[i];
            const std::string type = p.type + (p.pointer ? " ptr" : "");
            parameters.push_back(tree("param " + std::to_string(i),
                                      type + "  (" + std::to_string(p.bytes) + " B)", true));
            summary.push_back(type);
        }
        children.push_back(
            group(kTree, "Entry parameters", {}, join(summary), std::move(parameters)));
        out.push_back(group(kTree, "PTX", {}, ptx.target, std::move(children)));
    }
    std::vector<Field> files_tree;
    for (const auto& file : kernel.files) {
        files_tree.push_back(tree(file.name, format_bytes(file.size)));
    }
    out.push_back(
        group(kTree, "Files", {},
              std::to_string(kernel.files.size()) + ", " + format_bytes(kernel.total_size()),
              std::move(files_tree)));

    out.push_back(text_row("module (in this dir)",
                           !kernel.module_file.empty() ? kernel.module_file
                           : kernel.module_key.empty()
                               ? "(unknown)"
                               : "none: " + kernel.module_key + ".py is not in this dir"));
    if (!kernel.module_path.empty()) {
        out.push_back(
            text_row("compiled from", kernel.module_path + " (path on the compiling machine)"));
    }
    if (kernel.metadata) {
        const auto& meta = *kernel.metadata;
        out.push_back(
            text_row("num_warps", meta.num_warps ? std::to_string(*meta.num_warps) : "?"));
        out.push_back(
            text_row("num_stages", meta.num_stages ? std::to_string(*meta.num_stages) : "?"));
        out.push_back(text_row("shared memory", std::to_string(meta.shared) + " B"));
        out.push_back(text_row("target", meta.backend + " " + meta.arch));
        out.push_back(text_row("triton", meta.triton_version));
    }
    if (kernel.ptx) {
        std::vector<std::string> params;
        for (const auto& p : kernel.ptx->parameters) {
            params.push_back(p.type + (p.pointer ? " ptr" : ""));
        }
        out.push_back(text_row("entry parameters", join(params)));
    }
    std::vector<Field> file_lines;
    for (const auto& file : kernel.files) {
        file_lines.push_back(
            text_line(pad_right(file.name, 60) + " " + pad_left(format_bytes(file.size), 10)));
    }
    out.push_back(text_section("files", std::move(file_lines)));
    return out;
}

EntryDescription describe_entry(const Entry& entry, const EntryContent& content) {
    EntryDescription description;
    std::vector<Field>& out = description.fields;
    describe_header(out, entry);
    // One handler per entry type and no generic one: a type added to
    // EntryContent without a description here does not compile.
    std::visit(
        Overloaded{
            [&](const FxGraphEntry& fx) { describe_fx_graph(out, fx); },
            [&](const AotAutogradEntry& aot) { describe_aot(out, aot); },
            [&](const ModuleSource& source) { describe_module(out, entry, source); },
            [&](const CppSource& source) { describe_cpp(out, source); },
            [&](const BestConfig& best) { describe_best_config(out, best); },
            [&](const KernelPerf& perf) {
                out.push_back(value_field(kEveryone, "Time", "ms", perf.milliseconds,
                                          milliseconds(perf.milliseconds)));
            },
            [&](const BenchmarkCache& cache) { describe_benchmark_cache(out, cache); },
            [&](const TritonKernelDir& kernel) {
                auto fields = describe_triton_kernel(kernel);
                std::move(fields.begin(), fields.end(), std::back_inserter(out));
            },
            [&](const TritonAutotuneResult& result) {
                describe_triton_autotune(out, entry, result);
            },
            [&](const DynamoProfile& profile) { describe_dynamo_profile(out, profile); },
            [&](const KeyedCacheValue& value) { describe_keyed_value(out, entry, value); },
            [&](const InMemoryCacheContents& cache) { describe_in_memory_cache(out, cache); },
            [&](const pt2::Archive& archive) { describe_pt2(out, archive); },
            [&](const AotiOutputDir& output) { describe_aoti_output(out, output); },
            [&](const PrecompileFile& file) { describe_precompile(out, file); },
            [&](const CompanionFile& file) { describe_companion(out, file); },
            [&](const TextFile& file) { describe_text_file(out, file); },
            [&](const OpaqueFile&) {
                out.push_back(tree("Contents", "not parsed (a compiled library, lock, "
                                               "temporary or unknown file)"));
            },
        },
        content);
    return description;
}

} // namespace cachelens::cachedir
