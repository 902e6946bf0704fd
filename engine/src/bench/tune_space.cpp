#include <cachelens/bench/tune_space.h>
#include <cachelens/core/text.h>
#include <cachelens/pickle/access.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <random>
#include <set>

namespace cachelens::bench::tune {

namespace {

using cachedir::ConfigValue;
using cachedir::KernelConfig;
using cachedir::KernelDefinition;

// Inductor's threshold: a try must be more than 0.1% faster to count.
constexpr double kImprovementThreshold = 0.001;
// Grid and random enumerate the space: beyond this many combinations the
// user is asked for a narrower one.
constexpr std::size_t kMaxCombinations = 100'000;

std::optional<std::int64_t> parse_int(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(separator, start);
        parts.push_back(trim_space(text.substr(start, end - start)));
        if (end == std::string_view::npos) {
            return parts;
        }
        start = end + 1;
    }
}

const pickle::Value* meta_value(const std::shared_ptr<const pickle::Document>& meta,
                                std::string_view key) {
    if (!meta || !meta->root().is(pickle::Kind::Dict)) {
        return nullptr;
    }
    return meta->root().find(key);
}

// The size hint of a block prefix ("x", "r0_", "r"). Older Inductor wrote a
// list, read by index: x 0, y 1, z 2, r the last (prefix_to_size_hint).
std::optional<std::int64_t> size_hint(const KernelDefinition& kernel, std::string_view prefix) {
    for (const auto& [name, hint] : kernel.size_hints) {
        if (name == prefix) {
            return hint;
        }
    }
    const bool listed = !kernel.size_hints.empty() && kernel.size_hints.front().first == "0";
    if (!listed) {
        return std::nullopt;
    }
    std::size_t index = 0;
    if (prefix == "x") {
        index = 0;
    } else if (prefix == "y") {
        index = 1;
    } else if (prefix == "z") {
        index = 2;
    } else if (prefix == "r") {
        index = kernel.size_hints.size() - 1;
    } else {
        return std::nullopt;
    }
    if (index >= kernel.size_hints.size()) {
        return std::nullopt;
    }
    return kernel.size_hints[index].second;
}

// TRITON_MAX_BLOCK (torch/_inductor/runtime/hints.py): the same on CUDA from
// 2.4 to 2.11 but for the names (R before 2.7, R0_ and R1_ since); 2.2 and
// 2.3 had X=2048, which a kernel module does not let us tell apart.
std::optional<std::int64_t> max_block(std::string_view prefix, bool hip) {
    if (prefix == "X") {
        return hip ? 8192 : 4096;
    }
    if (prefix == "Y" || prefix == "Z") {
        return 1024;
    }
    if (prefix == "R0_" || prefix == "R") {
        return 4096 * 16;
    }
    if (prefix == "R1_") {
        return 2048 * 16;
    }
    return std::nullopt;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// "R0_BLOCK" -> "R0_", as Inductor's name.strip("BLOCK") gives it.
std::string block_prefix(std::string_view name) {
    const auto strip = [](char c) {
        return std::string_view("BLOCK").find(c) != std::string_view::npos;
    };
    while (!name.empty() && strip(name.front())) {
        name.remove_prefix(1);
    }
    while (!name.empty() && strip(name.back())) {
        name.remove_suffix(1);
    }
    return std::string(name);
}

// num_warps' limit: inductor_meta's device facts when it has them, else the
// device's (get_max_numwarps), which triton_meta's DeviceProperties records.
std::pair<std::int64_t, std::string> warps_max(const KernelDefinition& kernel) {
    const auto from =
        [](const pickle::Value* holder) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
        if (holder == nullptr) {
            return std::nullopt;
        }
        const auto threads = pickle::int_of(holder->find("max_threads_per_block"));
        const auto warp = pickle::int_of(holder->find("warp_size"));
        if (threads && warp && *warp > 0 && *threads >= *warp) {
            return std::pair{*threads, *warp};
        }
        return std::nullopt;
    };
    auto facts = kernel.inductor_meta && kernel.inductor_meta->root().is(pickle::Kind::Dict)
                     ? from(&kernel.inductor_meta->root())
                     : std::nullopt;
    if (!facts) {
        const pickle::Value* device = meta_value(kernel.triton_meta, "device");
        if (device != nullptr && device->is(pickle::Kind::Object)) {
            facts = from(device->kwargs());
        }
    }
    if (!facts) {
        return {32, "1024 threads per block of 32-thread warps (CUDA)"};
    }
    return {facts->first / facts->second,
            fmt::format("{} threads per block of {}-thread warps", facts->first, facts->second)};
}

Field block_field(std::string name, const KernelDefinition& kernel, bool hip) {
    Field field;
    field.name = std::move(name);
    const std::string prefix = block_prefix(field.name);
    const auto limit = max_block(prefix, hip);
    const auto hint = size_hint(kernel, lower(prefix));
    if (limit && hint && *hint < *limit) {
        field.max = *hint;
        field.max_why = fmt::format("size hint {}={}", lower(prefix), *hint);
    } else if (limit) {
        field.max = *limit;
        field.max_why = fmt::format("TRITON_MAX_BLOCK {}={}", prefix, *limit);
    }
    return field;
}

} // namespace

std::string_view to_string(Strategy strategy) {
    switch (strategy) {
    case Strategy::Coordesc:
        return "coordesc";
    case Strategy::Grid:
        return "grid";
    case Strategy::Random:
        return "random";
    }
    return "coordesc";
}

std::optional<Strategy> strategy_from(std::string_view name) {
    for (const Strategy strategy : {Strategy::Coordesc, Strategy::Grid, Strategy::Random}) {
        if (name == to_string(strategy)) {
            return strategy;
        }
    }
    return std::nullopt;
}

std::optional<std::int64_t> field_value(const KernelConfig& config, const Field& field) {
    if (field.name == "num_warps") {
        return config.num_warps;
    }
    if (field.name == "num_stages") {
        return config.num_stages;
    }
    const ConfigValue* value = config.kwarg(field.name);
    if (value == nullptr || !std::holds_alternative<std::int64_t>(*value)) {
        return std::nullopt;
    }
    return std::get<std::int64_t>(*value);
}

void set_field(KernelConfig& config, const Field& field, std::int64_t value) {
    if (field.name == "num_warps") {
        config.num_warps = value;
        return;
    }
    if (field.name == "num_stages") {
        config.num_stages = value;
        return;
    }
    for (auto& [name, existing] : config.kwargs) {
        if (name == field.name) {
            existing = value;
            return;
        }
    }
    config.kwargs.emplace_back(field.name, value);
}

std::string config_key(const KernelConfig& config) {
    std::vector<std::string> kwargs;
    for (const auto& [name, value] : config.kwargs) {
        kwargs.push_back(name + "=" + cachedir::to_string(value));
    }
    std::sort(kwargs.begin(), kwargs.end());
    std::string key;
    for (const auto& kwarg : kwargs) {
        key += kwarg + ",";
    }
    key += fmt::format("w{},s{}", config.num_warps.value_or(0), config.num_stages.value_or(0));
    return key;
}

const Field* Rules::field(std::string_view name) const {
    for (const auto& field : fields) {
        if (field.name == name) {
            return &field;
        }
    }
    return nullptr;
}

std::optional<std::string> Rules::why_invalid(const KernelConfig& config) const {
    for (const auto& field : fields) {
        const auto value = field_value(config, field);
        if (!value) {
            continue;
        }
        if (*value < field.min) {
            return fmt::format("{}={} is below {}", field.name, *value, field.min);
        }
        if (field.max && *value > *field.max) {
            return fmt::format("{}={} is above {} ({})", field.name, *value, *field.max,
                               field.max_why);
        }
    }
    if (rsplit_kwarg) {
        const ConfigValue* split = config.kwarg(*rsplit_kwarg);
        const ConfigValue* x = config.kwarg("XBLOCK");
        if (split != nullptr && x != nullptr && std::holds_alternative<std::int64_t>(*split) &&
            std::holds_alternative<std::int64_t>(*x) &&
            std::get<std::int64_t>(*x) > std::get<std::int64_t>(*split)) {
            return fmt::format("XBLOCK={} is above {}={} (a mix-order reduction)",
                               std::get<std::int64_t>(*x), *rsplit_kwarg,
                               std::get<std::int64_t>(*split));
        }
    }
    return std::nullopt;
}

std::vector<std::int64_t> Rules::neighbours(const Field& field, std::int64_t value, int radius,
                                            bool include_self) const {
    if (field.name == "NUM_STAGES") {
        radius = std::max(radius, 2);
    }
    radius = std::max(radius, 1);
    std::vector<std::int64_t> out;
    std::int64_t current = value;
    for (int i = 0; i < radius; ++i) {
        if (current > std::numeric_limits<std::int64_t>::max() / 2) {
            break;
        }
        current = field.additive ? current + 1 : current * 2;
        if (field.max && current > *field.max) {
            break;
        }
        out.push_back(current);
    }
    current = value;
    for (int i = 0; i < radius; ++i) {
        current = field.additive ? current - 1 : current / 2;
        if (current < field.min) {
            break;
        }
        out.push_back(current);
    }
    if (include_self) {
        out.push_back(value);
    }
    return out;
}

Result<Rules> rules_for(const KernelDefinition& kernel, const KernelConfig& start) {
    Rules rules;
    const auto has_hint = [&](std::string_view prefix) {
        return std::any_of(kernel.size_hints.begin(), kernel.size_hints.end(),
                           [&](const auto& hint) { return hint.first == prefix; });
    };
    const bool tiled = has_hint("r0_") || has_hint("r1_") || start.kwarg("R0_BLOCK") != nullptr ||
                       start.kwarg("R1_BLOCK") != nullptr;
    const bool hip = pickle::bool_of(meta_value(kernel.inductor_meta, "is_hip")).value_or(false);
    const bool native_matmul =
        pickle::bool_of(meta_value(kernel.triton_meta, "native_matmul")).value_or(false);
    const bool mix_order = !pickle::is_none(meta_value(kernel.inductor_meta, "RSPLIT_SIZE"));

    std::vector<std::string> names = {"XBLOCK", "YBLOCK", "ZBLOCK"};
    if (tiled) {
        names.insert(names.end(), {"R0_BLOCK", "R1_BLOCK"});
    } else {
        names.push_back("RBLOCK");
    }
    names.insert(names.end(), {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps"});
    if (native_matmul) {
        names.push_back("num_stages");
        std::erase(names, "ZBLOCK");
    }
    if (mix_order) {
        names.push_back("NUM_STAGES");
        rules.rsplit_kwarg = "RSPLIT_SIZE";
    }
    if (hip) {
        rules.notes.push_back("waves_per_eu (ROCm) is not tuned: cachelens times kernels on CUDA");
    }
    if (!kernel.config_args.empty()) {
        // A template's tile sizes are constexprs of its source (inductor_meta's
        // config_args), chosen when Inductor autotuned the template's choices.
        std::string baked;
        for (const auto& [name, value] : kernel.config_args) {
            if (name.starts_with("BLOCK_") && start.kwarg(name) == nullptr) {
                baked += (baked.empty() ? "" : ", ") + name + "=" + cachedir::to_string(value);
            }
        }
        if (!baked.empty()) {
            rules.notes.push_back(baked + " are fixed in this template's source (config_args): "
                                          "Inductor chose them among the template's choices, and "
                                          "its coordinate descent does not change them");
        }
    }
    const auto [warps, warps_why] = warps_max(kernel);
    for (const auto& name : names) {
        Field field;
        if (name == "num_warps") {
            field.name = name;
            field.is_kwarg = false;
            field.max = warps;
            field.max_why = warps_why;
        } else if (name == "num_stages" || name == "NUM_STAGES") {
            field.name = name;
            field.is_kwarg = name == "NUM_STAGES";
            field.additive = true;
        } else {
            field = block_field(name, kernel, hip);
            if (native_matmul && (name == "XBLOCK" || name == "YBLOCK" || name == "R0_BLOCK")) {
                field.min = 16; // tl.dot takes no smaller
            }
        }
        if (!field_value(start, field)) {
            if (name == "R0_BLOCK" || name == "RBLOCK") {
                if (kernel.heuristic.find("persistent") != std::string::npos) {
                    rules.notes.push_back(name +
                                          " is not tuned: a persistent reduction's config has "
                                          "none (Inductor keeps the whole row in one block)");
                }
            }
            continue;
        }
        rules.fields.push_back(std::move(field));
    }
    const bool has_reduction_block =
        std::any_of(rules.fields.begin(), rules.fields.end(), [](const Field& field) {
            return field.name == "R0_BLOCK" || field.name == "R1_BLOCK" || field.name == "RBLOCK";
        });
    const std::string reduction_names =
        !has_reduction_block ? std::string()
        : tiled ? std::string(", R0_=65536, R1_=32768 (R0_/R1_ names: PyTorch 2.7 or later)")
                : std::string(", R=65536 (RBLOCK: PyTorch 2.6 or earlier)");
    rules.generation = fmt::format(
        "Inductor's coordinate descent rules{}: TRITON_MAX_BLOCK X={}, Y=1024, Z=1024{}; "
        "num_warps up to {} ({})",
        native_matmul ? " for a native matmul (num_stages tuned, no ZBLOCK, blocks of 16 or more)"
        : mix_order   ? " for a mix-order reduction (NUM_STAGES tuned, XBLOCK up to RSPLIT_SIZE)"
                      : "",
        hip ? 8192 : 4096, reduction_names, warps, warps_why);
    if (rules.fields.empty()) {
        return fail(ErrorKind::InvalidArgument,
                    fmt::format("its config ({}) has none of the fields Inductor's coordinate "
                                "descent tunes",
                                start.describe()),
                    kernel.name);
    }
    return rules;
}

std::string describe_fields(const Rules& rules) {
    std::string out;
    for (const auto& field : rules.fields) {
        if (!out.empty()) {
            out += ", ";
        }
        out += field.max ? fmt::format("{} ({}..{}: {})", field.name, field.min, *field.max,
                                       field.max_why)
                         : fmt::format("{} ({} or more)", field.name, field.min);
    }
    return out;
}

std::string Space::describe() const {
    std::string out;
    for (const auto& [name, list] : values) {
        if (!out.empty()) {
            out += ", ";
        }
        out += name + "=";
        for (std::size_t i = 0; i < list.size(); ++i) {
            out += (i == 0 ? "" : "|") + std::to_string(list[i]);
        }
    }
    return out;
}

Result<Space> parse_space(std::string_view text, const Rules& rules) {
    Space space;
    const auto bad = [&](std::string why) {
        return fail(ErrorKind::InvalidArgument,
                    "--space " + std::string(text) + ": " + why +
                        "; this kernel's fields: " + describe_fields(rules));
    };
    if (trim_space(text).empty()) {
        return bad("it names no field");
    }
    for (const auto part : split(text, ',')) {
        const std::size_t equals = part.find('=');
        if (equals == std::string_view::npos) {
            return bad(fmt::format("'{}' is not NAME=VALUES", part));
        }
        const std::string name(trim_space(part.substr(0, equals)));
        const std::string_view spec = trim_space(part.substr(equals + 1));
        const Field* field = rules.field(name);
        if (field == nullptr) {
            return bad(fmt::format("{} is not a field Inductor tunes for this kernel", name));
        }
        if (std::any_of(space.values.begin(), space.values.end(),
                        [&](const auto& named) { return named.first == name; })) {
            return bad(name + " is named twice");
        }
        std::vector<std::int64_t> wanted;
        if (const std::size_t dots = spec.find(".."); dots != std::string_view::npos) {
            const auto low = parse_int(trim_space(spec.substr(0, dots)));
            const auto high = parse_int(trim_space(spec.substr(dots + 2)));
            if (!low || !high || *low > *high || *low <= 0) {
                return bad(fmt::format("'{}' is not a range LOW..HIGH of positive integers", spec));
            }
            for (std::int64_t value = *low; value <= *high;
                 value = field->additive ? value + 1 : value * 2) {
                wanted.push_back(value);
                if (wanted.size() > 4096 || value > std::numeric_limits<std::int64_t>::max() / 2) {
                    return bad(fmt::format("'{}' holds too many values", spec));
                }
            }
        } else {
            for (const auto item : split(spec, '|')) {
                const auto value = parse_int(item);
                if (!value) {
                    return bad(fmt::format("'{}' is not an integer", item));
                }
                if (std::find(wanted.begin(), wanted.end(), *value) == wanted.end()) {
                    wanted.push_back(*value);
                }
            }
        }
        std::vector<std::int64_t> kept;
        std::vector<std::int64_t> too_small;
        std::vector<std::int64_t> too_large;
        for (const auto value : wanted) {
            if (value < field->min) {
                too_small.push_back(value);
            } else if (field->max && value > *field->max) {
                too_large.push_back(value);
            } else {
                kept.push_back(value);
            }
        }
        const auto join = [](const std::vector<std::int64_t>& list) {
            std::string out;
            for (const auto value : list) {
                out += (out.empty() ? "" : ", ") + std::to_string(value);
            }
            return out;
        };
        if (!too_small.empty()) {
            space.dropped.push_back(
                fmt::format("{}={} left out: below {}", name, join(too_small), field->min));
        }
        if (!too_large.empty()) {
            space.dropped.push_back(fmt::format("{}={} left out: above {} ({})", name,
                                                join(too_large), *field->max, field->max_why));
        }
        if (kept.empty()) {
            return bad(fmt::format("no value of {} is allowed: {}", name, space.dropped.back()));
        }
        space.values.emplace_back(name, std::move(kept));
    }
    std::size_t combinations = 1;
    for (const auto& [name, list] : space.values) {
        combinations *= list.size();
        if (combinations > kMaxCombinations) {
            return bad(fmt::format("it holds more than {} configs: narrow it", kMaxCombinations));
        }
    }
    return space;
}

std::string Budget::describe() const {
    std::string out;
    if (time) {
        out = fmt::format("{} s", time->count());
    }
    if (configs) {
        out += (out.empty() ? "" : " or ") + fmt::format("{} configs", *configs);
    }
    return out.empty() ? "no limit" : out;
}

Result<Budget> parse_budget(std::string_view text) {
    Budget budget;
    const auto bad = [&](std::string_view part) {
        return fail(ErrorKind::InvalidArgument,
                    fmt::format("--budget {}: '{}' is neither a time (90s, 5m, 1h) nor a number of "
                                "configs (40)",
                                text, part));
    };
    for (const auto part : split(text, ',')) {
        if (part.empty()) {
            return bad(part);
        }
        const char unit = part.back();
        if (unit == 's' || unit == 'm' || unit == 'h') {
            const auto count = parse_int(part.substr(0, part.size() - 1));
            if (!count || *count <= 0 || *count > 7 * 24 * 3600) {
                return bad(part);
            }
            const std::int64_t scale = unit == 's' ? 1 : unit == 'm' ? 60 : 3600;
            budget.time = std::chrono::seconds(*count * scale);
        } else {
            const auto count = parse_int(part);
            if (!count || *count <= 0 || *count > 1'000'000) {
                return bad(part);
            }
            budget.configs = static_cast<std::size_t>(*count);
        }
    }
    return budget;
}

std::vector<KernelConfig> grid_configs(const Rules& rules, const Space& space,
                                       const KernelConfig& start) {
    std::vector<KernelConfig> out;
    std::set<std::string> seen{config_key(start)};
    std::vector<std::size_t> at(space.values.size(), 0);
    if (space.values.empty()) {
        return out;
    }
    for (;;) {
        KernelConfig config = start;
        for (std::size_t i = 0; i < space.values.size(); ++i) {
            set_field(config, *rules.field(space.values[i].first), space.values[i].second[at[i]]);
        }
        if (!rules.why_invalid(config) && seen.insert(config_key(config)).second) {
            out.push_back(std::move(config));
        }
        // The last field turns fastest, as itertools.product does.
        std::size_t i = space.values.size();
        while (i > 0) {
            --i;
            if (++at[i] < space.values[i].second.size()) {
                break;
            }
            at[i] = 0;
            if (i == 0) {
                return out;
            }
        }
    }
}

std::vector<KernelConfig> random_configs(const Rules& rules, const Space& space,
                                         const KernelConfig& start, std::size_t count,
                                         std::uint64_t seed) {
    std::vector<KernelConfig> all = grid_configs(rules, space, start);
    std::mt19937_64 random(seed);
    const std::size_t take = std::min(count, all.size());
    for (std::size_t i = 0; i < take; ++i) {
        std::uniform_int_distribution<std::size_t> pick(i, all.size() - 1);
        std::swap(all[i], all[pick(random)]);
    }
    all.resize(take);
    return all;
}

namespace {

// Every config of the all-directions box around `best`: the product of each
// field's neighbours at `radius` and its own value (check_all_tuning_directions).
std::vector<KernelConfig> all_directions(const Rules& rules, const KernelConfig& best, int radius) {
    std::vector<std::pair<const Field*, std::vector<std::int64_t>>> choices;
    for (const auto& field : rules.fields) {
        if (const auto value = field_value(best, field)) {
            choices.emplace_back(&field, rules.neighbours(field, *value, radius, true));
        }
    }
    std::vector<KernelConfig> out;
    if (choices.empty()) {
        return out;
    }
    std::vector<std::size_t> at(choices.size(), 0);
    for (;;) {
        KernelConfig config = best;
        for (std::size_t i = 0; i < choices.size(); ++i) {
            set_field(config, *choices[i].first, choices[i].second[at[i]]);
        }
        if (!rules.why_invalid(config)) {
            out.push_back(std::move(config));
        }
        std::size_t i = choices.size();
        while (i > 0) {
            --i;
            if (++at[i] < choices[i].second.size()) {
                break;
            }
            at[i] = 0;
            if (i == 0) {
                return out;
            }
        }
    }
}

// Each field's radius-1 neighbours of `best`, in Inductor's order.
std::vector<KernelConfig> one_step(const Rules& rules, const KernelConfig& best) {
    std::vector<KernelConfig> out;
    for (const auto& field : rules.fields) {
        const auto value = field_value(best, field);
        if (!value) {
            continue;
        }
        for (const auto next : rules.neighbours(field, *value, 1)) {
            KernelConfig config = best;
            set_field(config, field, next);
            if (!rules.why_invalid(config)) {
                out.push_back(std::move(config));
            }
        }
    }
    return out;
}

// The measurements of one search: each config once, as CoordescTuner's
// cached_benchmark_results.
class Tries {
public:
    Tries(const Measure& measure, const KeepGoing& keep_going)
        : measure_(measure)
        , keep_going_(keep_going) {}

    void seed(const KernelConfig& config, double ms) { times_[config_key(config)] = ms; }

    // nullopt with stopped() set when the search must end first.
    std::optional<double> time(const KernelConfig& config) {
        const std::string key = config_key(config);
        if (const auto it = times_.find(key); it != times_.end()) {
            return it->second;
        }
        if (keep_going_ && !keep_going_()) {
            stopped_ = true;
            return std::nullopt;
        }
        const auto ms = measure_(config);
        times_[key] = ms;
        return ms;
    }
    bool known(const KernelConfig& config) const { return times_.contains(config_key(config)); }
    bool stopped() const { return stopped_; }
    std::size_t count() const { return times_.size(); }

private:
    const Measure& measure_;
    const KeepGoing& keep_going_;
    std::map<std::string, std::optional<double>> times_;
    bool stopped_ = false;
};

void prefetch_unknown(const Prefetch& prefetch, const Tries& tries,
                      const std::vector<KernelConfig>& configs) {
    if (!prefetch) {
        return;
    }
    std::vector<KernelConfig> unknown;
    for (const auto& config : configs) {
        if (!tries.known(config)) {
            unknown.push_back(config);
        }
    }
    if (!unknown.empty()) {
        prefetch(unknown);
    }
}

} // namespace

bool has_improvement(double baseline_ms, std::optional<double> candidate_ms) {
    return candidate_ms && *candidate_ms < baseline_ms * (1 - kImprovementThreshold);
}

std::vector<PlannedTry> coordesc_first_tries(const Rules& rules, const KernelConfig& start,
                                             int radius) {
    std::vector<PlannedTry> out;
    std::set<std::string> seen{config_key(start)};
    for (auto& config : one_step(rules, start)) {
        if (seen.insert(config_key(config)).second) {
            out.push_back({std::move(config), "step 1"});
        }
    }
    const std::string phase = fmt::format("all directions (radius {})", radius);
    for (auto& config : all_directions(rules, start, radius)) {
        if (seen.insert(config_key(config)).second) {
            out.push_back({std::move(config), phase});
        }
    }
    return out;
}

SearchOutcome coordinate_descent(const Rules& rules, const KernelConfig& start, double start_ms,
                                 const Measure& measure, const Prefetch& prefetch,
                                 const KeepGoing& keep_going, int all_directions_radius) {
    Tries tries(measure, keep_going);
    tries.seed(start, start_ms);
    KernelConfig best = start;
    double best_ms = start_ms;
    bool improved = true;
    while (improved && !tries.stopped()) {
        improved = false;
        prefetch_unknown(prefetch, tries, one_step(rules, best));
        for (const auto& field : rules.fields) {
            const auto value = field_value(best, field);
            if (!value) {
                continue;
            }
            for (const auto next : rules.neighbours(field, *value, 1)) {
                KernelConfig candidate = best;
                set_field(candidate, field, next);
                if (rules.why_invalid(candidate)) {
                    continue;
                }
                const auto ms = tries.time(candidate);
                if (tries.stopped()) {
                    return {best, best_ms, tries.count(), true};
                }
                if (has_improvement(best_ms, ms)) {
                    improved = true;
                    best = std::move(candidate);
                    best_ms = *ms;
                    prefetch_unknown(prefetch, tries, one_step(rules, best));
                }
            }
        }
        if (!improved && all_directions_radius > 0) {
            // check_all_tuning_directions: every choice compared with the best
            // so far, which moves as it goes.
            const std::vector<KernelConfig> box =
                all_directions(rules, best, all_directions_radius);
            prefetch_unknown(prefetch, tries, box);
            for (const auto& candidate : box) {
                const auto ms = tries.time(candidate);
                if (tries.stopped()) {
                    return {best, best_ms, tries.count(), true};
                }
                if (has_improvement(best_ms, ms)) {
                    improved = true;
                    best = candidate;
                    best_ms = *ms;
                }
            }
        }
    }
    return {best, best_ms, tries.count(), tries.stopped()};
}

SearchOutcome measure_each(const std::vector<KernelConfig>& configs, const KernelConfig& start,
                           double start_ms, const Measure& measure, const Prefetch& prefetch,
                           const KeepGoing& keep_going, std::size_t lookahead) {
    Tries tries(measure, keep_going);
    tries.seed(start, start_ms);
    KernelConfig best = start;
    double best_ms = start_ms;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        if (prefetch && lookahead > 0 && i % lookahead == 0) {
            const auto end = std::min(configs.size(), i + 2 * lookahead);
            prefetch_unknown(
                prefetch, tries,
                std::vector<KernelConfig>(configs.begin() + static_cast<std::ptrdiff_t>(i),
                                          configs.begin() + static_cast<std::ptrdiff_t>(end)));
        }
        const auto ms = tries.time(configs[i]);
        if (tries.stopped()) {
            return {best, best_ms, tries.count(), true};
        }
        if (has_improvement(best_ms, ms)) {
            best = configs[i];
            best_ms = *ms;
        }
    }
    return {best, best_ms, tries.count(), false};
}

} // namespace cachelens::bench::tune
