// cachelens-gui: the desktop app. Opens the user's cache (or the cache dirs,
// bundle files and Redis servers given), or the sample cache when there is none;
// --screenshot renders a state for the docs and the tests and exits.

#include "command_line.h"
#include "main_window.h"
#include "startup_script.h"

#include <cachelens/cachedir/default_dir.h>
#include <cachelens/catalog/catalog.h>

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QStringList>
#include <QTimer>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>

namespace {

namespace fs = std::filesystem;

// $TORCHINDUCTOR_CACHE_DIR, else PyTorch's default cache dir, else the sample
// cache that ships with cachelens (installed, or in the source tree).
std::optional<fs::path> defaultCacheDir() {
    std::error_code error;
    for (const fs::path& dir : {cachelens::cachedir::inductor_cache_dir(),
                                cachelens::cachedir::default_inductor_cache_dir()}) {
        if (fs::is_directory(dir, error)) {
            return dir;
        }
    }
    const QString installed =
        QCoreApplication::applicationDirPath() + "/../share/cachelens/sample-cache";
    for (const QString& sample : {installed, QStringLiteral(CACHELENS_SOURCE_SAMPLE_CACHE)}) {
        if (QFileInfo(sample).isDir()) {
            return QDir::cleanPath(sample).toStdString();
        }
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
    // Read before QApplication starts: --help, --version and a bad option
    // need no display.
    QStringList arguments;
    for (int i = 0; i < argc; ++i) {
        arguments << QString::fromLocal8Bit(argv[i]);
    }
    const cachelens::ui::GuiCommandLine options =
        cachelens::ui::parseCommandLine(arguments, QStringLiteral(CACHELENS_VERSION));
    using Outcome = cachelens::ui::GuiCommandLine::Outcome;
    if (options.outcome == Outcome::Help || options.outcome == Outcome::Version) {
        std::fputs(qPrintable(options.message), stdout);
        return 0;
    }
    if (options.outcome == Outcome::Error) {
        std::fprintf(stderr, "cachelens-gui: %s\n", qPrintable(options.message));
        return 2;
    }

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("cachelens"));
    QApplication::setOrganizationName(QStringLiteral("cachelens"));
    QApplication::setApplicationVersion(QStringLiteral(CACHELENS_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("io.github.cachelens.cachelens"));

    const QString catalogPath =
        !options.catalogPath.isEmpty()
            ? options.catalogPath
            : QString::fromStdString(cachelens::catalog::default_catalog_path().string());
    cachelens::ui::StartupRequest request = options.request;
    if (options.openDefault) {
        if (auto dir = defaultCacheDir()) {
            request.open.push_back(*dir);
            // Shown among every cache dir of the catalog, not alone.
            request.browseOpened = false;
        }
    }

    cachelens::ui::MainWindow window(catalogPath);
    const QString screenshotFile = options.screenshot;
    if (!screenshotFile.isEmpty()) {
        window.resize(options.screenshotSize);
        QObject::connect(&window, &cachelens::ui::MainWindow::requestDone, &window, [&] {
            QWidget* target = window.screenshotTarget();
            const bool saved = target->grab().save(screenshotFile);
            if (!saved) {
                std::fprintf(stderr, "cachelens-gui: cannot write %s\n",
                             qPrintable(screenshotFile));
            }
            QApplication::exit(saved ? 0 : 1);
        });
        // A state that never settles must not hang a docs build.
        QTimer::singleShot(120'000, &app, [] {
            std::fprintf(stderr, "cachelens-gui: gave up waiting for the window to settle\n");
            QApplication::exit(1);
        });
    }
    window.show();
    window.runStartupRequest(request);
    return QApplication::exec();
}
