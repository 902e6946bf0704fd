#pragma once

// The JSON of `bench --json-lines` and `bench history --json`: a config, the
// device, one measured candidate, and the stream's `result` record. Kept out of
// the command so that what a GPU run prints is tested on machines without one.

#include "output.h"

#include <cachelens/bench/bench_result.h>

#include <cstddef>

namespace cachelens::cli {

// {kwargs: {...}, num_warps, num_stages} (null where the config has none).
Json config_json(const cachedir::KernelConfig& config);

// {name, compute_capability, driver_version, sm_clock_mhz, l2_bytes}.
Json device_json(const bench::DeviceFacts& device);

// {kernel, module, triton_hash, config, config_text, was_best, status,
//  message, samples_ms, median_ms, min_ms, p20_ms, p80_ms}.
Json result_json(const bench::CandidateResult& result);

// The stream's record of the index-th (from 1) of `total` results:
// {event: "result", index, total, ...result_json}.
Json result_line_json(const bench::CandidateResult& result, std::size_t index, std::size_t total);

// The stream's `verdict` record of a challenger re-timed beside the current
// best: {event: "verdict", kernel, module, best, candidate (Triton hashes),
// best_config_text, candidate_config_text, status, message, rounds, outcome
// ("faster" | "slower" | "no_difference"), difference_percent, agreement,
// p_value, best_median_ms, candidate_median_ms, text}.
Json verdict_line_json(const bench::PairedResult& paired);

// The verdict's text, or why the pair could not be timed.
std::string verdict_text(const bench::PairedResult& paired);

} // namespace cachelens::cli
