#include <cachelens/cachedir/entry_content.h>
#include <cachelens/pickle/unpickler.h>

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
    case FileKind::SharedLibrary:
    case FileKind::Lock:
    case FileKind::Temp:
    case FileKind::Unknown:
        return EntryContent(OpaqueFile{entry.size});
    }
    return fail(ErrorKind::InvalidArgument, "unknown entry kind", path.string());
}

} // namespace cachelens::cachedir
