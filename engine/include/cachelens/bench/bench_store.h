#pragma once

// Re-benchmark runs in the catalog (schema v3, and v6 for tune runs: bench_runs, bench_results,
// bench_samples): every run with its device facts and protocol, every
// candidate's result with all its samples; history per kernel across runs
// and GPUs.

#include <cachelens/bench/bench_result.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/error.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cachelens::bench {

// Stores the run in one transaction; returns its id.
Result<std::int64_t> record_run(catalog::Catalog& catalog, const BenchRun& run);

struct HistoryRow {
    std::int64_t run_id = 0;
    std::int64_t started_ns = 0;
    DeviceFacts device;
    std::string protocol;
    std::string kind;       // "tune" for a cachelens tune run, empty for bench
    std::string strategy;   // a tune's strategy
    CandidateResult result; // with its samples
};

// Every result for a kernel name or module key (c<hash>), oldest run first.
Result<std::vector<HistoryRow>> kernel_history(const catalog::Catalog& catalog,
                                               const std::string& kernel_or_module);

} // namespace cachelens::bench
