#include "entry_rows.h"

#include <cachelens/cachedir/debug_line.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/entry_links.h>
#include <cachelens/hash/sha256.h>

#include <nlohmann/json.hpp>

namespace cachelens::catalog {

namespace {

using namespace cachedir;

void append_word(std::string& out, std::string_view word) {
    if (word.empty()) {
        return;
    }
    if (!out.empty()) {
        out += ' ';
    }
    out += word;
}

void read_fx(const FxGraphEntry& fx, ParsedEntry& out) {
    FxRow row;
    row.guards_expr = fx.guards_expr;
    row.cache_key = fx.cache_key;
    for (const auto& type : fx.device_types) {
        row.device_types += (row.device_types.empty() ? "" : ",") + type;
    }
    row.time_taken_ns = fx.time_taken_ns;
    row.source_sha256 = hash::sha256_hex(fx.source_code);
    if (const auto role = fx.role; role != cachedir::GraphRole::Unknown) {
        row.role = cachedir::to_string(role);
    }
    out.fx = std::move(row);
    append_word(out.search_keys, fx.key);
    append_word(out.search_keys, fx.cache_key);
    for (const auto& tuner : fx.autotuners) {
        KernelRow kernel{tuner.kernel_name,
                         tuner.heuristic,
                         tuner.grid_type,
                         tuner.module_key,
                         cachedir::cache_relative_path(tuner.best_config_path),
                         static_cast<std::int64_t>(tuner.candidates.size())};
        if (tuner.best_config_path.empty()) {
            kernel.best_config.clear();
        }
        append_word(out.search_names, tuner.kernel_name);
        append_word(out.search_keys, tuner.module_key);
        out.kernels.push_back(std::move(kernel));
    }
    for (const auto& kernel : fx.triton_artifacts) {
        out.triton_refs.push_back(kernel.kernel_hash);
        append_word(out.search_keys, kernel.kernel_hash);
    }
    for (auto line : fx.debug_lines) {
        const cachedir::DebugLine parsed = cachedir::parse_debug_line(line);
        out.debug_lines.push_back({parsed.hash, parsed.name(), parsed.value});
    }
    out.keep_alive = fx.document;
}

void read_aot(const AotAutogradEntry& aot, ParsedEntry& out) {
    AotRow row;
    row.guards_expr = aot.guards_expr;
    if (aot.forward && !aot.forward->key.empty()) {
        row.forward_key = aot.forward->key;
        append_word(out.search_keys, aot.forward->key);
    }
    if (aot.backward && !aot.backward->key.empty()) {
        row.backward_key = aot.backward->key;
        append_word(out.search_keys, aot.backward->key);
    }
    row.forward_time_ns = aot.forward_time_taken_ns;
    row.backward_time_ns = aot.backward_time_taken_ns;
    out.aot = std::move(row);
    out.keep_alive = aot.document;
}

void read_module(const ModuleSource& source, ParsedEntry& out) {
    const KernelModule& module = source.module;
    out.module = ModuleRow{std::string(to_string(module.role)), module.has_benchmark_harness,
                           module.is_autotune_template_candidate};
    for (const auto& kernel : module.kernels) {
        out.kernels.push_back({kernel.name, kernel.heuristic, kernel.grid_type, {}, {}, {}});
        append_word(out.search_names, kernel.name);
    }
    out.source_body = source.text();
    out.keep_alive = source.file;
}

void read_triton(const TritonKernelDir& kernel, ParsedEntry& out) {
    TritonRow row;
    row.device = kernel.device;
    row.module_key = kernel.module_key;
    if (kernel.metadata) {
        row.num_warps = kernel.metadata->num_warps;
        row.num_stages = kernel.metadata->num_stages;
        row.shared = kernel.metadata->shared;
        row.arch = kernel.metadata->arch;
    }
    out.triton = std::move(row);
    append_word(out.search_names, kernel.kernel_name);
    append_word(out.search_keys, kernel.module_key);
    if (!kernel.kernel_name.empty()) {
        out.kernels.push_back({kernel.kernel_name, {}, {}, kernel.module_key, {}, {}});
    }
}

void read_best_config(const BestConfig& best, ParsedEntry& out) {
    out.best_config =
        BestConfigRow{best.config.describe(), best.config.num_warps,  best.config.num_stages,
                      best.triton_cache_hash, best.found_by_coordesc, best.time_taken_ms};
    if (best.triton_cache_hash) {
        out.triton_refs.push_back(*best.triton_cache_hash);
        append_word(out.search_keys, *best.triton_cache_hash);
    }
    out.owned_body = best.config.describe();
}

void read_benchmark_cache(const BenchmarkCache& cache, ParsedEntry& out) {
    for (const auto& choice : cache.choices) {
        out.choices.push_back(
            {choice.op, choice.inputs, choice.precision, choice.choice, choice.ms});
        append_word(out.search_names, choice.choice);
        out.owned_body += choice.op + " " + choice.inputs + "\n";
    }
    append_word(out.search_names, cache.device_name);
}

// triton.autotune's cached timings: found by the function's name and its configs.
void read_triton_autotune(const Entry& entry, const TritonAutotuneResult& result,
                          ParsedEntry& out) {
    append_word(out.search_names, entry.name);
    for (const auto& part : result.key) {
        out.owned_body += part + " ";
    }
    for (const auto& timing : result.timings) {
        out.owned_body += "\n" + timing.config;
    }
}

} // namespace

std::uint8_t search_columns(cachedir::FileKind kind) {
    using cachedir::FileKind;
    switch (kind) {
    case FileKind::FxGraph:
    case FileKind::Triton:
    case FileKind::KeyedCacheValue: // its cache's name
        return kSearchKeys | kSearchNames;
    case FileKind::Module:
    case FileKind::BenchmarkCache:
    case FileKind::TritonAutotune:
        return kSearchKeys | kSearchNames | kSearchBody;
    case FileKind::BestConfig:
        return kSearchKeys | kSearchBody;
    default:
        return kSearchKeys;
    }
}

ParsedEntry parse_for_catalog(const std::filesystem::path& root, const cachedir::Entry& entry) {
    ParsedEntry out;
    out.search_keys = entry.key;
    auto loaded = load_entry(root, entry);
    if (!loaded) {
        out.error = loaded.error().message;
        return out;
    }
    std::visit(
        [&](const auto& content) {
            using T = std::decay_t<decltype(content)>;
            if constexpr (std::is_same_v<T, FxGraphEntry>) {
                read_fx(content, out);
            } else if constexpr (std::is_same_v<T, AotAutogradEntry>) {
                read_aot(content, out);
            } else if constexpr (std::is_same_v<T, ModuleSource>) {
                read_module(content, out);
            } else if constexpr (std::is_same_v<T, TritonKernelDir>) {
                read_triton(content, out);
            } else if constexpr (std::is_same_v<T, BestConfig>) {
                read_best_config(content, out);
            } else if constexpr (std::is_same_v<T, BenchmarkCache>) {
                read_benchmark_cache(content, out);
            } else if constexpr (std::is_same_v<T, TritonAutotuneResult>) {
                read_triton_autotune(entry, content, out);
            } else if constexpr (std::is_same_v<T, KeyedCacheValue>) {
                append_word(out.search_names, content.cache_name);
            }
        },
        *loaded);
    const std::uint8_t columns = search_columns(entry.kind);
    if (((columns & kSearchNames) == 0 && !out.search_names.empty()) ||
        ((columns & kSearchBody) == 0 && !out.search_body().empty())) {
        out = ParsedEntry{};
        out.search_keys = entry.key;
        out.error = "internal: search text in a column its kind does not fill (search_columns)";
    }
    return out;
}

} // namespace cachelens::catalog
