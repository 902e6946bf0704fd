#pragma once

// The u64 big-endian integers of PyTorch's bundle format and of the signed
// container around it. Private to engine/src/bundle.

#include <cstdint>
#include <string>
#include <string_view>

namespace cachelens::bundle {

// The caller has checked that 8 bytes are there.
inline std::uint64_t read_u64(std::string_view bytes, std::size_t at) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        value = (value << 8) | static_cast<std::uint8_t>(bytes[at + i]);
    }
    return value;
}

inline void put_u64(std::string& out, std::uint64_t value) {
    for (int shift = 56; shift >= 0; shift -= 8) {
        out += static_cast<char>((value >> shift) & 0xff);
    }
}

} // namespace cachelens::bundle
