// libFuzzer target: the mega-cache bundle codec. Any bytes give a bundle or
// an Error, never a crash or an allocation past the input's size; a bundle
// that decodes encodes to bytes that decode to the same artifacts.

#include <cachelens/bundle/mega_cache.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::bundle;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto decoded = decode_mega_cache(bytes);
    if (!decoded) {
        return 0;
    }
    auto again = decode_mega_cache(encode_mega_cache(*decoded));
    if (!again || again->artifact_count() != decoded->artifact_count()) {
        __builtin_trap();
    }
    return 0;
}
