// libFuzzer target: torch/_inductor/cache.py's formats (cachedir/keyed_cache.h).
// The first byte picks the reader: an OnDiskCache value file (version prefix,
// then a pickle), InMemoryCache's env-var form (';'-separated b'...' pairs),
// or its file form (a pickled dict). Each must give a value or an Error on
// any bytes, never crash; what it gives must describe without crashing, and a
// value's pickle must be what the policy check walks.

#include <cachelens/bundle/import.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/entry_description.h>
#include <cachelens/cachedir/keyed_cache.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/pickle/repr.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens;
    using namespace cachelens::cachedir;
    if (size == 0) {
        return 0;
    }
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    Entry entry;
    entry.path = "cache/fuzz/0123456789abcdef0123456789abcdef";
    entry.key = "0123456789abcdef0123456789abcdef";
    entry.size = bytes.size();
    switch (data[0] % 3) {
    case 0: {
        entry.kind = FileKind::KeyedCacheValue;
        auto value = read_keyed_cache_value(MappedFile::from_bytes(std::string(bytes)), "fuzz");
        if (value) {
            (void)describe_entry(entry, EntryContent(*value));
            (void)bundle::check_keyed_cache_value(bytes, entry.path);
        }
        break;
    }
    case 1: {
        entry.kind = FileKind::InMemoryCache;
        auto cache = read_in_memory_cache_env(bytes, "FUZZ");
        if (cache) {
            (void)describe_entry(entry, EntryContent(*cache));
            (void)bundle::check_in_memory_cache(*cache);
        }
        break;
    }
    default:
        if (looks_like_pickled_dict(bytes)) {
            (void)keyed_cache_pickle(bytes);
        }
        break;
    }
    return 0;
}
