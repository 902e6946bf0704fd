#pragma once

// A real FX graph entry made hostile the way tst_import_safety makes them:
// the devset forward graph's entry with the first "# kernel path: " line of
// its wrapper module (source_code, which PyTorch imports on a cache hit)
// replaced in place by `statement`, padded with spaces to the same length so
// that the pickle stays valid. It names only PyTorch's own globals; its one
// finding is the statement, at `line` of source_code.

#include "test_paths.h"

#include <QtGlobal>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

namespace cachelens::test {

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
    std::string& content = hostile.content;
    const auto source = content.find("# AOT ID:");
    const auto at = content.find("# kernel path: ", source);
    if (source == std::string::npos || at == std::string::npos) {
        qFatal("the devset forward graph has no wrapper module with a kernel path");
    }
    const auto begin = content.rfind('\n', at) + 1;
    const auto end = content.find('\n', at);
    const auto indent = content.find_first_not_of(' ', begin) - begin;
    const std::string line = std::string(indent, ' ') + std::string(statement);
    if (line.size() > end - begin) {
        qFatal("'%s' is longer than the line it replaces", line.c_str());
    }
    content.replace(begin, end - begin, line + std::string(end - begin - line.size(), ' '));
    hostile.line =
        static_cast<std::size_t>(std::count(content.begin() + static_cast<long>(source),
                                            content.begin() + static_cast<long>(begin), '\n')) +
        1;
    return hostile;
}

} // namespace cachelens::test
