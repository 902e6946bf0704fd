#pragma once

// PyTorch's Redis remote cache (formats.md §7) as data: which cache a Redis
// key belongs to, what its value holds, and the values PyTorch would write.
//
//   key    pt2:<cache id>::<key>:c1
//   value  JSON text: {"data": base64(pickle), "time_taken_ms": N} for FX
//          graphs and AOTAutograd entries, {"data": base64(pickle)} for
//          dynamo profiles, the best_config dict for autotune, and
//          {basename: best_config dict} for bundled autotune.
//
// Nothing here talks to a server (redis_client.h does); pulling writes
// through the bundle importer, so a pulled entry lands exactly where
// PyTorch writes a remote hit and passes the same safety checks.

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/error.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::remote {

enum class CacheKind { FxGraph, AotAutograd, Autotune, BundledAutotune, DynamoPgo, Unknown };

// "fx-graph", "aot", "autotune", "bundled-autotune", "pgo", "unknown": the
// names `--cache` takes and JSON prints.
std::string_view to_string(CacheKind kind);
std::optional<CacheKind> cache_kind_from_name(std::string_view name);

// The cache id PyTorch puts in the Redis key; empty for autotune, whose id
// is a sha256 of the torch build, the Triton backend and the configs.
std::string_view cache_id_of(CacheKind kind);

struct RemoteKey {
    std::string redis_key; // as stored
    CacheKind kind = CacheKind::Unknown;
    std::string cache_id;
    std::string key; // PyTorch's key inside that cache
};

// nullopt when `redis_key` is not "pt2:<id>::<key>:c1".
std::optional<RemoteKey> parse_redis_key(std::string_view redis_key);
std::string redis_key_for(std::string_view cache_id, std::string_view key);
// The SCAN pattern for one cache (all of PyTorch's caches when nullopt).
std::string scan_pattern(std::optional<CacheKind> kind);

// What one value holds.
struct RemoteValue {
    // The pickle bytes of an FX graph / AOT entry / dynamo profile; the JSON
    // text PyTorch writes locally for an autotune result.
    std::string payload;
    std::optional<std::int64_t> time_taken_ms;
    // Bundled autotune only: (kernel basename, best_config JSON as PyTorch
    // writes the local file).
    std::vector<std::pair<std::string, std::string>> best_configs;
};

// Errors say what is wrong: not JSON, no "data", not base64, ...
Result<RemoteValue> decode_value(CacheKind kind, std::string_view json_text);

// {"data": base64(payload), "time_taken_ms": N}, byte for byte as Python's
// json.dumps writes it (without time_taken_ms when nullopt).
std::string encode_value(std::string_view payload, std::optional<std::int64_t> time_taken_ms);

// The artifacts PyTorch writes to the local cache dir on a remote hit, as a
// bundle for bundle::plan_import: FX graph → "inductor", AOT → "aot_autograd",
// dynamo profile → "pgo", bundled autotune → one "autotune" per kernel, at
// "<basename[1:3]>/<basename>" as AutotuneCacheBundler does. A plain
// autotune value has no local file PyTorch would write (its key is a hash
// of the file name): it is skipped with a note.
struct PulledValue {
    RemoteKey key;
    std::string value; // the JSON text as stored
};
struct PullArtifacts {
    bundle::MegaBundle bundle;
    std::vector<std::string> notes;      // values with nothing to pull, and why
    std::vector<std::string> unreadable; // "<redis key>: <why>" for values that do not decode
};
PullArtifacts artifacts_to_pull(const std::vector<PulledValue>& values);

} // namespace cachelens::remote
