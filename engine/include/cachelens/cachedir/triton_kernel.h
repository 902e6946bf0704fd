#pragma once

// One compiled Triton kernel: `triton/<device>/<TRITON HASH>/` with its
// metadata JSON, PTX, cubin and IRs. The metadata says how to launch the
// cubin; the PTX says how many parameters the entry takes and which kernel
// module the kernel came from (`.file 1 "/.../c<hash>.py"`).

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/error.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

struct TritonMetadata {
    std::string name; // the kernel's entry name
    std::string hash; // hex; the dir is named base32(hash)
    std::optional<std::int64_t> num_warps, num_stages, num_ctas, warp_size, maxnreg;
    std::int64_t shared = 0; // dynamic shared memory, bytes
    std::int64_t global_scratch_size = 0, global_scratch_align = 1;
    std::int64_t profile_scratch_size = 0, profile_scratch_align = 1;
    std::int64_t tmem_size = 0;
    std::string backend; // target.backend: "cuda", "hip"
    std::string arch;    // target.arch: 90, "gfx942" (as text)
    std::string triton_version;
    bool launch_pdl = false;
    bool launch_cooperative_grid = false;
    std::vector<std::string> keys; // every key present, sorted
};

Result<TritonMetadata> parse_triton_metadata(std::string_view json);

struct PtxParameter {
    std::string type;     // ".u64", ".u32", ".f32", ...
    bool pointer = false; // ".ptr" qualifier
    std::uint32_t bytes = 0;
};

struct PtxInfo {
    std::string version; // ".version 9.0"
    std::string target;  // ".target sm_90a"
    std::string entry;   // the .entry name
    std::vector<PtxParameter> parameters;
    std::optional<std::uint32_t> reqntid; // threads per block the kernel requires
    std::vector<std::string> files;       // .file N "path", indexed N-1
};

Result<PtxInfo> parse_ptx(std::string_view ptx);

struct TritonFile {
    std::string name;
    std::uint64_t size = 0;
};

// Triton's file group (`__grp__<kernel>.json`): the list of a kernel's files
// that Triton reads first, and without which it compiles the kernel again.
inline bool is_triton_group_file_name(std::string_view name) {
    return name.starts_with("__grp__");
}

// What a file of a Triton kernel dir is, by the names Triton gives them
// ("PTX", "cubin (binary)", "file group (JSON)" for __grp__*), and whether
// it is binary (cubin, hsaco, .so, .spv, .o): shown in hex, never as text.
struct TritonFileType {
    std::string_view description;
    bool binary = false;
    // Which file to show first, as text closest to what the GPU runs: PTX (1),
    // AMDGCN, TTGIR, TTIR, LLIR, the source (6); 0 for the others.
    int show_first = 0;
    bool python = false; // Python source (.source is Triton's MLIR, not Python)
};
TritonFileType triton_file_type(std::string_view name);

struct TritonKernelDir {
    std::string hash;   // the dir name
    std::string device; // the parent dir name ("0") under triton/; empty in ~/.triton/cache
    std::vector<TritonFile> files;
    std::optional<TritonMetadata> metadata;
    std::optional<PtxInfo> ptx;
    std::string kernel_name; // from the metadata, else the file names
    // The kernel module the kernel was compiled from, as the PTX names it:
    // a path on the machine that compiled it (/tmp/torchinductor_user/...).
    std::string module_path;
    std::string module_key; // its "c<hash>" stem, if it is a cache module
    // That module in the cache dir holding this kernel dir (triton/<device>/
    // <hash>): "nf/cnf5....py", relative to the cache dir; empty when the
    // module is not there.
    std::string module_file;

    std::uint64_t total_size() const;
    bool has(std::string_view extension) const; // ".cubin", ".ptx", ...
};

// Reads `dir` (triton/<device>/<hash>, or <hash> in a Triton cache); a
// missing or malformed metadata JSON or PTX is an error naming the file.
// `module_file` is looked for in the Inductor cache dir holding it
// (inductor_cache_of), when there is one.
Result<TritonKernelDir> read_triton_kernel_dir(const std::filesystem::path& dir);

// The Inductor cache dir X of a Triton cache dir X/triton/<device>, the one
// whose kernel modules its kernels were compiled from; nullopt for any other
// dir (~/.triton/cache, where no module is known).
std::optional<std::filesystem::path> inductor_cache_of(const std::filesystem::path& triton_dir);

// triton.autotune(cache_results=True) (TRITON_CACHE_AUTOTUNING=1): one
// <hash>/<function>.autotune.json per tuning key, where <hash> mixes Triton's
// version, the backend, the function's source, the env and the configs, so
// only Triton can recompute it.
struct TritonAutotuneTiming {
    std::string config; // the Config's fields as JSON ({"kwargs": {...}, "num_warps": 4, ...})
    std::vector<double> milliseconds; // do_bench's (median, p20, p80), or one number
};

struct TritonAutotuneResult {
    std::vector<std::string> key; // the tuning key: the key args' values and dtypes, as text
    std::vector<TritonAutotuneTiming> timings; // in the file's order
    // The fastest by median, as Triton picks it; nullopt when there is no timing.
    std::optional<std::size_t> best() const;
};

Result<TritonAutotuneResult> parse_triton_autotune(std::string_view json);

} // namespace cachelens::cachedir
