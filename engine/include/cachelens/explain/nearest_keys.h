#pragma once

// "Why did this miss?": the graphs in the caches searched that are the
// target's graph compiled before (its family: same role, same ops, whatever
// dims became dynamic or values were renamed), ranked by how little differs,
// then the nearest other graphs; each with the attributes that differ. The
// nearest of the family is usually what the user compiled last time; its
// differences are what changed. `why`, the Why missed page, `trace` and the
// warm-start report all ask nearest_graphs().

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/error.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/key_diff.h>

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

// An entry that could be the one a miss was looking for.
struct KeyCandidate {
    std::string key;
    std::string dir;  // the cache dir it is in, as the user named it
    std::string path; // the entry file, relative to dir
    // Its debug lines, or where it stores none what it holds (entry_facts.h).
    std::vector<std::string_view> debug_lines;
    std::shared_ptr<const void> keep_alive; // owns what debug_lines view
    bool from_facts = false;
};

// The dirs to search, each once: the same dir named twice (or as "dir/.",
// or through a link) would rank every candidate twice. Each keeps the name
// it was first given, in the order given.
std::vector<std::filesystem::path> distinct_dirs(const std::vector<std::filesystem::path>& dirs);

// Every FX graph entry of a scanned cache dir as a candidate, labelled `dir`.
// Entries that cannot be read are left out and reported in `unreadable`.
std::vector<KeyCandidate> fx_graph_candidates(const cachedir::Scan& scan, const std::string& dir,
                                              std::vector<Error>& unreadable);

struct NearKey {
    std::string key;
    std::string dir;
    std::string path;
    std::size_t shared = 0;             // the target's debug lines shared (lines.shared)
    std::size_t total = 0;              // lines of the target (lines.left())
    std::vector<std::string> differing; // attribute names, as key_diff.h names them
    LineCounts lines;                   // diff_keys(target, this key): what `diff` counts
    // This key's example inputs (left: before, what the cache holds) against
    // the target's (right: what missed), aligned by what they are.
    std::vector<AlignedInput> inputs;
    // Why the target missed this key: its differences from this key as
    // causes, with a verdict (causes.h); `diff DIR:THIS TARGET` says the same.
    KeyCauses causes;
    // How alike the two graphs' ops are (graph_similarity): below kSameGraph
    // this key is another graph, not an earlier compile of the target's.
    double graph_similarity = 0;
    cachedir::GraphRole role = cachedir::GraphRole::Unknown; // forward, backward, inference
    // The target's graph compiled before (graph_code.h same_family): its
    // differences are why the target missed. Otherwise only the nearest
    // other graph.
    bool same_family = false;
    // How alike the two graphs' code is, value names and sizes aside (0-1).
    double code_similarity = 0;
};

// An entry holding the target's very key in another dir (or at another path).
struct SameKey {
    std::string dir;
    std::string path;
};

struct NearestGraphs {
    std::vector<NearKey> nearest; // the target's family first, then other graphs
    // No candidate searched is the target's graph compiled before, and none
    // holds its key: decided over every candidate, whatever `limit` keeps.
    bool first_compile = false;
    std::size_t family = 0;        // candidates of the target's family
    std::size_t searched = 0;      // candidates other than the target's key
    std::vector<SameKey> same_key; // the target's key elsewhere: not a key miss there
    // Candidates not compared: debug lines on one side, what an entry holds
    // on the other (entries of PyTorch 2.7 and older store no debug lines).
    std::size_t incomparable = 0;
    bool from_facts = false; // compared by what the entries hold
};

struct TargetGraph {
    std::span<const std::string_view> debug_lines;
    std::string_view key;
    // Where the target itself is (a candidate there is the target, not a
    // copy of its key); empty when it is in no searched dir (a trace's key).
    std::string_view dir;
    std::string_view path;
    // A logged miss wrote its key into the cache it is compared with: every
    // entry of that key is the target, none a copy elsewhere.
    bool every_copy_is_target = false;
    // `debug_lines` are what the target's entry holds (entry_facts.h), read
    // from an entry `written_by` a release that stores no debug lines.
    bool from_facts = false;
    std::string_view written_by = {};
};

// The target's family ranked by the debug lines they share with it as
// diff_keys() aligns them (then by code similarity, then key), then the
// other graphs by shared lines; keeps the first `limit`.
NearestGraphs nearest_graphs(const TargetGraph& target, std::span<const KeyCandidate> candidates,
                             std::size_t limit);

// The answer in one plain line, first in `why` and the Why missed page: the
// very key in another dir, a first compile, or why the target missed the
// nearest graph of its family.
// For a target compared by what its entry holds: unrecorded_inputs_line()
// (entry_facts.h), and the answer of that comparison as why_detail().
std::string why_answer(const NearestGraphs& found, std::string_view target_key,
                       cachedir::GraphRole role, std::string_view written_by = {});
// The second line for a target compared by what its entry holds ("From what
// the entries hold: ..."); empty for one compared by its debug lines.
std::string why_detail(const NearestGraphs& found, std::string_view target_key,
                       cachedir::GraphRole role);

// The "why did this graph miss?" use case, as `cachelens why` and the Why
// missed page run it: the target graph of `dir`, every FX entry of the dirs
// searched (each once), the nearest graphs and the answer.
struct WhyRequest {
    std::filesystem::path dir; // the target's cache dir
    std::string target;        // a key, the start of one, or an entry path
    // The cache dirs to search (`why` passes DIR and --against); empty: `dir`.
    std::vector<std::filesystem::path> search;
    std::size_t limit = 5;
    const std::atomic<bool>* cancel = nullptr; // checked between dirs
};

struct WhyMissed {
    cachedir::Entry target;
    cachedir::FxGraphEntry fx;
    cachedir::GraphRole role = cachedir::GraphRole::Unknown;
    std::vector<std::filesystem::path> dirs; // searched, each once, in the order asked
    NearestGraphs found;
    std::string answer; // why_answer(): the one line that answers first
    std::string detail; // why_detail(): for an entry without debug lines
    // Parallel to found.nearest: the entry each names (its dir's scan), and that dir.
    std::vector<cachedir::Entry> nearest_entries;
    std::vector<std::filesystem::path> nearest_dirs;
    std::vector<Error> skipped; // FX entries that could not be read: not searched
};

Result<WhyMissed> why_missed(const WhyRequest& request);

} // namespace cachelens::explain
