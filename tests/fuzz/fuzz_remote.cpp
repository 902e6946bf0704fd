// libFuzzer target: what comes from a Redis server or a user and is parsed
// without trust: redis:// URLs, PyTorch's Redis keys and the JSON values of
// every cache. Each must give a value or an Error on any bytes, never crash;
// a value encoded then decoded gives back its payload.

#include <cachelens/remote/redis_endpoint.h>
#include <cachelens/remote/remote_cache.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::remote;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto endpoint = parse_redis_endpoint(text)) {
        (void)endpoint->display();
    }
    if (auto key = parse_redis_key(text)) {
        if (redis_key_for(key->cache_id, key->key) != text) {
            __builtin_trap(); // a parsed key rebuilds to itself
        }
    }
    for (auto kind : {CacheKind::FxGraph, CacheKind::Autotune, CacheKind::BundledAutotune}) {
        (void)decode_value(kind, text);
    }
    auto round_trip = decode_value(CacheKind::FxGraph, encode_value(text, 7));
    if (!round_trip || round_trip->payload != text || round_trip->time_taken_ms != 7) {
        __builtin_trap();
    }
    (void)artifacts_to_pull(
        {{*parse_redis_key("pt2:bundled-autotune-v1::k:c1"), std::string(text)}});
    return 0;
}
