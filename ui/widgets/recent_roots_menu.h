#pragma once

// File > Open recent: the cache dirs indexed last, newest first, kept in the
// settings across sessions.

#include <QMenu>
#include <QStringList>

namespace cachelens::ui {

class RecentRootsMenu : public QMenu {
    Q_OBJECT

public:
    explicit RecentRootsMenu(const QString& title, QWidget* parent = nullptr);

    // Puts `root` first (once) and saves the list.
    void add(const QString& root);

signals:
    void rootChosen(const QString& root);

private:
    void rebuild();

    QStringList roots_;
};

} // namespace cachelens::ui
