#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_links.h>
#include <cachelens/cachedir/file_kind.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/mapped_file.h>

#include <algorithm>
#include <set>
#include <system_error>

namespace cachelens::cachedir {

namespace fs = std::filesystem;

namespace {

bool cancelled(const std::atomic<bool>* cancel) {
    return cancel != nullptr && cancel->load();
}

// Every subdirectory of `dir`, sorted; none when it cannot be listed.
std::vector<fs::path> subdirectories(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        // Triton writes into tmp.* dirs and renames them: never a kernel.
        if (it->is_directory(ec) && !it->path().filename().string().starts_with("tmp.")) {
            out.push_back(it->path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A PyTorch cache hash: lower-case base32.
bool is_base32_word(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
    });
}

template <typename Parsed, typename Parse>
std::optional<Parsed> read_parsed(const fs::path& file, Parse parse) {
    auto text = read_text_file(file);
    if (!text) {
        return std::nullopt;
    }
    auto parsed = parse(*text);
    if (!parsed) {
        return std::nullopt;
    }
    return std::move(*parsed);
}

} // namespace

std::string cache_relative_path(std::string_view recorded_path) {
    const auto last = recorded_path.rfind('/');
    if (last == std::string_view::npos || last == 0) {
        return std::string(recorded_path);
    }
    const auto before = recorded_path.rfind('/', last - 1);
    return std::string(recorded_path.substr(before == std::string_view::npos ? 0 : before + 1));
}

std::string module_key_of_choice(std::string_view choice) {
    const auto dash = choice.rfind('-');
    if (dash == std::string_view::npos) {
        return {};
    }
    const std::string_view key = choice.substr(dash + 1);
    // "c" + the 51 characters of sha256_hash().
    if (key.size() != 52 || key.front() != 'c' || !is_base32_word(key.substr(1))) {
        return {};
    }
    return std::string(key);
}

std::string triton_dir_path(const TritonKernelDir& dir) {
    // No device: the dir is in a Triton cache, one of its root's children.
    return dir.device.empty() ? dir.hash : "triton/" + dir.device + "/" + dir.hash;
}

std::vector<TritonKernelDir>
find_triton_dirs_of_module(const fs::path& root, const std::string& module_key,
                           const std::vector<std::string>& kernel_names,
                           const std::atomic<bool>* cancel) {
    std::vector<TritonKernelDir> out;
    if (module_key.empty() || kernel_names.empty()) {
        return out;
    }
    const std::set<std::string> names(kernel_names.begin(), kernel_names.end());
    for (const fs::path& device : subdirectories(root / "triton")) {
        for (const fs::path& dir : subdirectories(device)) {
            if (cancelled(cancel)) {
                return out;
            }
            // Triton names a kernel's files after the kernel: a cheap filter
            // before reading metadata and PTX.
            bool named = false;
            std::error_code ec;
            for (fs::directory_iterator it(dir, ec), end; !ec && it != end && !named;
                 it.increment(ec)) {
                const std::string file = it->path().filename().string();
                named = names.contains(file.substr(0, file.find('.')));
            }
            if (!named) {
                continue;
            }
            auto kernel = read_triton_kernel_dir(dir);
            if (kernel && kernel->module_key == module_key) {
                out.push_back(std::move(*kernel));
            }
        }
    }
    return out;
}

std::optional<TritonKernelDir> find_triton_dir(const fs::path& root, const std::string& hash) {
    // A name, never a path; never one of Triton's tmp.* dirs, which it renames.
    if (hash.empty() || hash.find('/') != std::string::npos || hash == "." || hash == ".." ||
        hash.starts_with("tmp.")) {
        return std::nullopt;
    }
    std::error_code ec;
    if (is_triton_hash_dir_name(hash) && fs::is_directory(root / hash, ec)) {
        // `root` is a Triton cache.
        if (auto kernel = read_triton_kernel_dir(root / hash)) {
            return std::move(*kernel);
        }
    }
    for (const fs::path& device : subdirectories(root / "triton")) {
        if (fs::is_directory(device / hash, ec)) {
            if (auto kernel = read_triton_kernel_dir(device / hash)) {
                return std::move(*kernel);
            }
        }
    }
    return std::nullopt;
}

std::vector<LocatedBestConfig> find_best_configs_of_module(const fs::path& root,
                                                           const std::string& module_key,
                                                           const std::atomic<bool>* cancel) {
    std::vector<LocatedBestConfig> out;
    if (module_key.size() < 3) {
        return out;
    }
    const std::string subdir = module_key.substr(1, 2);
    std::vector<std::string> best_configs;
    int modules = 0;
    std::error_code ec;
    for (fs::directory_iterator it(root / subdir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.ends_with(".best_config")) {
            best_configs.push_back(name);
        } else if (name.ends_with(".py")) {
            ++modules;
        }
    }
    std::sort(best_configs.begin(), best_configs.end());
    const std::vector<fs::path> devices = subdirectories(root / "triton");
    for (const std::string& name : best_configs) {
        if (cancelled(cancel)) {
            break;
        }
        auto best = read_parsed<BestConfig>(root / subdir / name, parse_best_config);
        if (!best) {
            continue;
        }
        std::optional<bool> from_module;
        if (best->triton_cache_hash) {
            for (const fs::path& device : devices) {
                const fs::path dir = device / *best->triton_cache_hash;
                if (fs::is_directory(dir, ec)) {
                    auto kernel = read_triton_kernel_dir(dir);
                    if (kernel && !kernel->module_key.empty()) {
                        from_module = kernel->module_key == module_key;
                    }
                    break;
                }
            }
        }
        if (from_module.value_or(modules == 1)) {
            out.push_back({subdir + "/" + name, std::move(*best)});
        }
    }
    return out;
}

std::map<std::string, BestConfig> read_best_configs_of(const fs::path& root, const FxGraphEntry& fx,
                                                       const std::atomic<bool>* cancel) {
    std::map<std::string, BestConfig> found;
    for (const auto& tuner : fx.autotuners) {
        if (cancelled(cancel)) {
            break;
        }
        if (tuner.best_config_path.empty()) {
            continue;
        }
        const std::string path = cache_relative_path(tuner.best_config_path);
        if (auto best = read_parsed<BestConfig>(root / path, parse_best_config)) {
            found.emplace(path, std::move(*best));
        }
    }
    return found;
}

TritonKernelDir bundled_triton_kernel(const TritonKernelArtifacts& artifacts) {
    TritonKernelDir dir;
    dir.hash = artifacts.kernel_hash;
    dir.device = std::to_string(artifacts.device);
    for (const auto& file : artifacts.files) {
        dir.files.push_back({file.name, file.payload.size()});
        // __grp__*.json lists a kernel's files; the other .json is its metadata.
        if (file.name.ends_with(".json") && !is_triton_group_file_name(file.name)) {
            if (auto meta = parse_triton_metadata(file.payload)) {
                dir.metadata = std::move(*meta);
            }
        } else if (file.name.ends_with(".ptx")) {
            if (auto ptx = parse_ptx(file.payload)) {
                dir.ptx = std::move(*ptx);
            }
        }
    }
    if (dir.metadata) {
        dir.kernel_name = dir.metadata->name;
    } else {
        for (const auto& file : dir.files) {
            if (!is_triton_group_file_name(file.name)) {
                dir.kernel_name = std::string(stem_of(file.name));
                break;
            }
        }
    }
    if (dir.ptx && !dir.ptx->files.empty()) {
        dir.module_path = dir.ptx->files.front();
        dir.module_key = module_key_from_path(dir.module_path);
    }
    return dir;
}

std::vector<BenchmarkCache> read_benchmark_caches(const fs::path& root) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(root / "cache", ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec) && !is_temp_name(it->path().filename().string())) {
            files.push_back(it->path());
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<BenchmarkCache> out;
    for (const fs::path& file : files) {
        if (auto cache = read_parsed<BenchmarkCache>(file, parse_benchmark_cache)) {
            out.push_back(std::move(*cache));
        }
    }
    return out;
}

std::vector<AotUse> find_aot_entries_using(const fs::path& root, std::string_view fx_key,
                                           const std::atomic<bool>* cancel) {
    // aotautograd/<key>/<entry>
    std::vector<std::pair<std::string, fs::path>> entries;
    std::error_code ec;
    for (fs::directory_iterator keys(root / "aotautograd", ec), end; !ec && keys != end;
         keys.increment(ec)) {
        std::error_code inner;
        for (fs::directory_iterator it(keys->path(), inner), last; !inner && it != last;
             it.increment(inner)) {
            if (it->is_regular_file(inner) && !is_temp_name(it->path().filename().string())) {
                entries.emplace_back(keys->path().filename().string(), it->path());
            }
        }
    }
    std::ranges::sort(entries);
    std::vector<AotUse> uses;
    for (const auto& [key, file] : entries) {
        if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
            break;
        }
        auto aot = load_aot_autograd_entry(file);
        if (!aot) {
            continue;
        }
        const std::string path = file.lexically_relative(root).generic_string();
        if (aot->forward && aot->forward->key == fx_key) {
            uses.push_back({key, path, GraphRole::Forward});
        }
        if (aot->backward && aot->backward->key == fx_key) {
            uses.push_back({key, path, GraphRole::Backward});
        }
    }
    return uses;
}

Result<std::map<std::string, GraphFacts>> read_graph_facts(const Scan& scan,
                                                           const ProgressFn& progress) {
    std::vector<Entry> graphs;
    for (auto& entry : scan.entries()) {
        if (entry.kind == FileKind::FxGraph || entry.kind == FileKind::AotAutograd) {
            graphs.push_back(std::move(entry));
        }
    }
    std::map<std::string, GraphFacts> facts;
    std::vector<std::pair<std::string, std::string>> runs; // (fx key, aot key), path order
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        const Entry& entry = graphs[i];
        if (!report_progress(progress, {ProgressStage::Reading, ProgressUnit::Entries, i,
                                        graphs.size(), 0, entry.path})) {
            return cachelens::cancelled();
        }
        if (entry.kind == FileKind::FxGraph) {
            if (auto fx = load_fx_graph_entry(scan.root / entry.path)) {
                facts[entry.key].role = fx->role;
            }
            continue;
        }
        if (auto aot = load_aot_autograd_entry(scan.root / entry.path)) {
            for (const auto& link : {aot->forward, aot->backward}) {
                if (link && !link->key.empty()) {
                    runs.emplace_back(link->key, entry.key);
                }
            }
        }
    }
    for (const auto& [fx_key, aot_key] : runs) {
        auto found = facts.find(fx_key);
        if (found != facts.end() &&
            std::ranges::find(found->second.aot_keys, aot_key) == found->second.aot_keys.end()) {
            found->second.aot_keys.push_back(aot_key);
        }
    }
    report_progress(
        progress,
        {ProgressStage::Reading, ProgressUnit::Entries, graphs.size(), graphs.size(), 0, {}});
    return facts;
}

} // namespace cachelens::cachedir
