#include "models/kernel_files_model.h"

#include "text/engine_text.h"
#include "text/plain_text.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_links.h>
#include <cachelens/core/format.h>

#include <QFontDatabase>

#include <optional>

namespace cachelens::ui {

namespace {

// A file row's internal id: its kernel's index + 1; kernel rows have 0.
constexpr quintptr kKernelRow = 0;

} // namespace

std::vector<KernelDirItem> bundleKernelItems(const cachedir::FxGraphEntry& fx) {
    std::vector<KernelDirItem> out;
    for (const auto& artifacts : fx.triton_artifacts) {
        KernelDirItem item;
        item.dir = cachedir::bundled_triton_kernel(artifacts);
        for (const auto& file : artifacts.files) {
            item.payloads.push_back(file.payload);
        }
        out.push_back(std::move(item));
    }
    return out;
}

KernelFilesModel::KernelFilesModel(QObject* parent)
    : QAbstractItemModel(parent) {}

void KernelFilesModel::setKernels(std::vector<KernelDirItem> kernels) {
    beginResetModel();
    kernels_ = std::move(kernels);
    endResetModel();
}

void KernelFilesModel::clear() {
    setKernels({});
}

std::optional<KernelFilesModel::FileRef> KernelFilesModel::fileAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || index.internalId() == kKernelRow) {
        return std::nullopt;
    }
    return FileRef{&kernels_[index.internalId() - 1], static_cast<std::size_t>(index.row())};
}

QModelIndex KernelFilesModel::kernelIndex(int kernel) const {
    return index(kernel, 0);
}

QModelIndex KernelFilesModel::findFile(int kernel, const QString& suffix) const {
    const QModelIndex parentIndex = kernelIndex(kernel);
    if (!parentIndex.isValid()) {
        return {};
    }
    const auto& files = kernels_[static_cast<std::size_t>(kernel)].dir.files;
    for (std::size_t row = 0; row < files.size(); ++row) {
        if (text(files[row].name).endsWith(suffix)) {
            return index(static_cast<int>(row), 0, parentIndex);
        }
    }
    return {};
}

QModelIndex KernelFilesModel::fileToShowFirst(int kernel) const {
    const QModelIndex parentIndex = kernelIndex(kernel);
    if (!parentIndex.isValid()) {
        return {};
    }
    const auto& files = kernels_[static_cast<std::size_t>(kernel)].dir.files;
    int best = 0;
    std::optional<std::size_t> chosen;
    for (std::size_t row = 0; row < files.size(); ++row) {
        const int rank = cachedir::triton_file_type(files[row].name).show_first;
        if (rank > 0 && (best == 0 || rank < best)) {
            best = rank;
            chosen = row;
        }
    }
    return chosen ? index(static_cast<int>(*chosen), 0, parentIndex) : QModelIndex();
}

// Triton's file names are the engine's to read (cachedir::triton_file_type).
QString KernelFilesModel::fileType(const QString& name) {
    const auto type = cachedir::triton_file_type(name.toStdString());
    return QString::fromUtf8(type.description.data(),
                             static_cast<qsizetype>(type.description.size()));
}

bool KernelFilesModel::isBinary(const QString& name) {
    return cachedir::triton_file_type(name.toStdString()).binary;
}

QModelIndex KernelFilesModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    if (!parent.isValid()) {
        return createIndex(row, column, kKernelRow);
    }
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex KernelFilesModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kKernelRow) {
        return {};
    }
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kKernelRow);
}

int KernelFilesModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) {
        return static_cast<int>(kernels_.size());
    }
    if (parent.column() != 0 || parent.internalId() != kKernelRow) {
        return 0;
    }
    return static_cast<int>(kernels_[static_cast<std::size_t>(parent.row())].dir.files.size());
}

int KernelFilesModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant KernelFilesModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) {
        return {};
    }
    if (index.internalId() == kKernelRow) {
        const KernelDirItem& kernel = kernels_[static_cast<std::size_t>(index.row())];
        switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
            case NameColumn:
                // Candidates share a name: the hash tells them apart.
                return kernel.dir.kernel_name.empty()
                           ? text(kernel.dir.hash)
                           : QStringLiteral("%1 [%2]").arg(text(kernel.dir.kernel_name),
                                                           text(kernel.dir.hash).left(8));
            case SizeColumn:
                return text(format_bytes(kernel.dir.total_size()));
            default:
                if (kernel.dir.metadata) {
                    return QStringLiteral("warps %1, stages %2")
                        .arg(kernel.dir.metadata->num_warps.value_or(0))
                        .arg(kernel.dir.metadata->num_stages.value_or(0));
                }
                return kernel.location.isEmpty() ? QStringLiteral("kernel (in the entry)")
                                                 : QStringLiteral("kernel dir");
            }
        case Qt::ToolTipRole:
            return literalText((kernel.location.isEmpty()
                                    ? QStringLiteral("carried in the FX entry: ")
                                    : kernel.location + QStringLiteral("\n")) +
                               text(kernel.dir.hash));
        default:
            return {};
        }
    }
    const auto ref = fileAt(index);
    const cachedir::TritonFile& file = ref->info();
    const QString name = text(file.name);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: {
            // Every file is named after the kernel, which its row (or the
            // tab's title) already shows: the rest tells them apart.
            const QString kernel = text(ref->kernel->dir.kernel_name);
            QString shown = name;
            if (!kernel.isEmpty()) {
                shown.replace(kernel, QString());
            }
            return shown.isEmpty() ? name : shown;
        }
        case SizeColumn:
            return text(format_bytes(file.size));
        default:
            return fileType(name);
        }
    case Qt::ToolTipRole:
        return literalText(QStringLiteral("%1\n%2 bytes").arg(name).arg(file.size));
    case Qt::TextAlignmentRole:
        return index.column() == SizeColumn
                   ? QVariant(static_cast<int>(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    default:
        return {};
    }
}

QVariant KernelFilesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case NameColumn:
        return QStringLiteral("File");
    case SizeColumn:
        return QStringLiteral("Size");
    case TypeColumn:
        return QStringLiteral("Type");
    default:
        return {};
    }
}

} // namespace cachelens::ui
