// libFuzzer target: TORCH_TRACE logs. Any bytes give a TraceLog or an Error,
// never a crash, and what comes back is consistent: events in line order, every
// compile's event, phase, kernel and profile indices in range and each in at
// most one compile, no phase of negative length; and the warm-start report of
// it (trace/warm_start.h) gives every layer no more time than its compile's.
// The same bytes fed to a TraceLogFollower in pieces that end anywhere give
// the same events, a prefix of them before the log settles.

#include <cachelens/trace/trace_log.h>
#include <cachelens/trace/warm_start.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::trace;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto log = parse_trace_log(text, "fuzz.log");
    TraceLogFollower follower("fuzz.log");
    std::size_t seen = 0;
    std::size_t next_look = size / 8; // a snapshot costs a copy: eight looks, not one a piece
    for (std::size_t at = 0, piece = 1; at < size; piece = piece * 7 % 61 + 1) {
        const std::size_t take = std::min(piece, size - at);
        follower.feed(text.substr(at, take));
        at += take;
        if (at < next_look) {
            continue;
        }
        next_look += size / 8 + 1;
        if (const auto partial = follower.snapshot(false)) {
            if (!log || partial->events.size() < seen ||
                partial->events.size() > log->events.size()) {
                __builtin_trap(); // a prefix of the whole read, growing
            }
            seen = partial->events.size();
        }
    }
    const auto followed = follower.snapshot(true);
    if (followed.has_value() != log.has_value()) {
        __builtin_trap();
    }
    if (!log) {
        return 0;
    }
    if (followed->events.size() != log->events.size() ||
        followed->compiles.size() != log->compiles.size() || followed->warnings != log->warnings) {
        __builtin_trap();
    }
    for (std::size_t i = 0; i < log->events.size(); ++i) {
        const auto& a = followed->events[i];
        const auto& b = log->events[i];
        if (a.line != b.line || a.key != b.key || a.status != b.status ||
            a.components != b.components || a.compile_id != b.compile_id) {
            __builtin_trap();
        }
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
