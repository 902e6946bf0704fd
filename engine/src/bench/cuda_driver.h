#pragma once

// The CUDA driver API, loaded at run time (private to the bench module).
// libcuda.so.1 is opened with dlopen and only cuGetProcAddress_v2 is taken
// with dlsym: every other entry point comes from cuGetProcAddress_v2 at
// cuda::kApiVersion (cuda_api.h, which declares them), because dlsym gives
// the oldest ABI of a name (cuMemAlloc's 32-bit one) and some names changed
// their signature (formats.md, "Launching a cached cubin from C++"). The
// entry points used here kept their signatures since driver 12.0, so an
// older 12.x driver serves them too.

#include "cuda_api.h"

#include <cachelens/bench/launch_plan.h>
#include <cachelens/core/error.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace cachelens::bench::cuda {

struct Driver {
    std::string library; // the name it was opened by
    void* handle = nullptr;
#define CACHELENS_CUDA_MEMBER(name) name##_fn name = nullptr;
    CACHELENS_CUDA_ENTRY_POINTS(CACHELENS_CUDA_MEMBER)
#undef CACHELENS_CUDA_MEMBER
};

// libcuda.so.1 with every entry point resolved (cuInit not called yet). It is
// loaded once per process and never unloaded: the driver keeps threads and
// contexts that must not outlive its code. Fails with NotFound ("no CUDA
// driver: libcuda.so.1 not found (...)") or Unsupported (a driver without
// cuGetProcAddress_v2 or one of the entry points).
Result<const Driver*> driver();

// "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected".
std::string describe_result(const Driver& driver, CUresult result);
// "cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid".
std::string call_failed(const Driver& driver, std::string_view call, CUresult result);

} // namespace cachelens::bench::cuda

// Testing hooks: the parts of the runner that need no GPU
// (tests/engine/tst_bench_timing.cpp).
namespace cachelens::bench::detail {

// Loads `library` as if it were the driver, resolves every entry point and
// closes it again: what cuda::driver() would say about that library.
Result<void> probe_driver_library(const std::string& library);
// The text of a CUresult from what cuGetErrorName/cuGetErrorString gave
// (either may be null when the driver does not know the code).
std::string format_cuda_error(int code, const char* name, const char* text);
// The plan's cubin: its Triton dir under `cache_dir`, else the file of that
// name in its FX entry's Triton bundle.
Result<std::string> read_cubin(const std::filesystem::path& cache_dir, const TritonSource& source);
// `bytes` bytes of `dtype` elements in [0, 1) (float32, float64, float16,
// bfloat16); nullopt for other dtypes, which stay zero.
std::optional<std::string> random_bytes(std::string_view dtype, std::uint64_t bytes,
                                        std::mt19937_64& random);

} // namespace cachelens::bench::detail
