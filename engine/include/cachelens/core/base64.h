#pragma once

// Standard base64 (RFC 4648, with '=' padding), as Python's base64.b64encode
// writes it. Decoding is strict: a character outside the alphabet, bad
// padding or a wrong length is an error, never silently skipped.

#include <cachelens/core/error.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace cachelens {

std::string base64_encode(std::string_view bytes);
Result<std::string> base64_decode(std::string_view text);

// How many characters base64_encode writes for `size` bytes.
constexpr std::size_t base64_encoded_size(std::size_t size) {
    return (size + 2) / 3 * 4;
}

// base64_encode into `out`, which has room for base64_encoded_size(bytes.size())
// characters: for a value built in one buffer (a Redis value is ~1 MB).
void base64_encode_to(std::string_view bytes, char* out);

} // namespace cachelens
