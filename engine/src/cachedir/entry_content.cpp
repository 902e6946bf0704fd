#include <cachelens/bundle/compiled_artifact.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/serving/cache_factors.h>
#include <cachelens/serving/compile_index.h>

#include <sys/stat.h>

namespace cachelens::cachedir {

namespace {

template <class T>
Result<EntryContent> content(Result<T> result, const std::filesystem::path& path) {
    if (!result) {
        return std::unexpected(std::move(result.error()).at(path.string()));
    }
    return EntryContent(std::move(*result));
}

Result<EntryContent> load_text_kind(FileKind kind, const std::filesystem::path& path) {
    auto text = read_text_file(path);
    if (!text) {
        return std::unexpected(text.error());
    }
    switch (kind) {
    case FileKind::BestConfig:
        return content(parse_best_config(*text), path);
    case FileKind::KernelPerf:
        return content(parse_kernel_perf(*text), path);
    case FileKind::BenchmarkCache:
        return content(parse_benchmark_cache(*text), path);
    default:
        return fail(ErrorKind::InvalidArgument, "not a JSON or text entry", path.string());
    }
}

// vLLM's and SGLang's own files: text for people, the index and the factors
// parsed first so that a scan reports one that vLLM could not read.
Result<TextFile> read_serving_file(const std::filesystem::path& root, const Entry& entry) {
    auto file = MappedFile::open(root / entry.path, std::size_t{64} << 20);
    if (!file) {
        return std::unexpected(file.error());
    }
    TextFile out;
    const std::string_view text = (*file)->bytes();
    switch (entry.kind) {
    case FileKind::ServingIndex: {
        auto index = serving::parse_compile_index(text);
        if (!index) {
            return std::unexpected(std::move(index.error()).at((root / entry.path).string()));
        }
        out.what = "the server's index of its " + std::to_string(index->entries.size()) +
                   " compiled piecewise graphs (a Python literal: cachelens reads it, never "
                   "runs it)";
        break;
    }
    case FileKind::ServingFactors: {
        auto factors = serving::parse_cache_key_factors(text);
        if (!factors) {
            return std::unexpected(std::move(factors.error()).at((root / entry.path).string()));
        }
        out.what = "the factors vLLM hashed this cache dir's name from (" +
                   std::to_string(factors->env.size()) +
                   " env values and the config, code and "
                   "compiler hashes)";
        break;
    }
    default:
        out.what = "the split graph the server wrote for people; never loaded";
        break;
    }
    out.file = std::move(*file);
    return out;
}

} // namespace

Result<EntryContent> load_entry(const std::filesystem::path& root, const Entry& entry) {
    const std::filesystem::path path = root / entry.path;
    switch (entry.kind) {
    case FileKind::FxGraph:
        return content(load_fx_graph_entry(path), path);
    case FileKind::AotAutograd:
        return content(load_aot_autograd_entry(path), path);
    case FileKind::Module: {
        auto file = MappedFile::open(path);
        if (!file) {
            return std::unexpected(file.error());
        }
        auto module = parse_kernel_module((*file)->bytes(), *file);
        if (!module) {
            return std::unexpected(std::move(module.error()).at(path.string()));
        }
        return EntryContent(ModuleSource{std::move(*file), std::move(*module)});
    }
    case FileKind::CppSource: {
        auto file = MappedFile::open(path);
        if (!file) {
            return std::unexpected(file.error());
        }
        return EntryContent(CppSource{std::move(*file)});
    }
    case FileKind::BestConfig:
    case FileKind::KernelPerf:
    case FileKind::BenchmarkCache:
        return load_text_kind(entry.kind, path);
    case FileKind::Triton:
        return content(read_triton_kernel_dir(path), path);
    case FileKind::TritonAutotune: {
        auto text = read_text_file(path);
        if (!text) {
            return std::unexpected(text.error());
        }
        return content(parse_triton_autotune(*text), path);
    }
    case FileKind::DynamoProfile: {
        auto document = pickle::unpickle_file(path);
        if (!document) {
            return std::unexpected(document.error());
        }
        return EntryContent(DynamoProfile{std::move(*document)});
    }
    case FileKind::KeyedCacheValue: {
        auto file = MappedFile::open(path);
        if (!file) {
            return std::unexpected(file.error());
        }
        return content(read_keyed_cache_value(std::move(*file), entry.name), path);
    }
    case FileKind::InMemoryCache:
        return content(read_in_memory_cache_file(path), path);
    case FileKind::Precompile:
        return content(read_precompile_dir(root, entry), path);
    case FileKind::Pt2Archive:
        return content(pt2::read_archive(path), path);
    case FileKind::AotiOutput:
        return content(read_aoti_output_dir(root, entry), path);
    case FileKind::KernelBinary:
    case FileKind::ObjectFile:
    case FileKind::PrecompiledHeader:
    case FileKind::DebugCopy:
    case FileKind::Halide:
        return content(read_companion_file(root, entry), path);
    case FileKind::Text:
        return content(read_text_file_entry(root, entry), path);
    case FileKind::ServingIndex:
    case FileKind::ServingFactors:
    case FileKind::ServingGraph:
        return content(read_serving_file(root, entry), path);
    case FileKind::CompiledArtifact: {
        auto artifact = bundle::load_compiled_artifact(path);
        if (!artifact) {
            return std::unexpected(artifact.error());
        }
        return EntryContent(OpaqueFile{entry.size});
    }
    case FileKind::SharedLibrary:
    case FileKind::Lock:
    case FileKind::Temp:
    case FileKind::Unknown:
        return EntryContent(OpaqueFile{entry.size});
    }
    return fail(ErrorKind::InvalidArgument, "unknown entry kind", path.string());
}

Result<StandaloneFile> load_standalone_file(const std::filesystem::path& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        return fail(ErrorKind::InvalidArgument, "not a regular file", path.string());
    }
    auto file = MappedFile::open(path);
    if (!file) {
        return std::unexpected(file.error());
    }
    const std::string_view bytes = (*file)->bytes();
    StandaloneFile out;
    out.entry.path = path.string();
    out.entry.size = bytes.size();
    if (struct stat st{}; ::stat(path.c_str(), &st) == 0) {
        out.entry.mtime_ns =
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    }
    const std::string name = path.filename().string();
    if (pt2::looks_like_zip(bytes)) {
        auto archive = pt2::read_archive(*file);
        if (!archive) {
            return std::unexpected(std::move(archive.error()).at(path.string()));
        }
        archive->file = path;
        out.entry.kind = FileKind::Pt2Archive;
        out.entry.key = name;
        out.content = std::move(*archive);
        return out;
    }
    // A precompiled function is a pickled dict too: it goes first.
    if (looks_like_precompile(bytes)) {
        auto precompiled = read_precompile_file(path);
        if (!precompiled) {
            return std::unexpected(precompiled.error());
        }
        out.entry.kind = FileKind::Precompile;
        out.entry.key = name;
        out.content = std::move(*precompiled);
        return out;
    }
    // A version prefix first: a bare pickled dict could otherwise be either.
    if (bytes.size() > 4 && keyed_cache_pickle(bytes).size() == bytes.size() - 4) {
        auto value = read_keyed_cache_value(*file, path.parent_path().filename().string());
        if (!value) {
            return std::unexpected(value.error());
        }
        out.entry.kind = FileKind::KeyedCacheValue;
        out.entry.key = name;
        out.entry.name = value->cache_name;
        out.content = std::move(*value);
        return out;
    }
    // Any other pickle is read as InMemoryCache.from_file_path would: its
    // errors are PyTorch's (a pickle of no dict, one that does not decode).
    if (looks_like_pickled_dict(bytes) || keyed_cache_pickle(bytes).size() == bytes.size()) {
        auto contents = read_in_memory_cache_file(path);
        if (!contents) {
            return std::unexpected(contents.error());
        }
        out.entry.kind = FileKind::InMemoryCache;
        out.entry.key = name;
        out.content = std::move(*contents);
        return out;
    }
    // Inductor's generated Python outside a cache dir: TORCH_COMPILE_DEBUG's
    // output_code.py, a kernel module copied out. Read, never run.
    if (name.ends_with(".py")) {
        auto module = parse_kernel_module(bytes, *file);
        if (!module) {
            return std::unexpected(std::move(module.error()).at(path.string()));
        }
        out.entry.kind = FileKind::Module;
        out.entry.key = path.stem().string();
        out.content = ModuleSource{*file, std::move(*module)};
        return out;
    }
    return fail(ErrorKind::InvalidArgument,
                "not a file cachelens reads on its own: neither a .pt2 archive (a zip), a "
                "precompiled function, an OnDiskCache value (a known version prefix, then a "
                "pickle), an InMemoryCache file (a pickled dict) nor Python source (.py); an "
                "entry of a cache dir is shown with the dir and its key or path",
                path.string());
}

Result<StandaloneFile> load_in_memory_cache_env(std::string_view value, std::string_view var,
                                                std::string source) {
    auto contents = read_in_memory_cache_env(value, var);
    if (!contents) {
        return std::unexpected(std::move(contents.error()).at(source));
    }
    contents->source = source;
    StandaloneFile out;
    out.entry.kind = FileKind::InMemoryCache;
    out.entry.key = source;
    out.entry.path = std::move(source);
    out.entry.size = value.size();
    out.content = std::move(*contents);
    return out;
}

} // namespace cachelens::cachedir
