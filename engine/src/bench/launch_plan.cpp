#include <cachelens/bench/launch_plan.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/mapped_file.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace cachelens::bench {

namespace {

namespace fs = std::filesystem;
using cachedir::BestConfig;
using cachedir::CompiledCandidate;
using cachedir::ConfigValue;
using cachedir::FileKind;
using cachedir::FxGraphEntry;
using cachedir::HarnessArg;
using cachedir::KernelConfig;
using cachedir::KernelDefinition;
using cachedir::PtxInfo;
using cachedir::same_config;
using cachedir::SignatureEntry;
using cachedir::TritonKernelArtifacts;
using cachedir::TritonKernelDir;
using cachedir::TritonMetadata;

// Why a candidate cannot be planned, in words for the user.
template <class T>
using Plannable = std::expected<T, std::string>;

std::unexpected<std::string> refuse(std::string why) {
    return std::unexpected(std::move(why));
}

// CUDA's grid limits: x up to 2^31 - 1, y and z up to 65535.
constexpr std::int64_t kMaxGridX = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxGridYZ = 65535;

// ---------------------------------------------------------------------------
// What the cache dir holds, read once per plan_kernels call.

struct TritonDirRecord {
    std::string relative; // triton/<device>/<hash>
    Result<TritonKernelDir> dir;
};

struct FxRecord {
    std::string relative;
    FxGraphEntry entry;
};

struct CacheIndex {
    fs::path root;
    std::vector<std::string> modules;              // relative paths, sorted
    std::map<std::string, TritonDirRecord> triton; // by dir name (base32 of the hash)
    std::vector<FxRecord> fx;
    std::set<std::string> best_configs; // relative paths
};

CacheIndex index_cache(const cachedir::Scan& scan) {
    CacheIndex index;
    index.root = scan.root;
    for (const auto& entry : scan.entries()) {
        switch (entry.kind) {
        case FileKind::Module:
            index.modules.push_back(entry.path);
            break;
        case FileKind::Triton:
            // The same hash under two devices is the same compiled kernel.
            if (!index.triton.contains(entry.key)) {
                index.triton.emplace(entry.key,
                                     TritonDirRecord{entry.path, cachedir::read_triton_kernel_dir(
                                                                     scan.root / entry.path)});
            }
            break;
        case FileKind::FxGraph:
            // An FX entry that does not decode lists no candidates: its kernels
            // fall back to their Triton dirs, which hold the same cubins.
            if (auto fx = cachedir::load_fx_graph_entry(scan.root / entry.path)) {
                index.fx.push_back({entry.path, std::move(*fx)});
            }
            break;
        case FileKind::BestConfig:
            index.best_configs.insert(entry.path);
            break;
        default:
            break;
        }
    }
    std::sort(index.modules.begin(), index.modules.end());
    return index;
}

std::string parent_name(std::string_view relative) {
    const fs::path path(relative);
    return path.parent_path().filename().string();
}

// ---------------------------------------------------------------------------
// The Triton files of one cubin: from its dir, or from a bundle's copy.

struct TritonFiles {
    TritonMetadata metadata;
    PtxInfo ptx;
    std::string cubin_name; // empty when there is no cubin
};

std::optional<std::pair<std::string, std::string_view>>
artifact(const TritonKernelArtifacts& kernel, std::string_view extension) {
    for (const auto& file : kernel.files) {
        if (file.name.ends_with(extension) && !cachedir::is_triton_group_file_name(file.name)) {
            return std::pair{file.name, file.payload};
        }
    }
    return std::nullopt;
}

Plannable<TritonFiles> files_of(const TritonKernelArtifacts& kernel, std::string_view fx_entry) {
    const auto json = artifact(kernel, ".json");
    const auto ptx = artifact(kernel, ".ptx");
    if (!json || !ptx) {
        return refuse(fmt::format("the bundle in {} carries no {} for it", fx_entry,
                                  json ? "PTX" : "metadata JSON"));
    }
    auto metadata = cachedir::parse_triton_metadata(json->second);
    if (!metadata) {
        return refuse(fmt::format("{} ({}): {}", json->first, fx_entry, metadata.error().message));
    }
    auto info = cachedir::parse_ptx(ptx->second);
    if (!info) {
        return refuse(fmt::format("{} ({}): {}", ptx->first, fx_entry, info.error().message));
    }
    TritonFiles files{std::move(*metadata), std::move(*info), {}};
    if (const auto cubin = artifact(kernel, ".cubin")) {
        files.cubin_name = cubin->first;
    }
    return files;
}

Plannable<TritonFiles> files_of(const TritonDirRecord& record) {
    if (!record.dir) {
        return refuse(record.dir.error().describe());
    }
    const TritonKernelDir& dir = *record.dir;
    if (!dir.metadata || !dir.ptx) {
        return refuse(
            fmt::format("{} has no {}", record.relative, dir.metadata ? "PTX" : "metadata JSON"));
    }
    TritonFiles files{*dir.metadata, *dir.ptx, {}};
    for (const auto& file : dir.files) {
        if (file.name.ends_with(".cubin")) {
            files.cubin_name = file.name;
        }
    }
    return files;
}

const TritonKernelArtifacts* artifacts_in(const FxGraphEntry& entry, std::string_view dir_name) {
    for (const auto& kernel : entry.triton_artifacts) {
        if (kernel.kernel_hash == dir_name) {
            return &kernel;
        }
    }
    return nullptr;
}

// The kernel module a cubin was compiled from, as its PTX's `.file 1` names it.
std::string module_key_of_cubin(const CacheIndex& index, const std::string& dir_name,
                                const TritonKernelArtifacts* artifacts) {
    if (const auto it = index.triton.find(dir_name); it != index.triton.end() && it->second.dir) {
        return it->second.dir->module_key;
    }
    if (artifacts != nullptr) {
        if (const auto ptx = artifact(*artifacts, ".ptx")) {
            if (auto info = cachedir::parse_ptx(ptx->second); info && !info->files.empty()) {
                return cachedir::module_key_from_path(info->files.front());
            }
        }
    }
    return {};
}

// ---------------------------------------------------------------------------
// Configs.

bool is_constant(const KernelDefinition& def, std::string_view name) {
    return std::any_of(def.constants.begin(), def.constants.end(),
                       [&](const auto& constant) { return constant.first == name; });
}

// The prefix of the values Inductor's code names after a block dimension:
// XBLOCK -> xindex, R0_BLOCK -> r0_base / r0_index.
std::optional<std::string_view> block_prefix(std::string_view constexpr_name) {
    static constexpr std::pair<std::string_view, std::string_view> kBlocks[] = {
        {"XBLOCK", "x"}, {"YBLOCK", "y"}, {"ZBLOCK", "z"}, {"R0_BLOCK", "r0_"}, {"R1_BLOCK", "r1_"},
    };
    for (const auto& [name, prefix] : kBlocks) {
        if (name == constexpr_name) {
            return prefix;
        }
    }
    return std::nullopt;
}

std::optional<std::int64_t> number_at(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end == text.data()) {
        return std::nullopt;
    }
    return value;
}

// "xindex", "xindex_3", "r0_base_1": a block dimension's index values.
bool is_index_value(std::string_view value, std::string_view prefix) {
    if (!value.starts_with(prefix)) {
        return false;
    }
    value.remove_prefix(prefix.size());
    for (std::string_view word : {"index", "base"}) {
        if (value.starts_with(word)) {
            value.remove_prefix(word.size());
            return value.empty() || (value.front() == '_' && value.size() > 1 &&
                                     std::all_of(value.begin() + 1, value.end(), [](char c) {
                                         return std::isdigit(static_cast<unsigned char>(c)) != 0;
                                     }));
        }
    }
    return false;
}

// The element count of the last `tensor<AxBx...>` on a TTIR line (the
// result's type for the ops that make index values), 1 for a scalar.
std::optional<std::int64_t> last_tensor_elements(std::string_view line) {
    const auto at = line.rfind("tensor<");
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    std::string_view dims = line.substr(at + 7);
    std::int64_t count = 1;
    while (!dims.empty() && std::isdigit(static_cast<unsigned char>(dims.front())) != 0) {
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(dims.data(), dims.data() + dims.size(), n);
        if (ec != std::errc{} || *end != 'x') {
            return std::nullopt;
        }
        count *= n;
        dims.remove_prefix(static_cast<std::size_t>(end - dims.data()) + 1);
    }
    return count;
}

// The config a cubin was compiled for, when no bundle lists it (formats.md §5).
// A block constexpr is the size of the index values Inductor names after its
// dimension (%xindex, %r0_base, %r0_index: one non-1 dim of the tile; the
// tt.make_range itself may be shared when two blocks are equal); none at all
// means the block is 1 (XBLOCK = 1 folds the x range away). Checked against
// the constant multiplying the x program id and the r0 loop's step.
// num_warps and num_stages come from the metadata.
Plannable<KernelConfig> config_from_ttir(std::string_view ttir, const KernelDefinition& def,
                                         const TritonMetadata& metadata) {
    struct Line {
        std::string_view value; // the SSA name it defines, without '%'
        std::string_view text;
    };
    std::vector<Line> lines;
    std::size_t start = 0;
    while (start < ttir.size()) {
        std::size_t end = ttir.find('\n', start);
        if (end == std::string_view::npos) {
            end = ttir.size();
        }
        const std::string_view text = ttir.substr(start, end - start);
        start = end + 1;
        const auto percent = text.find('%');
        const auto equals = text.find(" = ");
        if (percent != std::string_view::npos && equals != std::string_view::npos &&
            percent < equals && text.substr(0, percent).find_first_not_of(" \t") == text.npos) {
            lines.push_back({text.substr(percent + 1, equals - percent - 1), text});
        }
    }
    // `%<v> = <op> %a, %c<K>_i32`: the K of an op on `operand`, for values named `result_*`.
    const auto constant_operand = [&](std::string_view result,
                                      std::string_view op) -> std::optional<std::int64_t> {
        for (const auto& line : lines) {
            const auto at = line.text.find(op);
            if (line.value.starts_with(result) && at != std::string_view::npos) {
                return number_at(line.text.substr(at + op.size()));
            }
        }
        return std::nullopt;
    };
    const auto x_multiplier = constant_operand("xoffset_", "= arith.muli %xoffset, %c");

    KernelConfig config;
    for (const SignatureEntry& entry : def.signature) {
        if (entry.type != "constexpr" || is_constant(def, entry.name)) {
            continue;
        }
        const auto prefix = block_prefix(entry.name);
        if (!prefix) {
            return refuse(fmt::format("the constexpr {} cannot be read from the TTIR", entry.name));
        }
        std::optional<std::int64_t> block;
        for (const auto& line : lines) {
            if (!is_index_value(line.value, *prefix)) {
                continue;
            }
            const auto n = last_tensor_elements(line.text);
            if (n && block && *block != *n) {
                return refuse(fmt::format("the TTIR's {} values have {} and {} elements", *prefix,
                                          *block, *n));
            }
            block = n ? n : block;
        }
        // A cross-check where the code has one: XBLOCK multiplies the x
        // program id; a looped reduction steps its r offset by R0_BLOCK.
        std::optional<std::int64_t> check;
        if (entry.name == "XBLOCK") {
            check = x_multiplier;
        } else if (prefix->starts_with('r')) {
            const auto at = ttir.find(fmt::format("scf.for %{}offset = ", *prefix));
            const auto step = ttir.find(" step %c", at);
            if (at != std::string_view::npos && step != std::string_view::npos &&
                ttir.substr(at, step - at).find('\n') == std::string_view::npos) {
                check = number_at(ttir.substr(step + 8));
            }
        }
        if (check && *check != block.value_or(1)) {
            return refuse(fmt::format("the TTIR disagrees on {}: {} from its index values, {} "
                                      "from its {}",
                                      entry.name, block.value_or(1), *check,
                                      entry.name == "XBLOCK" ? "program offset" : "loop step"));
        }
        config.kwargs.emplace_back(entry.name, ConfigValue(block.value_or(1)));
    }
    config.num_warps = metadata.num_warps;
    config.num_stages = metadata.num_stages;
    return config;
}

Plannable<KernelConfig> config_of_dir(const CacheIndex& index, const TritonDirRecord& record,
                                      const KernelDefinition& def) {
    if (!record.dir) {
        return refuse(record.dir.error().describe());
    }
    if (!record.dir->metadata) {
        return refuse(record.relative + " has no metadata JSON");
    }
    const auto ttir = std::find_if(record.dir->files.begin(), record.dir->files.end(),
                                   [](const auto& file) { return file.name.ends_with(".ttir"); });
    if (ttir == record.dir->files.end()) {
        return refuse(record.relative + " has no TTIR to read its config from");
    }
    auto text = read_text_file(index.root / record.relative / ttir->name);
    if (!text) {
        return refuse(text.error().describe());
    }
    return config_from_ttir(*text, def, *record.dir->metadata);
}

// ---------------------------------------------------------------------------
// Arguments.

bool is_floating(std::string_view dtype) {
    return dtype.starts_with("float") || dtype == "bfloat16";
}

// (1 + sum((shape_i - 1) * stride_i)) * element size, as rand_strided sizes
// its buffer; 0 when a dimension is 0.
Plannable<std::uint64_t> buffer_bytes(const cachedir::TensorSpec& tensor, std::uint32_t element) {
    if (tensor.shape.size() != tensor.stride.size()) {
        return refuse(
            fmt::format("shape has {} dims, stride {}", tensor.shape.size(), tensor.stride.size()));
    }
    std::uint64_t elements = 1;
    for (std::size_t i = 0; i < tensor.shape.size(); ++i) {
        if (tensor.shape[i] < 0 || tensor.stride[i] < 0) {
            return refuse("negative size or stride");
        }
        if (tensor.shape[i] == 0) {
            return 0;
        }
        std::uint64_t span = 0;
        if (__builtin_mul_overflow(static_cast<std::uint64_t>(tensor.shape[i] - 1),
                                   static_cast<std::uint64_t>(tensor.stride[i]), &span) ||
            __builtin_add_overflow(elements, span, &elements)) {
            return refuse("the buffer size overflows 64 bits");
        }
    }
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(elements, std::uint64_t{element}, &bytes)) {
        return refuse("the buffer size overflows 64 bits");
    }
    return bytes;
}

std::string_view kind_name(HarnessArg::Kind kind) {
    switch (kind) {
    case HarnessArg::Kind::Tensor:
        return "a tensor";
    case HarnessArg::Kind::Int:
        return "an int";
    case HarnessArg::Kind::Float:
        return "a float";
    case HarnessArg::Kind::Unknown:
        break;
    }
    return "a value it could not read";
}

bool fits_int_type(std::string_view type, std::int64_t v) {
    if (type == "i32") {
        return v >= std::numeric_limits<std::int32_t>::min() &&
               v <= std::numeric_limits<std::int32_t>::max();
    }
    if (type == "u32") {
        return v >= 0 && v <= std::int64_t{std::numeric_limits<std::uint32_t>::max()};
    }
    return type != "u64" || v >= 0;
}

// One launch slot from a signature entry and the value get_args() gives it.
Plannable<LaunchArg> launch_arg(const SignatureEntry& entry, const HarnessArg& value,
                                std::size_t index) {
    LaunchArg arg;
    arg.name = entry.name;
    arg.type = entry.type;
    const auto wrong_value = [&] {
        return refuse(fmt::format("argument {} ({}: {}) gets {} from get_args()", index, entry.name,
                                  entry.type, kind_name(value.kind)));
    };
    if (entry.type.starts_with('*')) {
        if (value.kind != HarnessArg::Kind::Tensor) {
            return wrong_value();
        }
        const auto element = dtype_size(value.tensor.dtype);
        if (!element) {
            return refuse(fmt::format("argument {} ({}): unknown dtype {}", index, entry.name,
                                      value.tensor.dtype));
        }
        auto bytes = buffer_bytes(value.tensor, *element);
        if (!bytes) {
            return refuse(fmt::format("argument {} ({}): {}", index, entry.name, bytes.error()));
        }
        arg.kind = LaunchArg::Kind::Buffer;
        arg.bytes = 8;
        arg.shape = value.tensor.shape;
        arg.stride = value.tensor.stride;
        arg.dtype = value.tensor.dtype;
        arg.buffer_bytes = *bytes;
        arg.random_fill = is_floating(value.tensor.dtype);
        return arg;
    }
    static constexpr std::pair<std::string_view, std::uint32_t> kInts[] = {
        {"i32", 4}, {"u32", 4}, {"i64", 8}, {"u64", 8}};
    static constexpr std::pair<std::string_view, std::uint32_t> kFloats[] = {
        {"fp32", 4}, {"fp16", 4}, {"bf16", 4}, {"fp64", 8}};
    for (const auto& [type, bytes] : kInts) {
        if (entry.type == type) {
            if (value.kind != HarnessArg::Kind::Int) {
                return wrong_value();
            }
            const std::int64_t v = value.integer;
            if (!fits_int_type(type, v)) {
                return refuse(fmt::format("argument {} ({}: {}) = {} does not fit its type", index,
                                          entry.name, entry.type, v));
            }
            arg.kind = LaunchArg::Kind::Int;
            arg.bytes = bytes;
            arg.integer = v;
            return arg;
        }
    }
    for (const auto& [type, bytes] : kFloats) {
        if (entry.type == type) {
            if (value.kind == HarnessArg::Kind::Float) {
                arg.real = value.real;
            } else if (value.kind == HarnessArg::Kind::Int) {
                arg.real = static_cast<double>(value.integer);
            } else {
                return wrong_value();
            }
            arg.kind = LaunchArg::Kind::Float;
            arg.bytes = bytes;
            return arg;
        }
    }
    return refuse(fmt::format("argument {} ({}) has type {}, which the launcher cannot pass "
                              "(pointers, i32, u32, i64, u64, fp16, bf16, fp32, fp64)",
                              index, entry.name, entry.type));
}

struct KernelArgs {
    std::vector<LaunchArg> args;              // one per runtime argument, before scratch
    std::map<std::string, std::int64_t> ints; // every int by name: arguments, constants,
                                              // extra launcher args (_grid_0 ...)
};

// get_args() returns one value per call argument: each signature entry that
// is not a config constexpr (constants included: Inductor passes xnumel=1 even
// when Triton specialised it away), then the extra launcher args.
Plannable<KernelArgs> kernel_args(const KernelDefinition& def) {
    const auto& harness = def.harness;
    if (!harness.problems.empty()) {
        return refuse("get_args() could not be read: " + harness.problems.front());
    }
    std::size_t wanted = def.extra_launcher_args.size();
    for (const auto& entry : def.signature) {
        wanted += entry.type != "constexpr" || is_constant(def, entry.name) ? 1 : 0;
    }
    if (harness.args.size() != wanted) {
        return refuse(fmt::format("get_args() returns {} values; the kernel takes {} ({} launcher "
                                  "args included)",
                                  harness.args.size(), wanted, def.extra_launcher_args.size()));
    }
    KernelArgs out;
    std::size_t next = 0;
    for (const auto& entry : def.signature) {
        const bool constant = is_constant(def, entry.name);
        if (entry.type == "constexpr" && !constant) {
            continue;
        }
        const HarnessArg& value = harness.args[next++];
        if (value.kind == HarnessArg::Kind::Int) {
            out.ints[entry.name] = value.integer;
        }
        if (constant || entry.type == "constexpr") {
            continue;
        }
        auto arg = launch_arg(entry, value, out.args.size());
        if (!arg) {
            return std::unexpected(std::move(arg.error()));
        }
        out.args.push_back(std::move(*arg));
    }
    for (const auto& name : def.extra_launcher_args) {
        const HarnessArg& value = harness.args[next++];
        if (value.kind != HarnessArg::Kind::Int) {
            return refuse(fmt::format("launcher argument {} gets {} from get_args()", name,
                                      kind_name(value.kind)));
        }
        out.ints[name] = value.integer;
    }
    for (const auto& [name, value] : def.constants) {
        if (const auto* integer = std::get_if<std::int64_t>(&value)) {
            out.ints.try_emplace(name, *integer);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// Grid.

Plannable<std::int64_t> block_of(const KernelConfig& config, std::string_view name) {
    const ConfigValue* value = config.kwarg(name);
    if (value == nullptr) {
        return 1; // Inductor's ceildiv(numel, None) is numel
    }
    if (const auto* block = std::get_if<std::int64_t>(value); block != nullptr && *block > 0) {
        return *block;
    }
    return refuse(
        fmt::format("{} = {} is not a positive block size", name, cachedir::to_string(*value)));
}

Plannable<std::uint32_t> programs(const KernelArgs& args, const KernelConfig& config,
                                  std::string_view numel, std::string_view block_name,
                                  std::string_view grid_type, std::int64_t limit) {
    const auto it = args.ints.find(std::string(numel));
    if (it == args.ints.end()) {
        return refuse(fmt::format("{} needs the integer argument {}", grid_type, numel));
    }
    auto block = block_of(config, block_name);
    if (!block) {
        return std::unexpected(std::move(block.error()));
    }
    if (it->second <= 0) {
        return refuse(fmt::format("{} = {}: there is nothing to launch", numel, it->second));
    }
    const std::int64_t count = it->second / *block + (it->second % *block != 0 ? 1 : 0);
    if (count > limit) {
        return refuse(fmt::format("{} = {} over {} = {} gives {} programs, more than CUDA's {}",
                                  numel, it->second, block_name, *block, count, limit));
    }
    return static_cast<std::uint32_t>(count);
}

Plannable<std::array<std::uint32_t, 3>> grid_of(const KernelDefinition& def, const KernelArgs& args,
                                                const KernelConfig& config) {
    std::array<std::uint32_t, 3> grid{1, 1, 1};
    const std::string& type = def.grid_type;
    if (type == "FixedGrid") {
        if (def.fixed_grid.empty() || def.fixed_grid.size() > 3) {
            return refuse(fmt::format("FixedGrid with {} grid args", def.fixed_grid.size()));
        }
        for (std::size_t i = 0; i < def.fixed_grid.size(); ++i) {
            const auto it = args.ints.find(def.fixed_grid[i]);
            if (it == args.ints.end()) {
                return refuse(
                    fmt::format("FixedGrid needs the launcher argument {}", def.fixed_grid[i]));
            }
            const std::int64_t limit = i == 0 ? kMaxGridX : kMaxGridYZ;
            if (it->second <= 0 || it->second > limit) {
                return refuse(fmt::format("FixedGrid {} = {} is outside 1..{}", def.fixed_grid[i],
                                          it->second, limit));
            }
            grid[i] = static_cast<std::uint32_t>(it->second);
        }
        return grid;
    }
    static constexpr std::tuple<std::string_view, std::string_view, std::int64_t> kDims[] = {
        {"xnumel", "XBLOCK", kMaxGridX},
        {"ynumel", "YBLOCK", kMaxGridYZ},
        {"znumel", "ZBLOCK", kMaxGridYZ},
    };
    if (type == "Grid2DWithYZOverflow") {
        // Inductor's launcher: a y extent over CUDA's y limit is split into
        // y_div_ slices on z (runtime/triton_heuristics.py, get_max_y_grid()).
        auto x_programs = programs(args, config, "xnumel", "XBLOCK", type, kMaxGridX);
        if (!x_programs) {
            return std::unexpected(std::move(x_programs.error()));
        }
        auto y_raw = programs(args, config, "ynumel", "YBLOCK", type, kMaxGridYZ * kMaxGridYZ);
        if (!y_raw) {
            return std::unexpected(std::move(y_raw.error()));
        }
        const std::int64_t raw = *y_raw;
        const std::int64_t slices = (raw + kMaxGridYZ - 1) / kMaxGridYZ;
        grid[0] = *x_programs;
        grid[1] = static_cast<std::uint32_t>((raw + slices - 1) / slices);
        grid[2] = static_cast<std::uint32_t>(slices);
        return grid;
    }
    // The other GridExpr classes of runtime/triton_heuristics.py (2.7 to
    // 2.11), each axis by its formula there.
    using Axis = std::tuple<std::string_view, std::string_view, std::int64_t>;
    const auto axes =
        [&](std::initializer_list<Axis> list) -> Plannable<std::array<std::uint32_t, 3>> {
        std::size_t i = 0;
        for (const auto& [numel, block, limit] : list) {
            auto count = programs(args, config, numel, block, type, limit);
            if (!count) {
                return std::unexpected(std::move(count.error()));
            }
            grid[i++] = *count;
        }
        return grid;
    };
    if (type == "BatchMatmulGrid3D") { // the batch on x
        return axes({{"znumel", "ZBLOCK", kMaxGridX},
                     {"ynumel", "YBLOCK", kMaxGridYZ},
                     {"xnumel", "XBLOCK", kMaxGridYZ}});
    }
    if (type == "SplitScanGrid") { // XBLOCK is 1: one program per row on y
        return axes({{"r0_numel", "R0_BLOCK", kMaxGridX}, {"xnumel", "", kMaxGridYZ}});
    }
    if (type == "CooperativeReductionGrid") {
        auto split = block_of(config, "RSPLIT");
        if (!split) {
            return std::unexpected(std::move(split.error()));
        }
        if (config.kwarg("RSPLIT") == nullptr) {
            return refuse("CooperativeReductionGrid needs the config's RSPLIT");
        }
        auto rows = programs(args, config, "xnumel", "XBLOCK", type, kMaxGridYZ);
        if (!rows) {
            return std::unexpected(std::move(rows.error()));
        }
        grid[0] = static_cast<std::uint32_t>(*split);
        grid[1] = *rows;
        return grid;
    }
    if (type == "MixOrderReductionGrid") {
        if (config.kwarg("RSPLIT_SIZE") == nullptr) {
            return refuse("MixOrderReductionGrid needs the config's RSPLIT_SIZE");
        }
        return axes({{"xnumel", "RSPLIT_SIZE", kMaxGridX}});
    }
    if (type.find("Combo") != std::string::npos || type == "PrecomputedGrid") {
        return refuse(fmt::format("{} launches are not planned: the grid comes from {}", type,
                                  type == "PrecomputedGrid" ? "the launcher's precomputed_grids"
                                                            : "each sub-kernel's combo_grid_meta"));
    }
    std::size_t dims = 0;
    if (type == "Grid1D") {
        dims = 1;
    } else if (type == "Grid2D") {
        dims = 2;
    } else if (type == "Grid3D") {
        dims = 3;
    } else {
        return refuse(fmt::format("unsupported grid type {}", type.empty() ? "(none)" : type));
    }
    for (std::size_t i = 0; i < dims; ++i) {
        const auto& [numel, block, limit] = kDims[i];
        auto count = programs(args, config, numel, block, type, limit);
        if (!count) {
            return std::unexpected(std::move(count.error()));
        }
        grid[i] = *count;
    }
    return grid;
}

// ---------------------------------------------------------------------------
// Candidates of one kernel.

struct Candidate {
    KernelConfig config;
    std::string dir_name;    // triton/<device>/<this>
    std::string triton_hash; // hex
    // The bundle's copy of its files and its launcher facts, when an FX entry lists it.
    const TritonKernelArtifacts* artifacts = nullptr;
    const CompiledCandidate* launcher = nullptr;
    std::string fx_entry;
    bool current_best = false;
};

// A cubin only its Triton dir tells of.
Candidate dir_candidate(const TritonKernelDir& dir, KernelConfig config, bool current_best) {
    Candidate candidate;
    candidate.config = std::move(config);
    candidate.dir_name = dir.hash;
    candidate.triton_hash = dir.metadata ? dir.metadata->hash : std::string();
    candidate.current_best = current_best;
    return candidate;
}

std::string describe_candidate(const Candidate& candidate) {
    return fmt::format("{} ({})", candidate.dir_name, candidate.config.describe());
}

struct KernelWork {
    const CacheIndex& index;
    const KernelDefinition& def;
    KernelCandidates& out;
    std::vector<Candidate> candidates;
    std::vector<std::string> best_config_hooks; // where the bundles' autotuners save it
    // The Triton dirs compiled from this kernel (by `.file 1` and name), with
    // the config each was read to have; filled on first use.
    std::optional<std::vector<std::pair<const TritonDirRecord*, Plannable<KernelConfig>>>> dirs;

    const auto& module_dirs() {
        if (!dirs) {
            dirs.emplace();
            for (const auto& [name, record] : index.triton) {
                if (record.dir && record.dir->module_key == out.module_key &&
                    record.dir->kernel_name == def.name) {
                    dirs->emplace_back(&record, config_of_dir(index, record, def));
                }
            }
        }
        return *dirs;
    }

    bool has_candidate(std::string_view dir_name) const {
        return std::any_of(candidates.begin(), candidates.end(),
                           [&](const Candidate& c) { return c.dir_name == dir_name; });
    }
};

// Every compiled config the FX entries' bundles list for this kernel.
void collect_bundle_candidates(KernelWork& work) {
    for (const auto& fx : work.index.fx) {
        for (const auto& tuner : fx.entry.autotuners) {
            if (tuner.kernel_name != work.def.name) {
                continue;
            }
            for (const auto& compiled : tuner.candidates) {
                const std::string dir_name = compiled.triton_dir();
                const TritonKernelArtifacts* artifacts = artifacts_in(fx.entry, dir_name);
                // Template autotuners name no module: their cubin's PTX does.
                const std::string module_key =
                    tuner.module_key.empty() ? module_key_of_cubin(work.index, dir_name, artifacts)
                                             : tuner.module_key;
                if (module_key != work.out.module_key || work.has_candidate(dir_name)) {
                    continue;
                }
                work.candidates.push_back(Candidate{compiled.config, dir_name, compiled.triton_hash,
                                                    artifacts, &compiled, fx.relative, false});
                if (!tuner.best_config_path.empty()) {
                    work.best_config_hooks.push_back(tuner.best_config_path);
                }
            }
        }
    }
}

// Without a bundle: every Triton dir compiled from this module's kernel.
void collect_dir_candidates(KernelWork& work) {
    for (const auto& [record, config] : work.module_dirs()) {
        if (!config) {
            work.out.unplannable.emplace_back(record->relative, config.error());
            continue;
        }
        work.candidates.push_back(dir_candidate(*record->dir, *config, false));
    }
}

std::optional<BestConfig> load_best_config(const CacheIndex& index, const std::string& relative) {
    auto text = read_text_file(index.root / relative);
    if (!text) {
        return std::nullopt;
    }
    auto best = cachedir::parse_best_config(*text);
    return best ? std::optional<BestConfig>(std::move(*best)) : std::nullopt;
}

// The kernel's .best_config. Its name cannot be recomputed (it mixes in the
// torch key), so: the name the bundle's autotuner saved it under, else the
// one file in the module's shard dir naming one of its cubins or configs.
void find_best_config(KernelWork& work) {
    for (const auto& hook : work.best_config_hooks) {
        const fs::path saved(hook);
        const std::string relative =
            (fs::path(saved.parent_path().filename()) / saved.filename()).generic_string();
        if (work.index.best_configs.contains(relative)) {
            if (auto best = load_best_config(work.index, relative)) {
                work.out.best_config_path = work.index.root / relative;
                work.out.best_config = std::move(*best);
                return;
            }
        }
    }
    const std::string shard = parent_name(work.out.module.generic_string());
    std::vector<std::pair<std::string, BestConfig>> matches;
    for (const auto& relative : work.index.best_configs) {
        if (parent_name(relative) != shard) {
            continue;
        }
        auto best = load_best_config(work.index, relative);
        if (!best) {
            continue;
        }
        bool match = false;
        if (best->triton_cache_hash) {
            match = work.has_candidate(*best->triton_cache_hash) ||
                    std::any_of(work.module_dirs().begin(), work.module_dirs().end(),
                                [&](const auto& dir) {
                                    return dir.first->dir->hash == *best->triton_cache_hash;
                                });
        } else {
            match = std::any_of(
                        work.candidates.begin(), work.candidates.end(),
                        [&](const Candidate& c) { return same_config(c.config, best->config); }) ||
                    std::any_of(work.module_dirs().begin(), work.module_dirs().end(),
                                [&](const auto& dir) {
                                    return dir.second && same_config(*dir.second, best->config);
                                });
        }
        if (match) {
            matches.emplace_back(relative, std::move(*best));
        }
    }
    if (matches.size() == 1) {
        work.out.best_config_path = work.index.root / matches.front().first;
        work.out.best_config = std::move(matches.front().second);
    } else if (matches.size() > 1) {
        work.out.unplannable.emplace_back(
            "current best", fmt::format("{} .best_config files in {}/ match this kernel's cubins; "
                                        "cannot tell which is its own",
                                        matches.size(), shard));
    }
}

// Marks the candidate the .best_config names (cachedir::current_best), adding
// its cubin when the bundle does not list it (a coordinate-descent winner,
// formats.md §5).
void mark_current_best(KernelWork& work) {
    std::vector<cachedir::CandidateConfig> compiled;
    compiled.reserve(work.candidates.size());
    for (const auto& candidate : work.candidates) {
        compiled.push_back({candidate.dir_name, &candidate.config});
    }
    const BestConfig* best = work.out.best_config ? &*work.out.best_config : nullptr;
    const cachedir::CurrentBest current = cachedir::current_best(best, compiled);
    if (current.kind == cachedir::CurrentBest::Kind::Candidate) {
        work.candidates[current.index].current_best = true;
        return;
    }
    if (current.kind == cachedir::CurrentBest::Kind::Unknown) {
        return;
    }
    // Not a candidate: its cubin is the Triton dir the .best_config names, or
    // one of the module's compiled with its config.
    if (best->triton_cache_hash) {
        const std::string& hash = *best->triton_cache_hash;
        const auto it = work.index.triton.find(hash);
        if (it != work.index.triton.end() && it->second.dir &&
            it->second.dir->kernel_name == work.def.name) {
            work.candidates.push_back(dir_candidate(*it->second.dir, best->config, true));
            return;
        }
        work.out.unplannable.emplace_back(
            "current best " + hash, "the .best_config names this Triton dir, but it is neither "
                                    "under triton/ nor in an FX entry's bundle");
        return;
    }
    for (const auto& [record, config] : work.module_dirs()) {
        if (config && same_config(*config, best->config) &&
            !work.has_candidate(record->dir->hash)) {
            work.candidates.push_back(dir_candidate(*record->dir, *config, true));
            return;
        }
    }
    work.out.unplannable.emplace_back(
        "current best (" + best->config.describe() + ")",
        std::string(best->found_by_coordesc.value_or(false) ? "found by coordinate descent; "
                                                            : "") +
            "no FX entry's bundle lists this config and no Triton dir of the module was compiled "
            "with it");
}

// ---------------------------------------------------------------------------
// One plan.

Plannable<LaunchPlan> plan_candidate(const KernelWork& work, const Candidate& candidate) {
    const KernelDefinition& def = work.def;
    LaunchPlan plan;
    plan.module_key = work.out.module_key;
    plan.module = work.out.module;
    plan.config = candidate.config;
    plan.is_current_best = candidate.current_best;
    plan.grid_type = def.grid_type;
    plan.source.triton_hash = candidate.triton_hash;

    // The cubin: its Triton dir when that is whole, else the bundle's copy.
    std::optional<TritonFiles> files;
    std::string dir_problem = "it is not under triton/";
    if (const auto it = work.index.triton.find(candidate.dir_name); it != work.index.triton.end()) {
        if (auto read = files_of(it->second); read && !read->cubin_name.empty()) {
            files = std::move(*read);
            plan.source.dir = work.index.root / it->second.relative;
        } else {
            dir_problem = read ? it->second.relative + " has no cubin" : read.error();
        }
    }
    if (!files && candidate.artifacts != nullptr) {
        auto read = files_of(*candidate.artifacts, candidate.fx_entry);
        if (!read) {
            return refuse(dir_problem + "; " + read.error());
        }
        if (read->cubin_name.empty()) {
            return refuse(dir_problem + "; the bundle in " + candidate.fx_entry +
                          " carries no cubin for it");
        }
        files = std::move(*read);
        plan.source.fx_entry = candidate.fx_entry;
    }
    if (!files) {
        return refuse(dir_problem + " and no FX entry's bundle carries it");
    }
    const TritonMetadata& metadata = files->metadata;
    plan.source.cubin_name = files->cubin_name;
    if (plan.source.triton_hash.empty()) {
        plan.source.triton_hash = metadata.hash;
    }
    plan.kernel_name = files->ptx.entry.empty() ? metadata.name : files->ptx.entry;

    // Launch shape.
    if (candidate.config.num_warps && metadata.num_warps &&
        candidate.config.num_warps != metadata.num_warps) {
        return refuse(fmt::format("the config says num_warps={}, the cubin was compiled with {}",
                                  *candidate.config.num_warps, *metadata.num_warps));
    }
    const auto warps = candidate.config.num_warps ? candidate.config.num_warps : metadata.num_warps;
    if (!warps || *warps <= 0 || *warps > 32) {
        return refuse("no usable num_warps in the config or the metadata");
    }
    if (!plan.config.num_warps) {
        plan.config.num_warps = warps;
    }
    if (!plan.config.num_stages) {
        plan.config.num_stages = metadata.num_stages;
    }
    const std::int64_t warp_size = metadata.warp_size.value_or(32);
    plan.block_threads = static_cast<std::uint32_t>(*warps * warp_size);
    if (files->ptx.reqntid && *files->ptx.reqntid != plan.block_threads) {
        return refuse(fmt::format("the PTX requires {} threads per block, the plan launches {}",
                                  *files->ptx.reqntid, plan.block_threads));
    }
    if (metadata.shared < 0 || metadata.shared > std::numeric_limits<std::int32_t>::max()) {
        return refuse(fmt::format("shared memory {} bytes is out of range", metadata.shared));
    }
    plan.shared_bytes = static_cast<std::uint32_t>(metadata.shared);

    // Arguments: the signature's, then Triton's scratch pointers (the bundle
    // says whether the launcher passes them; without it, the metadata keys do).
    auto args = kernel_args(def);
    if (!args) {
        return std::unexpected(std::move(args.error()));
    }
    const std::size_t runtime_args = args->args.size();
    if (candidate.launcher != nullptr && !candidate.launcher->arg_types.empty() &&
        candidate.launcher->arg_types.size() != runtime_args) {
        return refuse(fmt::format("the bundle's launcher takes {} arguments ({}), the signature {}",
                                  candidate.launcher->arg_types.size(),
                                  candidate.launcher->arg_types, runtime_args));
    }
    const auto has_key = [&](std::string_view key) {
        return std::binary_search(metadata.keys.begin(), metadata.keys.end(), key);
    };
    const bool global_scratch = candidate.launcher != nullptr
                                    ? candidate.launcher->has_global_scratch
                                    : has_key("global_scratch_size");
    const bool profile_scratch = candidate.launcher != nullptr
                                     ? candidate.launcher->has_profile_scratch
                                     : has_key("profile_scratch_size");
    plan.args = std::move(args->args);
    const auto add_scratch = [&](LaunchArg::Kind kind, std::string name, std::int64_t size,
                                 std::int64_t align) {
        LaunchArg scratch;
        scratch.kind = kind;
        scratch.name = std::move(name);
        scratch.type = "*";
        scratch.bytes = 8;
        scratch.scratch_bytes_per_program =
            static_cast<std::uint64_t>(std::max<std::int64_t>(size, 0));
        scratch.scratch_align = static_cast<std::uint64_t>(std::max<std::int64_t>(align, 1));
        plan.args.push_back(std::move(scratch));
    };
    if (global_scratch) {
        add_scratch(LaunchArg::Kind::GlobalScratch, "global_scratch", metadata.global_scratch_size,
                    metadata.global_scratch_align);
    }
    if (profile_scratch) {
        add_scratch(LaunchArg::Kind::ProfileScratch, "profile_scratch",
                    metadata.profile_scratch_size, metadata.profile_scratch_align);
    }

    // The PTX .entry is what the cubin really takes.
    const auto& params = files->ptx.parameters;
    if (params.size() != plan.args.size()) {
        return refuse(fmt::format("the PTX .entry {} takes {} parameters, the plan has {} ({} "
                                  "arguments + {} scratch pointers)",
                                  plan.kernel_name, params.size(), plan.args.size(), runtime_args,
                                  plan.args.size() - runtime_args));
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
        const LaunchArg& arg = plan.args[i];
        const bool scalar = arg.kind == LaunchArg::Kind::Int || arg.kind == LaunchArg::Kind::Float;
        if (params[i].bytes != arg.bytes || (scalar && params[i].pointer)) {
            return refuse(fmt::format("PTX parameter {} is {}{} ({} bytes); the plan passes {} "
                                      "({}, {} bytes)",
                                      i, params[i].pointer ? ".ptr " : "", params[i].type,
                                      params[i].bytes, arg.name, arg.type, arg.bytes));
        }
    }

    auto grid = grid_of(def, *args, plan.config);
    if (!grid) {
        return std::unexpected(std::move(grid.error()));
    }
    plan.grid = *grid;
    return plan;
}

bool wanted(const PlanOptions& options, std::string_view kernel, std::string_view module_key) {
    return options.only.empty() ||
           std::any_of(options.only.begin(), options.only.end(), [&](const std::string& name) {
               return name == kernel || name == module_key;
           });
}

void plan_kernel(const CacheIndex& index, const KernelDefinition& def, const PlanOptions& options,
                 KernelCandidates& out) {
    KernelWork work{index, def, out, {}, {}, std::nullopt};
    collect_bundle_candidates(work);
    if (work.candidates.empty()) {
        collect_dir_candidates(work);
    }
    find_best_config(work);
    mark_current_best(work);
    if (work.candidates.empty() && out.unplannable.empty()) {
        out.unplannable.emplace_back(
            "kernel", fmt::format("no compiled cubin: no FX entry's Triton bundle lists it and no "
                                  "Triton dir's PTX names {}",
                                  out.module.filename().string()));
    }
    if (!options.all_configs) {
        const auto has_best = std::any_of(work.candidates.begin(), work.candidates.end(),
                                          [](const Candidate& c) { return c.current_best; });
        if (!has_best && !work.candidates.empty()) {
            out.unplannable.emplace_back("current best", no_current_best(work.candidates.size()) +
                                                             "; plan all configs to see them");
        }
        std::erase_if(work.candidates, [](const Candidate& c) { return !c.current_best; });
    }
    for (const auto& candidate : work.candidates) {
        auto plan = plan_candidate(work, candidate);
        if (plan) {
            out.plans.push_back(std::move(*plan));
        } else {
            out.unplannable.emplace_back(describe_candidate(candidate), std::move(plan.error()));
        }
    }
}

} // namespace

std::uint64_t LaunchPlan::total_buffer_bytes() const {
    std::uint64_t total = 0;
    for (const auto& arg : args) {
        if (arg.kind == LaunchArg::Kind::Buffer) {
            total += arg.buffer_bytes;
        }
    }
    return total;
}

std::optional<std::uint32_t> dtype_size(std::string_view dtype) {
    static constexpr std::pair<std::string_view, std::uint32_t> kSizes[] = {
        {"float32", 4},
        {"float16", 2},
        {"bfloat16", 2},
        {"float64", 8},
        {"int8", 1},
        {"uint8", 1},
        {"bool", 1},
        {"int16", 2},
        {"uint16", 2},
        {"int32", 4},
        {"uint32", 4},
        {"int64", 8},
        {"uint64", 8},
        {"complex32", 4},
        {"complex64", 8},
        {"complex128", 16},
        {"float8_e4m3fn", 1},
        {"float8_e5m2", 1},
        {"float8_e4m3fnuz", 1},
        {"float8_e5m2fnuz", 1},
        {"float8_e8m0fnu", 1},
    };
    for (const auto& [name, size] : kSizes) {
        if (name == dtype) {
            return size;
        }
    }
    return std::nullopt;
}

// The kernel modules the Triton kernels of a Triton cache were compiled
// from, as their PTX names them.
std::vector<std::string> module_keys_of(const cachedir::Scan& scan) {
    std::set<std::string> keys;
    for (const auto& entry : scan.entries()) {
        if (entry.kind != FileKind::Triton) {
            continue;
        }
        if (auto kernel = cachedir::read_triton_kernel_dir(scan.root / entry.path);
            kernel && !kernel->module_key.empty()) {
            keys.insert(kernel->module_key);
        }
    }
    return {keys.begin(), keys.end()};
}

Result<std::vector<KernelCandidates>> plan_kernels(const std::filesystem::path& cache_dir,
                                                   const PlanOptions& options) {
    auto scan = cachedir::scan_cache_dir(cache_dir);
    if (!scan) {
        return std::unexpected(std::move(scan.error()).at(cache_dir.string()));
    }
    if (scan->layout() == cachedir::RootLayout::Triton) {
        // A Triton cache holds cubins but no kernel module (whose harness
        // makes the arguments): an Inductor cache's triton/<device>/ has
        // them one level up; ~/.triton/cache has none.
        const auto inductor = cachedir::inductor_cache_of(cache_dir);
        PlanOptions narrowed = options;
        if (narrowed.only.empty()) {
            narrowed.only = module_keys_of(*scan);
        }
        if (!inductor || narrowed.only.empty()) {
            return std::vector<KernelCandidates>{};
        }
        return plan_kernels(*inductor, narrowed);
    }
    const CacheIndex index = index_cache(*scan);
    std::vector<KernelCandidates> out;
    for (const auto& relative : index.modules) {
        const std::string module_key(cachedir::stem_of(fs::path(relative).filename().string()));
        auto module = cachedir::read_kernel_module(index.root / relative);
        if (!module) {
            // Unread, it may or may not have a harness; say so only when asked for it.
            if (!options.only.empty() && wanted(options, {}, module_key)) {
                KernelCandidates broken;
                broken.module_key = module_key;
                broken.module = index.root / relative;
                broken.unplannable.emplace_back("module", module.error().describe());
                out.push_back(std::move(broken));
            }
            continue;
        }
        if (module->role != cachedir::ModuleRole::TritonKernels) {
            continue;
        }
        for (const auto& def : module->kernels) {
            if (def.harness.get_args_line == 0 || !wanted(options, def.name, module_key)) {
                continue;
            }
            KernelCandidates kernel;
            kernel.kernel_name = def.name;
            kernel.module_key = module_key;
            kernel.module = index.root / relative;
            kernel.coordinate_descent_tuning = def.coordinate_descent_tuning.value_or(false);
            plan_kernel(index, def, options, kernel);
            out.push_back(std::move(kernel));
        }
    }
    return out;
}

Result<LaunchPlan> plan_config_in_dir(const KernelCandidates& kernel,
                                      const cachedir::KernelDefinition& definition,
                                      const cachedir::KernelConfig& config,
                                      const std::filesystem::path& triton_dir) {
    CacheIndex index;
    index.root = triton_dir.parent_path();
    const std::string name = triton_dir.filename().string();
    index.triton.emplace(name, TritonDirRecord{name, cachedir::read_triton_kernel_dir(triton_dir)});
    KernelCandidates out;
    out.kernel_name = kernel.kernel_name;
    out.module_key = kernel.module_key;
    out.module = kernel.module;
    KernelWork work{index, definition, out, {}, {}, std::nullopt};
    Candidate candidate;
    candidate.config = config;
    candidate.dir_name = name;
    auto plan = plan_candidate(work, candidate);
    if (!plan) {
        return fail(ErrorKind::Unsupported, plan.error(), triton_dir.string());
    }
    return std::move(*plan);
}

std::string no_current_best(std::size_t configs) {
    return fmt::format("no .best_config names one of its {} compiled config{}", configs,
                       configs == 1 ? "" : "s");
}

Error nothing_to_bench(const std::filesystem::path& cache_dir, const PlanOptions& options) {
    auto scan = cachedir::scan_cache_dir(cache_dir);
    if (!scan) {
        return std::move(scan.error()).at(cache_dir.string());
    }
    if (scan->layout() == cachedir::RootLayout::Triton) {
        const auto inductor = cachedir::inductor_cache_of(cache_dir);
        if (inductor && !module_keys_of(*scan).empty()) {
            return nothing_to_bench(*inductor, options);
        }
        return Error{ErrorKind::NotFound,
                     "a Triton cache holds compiled kernels but not the Inductor kernel modules "
                     "whose benchmark harness (get_args()) makes a kernel's arguments: cachelens "
                     "bench times the kernels of an Inductor cache (TORCHINDUCTOR_CACHE_DIR, or "
                     "its triton/<device>/ dir)",
                     cache_dir.string()};
    }
    const CacheIndex index = index_cache(*scan);
    std::size_t triton_modules = 0;
    std::size_t with_harness = 0;
    for (const auto& relative : index.modules) {
        auto module = cachedir::read_kernel_module(index.root / relative);
        if (module && module->role == cachedir::ModuleRole::TritonKernels) {
            ++triton_modules;
            with_harness += module->has_benchmark_harness ? 1 : 0;
        }
    }
    std::set<std::string> devices;
    for (const auto& fx : index.fx) {
        devices.insert(fx.entry.device_types.begin(), fx.entry.device_types.end());
    }
    const auto error = [&](std::string message) {
        return Error{ErrorKind::NotFound, std::move(message), cache_dir.string()};
    };
    constexpr std::string_view kWhat = "cachelens bench times Triton kernels on a CUDA GPU";
    if (triton_modules == 0) {
        if (!devices.empty() && !devices.contains("cuda")) {
            std::string list;
            for (const auto& device : devices) {
                list += (list.empty() ? "" : ", ") + device;
            }
            return error(fmt::format(
                "no Triton kernels to benchmark: its FX graphs were compiled for {}{}; {}", list,
                devices == std::set<std::string>{"cpu"} ? " (C++ kernels)" : "", kWhat));
        }
        if (index.fx.empty() && index.modules.empty()) {
            return error(fmt::format(
                "no Triton kernels to benchmark: no compiled FX graphs or kernel modules; {}",
                kWhat));
        }
        return error(
            fmt::format("no Triton kernels to benchmark: no Triton kernel modules; {}", kWhat));
    }
    if (with_harness == 0) {
        return error(fmt::format(
            "nothing to benchmark: none of the {} Triton kernel module{} has a benchmark harness "
            "(get_args()), which cachelens bench makes a kernel's inputs with; PyTorch writes one "
            "when compiling with TORCHINDUCTOR_BENCHMARK_KERNEL=1",
            triton_modules, triton_modules == 1 ? "" : "s"));
    }
    std::string asked;
    for (const auto& name : options.only) {
        asked += (asked.empty() ? "" : ", ") + name;
    }
    return error(fmt::format("no kernel or module named {} has a benchmark harness here ({} "
                             "module{} with one: `cachelens bench DIR --plan` lists their kernels)",
                             asked, with_harness, with_harness == 1 ? "" : "s"));
}

} // namespace cachelens::bench
