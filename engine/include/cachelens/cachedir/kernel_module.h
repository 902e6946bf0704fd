#pragma once

// A generated Python module from the cache (`<xx>/c<hash>.py`, formats.md §5),
// read line by line and through the Python literal reader, never executed.
//
// Two kinds hold Triton kernels. A kernel module defines them at the top
// level; a wrapper module (the compiled graph, with `call(args)`) carries each
// kernel's module text inside `async_compile.triton('<name>', '''...''')`
// (PyTorch 2.0: `async_compile.triton('''...''')`, the name only on the left).
// Either way a kernel is a `@triton_heuristics.<heuristic>(...)` decorator
// (2.0, 2.1: `@<heuristic>(...)`, imported by name, with one `meta=` dict),
// then `@triton.jit`, then `def <name>(<params>):` (`def triton_` up to 2.5,
// the real name in inductor_meta's kernel_name), usually followed by its
// benchmark harness: `get_args()`, `call(args)`, `benchmark_all_configs(args)`.
//
// What cannot be read is reported, not fatal: a kernel whose decorator is
// malformed keeps what was read before the fault and says what failed in
// `problems`, and the rest of the module is still read.

#include <cachelens/cachedir/kernel_config.h>
#include <cachelens/core/error.h>
#include <cachelens/pickle/value.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::cachedir {

enum class ModuleRole : std::uint8_t {
    TritonKernels, // Triton kernels defined at the top level (plus their harness)
    Wrapper,       // a compiled graph: call(args) launching kernels
    CppWrapper,    // cpp_wrapper mode: Python glue loading a C++ wrapper
    Other,
};

std::string_view to_string(ModuleRole role);

// One parameter of a kernel's def: `XBLOCK : tl.constexpr` is {"XBLOCK", "tl.constexpr"}.
struct KernelParameter {
    std::string name;
    std::string annotation; // empty when there is none
};

// One entry of triton_meta['signature']: {"in_ptr0", "*fp32"}, {"XBLOCK", "constexpr"}.
struct SignatureEntry {
    std::string name;
    std::string type;
};

// A tensor argument made by `rand_strided(shape, stride, device=..., dtype=...)`.
struct TensorSpec {
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> stride;
    std::string device; // "cuda:0"
    std::string dtype;  // the torch dtype's name without "torch.": "float32"
};

// One value get_args() returns.
struct HarnessArg {
    enum class Kind : std::uint8_t { Tensor, Int, Float, Unknown };
    Kind kind = Kind::Unknown;
    std::string name;         // the variable returned ("arg_0"); empty for a literal
    TensorSpec tensor;        // Kind::Tensor
    std::int64_t integer = 0; // Kind::Int
    double real = 0.0;        // Kind::Float
};

// get_args() and the entry points that use it.
struct BenchmarkHarness {
    std::size_t get_args_line = 0; // 1-based line of `def get_args():`; 0 when there is none
    std::vector<HarnessArg> args;  // what get_args() returns, in order
    bool has_call = false;         // `def call(args)` (or `call = ...` in a wrapper)
    bool has_benchmark_all_configs = false;
    std::vector<std::string> problems; // what could not be read
};

struct KernelDefinition {
    std::string name;      // the def's name
    std::string heuristic; // pointwise, reduction, persistent_reduction, template, ... as written
    std::vector<KernelParameter> parameters;
    std::size_t decorator_line = 0; // 1-based lines in the module file
    std::size_t def_line = 0;
    // The name given to async_compile.triton() when the kernel sits in a
    // wrapper's string; empty for a top-level kernel.
    std::string wrapper_binding;

    // Decorator arguments.
    std::vector<std::pair<std::string, std::int64_t>> size_hints; // {"x", 4096}, {"r0_", 4096}
    std::string reduction_hint;                                   // "INNER" (ReductionHint.INNER)
    std::optional<std::int64_t> num_stages;                       // template kernels
    std::optional<std::int64_t> num_warps;

    // From triton_meta.
    std::vector<SignatureEntry> signature; // in the order written
    std::vector<std::pair<std::string, ConfigValue>> constants;

    // From inductor_meta.
    std::string grid_type;   // Grid1D, Grid2D, FixedGrid, ...
    std::string kernel_name; // may be "Placeholder.DESCRIPTIVE_NAME"
    std::optional<double> kernel_num_gb;
    std::optional<std::int64_t> kernel_flop;
    std::vector<std::pair<std::string, ConfigValue>> config_args; // template constexprs
    std::vector<std::string> fixed_grid;          // launcher args giving a FixedGrid
    std::vector<std::string> extra_launcher_args; // appended to the kernel's args at launch
    std::vector<std::string> mutated_arg_names;
    // Whether the autotuner runs coordinate descent after the heuristic
    // configs; it decides which .best_config PyTorch honours.
    std::optional<bool> coordinate_descent_tuning;

    // The decorator's dicts as read, for display; null when absent or unreadable.
    std::shared_ptr<const pickle::Document> triton_meta;
    std::shared_ptr<const pickle::Document> inductor_meta;

    // An autotuning candidate rather than a kernel of the graph: Inductor
    // benchmarks choices under a placeholder name or a bare `triton_`
    // (2.6 on; up to 2.5 every kernel's def is `triton_`).
    bool is_benchmark_candidate = false;

    // The kernel's name as the graph knows it: the def's, or where that is
    // the bare `triton_` of PyTorch 2.0 to 2.5, inductor_meta's kernel_name
    // (2.1 on) or the name the wrapper binds it to (2.0).
    std::string display_name() const;

    BenchmarkHarness harness;
    std::vector<std::string> problems; // what could not be read; empty when all was
};

struct KernelModule {
    ModuleRole role = ModuleRole::Other;
    // The text contains `def get_args()` (golden modules[].has_benchmark_harness).
    bool has_benchmark_harness = false;
    // A `@triton_heuristics.template(` kernel named 'Placeholder.DESCRIPTIVE_NAME':
    // a max-autotune choice. Without a harness, PyTorch names such a module by
    // something other than the code_hash of its content; one with a harness
    // (an epilogue-fusion benchmark) is named by its code_hash like any other.
    bool is_autotune_template_candidate = false;
    // The distinct names matching ^def (triton_\w+)\( (multi-line), in file order,
    // inside kernel strings too (golden modules[].kernels).
    std::vector<std::string> kernel_def_names;
    std::vector<KernelDefinition> kernels; // every decorated kernel, in file order
    // A wrapper's own get_args()/call: inputs to run the whole graph.
    BenchmarkHarness wrapper_harness;
    std::vector<std::string> problems; // module-level faults (an unterminated kernel string)

    // kernel_def_names; for a module of PyTorch 2.0 to 2.5, whose defs are all
    // `triton_`, the decorated kernels' display names.
    std::vector<std::string> kernel_names() const;
    const KernelDefinition* find_kernel(std::string_view name) const;
};

// Reads a module's text. Document strings view `text`, which `keep_alive`
// must own; when it is null the text is copied. Fails only when `text` is not
// UTF-8 source text; faults inside are reported in the result's problems.
Result<KernelModule> parse_kernel_module(std::string_view text,
                                         std::shared_ptr<const void> keep_alive = {});

// Reads the module file at `path`; errors name it.
Result<KernelModule> read_kernel_module(const std::filesystem::path& path);

} // namespace cachelens::cachedir
