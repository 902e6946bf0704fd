#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/format.h>
#include <cachelens/explain/entry_facts.h>
#include <cachelens/explain/graph_code.h>
#include <cachelens/explain/key_diff.h>
#include <cachelens/explain/nearest_keys.h>

#include <fmt/format.h>

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

std::vector<std::filesystem::path> distinct_dirs(const std::vector<std::filesystem::path>& dirs) {
    std::vector<std::filesystem::path> unique;
    std::vector<std::filesystem::path> seen;
    for (const auto& dir : dirs) {
        std::error_code error;
        auto identity = std::filesystem::weakly_canonical(dir, error);
        if (error) {
            identity = dir.lexically_normal();
        }
        if (!identity.has_filename()) {
            identity = identity.parent_path();
        }
        if (std::ranges::find(seen, identity) == seen.end()) {
            seen.push_back(std::move(identity));
            unique.push_back(dir);
        }
    }
    return unique;
}

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
        auto compared = lines_to_compare(*fx);
        candidates.push_back({fx->key, dir, entry.path, std::move(compared.lines),
                              std::move(compared.keep_alive), compared.from_facts});
    }
    return candidates;
}

NearestGraphs nearest_graphs(const TargetGraph& target, std::span<const KeyCandidate> candidates,
                             std::size_t limit) {
    // Hashes shared in any place bound the lines shared in the same place
    // from above: aligning (diff_keys) only the other graphs whose bound can
    // still reach the first `limit` keeps a large cache fast. The family is
    // aligned whole: it decides the answer and is small.
    NearestGraphs result;
    const auto target_counts = hash_counts(target.debug_lines);
    const GraphShape target_shape = graph_shape_of(target.debug_lines);
    struct Scored {
        const KeyCandidate* candidate;
        bool family;
        std::size_t bound;
        double code_similarity;
    };
    std::vector<Scored> scored;
    result.from_facts = target.from_facts;
    for (const auto& candidate : candidates) {
        if (candidate.key == target.key) {
            if (!target.every_copy_is_target &&
                (candidate.dir != target.dir || candidate.path != target.path)) {
                result.same_key.push_back({candidate.dir, candidate.path});
            }
            continue;
        }
        if (candidate.from_facts != target.from_facts) {
            ++result.incomparable; // debug lines against what an entry holds
            continue;
        }
        Scored score{&candidate, false, shared_count(target_counts, candidate.debug_lines), 0};
        const auto role = cachedir::graph_role(candidate.debug_lines);
        if (role == target_shape.role || role == cachedir::GraphRole::Unknown ||
            target_shape.role == cachedir::GraphRole::Unknown) {
            const GraphShape shape = graph_shape_of(candidate.debug_lines);
            score.family = same_family(target_shape, shape);
            if (score.family) {
                score.code_similarity = code_similarity(target_shape.code, shape.code);
            }
        }
        result.family += score.family ? 1 : 0;
        scored.push_back(score);
    }
    result.searched = scored.size();
    result.first_compile = result.family == 0 && result.same_key.empty() && !scored.empty();
    std::ranges::sort(scored, [](const Scored& a, const Scored& b) {
        return std::tie(a.family, a.bound) > std::tie(b.family, b.bound);
    });
    const auto before = [](const NearKey& a, const NearKey& b) {
        if (a.same_family != b.same_family) {
            return a.same_family;
        }
        if (a.shared != b.shared) {
            return a.shared > b.shared;
        }
        if (a.code_similarity != b.code_similarity) {
            return a.code_similarity > b.code_similarity;
        }
        return std::tie(a.key, a.dir, a.path) < std::tie(b.key, b.dir, b.path);
    };
    auto& out = result.nearest;
    for (const auto& score : scored) {
        if (limit == 0) {
            break;
        }
        if (!score.family && out.size() >= limit &&
            (out[limit - 1].same_family || score.bound < out[limit - 1].shared)) {
            break;
        }
        const KeyDiff diff = diff_keys(target.debug_lines, score.candidate->debug_lines);
        NearKey near{score.candidate->key,
                     score.candidate->dir,
                     score.candidate->path,
                     0,
                     0,
                     {},
                     diff.counts(),
                     {},
                     {},
                     0,
                     cachedir::GraphRole::Unknown,
                     score.family,
                     score.code_similarity};
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
    const auto target_inputs = example_inputs_of(target.debug_lines);
    for (auto& near : out) {
        for (const auto& score : scored) {
            const KeyCandidate* candidate = score.candidate;
            if (candidate->key == near.key && candidate->dir == near.dir &&
                candidate->path == near.path) {
                const auto inputs = example_inputs_of(candidate->debug_lines);
                near.inputs = align_inputs(inputs, target_inputs);
                near.causes = explain_causes(diff_keys(candidate->debug_lines, target.debug_lines),
                                             inputs, target_inputs, near.inputs);
                near.graph_similarity =
                    graph_similarity(candidate->debug_lines, target.debug_lines);
                near.role = cachedir::graph_role(candidate->debug_lines);
                if (!near.same_family) {
                    mark_other_graph(near.causes);
                }
                settle_verdict(near.causes, false, target.from_facts, target.written_by);
                break;
            }
        }
    }
    return result;
}

std::string why_answer(const NearestGraphs& found, std::string_view target_key,
                       cachedir::GraphRole role, std::string_view written_by) {
    if (found.from_facts && found.same_key.empty() && found.searched > 0) {
        return unrecorded_inputs_line(written_by.empty() ? "2.7 or older" : written_by);
    }
    return why_detail(found, target_key, role);
}

std::string why_detail(const NearestGraphs& found, std::string_view target_key,
                       cachedir::GraphRole role) {
    const auto short_key = [](std::string_view key) {
        return key.size() > 12 ? fmt::format("{}…", key.substr(0, 12)) : std::string(key);
    };
    const std::string graph = role == cachedir::GraphRole::Unknown
                                  ? std::string("graph")
                                  : fmt::format("{} graph", cachedir::to_string(role));
    if (!found.same_key.empty()) {
        const SameKey& copy = found.same_key.front();
        return fmt::format("{} is in {} too (same key): PyTorch did not miss the key there; check "
                           "its guards (cachelens lookup {} {}) or whether that dir was the one "
                           "in use",
                           short_key(target_key), copy.dir, copy.dir, target_key.substr(0, 12));
    }
    if (found.searched == 0) {
        return found.incomparable > 0
                   ? fmt::format("Not compared: the {} {} debug lines and this entry does not "
                                 "(or the other way round); what one holds cannot be set against "
                                 "the other's key",
                                 plural(found.incomparable, "other FX graph entry"),
                                 found.incomparable == 1 ? "stores" : "store")
                   : "No other FX graph to compare with: nothing to say why it missed";
    }
    const std::string_view by_facts = found.from_facts ? "By what the entries hold, a" : "A";
    if (found.first_compile || found.nearest.empty() || !found.nearest.front().same_family) {
        return fmt::format("{} first compile: none of the {} searched is this {} compiled "
                           "before; below, the nearest other graphs",
                           by_facts, plural(found.searched, "graph"), graph);
    }
    const NearKey& near = found.nearest.front();
    return fmt::format("{} (against {}, this {} compiled before{})",
                       found.from_facts ? near.causes.held : near.causes.verdict,
                       short_key(near.key), graph,
                       found.family > 1 ? fmt::format("; {} such in all", found.family) : "");
}

Result<WhyMissed> why_missed(const WhyRequest& request) {
    auto scan = cachedir::scan_cache_dir(request.dir);
    if (!scan) {
        return std::unexpected(std::move(scan.error()));
    }
    auto target = find_graph_to_compare(*scan, request.target);
    if (!target) {
        return std::unexpected(std::move(target.error()));
    }
    WhyMissed why;
    why.target = std::move(target->entry);
    why.fx = std::move(target->fx);
    why.role = why.fx.role;
    why.dirs = distinct_dirs(
        request.search.empty() ? std::vector<std::filesystem::path>{request.dir} : request.search);
    // The target's own dir, when searched: the label its candidates carry.
    std::string target_label;
    // A candidate names its dir by this label; its entry is found again by path.
    std::unordered_map<std::string, std::unordered_map<std::string, cachedir::Entry>> fx_entries;
    std::vector<KeyCandidate> candidates;
    for (const auto& dir : why.dirs) {
        if (request.cancel != nullptr && request.cancel->load()) {
            return fail(ErrorKind::Cancelled, "why stopped");
        }
        const std::string label = dir.string();
        const bool is_own = distinct_dirs({request.dir, dir}).size() == 1;
        if (is_own) {
            target_label = label;
        }
        auto searched = is_own ? std::move(scan) : cachedir::scan_cache_dir(dir);
        if (!searched) {
            return std::unexpected(std::move(searched.error()));
        }
        auto& by_path = fx_entries[label];
        for (auto& entry : searched->entries()) {
            if (entry.kind == cachedir::FileKind::FxGraph) {
                by_path.emplace(entry.path, std::move(entry));
            }
        }
        auto more = fx_graph_candidates(*searched, label, why.skipped);
        std::move(more.begin(), more.end(), std::back_inserter(candidates));
    }
    const ComparedLines target_lines = lines_to_compare(why.fx);
    why.found = nearest_graphs({target_lines.lines, why.fx.key, target_label,
                                target_label.empty() ? std::string_view() : why.target.path, false,
                                target_lines.from_facts, why.fx.written_by},
                               candidates, request.limit);
    why.answer = why_answer(why.found, why.fx.key, why.role, why.fx.written_by);
    if (why.found.from_facts && why.answer != why_detail(why.found, why.fx.key, why.role)) {
        why.detail = why_detail(why.found, why.fx.key, why.role);
    }
    for (const auto& near : why.found.nearest) {
        const auto& by_path = fx_entries[near.dir];
        cachedir::Entry entry;
        if (auto it = by_path.find(near.path); it != by_path.end()) {
            entry = it->second;
        } else {
            entry.kind = cachedir::FileKind::FxGraph;
            entry.key = near.key;
            entry.path = near.path;
        }
        why.nearest_entries.push_back(std::move(entry));
        why.nearest_dirs.emplace_back(near.dir);
    }
    return why;
}

} // namespace cachelens::explain
