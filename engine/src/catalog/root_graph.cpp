#include "root_graph.h"

#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace cachelens::catalog {

namespace {

using cachedir::FileKind;

// Union-find over node indexes, for the FX/AOT groups.
class Groups {
public:
    explicit Groups(std::size_t size)
        : parent_(size) {
        std::iota(parent_.begin(), parent_.end(), std::size_t{0});
    }
    std::size_t find(std::size_t node) {
        while (parent_[node] != node) {
            parent_[node] = parent_[parent_[node]];
            node = parent_[node];
        }
        return node;
    }
    void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

private:
    std::vector<std::size_t> parent_;
};

class GraphBuilder {
public:
    explicit GraphBuilder(RootGraph& graph)
        : graph_(graph) {}

    void add_entry(const sql::Statement& row) {
        GraphNode node;
        node.entry_id = row.integer(0);
        const auto kind = cachedir::file_kind_from_string(row.text_view(1));
        node.entry.kind = kind.value_or(FileKind::Unknown);
        node.entry.key = row.text(2);
        node.entry.path = row.text(3);
        node.entry.size = static_cast<std::uint64_t>(row.integer(4));
        node.entry.mtime_ns = row.integer(5);
        const std::size_t index = graph_.nodes.size();
        by_id_[node.entry_id] = index;
        by_kind_key_[{node.entry.kind, node.entry.key}].push_back(index);
        graph_.node_by_path[node.entry.path] = index;
        graph_.nodes.push_back(std::move(node));
    }

    void add_file(const sql::Statement& row) {
        if (auto it = by_id_.find(row.integer(0)); it != by_id_.end()) {
            graph_.nodes[it->second].entry.files.push_back(
                PruneFile{row.text(1), static_cast<std::uint64_t>(row.integer(2)), row.integer(3),
                          static_cast<std::uint64_t>(row.integer(4))});
        }
    }

    // `user` (an entry id) needs every entry of `kind` under `key`.
    void use_key(std::int64_t user, FileKind kind, const std::string& key) {
        if (key.empty()) {
            return;
        }
        auto user_node = by_id_.find(user);
        auto used = by_kind_key_.find({kind, key});
        if (user_node == by_id_.end() || used == by_kind_key_.end()) {
            return;
        }
        for (std::size_t node : used->second) {
            edges_.insert({user_node->second, node});
        }
    }

    void use_path(std::int64_t user, const std::string& path) {
        auto user_node = by_id_.find(user);
        auto used = graph_.node_by_path.find(path);
        if (user_node != by_id_.end() && used != graph_.node_by_path.end()) {
            edges_.insert({user_node->second, used->second});
        }
    }

    // Every entry of `kind` under `key` needs `used` (an entry id).
    void used_by_key(FileKind kind, const std::string& key, std::int64_t used) {
        auto users = by_kind_key_.find({kind, key});
        auto used_node = by_id_.find(used);
        if (key.empty() || users == by_kind_key_.end() || used_node == by_id_.end()) {
            return;
        }
        for (std::size_t node : users->second) {
            edges_.insert({node, used_node->second});
        }
    }

    // An AOT entry (by id) belongs with the FX entries of `fx_key`.
    void link_aot(std::int64_t aot, const std::string& fx_key) {
        auto aot_node = by_id_.find(aot);
        auto fx = by_kind_key_.find({FileKind::FxGraph, fx_key});
        if (aot_node != by_id_.end() && fx != by_kind_key_.end()) {
            aot_links_.push_back({aot_node->second, fx->second.front()});
        }
    }

    // A module uses the files that share its stem (its .kernel_perf, its C++
    // source and library) and the Triton kernels compiled from it.
    void link_module_files() {
        for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
            const auto& entry = graph_.nodes[i].entry;
            if (entry.kind != FileKind::Module) {
                continue;
            }
            for (FileKind kind :
                 {FileKind::KernelPerf, FileKind::CppSource, FileKind::SharedLibrary}) {
                if (auto it = by_kind_key_.find({kind, entry.key}); it != by_kind_key_.end()) {
                    for (std::size_t node : it->second) {
                        edges_.insert({i, node});
                    }
                }
            }
        }
    }

    // An OnDiskCache value uses its lock, cache/<name>/locks/<its name[:4]>.lock,
    // which values sharing those 4 digits share: the lock goes with the last.
    void link_keyed_cache_locks() {
        for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
            const auto& entry = graph_.nodes[i].entry;
            const auto slash = entry.path.rfind('/');
            if (entry.kind != FileKind::KeyedCacheValue || slash == std::string::npos ||
                entry.key.size() < 4) {
                continue;
            }
            const std::string lock =
                entry.path.substr(0, slash) + "/locks/" + entry.key.substr(0, 4) + ".lock";
            if (const auto found = graph_.node_by_path.find(lock);
                found != graph_.node_by_path.end()) {
                edges_.insert({i, found->second});
            }
        }
    }

    // A write in progress inside a Triton hash dir (Triton's tmp.pid_*/ dir,
    // or the <file>.tmp.pid_* of Triton before 3.0) holds the dir: no prune
    // takes a kernel dir a writer is filling, however old its other files are.
    void link_staging_files() {
        for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
            const auto& entry = graph_.nodes[i].entry;
            if (entry.kind != FileKind::Temp) {
                continue;
            }
            for (auto slash = entry.path.rfind('/'); slash != std::string::npos && slash > 0;
                 slash = entry.path.rfind('/', slash - 1)) {
                const auto dir = graph_.node_by_path.find(entry.path.substr(0, slash));
                if (dir != graph_.node_by_path.end() &&
                    graph_.nodes[dir->second].entry.kind == FileKind::Triton) {
                    edges_.insert({i, dir->second});
                    break;
                }
            }
        }
    }

    void finish() {
        for (auto [user, used] : edges_) {
            if (user != used) {
                graph_.nodes[user].uses.push_back(used);
                graph_.nodes[used].users.push_back(user);
            }
        }
        Groups groups(graph_.nodes.size());
        for (const auto& [kind_key, nodes] : by_kind_key_) {
            if (kind_key.first == FileKind::FxGraph || kind_key.first == FileKind::AotAutograd) {
                for (std::size_t node : nodes) {
                    groups.join(node, nodes.front());
                }
            }
        }
        for (auto [aot, fx] : aot_links_) {
            groups.join(aot, fx);
        }
        std::unordered_map<std::size_t, std::size_t> group_of_representative;
        for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
            const std::size_t representative = groups.find(i);
            auto [it, added] =
                group_of_representative.try_emplace(representative, graph_.groups.size());
            if (added) {
                graph_.groups.emplace_back();
            }
            graph_.nodes[i].group = it->second;
            graph_.groups[it->second].push_back(i);
        }
    }

private:
    RootGraph& graph_;
    std::unordered_map<std::int64_t, std::size_t> by_id_;
    std::map<std::pair<FileKind, std::string>, std::vector<std::size_t>> by_kind_key_;
    std::set<std::pair<std::size_t, std::size_t>> edges_;
    std::vector<std::pair<std::size_t, std::size_t>> aot_links_;
};

} // namespace

bool is_prunable(FileKind kind) {
    return kind != FileKind::Lock && kind != FileKind::Temp && kind != FileKind::Unknown;
}

Result<RootGraph> load_root_graph(const sql::Database& db, const std::string& location) {
    RootGraph graph;
    graph.location = location;
    auto root = sql::Statement::prepare(db, "SELECT id FROM roots WHERE location = ?");
    if (!root) {
        return std::unexpected(root.error());
    }
    root->bind(1, location);
    auto found = root->step();
    if (!found) {
        return std::unexpected(found.error());
    }
    if (!*found) {
        return fail(ErrorKind::NotFound, "not in the catalog: index it first", location);
    }
    graph.root_id = root->integer(0);
    GraphBuilder builder(graph);
    using OnRow = std::function<void(const sql::Statement&)>;
    const std::pair<const char*, OnRow> queries[] = {
        {"SELECT id, kind, key, path, size, mtime_ns FROM entries WHERE root_id = ?1 ORDER BY path",
         [&](const sql::Statement& row) {
             builder.add_entry(row);
         }},
        {"SELECT entry_id, path, size, mtime_ns, inode FROM files WHERE root_id = ?1 ORDER BY path",
         [&](const sql::Statement& row) {
             builder.add_file(row);
         }},
        // The wrapper module an FX entry's source was written to.
        {"SELECT x.entry_id, x.cache_key FROM fx_entries x JOIN entries e ON e.id = x.entry_id "
         "WHERE e.root_id = ?1",
         [&](const sql::Statement& row) {
             builder.use_key(row.integer(0), FileKind::Module, row.text(1));
         }},
        // An FX entry's autotuners name their modules and best_configs.
        {"SELECT k.entry_id, k.module_key, k.best_config FROM kernels k JOIN entries e ON e.id = "
         "k.entry_id WHERE e.root_id = ?1 AND e.kind = 'fxgraph'",
         [&](const sql::Statement& row) {
             builder.use_key(row.integer(0), FileKind::Module, row.text(1));
             if (!row.is_null(2)) {
                 builder.use_path(row.integer(0), row.text(2));
             }
         }},
        // Bundled kernels (FX entries) and winners (best_configs).
        {"SELECT t.entry_id, t.triton_hash FROM triton_refs t JOIN entries e ON e.id = "
         "t.entry_id WHERE e.root_id = ?1",
         [&](const sql::Statement& row) {
             builder.use_key(row.integer(0), FileKind::Triton, row.text(1));
         }},
        // The module a Triton kernel was compiled from uses it. Looked up in
        // memory: SQLite joins modules by (root, kind) alone, every module for
        // every kernel (a million-file cache: 10^10 row visits).
        {"SELECT t.module_key, t.entry_id FROM triton_kernels t JOIN entries e ON e.id = "
         "t.entry_id WHERE e.root_id = ?1",
         [&](const sql::Statement& row) {
             builder.used_by_key(FileKind::Module, row.text(0), row.integer(1));
         }},
        {"SELECT a.entry_id, a.forward_key, a.backward_key FROM aot_entries a JOIN entries e ON "
         "e.id = a.entry_id WHERE e.root_id = ?1",
         [&](const sql::Statement& row) {
             for (int column : {1, 2}) {
                 if (!row.is_null(column)) {
                     builder.link_aot(row.integer(0), row.text(column));
                 }
             }
         }},
    };
    // Each runs with the root id bound to ?1.
    for (const auto& [sql_text, on_row] : queries) {
        auto statement = sql::Statement::prepare(db, sql_text);
        if (!statement) {
            return std::unexpected(statement.error());
        }
        statement->bind(1, graph.root_id);
        if (auto ok = statement->for_each_row(on_row); !ok) {
            return std::unexpected(ok.error());
        }
    }
    builder.link_module_files();
    builder.link_staging_files();
    builder.link_keyed_cache_locks();
    builder.finish();
    return graph;
}

} // namespace cachelens::catalog
