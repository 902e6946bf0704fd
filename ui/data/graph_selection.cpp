#include "data/graph_selection.h"

#include "text/counted.h"
#include "text/engine_text.h"
#include "text/stats_text.h"

#include <QObject>

#include <algorithm>
#include <map>

namespace cachelens::ui {

GraphSelection graphSelection(const std::vector<EntryRef>& refs, const QString& verb,
                              const std::function<bool(const std::filesystem::path&)>& accept) {
    GraphSelection selection;
    std::map<std::string, int> ignoredKinds;
    int otherRoots = 0;
    int refused = 0;
    for (const auto& ref : refs) {
        if (accept && !accept(ref.root)) {
            ++refused;
            continue;
        }
        if (selection.root.empty()) {
            selection.root = ref.root;
        }
        if (ref.root != selection.root) {
            ++otherRoots;
            continue;
        }
        const auto kind = ref.entry.kind;
        if (kind != cachedir::FileKind::FxGraph && kind != cachedir::FileKind::AotAutograd) {
            ++ignoredKinds[std::string(cachedir::to_string(kind))];
            continue;
        }
        if (std::ranges::find(selection.keys, ref.entry.key) == selection.keys.end()) {
            selection.keys.push_back(ref.entry.key);
        }
    }
    for (const auto& [kind, count] : ignoredKinds) {
        selection.ignored << QObject::tr("%1 ignored: only FX graph and AOT entries are %2")
                                 .arg(counted(count, kind + " entry"), verb);
    }
    if (otherRoots > 0) {
        selection.ignored << QObject::tr("%1 of other roots ignored: entries are %2 from one "
                                         "root at a time")
                                 .arg(counted(otherRoots, "entry"), verb);
    }
    if (refused > 0) {
        selection.ignored << QObject::tr("%1 ignored: not in a root they can be %2 from")
                                 .arg(counted(refused, "entry"), verb);
    }
    return selection;
}

QString keysHtml(const std::vector<std::string>& keys, std::size_t shown) {
    QStringList parts;
    for (std::size_t i = 0; i < keys.size() && i < shown; ++i) {
        parts << QStringLiteral("<tt>%1</tt>").arg(text(keys[i]).toHtmlEscaped());
    }
    if (keys.size() > shown) {
        parts << QObject::tr("and %1 more").arg(keys.size() - shown);
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace cachelens::ui
