#pragma once

// Backgrounds for changed/removed/added lines and passing/failing clauses:
// translucent tints drawn over the palette's base, so the palette's text stays
// readable on light and dark themes alike.

#include <QColor>

namespace cachelens::ui::highlight {

inline QColor changed() {
    return QColor(255, 170, 0, 70);
}
inline QColor removed() {
    return QColor(230, 40, 40, 70);
}
inline QColor added() {
    return QColor(40, 190, 60, 70);
}
inline QColor pass() {
    return QColor(40, 190, 60, 70);
}
inline QColor fail() {
    return QColor(230, 40, 40, 80);
}
inline QColor skipped() {
    return QColor(128, 128, 128, 50);
}

} // namespace cachelens::ui::highlight
