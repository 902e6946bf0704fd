// libFuzzer target: the kernel module reader on arbitrary bytes. It must give
// a module (with problems) or an Error, never crash or hang, and what it
// reports must stay inside the text. The same bytes as a wrapper module: the
// calls it was traced from are identifiers of the text, each counted; what
// an entry without debug lines is compared by (explain/entry_facts.h) is
// lines in the debug-line form, read from the text alone.

#include <cachelens/cachedir/debug_line.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/core/text.h>
#include <cachelens/explain/entry_facts.h>
#include <cachelens/pickle/unpickler.h>

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
    if (is_valid_utf8(text)) {
        // An entry of no fields but this wrapper: an empty dict pickled.
        static const auto empty = pickle::unpickle(std::string_view("\x80\x04}\x94.", 5));
        cachedir::FxGraphEntry entry;
        entry.document = *empty;
        entry.source_code = text;
        for (const auto& line : explain::recorded_key_facts(entry)) {
            const auto parsed = cachedir::parse_debug_line(line);
            if (parsed.hash.empty() || parsed.attribute.empty()) {
                __builtin_trap(); // every line is in the debug-line form
            }
        }
    }
    auto module = cachedir::parse_kernel_module(text);
    if (!module) {
        return 0;
    }
    for (const auto& name : module->kernel_names()) {
        if (name.empty() || text.find(name) == std::string_view::npos) {
            __builtin_trap(); // a kernel's name is in its module
        }
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
