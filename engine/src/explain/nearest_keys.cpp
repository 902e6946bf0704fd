#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/explain/key_diff.h>
#include <cachelens/explain/nearest_keys.h>

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace cachelens::explain {

namespace {

// Hash -> count over a set of lines: a multiset, since equal items (two
// identical example inputs) repeat a hash.
std::unordered_map<std::string_view, std::size_t>
hash_counts(std::span<const std::string_view> lines) {
    std::unordered_map<std::string_view, std::size_t> counts;
    for (auto line : lines) {
        const cachedir::DebugLine parsed = cachedir::parse_debug_line(line);
        ++counts[parsed.hash.empty() ? parsed.text : parsed.hash];
    }
    return counts;
}

std::size_t shared_count(const std::unordered_map<std::string_view, std::size_t>& target,
                         std::span<const std::string_view> lines) {
    auto remaining = target;
    std::size_t shared = 0;
    for (auto line : lines) {
        const cachedir::DebugLine parsed = cachedir::parse_debug_line(line);
        auto it = remaining.find(parsed.hash.empty() ? parsed.text : parsed.hash);
        if (it != remaining.end() && it->second > 0) {
            --it->second;
            ++shared;
        }
    }
    return shared;
}

} // namespace

std::vector<KeyCandidate> fx_graph_candidates(const cachedir::Scan& scan, const std::string& dir,
                                              std::vector<Error>& unreadable) {
    std::vector<KeyCandidate> candidates;
    for (const auto& entry : scan.entries()) {
        if (entry.kind != cachedir::FileKind::FxGraph) {
            continue;
        }
        auto fx = cachedir::load_fx_graph_entry(scan.root / entry.path);
        if (!fx) {
            unreadable.push_back(fx.error());
            continue;
        }
        candidates.push_back({fx->key, dir, entry.path, fx->debug_lines, fx->document});
    }
    return candidates;
}

std::vector<NearKey> nearest_keys(std::span<const std::string_view> target_lines,
                                  std::string_view target_key,
                                  std::span<const KeyCandidate> candidates, std::size_t limit) {
    // Hashes shared in any place bound the lines shared in the same place
    // from above: aligning (diff_keys) only the candidates whose bound can
    // still reach the first `limit` keeps a large cache fast.
    const auto target = hash_counts(target_lines);
    std::vector<std::pair<std::size_t, const KeyCandidate*>> bounded;
    for (const auto& candidate : candidates) {
        if (candidate.key != target_key) {
            bounded.emplace_back(shared_count(target, candidate.debug_lines), &candidate);
        }
    }
    std::ranges::sort(bounded, [](const auto& a, const auto& b) { return a.first > b.first; });
    const auto before = [](const NearKey& a, const NearKey& b) {
        if (a.shared != b.shared) {
            return a.shared > b.shared;
        }
        return std::tie(a.key, a.dir) < std::tie(b.key, b.dir);
    };
    std::vector<NearKey> out;
    for (const auto& [bound, candidate] : bounded) {
        if (limit == 0 || (out.size() >= limit && bound < out[limit - 1].shared)) {
            break;
        }
        const KeyDiff diff = diff_keys(target_lines, candidate->debug_lines);
        NearKey near{
            candidate->key, candidate->dir, candidate->path, 0, 0, {}, diff.counts(), {}, {}};
        near.shared = near.lines.shared;
        near.total = near.lines.left();
        for (const auto& difference : diff.differences) {
            near.differing.push_back(difference.name);
        }
        out.insert(std::ranges::upper_bound(out, near, before), std::move(near));
        if (out.size() > limit) {
            out.pop_back();
        }
    }
    // Only for the keys kept: aligning inputs costs more than counting
    // hashes. Read from this key (before) to the target (after): the target
    // is the compile that missed.
    const auto target_inputs = example_inputs_of(target_lines);
    for (auto& near : out) {
        for (const auto& [bound, candidate] : bounded) {
            if (candidate->key == near.key && candidate->dir == near.dir &&
                candidate->path == near.path) {
                const auto inputs = example_inputs_of(candidate->debug_lines);
                near.inputs = align_inputs(inputs, target_inputs);
                near.causes = explain_causes(diff_keys(candidate->debug_lines, target_lines),
                                             inputs, target_inputs, near.inputs);
                near.graph_similarity = graph_similarity(candidate->debug_lines, target_lines);
                near.role = cachedir::graph_role(candidate->debug_lines);
                break;
            }
        }
    }
    return out;
}

bool is_first_compile(std::span<const NearKey> nearest) {
    return std::ranges::none_of(
        nearest, [](const NearKey& near) { return near.graph_similarity >= kSameGraph; });
}

} // namespace cachelens::explain
