#pragma once

// What PyTorch would do on a cache lookup (GuardedCache.find_guarded_entry):
// list the key dir, try its files in sorted() order, and take the first
// whose guards_expr is empty or true for the current symint hints. "Would this
// shape hit?" without PyTorch.

#include <cachelens/core/error.h>
#include <cachelens/guards/guard_expression.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

enum class LookupStatus { Hit, GuardMiss, FullMiss };

std::string_view to_string(LookupStatus status);

struct TriedEntry {
    std::string file;                       // the entry's file name in the key dir
    std::optional<std::string> guards_expr; // none: the entry always matches
    bool hit = false;
    std::optional<guards::Evaluation> evaluation; // per clause; none when there are no guards
    std::string error; // why the entry could not be used (unreadable, bad guards, missing hint)
};

struct LookupResult {
    std::string key;
    std::string key_dir; // relative to the cache dir
    LookupStatus status = LookupStatus::FullMiss;
    std::optional<std::string> hit; // the file PyTorch would load
    std::vector<TriedEntry> tried;  // in the order PyTorch tries them, up to the hit
    bool key_dir_empty = false;     // a full miss on a key dir that is there, without entries
};

// `key` is an fxgraph ("f...") or aotautograd ("a...") key. Fails only when
// `root` is not a cache dir; a missing key is a full miss.
Result<LookupResult> simulate_lookup(const std::filesystem::path& root, std::string_view key,
                                     const guards::Hints& hints);

} // namespace cachelens::explain
