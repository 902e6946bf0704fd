#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/bundle/compiled_artifact.h>
#include <cachelens/bundle/import.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/serving/piecewise.h>

#include <algorithm>
#include <map>
#include <ranges>
#include <set>

namespace cachelens::serving {

namespace fs = std::filesystem;

namespace {

std::string joined(std::string_view a, std::string_view b) {
    return a.empty() ? std::string(b) : std::string(a) + "/" + std::string(b);
}

std::string_view file_name_of(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_plain_name(std::string_view name) {
    return !name.empty() && name != "." && name != ".." &&
           name.find('/') == std::string_view::npos && name.find('\\') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

std::string graph_label(const CompileIndexEntry& entry) {
    return "graph " + entry.graph_name() +
           (entry.shape.kind == CompileShape::Kind::Range  ? " for range "
            : entry.shape.kind == CompileShape::Kind::Size ? " for size "
                                                           : " for the ") +
           entry.shape.describe() +
           (entry.shape.kind == CompileShape::Kind::General ? " shape" : "");
}

// The first regular file of a dir, sorted by name.
std::optional<fs::path> first_file_in(const fs::path& dir) {
    std::error_code error;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
        if (it->is_regular_file(error) && !it->is_symlink(error)) {
            files.push_back(it->path());
        }
    }
    if (files.empty()) {
        return std::nullopt;
    }
    return *std::ranges::min_element(files);
}

// The Triton kernels a wrapper module defines: Inductor compiles each with
// async_compile.triton(...) (older entries record no autotuners to count).
std::size_t kernels_of(const cachedir::FxGraphEntry& entry) {
    if (!entry.autotuners.empty()) {
        return entry.autotuners.size();
    }
    std::size_t count = 0;
    constexpr std::string_view kCall = "async_compile.triton(";
    for (auto at = entry.source_code.find(kCall); at != std::string_view::npos;
         at = entry.source_code.find(kCall, at + kCall.size())) {
        ++count;
    }
    return count;
}

void read_fx_details(const fs::path& file, PiecewiseGraph& graph) {
    auto entry = cachedir::load_fx_graph_entry(file);
    if (!entry) {
        return;
    }
    graph.kernels = kernels_of(*entry);
    graph.compile_ns = entry->time_taken_ns;
    graph.fx_key = entry->key.empty() ? graph.fx_key : entry->key;
}

void read_artifact_details(const fs::path& path, bool unpacked, PiecewiseGraph& graph) {
    if (unpacked) {
        std::error_code error;
        for (fs::recursive_directory_iterator it(path / "fxgraph", error), end; !error && it != end;
             it.increment(error)) {
            if (it->is_regular_file(error) && !it->is_symlink(error)) {
                graph.fx_key = it->path().parent_path().filename().string();
                read_fx_details(it->path(), graph);
                return;
            }
        }
        return;
    }
    auto artifact = bundle::load_compiled_artifact(path);
    if (!artifact || !artifact->bundle) {
        return;
    }
    for (const auto& section : artifact->bundle->sections) {
        if (section.type != "inductor" || section.artifacts.empty()) {
            continue;
        }
        const auto& fx = section.artifacts.front();
        graph.fx_key = fx.key;
        auto document = pickle::unpickle(fx.content.view());
        if (!document) {
            return;
        }
        if (auto entry = cachedir::read_fx_graph_entry(std::move(*document), fx.key)) {
            graph.kernels = kernels_of(*entry);
            graph.compile_ns = entry->time_taken_ns;
        }
        return;
    }
}

PiecewiseGraph resolve(const ServingTree& tree, const PrefixDir& prefix,
                       const CompileIndexEntry& entry, bool details) {
    PiecewiseGraph graph;
    graph.entry = entry;
    if (!entry.handle) {
        graph.present = true; // eager: nothing stored, nothing to load
        return graph;
    }
    const CompileHandle& handle = *entry.handle;
    const bool standalone =
        entry.compiler == "inductor_standalone" || handle.key.starts_with("artifact_");
    if (standalone) {
        graph.link = PiecewiseGraph::Link::Artifact;
        if (!is_plain_name(handle.key) || !parse_artifact_name(handle.key)) {
            graph.problem = "its handle names '" + handle.key +
                            "', which is no artifact name vLLM writes: never followed";
            return graph;
        }
        const auto name = parse_artifact_name(handle.key);
        if ((entry.graph_index && name->graph_index != *entry.graph_index) ||
            name->shape != entry.shape) {
            graph.problem = "its handle names " + handle.key + ", the artifact of another graph";
            return graph;
        }
        // A key by graph hash records no position: the artifact's name gives
        // where the piece was first compiled, but identical pieces share the
        // entry, so it stays named by its hash.
        if (file_name_of(handle.path) != handle.key) {
            graph.problem = "its handle's path ends in '" + std::string(file_name_of(handle.path)) +
                            "', not in " + handle.key + ": vLLM would load another file";
            return graph;
        }
        graph.found_path = joined(prefix.path, handle.key);
        const auto on_disk = std::ranges::find(prefix.artifacts, handle.key, &ArtifactOnDisk::name);
        graph.present = on_disk != prefix.artifacts.end();
        const std::string here = (tree.root / prefix.path / handle.key).string();
        graph.moved = handle.path != here;
        if (!graph.present) {
            graph.problem = "its artifact " + handle.key + " is not in " +
                            (prefix.path.empty() ? std::string(".") : prefix.path) +
                            ": vLLM finds the graph in its index and fails to load it";
        } else if (details) {
            read_artifact_details(tree.root / graph.found_path, on_disk->unpacked, graph);
        }
        return graph;
    }
    if (entry.compiler == "inductor" || cachedir::is_fx_graph_key(handle.key)) {
        graph.link = PiecewiseGraph::Link::FxEntry;
        graph.fx_key = handle.key;
        if (!cachedir::is_fx_graph_key(handle.key)) {
            graph.problem = "its handle's key '" + handle.key +
                            "' is no FX graph key (\"f\" + 51 base32 characters)";
            return graph;
        }
        if (prefix.inductor_cache.empty()) {
            graph.problem = "its FX entry " + handle.key +
                            " would be in an inductor_cache/ dir, and there is none beside it";
            return graph;
        }
        graph.found_path =
            prefix.inductor_cache + "/fxgraph/" + handle.key.substr(1, 2) + "/" + handle.key;
        const auto file = first_file_in(tree.root / graph.found_path);
        graph.present = file.has_value();
        // The module path is only informative to vLLM (it loads by key); a
        // path outside this tree says the tree was compiled elsewhere. vLLM
        // 0.6.5 and 0.6.6 record no path at all.
        const std::string cache_here = (tree.root / prefix.inductor_cache).string() + "/";
        graph.moved = !handle.path.empty() && !handle.path.starts_with(cache_here);
        if (!graph.present) {
            graph.problem = "its FX entry " + handle.key + " is not in " + prefix.inductor_cache +
                            ": vLLM finds the graph in its index and fails to load it";
        } else if (details) {
            read_fx_details(*file, graph);
        }
        return graph;
    }
    graph.present = true; // a plugin's compiler: its handle means nothing to cachelens
    return graph;
}

std::string unquoted(std::string_view json) {
    if (json.size() >= 2 && json.front() == '"' && json.back() == '"') {
        return std::string(json.substr(1, json.size() - 2));
    }
    return std::string(json);
}

std::vector<FactorChange> factor_changes(const CacheKeyFactors& from, const CacheKeyFactors& to) {
    std::vector<FactorChange> changes;
    std::set<std::string> names;
    for (const auto& [name, value] : from.env) {
        names.insert(name);
    }
    for (const auto& [name, value] : to.env) {
        names.insert(name);
    }
    for (const auto& name : names) {
        const auto a = from.env_value(name);
        const auto b = to.env_value(name);
        if (a != b) {
            changes.push_back({"env", name, a ? std::string(*a) : "", b ? std::string(*b) : ""});
        }
    }
    if (from.config_hash != to.config_hash) {
        changes.push_back({"config", "", from.config_hash, to.config_hash});
    }
    if (from.code_hash != to.code_hash) {
        changes.push_back({"code", "", from.code_hash, to.code_hash});
    }
    if (from.compiler_hash != to.compiler_hash) {
        changes.push_back({"compiler", "", from.compiler_hash, to.compiler_hash});
    }
    return changes;
}

std::string shortened(std::string_view hash) {
    return hash.size() > 12 ? std::string(hash.substr(0, 10)) + "..." : std::string(hash);
}

std::string describe_change(const FactorChange& change) {
    if (change.factor == "env") {
        const std::string from = change.from.empty() ? "not recorded" : unquoted(change.from);
        const std::string to = change.to.empty() ? "not recorded" : unquoted(change.to);
        return "env " + change.name + " changed (" + from + " -> " + to + ")";
    }
    const std::string hashes = " " + shortened(change.from) + " -> " + shortened(change.to);
    if (change.factor == "config") {
        return "the vLLM config changed (only its hash is recorded by this vLLM version:" + hashes +
               ")";
    }
    if (change.factor == "code") {
        return "the model code Dynamo traced changed (only its hash is recorded:" + hashes + ")";
    }
    return "PyTorch or the machine changed (the compiler hash of the system and torch_key:" +
           hashes + ")";
}

} // namespace

std::string_view to_string(PiecewiseGraph::Link link) {
    switch (link) {
    case PiecewiseGraph::Link::FxEntry:
        return "fx_entry";
    case PiecewiseGraph::Link::Artifact:
        return "artifact";
    case PiecewiseGraph::Link::None:
        return "none";
    }
    return "none";
}

std::size_t PrefixGraphs::linked() const {
    return static_cast<std::size_t>(std::ranges::count_if(graphs, [](const PiecewiseGraph& graph) {
        return graph.link != PiecewiseGraph::Link::None && graph.present;
    }));
}

PrefixGraphs read_piecewise_graphs(const ServingTree& tree, const PrefixDir& prefix, bool details) {
    PrefixGraphs out;
    std::set<std::string> named;
    if (prefix.index) {
        for (const auto& entry : prefix.index->entries) {
            out.graphs.push_back(resolve(tree, prefix, entry, details));
            if (entry.handle) {
                named.insert(entry.handle->key);
            }
        }
    }
    for (const auto& artifact : prefix.artifacts) {
        if (!named.contains(artifact.name)) {
            out.unindexed_artifacts.push_back(artifact.name);
        }
    }
    return out;
}

std::string describe_tree_with_graphs(const ServingTree& tree) {
    std::size_t graphs = 0, fx = 0, artifacts = 0, linked = 0;
    for (const auto& dir : tree.hash_dirs) {
        for (const auto& rank : dir.ranks) {
            for (const auto& prefix : rank.prefixes) {
                const auto read = read_piecewise_graphs(tree, prefix);
                graphs += read.graphs.size();
                for (const auto& graph : read.graphs) {
                    fx += graph.link == PiecewiseGraph::Link::FxEntry;
                    artifacts += graph.link == PiecewiseGraph::Link::Artifact;
                    linked += graph.link != PiecewiseGraph::Link::None && graph.present;
                }
            }
        }
    }
    std::string out = describe_tree(tree) + "; " + std::to_string(graphs) + " piecewise graph" +
                      (graphs == 1 ? "" : "s");
    if (fx + artifacts > 0) {
        out += ", " + std::to_string(linked) + " linked to " +
               (artifacts == 0 ? "FX entries"
                : fx == 0      ? "artifacts"
                               : "FX entries and artifacts");
    }
    return out;
}

Result<TreeSelection> select_in_tree(const ServingTree& tree, std::string_view relative) {
    TreeSelection selection;
    std::string_view rest = relative;
    while (rest.ends_with('/')) {
        rest.remove_suffix(1);
    }
    if (rest.empty()) {
        return selection;
    }
    // The longest hash dir path the selection starts with.
    for (const auto& dir : tree.hash_dirs) {
        const std::string_view path = dir.path;
        if (!path.empty() && (rest == path || rest.starts_with(std::string(path) + "/")) &&
            (selection.hash_dir == nullptr || path.size() > selection.hash_dir->path.size())) {
            selection.hash_dir = &dir;
        }
    }
    if (selection.hash_dir == nullptr) {
        // SGLang's eager compiler: rank dirs straight under the root.
        for (const auto& dir : tree.hash_dirs) {
            if (dir.kind == HashDir::Kind::Unhashed) {
                selection.hash_dir = &dir;
            }
        }
        if (selection.hash_dir == nullptr || !parse_rank_dir_name(rest.substr(0, rest.find('/')))) {
            std::string names;
            for (const auto& dir : tree.hash_dirs) {
                names += (names.empty() ? "" : ", ") + (dir.path.empty() ? "." : dir.path);
            }
            return fail(ErrorKind::NotFound,
                        "no cache dir '" + std::string(relative) + "' in " + tree.root.string() +
                            (names.empty() ? " (it has none)" : "; it has " + names));
        }
    } else {
        rest.remove_prefix(std::min(rest.size(), selection.hash_dir->path.size() + 1));
    }
    if (rest.empty()) {
        return selection;
    }
    const std::string_view rank_name = rest.substr(0, rest.find('/'));
    for (const auto& rank : selection.hash_dir->ranks) {
        if (rank.name == rank_name) {
            selection.rank = &rank;
        }
    }
    if (selection.rank == nullptr) {
        return fail(ErrorKind::NotFound, "no rank dir '" + std::string(rank_name) + "' in " +
                                             (tree.root / selection.hash_dir->path).string());
    }
    rest.remove_prefix(std::min(rest.size(), rank_name.size() + 1));
    if (rest.empty()) {
        // vLLM 0.8: the rank dir is its own (only) prefix.
        const auto& prefixes = selection.rank->prefixes;
        if (prefixes.size() == 1 && prefixes.front().name.empty()) {
            selection.prefix = &prefixes.front();
        }
        return selection;
    }
    for (const auto& prefix : selection.rank->prefixes) {
        if (prefix.name == rest) {
            selection.prefix = &prefix;
        }
    }
    if (selection.prefix == nullptr) {
        std::string names;
        for (const auto& prefix : selection.rank->prefixes) {
            names += (names.empty() ? "" : ", ") + (prefix.name.empty() ? "." : prefix.name);
        }
        return fail(ErrorKind::NotFound, "no prefix dir '" + std::string(rest) + "' in " +
                                             (tree.root / selection.rank->path).string() +
                                             (names.empty() ? "" : "; it has " + names));
    }
    return selection;
}

Result<HashDirComparison> compare_hash_dirs(const ServingTree& tree, const HashDir& dir,
                                            const HashDir* against) {
    HashDirComparison out;
    out.dir = dir.name;
    const CacheKeyFactors* mine = dir.factors();
    if (against == nullptr) {
        // The sibling whose factors differ least; without factors, the one
        // written last before it.
        std::size_t best = SIZE_MAX;
        for (const auto& other : tree.hash_dirs) {
            if (&other == &dir || other.kind != dir.kind) {
                continue;
            }
            std::size_t distance = SIZE_MAX - 1;
            if (mine != nullptr && other.factors() != nullptr) {
                distance = factor_changes(*other.factors(), *mine).size();
            }
            const bool closer_in_time =
                against != nullptr && std::abs(other.newest_mtime_ns - dir.newest_mtime_ns) <
                                          std::abs(against->newest_mtime_ns - dir.newest_mtime_ns);
            if (distance < best || (distance == best && closer_in_time)) {
                best = distance;
                against = &other;
            }
        }
        if (against == nullptr) {
            return fail(ErrorKind::InvalidArgument,
                        "no other cache dir beside " + dir.name + " in " + tree.root.string() +
                            " to compare it with: vLLM made it on its first run with these "
                            "settings");
        }
        out.nearest = true;
    }
    out.against = against->name;
    const CacheKeyFactors* theirs = against->factors();
    const std::string stack(display_name(tree.stack));
    if (mine == nullptr || theirs == nullptr) {
        const std::string missing = mine == nullptr && theirs == nullptr ? "neither dir has a"
                                    : mine == nullptr                    ? dir.name + " has no"
                                                      : against->name + " has no";
        out.answer = stack + " made " + dir.name + " rather than use " + against->name +
                     " because a factor of its hash changed, but " + missing +
                     " cache_key_factors.json (" + stack +
                     " before 0.12 records only their hash): which one cannot be told";
        return out;
    }
    out.factors_recorded = true;
    out.changes = factor_changes(*theirs, *mine);
    if (out.changes.empty()) {
        out.answer = dir.name + " and " + against->name +
                     " record the same factors: vLLM gives them one name, so one of them was "
                     "renamed or copied (or named by compilation_config.cache_dir)";
        return out;
    }
    out.answer = stack + " made a new cache dir because " + describe_change(out.changes.front());
    if (out.changes.size() > 1) {
        out.answer += "; and " + std::to_string(out.changes.size() - 1) + " more factor" +
                      (out.changes.size() == 2 ? "" : "s");
    }
    return out;
}

std::string describe(const FactorChange& change) {
    return describe_change(change);
}

HashDirComparison preflight_factors(const ServingTree& tree, const HashDir& dir,
                                    const HashDir& target) {
    HashDirComparison out;
    out.dir = dir.name;
    out.against = target.name;
    const std::string stack(display_name(tree.stack));
    const CacheKeyFactors* mine = dir.factors();
    const CacheKeyFactors* theirs = target.factors();
    if (mine == nullptr || theirs == nullptr) {
        out.answer = stack +
                     " factors cannot be compared: " + (mine == nullptr ? dir.name : target.name) +
                     " has no cache_key_factors.json (" + stack + " before 0.12 records none)";
        return out;
    }
    out.factors_recorded = true;
    out.changes = factor_changes(*mine, *theirs); // from this cache to the target
    if (out.changes.empty()) {
        out.answer = stack + " there hashes the same factors: it looks for " + dir.name +
                     " and finds this cache";
        return out;
    }
    out.answer =
        stack + " there hashes other factors (" + describe_change(out.changes.front()) +
        (out.changes.size() > 1 ? "; and " + std::to_string(out.changes.size() - 1) + " more"
                                : std::string()) +
        "): it makes its own cache dir and never reads " + dir.name;
    return out;
}

std::optional<HashDirComparison> preflight_factors(const fs::path& source, const fs::path& target) {
    const auto source_location = locate_serving_tree(source);
    const auto target_location = locate_serving_tree(target);
    if (!source_location || !target_location) {
        return std::nullopt;
    }
    auto source_tree = read_serving_tree(source_location->root);
    auto target_tree = read_serving_tree(target_location->root);
    if (!source_tree || !target_tree) {
        return std::nullopt;
    }
    auto source_dir = select_in_tree(*source_tree, source_location->relative);
    auto target_dir = select_in_tree(*target_tree, target_location->relative);
    if (!source_dir || !target_dir || source_dir->hash_dir == nullptr ||
        target_dir->hash_dir == nullptr) {
        return std::nullopt;
    }
    return preflight_factors(*source_tree, *source_dir->hash_dir, *target_dir->hash_dir);
}

ShapeLookup lookup_shape(const PrefixDir& prefix, std::int64_t tokens) {
    ShapeLookup out;
    out.tokens = tokens;
    if (!prefix.index) {
        out.answer = "no index to look in";
        return out;
    }
    // A piece is its position, or in 2026 vLLM its graph's hash.
    std::map<std::pair<std::optional<std::int64_t>, std::string>,
             std::vector<const CompileIndexEntry*>>
        by_graph;
    std::set<CompileShape> shapes;
    for (const auto& entry : prefix.index->entries) {
        by_graph[{entry.graph_index, entry.graph_hash}].push_back(&entry);
        shapes.insert(entry.shape);
    }
    out.shapes.assign(shapes.begin(), shapes.end());
    // vLLM's piecewise backend: a compile size equal to the batch first, then
    // the range that holds it (the general shape in older releases).
    const auto rank = [tokens](const CompileShape& shape) {
        if (shape.kind == CompileShape::Kind::Size && shape.start == tokens) {
            return 0;
        }
        if (shape.kind == CompileShape::Kind::Range && shape.start == tokens &&
            shape.end == tokens) {
            return 0;
        }
        if (shape.kind == CompileShape::Kind::Range && shape.covers(tokens)) {
            return 1;
        }
        if (shape.kind == CompileShape::Kind::General) {
            return 2;
        }
        return 3;
    };
    for (const auto& entries : by_graph | std::views::values) {
        const CompileIndexEntry* best = nullptr;
        for (const auto* entry : entries) {
            if (rank(entry->shape) < 3 &&
                (best == nullptr || rank(entry->shape) < rank(best->shape))) {
                best = entry;
            }
        }
        if (best == nullptr) {
            out.unserved_graphs.push_back(entries.front());
        } else {
            out.served.push_back(best);
        }
    }
    std::string compiled;
    for (const auto& shape : out.shapes) {
        compiled += (compiled.empty() ? "" : ", ") + shape.describe();
    }
    const std::string where = prefix.name.empty() ? "this rank" : prefix.name;
    if (by_graph.empty()) {
        out.answer = "no graph of " + where + " is compiled";
    } else if (out.unserved_graphs.empty()) {
        const auto& shape = out.served.front()->shape;
        out.answer =
            "a batch of " + std::to_string(tokens) + " tokens hits in " + where + ": " +
            plural(out.served.size(), "graph") + " compiled for " +
            (shape.kind == CompileShape::Kind::General ? "the general shape" : shape.describe());
    } else {
        out.answer = "no compiled graph of " + where + " serves a batch of " +
                     std::to_string(tokens) + " tokens (" +
                     std::to_string(out.unserved_graphs.size()) + " of " +
                     plural(by_graph.size(), "graph") + "): compiled are " + compiled;
    }
    return out;
}

bool ServingVerifyReport::clean() const {
    return report.clean() && std::ranges::none_of(code, [](const bundle::FileVerdict& file) {
               return file.check.verdict == safety::Verdict::CodeWithFindings;
           });
}

Result<ServingVerifyReport> verify_serving_tree(const ServingTree& tree,
                                                const TreeSelection& selection,
                                                const ProgressFn& progress) {
    ServingVerifyReport out;
    auto& report = out.report;
    std::size_t order = 0;
    const auto add = [&](std::string path, cachedir::ProblemKind kind, std::string message) {
        report.problems.push_back({std::move(path), kind, std::move(message), order++});
    };
    const auto warn = [&](std::string path, cachedir::ProblemKind kind, std::string message) {
        report.warnings.push_back({std::move(path), kind, std::move(message), order++});
    };
    std::set<std::string> inner;
    for (const auto& dir : tree.hash_dirs) {
        if (selection.hash_dir != nullptr && &dir != selection.hash_dir) {
            continue;
        }
        // The dir's name, where vLLM's factors say what it should be.
        if (dir.kind == HashDir::Kind::Jit) {
            const bool hashed_name =
                dir.name.size() == 10 && std::ranges::all_of(dir.name, [](char c) {
                    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                });
            const CacheKeyFactors* factors = dir.factors();
            if (factors == nullptr) {
                out.notes.push_back(dir.name + ": no cache_key_factors.json (" +
                                    std::string(display_name(tree.stack)) +
                                    " before 0.12 records none): its name cannot be checked");
            } else if (!hashed_name) {
                out.notes.push_back(dir.name +
                                    ": not a hash vLLM makes (a compilation_config."
                                    "cache_dir of the user's own): its name is not checked");
            } else if (const auto expected = recompute_hash_dir_name(*factors)) {
                ++report.names_verified;
                if (*expected != dir.name) {
                    add(dir.path, cachedir::ProblemKind::NameMismatch,
                        "its cache_key_factors.json hashes to " + *expected +
                            ", not to its name: vLLM with these settings looks for " + *expected +
                            " and compiles again (a renamed dir, or factors edited since)");
                }
            } else {
                out.notes.push_back(dir.name + ": a factor cannot be written back as vLLM "
                                               "hashed it (an int beyond 64 bits): not checked");
            }
            // Every prefix of a dir records the same factors: differing ones mean a mix.
            for (const auto& rank : dir.ranks) {
                for (const auto& prefix : rank.prefixes) {
                    if (prefix.factors && factors != nullptr &&
                        !factor_changes(*factors, *prefix.factors).empty()) {
                        add(joined(prefix.path, kFactorsFileName),
                            cachedir::ProblemKind::KeyMismatch,
                            "its factors differ from the other prefixes' of " + dir.name +
                                ": the dir holds caches of two configurations");
                    }
                }
            }
        }
        for (const auto& rank : dir.ranks) {
            if (selection.rank != nullptr && &rank != selection.rank) {
                continue;
            }
            if (rank.has_inductor_cache) {
                inner.insert(joined(rank.path, "inductor_cache"));
            }
            if (rank.has_triton_cache) {
                inner.insert(joined(rank.path, "triton_cache"));
            }
            for (const auto& prefix : rank.prefixes) {
                if (selection.prefix != nullptr && &prefix != selection.prefix) {
                    continue;
                }
                for (const auto& link : prefix.symlinks) {
                    add(joined(prefix.path, link), cachedir::ProblemKind::Unsafe,
                        "a symlink: cachelens never follows it, and vLLM would read whatever it "
                        "points at");
                }
                if (prefix.index_error) {
                    add(joined(prefix.path, prefix.index_file), cachedir::ProblemKind::ParseError,
                        prefix.index_error->message +
                            ": vLLM's ast.literal_eval fails on it and the server does not start");
                }
                if (prefix.factors_error) {
                    add(joined(prefix.path, kFactorsFileName), cachedir::ProblemKind::ParseError,
                        prefix.factors_error->message);
                }
                if (!prefix.inductor_cache.empty()) {
                    inner.insert(prefix.inductor_cache);
                }
                if (!prefix.triton_cache.empty()) {
                    inner.insert(prefix.triton_cache);
                }
                const auto graphs = read_piecewise_graphs(tree, prefix);
                for (const auto& graph : graphs.graphs) {
                    ++out.graphs_checked;
                    const std::string index_path = joined(prefix.path, prefix.index_file);
                    if (!graph.problem.empty()) {
                        add(index_path, cachedir::ProblemKind::DanglingLink,
                            graph_label(graph.entry) + ": " + graph.problem);
                    } else if (graph.moved && graph.link == PiecewiseGraph::Link::Artifact) {
                        warn(index_path, cachedir::ProblemKind::Moved,
                             graph_label(graph.entry) + ": its handle records " +
                                 graph.entry.handle->path +
                                 ", not this tree; vLLM releases without vllm#52142 load the "
                                 "artifact from that path and fail here");
                    }
                }
                for (const auto& name : graphs.unindexed_artifacts) {
                    warn(joined(prefix.path, name), cachedir::ProblemKind::Incomplete,
                         "no index entry names it (a run that stopped before saving its index): "
                         "vLLM compiles that graph again");
                }
                for (const auto& artifact : prefix.artifacts) {
                    const std::string path = joined(prefix.path, artifact.name);
                    if (artifact.unpacked) {
                        inner.insert(path);
                        continue;
                    }
                    ++report.entries_checked;
                    // Its code is judged with the rest of the tree's below.
                    if (auto decoded = bundle::load_compiled_artifact(tree.root / path); !decoded) {
                        add(path, cachedir::ProblemKind::ParseError, decoded.error().message);
                    }
                }
            }
        }
        if (dir.kind == HashDir::Kind::Aot && dir.has_inductor_cache) {
            inner.insert(joined(dir.path, "inductor_cache"));
        }
    }
    std::size_t done = 0;
    for (const auto& path : inner) {
        if (!report_progress(progress, {.stage = ProgressStage::Checking,
                                        .unit = ProgressUnit::Files,
                                        .done = done++,
                                        .total = inner.size(),
                                        .bytes = 0,
                                        .item = path})) {
            return fail(ErrorKind::Cancelled, "stopped");
        }
        auto scan = cachedir::scan_cache_dir(tree.root / path);
        if (!scan) {
            add(path, cachedir::ProblemKind::Unreadable, scan.error().message);
            continue;
        }
        ++out.inner_caches;
        auto inner_report = cachedir::verify_cache_dir(*scan);
        report.entries_checked += inner_report.entries_checked;
        report.names_verified += inner_report.names_verified;
        report.names_not_content_addressed += inner_report.names_not_content_addressed;
        for (auto& problem : inner_report.problems) {
            add(joined(path, problem.path), problem.kind, std::move(problem.message));
        }
        for (auto& warning : inner_report.warnings) {
            warn(joined(path, warning.path), warning.kind, std::move(warning.message));
        }
    }
    // Every pickle, module and artifact vLLM would make PyTorch load, judged
    // as an import judges it.
    const std::string selected = selection.prefix     ? selection.prefix->path
                                 : selection.rank     ? selection.rank->path
                                 : selection.hash_dir ? selection.hash_dir->path
                                                      : std::string();
    auto scan = cachedir::scan_cache_dir(selected.empty() ? tree.root : tree.root / selected);
    if (!scan) {
        return std::unexpected(scan.error());
    }
    auto verdicts = bundle::judge_cache_dir(*scan, progress);
    if (!verdicts) {
        return std::unexpected(verdicts.error());
    }
    for (auto& verdict : *verdicts) {
        verdict.path = joined(selected, verdict.path);
        out.code.push_back(std::move(verdict));
    }
    const auto by_path = [](const cachedir::Problem& a, const cachedir::Problem& b) {
        return std::tie(a.path, a.order) < std::tie(b.path, b.order);
    };
    std::ranges::sort(report.problems, by_path);
    std::ranges::sort(report.warnings, by_path);
    return out;
}

} // namespace cachelens::serving
