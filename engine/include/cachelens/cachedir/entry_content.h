#pragma once

// Loading any entry of a scan into its typed form, so that `show`, `scan`,
// `verify` and the GUI all parse a file the same way.

#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/benchmark_cache.h>
#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/compile_outputs.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/cachedir/keyed_cache.h>
#include <cachelens/cachedir/precompile.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/pickle/value.h>
#include <cachelens/pt2/pt2_archive.h>

#include <filesystem>
#include <memory>
#include <variant>

namespace cachelens::cachedir {

// A generated module: its text and what was parsed from it.
struct ModuleSource {
    std::shared_ptr<const MappedFile> file;
    KernelModule module;
    std::string_view text() const { return file->bytes(); }
};

// C++ kernels of a CPU graph.
struct CppSource {
    std::shared_ptr<const MappedFile> file;
    std::string_view text() const { return file->bytes(); }
};

// dynamo/code_state_*.pkl: automatic-dynamic-shapes state, shown as a tree.
struct DynamoProfile {
    std::shared_ptr<const pickle::Document> document;
};

// A file we only count: compiled libraries, locks, temp files, unknown files.
struct OpaqueFile {
    std::uint64_t size = 0;
};

using EntryContent =
    std::variant<FxGraphEntry, AotAutogradEntry, ModuleSource, CppSource, BestConfig, KernelPerf,
                 BenchmarkCache, TritonKernelDir, TritonAutotuneResult, DynamoProfile,
                 KeyedCacheValue, InMemoryCacheContents, pt2::Archive, AotiOutputDir, CompanionFile,
                 TextFile, PrecompileFile, OpaqueFile>;

// Reads and parses `entry` of the cache dir `root`. Errors name the file.
Result<EntryContent> load_entry(const std::filesystem::path& root, const Entry& entry);

// A file read on its own, outside any cache dir (`cachelens show FILE`, the
// GUI's File > Open file): an entry record made for it and what it holds.
struct StandaloneFile {
    Entry entry; // its path is the file's as given
    EntryContent content;
};

// What `path` is, from its bytes: a .pt2 archive (a zip), an OnDiskCache
// value (a known version prefix), an InMemoryCache file (a pickled dict).
// Anything else is an error naming the file and saying what it is not.
Result<StandaloneFile> load_standalone_file(const std::filesystem::path& path);

// An InMemoryCache as from_env_var reads the value of `var`; `source` names
// where the value came from ("$VAR", or the file it was read from).
Result<StandaloneFile> load_in_memory_cache_env(std::string_view value, std::string_view var,
                                                std::string source);

} // namespace cachelens::cachedir
