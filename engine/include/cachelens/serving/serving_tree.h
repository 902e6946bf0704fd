#pragma once

// The compile caches inference servers keep: vLLM's and SGLang's
// torch_compile_cache trees (docs/FORMATS.md §5):
//
//   torch_compile_cache/<hash[:10]>/rank_<rank>[_<dp_rank>][_dev<N>]/
//       inductor_cache/ triton_cache/      (vLLM's Inductor adaptor: per rank)
//       <prefix>/                          (backbone, eagle_head, ...; none in vLLM 0.8)
//           vllm_compile_cache.py          (compile_index.h; inductor_hash_cache.py
//                                           in the rank dir in vLLM 0.6.5-0.6.6)
//           cache_key_factors.json         (cache_factors.h; vLLM >= 0.12)
//           computation_graph.py, transformed_code.py
//           artifact_shape_*_subgraph_*, artifact_compile_range_*_*_subgraph_*
//                                          (standalone compile: a file, or an
//                                           unpacked Inductor cache dir)
//   torch_compile_cache/torch_aot_compile/<hash>/[inductor_cache/] rank_*/model
//   ~/.cache/sglang/torch_compile_cache/<hash>/rank_0_0/<tag>/
//       sglang_compile_cache.py, computation_graph_<time>.py,
//       inductor_cache/, triton_cache/     (per model tag)
//
// The tree is read from names and the small index and factor files only;
// the inner Inductor and Triton caches are cache dirs of their own, read by
// cachedir/ as ever.

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/core/error.h>
#include <cachelens/serving/cache_factors.h>
#include <cachelens/serving/compile_index.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::serving {

enum class Stack { Vllm, Sglang };
std::string_view to_string(Stack stack);     // "vllm", "sglang"
std::string_view display_name(Stack stack);  // "vLLM", "SGLang"
cachedir::RootLayout layout_of(Stack stack); // RootLayout::Vllm, ::Sglang

// The rank dir's name vLLM gives: rank_<rank>_<dp rank>, with _dev<N> in
// some builds (vllm#38962, reverted, proposed again); rank_<rank> before the
// data-parallel rank was added (vLLM 0.6.5 to about 0.7).
struct RankName {
    int rank = 0;
    std::optional<int> dp_rank;
    std::optional<int> device;
};
std::optional<RankName> parse_rank_dir_name(std::string_view name);

// A standalone-compile artifact's name: artifact_shape_<None|N>_subgraph_<i>
// or artifact_compile_range_<a>_<b>_subgraph_<i>.
struct ArtifactName {
    CompileShape shape;
    std::int64_t graph_index = 0;
};
std::optional<ArtifactName> parse_artifact_name(std::string_view name);

struct ArtifactOnDisk {
    std::string name;
    bool unpacked = false; // a dir (format="unpacked"); else one file ("binary")
    std::uint64_t bytes = 0;
};

struct PrefixDir {
    std::string name;       // "backbone", ...; empty for vLLM 0.8, whose rank dir holds the files
    std::string path;       // relative to the tree's root
    std::string index_file; // its index file's name; empty when it has none
    std::optional<CompileIndex> index;
    std::optional<Error> index_error; // the index does not parse
    std::optional<CacheKeyFactors> factors;
    std::optional<Error> factors_error;
    std::vector<std::string> graph_files; // computation_graph*.py, transformed_code.py
    std::vector<ArtifactOnDisk> artifacts;
    std::vector<std::string> symlinks; // never followed; verify reports them
    // The Inductor and Triton caches its handles live in (relative to the
    // root; empty when there is none): the rank's in vLLM, its own in SGLang.
    std::string inductor_cache;
    std::string triton_cache;
};

struct RankDir {
    std::string name;
    std::string path;
    RankName rank;
    bool has_inductor_cache = false;
    bool has_triton_cache = false;
    bool has_model = false; // torch_aot_compile's save_compiled_function file
    std::vector<PrefixDir> prefixes;
};

struct HashDir {
    enum class Kind {
        Jit,      // <hash[:10]>: VllmBackend's (and SGLang's) per-config dir
        Aot,      // torch_aot_compile/<sha256>: vLLM's precompiled model
        Unhashed, // rank dirs straight under the root: SGLang's eager compiler
    };
    Kind kind = Kind::Jit;
    std::string name; // the dir's name ("" for Unhashed)
    std::string path; // relative to the root ("" for Unhashed)
    std::vector<RankDir> ranks;
    bool has_inductor_cache = false;  // Aot: the hash dir's shared inductor_cache/
    std::int64_t newest_mtime_ns = 0; // of any file under it
    std::uint64_t bytes = 0;
    std::uint64_t files = 0;

    // The factors its prefixes recorded (the first found), if any.
    const CacheKeyFactors* factors() const;
};

struct ServingTree {
    std::filesystem::path root; // the torch_compile_cache dir (or what stands for it)
    Stack stack = Stack::Vllm;
    std::vector<HashDir> hash_dirs;      // sorted by path
    std::vector<std::string> other_dirs; // dirs under the root that are none of these

    const HashDir* find_hash_dir(std::string_view name) const;
    std::size_t rank_count() const;
    std::vector<std::string> prefix_names() const; // distinct, sorted
};

// Where a path lies in a serving tree: its root, and the part below the root
// the path names ("" for the root; "3fbdd5227b", "3fbdd5227b/rank_0_0",
// "3fbdd5227b/rank_0_0/backbone", ...). nullopt when it is in none, or inside
// one of its inner cache dirs (inductor_cache/, triton_cache/, an unpacked
// artifact), which are cache dirs of their own. A dir holding
// torch_compile_cache/ ($VLLM_CACHE_ROOT) names that.
struct ServingLocation {
    std::filesystem::path root;
    std::string relative;
    Stack stack = Stack::Vllm;
};
std::optional<ServingLocation> locate_serving_tree(const std::filesystem::path& path);

// Reads the tree's dirs and its index and factor files. An index or factor
// file that does not parse is recorded in its prefix (verify reports it); the
// tree itself fails only when the root cannot be read.
Result<ServingTree> read_serving_tree(const std::filesystem::path& root);

// What a file is, from its path relative to the tree's root: vLLM's and
// SGLang's own files (ServingIndex, ServingFactors, ServingGraph,
// CompiledArtifact, the AOT model as Precompile), and inside an inner cache
// dir what cachedir::classify says of its path there.
cachedir::FileKind classify_serving_path(std::string_view relative_path);

// "vLLM compile cache: 2 cache dirs, 3 ranks, prefix backbone; 48 piecewise
// graphs, 47 linked to FX entries"
std::string describe_tree(const ServingTree& tree);

} // namespace cachelens::serving
