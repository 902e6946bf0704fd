#include <cachelens/remote/mirror.h>
#include <cachelens/remote/remote_ops.h>

#include <set>
#include <system_error>

namespace cachelens::remote {

namespace fs = std::filesystem;

fs::path mirror_dir_for(const fs::path& catalog_path, const RedisEndpoint& endpoint) {
    std::string name =
        endpoint.host + "-" + std::to_string(endpoint.port) + "-db" + std::to_string(endpoint.db);
    for (char& c : name) {
        if (c == '/' || c == ':' || c == '[' || c == ']') {
            c = '_';
        }
    }
    return catalog_path.parent_path() / "remote" / name;
}

Result<MirrorReport> mirror_remote(RedisClient& client, const fs::path& dir,
                                   const ProgressFn& progress) {
    auto pulled = pull_remote(client, dir,
                              {.keys = {}, .dry_run = false, .rules = {}, .progress = progress});
    if (!pulled) {
        return std::unexpected(pulled.error());
    }
    // After the pull, which a cancel stops before it writes: an empty server
    // still makes a root, one with nothing in it.
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
        return fail(ErrorKind::Io, "cannot create the mirror dir: " + error.message(),
                    dir.string());
    }
    MirrorReport report;
    report.dir = dir;
    report.notes = std::move(pulled->problems);
    report.notes.insert(report.notes.end(), pulled->notes.begin(), pulled->notes.end());
    std::set<std::string> kept;
    for (const auto& artifact : pulled->plan.artifacts) {
        switch (artifact.action) {
        case bundle::ImportAction::Written:
            ++report.pulled;
            break;
        case bundle::ImportAction::AlreadyPresent:
            ++report.unchanged;
            break;
        default:
            for (const auto& problem : artifact.check.problems) {
                report.notes.push_back(artifact.key + ": refused: " + problem);
            }
            for (const auto& note : artifact.notes) {
                report.notes.push_back(artifact.key + ": " + note);
            }
        }
        if (!artifact.check.destination.empty()) {
            kept.insert(artifact.check.destination);
        }
    }
    // What the server no longer holds leaves the mirror; the dir is ours, so
    // anything else in it is stale too.
    std::vector<fs::path> stale;
    for (auto it = fs::recursive_directory_iterator(dir, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_regular_file(error) && !it->is_symlink(error) &&
            !kept.contains(fs::relative(it->path(), dir).generic_string())) {
            stale.push_back(it->path());
        }
    }
    for (const auto& file : stale) {
        if (fs::remove(file, error)) {
            ++report.removed;
            // Empty key dirs go too, as PyTorch never leaves them.
            for (auto parent = file.parent_path(); parent != dir && fs::is_empty(parent, error);
                 parent = parent.parent_path()) {
                fs::remove(parent, error);
            }
        }
    }
    return report;
}

} // namespace cachelens::remote
