#pragma once

// The sidebar's face of RootsModel: a staged bundle (bundle_work.h) reads as
// the bundle's file name, marked as a read-only bundle, with where it came
// from in its tooltip. Everything else passes through unchanged.

#include <QHash>
#include <QIdentityProxyModel>

#include <filesystem>

namespace cachelens::ui {

class RootLabelsModel : public QIdentityProxyModel {
    Q_OBJECT

public:
    enum Role {
        IsBundleRole = Qt::UserRole + 100, // true on a staged bundle's root row
    };

    // `stagingBase`: where bundles are staged (bundle_work::stagingBase()).
    explicit RootLabelsModel(std::filesystem::path stagingBase, QObject* parent = nullptr);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    bool isBundleRow(const QModelIndex& index) const;

    std::filesystem::path stagingBase_;
    // Root location -> is it a staged bundle: asked on every paint, answered
    // from the filesystem once per reset.
    mutable QHash<QString, bool> bundleRoots_;
};

} // namespace cachelens::ui
