#pragma once

// The tinted message labels above tables and forms (an error, a refused
// bundle, a Redis root's server). Translucent over the palette's background,
// so they read on light and dark themes and the text keeps the palette's
// colour.

#include <QString>

class QLabel;

namespace cachelens::ui {

enum class BannerTone {
    Error,   // red: something failed or was refused
    Warning, // amber: it ran, with a caveat
    Success, // green: the outcome of what the user asked for
    Info,    // blue: what this view is
};

// The style sheet of a QLabel in `tone`.
QString bannerStyle(BannerTone tone);

// A hidden, word-wrapped, selectable plain-text label in `tone`.
QLabel* makeBanner(const QString& objectName, BannerTone tone);

} // namespace cachelens::ui
