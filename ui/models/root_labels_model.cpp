#include "models/root_labels_model.h"

#include "models/roots_model.h"
#include "text/plain_text.h"

#include <QApplication>
#include <QFont>
#include <QStyle>

namespace cachelens::ui {

RootLabelsModel::RootLabelsModel(ProvenanceFn provenance, QObject* parent)
    : QIdentityProxyModel(parent)
    , provenance_(std::move(provenance)) {
    connect(this, &QAbstractItemModel::modelReset, this, [this] { roots_.clear(); });
}

RootProvenance RootLabelsModel::knownRow(const QModelIndex& index) const {
    if (!index.isValid() || index.parent().isValid()) {
        return {};
    }
    const QString root = QIdentityProxyModel::data(index, RootsModel::RootPathRole).toString();
    if (root.isEmpty()) {
        return {};
    }
    auto known = roots_.constFind(root);
    if (known == roots_.cend()) {
        known = roots_.insert(root, provenance_(root.toStdString()));
    }
    return *known;
}

QVariant RootLabelsModel::data(const QModelIndex& index, int role) const {
    const bool labelled = role == Qt::DisplayRole || role == Qt::ToolTipRole ||
                          role == Qt::DecorationRole || role == Qt::FontRole ||
                          role == IsBundleRole || role == IsRedisRole;
    const RootProvenance known = labelled ? knownRow(index) : RootProvenance{};
    if (role == IsBundleRole) {
        return known.kind == RootProvenance::Kind::Bundle;
    }
    if (role == IsRedisRole) {
        return known.kind == RootProvenance::Kind::Redis;
    }
    switch (known.kind) {
    case RootProvenance::Kind::Bundle:
        return bundleData(index, role, known);
    case RootProvenance::Kind::Redis:
        return redisData(index, role,
                         known.origin.isEmpty()
                             ? QIdentityProxyModel::data(index, RootsModel::RootPathRole).toString()
                             : known.origin);
    case RootProvenance::Kind::CacheDir:
        break;
    }
    return QIdentityProxyModel::data(index, role);
}

QVariant RootLabelsModel::bundleData(const QModelIndex& index, int role,
                                     const RootProvenance& known) const {
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
        return literalText(tr("Bundle %1, opened read-only: its safe artifacts, staged in %2.\n%3")
                               .arg(known.origin.isEmpty() ? tr("(origin unknown)") : known.origin,
                                    QString::fromStdString(root.string()),
                                    known.report.join(u'\n')));
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
