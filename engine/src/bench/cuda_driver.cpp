#include "cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <memory>

namespace cachelens::bench::cuda {

namespace {

// dlclose()s the library unless released: a failed load leaves nothing open.
struct LibraryHandle {
    void* handle = nullptr;
    ~LibraryHandle() {
        if (handle != nullptr) {
            dlclose(handle);
        }
    }
};

Result<void> resolve(const Driver& driver, cuGetProcAddress_fn get_proc, const char* name,
                     void*& out) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    const CUresult result = get_proc(name, &out, kApiVersion, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (result == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && out != nullptr) {
        return {};
    }
    if (result == CUDA_ERROR_STUB_LIBRARY) {
        // The toolkit's link-time libcuda, found first (a stubs/ dir on the
        // library path): it exports every name and serves none.
        return fail(ErrorKind::Unsupported,
                    fmt::format("{} is the CUDA toolkit's stub library, not a driver "
                                "(CUDA_ERROR_STUB_LIBRARY from cuGetProcAddress for {})",
                                driver.library, name));
    }
    if (status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT) {
        return fail(ErrorKind::Unsupported,
                    fmt::format("the CUDA driver in {} is too old: it has no {} for CUDA {}.{}",
                                driver.library, name, kApiVersion / 1000, kApiVersion % 1000 / 10));
    }
    return fail(ErrorKind::Unsupported,
                fmt::format("{} not found in {} (cuGetProcAddress: {})", name, driver.library,
                            result == CUDA_SUCCESS ? std::string("symbol not found")
                                                   : fmt::format("CUresult {}", +result)));
}

Result<std::unique_ptr<Driver>> load(const std::string& library) {
    dlerror();
    LibraryHandle opened{dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL)};
    if (opened.handle == nullptr) {
        const char* why = dlerror();
        return fail(ErrorKind::NotFound, fmt::format("no CUDA driver: {} not found ({})", library,
                                                     why != nullptr ? why : "dlopen failed"));
    }
    auto loaded = std::make_unique<Driver>();
    loaded->library = library;
    // The one symbol taken by name; drivers before 12.0 lack it.
    void* get_proc_symbol = dlsym(opened.handle, "cuGetProcAddress_v2");
    if (get_proc_symbol == nullptr) {
        return fail(ErrorKind::Unsupported,
                    fmt::format("cuGetProcAddress_v2 not found in {}: not a CUDA driver, or one "
                                "older than 12.0",
                                library));
    }
    const auto get_proc = reinterpret_cast<cuGetProcAddress_fn>(get_proc_symbol);
#define CACHELENS_CUDA_RESOLVE(name)                                                               \
    {                                                                                              \
        void* symbol = nullptr;                                                                    \
        if (auto resolved = resolve(*loaded, get_proc, #name, symbol); !resolved) {                \
            return std::unexpected(std::move(resolved.error()));                                   \
        }                                                                                          \
        loaded->name = reinterpret_cast<decltype(loaded->name)>(symbol);                           \
    }
    CACHELENS_CUDA_ENTRY_POINTS(CACHELENS_CUDA_RESOLVE)
#undef CACHELENS_CUDA_RESOLVE
    loaded->handle = opened.handle;
    opened.handle = nullptr;
    return loaded;
}

} // namespace

Result<const Driver*> driver() {
    // Loaded once; a failure is kept too (a driver does not appear mid-run).
    static const Result<std::unique_ptr<Driver>> loaded = load("libcuda.so.1");
    if (!loaded) {
        return std::unexpected(loaded.error());
    }
    return loaded->get();
}

std::string describe_result(const Driver& driver, CUresult result) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (driver.cuGetErrorName(result, &name) != CUDA_SUCCESS) {
        name = nullptr;
    }
    if (driver.cuGetErrorString(result, &text) != CUDA_SUCCESS) {
        text = nullptr;
    }
    return bench::detail::format_cuda_error(static_cast<int>(result), name, text);
}

std::string call_failed(const Driver& driver, std::string_view call, CUresult result) {
    return fmt::format("{} failed: {}", call, describe_result(driver, result));
}

} // namespace cachelens::bench::cuda

namespace cachelens::bench::detail {

Result<void> probe_driver_library(const std::string& library) {
    auto loaded = cuda::load(library);
    if (!loaded) {
        return std::unexpected(std::move(loaded.error()));
    }
    dlclose((*loaded)->handle);
    return {};
}

std::string format_cuda_error(int code, const char* name, const char* text) {
    if (name == nullptr) {
        return fmt::format("CUDA error {}", code);
    }
    if (text == nullptr) {
        return name;
    }
    return fmt::format("{}: {}", name, text);
}

} // namespace cachelens::bench::detail
