#pragma once

// The Kernels tab's file list: compiled Triton kernels (one per
// triton/<device>/<hash>/ dir, or per kernel carried in an FX entry's bundle)
// with their files (source, TTIR, TTGIR, LLVM IR, PTX, cubin, metadata). A
// tree: kernels at the top, their files below. A file's bytes come from the
// disk (a dir in the cache) or from the entry (a bundle), see fileAt().

#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/triton_kernel.h>

#include <QAbstractItemModel>
#include <QString>

#include <optional>
#include <string_view>
#include <vector>

namespace cachelens::ui {

struct KernelDirItem {
    cachedir::TritonKernelDir dir; // files, metadata, PTX facts
    QString location;              // triton/<device>/<hash> relative to the root; empty: a bundle
    // For a bundle: each file's bytes, in the order of dir.files (views into
    // the entry, which the owner keeps alive).
    std::vector<std::string_view> payloads;
};

// The Triton kernels an FX entry carries, parsed like dirs on disk (metadata,
// PTX); payloads view into `fx`.
std::vector<KernelDirItem> bundleKernelItems(const cachedir::FxGraphEntry& fx);

class KernelFilesModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { NameColumn, SizeColumn, TypeColumn, ColumnCount };

    struct FileRef {
        const KernelDirItem* kernel = nullptr;
        std::size_t file = 0; // index into kernel->dir.files
        const cachedir::TritonFile& info() const { return kernel->dir.files[file]; }
    };

    explicit KernelFilesModel(QObject* parent = nullptr);

    void setKernels(std::vector<KernelDirItem> kernels);
    void clear();
    const std::vector<KernelDirItem>& kernels() const { return kernels_; }

    // The file a (column-any) index names; nullopt for a kernel row.
    std::optional<FileRef> fileAt(const QModelIndex& index) const;
    QModelIndex kernelIndex(int kernel) const;
    // The index of the first file of `kernel` whose name ends with `suffix`.
    QModelIndex findFile(int kernel, const QString& suffix) const;

    // "PTX", "cubin (binary)", ...; and whether a file is text to show.
    // The file of `kernel` to show first: what the GPU runs, as text.
    QModelIndex fileToShowFirst(int kernel) const;
    static QString fileType(const QString& name);
    static bool isBinary(const QString& name);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<KernelDirItem> kernels_;
};

} // namespace cachelens::ui
