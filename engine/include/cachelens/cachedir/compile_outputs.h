#pragma once

// What Inductor's compilers leave in a cache dir besides its entries
// (docs/FORMATS.md §3): the dir AOTInductor compiles a model into, GPU
// kernel binaries for the C++ wrapper, object files, precompiled headers,
// text (metric tables, compile errors, logs and dumps), TORCH_COMPILE_DEBUG
// copies and Halide kernels. Each is read as data; none is loaded or run.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/error.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/pt2/pt2_archive.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::cachedir {

// c<hash>/ at the root: AotCodeCompiler's output for one model (its wrapper
// and kernel C++, the .so, metadata, cubins, a .pt2 when
// aoti_compile_and_package was given no path); or aoti_eager/: AOTInductor's
// eager kernels.
struct AotiOutputDir {
    std::string dir;                   // relative to the cache dir
    std::vector<std::string> files;    // relative to the dir, in path order
    std::vector<std::uint64_t> sizes;  // of each file
    pt2::AotiModel model;              // its indexes are into `files`
    std::vector<std::string> problems; // what PyTorch's loader would refuse
};

// A file that belongs to another: an object file or a kernel binary with its
// source, a precompiled header, a debug copy, a Halide kernel.
struct CompanionFile {
    std::string what;                // one line: what PyTorch made it for
    std::vector<std::string> owners; // the files of the dir it belongs to, present
    std::optional<int> sm;           // a cubin's SM architecture
};

// Text PyTorch writes to tell something, not to load it again (or, for a
// compile error, to raise it again without recompiling).
struct TextFile {
    std::string what;
    std::shared_ptr<const MappedFile> file;
    std::string_view text() const { return file->bytes(); }
};

Result<AotiOutputDir> read_aoti_output_dir(const std::filesystem::path& root, const Entry& entry);
Result<CompanionFile> read_companion_file(const std::filesystem::path& root, const Entry& entry);
Result<TextFile> read_text_file_entry(const std::filesystem::path& root, const Entry& entry);

} // namespace cachelens::cachedir
