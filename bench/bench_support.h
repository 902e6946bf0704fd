#pragma once

// What the benchmark programs share: stopping on an error, and percentiles.

#include <cachelens/core/error.h>

#include <errno.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace cachelens::bench_support {

// "<program>: <message>" on stderr, then exit 1: a benchmark with a broken
// input has no figure to give.
[[noreturn]] inline void die(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, message.c_str());
    std::exit(1);
}

template <class T>
T checked(Result<T> result, const char* what) {
    if (!result) {
        die(std::string(what) + ": " + result.error().describe());
    }
    return std::move(*result);
}

// The nearest-rank percentile of the samples (sorted here): the smallest
// sample with at least `fraction` of them at or below it.
inline double percentile(std::vector<double> samples, double fraction) {
    std::sort(samples.begin(), samples.end());
    const auto rank =
        static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(samples.size())));
    return samples[std::clamp<std::size_t>(rank, 1, samples.size()) - 1];
}

} // namespace cachelens::bench_support
