#include <cachelens/catalog/catalog.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/remote/mirror.h>
#include <cachelens/remote/remote_ops.h>

#include <algorithm>
#include <set>
#include <system_error>

namespace cachelens::remote {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOriginSuffix = ".origin";
// A URL is short; more than this is not an origin file mirror_server wrote.
constexpr std::size_t kMaxOriginBytes = 4096;

bool all_digits(std::string_view text) {
    return !text.empty() && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; });
}

struct MirrorName {
    std::string_view host;
    std::string_view port;
    std::string_view db;
};

// "<host>-<port>-db<N>" as mirror_dir_for names a server's dir.
std::optional<MirrorName> parse_mirror_name(std::string_view name) {
    const auto db_mark = name.rfind("-db");
    if (db_mark == std::string_view::npos || db_mark == 0) {
        return std::nullopt;
    }
    const std::string_view db = name.substr(db_mark + 3);
    const auto port_mark = name.rfind('-', db_mark - 1);
    if (port_mark == std::string_view::npos || port_mark == 0) {
        return std::nullopt;
    }
    const std::string_view port = name.substr(port_mark + 1, db_mark - port_mark - 1);
    if (!all_digits(db) || !all_digits(port) || port.size() > 5) {
        return std::nullopt;
    }
    return MirrorName{name.substr(0, port_mark), port, db};
}

} // namespace

fs::path mirror_base(const fs::path& catalog_path) {
    std::error_code error;
    return fs::absolute(catalog_path, error).parent_path() / "remote";
}

fs::path mirror_dir_for(const fs::path& catalog_path, const RedisEndpoint& endpoint) {
    std::string name =
        endpoint.host + "-" + std::to_string(endpoint.port) + "-db" + std::to_string(endpoint.db);
    for (char& c : name) {
        if (c == '/' || c == ':' || c == '[' || c == ']') {
            c = '_';
        }
    }
    return mirror_base(catalog_path) / name;
}

bool is_mirror_root(const fs::path& root, const fs::path& base) {
    const fs::path location = catalog::root_location(root);
    return location.parent_path() == fs::path(catalog::root_location(base)) &&
           parse_mirror_name(location.filename().string()).has_value();
}

fs::path mirror_origin_file(const fs::path& mirror_dir) {
    const fs::path location = catalog::root_location(mirror_dir);
    return location.parent_path() / (location.filename().string() + std::string(kOriginSuffix));
}

Result<void> write_mirror_origin(const fs::path& mirror_dir, const RedisEndpoint& endpoint) {
    return replace_file_atomically(mirror_origin_file(mirror_dir), endpoint.display());
}

std::optional<std::string> mirror_origin(const fs::path& mirror_dir) {
    if (auto text = read_text_file(mirror_origin_file(mirror_dir), kMaxOriginBytes)) {
        std::string url = std::move(*text);
        const auto not_space = [](char c) {
            return c != ' ' && c != '\n' && c != '\r' && c != '\t';
        };
        url.erase(url.begin(), std::ranges::find_if(url, not_space));
        url.erase(std::ranges::find_if(url.rbegin(), url.rend(), not_space).base(), url.end());
        // display() always writes the scheme; a bare word would parse as a host.
        const bool url_like = url.starts_with("redis://") || url.starts_with("rediss://");
        if (url_like && parse_redis_endpoint(url)) {
            return url;
        }
    }
    const std::string name = fs::path(catalog::root_location(mirror_dir)).filename().string();
    const auto parsed = parse_mirror_name(name);
    if (!parsed) {
        return std::nullopt;
    }
    return "redis://" + std::string(parsed->host) + ":" + std::string(parsed->port) + "/" +
           std::string(parsed->db);
}

Result<MirrorReport> mirror_remote(RedisClient& client, const fs::path& dir,
                                   const ProgressFn& progress) {
    auto pulled =
        pull_remote(client, dir, {.keys = {}, .dry_run = false, .rules = {}, .progress = progress});
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

Result<MirrorReport> mirror_server(RedisClient& client, const RedisEndpoint& endpoint,
                                   const fs::path& catalog_path, const ProgressFn& progress) {
    auto mirrored = mirror_remote(client, mirror_dir_for(catalog_path, endpoint), progress);
    if (!mirrored) {
        return mirrored;
    }
    // Without it the server is still named, from the dir's name: a note, not a failure.
    if (auto recorded = write_mirror_origin(mirrored->dir, endpoint); !recorded) {
        mirrored->notes.push_back("cannot record the server's URL: " + recorded.error().describe());
    }
    return mirrored;
}

} // namespace cachelens::remote
