#pragma once

// What a re-benchmark measured: the device it ran on, and per candidate its
// samples and their statistics, or why it failed. The catalog keeps these
// (bench_store.h); the CLI prints them as text or JSON lines.

#include <cachelens/bench/timing.h>
#include <cachelens/cachedir/kernel_config.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::bench {

struct DeviceFacts {
    std::string name;               // "NVIDIA H100 80GB HBM3"
    std::string compute_capability; // "9.0"
    std::string driver_version;     // "13.0" (cuDriverGetVersion)
    std::optional<std::int64_t> sm_clock_mhz;
    std::int64_t l2_bytes = 0;
};

struct CandidateResult {
    std::string kernel_name;
    std::string module_key;
    std::string triton_hash;
    cachedir::KernelConfig config;
    bool was_best = false; // the .best_config named it when it ran
    // tune: "cached" (its cubin is in the cache) or "new" (compiled by
    // cachelens tune); empty for bench, where every candidate is cached.
    std::string origin;
    // "ok", or the failing step: "load" (cuModuleLoadData), "resources" (too
    // much shared memory / registers), "launch", "plan".
    // What the driver says of the loaded kernel (cuFuncGetAttribute), when
    // it loaded: registers per thread, and local memory per thread, which
    // for Triton's kernels is register spills.
    std::optional<std::int64_t> registers;
    std::optional<std::int64_t> local_bytes;
    std::string status = "ok";
    std::string message;
    std::vector<double> samples_ms;
    TimingStats stats;
};

// A challenger (b) re-timed side by side with the current best (a):
// GpuRunner::run_pair. Each side's samples_ms are its round medians.
struct PairedResult {
    CandidateResult a;
    CandidateResult b;
    std::vector<PairedRound> rounds;
    PairedVerdict verdict;

    bool ok() const { return a.status == "ok" && b.status == "ok"; }
};

// What the driver said of a loaded candidate: "40 registers per thread, no
// spills", "255 registers per thread, 96 B spilled per thread"; empty when
// it did not load.
std::string describe_registers(const CandidateResult& result);

// The verdict in words ("the candidate is 7.9% faster than the current best:
// ..."), or why the pair could not be timed.
std::string describe_pair(const PairedResult& paired);

struct BenchRun {
    std::int64_t started_ns = 0;
    // "tune" for a cachelens tune run (with its strategy), empty for bench.
    std::string kind;
    std::string strategy;
    DeviceFacts device;
    TimingProtocol protocol;
    std::vector<CandidateResult> results;
};

} // namespace cachelens::bench
