#pragma once

// Links between entries of one cache dir, as the detail tabs show them: an
// AOT entry names its FX graphs, an FX entry its wrapper module, kernel
// modules, best_configs and Triton kernels, a module the Triton kernels
// compiled from it, a best_config its winner's cubin. Plus the two lookups
// that need the disk (a module's Triton kernels and best_configs), meant to
// run off the GUI thread.

#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/file_kind.h>
#include <cachelens/cachedir/triton_kernel.h>

#include <QMetaType>
#include <QModelIndex>
#include <QString>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::ui {

// What activating a link asks for: EntryTab::followRequested(kind, target).
struct EntryLink {
    cachedir::FileKind kind = cachedir::FileKind::Unknown;
    QString target; // a key, a Triton hash or a path relative to the root

    bool operator==(const EntryLink&) const = default;
    // "fxgraph f3gun…" for menus.
    QString describe() const;
};

// The roles under which models say where a cell links, the same in every
// model so that a view (or a proxy over it) can follow any of them.
inline constexpr int kLinkKindRole = Qt::UserRole + 100;   // int(FileKind)
inline constexpr int kLinkTargetRole = Qt::UserRole + 101; // QString

// The link at `index` (through any proxy), or nullopt.
std::optional<EntryLink> linkAt(const QModelIndex& index);

// ".../2c/1d47….best_config" -> "2c/1d47….best_config": where a file an
// autotuner recorded on the compiling machine sits in this cache dir.
std::string cacheRelativePath(std::string_view recordedPath);

// The module key in a benchmark choice name ("triton_mm-c4xg…" -> "c4xg…"),
// or empty when the choice names none.
std::string moduleKeyOfChoice(std::string_view choice);

// The Triton kernel dirs (triton/<device>/<hash>/) compiled from the module
// `moduleKey`, as their PTX names it. Only dirs holding a file of one of
// `kernelNames` are read, so a large cache costs a directory listing. Dirs
// that cannot be read are skipped. Stops early when `cancel` is set.
std::vector<cachedir::TritonKernelDir>
findTritonDirsOfModule(const std::filesystem::path& root, const std::string& moduleKey,
                       const std::vector<std::string>& kernelNames,
                       const std::atomic<bool>* cancel = nullptr);

// triton/<device>/<hash>, relative to the root, for a kernel dir read from it.
QString tritonDirPath(const cachedir::TritonKernelDir& dir);

struct LocatedBestConfig {
    std::string path; // relative to the root
    cachedir::BestConfig config;
};

// The .best_configs beside the module `moduleKey` (<xx>/*.best_config) whose
// winner was compiled from it: their winner's Triton dir names the module, or
// (when that dir is gone) the module is the only one in its dir.
std::vector<LocatedBestConfig> findBestConfigsOfModule(const std::filesystem::path& root,
                                                       const std::string& moduleKey,
                                                       const std::atomic<bool>* cancel = nullptr);

} // namespace cachelens::ui

Q_DECLARE_METATYPE(cachelens::ui::EntryLink)
