#pragma once

// Pruning a vLLM or SGLang tree: whole hash dirs, least recently written
// first (a server reads a hash dir as one cache: half a rank dir would make
// it fail to load a graph its index names). Never a dir written within
// keep_recent, and never one a process of this machine has open or mapped
// (/proc: a running server's loaded kernels). A dir goes by one rename to a
// hidden name in the root, then is removed: a server starting meanwhile
// finds it whole or not at all.

#include <cachelens/core/error.h>
#include <cachelens/core/open_files.h>
#include <cachelens/core/progress.h>
#include <cachelens/serving/serving_tree.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::serving {

struct ServingPruneOptions {
    std::optional<std::uint64_t> max_size;     // evict until the tree takes at most this
    std::optional<std::int64_t> older_than_ns; // evict dirs last written longer ago
    std::int64_t keep_recent_ns = 10LL * 60 * 1'000'000'000;
    std::optional<std::int64_t> now_ns;
};

struct PrunedDir {
    std::string path; // relative to the root
    std::uint64_t bytes = 0;
    std::uint64_t files = 0;
    std::int64_t newest_mtime_ns = 0;
    std::string reason; // "older_than", "max_size"
};

struct KeptDir {
    std::string path;
    std::uint64_t bytes = 0;
    std::string why; // "written 3 min ago", "in use by pid 4242 (python3): ..."
};

struct ServingPrunePlan {
    std::string root;
    std::uint64_t bytes_before = 0;
    std::uint64_t bytes_after = 0;
    std::optional<std::uint64_t> max_size;
    std::int64_t keep_recent_ns = 0;
    bool size_reached = true;
    std::vector<PrunedDir> dirs; // in the order they go: least recently written first
    std::vector<KeptDir> kept;   // would have gone, and why they stay
};

ServingPrunePlan plan_serving_prune(const ServingTree& tree, const ServingPruneOptions& options);

struct ServingPruneOutcome {
    std::vector<std::string> deleted;
    std::vector<KeptDir> kept; // changed or opened since the plan
    std::vector<Error> errors;
    std::uint64_t bytes_freed = 0;
    bool cancelled = false;
};

// Runs the plan, checking each dir again just before it goes (its newest
// write and the processes using it). `progress` hears Deleting (dirs).
ServingPruneOutcome run_serving_prune(const ServingTree& tree, const ServingPrunePlan& plan,
                                      const ProgressFn& progress = {});

} // namespace cachelens::serving
