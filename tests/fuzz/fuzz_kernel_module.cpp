// libFuzzer target: the kernel module reader on arbitrary bytes. It must give
// a module (with problems) or an Error, never crash or hang, and what it
// reports must stay inside the text. The same bytes as a wrapper module: the
// calls it was traced from are identifiers of the text, each counted.

#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/kernel_module.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& call : cachedir::traced_calls(text)) {
        if (call.count < 1 || call.name.empty() || call.name.ends_with("_default") ||
            text.find(call.name) == std::string_view::npos) {
            __builtin_trap();
        }
    }
    auto module = cachedir::parse_kernel_module(text);
    if (!module) {
        return 0;
    }
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    for (const cachedir::KernelDefinition& kernel : module->kernels) {
        if (kernel.decorator_line == 0 || kernel.decorator_line > lines ||
            kernel.def_line > lines || kernel.harness.get_args_line > lines) {
            __builtin_trap(); // a line number outside the text
        }
    }
    return 0;
}
