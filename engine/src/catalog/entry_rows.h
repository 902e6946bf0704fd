#pragma once

// What the catalog stores for one entry, read by a worker thread from the
// entry's files. Plain data: the writer thread turns it into rows. Text views
// point into documents `keep_alive` owns.

#include <cachelens/cachedir/cache_dir.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::catalog {

struct FxRow {
    std::optional<std::string_view> guards_expr;
    std::string cache_key;
    std::string device_types; // "cuda,cpu"
    std::optional<std::int64_t> time_taken_ns;
    std::string source_sha256;
    std::optional<std::string_view> role; // forward, backward, inference; none: unknown
};

struct AotRow {
    std::optional<std::string_view> guards_expr;
    std::optional<std::string> forward_key;
    std::optional<std::string> backward_key;
    std::optional<std::int64_t> forward_time_ns;
    std::optional<std::int64_t> backward_time_ns;
};

struct ModuleRow {
    std::string role;
    bool has_benchmark_harness = false;
    bool autotune_candidate = false;
};

struct KernelRow {
    std::string name;
    std::string heuristic;
    std::string grid_type;
    std::string module_key;
    std::string best_config; // relative path of its .best_config, when known
    std::optional<std::int64_t> candidates;
};

struct TritonRow {
    std::string device;
    std::string module_key;
    std::optional<std::int64_t> num_warps;
    std::optional<std::int64_t> num_stages;
    std::optional<std::int64_t> shared;
    std::string arch;
};

struct BestConfigRow {
    std::string config;
    std::optional<std::int64_t> num_warps;
    std::optional<std::int64_t> num_stages;
    std::optional<std::string> triton_cache_hash;
    std::optional<bool> found_by_coordesc;
    std::optional<double> time_taken_ms;
};

struct BenchmarkChoiceRow {
    std::string op, inputs, precision, choice;
    double ms = 0;
};

struct DebugLineRow {
    std::string_view hash;
    std::string name;
    std::string_view value;
};

struct ParsedEntry {
    std::string error; // empty when it parsed
    std::optional<FxRow> fx;
    std::optional<AotRow> aot;
    std::optional<ModuleRow> module;
    std::optional<TritonRow> triton;
    std::optional<BestConfigRow> best_config;
    std::vector<BenchmarkChoiceRow> choices;
    std::vector<KernelRow> kernels;
    std::vector<std::string> triton_refs;
    std::vector<DebugLineRow> debug_lines;
    // Full-text search: keys, kernel names, and body text (source, configs).
    std::string search_keys;
    std::string search_names;
    std::string_view source_body; // a module's source, viewed in keep_alive
    std::string owned_body;       // text made while reading (configs, choices)
    std::shared_ptr<const void> keep_alive;

    std::string_view search_body() const {
        return owned_body.empty() ? source_body : std::string_view(owned_body);
    }
};

// The columns of entry_search (bits) an entry of a kind can fill: the search
// leaves out a column no kind it keeps fills. parse_for_catalog holds its
// readers to it (text elsewhere makes the entry a parse error, never a word
// the search would miss).
inline constexpr std::uint8_t kSearchKeys = 1, kSearchNames = 2, kSearchBody = 4;
std::uint8_t search_columns(cachedir::FileKind kind);

// Reads `entry` of the cache dir `root`. Never fails: a file that does not
// parse gives a ParsedEntry with its error, which the catalog records.
ParsedEntry parse_for_catalog(const std::filesystem::path& root, const cachedir::Entry& entry);

} // namespace cachelens::catalog
