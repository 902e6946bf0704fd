// Carrying out a prune plan while PyTorch may be writing to the same dir:
// the root is indexed again first, anything that changed since the plan or
// that a new entry uses stays, and each file is checked once more right
// before it is unlinked, through a directory handle that never follows a
// symlink out of the root.

#include "indexer.h"
#include "prune_steps.h"
#include "root_graph.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/open_files.h>
#include <cachelens/core/trash.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

namespace cachelens::catalog {

namespace {

using cachedir::FileKind;

std::int64_t mtime_ns_of(const struct stat& info) {
    return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

bool same_files(const std::vector<PruneFile>& planned, const std::vector<PruneFile>& now) {
    auto key = [](const PruneFile& file) {
        return std::tuple(file.path, file.size, file.mtime_ns, file.inode);
    };
    std::set<std::tuple<std::string, std::uint64_t, std::int64_t, std::uint64_t>> a, b;
    for (const auto& file : planned) {
        a.insert(key(file));
    }
    for (const auto& file : now) {
        b.insert(key(file));
    }
    return a == b;
}

std::pair<std::string_view, std::string_view> split_parent(std::string_view path) {
    const auto slash = path.rfind('/');
    if (slash == std::string_view::npos) {
        return {{}, path};
    }
    return {path.substr(0, slash), path.substr(slash + 1)};
}

// Which planned entries stay, and why, given the root as it is now.
class KeepDecision {
public:
    KeepDecision(const PrunePlan& plan, const RootGraph& graph)
        : plan_(plan)
        , graph_(graph) {
        for (std::size_t u = 0; u < plan.units.size(); ++u) {
            for (const auto& entry : plan.units[u].entries) {
                unit_of_[entry.path] = u;
            }
        }
    }

    void decide() {
        for (const auto& unit : plan_.units) {
            for (const auto& entry : unit.entries) {
                auto node = graph_.node_by_path.find(entry.path);
                if (node == graph_.node_by_path.end()) {
                    gone_.insert(entry.path);
                } else if (!same_files(entry.files, graph_.nodes[node->second].entry.files)) {
                    keep(entry.path, "changed since the plan");
                }
            }
        }
        // Both run every round (no short-circuit): each can make the other keep more.
        for (bool changed = true; changed;) {
            const bool kept_units = keep_whole_units();
            const bool kept_used = keep_what_survivors_use();
            changed = kept_units || kept_used;
        }
    }

    bool is_doomed(const std::string& path) const {
        return unit_of_.contains(path) && !kept_.contains(path) && !gone_.contains(path);
    }
    const std::map<std::string, std::string>& kept() const { return kept_; }

private:
    bool keep(const std::string& path, std::string why) {
        return kept_.try_emplace(path, std::move(why)).second;
    }

    // A unit's defining entries go together or not at all; a key that got a
    // new entry since the plan is in use again.
    bool keep_whole_units() {
        bool changed = false;
        for (const auto& unit : plan_.units) {
            std::string why;
            for (std::size_t i = 0; i < unit.defining_entries && why.empty(); ++i) {
                const auto& path = unit.entries[i].path;
                if (auto it = kept_.find(path); it != kept_.end()) {
                    why = "kept with " + path + " (" + it->second + ")";
                } else if (auto node = graph_.node_by_path.find(path);
                           node != graph_.node_by_path.end()) {
                    for (std::size_t member : graph_.groups[graph_.nodes[node->second].group]) {
                        const auto& member_path = graph_.nodes[member].entry.path;
                        if (!unit_of_.contains(member_path)) {
                            why = "its group has a new entry, " + member_path;
                            break;
                        }
                    }
                }
            }
            if (!why.empty()) {
                for (std::size_t i = 0; i < unit.defining_entries; ++i) {
                    changed |= keep(unit.entries[i].path, why);
                }
            }
        }
        return changed;
    }

    // Whatever an entry that stays uses stays too.
    bool keep_what_survivors_use() {
        bool changed = false;
        for (const auto& node : graph_.nodes) {
            if (is_doomed(node.entry.path)) {
                continue;
            }
            for (std::size_t used : node.uses) {
                const auto& path = graph_.nodes[used].entry.path;
                if (is_doomed(path)) {
                    changed |= keep(path, "used by " + node.entry.path);
                }
            }
        }
        return changed;
    }

    const PrunePlan& plan_;
    const RootGraph& graph_;
    std::unordered_map<std::string, std::size_t> unit_of_;
    std::set<std::string> gone_;
    std::map<std::string, std::string> kept_;
};

// Key dirs without entries (fxgraph/<xx>/<key>, aotautograd/<key>) and
// fxgraph shard dirs left empty go, so that no command meets a key with
// nothing under it. PyTorch makes a key dir and then writes into it without
// a retry, so only a dir nothing was written in for a while goes (see
// kKeyDirMinIdleNs), and by rmdir, which fails on a dir holding anything
// (never a recursive delete). A dir's age is its mtime from before this prune
// unlinked anything in it. What stays possible: a writer that finds an idle
// empty dir there and is between its mkdir and its first file as the dir goes.
class EmptyDirSweeper {
public:
    EmptyDirSweeper(const DirHandle& root, std::int64_t idle_before_ns)
        : root_(root)
        , idle_before_ns_(idle_before_ns) {}

    // Called before the files of `entry` are unlinked, which touches its dirs.
    void before_removing(const PruneEntry& entry) {
        if (entry.kind != FileKind::FxGraph && entry.kind != FileKind::AotAutograd) {
            return;
        }
        const std::string_view key_dir = split_parent(entry.path).first;
        remember(key_dir);
        if (entry.kind == FileKind::FxGraph) {
            remember(split_parent(key_dir).first);
        }
    }

    void sweep(PruneOutcome& outcome) {
        if (auto fxgraph = root_.open_beneath("fxgraph")) {
            for (const auto& shard : names_in(*fxgraph)) {
                const std::string shard_path = "fxgraph/" + shard;
                // Its age before its key dirs go: removing one touches it.
                const auto shard_written = written(*fxgraph, shard, shard_path);
                if (auto dir = fxgraph->open_beneath(shard)) {
                    for (const auto& key : names_in(*dir)) {
                        const std::string key_path = shard_path + "/" + key;
                        remove_if_idle(*dir, key, key_path, written(*dir, key, key_path), outcome);
                    }
                }
                remove_if_idle(*fxgraph, shard, shard_path, shard_written, outcome);
            }
        }
        if (auto aot = root_.open_beneath("aotautograd")) {
            for (const auto& key : names_in(*aot)) {
                const std::string key_path = "aotautograd/" + key;
                remove_if_idle(*aot, key, key_path, written(*aot, key, key_path), outcome);
            }
        }
    }

private:
    static std::vector<std::string> names_in(const DirHandle& dir) {
        auto names = dir.subdir_names();
        return names ? std::move(*names) : std::vector<std::string>{};
    }

    void remember(std::string_view relative) {
        const std::string path(relative);
        if (last_written_.contains(path)) {
            return;
        }
        auto [parent, name] = split_parent(path);
        if (auto dir = root_.open_beneath(parent)) {
            if (auto info = dir->stat_entry(name); info && S_ISDIR(info->st_mode)) {
                last_written_.emplace(path, mtime_ns_of(*info));
            }
        }
    }

    // When `name` in `parent` was last written before this prune, if known.
    std::optional<std::int64_t> written(const DirHandle& parent, const std::string& name,
                                        const std::string& path) const {
        if (auto it = last_written_.find(path); it != last_written_.end()) {
            return it->second;
        }
        auto info = parent.stat_entry(name);
        if (!info || !S_ISDIR(info->st_mode)) {
            return std::nullopt;
        }
        return mtime_ns_of(*info);
    }

    void remove_if_idle(const DirHandle& parent, const std::string& name, const std::string& path,
                        std::optional<std::int64_t> written_ns, PruneOutcome& outcome) {
        if (!written_ns || *written_ns > idle_before_ns_) {
            return;
        }
        auto removed = parent.remove_empty_dir(name);
        if (!removed) {
            if (removed.error().kind != ErrorKind::NotFound) {
                outcome.errors.push_back(removed.error());
            }
            return;
        }
        if (*removed) {
            outcome.dirs_removed.push_back(path);
        }
    }

    const DirHandle& root_;
    const std::int64_t idle_before_ns_;
    std::map<std::string, std::int64_t> last_written_;
};

class Deleter {
public:
    Deleter(const DirHandle& root, const std::string& root_path, Trash& trash,
            PruneOutcome& outcome, EmptyDirSweeper& sweeper)
        : root_(root)
        , in_use_(root_path)
        , trash_(trash)
        , outcome_(outcome)
        , sweeper_(sweeper) {}

    // The doomed entries of one unit go whole or all stay: an FX entry in
    // use keeps the modules, kernels and best_configs it needs. Every file
    // is checked (unchanged, open by no process), then moved into the trash
    // and checked there to be the file planned; one that must stay puts the
    // unit's files back. Only then is anything unlinked.
    void remove_unit(std::span<const PruneEntry* const> entries) {
        struct Planned {
            const DirHandle* dir;
            std::string name;
            std::string path;
            FileIdentity identity;
        };
        // One handle per dir of the unit (a graph's hundreds of Triton
        // kernel dirs), not one per file.
        std::map<std::string, DirHandle, std::less<>> dirs;
        std::vector<std::vector<Planned>> files(entries.size());
        for (std::size_t e = 0; e < entries.size(); ++e) {
            for (const auto& file : entries[e]->files) {
                auto [parent, name] = split_parent(file.path);
                auto dir = dirs.find(parent);
                if (dir == dirs.end()) {
                    auto opened = root_.open_beneath(parent);
                    if (!opened) {
                        return keep_unit(entries, e, opened.error().describe());
                    }
                    dir = dirs.emplace(std::string(parent), std::move(*opened)).first;
                }
                struct stat seen {};
                if (std::string why = check(dir->second, name, file, seen); !why.empty()) {
                    return keep_unit(entries, e, file.path + " " + why);
                }
                // A process reading the file (a run loading its kernels, a
                // copy in progress, one in a container naming it by another
                // path) would be left with a file that vanished under it.
                if (const auto* user = in_use_.user_of(seen)) {
                    return keep_unit(entries, e,
                                     file.path + " is open in process " +
                                         std::to_string(user->pid) + " (" + user->command + ")");
                }
                files[e].push_back(
                    {&dir->second, std::string(name), file.path, FileIdentity::of(seen)});
            }
            // A Triton kernel's group file goes first: a process killed
            // between two unlinks leaves a dir Triton reads as a miss (no
            // group file), never a group naming a file that is gone.
            std::ranges::stable_partition(files[e], [](const Planned& planned) {
                return cachedir::is_triton_group_file_name(planned.name);
            });
        }
        // Each key dir's last write as it was before any of its files moved.
        for (const PruneEntry* entry : entries) {
            sweeper_.before_removing(*entry);
        }
        for (std::size_t e = 0; e < entries.size(); ++e) {
            for (const auto& planned : files[e]) {
                auto taken = trash_.take(*planned.dir, planned.name, planned.identity);
                if (taken && *taken == Trash::Taken::Taken) {
                    continue;
                }
                for (auto& error : trash_.put_back()) {
                    outcome_.errors.push_back(std::move(error));
                }
                if (!taken) {
                    outcome_.errors.push_back(taken.error());
                    return keep_unit(entries, e, planned.path + " could not be moved out");
                }
                return keep_unit(entries, e,
                                 planned.path + (*taken == Trash::Taken::Changed
                                                     ? " was written after the last check"
                                                     : " is gone"));
            }
        }
        std::vector<Error> errors;
        outcome_.files_deleted += trash_.empty(errors);
        for (std::size_t e = 0; e < entries.size(); ++e) {
            const bool whole = std::ranges::none_of(errors, [&](const Error& error) {
                return std::ranges::any_of(files[e], [&](const Planned& planned) {
                    return error.path == planned.dir->path() + "/" + planned.name;
                });
            });
            // An entry some of whose files could not go is reported as
            // partly deleted (its errors), never as deleted.
            if (whole) {
                outcome_.bytes_freed += entries[e]->size;
                ++outcome_.entries_deleted;
                remove_own_dir(*entries[e]);
            }
        }
        for (auto& error : errors) {
            outcome_.errors.push_back(std::move(error));
        }
    }

private:
    // Every entry of the unit stays: `entries[why_index]` for `why`, the
    // others with it.
    void keep_unit(std::span<const PruneEntry* const> entries, std::size_t why_index,
                   const std::string& why) {
        for (std::size_t e = 0; e < entries.size(); ++e) {
            outcome_.kept.push_back(entries[e]->path + ": " +
                                    (e == why_index ? why
                                                    : "stays with " + entries[why_index]->path +
                                                          " (one unit: " + why + ")"));
        }
    }

    // Why the file must stay; empty when it is still exactly as planned.
    // Empty when `name` is still the file planned (`seen` then holds its lstat).
    static std::string check(const DirHandle& dir, std::string_view name, const PruneFile& file,
                             struct stat& seen) {
        if (cachedir::is_temp_name(name)) {
            return "is being written";
        }
        auto info = dir.stat_entry(name);
        if (!info) {
            return info.error().kind == ErrorKind::NotFound ? "is gone" : info.error().message;
        }
        if (!S_ISREG(info->st_mode)) {
            return "is no longer a regular file";
        }
        if (static_cast<std::uint64_t>(info->st_size) != file.size ||
            mtime_ns_of(*info) != file.mtime_ns ||
            static_cast<std::uint64_t>(info->st_ino) != file.inode) {
            return "changed since the plan";
        }
        seen = *info;
        return {};
    }

    // A Triton kernel dir left empty goes too (rmdir refuses a dir with
    // anything new in it; Triton recreates its dirs before each write). FX
    // and AOT key dirs are the EmptyDirSweeper's: PyTorch mkdirs them and
    // then writes into them without a retry, so a young one stays.
    void remove_own_dir(const PruneEntry& entry) {
        std::string_view own_dir = entry.path;
        if (entry.kind != FileKind::Triton &&
            !cachedir::entry_dir_of(entry.kind, entry.path + "/x").empty()) {
            // An entry that is a dir of its own (an AOTInductor output dir, a
            // Halide or debug dir): its subdirs, deepest first, then itself.
            remove_dir_tree(entry);
            return;
        }
        if (entry.kind != FileKind::Triton) {
            // An autotune result or a launcher is alone in its Triton hash dir.
            own_dir = split_parent(entry.path).first;
            if (!cachedir::is_triton_hash_dir_name(split_parent(own_dir).second)) {
                return;
            }
        }
        auto [parent, name] = split_parent(own_dir);
        if (auto dir = root_.open_beneath(parent); dir) {
            (void)dir->remove_empty_dir(name);
        }
    }

    void remove_dir_tree(const PruneEntry& entry) {
        std::vector<std::string> dirs;
        for (const auto& file : entry.files) {
            for (auto dir = split_parent(file.path).first;
                 dir.size() > entry.path.size() && dir.starts_with(entry.path);
                 dir = split_parent(dir).first) {
                dirs.emplace_back(dir);
            }
        }
        dirs.push_back(entry.path);
        std::ranges::sort(dirs, [](const std::string& a, const std::string& b) {
            return std::pair(std::ranges::count(a, '/'), a) >
                   std::pair(std::ranges::count(b, '/'), b);
        });
        dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
        for (const auto& dir : dirs) {
            auto [parent, name] = split_parent(dir);
            if (auto handle = root_.open_beneath(parent); handle) {
                (void)handle->remove_empty_dir(name);
            }
        }
    }

    const DirHandle& root_;
    FilesInUse in_use_;
    Trash& trash_;
    PruneOutcome& outcome_;
    EmptyDirSweeper& sweeper_;
};

} // namespace

Result<PruneOutcome> run_prune(sql::Database& db, const PrunePlan& plan,
                               const IndexOptions& index_options) {
    const std::filesystem::path dir(plan.root);
    auto root = DirHandle::open_root(dir);
    if (!root) {
        return std::unexpected(root.error());
    }
    PruneOutcome outcome;
    // Whatever was written since the plan is known before anything goes.
    auto indexed = index_root(db, dir, plan.root, index_options);
    if (!indexed) {
        return std::unexpected(indexed.error());
    }
    if (indexed->cancelled) {
        outcome.cancelled = true; // nothing deleted
        return outcome;
    }
    auto graph = load_root_graph(db, plan.root);
    if (!graph) {
        return std::unexpected(graph.error());
    }
    KeepDecision decision(plan, *graph);
    decision.decide();
    for (const auto& [path, why] : decision.kept()) {
        outcome.kept.push_back(path + ": " + why);
    }
    // The doomed entries of each unit, which go whole or stay whole.
    std::vector<std::vector<const PruneEntry*>> doomed_units;
    std::size_t doomed = 0;
    for (const auto& unit : plan.units) {
        std::vector<const PruneEntry*> entries;
        for (const auto& entry : unit.entries) {
            if (decision.is_doomed(entry.path)) {
                entries.push_back(&entry);
            }
        }
        doomed += entries.size();
        if (!entries.empty()) {
            doomed_units.push_back(std::move(entries));
        }
    }
    Progress progress{.stage = ProgressStage::Deleting,
                      .unit = ProgressUnit::Entries,
                      .done = 0,
                      .total = doomed,
                      .bytes = 0,
                      .item = {}};
    outcome.cancelled = !report_progress(index_options.progress, progress);
    EmptyDirSweeper sweeper(*root, plan.now_ns - std::max(plan.keep_recent_ns, kKeyDirMinIdleNs));
    std::optional<Trash> trash;
    std::optional<Deleter> deleter;
    if (!doomed_units.empty()) {
        auto opened = Trash::open(*root);
        if (!opened) {
            return std::unexpected(opened.error()); // nothing deleted
        }
        trash.emplace(std::move(*opened));
        deleter.emplace(*root, plan.root, *trash, outcome, sweeper);
    }
    for (std::size_t u = 0; u < doomed_units.size() && !outcome.cancelled; ++u) {
        deleter->remove_unit(doomed_units[u]);
        progress.done += doomed_units[u].size();
        progress.bytes = outcome.bytes_freed;
        progress.item = doomed_units[u].back()->path;
        outcome.cancelled = !report_progress(index_options.progress, progress);
    }
    deleter.reset();
    trash.reset(); // its dir goes before the re-index
    outcome.cancelled = outcome.cancelled && progress.done < doomed;
    // Key dirs left empty go (a stopped prune sweeps too: what it deleted
    // went whole, and an idle empty dir is no one's).
    sweeper.sweep(outcome);
    // The catalog learns what went, whole even after a stop: the reports go
    // on, a stop is not heard.
    IndexOptions reindex = index_options;
    if (index_options.progress) {
        reindex.progress = [&index_options](const Progress& report) {
            index_options.progress(report);
            return true;
        };
    }
    if (auto again = index_root(db, dir, plan.root, reindex); !again) {
        return std::unexpected(again.error());
    }
    return outcome;
}

} // namespace cachelens::catalog
