#pragma once

// Links between entries of one cache dir, as the detail tabs show them: an
// AOT entry names its FX graphs, an FX entry its wrapper module, kernel
// modules, best_configs and Triton kernels, a module the Triton kernels
// compiled from it, a best_config its winner's cubin. Which entries those
// are is the engine's (cachedir/entry_links.h); this is their Qt face.

#include <cachelens/cachedir/entry_links.h>
#include <cachelens/cachedir/file_kind.h>

#include <QMetaType>
#include <QModelIndex>
#include <QString>

#include <optional>

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

// triton/<device>/<hash> (cachedir::triton_dir_path()), for a link target.
QString tritonDirPath(const cachedir::TritonKernelDir& dir);

} // namespace cachelens::ui

Q_DECLARE_METATYPE(cachelens::ui::EntryLink)
