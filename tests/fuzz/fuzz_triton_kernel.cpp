// libFuzzer target: what a Triton kernel dir holds as text - the metadata JSON
// (in every Triton release's form) and the PTX whose .entry parameters and
// .file names cachelens reads - the *.autotune.json results a Triton cache
// holds, and Inductor's benchmark cache (Python's JSON: Infinity for a failed
// choice). The same bytes as a path: what kind of file it names.

#include <cachelens/cachedir/benchmark_cache.h>
#include <cachelens/cachedir/file_kind.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/hash/sha256.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::cachedir;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto metadata = parse_triton_metadata(text)) {
        if (!metadata->arch.empty() && metadata->backend.empty()) {
            __builtin_trap(); // an arch is always said with its backend
        }
        (void)cachelens::hash::is_triton_dir_name_of(metadata->name, metadata->hash);
    }
    if (auto benchmarks = parse_benchmark_cache(text)) {
        (void)benchmarks->best("mm", "", "");
    }
    (void)classify(text);
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
