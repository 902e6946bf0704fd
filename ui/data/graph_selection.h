#pragma once

// What of a selection in the entry table can go into a bundle or to and from
// a Redis server: the FX graph and AOT keys of one root (the first selected
// entry's, among the roots `accept` takes). The rest is listed in `ignored`,
// a line per reason, for the status bar and the dialogs.

#include "data/entry_ref.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cachelens::ui {

struct GraphSelection {
    std::filesystem::path root;
    std::vector<std::string> keys; // each once, in selection order
    QStringList ignored;
};

// `verb` says what happens to the keys ("exported", "pulled", "pushed");
// `accept` which roots may be the source (empty: any).
GraphSelection graphSelection(const std::vector<EntryRef>& refs, const QString& verb,
                              const std::function<bool(const std::filesystem::path&)>& accept = {});

// A dialog's line naming the keys it acts on: the first `shown` as
// <tt>key</tt>, then "and N more".
QString keysHtml(const std::vector<std::string>& keys, std::size_t shown = 4);

} // namespace cachelens::ui
