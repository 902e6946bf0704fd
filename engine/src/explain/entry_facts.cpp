#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/text.h>
#include <cachelens/explain/entry_facts.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/repr.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_map>

namespace cachelens::explain {

namespace {

using pickle::Kind;
using pickle::Value;

// The Inductor config values a kernel's inductor_meta carries (codegen/
// triton.py inductor_meta_common and the heuristics' options): what is left
// in an entry of the config its key hashed. Per-kernel fields (kernel_name,
// num_load, ...) are not config.
constexpr std::array kKernelConfigNames = {
    std::string_view("are_deterministic_algorithms_enabled"),
    std::string_view("assert_indirect_indexing"),
    std::string_view("autotune_local_cache"),
    std::string_view("autotune_pointwise"),
    std::string_view("autotune_remote_cache"),
    std::string_view("force_disable_caches"),
    std::string_view("dynamic_scale_rblock"),
    std::string_view("max_autotune"),
    std::string_view("max_autotune_pointwise"),
    std::string_view("min_split_scan_rblock"),
    std::string_view("spill_threshold"),
    std::string_view("store_cubin"),
    std::string_view("coordinate_descent_tuning"),
    std::string_view("coordinate_descent_search_radius"),
    std::string_view("coordinate_descent_check_all_directions"),
    std::string_view("deterministic"),
    std::string_view("force_filter_reduction_configs"),
    std::string_view("benchmark_kernel"),
    std::string_view("profile_bandwidth"),
    std::string_view("profile_bandwidth_regex"),
    std::string_view("profile_bandwidth_with_do_bench_using_profiling"),
};

std::string line_of(std::string_view attribute, std::string_view value) {
    return "[" + hash::sha256_hash(value) + "] " + std::string(attribute) + ": " +
           std::string(value);
}

// "BoxedBool(value=True)" for an object built with a state dict, as the
// dataclass's repr in a debug line prints it; repr() for the rest.
std::string value_text(const Value& value) {
    if (value.is(Kind::Object) && value.state() != nullptr && value.state()->is(Kind::Dict)) {
        std::string name = value.class_name();
        name = name.substr(name.rfind('.') + 1);
        std::string fields;
        for (const auto& item : value.state()->dict_items()) {
            if (const auto key = pickle::str_of(item.key)) {
                fields += (fields.empty() ? "" : ", ") + std::string(*key) + "=" +
                          pickle::repr(*item.value);
            }
        }
        return name + "(" + fields + ")";
    }
    return pickle::repr(value);
}

// The text between `(` at `open` and its matching `)`, brackets counted.
std::string_view bracketed(std::string_view text, std::size_t open) {
    int depth = 0;
    for (std::size_t at = open; at < text.size(); ++at) {
        const char c = text[at];
        depth += c == '(' || c == '[' || c == '{';
        depth -= c == ')' || c == ']' || c == '}';
        if (depth == 0) {
            return text.substr(open + 1, at - open - 1);
        }
    }
    return {};
}

// Splits `a, (b, c), d` at its top-level commas.
std::vector<std::string_view> top_level_items(std::string_view list) {
    std::vector<std::string_view> items;
    int depth = 0;
    std::size_t begin = 0;
    for (std::size_t at = 0; at <= list.size(); ++at) {
        const char c = at < list.size() ? list[at] : ',';
        depth += c == '(' || c == '[' || c == '{';
        depth -= c == ')' || c == ']' || c == '}';
        if (c == ',' && depth == 0) {
            const std::string_view item = trim_space(list.substr(begin, at - begin));
            if (!item.empty()) {
                items.push_back(item);
            }
            begin = at + 1;
        }
    }
    return items;
}

// "(2, 1152)" -> "2, 1152"; "(6912, )" -> "6912".
std::string sizes_of(std::string_view tuple) {
    std::string out;
    for (const auto item : top_level_items(
             trim_space(tuple).starts_with('(') ? bracketed(trim_space(tuple), 0) : tuple)) {
        out += (out.empty() ? "" : ", ") + std::string(item);
    }
    return out;
}

std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        lines.push_back(
            text.substr(start, end == std::string_view::npos ? text.size() - start : end - start));
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }
    return lines;
}

struct BenchmarkInput {
    std::string shape, stride, device, dtype; // a tensor
    std::string integer;                      // or an int
};

// `name = rand_strided((2, 1152), (1152, 1), device='cuda:0', dtype=torch.bfloat16)`
// and `name = 7` in benchmark_compiled_module (or get_args()).
std::unordered_map<std::string, BenchmarkInput>
benchmark_inputs(const std::vector<std::string_view>& lines) {
    std::unordered_map<std::string, BenchmarkInput> inputs;
    bool inside = false;
    for (const auto line : lines) {
        if (line.starts_with("def ")) {
            inside = line.starts_with("def benchmark_compiled_module(") ||
                     line.starts_with("def get_args(");
            continue;
        }
        if (!inside || !line.starts_with("    ")) {
            continue;
        }
        const std::string_view statement = trim_space(line);
        const auto equals = statement.find(" = ");
        if (equals == std::string_view::npos) {
            continue;
        }
        const std::string name(statement.substr(0, equals));
        const std::string_view value = statement.substr(equals + 3);
        BenchmarkInput input;
        if (value.starts_with("rand_strided(")) {
            const auto args = top_level_items(bracketed(value, value.find('(')));
            for (std::size_t i = 0; i < args.size(); ++i) {
                const std::string_view arg = args[i];
                if (i == 0 && !arg.contains('=')) {
                    input.shape = sizes_of(arg);
                } else if (i == 1 && !arg.contains('=')) {
                    input.stride = sizes_of(arg);
                } else if (arg.starts_with("device=")) {
                    input.device = std::string(arg.substr(7));
                } else if (arg.starts_with("dtype=")) {
                    input.dtype = std::string(arg.substr(6));
                }
            }
        } else if (!value.empty() && std::ranges::all_of(value, [](char c) {
                       return (c >= '0' && c <= '9') || c == '-';
                   })) {
            input.integer = std::string(value);
        } else {
            continue;
        }
        inputs.emplace(name, std::move(input));
    }
    return inputs;
}

// "device(type='cuda', index=0)" for 'cuda:0'.
std::string device_text(std::string_view quoted) {
    std::string_view device = quoted;
    if (device.size() >= 2 && (device.front() == '\'' || device.front() == '"')) {
        device = device.substr(1, device.size() - 2);
    }
    const auto colon = device.find(':');
    if (colon == std::string_view::npos) {
        return fmt::format("device(type='{}')", device);
    }
    return fmt::format("device(type='{}', index={})", device.substr(0, colon),
                       device.substr(colon + 1));
}

// example_inputs[i] for the inputs call(args) unpacks, in order.
void add_example_inputs(std::string_view source, std::vector<std::string>& out) {
    const auto lines = lines_of(source);
    std::vector<std::string> names;
    std::unordered_map<std::string, std::string> symbol_of; // input -> its size symbol
    std::unordered_map<std::string, std::pair<std::string, std::string>> asserted;
    bool in_call = false;
    for (const auto line : lines) {
        const std::string_view statement = trim_space(line);
        if (statement.starts_with("def call(")) {
            in_call = names.empty();
            continue;
        }
        if (!in_call) {
            continue;
        }
        if (statement.starts_with("def ")) {
            break;
        }
        if (names.empty() && statement.ends_with(" = args")) {
            for (const auto name : top_level_items(statement.substr(0, statement.size() - 7))) {
                names.emplace_back(name);
            }
            continue;
        }
        // `s0 = arg0_1`: the input is a size, the graph's symbol s0.
        if (const auto equals = statement.find(" = ");
            equals != std::string_view::npos && statement.starts_with('s') &&
            std::ranges::all_of(statement.substr(1, equals - 1),
                                [](char c) { return c >= '0' && c <= '9'; })) {
            symbol_of[std::string(statement.substr(equals + 3))] =
                std::string(statement.substr(0, equals));
            continue;
        }
        if (statement.starts_with("assert_size_stride(")) {
            const auto args = top_level_items(bracketed(statement, statement.find('(')));
            if (args.size() >= 3) {
                asserted[std::string(args[0])] = {sizes_of(args[1]), sizes_of(args[2])};
            }
        }
    }
    const auto benchmarks = benchmark_inputs(lines);
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string& name = names[i];
        const auto bench = benchmarks.find(name);
        const auto sizes = asserted.find(name);
        std::string value;
        if (const auto symbol = symbol_of.find(name); symbol != symbol_of.end()) {
            value = fmt::format("('{}',)", symbol->second);
        } else if (sizes != asserted.end() ||
                   (bench != benchmarks.end() && !bench->second.shape.empty())) {
            const std::string shape =
                sizes != asserted.end() ? sizes->second.first : bench->second.shape;
            const std::string stride =
                sizes != asserted.end() ? sizes->second.second : bench->second.stride;
            std::string fields;
            if (bench != benchmarks.end() && !bench->second.dtype.empty()) {
                fields = "dtype=" + bench->second.dtype + ", ";
            }
            fields += "shape=torch.Size([" + shape + "]), stride=(" + stride +
                      (stride.contains(',') || stride.empty() ? ")" : ",)");
            if (bench != benchmarks.end() && !bench->second.device.empty()) {
                fields += ", device=" + device_text(bench->second.device);
            }
            value = "TensorMetadata(" + fields + ")";
        } else if (bench != benchmarks.end() && !bench->second.integer.empty()) {
            value = fmt::format("('{}',)", bench->second.integer);
        } else {
            continue;
        }
        out.push_back(line_of(fmt::format("example_inputs[{}]", i), value));
    }
}

// The ATen ops of the wrapper's "Original ATen: [aten.mm, aten.add]"
// comments (2.1 on) and its extern kernel calls, and the kernels call()
// launches.
void add_graph_facts(std::string_view source, std::vector<std::string>& out) {
    std::map<std::string, int> ops;
    std::set<std::string> kernels;
    constexpr std::string_view kAten = "Original ATen: [";
    constexpr std::string_view kExtern = "extern_kernels.";
    for (const auto line : lines_of(source)) {
        const std::string_view statement = trim_space(line);
        if (statement.starts_with("#")) {
            if (const auto at = statement.find(kAten); at != std::string_view::npos) {
                const std::string_view list = statement.substr(at + kAten.size());
                for (const auto op : top_level_items(list.substr(0, list.find(']')))) {
                    ++ops[std::string(op)];
                }
            }
            continue;
        }
        if (const auto at = statement.find(kExtern); at != std::string_view::npos) {
            const std::string_view rest = statement.substr(at + kExtern.size());
            const auto open = rest.find('(');
            if (open != std::string_view::npos && open > 0) {
                ++ops["extern " + std::string(rest.substr(0, open))];
            }
        }
        // `triton_poi_fused_add_0.run(...)`: a kernel launched.
        if (const auto run = statement.find(".run("); run != std::string_view::npos) {
            std::size_t begin = run;
            while (begin > 0 && (std::isalnum(static_cast<unsigned char>(statement[begin - 1])) ||
                                 statement[begin - 1] == '_')) {
                --begin;
            }
            if (begin < run) {
                kernels.emplace(statement.substr(begin, run - begin));
            }
        }
    }
    if (!ops.empty()) {
        std::string value;
        for (const auto& [op, count] : ops) {
            value +=
                (value.empty() ? "" : ", ") + op + (count > 1 ? fmt::format(" x{}", count) : "");
        }
        out.push_back(line_of("wrapper_ops", value));
    }
    if (!kernels.empty()) {
        std::string value;
        for (const auto& kernel : kernels) {
            value += (value.empty() ? "" : ", ") + kernel;
        }
        out.push_back(line_of("wrapper_kernels", value));
    }
}

// The config values and backend hash the first kernel recorded, and what the
// bundled kernels' metadata says of Triton and the GPU.
void add_kernel_facts(const cachedir::FxGraphEntry& fx, std::vector<std::string>& out) {
    if (auto module = cachedir::parse_kernel_module(fx.source_code, fx.document)) {
        for (const auto& kernel : module->kernels) {
            if (!kernel.inductor_meta) {
                continue;
            }
            const Value& meta = kernel.inductor_meta->root();
            for (const auto name : kKernelConfigNames) {
                if (const Value* value = meta.find(name)) {
                    out.push_back(
                        line_of(fmt::format("inductor_config[{}]", name), pickle::repr(*value)));
                }
            }
            if (const auto backend = pickle::str_of(meta.find("backend_hash"))) {
                out.push_back(line_of("system_info[backend_hash]", *backend));
            }
            break;
        }
    }
    // The machine its kernels were compiled for, as scan and preflight read
    // it: the bundle's Triton metadata, else its wrapper's DeviceProperties.
    const cachedir::Fingerprint machine = cachedir::fingerprint_of(fx);
    if (!machine.triton_targets.empty()) {
        out.push_back(line_of("system_info[triton_target]", join(machine.triton_targets)));
    }
    if (!machine.triton_versions.empty()) {
        out.push_back(line_of("triton_version", join(machine.triton_versions)));
    }
}

} // namespace

std::vector<std::string> recorded_key_facts(const cachedir::FxGraphEntry& fx) {
    std::vector<std::string> out;
    if (const Value* kwargs = fx.attribute("fx_kwargs");
        kwargs != nullptr && kwargs->is(Kind::Dict)) {
        std::vector<std::pair<std::string, std::string>> items;
        for (const auto& item : kwargs->dict_items()) {
            // PyTorch leaves graph_id, a counter, out of the key (EXCLUDED_KWARGS).
            if (const auto name = pickle::str_of(item.key); name && *name != "graph_id") {
                items.emplace_back(std::string(*name), value_text(*item.value));
            }
        }
        std::ranges::sort(items); // PyTorch writes them sorted by name
        for (const auto& [name, value] : items) {
            out.push_back(line_of("fx_kwargs[" + name + "]", value));
        }
    }
    add_example_inputs(fx.source_code, out);
    add_graph_facts(fx.source_code, out);
    add_kernel_facts(fx, out);
    return out;
}

ComparedLines lines_to_compare(const cachedir::FxGraphEntry& fx) {
    ComparedLines out;
    if (!fx.debug_lines.empty()) {
        out.lines = fx.debug_lines;
        out.keep_alive = fx.document;
        return out;
    }
    struct Owned {
        std::shared_ptr<const pickle::Document> document;
        std::vector<std::string> lines;
    };
    auto owned = std::make_shared<Owned>(Owned{fx.document, recorded_key_facts(fx)});
    out.lines.assign(owned->lines.begin(), owned->lines.end());
    out.from_facts = true;
    out.keep_alive = std::move(owned);
    return out;
}

std::string unrecorded_inputs_line(std::string_view written_by) {
    return fmt::format("PyTorch {} stores no debug lines in its entries: which input changed "
                       "cannot be read from the cache; run with TORCH_TRACE and `cachelens trace`",
                       written_by);
}

std::vector<std::pair<std::string, int>> listed_ops(std::string_view value) {
    std::vector<std::pair<std::string, int>> ops;
    for (const auto item : top_level_items(value)) {
        const auto times = item.rfind(" x");
        int count = 1;
        std::string_view name = item;
        if (times != std::string_view::npos && times + 2 < item.size() &&
            std::ranges::all_of(item.substr(times + 2),
                                [](char c) { return c >= '0' && c <= '9'; })) {
            count = std::stoi(std::string(item.substr(times + 2)));
            name = item.substr(0, times);
        }
        ops.emplace_back(std::string(name), count);
    }
    return ops;
}

} // namespace cachelens::explain
