#pragma once

// An FX graph's code (a cache key's `gm` debug line) read for what it
// computes rather than how it is spelt: the same graph compiled with a dim
// made dynamic renumbers its values (`add_1` -> `add_8`, `primals_3` ->
// `primals_4`), adds `sym_size` lines and SymInt parameters, and writes `s75`
// where it wrote `64`. `why` tells a graph compiled again from another graph
// with this, and ranks a family by it.

#include <cachelens/cachedir/fx_graph_entry.h>

#include <cstddef>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

// The `gm` value of a key's debug lines (empty when it has none).
std::string_view graph_code_of(std::span<const std::string_view> debug_lines);

struct NormalizedCode {
    // One line per op call or return, trailing `x = None` frees and sym_size
    // lines dropped.
    std::vector<std::string> lines;
    // Without sizes_as_symbol: the values' names in order of first use; value
    // i is written kValueMark, i, kValueMark in `lines`.
    std::vector<std::string> names;
};

inline constexpr char kValueMark = '\x1f';

// The ops a graph's code calls, `torch.ops.aten.mm.default` as "aten.mm", counted.
std::map<std::string, int> ops_of(std::string_view code);

// The names of the ops a graph's code calls, and how alike two such sets
// are (Jaccard; 1 for two graphs without ops): causes.h graph_similarity
// and same_family() both judge by it.
std::set<std::string> op_names(std::string_view code);
double op_similarity(const std::set<std::string>& a, const std::set<std::string>& b);

// `sizes_as_symbol` (for ranking): values all written "v", integer literals
// and size symbols (s75, 64*s95) all "#", so a dim made dynamic or a value
// renumbered compares equal. Without it values are numbered by first use
// and sizes stay as written.
NormalizedCode normalize_graph_code(std::string_view code, bool sizes_as_symbol);

// Two graphs' code as a diff should show them: frees and sym_size lines
// dropped, and the right's values named as the left's where their lines
// pair up by structure, so a renumbering (add_1 -> add_8) shows as no change.
// A right value with no partner keeps its name, primed when the left uses it.
struct AlignedCode {
    std::string left;
    std::string right;
};
AlignedCode aligned_graph_code(std::string_view left, std::string_view right);

// 2 * lines in common / lines of both, over normalize_graph_code(.., true): 1
// for the same graph whatever its value names and dynamic dims.
double code_similarity(const NormalizedCode& a, const NormalizedCode& b);

// What a key's graph is, to tell a graph compiled again (another shape, a
// dim made dynamic, another config) from another graph.
struct GraphShape {
    cachedir::GraphRole role = cachedir::GraphRole::Unknown;
    std::set<std::string> ops; // aten.mm, ... as graph_similarity counts them
    NormalizedCode code;       // sizes as symbols
    // Whether the lines say what the graph computes: a `gm`, or for an entry
    // compared by what it holds (entry_facts.h) its `wrapper_ops`. A graph
    // whose ops are not known is of no family: nothing says it is the same.
    bool ops_known = true;
};

GraphShape graph_shape_of(std::span<const std::string_view> debug_lines);

// Whether two graphs are one graph compiled again: the same role (forward,
// backward, inference; unknown matches any) and ops alike (Jaccard >=
// kSameGraph).
bool same_family(const GraphShape& a, const GraphShape& b);

// Whether two graphs are known to be different graphs: roles that differ, or
// ops known on both sides and unalike. Graphs whose ops are not known are
// neither one graph (same_family) nor, by that alone, two.
bool other_family(const GraphShape& a, const GraphShape& b);

} // namespace cachelens::explain
