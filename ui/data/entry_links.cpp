#include "data/entry_links.h"

#include "text/engine_text.h"

namespace cachelens::ui {

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

QString tritonDirPath(const cachedir::TritonKernelDir& dir) {
    return text(cachedir::triton_dir_path(dir));
}

} // namespace cachelens::ui
