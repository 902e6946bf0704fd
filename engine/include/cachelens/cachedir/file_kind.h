#pragma once

// What each file in an Inductor cache dir, or in Triton's own cache dir
// ($TRITON_CACHE_DIR, ~/.triton/cache: formats.md §9), is, from its place and
// name alone (formats.md §1). Parsing comes later and may still find a file
// corrupt.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cachelens::cachedir {

enum class FileKind {
    FxGraph,           // fxgraph/<key[1:3]>/<key>/<sha256_hash(bytes)>
    AotAutograd,       // aotautograd/<key>/<sha256_hash(bytes)>
    Module,            // <xx>/c<hash>.py: a wrapper or a Triton kernel module
    CppSource,         // <xx>/c<hash>.cpp, .main.cpp: CPU kernels
    SharedLibrary,     // <xx>/c<hash>.so, .main.so; Triton's launchers <TRITON HASH>/*.so
    BestConfig,        // <xx>/<sha256 hex>.best_config (2.7: at the root too)
    KernelPerf,        // <xx>/c<hash>.kernel_perf
    BenchmarkCache,    // cache/<system hash>
    Triton,            // triton/<device>/<TRITON HASH>/<file>: one compiled kernel
    TritonAutotune,    // <TRITON HASH>/<fn>.autotune.json: triton.autotune's cached timings
    DynamoProfile,     // dynamo/code_state_*.pkl: automatic dynamic shapes (PGO)
    Precompile,        // dynamo/<sha256 hex>/entry (2.9: dynamo, backends): a DynamoCache
                       // entry; torch_aot_compile/<hash>/rank_*/model (vLLM) and on its own:
                       // a save_compiled_function file (precompile.h)
    KeyedCacheValue,   // cache/<name>/<32 hex>: an OnDiskCache value (torch/_inductor/cache.py,
                       // runtime/caching): 4-byte version prefix + pickle (keyed_cache.h)
    Pt2Archive,        // a .pt2: an AOTInductor package or an exported program (pt2/pt2_archive.h)
    AotiOutput,        // c<hash>/...: the dir AOTInductor compiles a model into (aoti_output.h);
                       // aoti_eager/...: AOTInductor's eager kernels
    KernelBinary,      // <xx>/c<hash>.cubin (.hsaco, .zebin, .spv, .fatbin): a GPU kernel the
                       // C++ wrapper loads (CudaKernelParamCache)
    ObjectFile,        // <xx>/c<hash>.o, .main.o, .optimized.o: a C++ or CUDA object file
    PrecompiledHeader, // precompiled_headers/*.h.gch, .h.pch: what C++ kernels -include
    Text,              // <xx>/*.txt metric tables, *.error compile errors, autoheuristic and
                       // bisector state, the caching module's dumps, CUTLASS op configs
    DebugCopy,         // <xx>/c<hash>.debug/...: TORCH_COMPILE_DEBUG's copy of a compile;
                       // torch_compile_debug/run_*/...: its dumps of a process's compiles
    Halide,            // <xx>/c<hash>.halide/..., halide-runtime-*/...: Halide kernels, runtime
    InMemoryCache,     // never in a dir: a file of torch/_inductor/cache.py's
                       // InMemoryCache.from_file_path, or its from_env_var form (keyed_cache.h)
    ServingIndex,      // vLLM's vllm_compile_cache.py, SGLang's sglang_compile_cache.py: the
                       // piecewise graphs' handles (serving/compile_index.h)
    ServingFactors,    // vLLM's cache_key_factors.json (serving/cache_factors.h)
    ServingGraph,      // vLLM's and SGLang's computation_graph*.py, transformed_code.py: the
                       // split graph written for people, never loaded
    CompiledArtifact,  // artifact_shape_*, artifact_compile_range_*: a standalone-compile
                       // CompiledArtifact.save(format="binary") file (bundle/compiled_artifact.h)
    Lock,              // locks/*.lock, *.lock
    Temp,              // .<pid>.<tid>.tmp, Triton's tmp.* dirs: a write in progress or abandoned
                       // (Triton < 3.0: <file>.tmp.pid_<pid>_<n>); a compiler's *_CxxBuild/
                       // scratch dir; tmp<8>/: a throw-away cache dir PyTorch never deletes
    Unknown,
};

// The stable names used by the CLI (--kind, JSON "kind") and the catalog.
std::string_view to_string(FileKind kind);
std::optional<FileKind> file_kind_from_string(std::string_view name);
// Every kind's name, in the order of FileKind, comma-separated (for --help).
std::string file_kind_names();

// Classifies a path relative to the cache dir, '/'-separated. Files of a
// Triton cache ("<TRITON HASH>/<file>": ~/.triton/cache, or an Inductor
// cache's triton/<device>/ taken as the root) are told apart from an Inductor
// cache's by the hash dir's name, which no Inductor dir has.
FileKind classify(std::string_view relative_path);

// True for a name some Triton release gives a kernel's cache dir: base32 of
// a sha256, 52 upper-case characters (3.3 on); base64url of it, 43 (3.2); its
// hex, 64 (3.0, 3.1); an md5's hex, 32 (2.x).
bool is_triton_hash_dir_name(std::string_view name);

// "f" + 51 lowercase base32 characters: an FX graph cache key.
bool is_fx_graph_key(std::string_view name);

// What a cache root holds, from the kinds of its files.
enum class RootLayout {
    Inductor, // TORCHINDUCTOR_CACHE_DIR: fxgraph/, <xx>/c<hash>.py, triton/<device>/, ...
    Triton,   // TRITON_CACHE_DIR, or an Inductor cache's triton/<device>/: <TRITON HASH>/ only
    Vllm,     // vLLM's torch_compile_cache tree, or a dir in it (serving/serving_tree.h)
    Sglang,   // SGLang's torch_compile_cache tree
};
// "inductor", "triton", "vllm", "sglang": the JSON "layout" of scan.
std::string_view to_string(RootLayout layout);
std::optional<RootLayout> root_layout_from_string(std::string_view name);

// True for the name of a file PyTorch is writing (or died writing):
// ".<anything>.tmp".
bool is_temp_name(std::string_view file_name);

// What was written this recently and looks broken (a temp file before its
// rename, a lock before its value, a Triton dir before its group file, a file
// written in place that does not parse yet) is taken for a writer at work:
// verify warns instead of reporting a problem, index parses it next time.
inline constexpr std::int64_t kBeingWrittenNs = 60'000'000'000;

// Files their producers write in place, so that a reader can see one half
// written: an OnDiskCache value (open "xb", then written, under a flock) and
// vLLM's compilation index (open "w"). Everything else PyTorch and Triton
// write lands whole (temp file + rename): a broken one is broken.
bool is_written_in_place(FileKind kind);

} // namespace cachelens::cachedir
