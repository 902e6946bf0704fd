#include <cachelens/cachedir/compile_outputs.h>

#include <algorithm>
#include <system_error>

namespace cachelens::cachedir {

namespace {

namespace fs = std::filesystem;

std::string stem(std::string_view name) {
    return std::string(stem_of(name));
}

// The files of `dir` (relative to root) whose names share `key`'s stem and
// are sources: what an object file or a kernel binary was made from or for.
std::vector<std::string> owners_of(const fs::path& root, const Entry& entry) {
    std::vector<std::string> owners;
    const auto slash = entry.path.rfind('/');
    const std::string dir =
        slash == std::string::npos ? std::string() : entry.path.substr(0, slash);
    std::error_code error;
    for (const auto& item : fs::directory_iterator(root / dir, error)) {
        const std::string name = item.path().filename().string();
        const bool source = name.ends_with(".cpp") || name.ends_with(".cu") ||
                            name.ends_with(".py") || name.ends_with(".so");
        if (source && stem(name) == entry.key && (dir + "/" + name) != entry.path) {
            owners.push_back(dir.empty() ? name : dir + "/" + name);
        }
    }
    std::ranges::sort(owners);
    return owners;
}

} // namespace

Result<AotiOutputDir> read_aoti_output_dir(const fs::path& root, const Entry& entry) {
    AotiOutputDir out;
    out.dir = entry.path;
    const fs::path dir = root / entry.path;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_regular_file(error) && !it->is_symlink(error)) {
            out.files.push_back(fs::relative(it->path(), dir).generic_string());
        }
    }
    if (error) {
        return fail(ErrorKind::Io, "cannot list the dir: " + error.message(), dir.string());
    }
    std::ranges::sort(out.files);
    for (const auto& file : out.files) {
        out.sizes.push_back(fs::file_size(dir / file, error));
    }
    // The model's own files sit at the top of the dir (its constants' subdir
    // and an eager kernel's nested cache are not the loader's).
    std::vector<pt2::MemberIndex> top;
    for (pt2::MemberIndex i = 0; i < out.files.size(); ++i) {
        if (out.files[i].find('/') == std::string::npos && !out.files[i].ends_with(".lock")) {
            top.push_back(i);
        }
    }
    const pt2::ModelFiles access{
        .path_of = [&](pt2::MemberIndex i) -> const std::string& { return out.files[i]; },
        .read = [&](pt2::MemberIndex i) -> Result<std::string> {
            return read_text_file(dir / out.files[i], std::size_t{64} << 20);
        }};
    if (entry.path != "aoti_eager" && !top.empty()) {
        out.model = pt2::assemble_model(entry.key, top, access, out.problems);
    }
    return out;
}

Result<CompanionFile> read_companion_file(const fs::path& root, const Entry& entry) {
    CompanionFile out;
    switch (entry.kind) {
    case FileKind::KernelBinary: {
        out.what = "a GPU kernel binary the C++ wrapper loads by path (CudaKernelParamCache)";
        auto head = MappedFile::open(root / entry.path);
        if (!head) {
            return std::unexpected(head.error());
        }
        out.sm = pt2::cubin_arch((*head)->bytes().substr(0, 64));
        if (entry.path.ends_with(".cubin") && !out.sm) {
            return fail(ErrorKind::Corrupt, "not a CUDA ELF file: no cubin PyTorch wrote",
                        (root / entry.path).string());
        }
        break;
    }
    case FileKind::ObjectFile:
        out.what = "an object file compiled from the C++ or CUDA source of the same name, "
                   "linked into its library";
        break;
    case FileKind::PrecompiledHeader:
        out.what = "a precompiled header the C++ compiler takes with -include (PyTorch writes "
                   "it under the default cache dir, whatever TORCHINDUCTOR_CACHE_DIR says)";
        break;
    case FileKind::DebugCopy:
        out.what = entry.path.find(".debug/") != std::string::npos
                       ? "TORCH_COMPILE_DEBUG's copy of a compile (its graphs, IR and code), for "
                         "people; PyTorch never reads it back"
                       : "TORCH_COMPILE_DEBUG's dumps of one process's compiles "
                         "(torch_compile_debug/run_*): per compile, output_code.py (the wrapper "
                         "module, with its kernels), the FX graphs and the IR before and after "
                         "fusion; for people, PyTorch never reads them back. `cachelens show "
                         "FILE` reads output_code.py (its kernels, their configs); a TORCH_TRACE "
                         "log beside it, `cachelens trace` and `cachelens report`";
        break;
    case FileKind::Halide:
        out.what = entry.path.starts_with("halide-runtime-")
                       ? "the Halide runtime Halide kernels link against (dlopen)"
                       : "a Halide kernel: PyTorch runs its generate_kernel.py and links the "
                         "library it builds (cachelens has no Halide vocabulary to audit it)";
        break;
    default:
        return fail(ErrorKind::InvalidArgument, "not a companion file",
                    (root / entry.path).string());
    }
    if (entry.kind == FileKind::KernelBinary || entry.kind == FileKind::ObjectFile) {
        out.owners = owners_of(root, entry);
    }
    return out;
}

Result<TextFile> read_text_file_entry(const fs::path& root, const Entry& entry) {
    auto file = MappedFile::open(root / entry.path, std::size_t{64} << 20);
    if (!file) {
        return std::unexpected(file.error());
    }
    TextFile out;
    out.file = std::move(*file);
    const std::string_view path = entry.path;
    if (path.ends_with(".error")) {
        out.what = "a compile error PyTorch recorded (JSON [command, output]): it raises it "
                   "again instead of compiling the source of the same name";
    } else if (path.starts_with("autoheuristic/")) {
        out.what = "AutoHeuristic's collected data (TORCHINDUCTOR_AUTOHEURISTIC_COLLECT)";
    } else if (path.starts_with("bisect/")) {
        out.what = "the compiler bisector's state (torch._inductor.compiler_bisector); it "
                   "evaluates its _config.txt when it runs";
    } else if (path == "memoizer_cache.json" || path == "cache/dcache_dump/imc.save") {
        out.what = "a dump of Inductor's caching module (JSON), for people and for seeding";
    } else if (path.starts_with("modelinfos/")) {
        out.what = "vLLM's cache of a model's registry information (JSON), beside its compile "
                   "cache";
    } else if (path.starts_with("configs_")) {
        out.what = "CUTLASS op configs (JSON) the CUTLASS backend reads";
    } else {
        out.what = "a table Inductor wrote for people (write_text: metrics, benchmarks)";
    }
    return out;
}

} // namespace cachelens::cachedir
