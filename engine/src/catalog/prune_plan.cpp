// Choosing what a prune deletes: whole groups (an FX key with its AOT
// entries), oldest first, each with what only it used.

#include "prune_steps.h"
#include "root_graph.h"

#include <algorithm>
#include <chrono>

namespace cachelens::catalog {

namespace {

using cachedir::FileKind;

std::int64_t clock_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool defines_group(FileKind kind) {
    return kind == FileKind::FxGraph || kind == FileKind::AotAutograd;
}

class Planner {
public:
    Planner(const RootGraph& graph, PrunePlan& plan)
        : graph_(graph)
        , plan_(plan)
        , evicted_(graph.nodes.size(), false) {}

    bool is_recent(const GraphNode& node) const {
        return node.entry.mtime_ns > plan_.now_ns - plan_.keep_recent_ns;
    }

    // Groups a prune can start from, oldest first: FX/AOT groups, and any
    // other entry nothing uses (an orphan module, the benchmark cache...).
    std::vector<std::size_t> candidates() const {
        std::vector<std::size_t> groups;
        for (std::size_t group = 0; group < graph_.groups.size(); ++group) {
            const auto& members = graph_.groups[group];
            const GraphNode& first = graph_.nodes[members.front()];
            if (defines_group(first.entry.kind) ||
                (first.users.empty() && is_prunable(first.entry.kind))) {
                groups.push_back(group);
            }
        }
        std::ranges::sort(groups, [&](std::size_t a, std::size_t b) {
            return std::pair(newest(a), first_path(a)) < std::pair(newest(b), first_path(b));
        });
        return groups;
    }

    std::int64_t newest(std::size_t group) const {
        std::int64_t newest = 0;
        for (std::size_t node : graph_.groups[group]) {
            newest = std::max(newest, graph_.nodes[node].entry.mtime_ns);
        }
        return newest;
    }

    bool is_evicted(std::size_t group) const { return evicted_[graph_.groups[group].front()]; }

    // Adds the group, and everything that only it (and groups already
    // evicted) used, as a unit; false when something in it is recent or not
    // ours to delete.
    bool evict(std::size_t group, PruneReason reason) {
        const auto& members = graph_.groups[group];
        for (std::size_t node : members) {
            if (!is_prunable(graph_.nodes[node].entry.kind) || is_recent(graph_.nodes[node])) {
                return false;
            }
        }
        PruneUnit unit;
        unit.reason = reason;
        unit.mtime_ns = newest(group);
        std::vector<std::size_t> work;
        for (std::size_t node : members) {
            take(node, unit);
            work.push_back(node);
        }
        unit.defining_entries = unit.entries.size();
        while (!work.empty()) {
            const std::size_t user = work.back();
            work.pop_back();
            for (std::size_t used : graph_.nodes[user].uses) {
                if (can_follow(used)) {
                    take(used, unit);
                    work.push_back(used);
                }
            }
        }
        // Within a unit: what defines it first, then the rest by path.
        std::sort(unit.entries.begin() + static_cast<std::ptrdiff_t>(unit.defining_entries),
                  unit.entries.end(),
                  [](const PruneEntry& a, const PruneEntry& b) { return a.path < b.path; });
        plan_.bytes_after -= unit.bytes;
        plan_.units.push_back(std::move(unit));
        return true;
    }

private:
    std::string_view first_path(std::size_t group) const {
        return graph_.nodes[graph_.groups[group].front()].entry.path;
    }

    // A used entry goes with its last user: when every user is going. A lock
    // goes only so (an OnDiskCache value's): no lock is pruned on its own.
    bool can_follow(std::size_t node) const {
        const GraphNode& used = graph_.nodes[node];
        const bool owned_lock = used.entry.kind == FileKind::Lock && !used.users.empty();
        if (evicted_[node] || defines_group(used.entry.kind) ||
            (!is_prunable(used.entry.kind) && !owned_lock) || is_recent(used)) {
            return false;
        }
        return std::ranges::all_of(used.users, [&](std::size_t user) { return evicted_[user]; });
    }

    void take(std::size_t node, PruneUnit& unit) {
        evicted_[node] = true;
        unit.entries.push_back(graph_.nodes[node].entry);
        unit.bytes += graph_.nodes[node].entry.size;
    }

    const RootGraph& graph_;
    PrunePlan& plan_;
    std::vector<bool> evicted_;
};

} // namespace

std::string_view to_string(PruneReason reason) {
    return reason == PruneReason::OlderThan ? "older_than" : "max_size";
}

Result<PrunePlan> plan_prune(const sql::Database& db, const std::string& location,
                             const PruneOptions& options) {
    if (!options.max_size && !options.older_than_ns) {
        return fail(ErrorKind::InvalidArgument,
                    "a prune needs a size limit, an age limit, or both");
    }
    if (options.keep_recent_ns < 0 || options.older_than_ns.value_or(0) < 0) {
        return fail(ErrorKind::InvalidArgument, "ages cannot be negative");
    }
    auto graph = load_root_graph(db, location);
    if (!graph) {
        return std::unexpected(graph.error());
    }
    PrunePlan plan;
    plan.root = location;
    plan.max_size = options.max_size;
    plan.older_than_ns = options.older_than_ns;
    plan.keep_recent_ns = options.keep_recent_ns;
    plan.now_ns = options.now_ns.value_or(clock_now_ns());
    Planner planner(*graph, plan);
    for (const auto& node : graph->nodes) {
        plan.bytes_before += node.entry.size;
        if (!is_prunable(node.entry.kind)) {
            plan.unevictable_bytes += node.entry.size;
        } else if (planner.is_recent(node)) {
            plan.recent_bytes += node.entry.size;
        }
    }
    plan.bytes_after = plan.bytes_before;
    const auto candidates = planner.candidates();
    if (options.older_than_ns) {
        const std::int64_t cutoff = plan.now_ns - *options.older_than_ns;
        for (std::size_t group : candidates) {
            if (planner.newest(group) >= cutoff) {
                break;
            }
            planner.evict(group, PruneReason::OlderThan);
        }
    }
    if (options.max_size) {
        for (std::size_t group : candidates) {
            if (plan.bytes_after <= *options.max_size) {
                break;
            }
            if (!planner.is_evicted(group)) {
                planner.evict(group, PruneReason::MaxSize);
            }
        }
        plan.size_reached = plan.bytes_after <= *options.max_size;
    }
    return plan;
}

} // namespace cachelens::catalog
