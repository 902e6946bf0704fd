#pragma once

// cache_key_factors.json: what vLLM (>= 0.12, PR #26468) records in each
// prefix dir of the factors its cache dir's name was hashed from. The first
// run to create the dir writes it (json.dump(..., indent=2, sort_keys=True)):
//   {"code_hash": 64 hex, "compiler_hash": 10 hex, "config_hash": 10 hex,
//    "env": {VAR: value, ...}}
// Newer keys ("config", "compiler", "code", ...) are kept as extras, never
// refused. The dir name is sha256(str([sha256(json.dumps(env,
// sort_keys=True)), config_hash, code_hash, compiler_hash]))[:10], which
// recompute_hash_dir_name() redoes; older vLLM (md5 over factors it did not
// record) cannot be checked this way.

#include <cachelens/core/error.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::serving {

struct CacheKeyFactors {
    // Each env factor with its value as Python's json.dumps writes it
    // ("\"FLASH_ATTN\"", "200", "null", "[1, 2]"), sorted by name.
    std::vector<std::pair<std::string, std::string>> env;
    std::string config_hash;
    std::string code_hash;
    std::string compiler_hash;
    // Top-level keys vLLM added later, each with its value as JSON text.
    std::vector<std::pair<std::string, std::string>> extras;
    // sha256 of json.dumps(env, sort_keys=True), as vLLM hashes it; empty when
    // a value cannot be written back as Python would (an int beyond 64 bits).
    std::string env_hash;

    // The env value for `name`, or nullopt when vLLM did not record it.
    std::optional<std::string_view> env_value(std::string_view name) const;
};

// Errors say which key is missing or of the wrong type.
Result<CacheKeyFactors> parse_cache_key_factors(std::string_view json_text);

// The cache dir name vLLM derives from these factors (10 hex), or nullopt
// when it cannot be redone (env_hash empty).
std::optional<std::string> recompute_hash_dir_name(const CacheKeyFactors& factors);

inline constexpr std::string_view kFactorsFileName = "cache_key_factors.json";

} // namespace cachelens::serving
