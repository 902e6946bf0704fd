#pragma once

// The part of the CUDA driver API the runner uses, declared by the project
// (private to the bench module), so that cachelens builds without a CUDA
// toolkit: libcuda is loaded at run time (cuda_driver.cpp), and only these
// types, values and entry-point signatures are needed to call it. Written
// from NVIDIA's CUDA Driver API reference, at the version kApiVersion names.
//
// Every name is the driver API's own, inside cachelens::bench::cuda. Where
// the toolkit is installed, tests/engine/cuda_api_check.cpp compares each
// declaration here with its cuda.h (same values, sizes, underlying types and
// signatures) and a difference fails the build. To use another entry point,
// type or value: add it here and to the X-macro lists, which that check walks.
//
// Linux on 64-bit processors only (the CUDA 12+ drivers' platforms), where
// CUDAAPI is the default calling convention.

#include <cstddef>
#include <cstdint>

// The opaque handles' structs, in the global namespace as in cuda.h, so that
// a handle declared here and one declared there are the same type.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;

namespace cachelens::bench::cuda {

static_assert(sizeof(void*) == 8, "the CUDA driver API is declared here for 64-bit Linux only");

// The API version every entry point is requested at (cuGetProcAddress's
// cudaVersion; 13000 is CUDA 13.0): the signatures below are the ones this
// version maps each name to. A driver older than it serves its own newest
// version of each name, which for these entry points has the same signature
// since 12.0.
inline constexpr int kApiVersion = 13000;

using cuuint64_t = std::uint64_t;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
using CUgraph = CUgraph_st*;
using CUgraphExec = CUgraphExec_st*;

// Each enum's list holds only the values the runner uses, (name, value). The
// underlying type is the one GCC and Clang give cuda.h's enums (which have
// no fixed type and no negative value); fixing it here makes every value the
// driver returns a valid CUresult, listed or not.
#define CACHELENS_CUDA_RESULT_VALUES(X)                                                            \
    X(CUDA_SUCCESS, 0)                                                                             \
    X(CUDA_ERROR_INVALID_VALUE, 1)                                                                 \
    X(CUDA_ERROR_STUB_LIBRARY, 34)                                                                 \
    X(CUDA_ERROR_NO_DEVICE, 100)                                                                   \
    X(CUDA_ERROR_INVALID_IMAGE, 200)                                                               \
    X(CUDA_ERROR_ECC_UNCORRECTABLE, 214)                                                           \
    X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                                                             \
    X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701)                                                     \
    X(CUDA_ERROR_LAUNCH_TIMEOUT, 702)                                                              \
    X(CUDA_ERROR_ASSERT, 710)                                                                      \
    X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)                                                        \
    X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)                                                         \
    X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)                                                          \
    X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)                                                       \
    X(CUDA_ERROR_INVALID_PC, 718)                                                                  \
    X(CUDA_ERROR_LAUNCH_FAILED, 719)

#define CACHELENS_CUDA_DEVICE_ATTRIBUTE_VALUES(X)                                                  \
    X(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 13)                                                          \
    X(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 38)                                                       \
    X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)                                            \
    X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)                                            \
    X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)

#define CACHELENS_CUDA_FUNCTION_ATTRIBUTE_VALUES(X)                                                \
    X(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1)                                                      \
    X(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, 3)                                                       \
    X(CU_FUNC_ATTRIBUTE_NUM_REGS, 4)                                                               \
    X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)

#define CACHELENS_CUDA_STREAM_FLAGS_VALUES(X) X(CU_STREAM_DEFAULT, 0)

#define CACHELENS_CUDA_EVENT_FLAGS_VALUES(X) X(CU_EVENT_DEFAULT, 0)

#define CACHELENS_CUDA_STREAM_CAPTURE_MODE_VALUES(X) X(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, 1)

#define CACHELENS_CUDA_PROC_ADDRESS_FLAGS_VALUES(X) X(CU_GET_PROC_ADDRESS_DEFAULT, 0)

#define CACHELENS_CUDA_PROC_ADDRESS_QUERY_RESULT_VALUES(X)                                         \
    X(CU_GET_PROC_ADDRESS_SUCCESS, 0)                                                              \
    X(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, 1)                                                     \
    X(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, 2)

// Every enum: (its name, its values' list).
#define CACHELENS_CUDA_ENUMS(X)                                                                    \
    X(CUresult, CACHELENS_CUDA_RESULT_VALUES)                                                      \
    X(CUdevice_attribute, CACHELENS_CUDA_DEVICE_ATTRIBUTE_VALUES)                                  \
    X(CUfunction_attribute, CACHELENS_CUDA_FUNCTION_ATTRIBUTE_VALUES)                              \
    X(CUstream_flags, CACHELENS_CUDA_STREAM_FLAGS_VALUES)                                          \
    X(CUevent_flags, CACHELENS_CUDA_EVENT_FLAGS_VALUES)                                            \
    X(CUstreamCaptureMode, CACHELENS_CUDA_STREAM_CAPTURE_MODE_VALUES)                              \
    X(CUdriverProcAddress_flags, CACHELENS_CUDA_PROC_ADDRESS_FLAGS_VALUES)                         \
    X(CUdriverProcAddressQueryResult, CACHELENS_CUDA_PROC_ADDRESS_QUERY_RESULT_VALUES)

#define CACHELENS_CUDA_ENUMERATOR(name, value) name = value,
#define CACHELENS_CUDA_ENUM(type, values)                                                          \
    enum type : unsigned int { values(CACHELENS_CUDA_ENUMERATOR) };
CACHELENS_CUDA_ENUMS(CACHELENS_CUDA_ENUM)
#undef CACHELENS_CUDA_ENUM
#undef CACHELENS_CUDA_ENUMERATOR

// Every other type the declarations below use, for the toolkit check.
#define CACHELENS_CUDA_TYPES(X)                                                                    \
    X(cuuint64_t)                                                                                  \
    X(CUdevice)                                                                                    \
    X(CUdeviceptr)                                                                                 \
    X(CUcontext)                                                                                   \
    X(CUmodule)                                                                                    \
    X(CUfunction)                                                                                  \
    X(CUstream)                                                                                    \
    X(CUevent)                                                                                     \
    X(CUgraph)                                                                                     \
    X(CUgraphExec)

// The entry points: NAME_fn is a pointer to the function the driver serves
// for NAME at kApiVersion (cuMemAlloc is cuMemAlloc_v2 there, with a size_t
// size; cuStreamBeginCapture takes a capture mode). cuCtxSynchronize is
// deliberately absent: at 13.0 it takes a context; streams and events
// synchronize instead.
using cuGetProcAddress_fn = CUresult (*)(const char* symbol, void** pfn, int cudaVersion,
                                         cuuint64_t flags,
                                         CUdriverProcAddressQueryResult* symbolStatus);
using cuGetErrorName_fn = CUresult (*)(CUresult error, const char** pStr);
using cuGetErrorString_fn = CUresult (*)(CUresult error, const char** pStr);
using cuInit_fn = CUresult (*)(unsigned int Flags);
using cuDriverGetVersion_fn = CUresult (*)(int* driverVersion);
using cuDeviceGet_fn = CUresult (*)(CUdevice* device, int ordinal);
using cuDeviceGetCount_fn = CUresult (*)(int* count);
using cuDeviceGetName_fn = CUresult (*)(char* name, int len, CUdevice dev);
using cuDeviceGetAttribute_fn = CUresult (*)(int* pi, CUdevice_attribute attrib, CUdevice dev);
using cuDevicePrimaryCtxRetain_fn = CUresult (*)(CUcontext* pctx, CUdevice dev);
using cuDevicePrimaryCtxRelease_fn = CUresult (*)(CUdevice dev);
using cuCtxSetCurrent_fn = CUresult (*)(CUcontext ctx);
using cuModuleLoadData_fn = CUresult (*)(CUmodule* module, const void* image);
using cuModuleUnload_fn = CUresult (*)(CUmodule hmod);
using cuModuleGetFunction_fn = CUresult (*)(CUfunction* hfunc, CUmodule hmod, const char* name);
using cuFuncSetAttribute_fn = CUresult (*)(CUfunction hfunc, CUfunction_attribute attrib,
                                           int value);
using cuFuncGetAttribute_fn = CUresult (*)(int* pi, CUfunction_attribute attrib, CUfunction hfunc);
using cuMemAlloc_fn = CUresult (*)(CUdeviceptr* dptr, std::size_t bytesize);
using cuMemFree_fn = CUresult (*)(CUdeviceptr dptr);
using cuMemcpyHtoD_fn = CUresult (*)(CUdeviceptr dstDevice, const void* srcHost,
                                     std::size_t ByteCount);
using cuMemsetD8Async_fn = CUresult (*)(CUdeviceptr dstDevice, unsigned char uc, std::size_t N,
                                        CUstream hStream);
using cuLaunchKernel_fn = CUresult (*)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX,
                                       unsigned int blockDimY, unsigned int blockDimZ,
                                       unsigned int sharedMemBytes, CUstream hStream,
                                       void** kernelParams, void** extra);
using cuStreamCreate_fn = CUresult (*)(CUstream* phStream, unsigned int Flags);
using cuStreamDestroy_fn = CUresult (*)(CUstream hStream);
using cuStreamSynchronize_fn = CUresult (*)(CUstream hStream);
using cuEventCreate_fn = CUresult (*)(CUevent* phEvent, unsigned int Flags);
using cuEventRecord_fn = CUresult (*)(CUevent hEvent, CUstream hStream);
using cuEventSynchronize_fn = CUresult (*)(CUevent hEvent);
using cuEventElapsedTime_fn = CUresult (*)(float* pMilliseconds, CUevent hStart, CUevent hEnd);
using cuEventDestroy_fn = CUresult (*)(CUevent hEvent);
using cuStreamBeginCapture_fn = CUresult (*)(CUstream hStream, CUstreamCaptureMode mode);
using cuStreamEndCapture_fn = CUresult (*)(CUstream hStream, CUgraph* phGraph);
using cuGraphInstantiateWithFlags_fn = CUresult (*)(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                    unsigned long long flags);
using cuGraphLaunch_fn = CUresult (*)(CUgraphExec hGraphExec, CUstream hStream);
using cuGraphExecDestroy_fn = CUresult (*)(CUgraphExec hGraphExec);
using cuGraphDestroy_fn = CUresult (*)(CUgraph hGraph);

// Every entry point the runner calls, by the name cuGetProcAddress knows it
// (cuGetProcAddress itself is taken with dlsym, as cuGetProcAddress_v2).
#define CACHELENS_CUDA_ENTRY_POINTS(X)                                                             \
    X(cuGetErrorName)                                                                              \
    X(cuGetErrorString)                                                                            \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuDeviceGet)                                                                                 \
    X(cuDeviceGetCount)                                                                            \
    X(cuDeviceGetName)                                                                             \
    X(cuDeviceGetAttribute)                                                                        \
    X(cuDevicePrimaryCtxRetain)                                                                    \
    X(cuDevicePrimaryCtxRelease)                                                                   \
    X(cuCtxSetCurrent)                                                                             \
    X(cuModuleLoadData)                                                                            \
    X(cuModuleUnload)                                                                              \
    X(cuModuleGetFunction)                                                                         \
    X(cuFuncSetAttribute)                                                                          \
    X(cuFuncGetAttribute)                                                                          \
    X(cuMemAlloc)                                                                                  \
    X(cuMemFree)                                                                                   \
    X(cuMemcpyHtoD)                                                                                \
    X(cuMemsetD8Async)                                                                             \
    X(cuLaunchKernel)                                                                              \
    X(cuStreamCreate)                                                                              \
    X(cuStreamDestroy)                                                                             \
    X(cuStreamSynchronize)                                                                         \
    X(cuEventCreate)                                                                               \
    X(cuEventRecord)                                                                               \
    X(cuEventSynchronize)                                                                          \
    X(cuEventElapsedTime)                                                                          \
    X(cuEventDestroy)                                                                              \
    X(cuStreamBeginCapture)                                                                        \
    X(cuStreamEndCapture)                                                                          \
    X(cuGraphInstantiateWithFlags)                                                                 \
    X(cuGraphLaunch)                                                                               \
    X(cuGraphExecDestroy)                                                                          \
    X(cuGraphDestroy)

} // namespace cachelens::bench::cuda
