#pragma once

// cachelens-gui's command line, read before the QApplication exists: --help
// and --version need no display, and a bad value of any option stops the
// program (exit 2) with a message naming the option and what it accepts,
// before a window opens.

#include "startup_script.h"

#include <QSize>
#include <QString>
#include <QStringList>

namespace cachelens::ui {

struct GuiCommandLine {
    enum class Outcome { Run, Help, Version, Error };
    Outcome outcome = Outcome::Run;
    // Help: the help text; Version: the version line; Error: what is wrong,
    // naming the option and what it accepts.
    QString message;
    StartupRequest request;
    // No --open: the caller opens the default cache dir (request.open is empty).
    bool openDefault = true;
    QString catalogPath; // empty: the default catalog
    QString screenshot;  // FILE.png, or empty: no screenshot
    QSize screenshotSize{1400, 900};
};

// `arguments` as main() gets them, the program first. Qt's own options
// (-platform, -style, ...) are let through: QApplication takes them.
GuiCommandLine parseCommandLine(const QStringList& arguments, const QString& version);

} // namespace cachelens::ui
