#include "models/root_labels_model.h"

#include "jobs/bundle_work.h"
#include "models/roots_model.h"

#include <QApplication>
#include <QFont>
#include <QStyle>

namespace cachelens::ui {

RootLabelsModel::RootLabelsModel(std::filesystem::path stagingBase, QObject* parent)
    : QIdentityProxyModel(parent)
    , stagingBase_(std::move(stagingBase)) {
    connect(this, &QAbstractItemModel::modelReset, this, [this] { bundleRoots_.clear(); });
}

bool RootLabelsModel::isBundleRow(const QModelIndex& index) const {
    if (!index.isValid() || index.parent().isValid()) {
        return false;
    }
    const QString root = QIdentityProxyModel::data(index, RootsModel::RootPathRole).toString();
    if (root.isEmpty()) {
        return false;
    }
    auto known = bundleRoots_.constFind(root);
    if (known == bundleRoots_.cend()) {
        known = bundleRoots_.insert(root,
                                    bundle_work::isStagedBundle(root.toStdString(), stagingBase_));
    }
    return *known;
}

QVariant RootLabelsModel::data(const QModelIndex& index, int role) const {
    const bool labelled = role == Qt::DisplayRole || role == Qt::ToolTipRole ||
                          role == Qt::DecorationRole || role == Qt::FontRole ||
                          role == IsBundleRole;
    if (!labelled || !isBundleRow(index)) {
        return role == IsBundleRole ? QVariant(false) : QIdentityProxyModel::data(index, role);
    }
    const std::filesystem::path root =
        QIdentityProxyModel::data(index, RootsModel::RootPathRole).toString().toStdString();
    const bool nameColumn = index.column() == RootsModel::Name;
    switch (role) {
    case IsBundleRole:
        return true;
    case Qt::DisplayRole:
        if (nameColumn) {
            return tr("%1 (bundle)").arg(QString::fromStdString(root.filename().string()));
        }
        break;
    case Qt::ToolTipRole: {
        const auto origin = bundle_work::stagedOrigin(root);
        return tr("Bundle %1, opened read-only: its safe artifacts, staged in %2.\n%3")
            .arg(origin ? QString::fromStdString(origin->string()) : tr("(origin unknown)"),
                 QString::fromStdString(root.string()), bundle_work::stagedReport(root));
    }
    case Qt::DecorationRole:
        if (nameColumn) {
            return QApplication::style()->standardIcon(QStyle::SP_FileDialogInfoView);
        }
        break;
    case Qt::FontRole: {
        QFont font = QIdentityProxyModel::data(index, role).value<QFont>();
        font.setItalic(true);
        return font;
    }
    }
    return QIdentityProxyModel::data(index, role);
}

} // namespace cachelens::ui
