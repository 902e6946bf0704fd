#pragma once

// Hostile cache entries made from real ones (issue #17): a fixture entry with
// one line of the code PyTorch would run replaced in place, padded to the
// same length, so the pickle stays valid and names only PyTorch's globals.

#include <cstddef>
#include <string>
#include <string_view>

namespace cachelens::test {

// The devset FX graph entry whose wrapper module the hostile wrapper changes.
inline const std::string kWrapperEntry =
    "devset/cache/fxgraph/lg/flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e";

struct FixtureEntry {
    std::string key;     // the key dir's name
    std::string content; // the one entry file under it
};

// The one entry file under a fixture key dir (relative to the fixtures).
FixtureEntry fixture_entry(const std::string& key_dir);

// `content` with the line holding `needle` (searched from `from`) replaced
// by `statement`, indented as the line was and padded with spaces to the
// same length. Returns the 1-based line number within the text that starts
// at `text_start` (the source code inside the pickle).
std::size_t replace_line(std::string& content, std::size_t text_start, std::string_view needle,
                         std::string_view statement, std::size_t from = 0);

// The devset wrapper entry with a comment line turned into
// os.system('touch <marker>'), which PyTorch would run when it imports the
// module: `line` is where, in the entry's source_code.
struct HostileWrapper {
    FixtureEntry entry;
    std::size_t line = 0;
};
HostileWrapper wrapper_calling_os_system(const std::string& marker);

} // namespace cachelens::test
