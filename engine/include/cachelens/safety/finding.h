#pragma once

// A finding: one thing in a cache artifact that PyTorch would run, or that a
// pickle would call, outside what PyTorch and Inductor themselves generate.
// Both halves of the import safety check report them: the pickle policy
// (pickle_policy.h: what unpickling an entry calls) and the code audit
// (code_audit.h: the Python and C++ PyTorch imports, execs or compiles on a
// cache hit). docs/SECURITY.md says what is checked and why.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::safety {

struct Finding {
    // Stable across runs for the same artifact bytes ("F" + 12 hex digits of a
    // hash of rule, file, line and text): what `--allow-code ID` names.
    std::string id;
    // What was broken, short and fixed: "pickle-call", "foreign-import",
    // "call-outside-vocabulary", "dynamic-code", "dunder-attribute",
    // "computed-getattr", "cpp-call", "cpp-include", "inline-asm", ...
    std::string rule;
    // Where, inside the artifact: "source_code", "kernel triton_poi_fused_0",
    // "graph module forward", "pickle", a cache dir file's relative path.
    std::string file;
    // 1-based line in `file`; 0 for a pickle (there are no lines).
    std::size_t line = 0;
    // The line as written (or the pickle's global and how it is used), as
    // data: shown escaped, never interpreted.
    std::string text;
    // One plain sentence: why this is a finding.
    std::string why;
};

// Builds a Finding with its id computed from the other fields.
Finding make_finding(std::string rule, std::string file, std::size_t line, std::string text,
                     std::string why);

// Drops repeats (the same id: the same rule on the same line and text, as
// two checks may both see one call), keeping the order.
void drop_repeated(std::vector<Finding>& findings);

// "source_code:12", or "pickle" for a finding without a line.
std::string location(const Finding& finding);

} // namespace cachelens::safety
