// libFuzzer target: .pt2 archives (pt2/pt2_archive.h), read from the zip's
// central directory with minizip over bytes in memory. Any bytes give an
// Archive or an Error, never a crash, a hang or an allocation past the
// limits; an archive that reads must describe, check its crcs and have its
// C++ sources audited without crashing.

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/entry_description.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/pt2/pt2_archive.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens;
    const pt2::Limits limits{.max_members = 4096,
                             .max_member_size = std::uint64_t{1} << 24,
                             .max_read = std::uint64_t{1} << 22,
                             .max_ratio = 1000};
    auto archive = pt2::read_archive(
        MappedFile::from_bytes(std::string(reinterpret_cast<const char*>(data), size)), limits);
    if (!archive) {
        return 0;
    }
    cachedir::Entry entry;
    entry.kind = cachedir::FileKind::Pt2Archive;
    entry.path = "fuzz.pt2";
    entry.key = "fuzz.pt2";
    (void)cachedir::describe_entry(entry, cachedir::EntryContent(*archive));
    (void)pt2::check_member_crcs(*archive, {}, limits);
    (void)bundle::judge_pt2_archive(*archive);
    return 0;
}
