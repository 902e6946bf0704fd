#pragma once

// What uses what in one root, from the catalog's rows: an FX entry uses its
// wrapper module, its kernels' modules and best_configs and the Triton kernels
// its bundle carries; a best_config uses its winner's Triton kernel; a module
// uses the Triton kernels compiled from it and the files sharing its stem.
// FX entries under one key, and the AOT entries linking to them, form one
// group that is kept or pruned as a whole.

#include "sqlite.h"

#include <cachelens/cachedir/file_kind.h>
#include <cachelens/catalog/prune.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace cachelens::catalog {

struct GraphNode {
    PruneEntry entry;
    std::int64_t entry_id = 0;
    std::size_t group = 0;          // FX/AOT entries: their group; others: their own
    std::vector<std::size_t> uses;  // nodes this one needs
    std::vector<std::size_t> users; // nodes that need this one
};

struct RootGraph {
    std::int64_t root_id = 0;
    std::string location;
    std::vector<GraphNode> nodes;
    // Each group's nodes; a group of FX/AOT entries, or a single other node.
    std::vector<std::vector<std::size_t>> groups;
    std::unordered_map<std::string, std::size_t> node_by_path;
};

// Loads the graph of the root indexed as `location`; NotFound if it was not.
Result<RootGraph> load_root_graph(const sql::Database& db, const std::string& location);

// Entries a prune never deletes: locks, files being written, unknown files.
bool is_prunable(cachedir::FileKind kind);

} // namespace cachelens::catalog
