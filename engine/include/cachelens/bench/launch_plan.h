#pragma once

// How to launch one cached Triton cubin through the CUDA driver API, built
// without a GPU (formats.md §5): the kernel module gives the signature, the
// benchmark harness (get_args()) the tensors and ints, the grid type and the
// config the grid; the candidate's Triton files (a triton/<device>/<hash>/
// dir, or the same files carried in the FX entry's bundle) give num_warps,
// shared memory, scratch sizes, the PTX .entry parameters and the cubin.
//
// Candidates per kernel: the FX entries' Triton bundles list every compiled
// config (the authoritative map from config to cubin); a kernel module no FX
// entry covers falls back to the Triton dirs whose PTX `.file 1` names it.
// The kernel's .best_config marks the current winner (cachedir::current_best);
// a coordinate-descent winner none of the candidates is adds its own cubin.

#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/kernel_config.h>
#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/core/error.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::bench {

// One parameter slot of the kernel's launch, in the PTX .entry's order.
struct LaunchArg {
    enum class Kind : std::uint8_t {
        Buffer,        // a device pointer to a buffer made for the run
        Int,           // an integer scalar (`bytes` wide: 4 or 8)
        Float,         // a float scalar (`bytes` wide: 4 = fp32/fp16/bf16 passed as fp32, 8 = fp64)
        GlobalScratch, // Triton's trailing scratch pointers: null when the size is 0
        ProfileScratch,
    };
    Kind kind = Kind::Buffer;
    std::string name;        // the signature's name ("in_ptr0"); scratch: "global_scratch"
    std::string type;        // the signature's type ("*fp32", "i32"); scratch: "*"
    std::uint32_t bytes = 8; // width of the slot in the parameter buffer
    // Buffer: the tensor get_args() makes.
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> stride;
    std::string dtype;              // torch dtype name: float32, bfloat16, int64, bool ...
    std::uint64_t buffer_bytes = 0; // (1 + sum((shape-1)*stride)) * element size; 0 for numel 0
    bool random_fill = false;       // floating dtypes random in [0, 1), others zero (rand_strided)
    // Int / Float.
    std::int64_t integer = 0;
    double real = 0.0;
    // Scratch: bytes per program (metadata *_scratch_size) and alignment; the
    // buffer is grid size x that.
    std::uint64_t scratch_bytes_per_program = 0;
    std::uint64_t scratch_align = 1;
};

// Where the cubin and its facts come from.
struct TritonSource {
    std::string triton_hash;   // hex, as the bundle and .best_config write it
    std::filesystem::path dir; // <cache dir>/triton/<device>/<base32 hash>, when on disk
    std::string fx_entry;      // or: the FX entry carrying it (path relative to the cache dir)
    std::string cubin_name;    // "<kernel>.cubin"
};

struct LaunchPlan {
    std::string kernel_name;       // the PTX .entry name
    std::string module_key;        // c<hash> of the kernel module
    std::filesystem::path module;  // the module file (absolute: under the cache dir)
    cachedir::KernelConfig config; // the candidate's kwargs, num_warps, num_stages
    TritonSource source;
    bool is_current_best = false; // the .best_config's triton_cache_hash names this cubin
    std::string grid_type;        // Grid1D, Grid2D, Grid3D, FixedGrid
    std::array<std::uint32_t, 3> grid{1, 1, 1};
    std::uint32_t block_threads = 0; // 32 * num_warps
    std::uint32_t shared_bytes = 0;  // dynamic shared memory (metadata `shared`)
    std::vector<LaunchArg> args;     // one per PTX .entry parameter, in order
    std::uint64_t total_buffer_bytes() const;
};

// One kernel (name + module) and everything known about benchmarking it.
struct KernelCandidates {
    std::string kernel_name;
    std::string module_key;
    std::filesystem::path module;
    std::optional<std::filesystem::path> best_config_path; // the kernel's .best_config, if any
    std::optional<cachedir::BestConfig> best_config;
    // inductor_meta's coordinate_descent_tuning: PyTorch then takes a
    // .best_config marked found_by_coordesc as it is, and tunes any other
    // config further (accept.h).
    bool coordinate_descent_tuning = false;
    std::vector<LaunchPlan> plans;
    // Candidates that cannot be planned, each with why ("unsupported grid type
    // Grid4D", "no benchmark harness", "PTX takes 7 parameters, the plan 6").
    std::vector<std::pair<std::string, std::string>> unplannable; // (what, why)
};

struct PlanOptions {
    // Kernel names or module keys (c<hash>) to plan; empty: every kernel with a harness.
    std::vector<std::string> only;
    bool all_configs = true; // false: only the current best config of each kernel
};

// Plans every kernel module with a benchmark harness in `cache_dir`. Errors are
// for the dir as a whole; per-kernel problems go into `unplannable`.
Result<std::vector<KernelCandidates>> plan_kernels(const std::filesystem::path& cache_dir,
                                                   const PlanOptions& options = {});

// A config compiled outside the cache (cachelens tune): `triton_dir` is the
// dir Triton's compile made for it, planned against the kernel's def with the
// same checks as a cached candidate (warps, threads, parameters, grid).
Result<LaunchPlan> plan_config_in_dir(const KernelCandidates& kernel,
                                      const cachedir::KernelDefinition& definition,
                                      const cachedir::KernelConfig& config,
                                      const std::filesystem::path& triton_dir);

// Why plan_kernels() gave no kernel at all for `cache_dir`, as an error for
// the user: no Triton kernel modules (with the device its FX graphs were
// compiled for: a CPU cache has C++ kernels), modules without a benchmark
// harness (TORCHINDUCTOR_BENCHMARK_KERNEL=1 writes one), or none of
// `options.only` among those with one.
Error nothing_to_bench(const std::filesystem::path& cache_dir, const PlanOptions& options = {});

// What a run of the current best configs says of a kernel no .best_config
// names a candidate of (plan_kernels without all_configs, and the Benchmarks
// page over a listing of every config): "no .best_config names one of its 3
// compiled configs". The caller says how to see them.
std::string no_current_best(std::size_t configs);

// Bytes per element of a torch dtype name ("float32" -> 4); nullopt when unknown.
std::optional<std::uint32_t> dtype_size(std::string_view dtype);

} // namespace cachelens::bench
