#pragma once

// Guards in the user's terms. An FX graph's guards read L['t0'], L['t1'],
// ...: PyTorch passes one value per backed SymInt among the graph's example
// inputs, in order (FxGraphCache._filter_backed_symints), so `t<i>` is the
// i-th SymInt input, and its expression (`s72`, `128*s72`) says which tensor
// dims carry it. From that, "would batch 48 hit?" is asked as `s72=48` or
// `input2.dim0=48`, and every t<i> follows.

#include <cachelens/core/error.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/guards/guard_expression.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

struct GuardSymbol {
    std::string name;       // "t0": what the guards read as L['t0']
    std::size_t input = 0;  // the SymInt example input it is
    std::string expression; // "s72", "128*s72"
    // The tensor dims of the same size: "input 2 dim 0 ([s72, 128] int64 on cuda:0)".
    std::vector<std::string> dims;

    // "t0 = s72 (input 0): input 2 dim 0 ([s72, 128] int64 on cuda:0)"
    std::string describe() const;
};

// The guard symbols of a graph whose example inputs are `inputs`; none for a
// static graph. Unbacked SymInts (u0: no hint) are not passed, so not named.
std::vector<GuardSymbol> guard_symbols(const std::vector<ExampleInput>& inputs);

// The sizes a user gives (the symbols the guard symbols' expressions use:
// s72, s27), each with the dims that carry it, in the order they appear.
struct FreeSize {
    std::string symbol;            // "s72"
    std::vector<std::string> dims; // "input 2 dim 0", as GuardSymbol::dims
};
std::vector<FreeSize> free_sizes(const std::vector<ExampleInput>& inputs);

// `--sizes "s72=48,input2.dim1=128"`: values for the graph's sizes, by symbol
// or by the dim that carries one, and from them every guard symbol's value
// (t1 = 128*s72 = 6144), as hints for the guards. Errors (exit 2 in the
// CLI) name the item and what the graph's sizes are: a symbol the graph does
// not have, a static or derived dim, two values for one size, a size left
// without a value, a value that is not an int.
Result<guards::Hints> hints_from_sizes(const std::vector<ExampleInput>& inputs,
                                       std::string_view sizes);

} // namespace cachelens::explain
