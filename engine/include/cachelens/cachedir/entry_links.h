#pragma once

// Which entries of one cache dir use which, read from the dir itself: an FX
// entry's autotuners name their .best_configs (by the path recorded on the
// compiling machine) and their modules; a benchmark choice names a module; a
// module's Triton kernels name it in their PTX; a .best_config names its
// winner's Triton dir. The catalog stores the same links when it indexes an
// entry (catalog/entry_rows, behind prune's root graph) through these rules;
// the detail views follow them on disk, so they work on a dir not indexed.
//
// The lookups that read the disk take an optional cancel flag, set from
// another thread, and return what they found so far once it is set.

#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/benchmark_cache.h>
#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/progress.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

// ".../2c/1d47….best_config" -> "2c/1d47….best_config": where a file an
// autotuner recorded on the compiling machine sits in this cache dir.
std::string cache_relative_path(std::string_view recorded_path);

// The module key in a benchmark choice name ("triton_mm-c4xg…" -> "c4xg…"),
// or empty when the choice names none.
std::string module_key_of_choice(std::string_view choice);

// triton/<device>/<hash> (<hash> in a Triton cache), relative to the root,
// of a kernel dir read from it.
std::string triton_dir_path(const TritonKernelDir& dir);

// The Triton kernel dirs (triton/<device>/<hash>/) compiled from the module
// `module_key`, as their PTX names it, by device and hash. Only dirs holding
// a file named after one of `kernel_names` are read, so a large cache costs a
// directory listing. Dirs that cannot be read, and Triton's tmp.* dirs, are
// skipped.
std::vector<TritonKernelDir>
find_triton_dirs_of_module(const std::filesystem::path& root, const std::string& module_key,
                           const std::vector<std::string>& kernel_names,
                           const std::atomic<bool>* cancel = nullptr);

// The Triton dir <hash> of a Triton cache, or triton/<any device>/<hash>
// (the first device, by name, that has it), read; nullopt when none has it or it cannot be read,
// and for a name that is no kernel dir's (a path, a tmp.* dir).
std::optional<TritonKernelDir> find_triton_dir(const std::filesystem::path& root,
                                               const std::string& hash);

struct LocatedBestConfig {
    std::string path; // relative to the root
    BestConfig config;
};

// The .best_configs beside the module `module_key` (<xx>/*.best_config),
// by name, whose winner was compiled from it: their winner's Triton dir
// names the module, or (when that dir is gone) the module is the only one in
// its dir.
std::vector<LocatedBestConfig>
find_best_configs_of_module(const std::filesystem::path& root, const std::string& module_key,
                            const std::atomic<bool>* cancel = nullptr);

// The .best_configs an FX entry's autotuners recorded that are in this dir,
// by their path relative to the root; unreadable ones are left out.
std::map<std::string, BestConfig> read_best_configs_of(const std::filesystem::path& root,
                                                       const FxGraphEntry& fx,
                                                       const std::atomic<bool>* cancel = nullptr);

// A Triton kernel an FX entry's bundle carries (triton_artifacts), read as
// read_triton_kernel_dir() reads the dir it becomes: its files and sizes,
// metadata, PTX, kernel name and module. A payload that does not parse is
// left out.
TritonKernelDir bundled_triton_kernel(const TritonKernelArtifacts& artifacts);

// An AOTAutograd entry that runs an FX graph: as its forward or its
// backward graph.
struct AotUse {
    std::string key;  // the aotautograd key
    std::string path; // its entry, relative to the root
    GraphRole as = GraphRole::Unknown;
};

// The AOTAutograd entries of the dir whose forward or backward graph is
// `fx_key`, in path order: what an FX graph belongs to. Entries that cannot
// be read are skipped.
std::vector<AotUse> find_aot_entries_using(const std::filesystem::path& root,
                                           std::string_view fx_key,
                                           const std::atomic<bool>* cancel = nullptr);

// What each FX graph of a scanned dir is: its role and the AOTAutograd
// entries that run it (their keys, in path order). Reads every FX and
// AOTAutograd entry once; one that cannot be read is left out (an FX graph
// then has no facts). Reports Reading progress per entry; a stop asked
// through it is a Cancelled error.
struct GraphFacts {
    GraphRole role = GraphRole::Unknown;
    std::vector<std::string> aot_keys;
};
Result<std::map<std::string, GraphFacts>> read_graph_facts(const Scan& scan,
                                                           const ProgressFn& progress = {});

// Every benchmark cache of the dir (cache/<system hash>), by file name;
// unreadable ones and temporary files are skipped.
std::vector<BenchmarkCache> read_benchmark_caches(const std::filesystem::path& root);

} // namespace cachelens::cachedir
