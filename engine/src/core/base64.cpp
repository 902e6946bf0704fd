#include <cachelens/core/base64.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>

namespace cachelens {

namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The two characters of every 12-bit value: one lookup writes half a group,
// which halves the lookups of a character-at-a-time loop.
constexpr std::array<std::array<char, 2>, 4096> pair_table() {
    std::array<std::array<char, 2>, 4096> table{};
    for (std::size_t i = 0; i < table.size(); ++i) {
        table[i] = {kAlphabet[i >> 6], kAlphabet[i & 63]};
    }
    return table;
}

constexpr auto kPairs = pair_table();

// A character's 6 bits already shifted to its place in the 24-bit group
// (shift 18, 12, 6 or 0), so that a group is four lookups ORed together. A
// character outside the alphabet sets bits above the 24, which the OR keeps:
// one test per group finds any of them.
constexpr std::uint32_t kNotInAlphabet = 0xff000000;

constexpr std::array<std::uint32_t, 256> decode_table(int shift) {
    std::array<std::uint32_t, 256> table{};
    table.fill(kNotInAlphabet);
    for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
        table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint32_t>(i) << shift;
    }
    return table;
}

constexpr auto kDecode0 = decode_table(18);
constexpr auto kDecode1 = decode_table(12);
constexpr auto kDecode2 = decode_table(6);
constexpr auto kDecode3 = decode_table(0);

std::uint64_t load_big_endian_64(const unsigned char* at) {
    std::uint64_t word = 0;
    std::memcpy(&word, at, sizeof word);
    if constexpr (std::endian::native == std::endian::little) {
        word = std::byteswap(word);
    }
    return word;
}

void put_pair(char* to, std::uint32_t twelve_bits) {
    std::memcpy(to, kPairs[twelve_bits].data(), 2);
}

// The 3 bytes of a decoded group as one 4-byte store; the 4th byte written
// is garbage that the next group (or the tail) overwrites.
void put_group_wide(char* to, std::uint32_t group) {
    std::uint32_t word = group << 8;
    if constexpr (std::endian::native == std::endian::little) {
        word = std::byteswap(word);
    }
    std::memcpy(to, &word, sizeof word);
}

void put_group(char* to, std::uint32_t group) {
    to[0] = static_cast<char>(group >> 16);
    to[1] = static_cast<char>((group >> 8) & 0xff);
    to[2] = static_cast<char>(group & 0xff);
}

std::uint32_t decode_group(const unsigned char* at) {
    return kDecode0[at[0]] | kDecode1[at[1]] | kDecode2[at[2]] | kDecode3[at[3]];
}

} // namespace

void base64_encode_to(std::string_view bytes, char* to) {
    const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::size_t size = bytes.size();
    std::size_t at = 0;
    // Six bytes (two groups) from one 8-byte load while 8 bytes are left.
    for (; at + 8 <= size; at += 6, to += 8) {
        const std::uint64_t word = load_big_endian_64(in + at);
        put_pair(to, static_cast<std::uint32_t>(word >> 52) & 0xfff);
        put_pair(to + 2, static_cast<std::uint32_t>(word >> 40) & 0xfff);
        put_pair(to + 4, static_cast<std::uint32_t>(word >> 28) & 0xfff);
        put_pair(to + 6, static_cast<std::uint32_t>(word >> 16) & 0xfff);
    }
    for (; at + 3 <= size; at += 3, to += 4) {
        const std::uint32_t group =
            (std::uint32_t{in[at]} << 16) | (std::uint32_t{in[at + 1]} << 8) | in[at + 2];
        put_pair(to, group >> 12);
        put_pair(to + 2, group & 0xfff);
    }
    const std::size_t left = size - at;
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
}

// Both write into a buffer sized up front and never zero-filled: appending a
// byte at a time was a third of a Redis pull's CPU, the zero fill and the
// copies after it most of the rest (docs/PERFORMANCE.md).
std::string base64_encode(std::string_view bytes) {
    // The size is the one asked for, not the callback's second argument:
    // libstdc++ 12 passes the capacity there.
    const std::size_t size = base64_encoded_size(bytes.size());
    std::string out;
    out.resize_and_overwrite(size, [&](char* to, std::size_t) {
        base64_encode_to(bytes, to);
        return size;
    });
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
    const auto* in = reinterpret_cast<const unsigned char*>(text.data());
    // The offset of the first character outside the alphabet at or after
    // `group_at`, in the text before the padding.
    const auto bad_character = [&](std::size_t group_at) -> Result<std::string> {
        std::size_t at = group_at;
        while (at < text.size() - padding && kDecode3[in[at]] != kNotInAlphabet) {
            ++at;
        }
        return fail(ErrorKind::Corrupt, "base64: bad character at offset " + std::to_string(at));
    };
    const std::size_t out_size = text.size() / 4 * 3 - padding;
    const std::size_t full_groups = text.size() / 4 - (padding > 0 ? 1 : 0);
    std::string out;
    std::optional<std::size_t> bad_group_at;
    out.resize_and_overwrite(out_size, [&](char* to, std::size_t) {
        const std::size_t size = out_size; // not the argument (base64_encode)
        std::size_t group_index = 0;
        // A 4-byte store while the output has room for it.
        for (; group_index < full_groups && group_index * 3 + 4 <= size; ++group_index) {
            const std::uint32_t group = decode_group(in + group_index * 4);
            if (group >= (std::uint32_t{1} << 24)) {
                bad_group_at = group_index * 4;
                return std::size_t{0};
            }
            put_group_wide(to + group_index * 3, group);
        }
        for (; group_index < full_groups; ++group_index) {
            const std::uint32_t group = decode_group(in + group_index * 4);
            if (group >= (std::uint32_t{1} << 24)) {
                bad_group_at = group_index * 4;
                return std::size_t{0};
            }
            put_group(to + group_index * 3, group);
        }
        if (padding > 0) {
            const std::size_t at = text.size() - 4;
            const std::uint32_t group =
                kDecode0[in[at]] | kDecode1[in[at + 1]] | (padding == 1 ? kDecode2[in[at + 2]] : 0);
            if (group >= (std::uint32_t{1} << 24)) {
                bad_group_at = at;
                return std::size_t{0};
            }
            char* tail = to + full_groups * 3;
            tail[0] = static_cast<char>(group >> 16);
            if (padding == 1) {
                tail[1] = static_cast<char>((group >> 8) & 0xff);
            }
        }
        return size;
    });
    if (bad_group_at) {
        return bad_character(*bad_group_at);
    }
    return out;
}

} // namespace cachelens
