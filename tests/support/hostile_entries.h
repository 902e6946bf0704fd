#pragma once

// Real cache entries made hostile in place, the way the import safety
// suites need them: one line of the code an entry carries (a wrapper
// module, a Triton kernel string, a GraphModule, C++) replaced by another
// statement, padded with spaces to the same length so that the pickle stays
// valid for PyTorch too. The entry still names only PyTorch's own globals.

#include "test_paths.h"

#include <QtGlobal>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

namespace cachelens::test {

// Replaces the line holding `needle` (searched from `from`, never before
// `text_start`) by `statement`, indented as the line was. Returns its
// 1-based line number within the text that starts at `text_start`.
inline std::size_t replace_line(std::string& content, std::size_t text_start,
                                std::string_view needle, std::string_view statement,
                                std::size_t from = 0) {
    const auto at = content.find(needle, std::max(from, text_start));
    if (at == std::string::npos) {
        qFatal("'%.*s' is not in the entry", int(needle.size()), needle.data());
    }
    const auto begin = content.rfind('\n', at) + 1;
    const auto end = content.find('\n', at);
    const auto indent = content.find_first_not_of(' ', begin) - begin;
    const std::string line = std::string(indent, ' ') + std::string(statement);
    if (line.size() > end - begin) {
        qFatal("'%s' is longer than the line it replaces", line.c_str());
    }
    content.replace(begin, end - begin, line + std::string(end - begin - line.size(), ' '));
    return static_cast<std::size_t>(std::count(content.begin() + static_cast<long>(text_start),
                                               content.begin() + static_cast<long>(begin), '\n')) +
           1;
}

// The devset forward graph's entry with the first "# kernel path: " line of
// its wrapper module (source_code, which PyTorch imports on a cache hit)
// replaced by `statement`; its one finding is the statement, at `line`.
struct HostileWrapper {
    std::string key;     // the FX graph key, as in the entry
    std::string content; // the entry file's bytes
    std::size_t line = 0;
};

inline HostileWrapper wrapperRunning(std::string_view statement) {
    const std::filesystem::path dir =
        fixture("devset/cache/fxgraph/lg/flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e");
    HostileWrapper hostile{dir.filename().string(),
                           read_bytes(std::filesystem::directory_iterator(dir)->path()), 0};
    const auto source = hostile.content.find("# AOT ID:");
    if (source == std::string::npos) {
        qFatal("the devset forward graph has no wrapper module");
    }
    hostile.line = replace_line(hostile.content, source, "# kernel path: ", statement);
    return hostile;
}

} // namespace cachelens::test
