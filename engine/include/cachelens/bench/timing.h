#pragma once

// The timing protocol of a re-benchmark, as triton.testing.do_bench times a
// kernel: an estimate from a few runs sets how many warmup and timed runs fit
// the budgets; the L2 cache is flushed before each timed run (outside its
// timed events); every sample is kept. This part holds no GPU code: the
// runner (runner.h) drives a `Timer` that a test can fake.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
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

// Two candidates re-timed side by side, so that a drift of the GPU (clocks,
// heat, a neighbour) moves both alike: A (the current best) and B (the
// challenger) alternate round by round, A B, B A, A B, ..., each side's value
// in a round being the median of a few flushed, timed runs. Timings of one
// kernel moved up to ~15% between runs on an H100; within a round they move
// together.
struct PairedRound {
    double a_ms = 0;
    double b_ms = 0;
};

// Each side runs as many timed runs a round as fit rep_ms / rounds (do_bench's
// rule, on the slower side's estimate), at least one.
struct PairedProtocol {
    int rounds = 30;
};

// Warms both up (the protocol's estimate and warmup budget, each), then runs
// the rounds. On a failure returns false with `error` set and which side
// failed (0 A, 1 B); `rounds_out` keeps the rounds completed.
bool run_paired_protocol(Timer& a, Timer& b, const TimingProtocol& protocol,
                         const PairedProtocol& paired, std::vector<PairedRound>& rounds_out,
                         int& failed_side, std::string& error);

// Is B faster than A beyond the noise? From the rounds: the median of B/A over
// rounds gives the difference; a one-sided sign test over rounds (ties left
// out) gives the confidence. B is faster when the median says so and at most
// a 5% chance of seeing that many rounds agree if neither were faster.
struct PairedVerdict {
    enum class Outcome { Faster, Slower, NoDifference };
    Outcome outcome = Outcome::NoDifference;
    int rounds = 0;
    int b_faster_rounds = 0;
    int a_faster_rounds = 0;
    double median_ratio = 1.0;     // median over rounds of b_ms / a_ms
    double difference_percent = 0; // |1 - median_ratio| * 100
    double agreement = 0;          // share of rounds on the side of the median
    double p_value = 1.0;          // one-sided sign test for that side

    bool b_faster() const { return outcome == Outcome::Faster; }
    // "the candidate is 7.9% faster than the current best: 38 of 40 paired
    // rounds agree (95%)"; "no difference beyond noise: ..." when neither side
    // wins; the names are the caller's.
    std::string describe(std::string_view b_name = "the candidate",
                         std::string_view a_name = "the current best") const;
};

PairedVerdict judge_pair(const std::vector<PairedRound>& rounds, double significance = 0.05);

} // namespace cachelens::bench
