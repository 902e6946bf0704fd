// libFuzzer target: TORCH_TRACE logs. Any bytes give a TraceLog or an Error,
// never a crash, and what comes back is consistent: events in line order, every
// compile's event, phase, kernel and profile indices in range and each in at
// most one compile, no phase of negative length; and the warm-start report of
// it (trace/warm_start.h) gives every layer no more time than its compile's.

#include <cachelens/trace/trace_log.h>
#include <cachelens/trace/warm_start.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::trace;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto log = parse_trace_log(text, "fuzz.log");
    if (!log) {
        return 0;
    }
    std::size_t previous_line = 0;
    for (const auto& event : log->events) {
        if (event.line <= previous_line || event.line > size) {
            __builtin_trap(); // one event a header line, in order
        }
        previous_line = event.line;
    }
    const auto check_owned = [&log](std::size_t size, auto member_of) {
        std::vector<bool> owned(size, false);
        for (const auto& record : log->compiles) {
            for (const std::size_t index : record.*member_of) {
                if (index >= owned.size() || owned[index]) {
                    __builtin_trap();
                }
                owned[index] = true;
            }
        }
    };
    check_owned(log->events.size(), &CompileRecord::events);
    check_owned(log->phases.size(), &CompileRecord::phases);
    check_owned(log->kernels.size(), &CompileRecord::kernels);
    check_owned(log->profiles.size(), &CompileRecord::profiles);
    for (const auto& phase : log->phases) {
        if (phase.duration_ns < 0 || phase.line == 0 || phase.line > size) {
            __builtin_trap();
        }
    }
    const auto report = warm_start_report(*log, {}, false);
    if (report.compiles.size() != log->compiles.size()) {
        __builtin_trap();
    }
    for (const auto& compile : report.compiles) {
        std::int64_t layers = 0;
        for (const auto& layer : compile.layers) {
            if (layer.time_ns && *layer.time_ns < 0) {
                __builtin_trap();
            }
            layers += layer.time_ns.value_or(0);
        }
        if (layers > compile.total_ns.value_or(0)) {
            __builtin_trap();
        }
    }
    const WarmStartReport reports[] = {report};
    (void)summarize(reports).line();
    if (log->warnings.size() > TraceLog::kMaxWarnings + 1) {
        __builtin_trap();
    }
    return 0;
}
