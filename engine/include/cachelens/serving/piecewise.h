#pragma once

// What a serving tree's prefix dirs hold and what is wrong with them: each
// piecewise graph its index names, linked to the FX entry or artifact the
// handle points at; why vLLM made a new cache dir (the factors, in the order
// it hashes them); which compiled graph serves a batch size; and verify's
// checks. One engine use case for the CLI (show, why, verify) and the GUI's
// serving page.

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/core/progress.h>
#include <cachelens/serving/serving_tree.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::serving {

struct PiecewiseGraph {
    CompileIndexEntry entry;
    enum class Link {
        FxEntry,  // the Inductor adaptor: an FX graph entry in the inner Inductor cache
        Artifact, // standalone compile: an artifact file or unpacked dir in the prefix dir
        None,     // no handle (eager), or one of a compiler cachelens does not know
    };
    Link link = Link::None;
    bool present = false;   // what the handle names is there
    std::string found_path; // relative to the root: the FX key dir or the artifact
    // The handle's recorded path is not under this tree (it was compiled
    // elsewhere, or the tree was moved): matched here by its tail.
    bool moved = false;
    std::string problem; // why vLLM cannot load it; empty when it can
    // Read when details are asked for: the FX entry's (an artifact's graph's).
    std::optional<std::size_t> kernels;
    std::optional<std::int64_t> compile_ns;
    std::string fx_key; // the FX graph's key (an artifact's, from its bundle)
};

std::string_view to_string(PiecewiseGraph::Link link); // "fx_entry", "artifact", "none"

struct PrefixGraphs {
    std::vector<PiecewiseGraph> graphs; // in the index's order
    // Artifacts on disk no index entry names (a run that died before
    // save_to_file; harmless, vLLM compiles them again).
    std::vector<std::string> unindexed_artifacts;
    std::size_t linked() const; // graphs whose handle's target is present
};

// `details` loads each FX entry (kernels, compile time): slower.
PrefixGraphs read_piecewise_graphs(const ServingTree& tree, const PrefixDir& prefix,
                                   bool details = false);

// "vLLM compile cache: 2 cache dirs, 3 ranks, prefix backbone; 48 piecewise
// graphs, 47 linked to FX entries"
std::string describe_tree_with_graphs(const ServingTree& tree);

// What the user named below the root: a hash dir, a rank dir in it, a prefix.
struct TreeSelection {
    const HashDir* hash_dir = nullptr;
    const RankDir* rank = nullptr;     // null: every rank
    const PrefixDir* prefix = nullptr; // null: every prefix
};
// `relative` as locate_serving_tree gives it, or a hash dir's name. NotFound
// naming what exists when it names nothing in the tree.
Result<TreeSelection> select_in_tree(const ServingTree& tree, std::string_view relative);

// ---- why did vLLM compile again ----

struct FactorChange {
    std::string factor; // "env", "config", "code", "compiler"
    std::string name;   // the env variable; empty for the hashes
    std::string from;   // the other dir's value (JSON text for env; "" when absent)
    std::string to;     // this dir's
};

// "env VLLM_ATTENTION_BACKEND changed (FLASH_ATTN -> FLASHINFER)"
std::string describe(const FactorChange& change);

struct HashDirComparison {
    std::string dir;                   // the hash dir asked about
    std::string against;               // the dir compared with
    bool nearest = false;              // `against` was chosen as the nearest sibling by factors
    bool factors_recorded = false;     // both dirs have cache_key_factors.json
    std::vector<FactorChange> changes; // in vLLM's hashing order: env, config, code, compiler
    std::string answer;                // the first line
};

// Compares `dir` with `against`, or with its nearest sibling of the same
// kind when `against` is null. InvalidArgument when there is no other dir.
Result<HashDirComparison> compare_hash_dirs(const ServingTree& tree, const HashDir& dir,
                                            const HashDir* against = nullptr);

// Will vLLM on another machine use `dir`? Its factors against those of
// `target`, a hash dir made there (of another tree, or this one): the same
// factors name the same dir; any change (from this cache to the target's)
// means vLLM there makes its own dir and never reads this one.
HashDirComparison preflight_factors(const ServingTree& tree, const HashDir& dir,
                                    const HashDir& target);
// The same from paths, as `preflight SOURCE --target DIR` and the Serving
// page's Preflight take them: nullopt unless both name (a dir in) a hash dir
// of a vLLM or SGLang tree.
std::optional<HashDirComparison> preflight_factors(const std::filesystem::path& source,
                                                   const std::filesystem::path& target);

// Which compiled graphs serve a batch of `tokens` in a prefix: for each
// graph (its index, or its hash in 2026 vLLM), the entry vLLM picks (a size equal to it first, then
// a range holding it), or none. The answer says which sizes and ranges exist when some graph has
// none.
struct ShapeLookup {
    std::int64_t tokens = 0;
    std::vector<const CompileIndexEntry*> served;          // one per graph that has one
    std::vector<const CompileIndexEntry*> unserved_graphs; // one entry of each, into the index
    std::vector<CompileShape> shapes;                      // every distinct shape compiled, sorted
    std::string answer;
};
ShapeLookup lookup_shape(const PrefixDir& prefix, std::int64_t tokens);

// ---- verify ----

// Every serving check over the selection (the whole tree by default):
// indexes and factors that do not parse, handles whose FX entry or artifact
// is gone, factors that do not hash to the dir's name (a note where they
// cannot be checked), artifacts that do not decode, then the inner Inductor
// and Triton caches' own verify; and the code audit of every file vLLM would
// make PyTorch load (artifacts' bundles, AOT models, modules, pickles) as
// `import` judges them. Paths are relative to the root. `progress` hears one
// step per inner cache, then the audit's files.
struct ServingVerifyReport {
    cachedir::VerifyReport report;
    std::vector<bundle::FileVerdict> code; // sorted by path
    // No code with findings and no problems.
    bool clean() const;
    std::vector<std::string> notes; // what could not be checked, and why
    std::size_t graphs_checked = 0;
    std::size_t inner_caches = 0;
};
Result<ServingVerifyReport> verify_serving_tree(const ServingTree& tree,
                                                const TreeSelection& selection,
                                                const ProgressFn& progress = {});

} // namespace cachelens::serving
