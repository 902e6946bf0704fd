#pragma once

// Standard base64 (RFC 4648, with '=' padding), as Python's base64.b64encode
// writes it. Decoding is strict: a character outside the alphabet, bad
// padding or a wrong length is an error, never silently skipped.

#include <cachelens/core/error.h>

#include <string>
#include <string_view>

namespace cachelens {

std::string base64_encode(std::string_view bytes);
Result<std::string> base64_decode(std::string_view text);

} // namespace cachelens
