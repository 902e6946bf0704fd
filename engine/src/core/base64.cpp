#include <cachelens/core/base64.h>

#include <array>
#include <cstdint>

namespace cachelens {

namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> decode_table() {
    std::array<std::int8_t, 256> table{};
    table.fill(-1);
    for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
        table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
    }
    return table;
}

constexpr auto kDecode = decode_table();

} // namespace

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t at = 0;
    for (; at + 3 <= bytes.size(); at += 3) {
        const std::uint32_t group = (static_cast<std::uint8_t>(bytes[at]) << 16) |
                                    (static_cast<std::uint8_t>(bytes[at + 1]) << 8) |
                                    static_cast<std::uint8_t>(bytes[at + 2]);
        out += kAlphabet[(group >> 18) & 63];
        out += kAlphabet[(group >> 12) & 63];
        out += kAlphabet[(group >> 6) & 63];
        out += kAlphabet[group & 63];
    }
    const std::size_t left = bytes.size() - at;
    if (left > 0) {
        std::uint32_t group = static_cast<std::uint8_t>(bytes[at]) << 16;
        if (left == 2) {
            group |= static_cast<std::uint8_t>(bytes[at + 1]) << 8;
        }
        out += kAlphabet[(group >> 18) & 63];
        out += kAlphabet[(group >> 12) & 63];
        out += left == 2 ? kAlphabet[(group >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

Result<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return fail(ErrorKind::Corrupt, "base64 text of " + std::to_string(text.size()) +
                                            " characters: not a multiple of 4");
    }
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t at = 0; at < text.size(); at += 4) {
        const bool last = at + 4 == text.size();
        std::size_t padding = 0;
        std::uint32_t group = 0;
        for (std::size_t i = 0; i < 4; ++i) {
            const char c = text[at + i];
            if (c == '=' && last && i >= 2) {
                ++padding;
                group <<= 6;
                continue;
            }
            const std::int8_t value = kDecode[static_cast<unsigned char>(c)];
            if (value < 0 || padding > 0) {
                return fail(ErrorKind::Corrupt,
                            "base64: bad character at offset " + std::to_string(at + i));
            }
            group = (group << 6) | static_cast<std::uint32_t>(value);
        }
        out += static_cast<char>((group >> 16) & 0xff);
        if (padding < 2) {
            out += static_cast<char>((group >> 8) & 0xff);
        }
        if (padding < 1) {
            out += static_cast<char>(group & 0xff);
        }
    }
    return out;
}

} // namespace cachelens
