#pragma once

// The sidebar's face of RootsModel: a staged bundle reads as the bundle's
// file name, marked as a read-only bundle, with where it came from in its
// tooltip; a Redis server's mirror reads as the server's URL, marked as
// Redis. Everything else passes through unchanged. What a root is comes from
// the provenance function (RootJobs::provenance).

#include "data/root_provenance.h"

#include <QHash>
#include <QIdentityProxyModel>

#include <filesystem>
#include <functional>

namespace cachelens::ui {

class RootLabelsModel : public QIdentityProxyModel {
    Q_OBJECT

public:
    enum Role {
        IsBundleRole = Qt::UserRole + 100, // true on a staged bundle's root row
        IsRedisRole,                       // true on a Redis server's mirror root row
    };

    using ProvenanceFn = std::function<RootProvenance(const std::filesystem::path& root)>;
    explicit RootLabelsModel(ProvenanceFn provenance, QObject* parent = nullptr);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    RootProvenance knownRow(const QModelIndex& index) const;
    QVariant bundleData(const QModelIndex& index, int role, const RootProvenance& known) const;
    QVariant redisData(const QModelIndex& index, int role, const QString& server) const;

    ProvenanceFn provenance_;
    // Root location -> what it is: asked on every paint, answered from the
    // filesystem once per reset.
    mutable QHash<QString, RootProvenance> roots_;
};

} // namespace cachelens::ui
