#include <cachelens/cachedir/keyed_cache.h>
#include <cachelens/cachedir/python_literal.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/repr.h>
#include <cachelens/pickle/unpickler.h>

#include <algorithm>
#include <array>
#include <map>

namespace cachelens::cachedir {

namespace {

constexpr std::size_t kPrefixBytes = 4;
// Versions whose prefix is recognised: OnDiskCache.version is a small int.
constexpr int kVersionsKnown = 1000;

std::string hex_of(std::string_view bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (const char c : bytes) {
        const auto byte = static_cast<unsigned char>(c);
        out += digits[byte >> 4];
        out += digits[byte & 0xf];
    }
    return out;
}

// Prefix bytes -> version, for the versions a reader may meet.
const std::map<std::string, int, std::less<>>& versions_by_prefix() {
    static const auto table = [] {
        std::map<std::string, int, std::less<>> out;
        for (int version = 0; version < kVersionsKnown; ++version) {
            out.emplace(on_disk_cache_prefix(version), version);
        }
        return out;
    }();
    return table;
}

// A pickle of protocol 2 or later starts with PROTO; older ones with an opcode
// that pushes or marks. Enough to tell a bare pickle from a prefix.
bool starts_like_pickle(std::string_view bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x80 &&
           static_cast<unsigned char>(bytes[1]) >= 2 && static_cast<unsigned char>(bytes[1]) <= 5;
}

bool is_cache_entry(const pickle::Value& value) {
    return value.is(pickle::Kind::Object) &&
           value.class_name() == "torch._inductor.runtime.caching.interfaces.CacheEntry";
}

std::optional<MemoizedCall> memoized_call(const pickle::Value& value) {
    if (!is_cache_entry(value)) {
        return std::nullopt;
    }
    MemoizedCall call{value.attribute("encoded_params"), value.attribute("encoded_result")};
    // A dataclass may also pickle as CacheEntry(params, result).
    if (call.params == nullptr && value.args() != nullptr) {
        const auto args = value.args()->items();
        if (args.size() == 2) {
            call = {args[0], args[1]};
        }
    }
    return call;
}

std::string py_repr(const pickle::Value& value) {
    pickle::ReprOptions options;
    options.max_string = 400;
    return pickle::repr(value, options);
}

// The whole value, for comparing two decoded values as Python's == would
// (close enough for the data these caches hold).
std::string full_repr(const pickle::Value& value) {
    pickle::ReprOptions options;
    options.max_depth = 64;
    options.max_items = SIZE_MAX;
    options.max_string = SIZE_MAX;
    options.max_length = SIZE_MAX;
    options.qualified_names = true;
    return pickle::repr(value, options);
}

bool has_code_names(const pickle::Value& value) {
    if (value.is(pickle::Kind::Global) || value.is(pickle::Kind::Object) ||
        value.is(pickle::Kind::Extension) || value.is(pickle::Kind::PersistentId)) {
        return true;
    }
    if (value.is(pickle::Kind::Dict)) {
        return std::ranges::any_of(value.dict_items(), [](const pickle::DictItem& item) {
            return has_code_names(*item.key) || has_code_names(*item.value);
        });
    }
    if (value.is_sequence() || value.is(pickle::Kind::Set) || value.is(pickle::Kind::FrozenSet)) {
        return std::ranges::any_of(value.items(),
                                   [](const pickle::Value* item) { return has_code_names(*item); });
    }
    return false;
}

// One side of an env-var pair: `b'...'` read as ast.literal_eval would, then
// unpickled. `side` is "key" or "value" for the messages.
Result<std::shared_ptr<const pickle::Document>>
read_pair_side(std::string_view repr, std::string_view kv_pair, std::string_view side) {
    const std::string where = "Malformed " + std::string(side) + "_bytes_repr " +
                              pickle::str_repr(repr) + " in kv_pair " + pickle::str_repr(kv_pair);
    auto literal = parse_python_literal(repr);
    if (!literal || has_code_names((*literal)->root())) {
        return fail(ErrorKind::Corrupt, where + ", encoding is invalid.");
    }
    const pickle::Value& root = (*literal)->root();
    if (!root.is(pickle::Kind::Bytes)) {
        return fail(ErrorKind::Corrupt,
                    where + ": a " + pickle::type_name(root) +
                        " literal, not bytes (PyTorch's pickle.loads raises TypeError on it).");
    }
    // The document owns the bytes the literal decoded to; the pickle views them.
    auto document = pickle::unpickle(root.text(), *literal);
    if (!document) {
        return fail(ErrorKind::Corrupt, where + ", not un-pickle-able.");
    }
    return *document;
}

std::string trimmed(std::string_view text) {
    constexpr std::string_view blanks = " \t\n\r\f\v";
    const auto first = text.find_first_not_of(blanks);
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(blanks);
    return std::string(text.substr(first, last - first + 1));
}

} // namespace

std::string on_disk_cache_prefix(int version) {
    const hash::Digest digest = hash::sha256(std::to_string(version));
    return std::string(reinterpret_cast<const char*>(digest.data()), kPrefixBytes);
}

std::string_view to_string(ValueVersion version) {
    switch (version) {
    case ValueVersion::Current:
        return "current";
    case ValueVersion::Stale:
        return "stale";
    case ValueVersion::Bare:
        return "unversioned";
    case ValueVersion::Unknown:
        return "unknown";
    }
    return "unknown";
}

bool is_keyed_cache_value_name(std::string_view file_name) {
    return file_name.size() == 32 && std::ranges::all_of(file_name, [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

std::string keyed_cache_owner(std::string_view cache_name) {
    if (cache_name == "inductor_on_disk_cache") {
        return "InductorOnDiskCache (torch/_inductor/cache.py; no PyTorch 2.10-2.11 code writes "
               "it: its values come from user code or tests)";
    }
    if (cache_name == "on_disk_cache") {
        return "OnDiskCache() under its default name (torch/_inductor/cache.py)";
    }
    if (cache_name == "should_pad") {
        return "Inductor's caching module, memoizing pad_mm's _should_pad "
               "(TORCHINDUCTOR_ENABLE_CACHING_MODULE=1)";
    }
    if (cache_name.starts_with("tuned_")) {
        return "Inductor's caching module, memoizing " + std::string(cache_name) +
               "'s kernel choice (TORCHINDUCTOR_ENABLE_CACHING_MODULE=1)";
    }
    return "OnDiskCache('" + std::string(cache_name) +
           "') (torch/_inductor/cache.py) or the caching module's store for " +
           std::string(cache_name);
}

std::string_view keyed_cache_pickle(std::string_view file_bytes) {
    if (file_bytes.size() >= kPrefixBytes &&
        versions_by_prefix().contains(file_bytes.substr(0, kPrefixBytes))) {
        return file_bytes.substr(kPrefixBytes);
    }
    if (starts_like_pickle(file_bytes)) {
        return file_bytes;
    }
    return {};
}

Result<KeyedCacheValue> read_keyed_cache_value(std::shared_ptr<const MappedFile> file,
                                               std::string cache_name) {
    KeyedCacheValue out;
    out.cache_name = std::move(cache_name);
    const std::string_view bytes = file->bytes();
    out.prefix_hex = hex_of(bytes.substr(0, kPrefixBytes));
    std::string_view pickled;
    if (bytes.size() >= kPrefixBytes) {
        const auto& table = versions_by_prefix();
        if (const auto found = table.find(bytes.substr(0, kPrefixBytes)); found != table.end()) {
            out.prefix_version = found->second;
            out.version =
                found->second == kOnDiskCacheVersion ? ValueVersion::Current : ValueVersion::Stale;
            pickled = bytes.substr(kPrefixBytes);
        }
    }
    if (!out.prefix_version) {
        if (!starts_like_pickle(bytes)) {
            return fail(ErrorKind::Corrupt,
                        std::string("not an OnDiskCache value: ") +
                            (bytes.size() < kPrefixBytes
                                 ? "shorter than the 4-byte version prefix OnDiskCache writes"
                                 : "it starts with " + out.prefix_hex +
                                       ", the version prefix of no OnDiskCache version 0-999, "
                                       "and is no pickle") +
                            "; PyTorch deletes it the next time it reads this key",
                        file->path().string());
        }
        out.version = ValueVersion::Bare;
        pickled = bytes;
    }
    auto document = pickle::unpickle(pickled, file);
    if (!document) {
        // PyTorch's own words when get() meets it.
        return fail(ErrorKind::Corrupt,
                    "PyTorch raises CacheError on reading it (value is potentially corrupted "
                    "(value is not un-pickle-able)): " +
                        document.error().message,
                    file->path().string());
    }
    out.document = std::move(*document);
    out.memoized = memoized_call(out.document->root());
    return out;
}

bool looks_like_pickled_dict(std::string_view bytes) {
    if (!starts_like_pickle(bytes) &&
        !(bytes.size() >= 1 && (bytes[0] == '}' || bytes[0] == '('))) {
        return false;
    }
    auto document = pickle::unpickle(bytes);
    return document && (*document)->root().is(pickle::Kind::Dict);
}

Result<InMemoryCacheContents> read_in_memory_cache_file(const std::filesystem::path& path) {
    auto file = MappedFile::open(path);
    if (!file) {
        return std::unexpected(file.error());
    }
    const std::string where = "Failed to create cache from file path " + path.string();
    auto document = pickle::unpickle(*file);
    if (!document) {
        return fail(ErrorKind::Corrupt,
                    where + ", file contents are un-pickle-able: " + document.error().message,
                    path.string());
    }
    const pickle::Value& root = (*document)->root();
    if (!root.is(pickle::Kind::Dict)) {
        return fail(ErrorKind::Corrupt,
                    where + ", file contents not pickled dict[Key, Value] (a " +
                        pickle::type_name(root) + ").",
                    path.string());
    }
    InMemoryCacheContents out;
    out.source = path.string();
    for (const auto& item : root.dict_items()) {
        out.pairs.push_back({item.key, item.value});
    }
    out.documents.push_back(std::move(*document));
    return out;
}

Result<InMemoryCacheContents> read_in_memory_cache_env(std::string_view value,
                                                       std::string_view var) {
    InMemoryCacheContents out;
    out.source = "$" + std::string(var);
    out.from_env = true;
    // Keys by their whole repr: insert() refuses a second value for a key.
    std::map<std::string, std::size_t> seen;
    std::size_t start = 0;
    while (start <= value.size()) {
        const auto end = std::min(value.find(';', start), value.size());
        const std::string kv_pair = trimmed(value.substr(start, end - start));
        start = end + 1;
        if (kv_pair.empty()) {
            continue;
        }
        const auto comma = kv_pair.find(',');
        if (comma == std::string::npos) {
            return fail(ErrorKind::Corrupt, "Malformed kv_pair " + pickle::str_repr(kv_pair) +
                                                " from env_var " + pickle::str_repr(var) +
                                                ", likely missing comma separator.");
        }
        const std::string key_repr = trimmed(std::string_view(kv_pair).substr(0, comma));
        const std::string value_repr = trimmed(std::string_view(kv_pair).substr(comma + 1));
        auto key = read_pair_side(key_repr, kv_pair, "key");
        if (!key) {
            return std::unexpected(key.error());
        }
        auto stored = read_pair_side(value_repr, kv_pair, "value");
        if (!stored) {
            return std::unexpected(stored.error());
        }
        const pickle::Value& key_value = (*key)->root();
        const pickle::Value& stored_value = (*stored)->root();
        const auto [found, inserted] = seen.emplace(full_repr(key_value), out.pairs.size());
        if (!inserted) {
            const pickle::Value& earlier = *out.pairs[found->second].value;
            if (full_repr(earlier) != full_repr(stored_value)) {
                return fail(ErrorKind::Corrupt, "Multiple values for key " + py_repr(key_value) +
                                                    " found, got " + py_repr(earlier) + " and " +
                                                    py_repr(stored_value) + ".");
            }
            continue; // the same pair twice: PyTorch keeps one
        }
        out.pairs.push_back({&key_value, &stored_value});
        out.documents.push_back(std::move(*key));
        out.documents.push_back(std::move(*stored));
    }
    return out;
}

} // namespace cachelens::cachedir
