#pragma once

// A Redis server as one more root of the catalog: its pullable entries are
// mirrored into a cache dir that belongs to cachelens (beside the catalog),
// laid out as PyTorch would lay them out locally, and that dir is indexed
// like any other. Search, diff and why then work across local and remote
// entries. Mirroring again brings the dir to the server's state: new
// entries pulled, entries gone from the server removed.

#include <cachelens/core/error.h>
#include <cachelens/remote/redis_client.h>
#include <cachelens/remote/remote_ops.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::remote {

// The layout, shared by `cachelens index redis://...` and the GUI:
//
//   <catalog's dir>/remote/                          mirror_base()
//   <catalog's dir>/remote/<host>-<port>-db<N>        a server's mirror, a root
//   <catalog's dir>/remote/<host>-<port>-db<N>.origin its server, as display() writes it
//
// The origin file holds the URL without a password, so the server can be
// named and mirrored again after a restart (a host with '/', ':', '[' or ']'
// cannot be read back from the dir's name). It sits beside the dir, not in
// it: mirroring removes whatever the server does not hold, and the catalog
// would list it as an entry.

// <catalog's dir>/remote, absolute.
std::filesystem::path mirror_base(const std::filesystem::path& catalog_path);

// mirror_base(catalog_path)/<host>-<port>-db<db>
std::filesystem::path mirror_dir_for(const std::filesystem::path& catalog_path,
                                     const RedisEndpoint& endpoint);

// Whether `root` is a server's mirror dir directly under `base`: named as
// mirror_dir_for names one. Paths are compared as the catalog records them.
bool is_mirror_root(const std::filesystem::path& root, const std::filesystem::path& base);

// <mirror dir>.origin
std::filesystem::path mirror_origin_file(const std::filesystem::path& mirror_dir);

// Records which server `mirror_dir` mirrors (its display(), never a password).
Result<void> write_mirror_origin(const std::filesystem::path& mirror_dir,
                                 const RedisEndpoint& endpoint);

// The server `mirror_dir` mirrors, as a URL display() wrote: its origin file
// when that holds one, else read back from the dir's name
// ("127.0.0.1-6379-db0" -> "redis://127.0.0.1:6379/0"); nullopt when neither
// names a server.
std::optional<std::string> mirror_origin(const std::filesystem::path& mirror_dir);

struct MirrorReport {
    std::filesystem::path dir;
    std::size_t pulled = 0;         // written now
    std::size_t unchanged = 0;      // already mirrored
    std::size_t removed = 0;        // gone from the server
    std::vector<std::string> notes; // unreadable and refused values, skipped caches
};

// `progress` as pull_remote's. Writes no origin: mirror_server() does.
Result<MirrorReport> mirror_remote(RedisClient& client, const std::filesystem::path& dir,
                                   const ProgressFn& progress = {});

// Mirrors `endpoint`'s server (connected as `client`) into
// mirror_dir_for(catalog_path, endpoint) and records its origin there: what
// every front end that mirrors a server calls.
Result<MirrorReport> mirror_server(RedisClient& client, const RedisEndpoint& endpoint,
                                   const std::filesystem::path& catalog_path,
                                   const ProgressFn& progress = {});

} // namespace cachelens::remote
