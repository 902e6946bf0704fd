#pragma once

// The verdicts of what a cache dir already holds (`cachelens verify DIR`, the
// GUI's Verify): every FX graph, AOTAutograd and dynamo profile pickle judged
// as an import would judge it (pickle policy and code audit), and every
// module (.py) and C++ source PyTorch would import or compile audited
// against Inductor's vocabulary (docs/SECURITY.md). Nothing is unpickled,
// imported or run.

#include <cachelens/bundle/import.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/core/progress.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::bundle {

struct FileVerdict {
    std::string path; // relative to the cache dir
    ArtifactCheck check;
};

// The verdict of one entry of a cache dir under `root`, as judge_cache_dir
// gives it; nullopt for a kind that holds neither a pickle nor source code
// (best_configs, Triton kernel dirs, locks...).
std::optional<ArtifactCheck> judge_entry(const std::filesystem::path& root,
                                         const cachedir::Entry& entry);

// The verdict of a file read on its own (cachedir::load_standalone_file):
// its pickles against the pickle policy, as judge_entry judges that kind.
ArtifactCheck judge_standalone_file(const cachedir::StandaloneFile& file);

// The C++ sources of a .pt2 archive's AOTInductor models (wrapper and kernel
// .cpp, and any other source member), audited as PyTorch's loader would
// compile them when the package has no .so; one FileVerdict per member, by
// member path. The .so itself is compiled code no audit reads.
std::vector<FileVerdict> judge_pt2_archive(const pt2::Archive& archive);

// One FileVerdict per pickle and source file of `scan`, sorted by path. A
// file that cannot be read is "unreadable" with the reason. `progress` hears
// the Checking stage (a file at a time); a stop is a Cancelled error.
Result<std::vector<FileVerdict>> judge_cache_dir(const cachedir::Scan& scan,
                                                 const ProgressFn& progress = {});

} // namespace cachelens::bundle
