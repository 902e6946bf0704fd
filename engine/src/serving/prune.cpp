#include <cachelens/core/dir_handle.h>
#include <cachelens/core/format.h>
#include <cachelens/core/trash.h>
#include <cachelens/serving/prune.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <limits>

namespace cachelens::serving {

namespace fs = std::filesystem;

namespace {

std::int64_t clock_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string in_use_text(const std::vector<ProcessUse>& uses) {
    const auto& use = uses.front();
    std::string text =
        "in use by pid " + std::to_string(use.pid) + " (" + use.command + "): " + use.path;
    if (uses.size() > 1) {
        text += ", and " + std::to_string(uses.size() - 1) + " more process" +
                (uses.size() == 2 ? "" : "es");
    }
    return text;
}

// The newest mtime under a dir, symlinks not followed.
std::int64_t newest_write(const fs::path& dir) {
    std::int64_t newest = 0;
    std::error_code error;
    for (fs::recursive_directory_iterator it(dir, error), end; !error && it != end;
         it.increment(error)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) == 0) {
            newest = std::max(newest, static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                                          st.st_mtim.tv_nsec);
        }
    }
    return newest;
}

// The newest mtime of what is inside the dir open as `dir` (its own mtime
// left out: moving it changes that), symlinks not followed.
std::int64_t newest_write_inside(const DirHandle& dir, int depth = 0) {
    std::int64_t newest = 0;
    auto names = dir.entry_names();
    if (!names) {
        return std::numeric_limits<std::int64_t>::max(); // unreadable: never "unchanged"
    }
    for (const auto& name : *names) {
        auto info = dir.stat_entry(name);
        if (!info) {
            continue;
        }
        newest = std::max(newest, static_cast<std::int64_t>(info->st_mtim.tv_sec) * 1'000'000'000 +
                                      info->st_mtim.tv_nsec);
        if (S_ISDIR(info->st_mode) && depth < 64) {
            if (auto sub = dir.open_beneath(name)) {
                newest = std::max(newest, newest_write_inside(*sub, depth + 1));
            }
        }
    }
    return newest;
}

std::pair<std::string, std::string> split_parent(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) {
        return {std::string(), path};
    }
    return {path.substr(0, slash), path.substr(slash + 1)};
}

} // namespace

ServingPrunePlan plan_serving_prune(const ServingTree& tree, const ServingPruneOptions& options) {
    ServingPrunePlan plan;
    plan.root = tree.root.string();
    plan.max_size = options.max_size;
    plan.keep_recent_ns = options.keep_recent_ns;
    const std::int64_t now = options.now_ns.value_or(clock_now_ns());
    std::vector<const HashDir*> order;
    for (const auto& dir : tree.hash_dirs) {
        plan.bytes_before += dir.bytes;
        if (!dir.path.empty()) {
            order.push_back(&dir); // SGLang's unhashed rank dirs are no unit to prune
        }
    }
    std::ranges::sort(order, {}, &HashDir::newest_mtime_ns);
    plan.bytes_after = plan.bytes_before;
    for (const HashDir* dir : order) {
        const bool old =
            options.older_than_ns && now - dir->newest_mtime_ns > *options.older_than_ns;
        const bool over = options.max_size && plan.bytes_after > *options.max_size;
        if (!old && !over) {
            continue;
        }
        if (now - dir->newest_mtime_ns < options.keep_recent_ns) {
            plan.kept.push_back(
                {dir->path, dir->bytes, "written " + format_age(dir->newest_mtime_ns, now)});
            continue;
        }
        if (const auto uses = processes_using(fs::weakly_canonical(tree.root / dir->path));
            !uses.empty()) {
            plan.kept.push_back({dir->path, dir->bytes, in_use_text(uses)});
            continue;
        }
        plan.dirs.push_back({dir->path, dir->bytes, dir->files, dir->newest_mtime_ns,
                             old ? "older_than" : "max_size"});
        plan.bytes_after -= dir->bytes;
    }
    plan.size_reached = !options.max_size || plan.bytes_after <= *options.max_size;
    return plan;
}

ServingPruneOutcome run_serving_prune(const ServingTree& tree, const ServingPrunePlan& plan,
                                      const ProgressFn& progress) {
    ServingPruneOutcome outcome;
    if (plan.dirs.empty()) {
        return outcome;
    }
    auto root = DirHandle::open_root(tree.root);
    if (root) {
        WorkDir::reap(*root, "prune"); // an older cachelens's, killed mid-removal
    }
    auto trash = root ? Trash::open(*root) : std::unexpected(root.error());
    if (!trash) {
        outcome.errors.push_back(trash.error()); // nothing deleted
        return outcome;
    }
    std::size_t done = 0;
    for (const auto& dir : plan.dirs) {
        if (!report_progress(progress, {.stage = ProgressStage::Deleting,
                                        .unit = ProgressUnit::Files,
                                        .done = done++,
                                        .total = plan.dirs.size(),
                                        .bytes = outcome.bytes_freed,
                                        .item = dir.path})) {
            outcome.cancelled = true;
            break;
        }
        const fs::path path = tree.root / dir.path;
        // Checked again: a server may have started, or written, since the plan.
        if (const std::int64_t newest = newest_write(path); newest != dir.newest_mtime_ns) {
            outcome.kept.push_back({dir.path, dir.bytes, "written since the plan"});
            continue;
        }
        if (const auto uses = processes_using(fs::weakly_canonical(path)); !uses.empty()) {
            outcome.kept.push_back({dir.path, dir.bytes, in_use_text(uses)});
            continue;
        }
        // One rename takes the whole dir out of the tree, through handles
        // that follow no symlink; once out, where no compile writes, it is
        // checked again, and put back if anything in it is newer than the
        // plan. Only then is it removed.
        const auto [parent_path, name] = split_parent(dir.path);
        auto parent = root->open_beneath(parent_path);
        if (!parent) {
            outcome.errors.push_back(parent.error());
            continue;
        }
        auto taken = trash->take_dir(*parent, name, [&](const DirHandle& moved) {
            return newest_write_inside(moved) <= dir.newest_mtime_ns;
        });
        if (!taken) {
            outcome.errors.push_back(taken.error());
            continue;
        }
        if (*taken != Trash::Taken::Taken) {
            outcome.kept.push_back({dir.path, dir.bytes,
                                    *taken == Trash::Taken::Changed ? "written since the plan"
                                                                    : "gone since the plan"});
            continue;
        }
        std::vector<Error> errors;
        (void)trash->empty(errors);
        if (!errors.empty()) {
            for (auto& error : errors) {
                outcome.errors.push_back(std::move(error));
            }
            continue;
        }
        outcome.deleted.push_back(dir.path);
        outcome.bytes_freed += dir.bytes;
    }
    return outcome;
}

} // namespace cachelens::serving
