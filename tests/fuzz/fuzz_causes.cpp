// libFuzzer target: why two keys differ (explain/causes.h), the nearest
// graph and its family (explain/nearest_keys.h, graph_code.h) and --sizes
// (explain/guard_symbols.h). The bytes are two keys' debug lines, one a line,
// separated by a line "---", then optionally a line "===" and a --sizes text.
// Every differing attribute must land in exactly one cause, a verdict must
// be said, and sizes that read must give every guard symbol a value.

#include <cachelens/cachedir/environment.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/graph_code.h>
#include <cachelens/explain/guard_symbols.h>
#include <cachelens/explain/nearest_keys.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::explain;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> sides[2];
    std::string_view sizes;
    int side = 0;
    while (!text.empty()) {
        const auto end = text.find('\n');
        const auto line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        if (line == "---") {
            side = 1;
            continue;
        }
        if (line == "===") {
            sizes = text;
            break;
        }
        sides[side].push_back(line);
    }
    // The environment either side was compiled for: read, never a crash.
    if (cachelens::cachedir::environment_of(sides[0]).describe().empty()) {
        __builtin_trap();
    }
    const auto diff = diff_keys(sides[0], sides[1]);
    const auto causes = explain_causes(sides[0], sides[1]);
    if (causes.verdict.empty() || causes.causes.empty() != diff.differences.empty()) {
        __builtin_trap();
    }
    std::vector<std::string> accounted;
    for (const auto& cause : causes.causes) {
        if (cause.text.empty()) {
            __builtin_trap();
        }
        accounted.insert(accounted.end(), cause.attributes.begin(), cause.attributes.end());
    }
    std::vector<std::string> differing;
    for (const auto& difference : diff.differences) {
        differing.push_back(difference.name);
    }
    std::ranges::sort(accounted);
    std::ranges::sort(differing);
    if (accounted != differing) {
        __builtin_trap(); // every differing line in exactly one cause
    }
    // The graph code read for what it computes, and its aligned diff.
    for (const auto& lines : sides) {
        const auto code = graph_code_of(lines);
        const auto shape = normalize_graph_code(code, true);
        const auto named = normalize_graph_code(code, false);
        if (shape.lines.size() != named.lines.size() || code_similarity(shape, shape) != 1.0) {
            __builtin_trap();
        }
    }
    (void)aligned_graph_code(graph_code_of(sides[0]), graph_code_of(sides[1]));
    const KeyCandidate other{"k1", "dir", "path", sides[1], nullptr};
    const auto found = nearest_graphs({sides[0], "k0", "dir", "self"}, {&other, 1}, 1);
    if (found.nearest.size() != 1 || found.searched != 1 ||
        found.first_compile == found.nearest.front().same_family) {
        __builtin_trap();
    }
    (void)why_answer(found, "k0", cachelens::cachedir::GraphRole::Unknown);
    const auto inputs = example_inputs_of(sides[1]);
    const auto symbols = guard_symbols(inputs);
    for (const auto& symbol : symbols) {
        (void)symbol.describe();
    }
    (void)free_sizes(inputs);
    if (auto hints = hints_from_sizes(inputs, sizes)) {
        for (const auto& symbol : symbols) {
            if (!hints->find(symbol.name)) {
                __builtin_trap();
            }
        }
    }
    return 0;
}
