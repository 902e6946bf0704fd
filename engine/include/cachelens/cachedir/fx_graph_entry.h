#pragma once

// One compiled FX graph: `fxgraph/<key[1:3]>/<key>/<name>`, a pickle of
// torch._inductor.output_code.CompiledFxGraph (formats.md §2). The struct
// holds views into its decoded document, which it keeps alive.

#include <cachelens/cachedir/kernel_config.h>
#include <cachelens/core/error.h>
#include <cachelens/pickle/value.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::cachedir {

// One file of a compiled Triton kernel carried inside the entry.
struct TritonArtifactFile {
    std::string name;
    std::string_view payload; // the file's bytes, inside the document
};

// TritonKernelArtifacts: the files of one triton/<device>/<kernel_hash>/ dir.
struct TritonKernelArtifacts {
    std::string kernel_hash; // the Triton dir name
    std::int64_t device = 0;
    std::vector<TritonArtifactFile> files;
};

// One autotune candidate (StaticTritonCompileResult): a config and the
// launcher facts of the cubin compiled for it.
struct CompiledCandidate {
    std::string result_class; // StaticTritonCompileResult, TritonCompileResult, ...
    KernelConfig config;
    std::string kernel_name;
    std::vector<std::string> arg_names;
    std::string
        arg_types; // one letter per runtime arg: O pointer, i int32, l int64, f float32, ...
    std::vector<std::int64_t> declared_constexprs;
    std::optional<std::int64_t> num_warps;
    std::optional<std::int64_t> shared;
    bool has_global_scratch = false;
    bool has_profile_scratch = false;
    std::string triton_hash; // hex
    // triton/<device>/<this>/ holds the candidate's cubin.
    std::string triton_dir() const;
};

// StaticallyLaunchedAutotuner: one kernel of the graph and its candidates.
struct KernelAutotuner {
    std::string cache_key;
    std::string kernel_name;
    std::string module_path; // where the kernel module was, on the compiling machine
    std::string module_key;  // its "c<hash>" (CachingAutotuner.kernel_hash)
    std::string heuristic;   // pointwise, reduction, persistent_reduction, template, ...
    std::vector<std::pair<std::string, std::int64_t>> size_hints;
    std::string grid_type;
    std::vector<CompiledCandidate> candidates;
    // Where the autotuner saves its .best_config (a path on the compiling machine).
    std::string best_config_path;
};

struct FxGraphEntry {
    std::string key; // _fx_graph_cache_key ("f...")
    std::string class_name;
    std::optional<std::string_view> guards_expr;
    std::vector<std::string_view> debug_lines;
    std::string_view source_code; // the wrapper module
    std::string cache_key;        // the wrapper module's "c<hash>"
    std::vector<std::string> device_types;
    std::vector<std::int64_t> device_idxs;
    std::optional<std::int64_t> time_taken_ns;
    std::vector<std::pair<std::string, std::int64_t>> metrics_deltas;
    std::vector<std::pair<std::string, std::int64_t>> counter_deltas;
    std::vector<TritonKernelArtifacts> triton_artifacts;
    std::vector<KernelAutotuner> autotuners;
    // Per output: its strides as sympy expression text, or nullopt (None).
    std::vector<std::optional<std::vector<std::string>>> output_strides;
    std::vector<std::string> mutated_inputs;
    std::optional<std::string_view> runnable_graph;
    std::optional<std::string_view> post_grad_graph;
    std::vector<std::string_view> attribute_names; // every field the pickle set, in order

    std::shared_ptr<const pickle::Document> document;
    const pickle::Value& root() const { return document->root(); }
    const pickle::Value* attribute(std::string_view name) const;
};

// What an FX graph is to AOTAutograd, from its key's fx_kwargs debug lines
// (is_backward, is_inference): the forward or backward graph of a training
// compile, or an inference graph. Unknown when the lines do not say.
enum class GraphRole { Forward, Backward, Inference, Unknown };

std::string_view to_string(GraphRole role); // "forward", "backward", "inference", "unknown"
GraphRole graph_role(std::span<const std::string_view> debug_lines);

// The calls of the user's code a graph was traced from, as far as its
// wrapper module says: the FX node names in Inductor's "Topologically Sorted
// Source Nodes: [...]" comments, which Dynamo names after the call (linear,
// linear_1 for the second one, layer_norm). In order of first appearance,
// each with how many distinct nodes of that name there are; the nodes
// Inductor's own decompositions add (names ending in _default) are left out.
struct TracedCall {
    std::string name;
    int count = 0;
};
std::vector<TracedCall> traced_calls(std::string_view source_code);
// "layer_norm, gelu, linear x2"
std::string describe(std::span<const TracedCall> calls);

// Maps the decoded pickle to the struct; fails when it is not a CompiledFxGraph.
// The pickle attributes FxGraphEntry decodes into its own fields; the
// others are only in attribute_names (shown as they are).
const std::set<std::string_view>& decoded_fx_graph_attributes();

Result<FxGraphEntry> read_fx_graph_entry(std::shared_ptr<const pickle::Document> document);
// Reads and decodes a file; errors name it.
Result<FxGraphEntry> load_fx_graph_entry(const std::filesystem::path& file);

std::string_view heuristic_name(std::int64_t heuristic_type);

} // namespace cachelens::cachedir
