#include "models/root_labels_model.h"

#include "jobs/bundle_work.h"
#include "jobs/remote_work.h"
#include "text/plain_text.h"
#include "models/roots_model.h"

#include <QApplication>
#include <QFont>
#include <QStyle>

namespace cachelens::ui {

RootLabelsModel::RootLabelsModel(std::filesystem::path stagingBase,
                                 std::filesystem::path mirrorBase, QObject* parent)
    : QIdentityProxyModel(parent)
    , stagingBase_(std::move(stagingBase))
    , mirrorBase_(std::move(mirrorBase)) {
    connect(this, &QAbstractItemModel::modelReset, this, [this] { roots_.clear(); });
}

RootLabelsModel::Known RootLabelsModel::knownRow(const QModelIndex& index) const {
    if (!index.isValid() || index.parent().isValid()) {
        return {};
    }
    const QString root = QIdentityProxyModel::data(index, RootsModel::RootPathRole).toString();
    if (root.isEmpty()) {
        return {};
    }
    auto known = roots_.constFind(root);
    if (known == roots_.cend()) {
        const std::filesystem::path path = root.toStdString();
        Known found;
        if (bundle_work::isStagedBundle(path, stagingBase_)) {
            found.type = RootType::Bundle;
        } else if (!mirrorBase_.empty() && remote_work::isMirrorRoot(path, mirrorBase_)) {
            found.type = RootType::Redis;
            found.server = remote_work::mirrorOrigin(path).value_or(root);
        }
        known = roots_.insert(root, found);
    }
    return *known;
}

QVariant RootLabelsModel::data(const QModelIndex& index, int role) const {
    const bool labelled = role == Qt::DisplayRole || role == Qt::ToolTipRole ||
                          role == Qt::DecorationRole || role == Qt::FontRole ||
                          role == IsBundleRole || role == IsRedisRole;
    const Known known = labelled ? knownRow(index) : Known{};
    if (role == IsBundleRole) {
        return known.type == RootType::Bundle;
    }
    if (role == IsRedisRole) {
        return known.type == RootType::Redis;
    }
    switch (known.type) {
    case RootType::Bundle:
        return bundleData(index, role);
    case RootType::Redis:
        return redisData(index, role, known.server);
    case RootType::Plain:
        break;
    }
    return QIdentityProxyModel::data(index, role);
}

QVariant RootLabelsModel::bundleData(const QModelIndex& index, int role) const {
    const std::filesystem::path root =
        QIdentityProxyModel::data(index, RootsModel::RootPathRole).toString().toStdString();
    const bool nameColumn = index.column() == RootsModel::Name;
    switch (role) {
    case Qt::DisplayRole:
        if (nameColumn) {
            return tr("%1 (bundle)").arg(QString::fromStdString(root.filename().string()));
        }
        break;
    case Qt::ToolTipRole: {
        const auto origin = bundle_work::stagedOrigin(root);
        return literalText(
            tr("Bundle %1, opened read-only: its safe artifacts, staged in %2.\n%3")
                .arg(origin ? QString::fromStdString(origin->string()) : tr("(origin unknown)"),
                     QString::fromStdString(root.string()), bundle_work::stagedReport(root)));
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

QVariant RootLabelsModel::redisData(const QModelIndex& index, int role,
                                    const QString& server) const {
    const bool nameColumn = index.column() == RootsModel::Name;
    switch (role) {
    case Qt::DisplayRole:
        if (nameColumn) {
            return tr("%1 (Redis)").arg(server);
        }
        break;
    case Qt::ToolTipRole:
        return literalText(
            tr("Redis server %1, browsed read-only: PyTorch's remote cache there, mirrored "
               "into %2 as PyTorch would lay out a remote hit. Refresh mirrors it again.")
                .arg(server,
                     QIdentityProxyModel::data(index, RootsModel::RootPathRole).toString()));
    case Qt::DecorationRole:
        if (nameColumn) {
            return QApplication::style()->standardIcon(QStyle::SP_DriveNetIcon);
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
