#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/core/text.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/entry_facts.h>
#include <cachelens/explain/graph_code.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace cachelens::explain {

namespace {

using Aspect = InputChange::Aspect;

constexpr std::size_t kCategories = static_cast<std::size_t>(CauseCategory::Other) + 1;
constexpr std::size_t kListed = 4; // items a cause names before "and N more"

// "a; b; c; d; and 3 more"
std::string listed(const std::vector<std::string>& items) {
    if (items.size() <= kListed + 1) {
        return join(items, "; ");
    }
    const std::vector<std::string> first(items.begin(), items.begin() + kListed);
    return fmt::format("{}; and {} more", join(first, "; "), items.size() - kListed);
}

std::string one_line(std::string_view value, std::size_t limit = 60) {
    std::string out;
    for (char c : value) {
        out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    }
    if (out.size() > limit) {
        out = out.substr(0, limit - 3) + "...";
    }
    return out;
}

// Whether a debug line's name is about the graph's inputs.
bool is_input_attribute(std::string_view name) {
    return name.starts_with("example_inputs[") || name.starts_with("inputs_to_check[");
}

std::string_view attribute_of(std::string_view name) {
    return name.substr(0, name.find('['));
}

std::string_view subkey_of(std::string_view name) {
    const auto open = name.find('[');
    if (open == std::string_view::npos || name.back() != ']') {
        return {};
    }
    return name.substr(open + 1, name.size() - open - 2);
}

CauseCategory category_of_attribute(std::string_view name) {
    const std::string_view attribute = attribute_of(name);
    if (attribute == "gm" || attribute == "user_defined_triton_source" ||
        attribute == "wrapper_ops" || attribute == "wrapper_kernels") {
        return CauseCategory::Graph;
    }
    if (attribute == "fx_kwargs") {
        const std::string_view subkey = subkey_of(name);
        return subkey == "is_backward" || subkey == "is_inference" || subkey == "static_input_idxs"
                   ? CauseCategory::Autograd
                   : CauseCategory::Config;
    }
    if (attribute == "torch_version" || attribute == "system_info" ||
        attribute == "triton_version" || attribute == "cuda_version") {
        return CauseCategory::Environment;
    }
    static constexpr std::array<std::string_view, 16> kConfig = {
        "inductor_config",
        "deterministic_algorithms_settings",
        "cuda_matmul_settings",
        "cache_key_tag",
        "precompile_enabled",
        "post_grad_custom_pre_pass",
        "post_grad_custom_post_pass",
        "joint_custom_pre_pass",
        "joint_custom_post_pass",
        "_pre_fusion_custom_pass",
        "_fuse_ddp_communication_passes",
        "custom_backend_passes",
        "_custom_partitioner_fn",
        "aot_mode",
        "freezing",
        "custom_pass_info",
    };
    if (std::ranges::find(kConfig, attribute) != kConfig.end()) {
        return CauseCategory::Config;
    }
    return CauseCategory::Other;
}

// The absolute paths in a value: a '/' at its start or after a quote, a
// space, '(', '=' or ':', up to a quote, ',', ')' or a space.
std::vector<std::pair<std::size_t, std::size_t>> path_spans(std::string_view value) {
    const auto ends_path = [](char c) {
        return c == '\'' || c == '"' || c == ',' || c == ')' ||
               std::isspace(static_cast<unsigned char>(c)) != 0;
    };
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const bool starts =
            value[i] == '/' && (i == 0 || ends_path(value[i - 1]) || value[i - 1] == '(' ||
                                value[i - 1] == '=' || value[i - 1] == ':');
        if (!starts) {
            continue;
        }
        std::size_t end = i;
        while (end < value.size() && !ends_path(value[end])) {
            ++end;
        }
        spans.emplace_back(i, end);
        i = end;
    }
    return spans;
}

// A value with every absolute path in it replaced by one marker: two values
// equal that way differ only where a file lives (a user name, a temp dir).
std::string without_paths(std::string_view value) {
    std::string out;
    std::size_t at = 0;
    for (const auto& [start, end] : path_spans(value)) {
        out.append(value.substr(at, start - at));
        out += "<path>";
        at = end;
    }
    out.append(value.substr(at));
    return out;
}

// The first path that differs, "before -> after", for the cause's text.
std::string first_differing_path(std::string_view before, std::string_view after) {
    const auto a = path_spans(before);
    const auto b = path_spans(after);
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        const auto left = before.substr(a[i].first, a[i].second - a[i].first);
        const auto right = after.substr(b[i].first, b[i].second - b[i].first);
        if (left != right) {
            return fmt::format("{} -> {}", one_line(left, 50), one_line(right, 50));
        }
    }
    return {};
}

bool differs_only_by_paths(const AttributeDifference& difference) {
    return difference.change == Change::Changed && difference.left && difference.right &&
           difference.left->value != difference.right->value &&
           without_paths(difference.left->value) == without_paths(difference.right->value);
}

std::map<std::string, int> ops_counted(std::string_view value, bool listed) {
    if (!listed) {
        return ops_of(value);
    }
    std::map<std::string, int> ops;
    for (auto& [op, count] : listed_ops(value)) {
        ops[op] += count;
    }
    return ops;
}

std::string graph_text(const AttributeDifference& difference) {
    const bool listed = attribute_of(difference.name) == "wrapper_ops";
    if (!difference.left || !difference.right) {
        return difference.left ? "the graph's code is gone" : "the graph's code is new";
    }
    const auto before = ops_counted(difference.left->value, listed);
    const auto after = ops_counted(difference.right->value, listed);
    std::vector<std::string> added;
    std::vector<std::string> removed;
    const auto count = [](const std::string& op, int n) {
        return n == 1 ? op : fmt::format("{} x{}", op, n);
    };
    for (const auto& [op, n] : after) {
        const auto other = before.find(op);
        const int was = other == before.end() ? 0 : other->second;
        if (n > was) {
            added.push_back(count(op, n - was));
        }
    }
    for (const auto& [op, n] : before) {
        const auto other = after.find(op);
        const int now = other == after.end() ? 0 : other->second;
        if (n > now) {
            removed.push_back(count(op, n - now));
        }
    }
    std::size_t lines = 0;
    for (const auto& line : difference.value_diff) {
        lines += line.op == DiffLine::Op::Same ? 0 : 1;
    }
    if (added.empty() && removed.empty()) {
        return fmt::format("the graph's code changed ({} line{} differ{}), with the same ops",
                           lines, lines == 1 ? "" : "s", lines == 1 ? "s" : "");
    }
    std::vector<std::string> parts;
    if (!added.empty()) {
        parts.push_back("ops added: " + join(added, ", "));
    }
    if (!removed.empty()) {
        parts.push_back("ops removed: " + join(removed, ", "));
    }
    return "the graph's code changed: " + join(parts, "; ");
}

// "benchmark_kernel: False -> True" for a config key; the whole name otherwise.
std::string config_item(const AttributeDifference& difference) {
    const std::string_view name = difference.name;
    const std::string label(attribute_of(name) == "inductor_config" ? subkey_of(name) : name);
    if (difference.change == Change::OnlyLeft) {
        return label + " (only before)";
    }
    if (difference.change == Change::OnlyRight) {
        return label + " (new)";
    }
    return fmt::format("{}: {} -> {}", label, one_line(difference.left->value, 40),
                       one_line(difference.right->value, 40));
}

// The GPU's name in a `system_info[device]` value ({'name': 'NVIDIA H100 ...'}).
std::optional<std::string> device_name(std::string_view value) {
    constexpr std::string_view kName = "'name': '";
    const auto at = value.find(kName);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    const auto start = at + kName.size();
    const auto end = value.find('\'', start);
    if (end == std::string_view::npos) {
        return std::nullopt;
    }
    return std::string(value.substr(start, end - start));
}

std::string environment_item(const AttributeDifference& difference) {
    const std::string_view name = difference.name;
    if (name == "system_info[device]" && difference.left && difference.right) {
        const auto before = device_name(difference.left->value);
        const auto after = device_name(difference.right->value);
        if (before && after) {
            return fmt::format("GPU: {} -> {}", one_line(*before), one_line(*after));
        }
        return "the device";
    }
    if (name == "system_info[version]") {
        return "Triton or CUDA version";
    }
    if (name == "system_info[hash]") {
        return "system hash (torch, Triton, CUDA and the GPU together)";
    }
    if (name == "torch_version") {
        return "torch version";
    }
    return std::string(name);
}

struct InputNames {
    std::set<std::string> before; // example_inputs[i] names of the left inputs
    std::set<std::string> after;
};

// "input 2" (the after side's index when the input is there), "input 2 (was 0)".
std::string input_label(const AlignedInput& pair) {
    if (pair.right && pair.left && *pair.left != *pair.right) {
        return fmt::format("input {} (input {} before)", *pair.right, *pair.left);
    }
    return fmt::format("input {}", pair.right ? *pair.right : *pair.left);
}

// What the input lines say, by category: "input 1: dim 0: 256 -> 4096".
struct InputCauses {
    std::array<std::vector<std::string>, kCategories> items;
    // SymInt inputs added or removed for a dim that became dynamic or
    // static: "SymInt input 0 (s72) added".
    std::vector<std::string> follow;
    // Other SymInt inputs added or removed: "input 3 added (SymInt s52)".
    std::vector<std::string> symints;
};

CauseCategory category_of_aspect(Aspect aspect) {
    switch (aspect) {
    case Aspect::BecameDynamic:
    case Aspect::BecameStatic:
        return CauseCategory::Dynamic;
    case Aspect::Kind:
    case Aspect::Value:
    case Aspect::Rank:
    case Aspect::Size:
    case Aspect::Moved:
    case Aspect::Added:
    case Aspect::Removed:
        return CauseCategory::Shapes;
    case Aspect::Dtype:
        return CauseCategory::Dtypes;
    case Aspect::Device:
        return CauseCategory::Device;
    case Aspect::Layout:
    case Aspect::Stride:
    case Aspect::Field:
        return CauseCategory::Layout;
    case Aspect::RequiresGrad:
        return CauseCategory::Autograd;
    }
    return CauseCategory::Other;
}

InputCauses input_causes(const std::vector<ExampleInput>& before,
                         const std::vector<ExampleInput>& after,
                         const std::vector<AlignedInput>& aligned) {
    InputCauses causes;
    struct SameChange {
        std::string what; // "float32 -> float16"
        std::vector<std::size_t> inputs;
    };
    std::array<std::vector<SameChange>, kCategories> same_change;
    // The symbols of dims that became dynamic (after) or static (before):
    // a SymInt input added or removed for one of them follows from it.
    std::set<std::string> dynamic_symbols;
    for (const auto& pair : aligned) {
        for (const auto& change : pair.changes) {
            if (!change.dim) {
                continue;
            }
            if (change.aspect == Aspect::BecameDynamic && pair.right) {
                const auto& shape = after[*pair.right].shape;
                if (*change.dim < shape.size()) {
                    std::ranges::copy(size_symbols(shape[*change.dim]),
                                      std::inserter(dynamic_symbols, dynamic_symbols.end()));
                }
            } else if (change.aspect == Aspect::BecameStatic && pair.left) {
                const auto& shape = before[*pair.left].shape;
                if (*change.dim < shape.size()) {
                    std::ranges::copy(size_symbols(shape[*change.dim]),
                                      std::inserter(dynamic_symbols, dynamic_symbols.end()));
                }
            }
        }
    }
    const auto follows = [&](const ExampleInput& input) {
        if (input.kind != ExampleInput::Kind::SymInt || dynamic_symbols.empty()) {
            return false;
        }
        const auto symbols = size_symbols(input.expression);
        return !symbols.empty() && std::ranges::all_of(symbols, [&](const std::string& symbol) {
            return dynamic_symbols.contains(symbol);
        });
    };
    for (const auto& pair : aligned) {
        if (!pair.changed()) {
            continue;
        }
        if (pair.added() || pair.removed()) {
            const ExampleInput& input = pair.added() ? after[*pair.right] : before[*pair.left];
            if (follows(input)) {
                causes.follow.push_back(fmt::format("SymInt {} ({}) {}", input_label(pair),
                                                    input.expression,
                                                    pair.added() ? "added" : "removed"));
                continue;
            }
            auto text = fmt::format("{} {} ({})", input_label(pair),
                                    pair.added() ? "added" : "removed", input.describe());
            if (input.kind == ExampleInput::Kind::SymInt) {
                causes.symints.push_back(std::move(text));
            } else {
                causes.items[static_cast<std::size_t>(CauseCategory::Shapes)].push_back(
                    std::move(text));
            }
            continue;
        }
        std::array<std::vector<std::string>, kCategories> per_category;
        for (const auto& change : pair.changes) {
            const auto category = category_of_aspect(change.aspect);
            if (category == CauseCategory::Dtypes || category == CauseCategory::Device) {
                // The same change on several inputs is said once: "inputs 0, 1: ...".
                const std::string_view text = change.text;
                const std::string what(text.substr(text.find(": ") + 2));
                auto& groups = same_change[static_cast<std::size_t>(category)];
                auto found = std::ranges::find(groups, what, &SameChange::what);
                if (found == groups.end()) {
                    groups.push_back({what, {}});
                    found = std::prev(groups.end());
                }
                found->inputs.push_back(pair.right.value_or(pair.left.value_or(0)));
                continue;
            }
            per_category[static_cast<std::size_t>(category)].push_back(change.text);
        }
        for (std::size_t c = 0; c < kCategories; ++c) {
            if (per_category[c].empty()) {
                continue;
            }
            if (c == static_cast<std::size_t>(CauseCategory::Dynamic)) {
                // "dim 0 of input 2 became dynamic (4 -> s72)"
                for (const auto& change : pair.changes) {
                    if (change.aspect != Aspect::BecameDynamic &&
                        change.aspect != Aspect::BecameStatic) {
                        continue;
                    }
                    const auto& a = before[*pair.left].shape;
                    const auto& b = after[*pair.right].shape;
                    const std::size_t dim = change.dim.value_or(0);
                    causes.items[c].push_back(
                        fmt::format("dim {} of {} became {} ({} -> {})", dim, input_label(pair),
                                    change.aspect == Aspect::BecameDynamic ? "dynamic" : "static",
                                    dim < a.size() ? a[dim] : "?", dim < b.size() ? b[dim] : "?"));
                }
                continue;
            }
            causes.items[c].push_back(
                fmt::format("{}: {}", input_label(pair), join(per_category[c], ", ")));
        }
    }
    for (std::size_t c = 0; c < kCategories; ++c) {
        for (const auto& [what, inputs] : same_change[c]) {
            std::vector<std::string> numbers;
            for (const auto input : inputs) {
                numbers.push_back(std::to_string(input));
            }
            causes.items[c].push_back(fmt::format("input{} {}: {}", inputs.size() == 1 ? "" : "s",
                                                  join(numbers, ", "), what));
        }
    }
    return causes;
}

std::string input_cause_text(CauseCategory category, const std::vector<std::string>& items,
                             const InputCauses& inputs) {
    switch (category) {
    case CauseCategory::Dynamic: {
        std::vector<std::string> parts;
        if (!items.empty()) {
            parts.push_back(listed(items));
        }
        if (!inputs.follow.empty()) {
            parts.push_back(fmt::format("{} with {}", listed(inputs.follow),
                                        items.size() == 1 ? "it" : "them"));
        }
        if (!inputs.symints.empty()) {
            parts.push_back((items.empty() ? "SymInt inputs changed: " : "") +
                            listed(inputs.symints));
        }
        return join(parts, "; ");
    }
    case CauseCategory::Shapes:
        return "input shapes changed: " + listed(items);
    case CauseCategory::Dtypes:
        return "input dtypes changed: " + listed(items);
    case CauseCategory::Device:
        return "input devices changed: " + listed(items);
    case CauseCategory::Layout:
        return "input layouts changed: " + listed(items);
    case CauseCategory::Autograd:
        return "inputs' requires_grad changed: " + listed(items);
    default:
        return listed(items);
    }
}

std::string autograd_item(const AttributeDifference& difference) {
    const auto value = [](const std::optional<cachedir::DebugLine>& line) {
        return line ? one_line(line->value, 40) : std::string("absent");
    };
    const std::string_view subkey = subkey_of(difference.name);
    if (subkey == "is_backward" && difference.left && difference.right) {
        return difference.right->value == "True" ? "a forward graph before, a backward graph now"
                                                 : "a backward graph before, a forward graph now";
    }
    if (subkey == "is_inference" && difference.left && difference.right) {
        return difference.right->value == "True"
                   ? "compiled for training before, for inference now"
                   : "compiled for inference before, for training now";
    }
    return fmt::format("{}: {} -> {}", difference.name, value(difference.left),
                       value(difference.right));
}

} // namespace

std::string_view to_string(CauseCategory category) {
    switch (category) {
    case CauseCategory::Dynamic:
        return "dynamic";
    case CauseCategory::Shapes:
        return "shapes";
    case CauseCategory::Dtypes:
        return "dtypes";
    case CauseCategory::Device:
        return "device";
    case CauseCategory::Layout:
        return "layout";
    case CauseCategory::Autograd:
        return "autograd";
    case CauseCategory::Graph:
        return "graph";
    case CauseCategory::Config:
        return "config";
    case CauseCategory::Environment:
        return "environment";
    case CauseCategory::Paths:
        return "paths";
    case CauseCategory::Other:
        return "other";
    }
    return "other";
}

KeyCauses explain_causes(const KeyDiff& diff, const std::vector<ExampleInput>& before,
                         const std::vector<ExampleInput>& after,
                         const std::vector<AlignedInput>& aligned) {
    struct Group {
        std::vector<std::string> items;
        std::vector<std::string> attributes;
    };
    std::array<Group, kCategories> groups;
    const auto group = [&](CauseCategory category) -> Group& {
        return groups[static_cast<std::size_t>(category)];
    };

    std::vector<std::string> input_attributes;
    for (const auto& difference : diff.differences) {
        if (is_input_attribute(difference.name)) {
            input_attributes.push_back(difference.name);
        }
    }
    // The inputs are a cause only where their lines' hashes differ: equal
    // hashes are equal pickles, whatever the text says.
    const InputCauses inputs =
        input_attributes.empty() ? InputCauses{} : input_causes(before, after, aligned);
    for (std::size_t c = 0; c < kCategories; ++c) {
        groups[c].items = inputs.items[c];
    }
    auto& dynamic = group(CauseCategory::Dynamic).items;
    dynamic.insert(dynamic.end(), inputs.symints.begin(), inputs.symints.end());
    std::string graph;
    for (const auto& difference : diff.differences) {
        if (is_input_attribute(difference.name)) {
            continue;
        }
        if (differs_only_by_paths(difference)) {
            auto& paths = group(CauseCategory::Paths);
            const std::string where =
                first_differing_path(difference.left->value, difference.right->value);
            paths.items.push_back(where.empty() ? difference.name
                                                : difference.name + " (" + where + ")");
            paths.attributes.push_back(difference.name);
            continue;
        }
        const CauseCategory category = category_of_attribute(difference.name);
        auto& target = group(category);
        target.attributes.push_back(difference.name);
        switch (category) {
        case CauseCategory::Graph:
            if (graph.empty() && (attribute_of(difference.name) == "gm" ||
                                  attribute_of(difference.name) == "wrapper_ops")) {
                graph = graph_text(difference);
            } else {
                target.items.push_back(attribute_of(difference.name) == "wrapper_kernels"
                                           ? std::string("the kernels it launches")
                                           : difference.name);
            }
            break;
        case CauseCategory::Config:
            target.items.push_back(config_item(difference));
            break;
        case CauseCategory::Environment:
            target.items.push_back(environment_item(difference));
            break;
        case CauseCategory::Autograd:
            target.items.push_back(autograd_item(difference));
            break;
        default:
            target.items.push_back(difference.name);
            break;
        }
    }

    // The input lines that differ go with the first input cause: the rest
    // of them only moved along with it. Without one (a value PyTorch prints
    // the same way twice) they are a cause of their own.
    std::optional<std::size_t> first_input_cause;
    for (const CauseCategory category :
         {CauseCategory::Dynamic, CauseCategory::Shapes, CauseCategory::Dtypes,
          CauseCategory::Device, CauseCategory::Layout, CauseCategory::Autograd}) {
        if (!inputs.items[static_cast<std::size_t>(category)].empty() ||
            (category == CauseCategory::Dynamic && !inputs.symints.empty())) {
            first_input_cause = static_cast<std::size_t>(category);
            break;
        }
    }
    if (!input_attributes.empty()) {
        if (first_input_cause) {
            auto& attributes = groups[*first_input_cause].attributes;
            attributes.insert(attributes.begin(), input_attributes.begin(), input_attributes.end());
        } else {
            auto& other = group(CauseCategory::Other);
            other.items.insert(other.items.end(), input_attributes.begin(), input_attributes.end());
            other.attributes.insert(other.attributes.end(), input_attributes.begin(),
                                    input_attributes.end());
        }
    }

    KeyCauses out;
    for (std::size_t c = 0; c < kCategories; ++c) {
        const auto category = static_cast<CauseCategory>(c);
        Group& g = groups[c];
        if (g.items.empty() && graph.empty()) {
            continue;
        }
        std::string text;
        switch (category) {
        case CauseCategory::Dynamic:
        case CauseCategory::Shapes:
        case CauseCategory::Dtypes:
        case CauseCategory::Device:
        case CauseCategory::Layout:
            if (g.items.empty()) {
                continue;
            }
            text = input_cause_text(category, inputs.items[c], inputs);
            break;
        case CauseCategory::Autograd:
            if (g.items.empty()) {
                continue;
            }
            text = listed(g.items);
            break;
        case CauseCategory::Graph:
            if (graph.empty() && g.items.empty()) {
                continue;
            }
            text = graph.empty() ? "the graph changed: " + listed(g.items)
                                 : (g.items.empty() ? graph : graph + "; " + listed(g.items));
            break;
        case CauseCategory::Config:
            if (g.items.empty()) {
                continue;
            }
            // Inductor's own keys are what a user sets (torch._inductor.config).
            text = std::ranges::all_of(
                       g.attributes,
                       [](const std::string& name) { return name.starts_with("inductor_config["); })
                       ? "the Inductor config changed: " + listed(g.items)
                       : "the compile options changed: " + listed(g.items);
            break;
        case CauseCategory::Environment:
            if (g.items.empty()) {
                continue;
            }
            text = "the environment changed: " + listed(g.items);
            break;
        case CauseCategory::Paths:
            if (g.items.empty()) {
                continue;
            }
            text = "only file paths differ: " + listed(g.items);
            break;
        case CauseCategory::Other:
            if (g.items.empty()) {
                continue;
            }
            text = "other key inputs changed: " + listed(g.items);
            break;
        }
        out.causes.push_back({category, std::move(text), std::move(g.attributes)});
    }

    if (out.causes.empty()) {
        out.verdict = "The two keys are the same";
        return out;
    }
    out.verdict = "Missed because " + out.causes.front().text;
    if (out.causes.size() > 1) {
        std::vector<std::string> others;
        for (std::size_t i = 1; i < out.causes.size(); ++i) {
            others.emplace_back(to_string(out.causes[i].category));
        }
        out.verdict += "; also: " + join(others, ", ");
    }
    return out;
}

double graph_similarity(std::span<const std::string_view> a, std::span<const std::string_view> b) {
    return op_similarity(op_names(graph_code_of(a)), op_names(graph_code_of(b)));
}

void mark_other_graph(KeyCauses& causes) {
    constexpr std::string_view kMissedBecause = "Missed because ";
    if (causes.verdict.starts_with(kMissedBecause)) {
        causes.verdict = "Another graph, not this one compiled before; it differs: " +
                         causes.verdict.substr(kMissedBecause.size());
    }
}

PairExplained explain_pair(std::span<const std::string_view> before,
                           std::span<const std::string_view> after) {
    PairExplained out;
    out.diff = diff_keys(before, after);
    out.before_inputs = example_inputs_of(before);
    out.after_inputs = example_inputs_of(after);
    out.inputs = align_inputs(out.before_inputs, out.after_inputs);
    out.causes = explain_causes(out.diff, out.before_inputs, out.after_inputs, out.inputs);
    // "Another graph" is said on evidence only: not of two graphs whose ops
    // neither key records.
    out.same_graph = !other_family(graph_shape_of(before), graph_shape_of(after));
    if (!out.same_graph) {
        mark_other_graph(out.causes);
    }
    return out;
}

KeyCauses explain_causes(std::span<const std::string_view> before,
                         std::span<const std::string_view> after) {
    return explain_pair(before, after).causes;
}

void settle_verdict(KeyCauses& causes, bool same_key, bool from_facts,
                    std::string_view written_by) {
    constexpr std::string_view kSame = "The two keys are the same";
    if (same_key) {
        causes.verdict = std::string(kSame);
        causes.held.clear();
        return;
    }
    const bool nothing_differs = causes.verdict == kSame;
    if (from_facts) {
        causes.held =
            nothing_differs
                ? "What the entries hold is the same (inputs, ops, kernels, config): what "
                  "changed is in what only the key records"
                : "From what the entries hold: " +
                      (causes.verdict.empty()
                           ? std::string()
                           : static_cast<char>(
                                 std::tolower(static_cast<unsigned char>(causes.verdict.front()))) +
                                 causes.verdict.substr(1));
        causes.verdict = unrecorded_inputs_line(written_by);
    } else if (nothing_differs) {
        causes.verdict = "The keys differ, but no debug line does: an input PyTorch hashes "
                         "without logging it changed";
    }
}

PairExplained explain_entries(const cachedir::FxGraphEntry& before,
                              const cachedir::FxGraphEntry& after) {
    // Debug lines against the facts of an entry without them would differ
    // everywhere: either lacking them, both are compared by what they hold.
    const bool from_facts = before.debug_lines.empty() || after.debug_lines.empty();
    auto owned = std::make_shared<std::pair<std::vector<std::string>, std::vector<std::string>>>();
    std::vector<std::string_view> left(before.debug_lines);
    std::vector<std::string_view> right(after.debug_lines);
    if (from_facts) {
        owned->first = recorded_key_facts(before);
        owned->second = recorded_key_facts(after);
        left.assign(owned->first.begin(), owned->first.end());
        right.assign(owned->second.begin(), owned->second.end());
    }
    PairExplained out = explain_pair(left, right);
    out.from_facts = from_facts;
    out.before_lines = std::move(left);
    out.after_lines = std::move(right);
    out.keep_alive = std::shared_ptr<const void>(
        std::make_shared<std::tuple<decltype(owned), std::shared_ptr<const pickle::Document>,
                                    std::shared_ptr<const pickle::Document>>>(
            owned, before.document, after.document));
    settle_verdict(out.causes, before.key == after.key, from_facts,
                   before.debug_lines.empty() ? before.written_by : after.written_by);
    return out;
}

Result<cachedir::FxGraphEntry> load_graph_to_compare(const std::filesystem::path& root,
                                                     const cachedir::Entry& entry) {
    if (entry.kind == cachedir::FileKind::AotAutograd) {
        std::string graphs;
        if (auto aot = cachedir::load_aot_autograd_entry(root / entry.path)) {
            if (aot->forward) {
                graphs += " forward " + aot->forward->key;
            }
            if (aot->backward) {
                graphs += " backward " + aot->backward->key;
            }
        }
        return fail(ErrorKind::InvalidArgument,
                    entry.path +
                        " is an AOTAutograd entry, which stores no debug lines; ask about its FX "
                        "graphs:" +
                        (graphs.empty() ? std::string(" (none recorded)") : graphs),
                    root.string());
    }
    if (entry.kind != cachedir::FileKind::FxGraph) {
        return fail(ErrorKind::InvalidArgument,
                    entry.path + " is a " + std::string(cachedir::to_string(entry.kind)) +
                        ", not an FX graph entry: only FX graph keys have debug lines",
                    root.string());
    }
    return cachedir::load_fx_graph_entry(root / entry.path);
}

Result<GraphArgument> find_graph_to_compare(const cachedir::Scan& scan, std::string_view query) {
    auto found = cachedir::resolve_entries(scan, query);
    if (!found) {
        return std::unexpected(std::move(found.error()));
    }
    const auto& matches = *found;
    if (matches.size() > 1) {
        std::string paths;
        for (const auto& entry : matches) {
            paths += "\n  " + entry.path;
        }
        return fail(ErrorKind::InvalidArgument,
                    "'" + std::string(query) + "' names " + std::to_string(matches.size()) +
                        " entries; give one by its path:" + paths,
                    scan.root.string());
    }
    auto fx = load_graph_to_compare(scan.root, matches.front());
    if (!fx) {
        return std::unexpected(std::move(fx.error()));
    }
    return GraphArgument{matches.front(), std::move(*fx)};
}

} // namespace cachelens::explain
