#pragma once

// Browsing, pulling and pushing PyTorch's Redis remote cache.
//
// Pull writes what PyTorch writes on a remote hit, through the bundle
// importer: the same paths, atomic writes, and the same safety checks (a
// value is as untrusted as a bundle). Push writes exactly the values
// PyTorch writes ({"data": base64(pickle), "time_taken_ms": N}) and never
// replaces a different value under an existing key unless forced.

#include <cachelens/bundle/import.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>
#include <cachelens/remote/redis_client.h>
#include <cachelens/remote/remote_cache.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::remote {

struct RemoteEntry {
    RemoteKey key;
    std::int64_t size = 0; // bytes of the stored value
    std::int64_t ttl = -1; // seconds left; -1 never expires
};

// Every entry of PyTorch's caches on the server (or of one cache), by SCAN,
// sorted by Redis key. `progress` hears the Scanning stage (keys found).
Result<std::vector<RemoteEntry>> list_remote(RedisClient& client, std::optional<CacheKind> kind,
                                             const ProgressFn& progress = {});

// A key as users type it: a Redis key ("pt2:..."), an FX graph key ("f…")
// or an AOTAutograd key ("a…"). nullopt for anything else.
std::optional<RemoteKey> remote_key_from_argument(std::string_view argument);

struct PullOptions {
    std::vector<std::string> keys; // as remote_key_from_argument; empty: everything pullable
    bool dry_run = false;
    bundle::ImportRules rules; // sizes, and the code with findings allowed in
    // Scanning (keys found; a pull of everything), Reading (values read),
    // Writing (files written; never in a dry run). A stop is a Cancelled
    // error: nothing is written when it comes before the Writing stage's
    // first file; after, the files written are whole.
    ProgressFn progress;
};

struct PullResult {
    bundle::ImportPlan plan; // each pulled artifact, as an import plan (run unless dry_run)
    std::vector<std::string> problems; // "<redis key>: <why>": values that do not decode, named
                                       // keys not on the server
    std::vector<std::string> notes;    // values with nothing to pull, and why
    // The values read, as a bundle of artifacts (only in a dry run): what
    // preflight checks before anything is written.
    bundle::MegaBundle values;
    // Every value pulled (or would be) or already present: no problem, no
    // refusal, no conflict.
    bool clean() const { return problems.empty() && plan.clean(); }
};

Result<PullResult> pull_remote(RedisClient& client, const std::filesystem::path& cache_dir,
                               const PullOptions& options);

enum class PushAction {
    Set,          // planned (dry run) or written
    AlreadyThere, // the server holds the same data
    Conflict,     // the server holds other data: left alone
    Replaced,     // other data was there and --force replaced it
};
std::string_view to_string(PushAction action);

struct PushItem {
    RemoteKey key;
    std::string source; // the local file, relative to the cache dir
    std::uint64_t size = 0;
    std::string value; // what is (or would be) stored
    PushAction action = PushAction::Set;
};

struct PushOptions {
    std::vector<std::string> keys; // FX graph and AOT keys; empty: the whole dir
    bool dry_run = false;
    bool force = false;
    // Reading (local files, as export_bundle), Checking (keys compared with
    // the server), Writing (values stored; never in a dry run, nor when
    // nothing is to be stored). A stop is a Cancelled error: nothing is
    // stored when it comes before the Writing stage's first value.
    ProgressFn progress;
};

struct PushResult {
    std::vector<PushItem> items;
    std::vector<std::string> notes; // what was not pushed and why
    std::size_t count(PushAction action) const;
};

// FX graph entries, AOTAutograd entries (with what they link to, as export
// gathers them) and dynamo profiles; best_configs are not pushed: PyTorch's
// remote autotune key hashes the torch build, which a cache dir does not hold.
Result<PushResult> push_local(RedisClient& client, const std::filesystem::path& cache_dir,
                              const PushOptions& options);

} // namespace cachelens::remote
