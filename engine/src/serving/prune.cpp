#include <cachelens/core/format.h>
#include <cachelens/serving/prune.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

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
        // One rename takes the whole dir out of the tree; removing it follows.
        const fs::path trash = tree.root / (".cachelens-prune-" + std::to_string(::getpid()) + "-" +
                                            path.filename().string());
        std::error_code error;
        fs::rename(path, trash, error);
        if (error) {
            outcome.errors.push_back(
                {ErrorKind::Io, "cannot move it out: " + error.message(), path.string()});
            continue;
        }
        fs::remove_all(trash, error);
        if (error) {
            outcome.errors.push_back({ErrorKind::Io,
                                      "moved out of the tree but not removed: " + error.message(),
                                      trash.string()});
        }
        outcome.deleted.push_back(dir.path);
        outcome.bytes_freed += dir.bytes;
    }
    return outcome;
}

} // namespace cachelens::serving
