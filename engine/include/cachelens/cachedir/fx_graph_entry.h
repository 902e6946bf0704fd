#pragma once

// One compiled FX graph: `fxgraph/<key[1:3]>/<key>/<name>`, a pickle of
// CompiledFxGraph (formats.md §2): torch._inductor.codecache.CompiledFxGraph
// up to PyTorch 2.5, torch._inductor.output_code.CompiledFxGraph from 2.6.
// Which fields it holds depends on the release that wrote it (FORMATS.md,
// "The version matrix"): the reader takes what is there and records what is
// not, never assuming the newest layout. The struct holds views into its
// decoded document, which it keeps alive.

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

// What an FX graph is to AOTAutograd: the forward or backward graph of a
// training compile, or an inference graph. Unknown when the entry does not say.
enum class GraphRole { Forward, Backward, Inference, Unknown };
std::string_view to_string(GraphRole role); // "forward", "backward", "inference", "unknown"

// Where an entry's role was read: its fx_kwargs field (PyTorch 2.4 on), the
// fx_kwargs lines of its debug lines, or nowhere.
enum class RoleSource { FxKwargs, DebugLines, None };

struct FxGraphEntry {
    // _fx_graph_cache_key ("f..."); PyTorch 2.4 and older do not store it in
    // the entry: then it is the key dir's name (or the bundle's artifact key).
    std::string key;
    bool key_recorded = true; // whether _fx_graph_cache_key was in the pickle
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
    // The PyTorch releases that write an entry of this form, read from its
    // class and the fields only some releases set ("2.6 or 2.7", "2.8 or
    // later"), or the exact version its runnable graph names ("2.8.0+cu126").
    // What such a release does not record is said as not recorded by it.
    std::string written_by;
    // The exact version, where the runnable graph's repro header names it.
    std::string torch_version;
    // Whether the release that wrote it stores its key's debug lines in the
    // entry (2.8 on): when not, which key input changed cannot be read from
    // the cache at all.
    bool release_stores_debug_lines = true;
    GraphRole role = GraphRole::Unknown;
    RoleSource role_source = RoleSource::None;
    // fx_kwargs['cpp_wrapper']: the graph runs through a C++ wrapper (no
    // Python call() launches its kernels). Nullopt when not recorded.
    std::optional<bool> cpp_wrapper;
    // PyTorch 2.2/2.3 entries keep the wrapper out of the pickle: only its
    // module path (artifact_path); source_code is then empty.
    std::string artifact_path;
    std::vector<std::string_view> attribute_names; // every field the pickle set, in order

    std::shared_ptr<const pickle::Document> document;
    const pickle::Value& root() const { return document->root(); }
    const pickle::Value* attribute(std::string_view name) const;
};

// The role its key's fx_kwargs debug lines (is_backward, is_inference) say;
// Unknown when the lines do not say. An entry's own `role` also reads its
// fx_kwargs field, which entries without debug lines (PyTorch 2.4 to 2.7) hold.
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

// Whether a pickle's class is a CompiledFxGraph of any release.
bool is_fx_graph_class(std::string_view class_name);

// The pickle attributes FxGraphEntry decodes into its own fields; the
// others are only in attribute_names (shown as they are).
const std::set<std::string_view>& decoded_fx_graph_attributes();

// Maps the decoded pickle to the struct; fails when it is not a CompiledFxGraph.
// `key` is the entry's key where the caller knows it (the key dir's name, a
// bundle artifact's key): used when the pickle does not record its own
// (PyTorch 2.4 and older); an entry that records none and is given none fails.
Result<FxGraphEntry> read_fx_graph_entry(std::shared_ptr<const pickle::Document> document,
                                         std::string_view key = {});
// Reads and decodes a file; errors name it. The key, where the entry records
// none, is its key dir's name.
Result<FxGraphEntry> load_fx_graph_entry(const std::filesystem::path& file);

std::string_view heuristic_name(std::int64_t heuristic_type);

} // namespace cachelens::cachedir
