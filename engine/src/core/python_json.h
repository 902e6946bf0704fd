#pragma once

// Python's json.dumps() with its defaults: ", " and ": " separators,
// ensure_ascii, floats as repr(), NaN/Infinity allowed. What PyTorch writes
// for best_configs and remote-cache values, so cachelens can write the same
// bytes. Private to the engine: nlohmann::json is not in its public API.

#include <nlohmann/json.hpp>

#include <string>

namespace cachelens {

std::string python_json_dumps(const nlohmann::ordered_json& value);

} // namespace cachelens
