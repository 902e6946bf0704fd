#pragma once

// The timing protocol of a re-benchmark, as triton.testing.do_bench times a
// kernel: an estimate from a few runs sets how many warmup and timed runs fit
// the budgets; the L2 cache is flushed before each timed run (outside its
// timed events); every sample is kept. This part holds no GPU code: the
// runner (runner.h) drives a `Timer` that a test can fake.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cachelens::bench {

struct TimingProtocol {
    double warmup_ms = 25.0; // do_bench's defaults
    double rep_ms = 100.0;
    int estimate_runs = 5;
    int max_runs = 10'000; // a cap for kernels of a few µs
    bool flush_l2 = true;
    bool cuda_graph = false; // replay the timed runs from a captured CUDA graph
    // "estimate 5, warmup 25 ms, rep 100 ms, at most 10000 runs, L2 flushed[, CUDA graph]"
    std::string describe() const;
};

struct TimingStats {
    double median_ms = 0, min_ms = 0, p20_ms = 0, p80_ms = 0, mean_ms = 0;
};

// Quantiles as torch.quantile / numpy 'linear' interpolation, as do_bench reports them.
TimingStats stats_of(std::vector<double> samples_ms);

// How many warmup and timed runs the budgets allow after an estimate of one
// run (do_bench: max(1, int(budget / estimate))), capped by max_runs.
struct RunCounts {
    int warmup = 1;
    int timed = 1;
};
RunCounts run_counts(const TimingProtocol& protocol, double estimate_ms);

// What the protocol needs from a device: a launch, an L2 flush, and timed
// sections. `time_ms(work)` runs `work` between two events and returns the
// elapsed time; the runner implements it with CUDA events, tests with a clock.
struct Timer {
    virtual ~Timer() = default;
    virtual bool launch(std::string& error) = 0;   // one launch of the kernel
    virtual bool flush_l2(std::string& error) = 0; // overwrite an L2-sized buffer
    virtual bool time_ms(const std::function<bool(std::string&)>& work, double& ms,
                         std::string& error) = 0;
    virtual bool synchronize(std::string& error) = 0;
};

// Runs the protocol; on a failure returns false with `error` set and the
// samples gathered so far.
bool run_protocol(Timer& timer, const TimingProtocol& protocol, std::vector<double>& samples_ms,
                  std::string& error);

} // namespace cachelens::bench
