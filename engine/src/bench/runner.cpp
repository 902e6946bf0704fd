#include "cuda_driver.h"

#include <cachelens/bench/runner.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>

namespace cachelens::bench {

// The driver API's names (cuda_api.h) and the loaded driver, unqualified as
// the CUDA documentation writes them.
using namespace cuda;

namespace {

// Why a candidate did not run: its CandidateResult status and message.
struct Failure {
    std::string status;
    std::string message;
    CUresult code = CUDA_SUCCESS;
};
using Outcome = std::expected<void, Failure>;

std::unexpected<Failure> failure(std::string status, std::string message,
                                 CUresult code = CUDA_SUCCESS) {
    return std::unexpected(Failure{std::move(status), std::move(message), code});
}

// Errors after which the CUDA docs say the context is unusable until the
// process ends: every later call returns them again. Seen on an H200
// (driver 580): after CUDA_ERROR_ILLEGAL_ADDRESS even releasing and
// resetting the primary context and retaining it again fails with it.
bool sticky(CUresult code) {
    switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
        return true;
    default:
        return false;
    }
}

// Shared memory a kernel may use without opting in.
constexpr std::uint32_t kDefaultSharedBytes = 48 * 1024;

// do_bench's flush buffer, for a device that does not report its L2 size.
constexpr std::uint64_t kFallbackFlushBytes = std::uint64_t{256} << 20;

// Everything one run() makes on the device, released in reverse order on
// every path out of it (the stream is drained first so that nothing in
// flight still uses a buffer).
struct RunResources {
    const Driver& driver;
    CUmodule module = nullptr;
    CUstream stream = nullptr;
    std::vector<CUdeviceptr> allocations;
    CUevent start = nullptr;
    CUevent end = nullptr;
    CUgraph graph = nullptr;
    CUgraphExec graph_exec = nullptr;

    explicit RunResources(const Driver& d)
        : driver(d) {}
    RunResources(const RunResources&) = delete;
    RunResources& operator=(const RunResources&) = delete;
    ~RunResources() {
        if (stream != nullptr) {
            driver.cuStreamSynchronize(stream);
        }
        if (graph_exec != nullptr) {
            driver.cuGraphExecDestroy(graph_exec);
        }
        if (graph != nullptr) {
            driver.cuGraphDestroy(graph);
        }
        if (end != nullptr) {
            driver.cuEventDestroy(end);
        }
        if (start != nullptr) {
            driver.cuEventDestroy(start);
        }
        for (auto it = allocations.rbegin(); it != allocations.rend(); ++it) {
            driver.cuMemFree(*it);
        }
        if (stream != nullptr) {
            driver.cuStreamDestroy(stream);
        }
        if (module != nullptr) {
            driver.cuModuleUnload(module);
        }
    }

    // A device allocation of at least one byte whose returned address is
    // aligned to `align` (cuMemAlloc gives 256-byte alignment already).
    Outcome allocate(std::uint64_t bytes, std::uint64_t align, CUdeviceptr& out) {
        const std::uint64_t extra = align > 256 ? align : 0;
        CUdeviceptr base = 0;
        const std::uint64_t size = std::max<std::uint64_t>(bytes, 1) + extra;
        if (const CUresult r = driver.cuMemAlloc(&base, size); r != CUDA_SUCCESS) {
            return failure("resources",
                           fmt::format("{} ({} bytes)", call_failed(driver, "cuMemAlloc", r), size),
                           r);
        }
        allocations.push_back(base);
        out = extra == 0 ? base : (base + align - 1) / align * align;
        return {};
    }
};

// The Timer of the protocol: launches and flushes on one stream, timed
// sections between two events on it. The last CUresult says why it failed.
class EventTimer final : public Timer {
public:
    EventTimer(const Driver& driver, RunResources& resources, CUfunction function,
               const LaunchPlan& plan, std::vector<void*>& params, CUdeviceptr flush_buffer,
               std::uint64_t flush_bytes)
        : driver_(driver)
        , resources_(resources)
        , function_(function)
        , plan_(plan)
        , params_(params)
        , flush_buffer_(flush_buffer)
        , flush_bytes_(flush_bytes) {}

    CUresult last_code = CUDA_SUCCESS;
    bool failed_in_launch = false;

    bool launch(std::string& error) override {
        if (resources_.graph_exec != nullptr) {
            return check(driver_.cuGraphLaunch(resources_.graph_exec, resources_.stream),
                         "cuGraphLaunch", error, true);
        }
        return check(launch_kernel(), "cuLaunchKernel", error, true);
    }

    bool flush_l2(std::string& error) override {
        return check(driver_.cuMemsetD8Async(flush_buffer_, 0, flush_bytes_, resources_.stream),
                     "cuMemsetD8Async (L2 flush)", error);
    }

    bool time_ms(const std::function<bool(std::string&)>& work, double& ms,
                 std::string& error) override {
        if (!check(driver_.cuEventRecord(resources_.start, resources_.stream), "cuEventRecord",
                   error) ||
            !work(error) ||
            !check(driver_.cuEventRecord(resources_.end, resources_.stream), "cuEventRecord",
                   error) ||
            !check(driver_.cuEventSynchronize(resources_.end), "cuEventSynchronize", error)) {
            return false;
        }
        float elapsed = 0;
        if (!check(driver_.cuEventElapsedTime(&elapsed, resources_.start, resources_.end),
                   "cuEventElapsedTime", error)) {
            return false;
        }
        ms = elapsed;
        return true;
    }

    bool synchronize(std::string& error) override {
        return check(driver_.cuStreamSynchronize(resources_.stream), "cuStreamSynchronize", error);
    }

    CUresult launch_kernel() {
        return driver_.cuLaunchKernel(function_, plan_.grid[0], plan_.grid[1], plan_.grid[2],
                                      plan_.block_threads, 1, 1, plan_.shared_bytes,
                                      resources_.stream, params_.data(), nullptr);
    }

private:
    bool check(CUresult code, std::string_view call, std::string& error, bool is_launch = false) {
        if (code == CUDA_SUCCESS) {
            return true;
        }
        last_code = code;
        failed_in_launch = is_launch;
        error = call_failed(driver_, call, code);
        return false;
    }

    const Driver& driver_;
    RunResources& resources_;
    CUfunction function_;
    const LaunchPlan& plan_;
    std::vector<void*>& params_;
    CUdeviceptr flush_buffer_;
    std::uint64_t flush_bytes_;
};

// A candidate loaded, its buffers made and filled, ready to be timed. Held by
// pointer: the timer refers to its members.
struct PreparedCandidate {
    PreparedCandidate(const Driver& driver, const LaunchPlan& launch_plan)
        : run(driver)
        , plan(launch_plan) {}
    PreparedCandidate(const PreparedCandidate&) = delete;
    PreparedCandidate& operator=(const PreparedCandidate&) = delete;

    RunResources run;
    const LaunchPlan& plan;
    CUfunction function = nullptr;
    std::optional<std::int64_t> registers;   // cuFuncGetAttribute NUM_REGS
    std::optional<std::int64_t> local_bytes; // LOCAL_SIZE_BYTES: spills
    std::vector<std::uint64_t> slots;        // the parameter buffer: one 8-byte slot per parameter
    std::vector<void*> params;
    CUdeviceptr flush_buffer = 0;
    std::uint64_t flush_bytes = 0;
    std::unique_ptr<EventTimer> timer;

    // Why the timer's protocol failed, as a candidate's status.
    Failure timing_failure(std::string error) const {
        const CUresult r = timer->last_code;
        const bool resources = r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ||
                               (timer->failed_in_launch && r == CUDA_ERROR_INVALID_VALUE &&
                                plan.shared_bytes > kDefaultSharedBytes);
        return Failure{resources ? "resources" : "launch", std::move(error), r};
    }
};
using Prepared = std::expected<std::unique_ptr<PreparedCandidate>, Failure>;

} // namespace

namespace detail {

// rand_strided's floating inputs: values in [0, 1), each exactly
// representable in the dtype (k / 2^precision), so no rounding reaches 1.
std::optional<std::string> random_bytes(std::string_view dtype, std::uint64_t bytes,
                                        std::mt19937_64& random) {
    const auto fill = [&](std::size_t element, auto&& encode) {
        std::string out(bytes, '\0');
        for (std::size_t at = 0; at + element <= out.size(); at += element) {
            encode(out.data() + at);
        }
        return out;
    };
    const auto unit = [&](int precision) {
        return static_cast<double>(random() >> (64 - precision)) * std::ldexp(1.0, -precision);
    };
    if (dtype == "float32") {
        return fill(4, [&](char* to) {
            const auto value = static_cast<float>(unit(24));
            std::memcpy(to, &value, 4);
        });
    }
    if (dtype == "float64") {
        return fill(8, [&](char* to) {
            const double value = unit(53);
            std::memcpy(to, &value, 8);
        });
    }
    if (dtype == "bfloat16") {
        // bfloat16 is the top half of a float; 8 bits of precision are exact there.
        return fill(2, [&](char* to) {
            const auto value = static_cast<float>(unit(8));
            std::uint32_t bits = 0;
            std::memcpy(&bits, &value, 4);
            const auto half = static_cast<std::uint16_t>(bits >> 16);
            std::memcpy(to, &half, 2);
        });
    }
    if (dtype == "float16") {
        // k / 2^11 with k < 2^11 is 0 or a normal half: re-bias the float's
        // exponent (127 -> 15) and keep the top 10 fraction bits.
        return fill(2, [&](char* to) {
            const auto value = static_cast<float>(unit(11));
            std::uint32_t bits = 0;
            std::memcpy(&bits, &value, 4);
            std::uint16_t half = 0;
            if (bits != 0) {
                const std::uint32_t exponent = ((bits >> 23) & 0xffU) - 127U + 15U;
                half = static_cast<std::uint16_t>((exponent << 10) | ((bits >> 13) & 0x3ffU));
            }
            std::memcpy(to, &half, 2);
        });
    }
    return std::nullopt;
}

Result<std::string> read_cubin(const std::filesystem::path& cache_dir, const TritonSource& source) {
    std::optional<Error> from_dir;
    if (!source.dir.empty()) {
        auto file = MappedFile::open(cache_dir / source.dir / source.cubin_name);
        if (file) {
            return std::string((*file)->bytes());
        }
        from_dir = std::move(file.error());
    }
    if (source.fx_entry.empty()) {
        if (from_dir) {
            return std::unexpected(std::move(*from_dir));
        }
        return fail(ErrorKind::InvalidArgument,
                    "the plan names neither a Triton dir nor an FX entry for its cubin");
    }
    const std::filesystem::path path = cache_dir / source.fx_entry;
    auto entry = cachedir::load_fx_graph_entry(path);
    if (!entry) {
        return std::unexpected(std::move(entry.error()));
    }
    // The bundle names its kernels by Triton dir, which the hash gives.
    const std::string dir = !source.triton_hash.empty()
                                ? hash::triton_dir_from_hex(source.triton_hash)
                                : source.dir.filename().string();
    for (const auto& kernel : entry->triton_artifacts) {
        if (kernel.kernel_hash != dir) {
            continue;
        }
        for (const auto& file : kernel.files) {
            if (file.name == source.cubin_name) {
                return std::string(file.payload);
            }
        }
    }
    return fail(ErrorKind::NotFound,
                fmt::format("its Triton bundle has no {} in {}", source.cubin_name, dir),
                path.string());
}

} // namespace detail

struct GpuRunner::Impl {
    const Driver* driver = nullptr;
    CUdevice device = 0;
    CUcontext context = nullptr;
    DeviceFacts facts;
    int shared_optin = 0;
    // Set after a sticky error: nothing more runs in this process. Names the
    // candidate that failed and how.
    std::string unusable;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (context != nullptr) {
            driver->cuCtxSetCurrent(nullptr);
            driver->cuDevicePrimaryCtxRelease(device);
        }
    }

    Prepared prepare(const std::filesystem::path& cache_dir, const LaunchPlan& plan,
                     const TimingProtocol& protocol);
    Outcome execute(const std::filesystem::path& cache_dir, const LaunchPlan& plan,
                    const TimingProtocol& protocol, CandidateResult& result);
    // Makes the context current; fails (Unsupported) after a sticky failure.
    Result<void> usable();
    void note(const Failure& failed, const LaunchPlan& plan);
};

Prepared GpuRunner::Impl::prepare(const std::filesystem::path& cache_dir, const LaunchPlan& plan,
                                  const TimingProtocol& protocol) {
    const Driver& d = *driver;
    if (plan.block_threads == 0 || plan.block_threads > 1024) {
        return failure("plan", fmt::format("{} threads per block", plan.block_threads));
    }
    auto cubin = detail::read_cubin(cache_dir, plan.source);
    if (!cubin) {
        return failure("load", cubin.error().describe());
    }

    auto prepared = std::make_unique<PreparedCandidate>(d, plan);
    RunResources& run = prepared->run;
    if (const CUresult r = d.cuModuleLoadData(&run.module, cubin->data()); r != CUDA_SUCCESS) {
        return failure("load", call_failed(d, "cuModuleLoadData", r), r);
    }
    CUfunction& function = prepared->function;
    if (const CUresult r = d.cuModuleGetFunction(&function, run.module, plan.kernel_name.c_str());
        r != CUDA_SUCCESS) {
        return failure(
            "load",
            fmt::format("{} ({})", call_failed(d, "cuModuleGetFunction", r), plan.kernel_name), r);
    }
    // Registers and spills: facts of the candidate, not conditions of its run.
    for (const auto& [attribute, into] :
         {std::pair{CU_FUNC_ATTRIBUTE_NUM_REGS, &prepared->registers},
          std::pair{CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &prepared->local_bytes}}) {
        int value = 0;
        if (d.cuFuncGetAttribute(&value, attribute, function) == CUDA_SUCCESS) {
            *into = value;
        }
    }
    // Above 48 KiB a kernel must opt in to more dynamic shared memory; as
    // Triton's launcher does, allow all the device has beyond the static part.
    if (plan.shared_bytes > kDefaultSharedBytes) {
        if (plan.shared_bytes > static_cast<std::uint32_t>(shared_optin)) {
            return failure("resources",
                           fmt::format("needs {} bytes of shared memory; the device allows {}",
                                       plan.shared_bytes, shared_optin));
        }
        int static_bytes = 0;
        if (const CUresult r =
                d.cuFuncGetAttribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
            r != CUDA_SUCCESS) {
            return failure("resources", call_failed(d, "cuFuncGetAttribute", r), r);
        }
        if (const CUresult r =
                d.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     shared_optin - static_bytes);
            r != CUDA_SUCCESS) {
            return failure("resources",
                           fmt::format("{} ({} bytes of dynamic shared memory)",
                                       call_failed(d, "cuFuncSetAttribute", r), plan.shared_bytes),
                           r);
        }
    }
    // A blocking stream: it waits for the synchronous copies below, which run
    // on the legacy stream.
    if (const CUresult r = d.cuStreamCreate(&run.stream, CU_STREAM_DEFAULT); r != CUDA_SUCCESS) {
        return failure("launch", call_failed(d, "cuStreamCreate", r), r);
    }

    // The parameter buffer: one 8-byte slot per PTX parameter, holding a value
    // of exactly the parameter's width at its start.
    std::vector<std::uint64_t>& slots = prepared->slots;
    std::vector<void*>& params = prepared->params;
    slots.assign(plan.args.size(), 0);
    params.assign(plan.args.size(), nullptr);
    std::uint64_t programs = std::uint64_t{plan.grid[0]} * plan.grid[1] * plan.grid[2];
    programs *=
        static_cast<std::uint64_t>(std::max<std::int64_t>(plan.config.num_ctas.value_or(1), 1));
    std::mt19937_64 random(0x5eed);
    for (std::size_t i = 0; i < plan.args.size(); ++i) {
        const LaunchArg& arg = plan.args[i];
        void* slot = &slots[i];
        params[i] = slot;
        const auto wrong_width = [&] {
            return failure("plan", fmt::format("argument {} ({}: {}) cannot be {} bytes wide", i,
                                               arg.name, arg.type, arg.bytes));
        };
        switch (arg.kind) {
        case LaunchArg::Kind::Buffer: {
            if (arg.bytes != 8) {
                return wrong_width();
            }
            CUdeviceptr buffer = 0;
            if (auto made = run.allocate(arg.buffer_bytes, 1, buffer); !made) {
                return std::unexpected(made.error());
            }
            std::optional<std::string> bytes;
            if (arg.random_fill && arg.buffer_bytes > 0) {
                bytes = detail::random_bytes(arg.dtype, arg.buffer_bytes, random);
            }
            const CUresult r =
                bytes ? d.cuMemcpyHtoD(buffer, bytes->data(), bytes->size())
                      : d.cuMemsetD8Async(buffer, 0, std::max<std::uint64_t>(arg.buffer_bytes, 1),
                                          run.stream);
            if (r != CUDA_SUCCESS) {
                return failure("launch",
                               call_failed(d, bytes ? "cuMemcpyHtoD" : "cuMemsetD8Async", r), r);
            }
            std::memcpy(slot, &buffer, sizeof buffer);
            break;
        }
        case LaunchArg::Kind::GlobalScratch:
        case LaunchArg::Kind::ProfileScratch: {
            if (arg.bytes != 8) {
                return wrong_width();
            }
            CUdeviceptr scratch = 0; // null when the kernel needs none
            if (arg.scratch_bytes_per_program > 0) {
                if (auto made =
                        run.allocate(programs * arg.scratch_bytes_per_program,
                                     std::max<std::uint64_t>(arg.scratch_align, 1), scratch);
                    !made) {
                    return std::unexpected(made.error());
                }
            }
            std::memcpy(slot, &scratch, sizeof scratch);
            break;
        }
        case LaunchArg::Kind::Int:
            if (arg.bytes == 8) {
                std::memcpy(slot, &arg.integer, 8);
            } else if (arg.bytes == 4) {
                if (arg.integer < std::numeric_limits<std::int32_t>::min() ||
                    arg.integer > std::numeric_limits<std::int32_t>::max()) {
                    return failure("plan", fmt::format("argument {} ({}: {}) = {} does not fit "
                                                       "in 32 bits",
                                                       i, arg.name, arg.type, arg.integer));
                }
                const auto value = static_cast<std::int32_t>(arg.integer);
                std::memcpy(slot, &value, 4);
            } else {
                return wrong_width();
            }
            break;
        case LaunchArg::Kind::Float:
            if (arg.bytes == 8) {
                std::memcpy(slot, &arg.real, 8);
            } else if (arg.bytes == 4) {
                const auto value = static_cast<float>(arg.real);
                std::memcpy(slot, &value, 4);
            } else {
                return wrong_width();
            }
            break;
        }
    }

    CUdeviceptr& flush_buffer = prepared->flush_buffer;
    const std::uint64_t flush_bytes =
        facts.l2_bytes > 0 ? static_cast<std::uint64_t>(facts.l2_bytes) : kFallbackFlushBytes;
    prepared->flush_bytes = flush_bytes;
    if (protocol.flush_l2) {
        if (auto made = run.allocate(flush_bytes, 1, flush_buffer); !made) {
            return std::unexpected(made.error());
        }
    }
    for (CUevent* event : {&run.start, &run.end}) {
        if (const CUresult r = d.cuEventCreate(event, CU_EVENT_DEFAULT); r != CUDA_SUCCESS) {
            return failure("launch", call_failed(d, "cuEventCreate", r), r);
        }
    }

    prepared->timer =
        std::make_unique<EventTimer>(d, run, function, plan, params, flush_buffer, flush_bytes);
    if (protocol.cuda_graph) {
        // One launch captured into a graph; the protocol replays it.
        if (const CUresult r =
                d.cuStreamBeginCapture(run.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
            r != CUDA_SUCCESS) {
            return failure("launch", call_failed(d, "cuStreamBeginCapture", r), r);
        }
        const CUresult launched = prepared->timer->launch_kernel();
        const CUresult ended = d.cuStreamEndCapture(run.stream, &run.graph);
        if (launched != CUDA_SUCCESS || ended != CUDA_SUCCESS) {
            const CUresult r = launched != CUDA_SUCCESS ? launched : ended;
            return failure("launch",
                           call_failed(d,
                                       launched != CUDA_SUCCESS ? "cuLaunchKernel (graph capture)"
                                                                : "cuStreamEndCapture",
                                       r),
                           r);
        }
        if (const CUresult r = d.cuGraphInstantiateWithFlags(&run.graph_exec, run.graph, 0);
            r != CUDA_SUCCESS) {
            return failure("launch", call_failed(d, "cuGraphInstantiateWithFlags", r), r);
        }
    }

    return prepared;
}

Outcome GpuRunner::Impl::execute(const std::filesystem::path& cache_dir, const LaunchPlan& plan,
                                 const TimingProtocol& protocol, CandidateResult& result) {
    std::vector<double>& samples = result.samples_ms;
    auto prepared = prepare(cache_dir, plan, protocol);
    if (!prepared) {
        return std::unexpected(std::move(prepared.error()));
    }
    result.registers = (*prepared)->registers;
    result.local_bytes = (*prepared)->local_bytes;
    std::string error;
    if (!run_protocol(*(*prepared)->timer, protocol, samples, error)) {
        return std::unexpected((*prepared)->timing_failure(std::move(error)));
    }
    return {};
}

Result<void> GpuRunner::Impl::usable() {
    if (!unusable.empty()) {
        return fail(ErrorKind::Unsupported,
                    fmt::format("the CUDA driver runs nothing more in this process after {}; "
                                "such an error ends the CUDA context for good",
                                unusable));
    }
    if (const CUresult r = driver->cuCtxSetCurrent(context); r != CUDA_SUCCESS) {
        return fail(ErrorKind::Io, call_failed(*driver, "cuCtxSetCurrent", r));
    }
    return {};
}

void GpuRunner::Impl::note(const Failure& failed, const LaunchPlan& plan) {
    if (sticky(failed.code)) {
        unusable =
            fmt::format("{} ({}): {}", plan.kernel_name, plan.config.describe(), failed.message);
    }
}

Result<GpuRunner> GpuRunner::open(int device) {
    auto loaded = cuda::driver();
    if (!loaded) {
        return std::unexpected(loaded.error());
    }
    const Driver& d = **loaded;
    if (const CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
        return fail(r == CUDA_ERROR_NO_DEVICE ? ErrorKind::NotFound : ErrorKind::Io,
                    call_failed(d, "cuInit", r));
    }
    int count = 0;
    if (const CUresult r = d.cuDeviceGetCount(&count); r != CUDA_SUCCESS) {
        return fail(ErrorKind::Io, call_failed(d, "cuDeviceGetCount", r));
    }
    if (device < 0 || device >= count) {
        return fail(ErrorKind::InvalidArgument, fmt::format("device {} does not exist: {} device{}",
                                                            device, count, count == 1 ? "" : "s"));
    }
    auto impl = std::make_unique<Impl>();
    impl->driver = &d;
    if (const CUresult r = d.cuDeviceGet(&impl->device, device); r != CUDA_SUCCESS) {
        return fail(ErrorKind::Io, call_failed(d, "cuDeviceGet", r));
    }
    CUcontext context = nullptr;
    if (const CUresult r = d.cuDevicePrimaryCtxRetain(&context, impl->device); r != CUDA_SUCCESS) {
        return fail(ErrorKind::Io, call_failed(d, "cuDevicePrimaryCtxRetain", r));
    }
    impl->context = context; // released by ~Impl from here on
    if (const CUresult r = d.cuCtxSetCurrent(context); r != CUDA_SUCCESS) {
        return fail(ErrorKind::Io, call_failed(d, "cuCtxSetCurrent", r));
    }

    DeviceFacts& facts = impl->facts;
    char name[256] = {};
    if (const CUresult r = d.cuDeviceGetName(name, sizeof name - 1, impl->device);
        r != CUDA_SUCCESS) {
        return fail(ErrorKind::Io, call_failed(d, "cuDeviceGetName", r));
    }
    facts.name = name;
    const auto attribute = [&](CUdevice_attribute which) -> std::optional<int> {
        int value = 0;
        if (d.cuDeviceGetAttribute(&value, which, impl->device) != CUDA_SUCCESS) {
            return std::nullopt;
        }
        return value;
    };
    const auto major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    const auto minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    if (!major || !minor) {
        return fail(ErrorKind::Io, "cuDeviceGetAttribute failed for the compute capability");
    }
    facts.compute_capability = fmt::format("{}.{}", *major, *minor);
    int version = 0;
    if (const CUresult r = d.cuDriverGetVersion(&version); r != CUDA_SUCCESS) {
        return fail(ErrorKind::Io, call_failed(d, "cuDriverGetVersion", r));
    }
    facts.driver_version = fmt::format("{}.{}", version / 1000, version % 1000 / 10);
    if (const auto khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE); khz && *khz > 0) {
        facts.sm_clock_mhz = *khz / 1000;
    }
    facts.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE).value_or(0);
    impl->shared_optin = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                             .value_or(static_cast<int>(kDefaultSharedBytes));
    return GpuRunner(std::move(impl));
}

GpuRunner::GpuRunner(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
GpuRunner::GpuRunner(GpuRunner&&) noexcept = default;
GpuRunner& GpuRunner::operator=(GpuRunner&&) noexcept = default;
GpuRunner::~GpuRunner() = default;

const DeviceFacts& GpuRunner::device() const {
    return impl_->facts;
}

Result<CandidateResult> GpuRunner::run(const std::filesystem::path& cache_dir,
                                       const LaunchPlan& plan, const TimingProtocol& protocol) {
    if (auto ready = impl_->usable(); !ready) {
        return std::unexpected(std::move(ready.error()));
    }
    CandidateResult result;
    result.kernel_name = plan.kernel_name;
    result.module_key = plan.module_key;
    result.triton_hash = plan.source.triton_hash;
    result.config = plan.config;
    result.was_best = plan.is_current_best;
    const Outcome outcome = impl_->execute(cache_dir, plan, protocol, result);
    if (!outcome) {
        result.status = outcome.error().status;
        result.message = outcome.error().message;
        result.samples_ms.clear(); // a partial set would read as a measurement
        impl_->note(outcome.error(), plan);
        return result;
    }
    result.stats = stats_of(result.samples_ms);
    return result;
}

Result<PairedResult> GpuRunner::run_pair(const std::filesystem::path& cache_dir,
                                         const LaunchPlan& best, const LaunchPlan& challenger,
                                         const TimingProtocol& protocol,
                                         const PairedProtocol& paired) {
    if (auto ready = impl_->usable(); !ready) {
        return std::unexpected(std::move(ready.error()));
    }
    PairedResult result;
    CandidateResult* sides[2] = {&result.a, &result.b};
    const LaunchPlan* plans[2] = {&best, &challenger};
    for (int side = 0; side < 2; ++side) {
        CandidateResult& r = *sides[side];
        r.kernel_name = plans[side]->kernel_name;
        r.module_key = plans[side]->module_key;
        r.triton_hash = plans[side]->source.triton_hash;
        r.config = plans[side]->config;
        r.was_best = plans[side]->is_current_best;
    }
    const auto failed = [&](int side, Failure failure) {
        sides[side]->status = failure.status;
        sides[side]->message = failure.message;
        impl_->note(failure, *plans[side]);
        return result;
    };
    std::unique_ptr<PreparedCandidate> prepared[2];
    for (int side = 0; side < 2; ++side) {
        auto made = impl_->prepare(cache_dir, *plans[side], protocol);
        if (!made) {
            return failed(side, std::move(made.error()));
        }
        prepared[side] = std::move(*made);
        sides[side]->registers = prepared[side]->registers;
        sides[side]->local_bytes = prepared[side]->local_bytes;
    }
    std::string error;
    int failed_side = 0;
    if (!run_paired_protocol(*prepared[0]->timer, *prepared[1]->timer, protocol, paired,
                             result.rounds, failed_side, error)) {
        result.rounds.clear();
        return failed(failed_side, prepared[failed_side]->timing_failure(std::move(error)));
    }
    for (const PairedRound& round : result.rounds) {
        result.a.samples_ms.push_back(round.a_ms);
        result.b.samples_ms.push_back(round.b_ms);
    }
    result.a.stats = stats_of(result.a.samples_ms);
    result.b.stats = stats_of(result.b.samples_ms);
    result.verdict = judge_pair(result.rounds);
    return result;
}

std::vector<Challenge> find_challenges(const std::vector<KernelCandidates>& kernels,
                                       const std::vector<CandidateResult>& results) {
    const auto measured = [&](const KernelCandidates& kernel,
                              const LaunchPlan& plan) -> const CandidateResult* {
        for (const auto& result : results) {
            if (result.status == "ok" && !result.samples_ms.empty() &&
                result.kernel_name == kernel.kernel_name &&
                result.module_key == kernel.module_key &&
                result.triton_hash == plan.source.triton_hash) {
                return &result;
            }
        }
        return nullptr;
    };
    std::vector<Challenge> out;
    for (const auto& kernel : kernels) {
        const LaunchPlan* best = nullptr;
        const CandidateResult* best_result = nullptr;
        for (const auto& plan : kernel.plans) {
            if (plan.is_current_best) {
                best = &plan;
                best_result = measured(kernel, plan);
            }
        }
        if (best_result == nullptr) {
            continue;
        }
        const LaunchPlan* challenger = nullptr;
        double fastest_ms = best_result->stats.median_ms;
        for (const auto& plan : kernel.plans) {
            if (&plan == best) {
                continue;
            }
            if (const CandidateResult* result = measured(kernel, plan);
                result != nullptr && result->stats.median_ms < fastest_ms) {
                challenger = &plan;
                fastest_ms = result->stats.median_ms;
            }
        }
        if (challenger != nullptr) {
            out.push_back({&kernel, best, challenger});
        }
    }
    return out;
}

Result<void> run_candidates(const std::vector<KernelCandidates>& kernels,
                            const CandidateRunner& run,
                            const std::function<void(CandidateResult)>& on_result,
                            const ProgressFn& progress) {
    Progress timed{.stage = ProgressStage::Benchmarking,
                   .unit = ProgressUnit::Candidates,
                   .done = 0,
                   .total = 0,
                   .bytes = 0,
                   .item = {}};
    for (const auto& kernel : kernels) {
        timed.total += kernel.plans.size();
    }
    std::string item;
    for (const auto& kernel : kernels) {
        for (const auto& plan : kernel.plans) {
            item = kernel.kernel_name + " " + plan.config.describe();
            timed.item = item;
            if (!report_progress(progress, timed)) {
                return cancelled();
            }
            auto result = run(plan);
            if (!result) {
                return std::unexpected(result.error());
            }
            on_result(std::move(*result));
            ++timed.done;
        }
    }
    timed.item = {};
    report_progress(progress, timed);
    return {};
}

} // namespace cachelens::bench
