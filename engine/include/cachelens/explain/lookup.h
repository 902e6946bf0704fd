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
    // The file does not load: PyTorch logs "unable to load compiled graph"
    // and skips it (GuardedCache.iterate_over_candidates); `error` says why.
    bool unreadable = false;
};

struct LookupResult {
    std::string key;
    std::string key_dir; // relative to the cache dir
    // Hit; else GuardMiss when an entry loaded and its guards did not pass;
    // else (no entries, or none that loads) FullMiss, as PyTorch reports it.
    LookupStatus status = LookupStatus::FullMiss;
    std::optional<std::string> hit; // the file PyTorch would load
    std::vector<TriedEntry> tried;  // in the order PyTorch tries them, up to the hit
    // What the guards of each entry that loads read (all of the key's
    // entries, also those after the hit): what hints are checked against.
    std::vector<std::vector<std::string>> symbols_read;

    bool any_unreadable() const;
    bool key_dir_empty = false; // a full miss on a key dir that is there, without entries
};

// `key` is an fxgraph ("f...") or aotautograd ("a...") key. Fails only when
// `root` is not a cache dir; a missing key is a full miss. Hints are not
// checked here: check_hints() below says whether they fit.
Result<LookupResult> simulate_lookup(const std::filesystem::path& root, std::string_view key,
                                     const guards::Hints& hints);

// Whether `hints` are values for exactly the symbols the key's guards read
// (guards::check_hints over every entry that loads); any hints fit a key with
// no entry that loads.
Result<void> check_hints(const LookupResult& lookup, const guards::Hints& hints);

} // namespace cachelens::explain
