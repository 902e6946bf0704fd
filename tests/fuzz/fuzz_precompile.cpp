// libFuzzer target: Dynamo's precompiled functions and DynamoCache entries
// (cachedir/precompile.h). The input is split in two: its first two bytes
// (little endian) are the length of the main file, the rest after it the
// 2.9 `backends` file read beside a `dynamo` one (a length past the end:
// all of it is the main file, no backends). Any bytes give a PrecompileFile
// or an Error, never a crash; a file that reads must be judged as an import
// would judge it, preflighted against an empty fingerprint and described
// without crashing.

#include <cachelens/bundle/import.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/entry_description.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/precompile.h>
#include <cachelens/explain/preflight.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens;
    using namespace cachelens::cachedir;
    if (size < 2) {
        return 0;
    }
    const std::size_t length =
        static_cast<std::size_t>(data[0]) | (static_cast<std::size_t>(data[1]) << 8);
    const char* rest = reinterpret_cast<const char*>(data) + 2;
    const std::size_t main_size = std::min(length, size - 2);
    // Each part in its own allocation of its exact size, so reading past
    // either one is an ASan report, not a read of the other.
    auto main_part = std::make_shared<const std::vector<char>>(rest, rest + main_size);
    auto backends = std::make_shared<const std::vector<char>>(rest + main_size, rest + (size - 2));
    const std::string_view main_bytes(main_part->data(), main_part->size());
    const std::string_view backends_bytes(backends->data(), backends->size());
    auto keep =
        std::make_shared<std::pair<std::shared_ptr<const std::vector<char>>,
                                   std::shared_ptr<const std::vector<char>>>>(main_part, backends);

    (void)looks_like_precompile(main_bytes);
    auto file = read_precompile(main_bytes, keep, backends_bytes);
    if (!file) {
        return 0;
    }
    (void)bundle::check_precompile(*file, "dynamo/fuzz/entry");
    const auto preflight = explain::preflight_precompile(*file, Fingerprint{});
    (void)preflight.answer();
    Entry entry;
    entry.kind = FileKind::Precompile;
    entry.path = "dynamo/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    entry.key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    entry.size = main_bytes.size() + backends_bytes.size();
    const EntryContent content(std::move(*file));
    const auto description = describe_entry(entry, content);
    // Read every byte the description borrows (its views into the file's
    // bytes and pickles), so a view that outlived them is an ASan report.
    std::size_t sum = 0;
    std::vector<const Field*> pending;
    for (const auto& field : description.fields) {
        pending.push_back(&field);
    }
    while (!pending.empty()) {
        const Field* field = pending.back();
        pending.pop_back();
        for (const char c : field->value_text()) {
            sum += static_cast<unsigned char>(c);
        }
        sum += field->text.size() + field->label.size() + field->brief.size();
        for (const auto& child : field->children) {
            pending.push_back(&child);
        }
    }
    volatile std::size_t sink = sum;
    (void)sink;
    return 0;
}
