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
#include <string>
#include <vector>

namespace cachelens::remote {

// <catalog's dir>/remote/<host>-<port>-db<db>
std::filesystem::path mirror_dir_for(const std::filesystem::path& catalog_path,
                                     const RedisEndpoint& endpoint);

struct MirrorReport {
    std::filesystem::path dir;
    std::size_t pulled = 0;         // written now
    std::size_t unchanged = 0;      // already mirrored
    std::size_t removed = 0;        // gone from the server
    std::vector<std::string> notes; // unreadable and refused values, skipped caches
};

// `progress` as pull_remote's.
Result<MirrorReport> mirror_remote(RedisClient& client, const std::filesystem::path& dir,
                                   const ProgressFn& progress = {});

} // namespace cachelens::remote
