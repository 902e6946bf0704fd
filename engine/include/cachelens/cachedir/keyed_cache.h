#pragma once

// The key-value caches of torch/_inductor/cache.py (docs/FORMATS.md, "Keyed
// caches") and the on-disk store of Inductor's caching module
// (torch/_inductor/runtime/caching), which writes its values the same way:
//
// - OnDiskCache(name): one file per key, <base>/cache/<name>/<file>, the file
//   named sha256(pickle.dumps(key)).hexdigest()[:32] and holding a 4-byte
//   version prefix, sha256(str(OnDiskCache.version))[:4], then
//   pickle.dump(value). Its lock is <dir>/locks/<name[:4]>.lock.
//   InductorOnDiskCache's base is default_cache_dir(), the temp dir's
//   torchinductor_<user> whatever TORCHINDUCTOR_CACHE_DIR says.
// - InMemoryCache's two stand-alone forms: a file holding a pickled dict
//   (from_file_path) and an environment variable of ';'-separated
//   `b'<pickled key>',b'<pickled value>'` pairs (from_env_var).
//
// The key of an on-disk value is not stored: only the hash of its pickle
// names the file. Values are decoded by the safe unpickler, never loaded.

#include <cachelens/core/error.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/pickle/value.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

// OnDiskCache.version in every PyTorch that versions its values (2.10, 2.11,
// main as read): what a reader of today accepts.
inline constexpr int kOnDiskCacheVersion = 0;

// The 4 bytes OnDiskCache writes before a value of `version`.
std::string on_disk_cache_prefix(int version);

// What the first bytes of a value say about who wrote it.
enum class ValueVersion : std::uint8_t {
    Current, // the prefix of kOnDiskCacheVersion: PyTorch reads it
    Stale,   // the prefix of another version: PyTorch deletes it on its next read
    Bare,    // no prefix, a pickle from the start: written before values were
             // versioned (PyTorch main, September 2025); PyTorch 2.11 takes its
             // first 4 bytes for a stale prefix and deletes it
    Unknown, // no prefix of a version 0-999 and no pickle either
};

std::string_view to_string(ValueVersion version);

// What the caching module stores (torch/_inductor/runtime/caching/interfaces.py
// CacheEntry): the memoized call's encoded parameters and result.
struct MemoizedCall {
    const pickle::Value* params = nullptr;
    const pickle::Value* result = nullptr;
};

struct KeyedCacheValue {
    std::string cache_name; // the dir under cache/: inductor_on_disk_cache, should_pad, ...
    ValueVersion version = ValueVersion::Unknown;
    std::optional<int> prefix_version; // the version whose prefix it carries (Current, Stale)
    std::string prefix_hex;            // its first 4 bytes, in hex
    std::shared_ptr<const pickle::Document> document; // the value, decoded
    std::optional<MemoizedCall> memoized;             // set when the value is a CacheEntry
    const pickle::Value& value() const { return document->root(); }
};

// The 32 lowercase hex digits OnDiskCache names a value file with.
bool is_keyed_cache_value_name(std::string_view file_name);

// Who writes the values of cache/<name>/, as a reader should hear it.
std::string keyed_cache_owner(std::string_view cache_name);

// Reads one value file of cache/<cache_name>/: a stale or unversioned value
// too (verify reports those). Fails, saying what PyTorch would do with it,
// when no pickle follows a version prefix or the pickle does not decode.
Result<KeyedCacheValue> read_keyed_cache_value(std::shared_ptr<const MappedFile> file,
                                               std::string cache_name);

// The bytes of the pickle in a value file: after the version prefix, or the
// whole file for a Bare one. Empty for Unknown.
std::string_view keyed_cache_pickle(std::string_view file_bytes);

// One pair of an InMemoryCache.
struct InMemoryPair {
    const pickle::Value* key = nullptr;
    const pickle::Value* value = nullptr;
};

// An InMemoryCache as from_file_path or from_env_var would build it.
struct InMemoryCacheContents {
    std::string source;    // the file, or "$VAR"
    bool from_env = false; // from_env_var's form, not from_file_path's
    std::vector<InMemoryPair> pairs;
    // The decoded pickles the pairs point into.
    std::vector<std::shared_ptr<const pickle::Document>> documents;
};

// A file as InMemoryCache.from_file_path reads it: a pickled dict. Errors are
// PyTorch's CacheError messages, the file named.
Result<InMemoryCacheContents> read_in_memory_cache_file(const std::filesystem::path& path);

// True when the bytes are a pickle whose top object is a dict: what
// `cachelens show FILE` takes for an InMemoryCache file.
bool looks_like_pickled_dict(std::string_view bytes);

// A variable's value as InMemoryCache.from_env_var reads it. Every pair is
// checked; the first of PyTorch's CacheError conditions it meets (a missing
// comma, a literal that is not bytes, bytes that do not unpickle, one key with
// two values) is the error, in PyTorch's words, naming `var`.
Result<InMemoryCacheContents> read_in_memory_cache_env(std::string_view value,
                                                       std::string_view var);

} // namespace cachelens::cachedir
