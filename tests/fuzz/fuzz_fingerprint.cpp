// libFuzzer target: a fingerprint file (cachedir/fingerprint.h), what
// `preflight --target` reads from a file anyone may hand over. It parses or
// is refused with a message; what parses writes back to JSON that parses to
// the same JSON again.

#include <cachelens/cachedir/fingerprint.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::cachedir;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto read = fingerprint_from_json(text, "fuzz.json");
    if (!read) {
        if (read.error().message.empty() || read.error().path != "fuzz.json") {
            __builtin_trap();
        }
        return 0;
    }
    (void)read->describe();
    (void)read->varying_config();
    const std::string written = to_json(*read);
    auto again = fingerprint_from_json(written, "fuzz.json");
    if (!again || to_json(*again) != written || !(again->environment == read->environment)) {
        __builtin_trap();
    }
    return 0;
}
