#pragma once

// "Why did this miss?": the keys in a cache whose debug lines are closest to
// a given key's, ranked by how many debug-line hashes they share, each with
// the attributes that differ. The nearest key is usually what a user compiled
// last time; its differences are what changed.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/error.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/key_diff.h>

#include <cstddef>
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
    std::vector<std::string_view> debug_lines;
    std::shared_ptr<const void> keep_alive; // owns what debug_lines view
};

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
};

// Whether none of `nearest` is the target's graph compiled before: the
// target's miss is its first compile.
bool is_first_compile(std::span<const NearKey> nearest);

// Ranks `candidates` (skipping any whose key is `target_key`) by the debug
// lines they share with the target as diff_keys() aligns them, most first
// (ties by key), and keeps the first `limit`.
std::vector<NearKey> nearest_keys(std::span<const std::string_view> target_lines,
                                  std::string_view target_key,
                                  std::span<const KeyCandidate> candidates, std::size_t limit);

} // namespace cachelens::explain
