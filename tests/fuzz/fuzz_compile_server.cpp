// libFuzzer target: the reader of the compile server's answers (what the
// user's Python prints back to `cachelens tune`), on arbitrary bytes split
// into lines. A line is not ours, an answer, or a reason; an answer of a
// kind that names a config has its id, a compiled one an absolute dir.

#include <cachelens/bench/compile_server.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::bench;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    while (!text.empty()) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        const auto parsed = parse_compile_reply(text.substr(0, end));
        if (const auto* reply = std::get_if<CompileReply>(&parsed)) {
            if (reply->kind == CompileReply::Kind::Compiled &&
                (reply->triton_dir.empty() || reply->triton_dir.front() != '/')) {
                __builtin_trap(); // a compiled answer names a dir it made, absolute
            }
            if (reply->kind == CompileReply::Kind::Ready &&
                (reply->workers == 0 || reply->workers > 4096)) {
                __builtin_trap();
            }
            if (reply->seconds < 0) {
                __builtin_trap();
            }
        } else if (const auto* why = std::get_if<std::string>(&parsed)) {
            if (why->empty()) {
                __builtin_trap(); // a refused line says why
            }
        }
        text.remove_prefix(std::min(end + 1, text.size()));
    }
    return 0;
}
