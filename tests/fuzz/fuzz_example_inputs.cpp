// libFuzzer target: example inputs as a cache key's debug lines give them,
// and their alignment. The bytes are two graphs' inputs, one value a line,
// the graphs separated by a line "---". Each value must read (Other at
// worst), and the alignment must account for every input once.

#include <cachelens/explain/example_inputs.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::explain;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<ExampleInput> sides[2];
    int side = 0;
    while (!text.empty()) {
        const auto end = text.find('\n');
        const auto line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        if (line == "---") {
            side = 1;
            continue;
        }
        sides[side].push_back(parse_example_input(line));
        (void)sides[side].back().describe();
    }
    std::vector<int> left(sides[0].size(), 0);
    std::vector<int> right(sides[1].size(), 0);
    for (const auto& pair : align_inputs(sides[0], sides[1])) {
        if (!pair.left && !pair.right) {
            __builtin_trap();
        }
        if (pair.left) {
            ++left.at(*pair.left);
        }
        if (pair.right) {
            ++right.at(*pair.right);
        }
    }
    for (const auto counts : {&left, &right}) {
        for (const int count : *counts) {
            if (count != 1) {
                __builtin_trap(); // every input once
            }
        }
    }
    return 0;
}
