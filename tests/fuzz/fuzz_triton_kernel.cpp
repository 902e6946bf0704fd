// libFuzzer target: what a Triton kernel dir holds as text - the metadata JSON
// and the PTX whose .entry parameters and .file names cachelens reads - and
// the *.autotune.json results a Triton cache holds.

#include <cachelens/cachedir/triton_kernel.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::cachedir;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)parse_triton_metadata(text);
    if (auto ptx = parse_ptx(text)) {
        for (const auto& parameter : ptx->parameters) {
            if (parameter.bytes > 64) {
                __builtin_trap(); // no PTX scalar is wider than .b512
            }
        }
    }
    if (auto autotune = parse_triton_autotune(text)) {
        if (const auto best = autotune->best();
            best &&
            (*best >= autotune->timings.size() || autotune->timings[*best].milliseconds.empty())) {
            __builtin_trap(); // the fastest is one of the timed configs
        }
    }
    return 0;
}
