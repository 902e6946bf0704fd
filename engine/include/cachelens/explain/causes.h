#pragma once

// Why two cache keys differ, said the way a torch.compile user thinks of it:
// every differing debug line grouped into a cause ("dim 0 of input 2 became
// dynamic (4 -> s72)", "the Inductor config changed: benchmark_kernel False
// -> True"), the causes ranked most decisive first, and one verdict line on
// top. `diff`, `why` and the GUI's Compare and Why missed pages all show
// this; the left key is the one before (what the cache holds), the right the
// one after (what missed).

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/error.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/key_diff.h>

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

// Most decisive first: a cause higher in this list usually explains the
// ones below it (new shapes change the graph's code too).
enum class CauseCategory {
    Dynamic,     // a size became symbolic (or static); SymInt inputs added for it
    Shapes,      // static sizes, ranks, inputs added, removed or moved
    Dtypes,      // an input's dtype
    Device,      // an input's device
    Layout,      // an input's layout, strides or other tensor metadata
    Autograd,    // forward / backward / inference, requires_grad
    Graph,       // the FX graph's code (`gm`)
    Config,      // Inductor config keys, compile options, torch settings
    Environment, // torch, Triton and CUDA versions, the GPU, the system hash
    Paths,       // values that differ only by a file path (user name, temp dir)
    Other,
};

std::string_view to_string(CauseCategory category);

struct Cause {
    CauseCategory category = CauseCategory::Other;
    std::string text;                    // one line, lower case first
    std::vector<std::string> attributes; // the differing debug lines it accounts for
};

struct KeyCauses {
    // "Missed because dim 0 of input 2 became dynamic (4 -> s72); also: graph"
    // or, for two equal keys (never two others), "The two keys are the same".
    // Where an entry stores no debug lines (PyTorch 2.7 and older), what
    // cannot be told and what to do (entry_facts.h unrecorded_inputs_line).
    std::string verdict;
    // Then, for entries compared by what they hold: that comparison's verdict
    // ("From what the entries hold: missed because ..."). Empty otherwise.
    std::string held;
    std::vector<Cause> causes; // most decisive first; every differing attribute in one
};

// `diff` is diff_keys(before, after); `aligned` is align_inputs(before's
// inputs, after's inputs).
KeyCauses explain_causes(const KeyDiff& diff, const std::vector<ExampleInput>& before,
                         const std::vector<ExampleInput>& after,
                         const std::vector<AlignedInput>& aligned);

// How alike two keys' graphs are: the Jaccard similarity of the ops their
// `gm` code calls (aten.mm, ...), 1 for two graphs without ops or code. A
// graph that became dynamic, or changed a dtype, keeps its ops; another
// model's does not.
double graph_similarity(std::span<const std::string_view> a, std::span<const std::string_view> b);

// Below this, two graphs are not the same graph compiled again: a miss
// with no key this similar is a first compile.
inline constexpr double kSameGraph = 0.75;

// Two keys compared the one way `diff`, the Compare page and `why` all show
// them: aligned debug lines, example inputs paired by what they are, the
// causes, and whether they are one graph compiled again.
struct PairExplained {
    KeyDiff diff;
    std::vector<ExampleInput> before_inputs;
    std::vector<ExampleInput> after_inputs;
    std::vector<AlignedInput> inputs; // align_inputs(before_inputs, after_inputs)
    KeyCauses causes;                 // verdict per mark_other_graph when not same_graph
    bool same_graph = true;           // not graph_code.h other_family
    // Compared by what the entries hold (entry_facts.h): neither's debug lines.
    bool from_facts = false;
    // The lines compared (explain_entries): the debug lines, or what the
    // entries hold; keep_alive owns them and what `diff` views.
    std::vector<std::string_view> before_lines;
    std::vector<std::string_view> after_lines;
    std::shared_ptr<const void> keep_alive;
};

// The FX graph entry `entry` of `root`, as diff, why and the Compare page
// take one. Another kind is an InvalidArgument saying what to give instead:
// an AOTAutograd entry stores no debug lines, so the error names its forward
// and backward graphs.
Result<cachedir::FxGraphEntry> load_graph_to_compare(const std::filesystem::path& root,
                                                     const cachedir::Entry& entry);

struct GraphArgument {
    cachedir::Entry entry;
    cachedir::FxGraphEntry fx;
};

// The one FX graph entry of a scanned dir `query` names (a key, the start of
// one, a path: cachedir::resolve_entries), loaded. A key with several
// entries, an entry of another kind, or nothing at all is an error saying
// what to give.
Result<GraphArgument> find_graph_to_compare(const cachedir::Scan& scan, std::string_view query);

PairExplained explain_pair(std::span<const std::string_view> before,
                           std::span<const std::string_view> after);

// Two entries compared as `diff`, the Compare page and `why` compare them: by
// their debug lines, or where either stores none, by what both hold
// (entry_facts.h), the first line saying so; "the same" only for equal keys.
PairExplained explain_entries(const cachedir::FxGraphEntry& before,
                              const cachedir::FxGraphEntry& after);

// The verdict once the keys and how they were compared are known: "The two
// keys are the same" only when they are; for lines read from the entries,
// what cannot be told first and that comparison in `held`.
void settle_verdict(KeyCauses& causes, bool same_key, bool from_facts, std::string_view written_by);

// Another graph did not "miss" the target: its verdict says how it differs
// ("Another graph, not this one compiled before; it differs: ...").
void mark_other_graph(KeyCauses& causes);

// The same from the two keys' debug lines.
KeyCauses explain_causes(std::span<const std::string_view> before,
                         std::span<const std::string_view> after);

} // namespace cachelens::explain
