// libFuzzer target: the reader of `cachelens bench` records (what the GUI
// reads from the child process it runs) on arbitrary bytes. Fed in chunks the
// first byte sizes, a stream must end in records, bad lines or one refusal;
// a record read must write again and read back as the same kind; an accept
// document must be accepted, a failure, a refusal or a bad line.

#include <cachelens/bench/bench_protocol.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::bench;
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    protocol::StreamReader reader;
    const std::size_t chunk = size == 0 ? 1 : 1 + data[0] % 64;
    std::size_t refusals = 0;
    const auto check = [&](const std::vector<protocol::StreamItem>& items) {
        for (const auto& item : items) {
            if (std::holds_alternative<protocol::Incompatible>(item)) {
                ++refusals;
            } else if (const auto* record = std::get_if<protocol::Record>(&item)) {
                const auto again = protocol::parse_line(protocol::to_line(*record));
                const auto* back = std::get_if<protocol::Record>(&again);
                if (back == nullptr || back->index() != record->index()) {
                    __builtin_trap(); // a record read does not survive its own writer
                }
            }
        }
    };
    for (std::size_t at = 0; at < size; at += chunk) {
        check(reader.feed(text.substr(at, chunk)));
    }
    check(reader.finish());
    if (refusals > 1) {
        __builtin_trap(); // a stream is refused once, then nothing more is read
    }
    (void)protocol::parse_accept_document(text);
    return 0;
}
