#pragma once

// Python's json.dumps() with its defaults: ", " and ": " separators,
// ensure_ascii, floats as repr(), NaN/Infinity allowed. What PyTorch writes
// for best_configs and remote-cache values, so cachelens can write the same
// bytes. Private to the engine: nlohmann::json is not in its public API.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace cachelens {

std::string python_json_dumps(const nlohmann::ordered_json& value);

// What json.loads() reads: JSON plus the NaN, Infinity and -Infinity that
// json.dumps() writes for floats that are not finite (a benchmark choice
// that failed times Infinity). Infinities come back as floats, NaN as null.
// Discarded when the text is not that.
nlohmann::ordered_json python_json_loads(std::string_view text);

} // namespace cachelens
