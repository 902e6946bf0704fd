#include "hostile_entries.h"

#include "test_paths.h"

#include <QtGlobal>

#include <algorithm>
#include <filesystem>

namespace cachelens::test {

FixtureEntry fixture_entry(const std::string& key_dir) {
    const std::filesystem::path dir = fixture(key_dir);
    return {dir.filename().string(), read_bytes(std::filesystem::directory_iterator(dir)->path())};
}

std::size_t replace_line(std::string& content, std::size_t text_start, std::string_view needle,
                         std::string_view statement, std::size_t from) {
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

HostileWrapper wrapper_calling_os_system(const std::string& marker) {
    FixtureEntry entry = fixture_entry(kWrapperEntry);
    const auto source = entry.content.find("# AOT ID:");
    if (source == std::string::npos) {
        qFatal("the devset wrapper entry holds no wrapper module");
    }
    const auto line =
        replace_line(entry.content, source, "# kernel path: ", "os.system('touch " + marker + "')");
    return {std::move(entry), line};
}

} // namespace cachelens::test
