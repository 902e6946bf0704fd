#include <cachelens/cachedir/file_kind.h>

#include <algorithm>
#include <array>
#include <span>
#include <vector>

namespace cachelens::cachedir {

namespace {

struct KindName {
    FileKind kind;
    std::string_view name;
};

constexpr std::array kKindNames{
    KindName{FileKind::FxGraph, "fxgraph"},
    KindName{FileKind::AotAutograd, "aotautograd"},
    KindName{FileKind::Module, "module"},
    KindName{FileKind::CppSource, "cpp"},
    KindName{FileKind::SharedLibrary, "library"},
    KindName{FileKind::BestConfig, "best_config"},
    KindName{FileKind::KernelPerf, "kernel_perf"},
    KindName{FileKind::BenchmarkCache, "benchmark_cache"},
    KindName{FileKind::Triton, "triton"},
    KindName{FileKind::TritonAutotune, "triton_autotune"},
    KindName{FileKind::DynamoProfile, "pgo"},
    KindName{FileKind::Precompile, "precompile"},
    KindName{FileKind::KeyedCacheValue, "on_disk_cache"},
    KindName{FileKind::Pt2Archive, "pt2"},
    KindName{FileKind::AotiOutput, "aoti"},
    KindName{FileKind::KernelBinary, "kernel_binary"},
    KindName{FileKind::ObjectFile, "object"},
    KindName{FileKind::PrecompiledHeader, "precompiled_header"},
    KindName{FileKind::Text, "text"},
    KindName{FileKind::DebugCopy, "debug"},
    KindName{FileKind::Halide, "halide"},
    KindName{FileKind::InMemoryCache, "in_memory_cache"},
    KindName{FileKind::ServingIndex, "serving_index"},
    KindName{FileKind::ServingFactors, "serving_factors"},
    KindName{FileKind::ServingGraph, "serving_graph"},
    KindName{FileKind::CompiledArtifact, "compiled_artifact"},
    KindName{FileKind::Lock, "lock"},
    KindName{FileKind::Temp, "tmp"},
    KindName{FileKind::Unknown, "unknown"},
};

std::vector<std::string_view> split(std::string_view path) {
    std::vector<std::string_view> parts;
    while (!path.empty()) {
        const auto slash = path.find('/');
        const auto part = path.substr(0, slash);
        if (!part.empty()) {
            parts.push_back(part);
        }
        if (slash == std::string_view::npos) {
            break;
        }
        path.remove_prefix(slash + 1);
    }
    return parts;
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.ends_with(suffix);
}

// Triton's FileCacheManager.put() writes <hash dir>/tmp.pid_<pid>_<uuid>/<file>
// and renames the file into the hash dir (Triton 3.x); Inductor's
// TritonBundler writes a whole kernel into <device dir>/tmp.<uuid>/ and
// renames the dir. Neither is a kernel until renamed.
bool is_triton_staging_dir_name(std::string_view name) {
    return name.starts_with("tmp.");
}

// A file inside a Triton hash dir, by its name.
FileKind classify_triton_file(std::string_view name) {
    // Triton before 3.0 staged a file beside its final name.
    if (name.find(".tmp.pid_") != std::string_view::npos) {
        return FileKind::Temp;
    }
    if (ends_with(name, ".autotune.json")) {
        return FileKind::TritonAutotune;
    }
    // The launcher and driver utilities Triton compiles (cuda_utils.so,
    // __triton_launcher.so) share the cache, one hash dir each.
    if (ends_with(name, ".so")) {
        return FileKind::SharedLibrary;
    }
    return FileKind::Triton;
}

// parts = the path below a Triton cache dir: <hash>/<file>, <hash>/tmp.*/<file>,
// tmp.*/<file>.
FileKind classify_in_triton_dir(std::span<const std::string_view> parts) {
    if (parts.size() >= 2 && is_triton_staging_dir_name(parts[0])) {
        return FileKind::Temp;
    }
    if (parts.empty() || !is_triton_hash_dir_name(parts[0])) {
        return FileKind::Unknown;
    }
    if (parts.size() >= 3 && is_triton_staging_dir_name(parts[1])) {
        return FileKind::Temp;
    }
    return parts.size() == 2 ? classify_triton_file(parts[1]) : FileKind::Unknown;
}

} // namespace

std::string_view to_string(FileKind kind) {
    for (const auto& entry : kKindNames) {
        if (entry.kind == kind) {
            return entry.name;
        }
    }
    return "unknown";
}

std::optional<FileKind> file_kind_from_string(std::string_view name) {
    for (const auto& entry : kKindNames) {
        if (entry.name == name) {
            return entry.kind;
        }
    }
    if (name == "so") {
        return FileKind::SharedLibrary;
    }
    if (name == "aot") {
        return FileKind::AotAutograd;
    }
    return std::nullopt;
}

std::string file_kind_names() {
    std::string out;
    for (const auto& entry : kKindNames) {
        out += (out.empty() ? "" : ", ") + std::string(entry.name);
    }
    return out;
}

bool is_triton_hash_dir_name(std::string_view name) {
    const auto all = [&](auto allowed) {
        return std::ranges::all_of(name, allowed);
    };
    const auto hex = [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    };
    switch (name.size()) {
    case 52: // base32 of the sha256 (Triton 3.3 on)
        return all([](char c) { return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7'); });
    case 43: // base64url of the sha256 (Triton 3.2)
        return all([](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   c == '-' || c == '_';
        });
    case 64: // the sha256 in hex (Triton 3.0, 3.1)
    case 32: // an md5 in hex (Triton 2.x)
        return all(hex);
    default:
        return false;
    }
}

bool is_fx_graph_key(std::string_view name) {
    return name.size() == 52 && name.front() == 'f' &&
           std::ranges::all_of(name.substr(1), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
           });
}

std::string_view to_string(RootLayout layout) {
    switch (layout) {
    case RootLayout::Inductor:
        return "inductor";
    case RootLayout::Triton:
        return "triton";
    case RootLayout::Vllm:
        return "vllm";
    case RootLayout::Sglang:
        return "sglang";
    }
    return "inductor";
}

std::optional<RootLayout> root_layout_from_string(std::string_view name) {
    for (const RootLayout layout :
         {RootLayout::Inductor, RootLayout::Triton, RootLayout::Vllm, RootLayout::Sglang}) {
        if (name == to_string(layout)) {
            return layout;
        }
    }
    return std::nullopt;
}

bool is_temp_name(std::string_view file_name) {
    return file_name.size() > 5 && file_name.front() == '.' && ends_with(file_name, ".tmp");
}

bool is_written_in_place(FileKind kind) {
    return kind == FileKind::KeyedCacheValue || kind == FileKind::ServingIndex;
}

// "c" + 51 lowercase base32 characters: Inductor's code_hash, which names
// its modules and AOTInductor's output dirs.
bool is_code_hash(std::string_view name) {
    return name.size() == 52 && name.front() == 'c' &&
           std::ranges::all_of(name.substr(1), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
           });
}

// tmp + 8 of [a-z0-9_]: tempfile.mkdtemp()'s name, a fresh_cache() dir that
// PyTorch made with delete=False and never removes.
bool is_fresh_cache_dir_name(std::string_view name) {
    return name.size() == 11 && name.starts_with("tmp") &&
           std::ranges::all_of(name.substr(3), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
           });
}

// run_2024_09_21_09_28_39_611516-pid_90469: one process's TORCH_COMPILE_DEBUG dir.
bool is_debug_run_dir_name(std::string_view name) {
    return name.starts_with("run_") && name.find("-pid_") != std::string_view::npos;
}

// A file in a bucket dir <xx>/ that no older rule claims, by its suffix.
FileKind classify_bucket_file(std::string_view name) {
    for (const auto suffix : {".cubin", ".hsaco", ".zebin", ".spv", ".fatbin"}) {
        if (ends_with(name, suffix)) {
            return FileKind::KernelBinary;
        }
    }
    if (ends_with(name, ".o")) {
        return FileKind::ObjectFile;
    }
    if (ends_with(name, ".cu") || ends_with(name, ".h")) {
        return FileKind::CppSource; // CUTLASS sources, cpp_prefix.h copies (<= 2.7)
    }
    if (ends_with(name, ".txt") || ends_with(name, ".error")) {
        return FileKind::Text;
    }
    return FileKind::Unknown;
}

FileKind classify(std::string_view relative_path) {
    const auto parts = split(relative_path);
    if (parts.empty()) {
        return FileKind::Unknown;
    }
    const std::string_view name = parts.back();
    if (is_temp_name(name)) {
        return FileKind::Temp;
    }
    const std::string_view top = parts.front();
    // A compiler's scratch dir (CppBuilder), a throw-away cache dir.
    if (std::ranges::any_of(std::span(parts).first(parts.size() - 1),
                            [](std::string_view part) { return part.ends_with("_CxxBuild"); }) ||
        (parts.size() >= 2 && is_fresh_cache_dir_name(top))) {
        return FileKind::Temp;
    }
    if (parts.size() >= 2 && (is_code_hash(top) || top == "aoti_eager")) {
        return ends_with(name, ".lock") ? FileKind::Lock : FileKind::AotiOutput;
    }
    if (parts.size() >= 2 && top.starts_with("halide-runtime-")) {
        return name == "lock" ? FileKind::Lock : FileKind::Halide;
    }
    if (top == "precompiled_headers") {
        if (ends_with(name, ".lock")) {
            return FileKind::Lock;
        }
        return ends_with(name, ".h") ? FileKind::CppSource : FileKind::PrecompiledHeader;
    }
    // TORCH_COMPILE_DEBUG=1's dumps (torch_compile_debug/run_<time>-pid_<pid>/: each
    // compile's output_code.py, FX graphs and IR, Dynamo's debug.log), whichever of
    // its dirs is the one looked at.
    if (parts.size() >= 2 &&
        (top == "torch_compile_debug" || is_debug_run_dir_name(top) || top == "torchinductor" ||
         top == "torchdynamo" || top == "aot_torchinductor")) {
        return FileKind::DebugCopy;
    }
    if (top == "autoheuristic" || top == "bisect") {
        return FileKind::Text;
    }
    // load_cache_artifacts() of PyTorch 2.7 put a bundle's best_configs at the
    // root: <sha256 hex>.best_config beside the shard dirs.
    if (parts.size() == 1 && name.size() == 64 + 12 && ends_with(name, ".best_config") &&
        std::ranges::all_of(name.substr(0, 64), [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        })) {
        return FileKind::BestConfig;
    }
    if (parts.size() == 1 && (name == "memoizer_cache.json" ||
                              (name.starts_with("configs_") && ends_with(name, ".json")))) {
        return FileKind::Text;
    }
    if (relative_path == "cache/dcache_dump/imc.save") {
        return FileKind::Text;
    }
    if (top == "fxgraph") {
        return parts.size() == 4 ? FileKind::FxGraph : FileKind::Unknown;
    }
    if (top == "aotautograd") {
        return parts.size() == 3 ? FileKind::AotAutograd : FileKind::Unknown;
    }
    if (top == "triton" && parts.size() >= 3) {
        const auto kind = classify_in_triton_dir(std::span(parts).subspan(2));
        // A kernel dir under triton/<device>/ whose name is no base32 hash
        // (older Triton named dirs otherwise): still Triton's.
        if (kind == FileKind::Unknown && parts.size() == 4) {
            return classify_triton_file(name);
        }
        return kind;
    }
    if (is_triton_hash_dir_name(top) || (parts.size() >= 2 && is_triton_staging_dir_name(top))) {
        return classify_in_triton_dir(parts);
    }
    if (top == "cache" && parts.size() == 2) {
        return FileKind::BenchmarkCache;
    }
    // cache/<name>/: OnDiskCache(name)'s values, named by a key and never
    // with a suffix (verify flags one that is not 32 hex); its locks fall to
    // the rule below. A file with a suffix there is no value: most likely an
    // Inductor cache dir that happens to be called "cache" was walked from
    // its parent (nested_cache_dirs() says so).
    if (top == "cache" && parts.size() == 3 && name.find('.') == std::string_view::npos) {
        return FileKind::KeyedCacheValue;
    }
    if (top == "locks" || ends_with(name, ".lock")) {
        return FileKind::Lock;
    }
    // dynamo/<sha256(qualname + first line)>/: the DynamoCache's entry of a function.
    if (top == "dynamo" && parts.size() == 3 && parts[1].size() == 64 &&
        std::ranges::all_of(
            parts[1], [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }) &&
        (name == "entry" || name == "dynamo" || name == "backends")) {
        return FileKind::Precompile;
    }
    // vLLM's VLLM_CACHE_ROOT: torch_aot_compile/<hash>/rank_<r>_<dp>/model, one
    // save_compiled_function file per rank.
    if (top == "torch_aot_compile" && parts.size() == 4 && parts[2].starts_with("rank_") &&
        name == "model") {
        return FileKind::Precompile;
    }
    if (top == "dynamo" && name.starts_with("code_state_") && ends_with(name, ".pkl")) {
        return FileKind::DynamoProfile;
    }
    if (top == "dynamo" && name.starts_with("code_state_") && ends_with(name, ".pkl.tmp")) {
        return FileKind::Temp; // pgo.py writes <file>.tmp, then renames it
    }
    // <xx>/c<hash>.debug/... and <xx>/c<hash>.halide/...: dirs of their own.
    if (parts.size() >= 3 && top.size() == 2) {
        if (ends_with(parts[1], ".debug")) {
            return FileKind::DebugCopy;
        }
        if (ends_with(parts[1], ".halide")) {
            return name == "lock" ? FileKind::Lock : FileKind::Halide;
        }
    }
    // AOTInductor's files outside a shard dir (2.3 to 2.6, TORCHINDUCTOR_CACHE_DIR
    // used as the output dir): the cubins it copied to the top, and the model's
    // wrapper, object and metadata in the output dir the user named.
    const auto code_hash_stem = [](std::string_view file) {
        return file.size() > 52 && is_code_hash(file.substr(0, 52));
    };
    if (parts.size() == 1 && code_hash_stem(name)) {
        for (const auto suffix : {".cubin", ".hsaco", ".spv", ".fatbin"}) {
            if (ends_with(name, suffix)) {
                return FileKind::KernelBinary;
            }
        }
    }
    if (parts.size() == 2 && top.size() != 2 && code_hash_stem(name) &&
        (ends_with(name, ".cpp") || ends_with(name, ".o") || ends_with(name, ".so") ||
         ends_with(name, ".cubin") || ends_with(name, ".hsaco") ||
         ends_with(name, "_metadata.json"))) {
        return FileKind::AotiOutput;
    }
    if (parts.size() == 2 && top.size() == 2 && ends_with(name, ".debug.lock")) {
        return FileKind::Lock;
    }
    if (parts.size() == 2 && top.size() == 2) {
        if (ends_with(name, ".py")) {
            return FileKind::Module;
        }
        if (ends_with(name, ".cpp")) {
            return FileKind::CppSource;
        }
        if (ends_with(name, ".so")) {
            return FileKind::SharedLibrary;
        }
        if (ends_with(name, ".best_config")) {
            return FileKind::BestConfig;
        }
        if (ends_with(name, ".kernel_perf")) {
            return FileKind::KernelPerf;
        }
        return classify_bucket_file(name);
    }
    return FileKind::Unknown;
}

} // namespace cachelens::cachedir
