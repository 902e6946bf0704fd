#pragma once

// The index vLLM and SGLang keep of a prefix dir's compiled piecewise graphs:
// vllm_compile_cache.py (SGLang: sglang_compile_cache.py), written by
// CompilerManager.save_to_file as pprint.pformat(dict) and read back with
// ast.literal_eval. Keys are (shape, graph, compiler name), where the
// shape is None (the general shape), an int (a compile size, vLLM <= 0.11) or
// a (start, end) tuple (a compile Range, vLLM >= 0.13, both ends inclusive),
// and the graph is the piece's position (a count from 0) or, in 2026 vLLM,
// the sha256 hex of the piece's pickled graph; values are the compiler's
// handle: (FX graph key, wrapper module path) for the Inductor adaptor,
// (artifact name, artifact path) for standalone compile, None for eager.
// vLLM 0.6.5 and 0.6.6 wrote inductor_hash_cache.py instead: a list of
// (shape, graph index, FX graph key) for the Inductor adaptor alone. Read
// with the Python-literal reader, never run.

#include <cachelens/core/error.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::serving {

struct CompileShape {
    enum class Kind { General, Size, Range };
    Kind kind = Kind::General;
    std::int64_t start = 0; // Size: the size; Range: the first size
    std::int64_t end = 0;   // Range: the last size (inclusive); Size: == start

    // Whether a runtime batch size of `size` tokens is served by this shape.
    bool covers(std::int64_t size) const;
    // "general", "8", "(1, 8192)": as vLLM prints it in its logs.
    std::string describe() const;
    // The part of a standalone artifact's name it makes: "shape_None",
    // "shape_8", "compile_range_1_8192".
    std::string artifact_part() const;
    auto operator<=>(const CompileShape&) const = default;
};

struct CompileHandle {
    std::string key;  // an FX graph key ("f..."), or a standalone artifact's name
    std::string path; // as written: an absolute path on the machine that compiled; empty
                      // where the index records none (vLLM 0.6.5, 0.6.6)
};

struct CompileIndexEntry {
    CompileShape shape;
    // The piece's position in the split model. A key by graph hash does not
    // record it; it is then read from a standalone artifact's name, or unknown.
    std::optional<std::int64_t> graph_index;
    std::string graph_hash; // 2026 vLLM: what keys the piece instead of its position
    std::string compiler;   // "inductor", "inductor_standalone", "eager", a plugin's name
    std::optional<CompileHandle> handle; // none for a None handle (eager)

    // How the piece is named to a person: "3", or its hash's first 12 digits.
    std::string graph_name() const;
};

struct CompileIndex {
    enum class Form {
        Dict,            // {(shape, graph index or hash, compiler): handle}
        HashedGraphList, // vLLM 0.6.5-0.6.6: [(shape, graph index, FX key)]
    };
    Form form = Form::Dict;
    std::vector<CompileIndexEntry> entries; // sorted by (graph, shape, compiler)
};

// Parses the file's text. Errors say where and what was expected; a key or a
// handle of a shape vLLM never writes is Corrupt (vLLM's parse_key raises on
// it too), never skipped.
Result<CompileIndex> parse_compile_index(std::string_view text);

// The index files' names, vLLM's and SGLang's.
inline constexpr std::string_view kVllmIndexName = "vllm_compile_cache.py";
inline constexpr std::string_view kSglangIndexName = "sglang_compile_cache.py";

} // namespace cachelens::serving
