#pragma once

// A cache-key debug line: `[<hash>] <attribute>: <value>` or
// `[<hash>] <attribute>[<subkey>]: <value>` (formats.md §2). The hash is the
// sha256_hash of that item's pickle, so two keys differ exactly where some
// line's hash differs.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

struct DebugLine {
    std::string_view text;      // the whole line
    std::string_view hash;      // empty when the line is not in the debug-line form
    std::string_view attribute; // "inductor_config", "example_inputs", "gm", ...
    std::string_view subkey;    // "benchmark_kernel", "0", ...; empty when none
    std::string_view value;     // may span several lines (gm)
    bool has_subkey = false;

    // What the line is about: "inductor_config[benchmark_kernel]", "gm".
    std::string name() const;
};

// Splits one line. A line that is not in the debug-line form keeps its text
// as the value and its whole text as the attribute, so nothing is dropped.
DebugLine parse_debug_line(std::string_view line);

std::vector<DebugLine> parse_debug_lines(std::span<const std::string_view> lines);

} // namespace cachelens::cachedir
