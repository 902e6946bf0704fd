#include <cachelens/bench/timing.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cachelens::bench {

namespace {

// numpy.quantile(method="linear") / torch.quantile on sorted samples: the
// value at position q * (n - 1), interpolated between its two neighbours.
double quantile(const std::vector<double>& sorted, double q) {
    const double position = q * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

// do_bench: max(1, int(budget / estimate)), here also at most `cap`. The
// division happens in double so that a tiny estimate cannot overflow an int.
int runs_within(double budget_ms, double estimate_ms, int cap) {
    const double runs = std::floor(budget_ms / estimate_ms);
    if (!(runs >= 1.0)) { // also NaN, from a NaN or negative budget
        return 1;
    }
    return runs >= static_cast<double>(cap) ? cap : static_cast<int>(runs);
}

} // namespace

std::string TimingProtocol::describe() const {
    std::string text =
        fmt::format("estimate {}, warmup {} ms, rep {} ms, at most {} runs, {}", estimate_runs,
                    warmup_ms, rep_ms, max_runs, flush_l2 ? "L2 flushed" : "L2 not flushed");
    if (cuda_graph) {
        text += ", CUDA graph";
    }
    return text;
}

TimingStats stats_of(std::vector<double> samples_ms) {
    TimingStats stats;
    if (samples_ms.empty()) {
        return stats;
    }
    std::sort(samples_ms.begin(), samples_ms.end());
    stats.median_ms = quantile(samples_ms, 0.5);
    stats.min_ms = samples_ms.front();
    stats.p20_ms = quantile(samples_ms, 0.2);
    stats.p80_ms = quantile(samples_ms, 0.8);
    stats.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) /
                    static_cast<double>(samples_ms.size());
    return stats;
}

RunCounts run_counts(const TimingProtocol& protocol, double estimate_ms) {
    const int cap = std::max(1, protocol.max_runs);
    // A kernel too fast for the events to see (0 ms) gets the most runs.
    if (!(estimate_ms > 0.0)) {
        return {cap, cap};
    }
    return {runs_within(protocol.warmup_ms, estimate_ms, cap),
            runs_within(protocol.rep_ms, estimate_ms, cap)};
}

bool run_protocol(Timer& timer, const TimingProtocol& protocol, std::vector<double>& samples_ms,
                  std::string& error) {
    samples_ms.clear();
    const auto launch = [&timer](std::string& message) {
        return timer.launch(message);
    };

    // As do_bench: one launch first (it pays for lazy loading), then wait.
    if (!timer.launch(error) || !timer.synchronize(error)) {
        return false;
    }

    // The estimate times `estimate_runs` launches together, each after a flush,
    // inside one pair of events (do_bench does the same, flushes included).
    const int estimate_runs = std::max(1, protocol.estimate_runs);
    const auto estimate_work = [&](std::string& message) {
        for (int i = 0; i < estimate_runs; ++i) {
            if (protocol.flush_l2 && !timer.flush_l2(message)) {
                return false;
            }
            if (!timer.launch(message)) {
                return false;
            }
        }
        return true;
    };
    double estimate_total_ms = 0;
    if (!timer.time_ms(estimate_work, estimate_total_ms, error)) {
        return false;
    }
    const RunCounts counts = run_counts(protocol, estimate_total_ms / estimate_runs);

    for (int i = 0; i < counts.warmup; ++i) {
        if (!timer.launch(error)) {
            return false;
        }
    }
    samples_ms.reserve(static_cast<std::size_t>(counts.timed));
    for (int i = 0; i < counts.timed; ++i) {
        // The flush runs before the timed section, never inside it.
        if (protocol.flush_l2 && !timer.flush_l2(error)) {
            return false;
        }
        double ms = 0;
        if (!timer.time_ms(launch, ms, error)) {
            return false;
        }
        samples_ms.push_back(ms);
    }
    return timer.synchronize(error);
}

} // namespace cachelens::bench
