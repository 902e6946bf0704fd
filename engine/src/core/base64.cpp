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

// Both write into a buffer sized up front: appending a byte at a time was a
// third of a Redis pull's CPU (docs/PERFORMANCE.md).
std::string base64_encode(std::string_view bytes) {
    std::string out((bytes.size() + 2) / 3 * 4, '\0');
    const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
    char* to = out.data();
    std::size_t at = 0;
    for (; at + 3 <= bytes.size(); at += 3, to += 4) {
        const std::uint32_t group =
            (std::uint32_t{in[at]} << 16) | (std::uint32_t{in[at + 1]} << 8) | in[at + 2];
        to[0] = kAlphabet[(group >> 18) & 63];
        to[1] = kAlphabet[(group >> 12) & 63];
        to[2] = kAlphabet[(group >> 6) & 63];
        to[3] = kAlphabet[group & 63];
    }
    const std::size_t left = bytes.size() - at;
    if (left > 0) {
        std::uint32_t group = std::uint32_t{in[at]} << 16;
        if (left == 2) {
            group |= std::uint32_t{in[at + 1]} << 8;
        }
        to[0] = kAlphabet[(group >> 18) & 63];
        to[1] = kAlphabet[(group >> 12) & 63];
        to[2] = left == 2 ? kAlphabet[(group >> 6) & 63] : '=';
        to[3] = '=';
    }
    return out;
}

Result<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return fail(ErrorKind::Corrupt, "base64 text of " + std::to_string(text.size()) +
                                            " characters: not a multiple of 4");
    }
    // '=' only ends the text: one or two of them. Anywhere else it is a bad
    // character like any other outside the alphabet.
    std::size_t padding = 0;
    if (!text.empty() && text.back() == '=') {
        padding = text[text.size() - 2] == '=' ? 2 : 1;
    }
    std::string out(text.size() / 4 * 3 - padding, '\0');
    const auto* in = reinterpret_cast<const unsigned char*>(text.data());
    char* to = out.data();
    const auto bad_character = [&](std::size_t group_at) -> Result<std::string> {
        std::size_t at = group_at;
        while (at < text.size() - padding && kDecode[in[at]] >= 0) {
            ++at;
        }
        return fail(ErrorKind::Corrupt, "base64: bad character at offset " + std::to_string(at));
    };
    const std::size_t full_groups = text.size() / 4 - (padding > 0 ? 1 : 0);
    for (std::size_t group_index = 0; group_index < full_groups; ++group_index, to += 3) {
        const std::size_t at = group_index * 4;
        const std::int32_t a = kDecode[in[at]];
        const std::int32_t b = kDecode[in[at + 1]];
        const std::int32_t c = kDecode[in[at + 2]];
        const std::int32_t d = kDecode[in[at + 3]];
        if ((a | b | c | d) < 0) {
            return bad_character(at);
        }
        const auto group = static_cast<std::uint32_t>((a << 18) | (b << 12) | (c << 6) | d);
        to[0] = static_cast<char>(group >> 16);
        to[1] = static_cast<char>((group >> 8) & 0xff);
        to[2] = static_cast<char>(group & 0xff);
    }
    if (padding > 0) {
        const std::size_t at = text.size() - 4;
        const std::int32_t a = kDecode[in[at]];
        const std::int32_t b = kDecode[in[at + 1]];
        const std::int32_t c = padding == 1 ? kDecode[in[at + 2]] : 0;
        if ((a | b | c) < 0) {
            return bad_character(at);
        }
        const auto group = static_cast<std::uint32_t>((a << 18) | (b << 12) | (c << 6));
        to[0] = static_cast<char>(group >> 16);
        if (padding == 1) {
            to[1] = static_cast<char>((group >> 8) & 0xff);
        }
    }
    return out;
}

} // namespace cachelens
