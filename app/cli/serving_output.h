#pragma once

// What `show`, `why` and `verify` print for a vLLM or SGLang tree
// (serving/piecewise.h does the work; these only present it).

#include <cachelens/serving/serving_tree.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cachelens::cli {

// `show ROOT HASH_DIR[/rank_.../PREFIX]`: the piecewise graphs of each prefix
// selected, as a table, then its factors.
int show_serving(const serving::ServingLocation& location, std::string_view selection, bool json);

// `why HASH_DIR [--against OTHER] [--tokens N]`.
int why_serving(const serving::ServingLocation& location, std::string_view against,
                std::optional<std::int64_t> tokens, bool json);

// `verify` of a tree or a dir in it.
int verify_serving(const serving::ServingLocation& location, bool json);

// The tree a path names or lies in; nullopt when it is in none.
std::optional<serving::ServingLocation> serving_location_of(const std::string& path);

// "vLLM compile cache: 2 cache dirs, ...": what `scan`, `ls` and `stats` say
// first of a dir in a vLLM or SGLang tree; nullopt for any other dir.
std::optional<std::string> serving_summary_of(const std::string& path);

} // namespace cachelens::cli
