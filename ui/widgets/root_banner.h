#pragma once

// The banner over a read-only root's entries: a bundle (where it came from,
// its safety report, a link to import it) or a Redis server's mirror (its
// server, what the last mirroring reported, links to refresh and pull).
// Hidden for a cache dir. Text from the cache is escaped: the banner is rich
// text only for its links.

#include "data/root_provenance.h"

#include <QLabel>

#include <filesystem>

namespace cachelens::ui {

class RootBanner : public QLabel {
    Q_OBJECT

public:
    explicit RootBanner(QWidget* parent = nullptr);

    void showRoot(const std::filesystem::path& root, const RootProvenance& provenance);

signals:
    void importRequested();
    void pullRequested();
    void refreshRequested();
};

} // namespace cachelens::ui
