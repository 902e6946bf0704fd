#pragma once

// The sidebar's face of RootsModel: a staged bundle (bundle_work.h) reads as
// the bundle's file name, marked as a read-only bundle, with where it came
// from in its tooltip; a Redis server's mirror (remote_work.h) reads as the
// server's URL, marked as Redis. Everything else passes through unchanged.

#include <QHash>
#include <QIdentityProxyModel>

#include <filesystem>

namespace cachelens::ui {

class RootLabelsModel : public QIdentityProxyModel {
    Q_OBJECT

public:
    enum Role {
        IsBundleRole = Qt::UserRole + 100, // true on a staged bundle's root row
        IsRedisRole,                       // true on a Redis server's mirror root row
    };

    // `stagingBase`: where bundles are staged (bundle_work::stagingBase());
    // `mirrorBase`: where Redis servers are mirrored (remote_work::mirrorBase()).
    RootLabelsModel(std::filesystem::path stagingBase, std::filesystem::path mirrorBase,
                    QObject* parent = nullptr);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    enum class RootType { Plain, Bundle, Redis };
    // A root row's type, with the label a Redis root reads as.
    struct Known {
        RootType type = RootType::Plain;
        QString server;
    };
    Known knownRow(const QModelIndex& index) const;
    QVariant bundleData(const QModelIndex& index, int role) const;
    QVariant redisData(const QModelIndex& index, int role, const QString& server) const;

    std::filesystem::path stagingBase_;
    std::filesystem::path mirrorBase_;
    // Root location -> what it is: asked on every paint, answered from the
    // filesystem once per reset.
    mutable QHash<QString, Known> roots_;
};

} // namespace cachelens::ui
