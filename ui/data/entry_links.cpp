#include "data/entry_links.h"

#include <cachelens/core/mapped_file.h>

#include <algorithm>
#include <set>
#include <system_error>

namespace cachelens::ui {

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
bool isBase32Word(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
    });
}

} // namespace

QString EntryLink::describe() const {
    return QString::fromUtf8(cachedir::to_string(kind)) + QLatin1Char(' ') + target;
}

std::optional<EntryLink> linkAt(const QModelIndex& index) {
    const QVariant kind = index.data(kLinkKindRole);
    if (!kind.isValid()) {
        return std::nullopt;
    }
    return EntryLink{static_cast<cachedir::FileKind>(kind.toInt()),
                     index.data(kLinkTargetRole).toString()};
}

std::string cacheRelativePath(std::string_view recordedPath) {
    const auto last = recordedPath.rfind('/');
    if (last == std::string_view::npos || last == 0) {
        return std::string(recordedPath);
    }
    const auto before = recordedPath.rfind('/', last - 1);
    return std::string(recordedPath.substr(before == std::string_view::npos ? 0 : before + 1));
}

std::string moduleKeyOfChoice(std::string_view choice) {
    const auto dash = choice.rfind('-');
    if (dash == std::string_view::npos) {
        return {};
    }
    const std::string_view key = choice.substr(dash + 1);
    // "c" + the 51 characters of sha256_hash().
    if (key.size() != 52 || key.front() != 'c' || !isBase32Word(key.substr(1))) {
        return {};
    }
    return std::string(key);
}

std::vector<cachedir::TritonKernelDir>
findTritonDirsOfModule(const fs::path& root, const std::string& moduleKey,
                       const std::vector<std::string>& kernelNames,
                       const std::atomic<bool>* cancel) {
    std::vector<cachedir::TritonKernelDir> out;
    if (moduleKey.empty() || kernelNames.empty()) {
        return out;
    }
    const std::set<std::string> names(kernelNames.begin(), kernelNames.end());
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
            auto kernel = cachedir::read_triton_kernel_dir(dir);
            if (kernel && kernel->module_key == moduleKey) {
                out.push_back(std::move(*kernel));
            }
        }
    }
    return out;
}

QString tritonDirPath(const cachedir::TritonKernelDir& dir) {
    return QStringLiteral("triton/%1/%2")
        .arg(QString::fromStdString(dir.device), QString::fromStdString(dir.hash));
}

std::vector<LocatedBestConfig> findBestConfigsOfModule(const fs::path& root,
                                                       const std::string& moduleKey,
                                                       const std::atomic<bool>* cancel) {
    std::vector<LocatedBestConfig> out;
    if (moduleKey.size() < 3) {
        return out;
    }
    const std::string subdir = moduleKey.substr(1, 2);
    std::vector<std::string> bestConfigs;
    int modules = 0;
    std::error_code ec;
    for (fs::directory_iterator it(root / subdir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.ends_with(".best_config")) {
            bestConfigs.push_back(name);
        } else if (name.ends_with(".py")) {
            ++modules;
        }
    }
    std::sort(bestConfigs.begin(), bestConfigs.end());
    const std::vector<fs::path> devices = subdirectories(root / "triton");
    for (const std::string& name : bestConfigs) {
        if (cancelled(cancel)) {
            break;
        }
        auto text = read_text_file(root / subdir / name);
        if (!text) {
            continue;
        }
        auto best = cachedir::parse_best_config(*text);
        if (!best) {
            continue;
        }
        std::optional<bool> fromModule;
        if (best->triton_cache_hash) {
            for (const fs::path& device : devices) {
                const fs::path dir = device / *best->triton_cache_hash;
                if (fs::is_directory(dir, ec)) {
                    auto kernel = cachedir::read_triton_kernel_dir(dir);
                    if (kernel && !kernel->module_key.empty()) {
                        fromModule = kernel->module_key == moduleKey;
                    }
                    break;
                }
            }
        }
        if (fromModule.value_or(modules == 1)) {
            out.push_back({subdir + "/" + name, std::move(*best)});
        }
    }
    return out;
}

} // namespace cachelens::ui
