#pragma once

// The question a dialog asks before it writes (import, pull, push, making a
// best config): Yes or No, No the default, the question shown as plain text
// whatever it holds (it names cache dirs, keys and configs from a cache).

#include <QString>

class QWidget;

namespace cachelens::ui {

// True when the user answered Yes.
bool askBeforeWriting(QWidget* parent, const QString& title, const QString& question);

} // namespace cachelens::ui
