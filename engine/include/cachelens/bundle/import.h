#pragma once

// Importing a mega-cache bundle into a cache dir: what PyTorch's
// CacheArtifact.populate_cache does on load_cache_artifacts(), without
// unpickling anything (formats.md §6):
//
//   inductor      fxgraph/<key[1:3]>/<key>/<sha256_hash(content)>
//   aot_autograd  aotautograd/<key>/<sha256_hash(content)>
//   autotune      <key>                       (key = "<xx>/<sha256 hex>.best_config")
//   pgo           dynamo/code_state_<key>.pkl (with <>:"/\|?* as "_", as PyTorch does)
//
// plan_import() decides, before anything is written, what happens to each
// artifact: written, already there (same bytes), a conflict (different bytes
// there), or refused, with the reasons: a key that would leave the cache dir
// or does not look like PyTorch's, a symlinked directory on the way, content
// that does not parse, a size over the limit (verdict "unreadable"), or
// findings (verdict "code with findings": a pickle doing what PyTorch's own
// entries never do, safety/pickle_policy.h, or code PyTorch would run outside
// Inductor's vocabulary, safety/code_audit.h) that the rules do not allow.
// run_import() then writes the planned files atomically through directory
// handles that never follow a symlink. docs/SECURITY.md has the threat model.

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/cachedir/keyed_cache.h>
#include <cachelens/cachedir/precompile.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>
#include <cachelens/safety/finding.h>
#include <cachelens/safety/verdict.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::bundle {

// What an import accepts: sizes, and code with findings the user allowed.
struct ImportRules {
    std::uint64_t max_artifact_bytes = std::uint64_t{1} << 30;
    safety::CodeTrust trust;
};

// What the bundle's bytes are, read without writing anything.
struct ArtifactCheck {
    std::string destination; // relative to the cache dir; empty when there is none
    std::string parses_to;   // "CompiledFxGraph: 3 Triton kernels, no guards", ...
    safety::Verdict verdict = safety::Verdict::Unreadable;
    // The code PyTorch would run from it, as audited: "source_code (wrapper
    // module, 84 lines)", "graph module 0 (31 lines)". Empty for data only.
    std::vector<std::string> code;
    // What unpickling would do outside the pickle policy, then what the code
    // does outside Inductor's vocabulary, in source order.
    std::vector<safety::Finding> findings;
    // Whether findings refuse it (Refused) or the rules let it in.
    safety::CodeConsent consent = safety::CodeConsent::NotNeeded;
    // False when a problem other than findings refuses it (a bad key, content
    // that does not parse): then no consent lets it in.
    bool readable = true;
    std::vector<std::string> problems; // each one refuses the artifact
};

ArtifactCheck check_artifact(std::string_view type, std::string_view key, std::string_view content,
                             const ImportRules& rules = {});

// A value file of torch/_inductor/cache.py's OnDiskCache (cachedir/keyed_cache.h)
// judged as an artifact would be: its pickle (after the version prefix)
// against the pickle policy's CacheValue schema. `path` names it.
ArtifactCheck check_keyed_cache_value(std::string_view file_bytes, std::string_view path);

// An InMemoryCache (a file or a variable's value) judged the same way: every
// key and value pickle against the CacheValue schema.
ArtifactCheck check_in_memory_cache(const cachedir::InMemoryCacheContents& cache);

// A precompiled function or DynamoCache entry judged as PyTorch would load
// it: every pickle in it (the file's, its guards', its backends') against
// the Precompile schema, every piece of code it runs audited (Dynamo's
// bytecode by the names it reaches, the Inductor modules and GraphModule
// code of its backends, its shape guards), every module it makes PyTorch
// import; what PyTorch would refuse on load (a missing backend, a module
// that does not hash to its name) is a problem. `destination` names it.
ArtifactCheck check_precompile(const cachedir::PrecompileFile& file, std::string destination);

enum class ImportAction {
    Write,          // planned
    AlreadyPresent, // the same bytes are there: left alone
    Conflict,       // different bytes (or not a regular file) there: left alone
    Refused,        // unsafe or unreadable: never written
    Written,        // run_import wrote it
    Failed,         // run_import could not write it (the message says why)
};
std::string_view to_string(ImportAction action);

struct PlannedArtifact {
    std::size_t section = 0; // MegaBundle::sections[section].artifacts[index]
    std::size_t index = 0;
    std::string type;
    std::string key;
    std::uint64_t size = 0;
    std::string sha256; // hex of the content
    ArtifactCheck check;
    ImportAction action = ImportAction::Write;
    std::vector<std::string> notes; // conflicts, failures: one line each
};

struct ImportPlan {
    std::filesystem::path cache_dir;
    bool creates_cache_dir = false;
    std::vector<PlannedArtifact> artifacts;
    // run_import was stopped (its ProgressFn): what it wrote is whole, the
    // rest is still Write.
    bool cancelled = false;

    std::size_t count(ImportAction action) const;
    // Nothing refused, conflicting or failed.
    bool clean() const;
};

// Errors only for the cache dir itself (not a directory, unreadable); every
// artifact's trouble is in its PlannedArtifact. `progress` hears the Checking
// stage (a file per artifact); a stop is a Cancelled error.
Result<ImportPlan> plan_import(const MegaBundle& bundle, const std::filesystem::path& cache_dir,
                               const ImportRules& rules = {}, const ProgressFn& progress = {});

// The ids in `rules.trust.allowed_ids` that no finding of the plan has, in
// order: a mistyped --allow-code must be an error, never "nothing allowed".
std::vector<std::string> unknown_finding_ids(const ImportPlan& plan, const ImportRules& rules);

// Writes what the plan marks Write and returns the plan with each of those
// now Written, AlreadyPresent (appeared meanwhile, same bytes), Conflict or
// Failed. The checks of the plan are repeated where the filesystem is
// touched: a directory swapped for a symlink since planning is refused.
// `progress` hears the Writing stage (the files to write); a stop leaves
// the rest unwritten and the plan `cancelled`.
ImportPlan run_import(ImportPlan plan, const MegaBundle& bundle, const ProgressFn& progress = {});

} // namespace cachelens::bundle
