#pragma once

// The debug-line ids of an FX entry as the catalog stores them
// (fx_debug_lines.line_ids): ascending, each once, as LEB128 varints of the
// gaps between them, the first from 0. Lines get ids as they are first seen,
// and the lines every entry shares (the Inductor config) are seen first, so
// the gaps are small: about a byte an id where 4-byte ids took four. The
// search reads every FX entry's ids for a word a debug line holds, so their
// size is its time.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::catalog {

inline std::string encode_line_ids(std::vector<std::uint32_t> ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::string out;
    out.reserve(ids.size() + ids.size() / 4);
    std::uint32_t previous = 0;
    for (std::uint32_t id : ids) {
        std::uint32_t gap = id - previous;
        previous = id;
        while (gap >= 0x80) {
            out += static_cast<char>((gap & 0x7f) | 0x80);
            gap >>= 7;
        }
        out += static_cast<char>(gap);
    }
    return out;
}

// Calls `on_id` with each id in order, stopping early when it returns true.
// False when the bytes are not such a list (a gap of more than 5 bytes, an
// id past 2^32, or a varint cut off): a damaged catalog, never a short read.
template <class OnId>
bool for_each_line_id(std::string_view blob, OnId&& on_id) {
    std::uint64_t id = 0;
    std::size_t at = 0;
    while (at < blob.size()) {
        std::uint64_t gap = 0;
        int shift = 0;
        while (true) {
            if (at == blob.size() || shift > 28) {
                return false;
            }
            const auto byte = static_cast<std::uint8_t>(blob[at++]);
            gap |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0) {
                break;
            }
            shift += 7;
        }
        id += gap;
        if (id > 0xffffffffu) {
            return false;
        }
        if (on_id(static_cast<std::uint32_t>(id))) {
            return true;
        }
    }
    return true;
}

} // namespace cachelens::catalog
