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

// As do_bench: one launch first (it pays for lazy loading) and a wait; an
// estimate of `estimate_runs` launches together, each after a flush, inside
// one pair of events (do_bench times its flushes too); then the warmup
// launches the budget allows. Gives the estimate of one run.
bool estimate_and_warm_up(Timer& timer, const TimingProtocol& protocol, double& estimate_ms,
                          std::string& error) {
    if (!timer.launch(error) || !timer.synchronize(error)) {
        return false;
    }
    const int estimate_runs = std::max(1, protocol.estimate_runs);
    const auto estimate_work = [&](std::string& message) {
        for (int i = 0; i < estimate_runs; ++i) {
            if ((protocol.flush_l2 && !timer.flush_l2(message)) || !timer.launch(message)) {
                return false;
            }
        }
        return true;
    };
    double total_ms = 0;
    if (!timer.time_ms(estimate_work, total_ms, error)) {
        return false;
    }
    estimate_ms = total_ms / estimate_runs;
    const RunCounts counts = run_counts(protocol, estimate_ms);
    for (int i = 0; i < counts.warmup; ++i) {
        if (!timer.launch(error)) {
            return false;
        }
    }
    return true;
}

// `runs` timed launches, each alone between its events, the flush before
// them, never inside; every sample appended.
bool time_runs(Timer& timer, const TimingProtocol& protocol, int runs,
               std::vector<double>& samples_ms, std::string& error) {
    const auto launch = [&timer](std::string& message) {
        return timer.launch(message);
    };
    samples_ms.reserve(samples_ms.size() + static_cast<std::size_t>(runs));
    for (int i = 0; i < runs; ++i) {
        if (protocol.flush_l2 && !timer.flush_l2(error)) {
            return false;
        }
        double ms = 0;
        if (!timer.time_ms(launch, ms, error)) {
            return false;
        }
        samples_ms.push_back(ms);
    }
    return true;
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
    double estimate_ms = 0;
    if (!estimate_and_warm_up(timer, protocol, estimate_ms, error)) {
        return false;
    }
    const RunCounts counts = run_counts(protocol, estimate_ms);
    return time_runs(timer, protocol, counts.timed, samples_ms, error) && timer.synchronize(error);
}

namespace {

// P(X >= wins) for X ~ Binomial(n, 1/2): the one-sided sign test.
double sign_test_p(int wins, int n) {
    if (n <= 0) {
        return 1.0;
    }
    // Summed in logs: n can reach the thousands.
    double p = 0;
    for (int k = std::max(wins, 0); k <= n; ++k) {
        p += std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) -
                      n * std::log(2.0));
    }
    return std::min(p, 1.0);
}

} // namespace

bool run_paired_protocol(Timer& a, Timer& b, const TimingProtocol& protocol,
                         const PairedProtocol& paired, std::vector<PairedRound>& rounds_out,
                         int& failed_side, std::string& error) {
    rounds_out.clear();
    Timer* sides[2] = {&a, &b};
    double estimate_ms[2] = {0, 0};
    for (int side = 0; side < 2; ++side) {
        if (!estimate_and_warm_up(*sides[side], protocol, estimate_ms[side], error) ||
            !sides[side]->synchronize(error)) {
            failed_side = side;
            return false;
        }
    }
    const int rounds = std::max(1, paired.rounds);
    // Both sides run as often, as many as do_bench would fit the slower one
    // into this round's share of the rep budget.
    const double slower_ms = std::max(estimate_ms[0], estimate_ms[1]);
    const int cap = std::max(1, protocol.max_runs / rounds);
    const int runs = slower_ms > 0 ? runs_within(protocol.rep_ms / rounds, slower_ms, cap) : cap;
    rounds_out.reserve(static_cast<std::size_t>(rounds));
    for (int round = 0; round < rounds; ++round) {
        PairedRound timed;
        double* values[2] = {&timed.a_ms, &timed.b_ms};
        // A B, then B A: neither side always runs just after a flush of the other.
        for (int turn = 0; turn < 2; ++turn) {
            const int side = (round % 2 == 0) ? turn : 1 - turn;
            std::vector<double> samples;
            if (!time_runs(*sides[side], protocol, runs, samples, error)) {
                failed_side = side;
                return false;
            }
            *values[side] = stats_of(std::move(samples)).median_ms;
        }
        rounds_out.push_back(timed);
    }
    for (int side = 0; side < 2; ++side) {
        if (!sides[side]->synchronize(error)) {
            failed_side = side;
            return false;
        }
    }
    return true;
}

PairedVerdict judge_pair(const std::vector<PairedRound>& rounds, double significance) {
    PairedVerdict verdict;
    std::vector<double> ratios;
    for (const PairedRound& round : rounds) {
        if (!(round.a_ms > 0) || !(round.b_ms > 0)) {
            continue; // a side too fast for the events: no ratio
        }
        ratios.push_back(round.b_ms / round.a_ms);
        verdict.b_faster_rounds += round.b_ms < round.a_ms ? 1 : 0;
        verdict.a_faster_rounds += round.a_ms < round.b_ms ? 1 : 0;
    }
    verdict.rounds = static_cast<int>(ratios.size());
    if (ratios.empty()) {
        return verdict;
    }
    verdict.median_ratio = stats_of(ratios).median_ms;
    verdict.difference_percent = std::abs(1.0 - verdict.median_ratio) * 100.0;
    const bool b_ahead = verdict.median_ratio < 1.0;
    const int agreeing = b_ahead ? verdict.b_faster_rounds : verdict.a_faster_rounds;
    const int decided = verdict.b_faster_rounds + verdict.a_faster_rounds;
    verdict.agreement = static_cast<double>(agreeing) / verdict.rounds;
    verdict.p_value = sign_test_p(agreeing, decided);
    if (verdict.median_ratio != 1.0 && verdict.p_value <= significance) {
        verdict.outcome = b_ahead ? PairedVerdict::Outcome::Faster : PairedVerdict::Outcome::Slower;
    }
    return verdict;
}

std::string PairedVerdict::describe(std::string_view b_name, std::string_view a_name) const {
    if (rounds == 0) {
        return "no paired round could be compared";
    }
    const int agreeing = median_ratio < 1.0 ? b_faster_rounds : a_faster_rounds;
    const std::string agree =
        fmt::format("{} of {} paired rounds agree ({:.0f}%)", agreeing, rounds, agreement * 100.0);
    switch (outcome) {
    case Outcome::Faster:
        return fmt::format("{} is {:.1f}% faster than {}: {}", b_name, difference_percent, a_name,
                           agree);
    case Outcome::Slower:
        return fmt::format("{} is {:.1f}% slower than {}: {}", b_name, difference_percent, a_name,
                           agree);
    case Outcome::NoDifference:
        break;
    }
    return fmt::format("no difference beyond noise: {} is {:.1f}% {} in the median, but only {}",
                       b_name, difference_percent, median_ratio < 1.0 ? "faster" : "slower", agree);
}

} // namespace cachelens::bench
