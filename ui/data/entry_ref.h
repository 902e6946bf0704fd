#pragma once

// Which entry the user means: enough to load it from its dir with the engine
// (cachedir::load_entry) and to find it again in the catalog.

#include <cachelens/cachedir/cache_dir.h>

#include <QMetaType>

#include <filesystem>
#include <string>

namespace cachelens::ui {

struct EntryRef {
    std::filesystem::path root; // the cache dir
    cachedir::Entry entry;      // kind, key, path (relative to root), name, size, mtime

    bool valid() const { return !root.empty() && !entry.path.empty(); }
    bool operator==(const EntryRef& other) const {
        return root == other.root && entry.path == other.entry.path;
    }
};

} // namespace cachelens::ui

Q_DECLARE_METATYPE(cachelens::ui::EntryRef)
