// A stand-in libcuda.so.1 for tests: serves every entry point cachelens asks
// cuGetProcAddress_v2 for (cuda_api.h, so each has the signature the runner
// calls), so that `cachelens bench` runs end to end on a machine with no GPU.
// Put its directory on LD_LIBRARY_PATH; the runner's dlopen("libcuda.so.1")
// then finds it.
//
// Time is simulated: one clock that a launch advances by a cost that grows
// with the threads it starts, a memset by one that grows with its bytes; an
// event records the clock, so configs rank by the work they launch.
// CACHELENS_FAKE_CUDA_FAULT=KERNEL makes that kernel's launch end the context
// as an illegal address does on a real GPU: every call after it, including
// retaining the primary context again, returns CUDA_ERROR_ILLEGAL_ADDRESS
// (what an H200 with driver 580 did, docs/PERFORMANCE.md).

#include "cuda_api.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace cachelens::bench::cuda;

struct CUctx_st {};
struct CUfunc_st {
    std::string name;
};
struct CUmod_st {
    std::vector<std::unique_ptr<CUfunc_st>> functions; // freed with the module
};
struct CUstream_st {
    bool capturing = false;
    double captured_ms = 0;
};
struct CUevent_st {
    double at_ms = 0;
};
struct CUgraph_st {
    double ms = 0;
};
struct CUgraphExec_st {
    double ms = 0;
};

namespace {

CUctx_st the_context;
double clock_ms = 0;
CUdeviceptr next_address = 0x7f0000000000ULL;
bool context_lost = false;

CUresult lost() {
    return context_lost ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}

// Work on a stream: captured into its graph, else it advances the clock.
void run_on(CUstream stream, double ms) {
    if (stream != nullptr && stream->capturing) {
        stream->captured_ms += ms;
    } else {
        clock_ms += ms;
    }
}

// The results this driver returns, with the name and text a real one gives.
struct KnownResult {
    CUresult code;
    const char* name;
    const char* text;
};
constexpr KnownResult kResults[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
};

CUresult describe_result(CUresult error, const char** text, const char* KnownResult::*field) {
    for (const auto& known : kResults) {
        if (known.code == error) {
            *text = known.*field;
            return CUDA_SUCCESS;
        }
    }
    *text = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult getErrorName(CUresult error, const char** text) {
    return describe_result(error, text, &KnownResult::name);
}
CUresult getErrorString(CUresult error, const char** text) {
    return describe_result(error, text, &KnownResult::text);
}
CUresult init(unsigned int) {
    return CUDA_SUCCESS;
}
CUresult driverGetVersion(int* version) {
    *version = 13000;
    return CUDA_SUCCESS;
}
CUresult deviceGet(CUdevice* device, int ordinal) {
    *device = ordinal;
    return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult deviceGetCount(int* count) {
    *count = 1;
    return CUDA_SUCCESS;
}
CUresult deviceGetName(char* name, int length, CUdevice) {
    std::strncpy(name, "cachelens fake GPU", static_cast<std::size_t>(length));
    return CUDA_SUCCESS;
}
CUresult deviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
        *value = 1980000;
        break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
        *value = 1 << 20;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *value = 9;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *value = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        *value = 232448;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
CUresult primaryCtxRetain(CUcontext* context, CUdevice) {
    *context = &the_context;
    return lost();
}
CUresult primaryCtxRelease(CUdevice) {
    return CUDA_SUCCESS;
}
CUresult ctxSetCurrent(CUcontext) {
    return CUDA_SUCCESS;
}
CUresult moduleLoadData(CUmodule* module, const void* image) {
    if (image == nullptr) {
        return CUDA_ERROR_INVALID_IMAGE;
    }
    *module = new CUmod_st;
    return lost();
}
CUresult moduleUnload(CUmodule module) {
    delete module;
    return lost();
}
CUresult moduleGetFunction(CUfunction* function, CUmodule module, const char* name) {
    module->functions.push_back(std::make_unique<CUfunc_st>(CUfunc_st{name}));
    *function = module->functions.back().get();
    return lost();
}
CUresult funcSetAttribute(CUfunction, CUfunction_attribute, int) {
    return lost();
}
// Every kernel uses 40 registers and spills nothing; the static shared
// memory is 0.
CUresult funcGetAttribute(int* value, CUfunction_attribute attribute, CUfunction) {
    *value = attribute == CU_FUNC_ATTRIBUTE_NUM_REGS ? 40 : 0;
    return lost();
}
CUresult memAlloc(CUdeviceptr* address, std::size_t bytes) {
    *address = next_address;
    next_address += (bytes + 255) / 256 * 256;
    return lost();
}
CUresult memFree(CUdeviceptr) {
    return lost();
}
CUresult memcpyHtoD(CUdeviceptr, const void*, std::size_t) {
    return lost();
}
CUresult memsetD8Async(CUdeviceptr, unsigned char, std::size_t bytes, CUstream stream) {
    run_on(stream, static_cast<double>(bytes) * 1e-9);
    return lost();
}
CUresult launchKernel(CUfunction function, unsigned int gx, unsigned int gy, unsigned int gz,
                      unsigned int bx, unsigned int by, unsigned int bz, unsigned int,
                      CUstream stream, void**, void**) {
    if (context_lost) {
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    const char* fault = std::getenv("CACHELENS_FAKE_CUDA_FAULT");
    if (fault != nullptr && function->name == fault) {
        context_lost = true; // seen at the next synchronization, as on a GPU
        return CUDA_SUCCESS;
    }
    const double threads = double(gx) * gy * gz * bx * by * bz;
    run_on(stream, 0.002 + threads * 1e-6);
    return CUDA_SUCCESS;
}
CUresult streamCreate(CUstream* stream, unsigned int) {
    *stream = new CUstream_st;
    return lost();
}
CUresult streamDestroy(CUstream stream) {
    delete stream;
    return lost();
}
CUresult streamSynchronize(CUstream) {
    return lost();
}
CUresult eventCreate(CUevent* event, unsigned int) {
    *event = new CUevent_st;
    return lost();
}
CUresult eventRecord(CUevent event, CUstream) {
    event->at_ms = clock_ms;
    return lost();
}
CUresult eventSynchronize(CUevent) {
    return lost();
}
CUresult eventElapsedTime(float* ms, CUevent start, CUevent end) {
    *ms = static_cast<float>(end->at_ms - start->at_ms);
    return lost();
}
CUresult eventDestroy(CUevent event) {
    delete event;
    return lost();
}
CUresult streamBeginCapture(CUstream stream, CUstreamCaptureMode) {
    stream->capturing = true;
    stream->captured_ms = 0;
    return lost();
}
CUresult streamEndCapture(CUstream stream, CUgraph* graph) {
    stream->capturing = false;
    *graph = new CUgraph_st{stream->captured_ms};
    return lost();
}
CUresult graphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long) {
    *exec = new CUgraphExec_st{graph->ms};
    return lost();
}
CUresult graphLaunch(CUgraphExec exec, CUstream stream) {
    run_on(stream, exec->ms);
    return lost();
}
CUresult graphExecDestroy(CUgraphExec exec) {
    delete exec;
    return CUDA_SUCCESS;
}
CUresult graphDestroy(CUgraph graph) {
    delete graph;
    return CUDA_SUCCESS;
}

// Each entry point by its name, with the type the runner calls it through.
const std::map<std::string, void*>& entry_points() {
    static const std::map<std::string, void*> points = [] {
        std::map<std::string, void*> out;
#define FAKE(name, implementation)                                                                 \
    {                                                                                              \
        name##_fn typed = implementation;                                                          \
        out[#name] = reinterpret_cast<void*>(typed);                                               \
    }
        FAKE(cuGetErrorName, getErrorName)
        FAKE(cuGetErrorString, getErrorString)
        FAKE(cuInit, init)
        FAKE(cuDriverGetVersion, driverGetVersion)
        FAKE(cuDeviceGet, deviceGet)
        FAKE(cuDeviceGetCount, deviceGetCount)
        FAKE(cuDeviceGetName, deviceGetName)
        FAKE(cuDeviceGetAttribute, deviceGetAttribute)
        FAKE(cuDevicePrimaryCtxRetain, primaryCtxRetain)
        FAKE(cuDevicePrimaryCtxRelease, primaryCtxRelease)
        FAKE(cuCtxSetCurrent, ctxSetCurrent)
        FAKE(cuModuleLoadData, moduleLoadData)
        FAKE(cuModuleUnload, moduleUnload)
        FAKE(cuModuleGetFunction, moduleGetFunction)
        FAKE(cuFuncSetAttribute, funcSetAttribute)
        FAKE(cuFuncGetAttribute, funcGetAttribute)
        FAKE(cuMemAlloc, memAlloc)
        FAKE(cuMemFree, memFree)
        FAKE(cuMemcpyHtoD, memcpyHtoD)
        FAKE(cuMemsetD8Async, memsetD8Async)
        FAKE(cuLaunchKernel, launchKernel)
        FAKE(cuStreamCreate, streamCreate)
        FAKE(cuStreamDestroy, streamDestroy)
        FAKE(cuStreamSynchronize, streamSynchronize)
        FAKE(cuEventCreate, eventCreate)
        FAKE(cuEventRecord, eventRecord)
        FAKE(cuEventSynchronize, eventSynchronize)
        FAKE(cuEventElapsedTime, eventElapsedTime)
        FAKE(cuEventDestroy, eventDestroy)
        FAKE(cuStreamBeginCapture, streamBeginCapture)
        FAKE(cuStreamEndCapture, streamEndCapture)
        FAKE(cuGraphInstantiateWithFlags, graphInstantiateWithFlags)
        FAKE(cuGraphLaunch, graphLaunch)
        FAKE(cuGraphExecDestroy, graphExecDestroy)
        FAKE(cuGraphDestroy, graphDestroy)
#undef FAKE
        return out;
    }();
    return points;
}

} // namespace

extern "C" __attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char* symbol, void** function, int, cuuint64_t,
                    CUdriverProcAddressQueryResult* status) {
    const auto& points = entry_points();
    const auto found = points.find(symbol);
    if (found == points.end()) {
        *function = nullptr;
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *function = found->second;
    *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}
