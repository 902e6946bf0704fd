#pragma once

// A Triton launch configuration as Inductor records it, both in .best_config
// files and in the compile results an FX entry carries: the constexpr block
// sizes (XBLOCK, R0_BLOCK, BLOCK_M, ...) plus the launch options.

#include <cachelens/pickle/value.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cachelens::cachedir {

// A kwarg value: block sizes are ints; a few templates pass bools or names.
using ConfigValue = std::variant<bool, std::int64_t, double, std::string>;

std::string to_string(const ConfigValue& value);

// A kwarg from a decoded pickle or literal: bool, int, float and str as they
// are; anything else (None, big ints, names) as Python would print it.
ConfigValue config_value_of(const pickle::Value& value);

struct KernelConfig {
    std::vector<std::pair<std::string, ConfigValue>> kwargs; // in the order Inductor wrote them
    std::optional<std::int64_t> num_warps;
    std::optional<std::int64_t> num_stages;
    std::optional<std::int64_t> num_ctas;
    std::optional<std::int64_t> maxnreg;

    const ConfigValue* kwarg(std::string_view name) const;
    // "XBLOCK=8, R0_BLOCK=8, num_warps=2, num_stages=1"
    std::string describe() const;

    bool operator==(const KernelConfig&) const = default;
};

// The same block sizes (in any order), warps and stages: what a .best_config
// records of a config, so a winner is matched to its candidate by these
// (num_ctas and maxnreg, which it does not record, aside).
bool same_config(const KernelConfig& a, const KernelConfig& b);

} // namespace cachelens::cachedir
