#pragma once

// Where a root of the sidebar came from: a cache dir, a bundle staged
// read-only, or a Redis server's mirror (jobs/root_jobs.h knows which), and
// what bringing it in reported. The banner over a read-only root shows it.

#include <QString>
#include <QStringList>

namespace cachelens::ui {

struct RootProvenance {
    enum class Kind { CacheDir, Bundle, Redis };
    Kind kind = Kind::CacheDir;
    // A bundle's file or a server's URL; empty when not recorded.
    QString origin;
    // A bundle's safety report or what the last mirroring in this session
    // reported: a summary line, then one line per problem or note.
    QStringList report;
};

} // namespace cachelens::ui
