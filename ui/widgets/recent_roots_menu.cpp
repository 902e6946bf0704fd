#include "widgets/recent_roots_menu.h"

#include <QSettings>

namespace cachelens::ui {

namespace {

constexpr int kMaxRecentRoots = 10;
constexpr const char* kSettingsKey = "recentRoots";

} // namespace

RecentRootsMenu::RecentRootsMenu(const QString& title, QWidget* parent)
    : QMenu(title, parent)
    , roots_(QSettings().value(kSettingsKey).toStringList()) {
    rebuild();
}

void RecentRootsMenu::add(const QString& root) {
    roots_.removeAll(root);
    roots_.prepend(root);
    while (roots_.size() > kMaxRecentRoots) {
        roots_.removeLast();
    }
    rebuild();
    QSettings().setValue(kSettingsKey, roots_);
}

void RecentRootsMenu::rebuild() {
    clear();
    for (const QString& root : roots_) {
        addAction(root, this, [this, root] { emit rootChosen(root); });
    }
    setEnabled(!roots_.isEmpty());
}

} // namespace cachelens::ui
