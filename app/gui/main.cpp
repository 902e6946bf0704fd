// cachelens-gui: the desktop app. Opens the user's cache (or the cache dirs,
// bundle files and Redis servers given), or the sample cache when there is none;
// --screenshot renders a state for the docs and the tests and exits.

#include "main_window.h"

#include <cachelens/catalog/catalog.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>
#include <filesystem>

namespace {

namespace fs = std::filesystem;

// $TORCHINDUCTOR_CACHE_DIR, else /tmp/torchinductor_$USER, else the sample
// cache that ships with cachelens (installed, or in the source tree).
std::optional<fs::path> defaultCacheDir() {
    const QString fromEnv = qEnvironmentVariable("TORCHINDUCTOR_CACHE_DIR");
    if (!fromEnv.isEmpty() && QFileInfo(fromEnv).isDir()) {
        return fromEnv.toStdString();
    }
    const QString user = qEnvironmentVariable("USER");
    const QString tmp = QStringLiteral("/tmp/torchinductor_") + user;
    if (!user.isEmpty() && QFileInfo(tmp).isDir()) {
        return tmp.toStdString();
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
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("cachelens"));
    QApplication::setOrganizationName(QStringLiteral("cachelens"));
    QApplication::setApplicationVersion(QStringLiteral(CACHELENS_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("io.github.cachelens.cachelens"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Inspector and tuner for PyTorch compile caches."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption open(
        "open",
        "Open this cache dir, this bundle file read-only, or this Redis server's remote cache "
        "(redis://[[user]:password@]host[:port][/db], mirrored and browsed read-only) "
        "(repeatable). Default: $TORCHINDUCTOR_CACHE_DIR, /tmp/torchinductor_$USER, or the "
        "sample cache.",
        "DIR|FILE|URL");
    const QCommandLineOption select("select",
                                    "Select the entry with this key, path or kernel name.", "KEY");
    const QCommandLineOption tab("tab",
                                 "Show this detail tab: overview, debug, guards, source, "
                                 "kernels, autotune.",
                                 "TAB");
    const QCommandLineOption compare("compare", "Compare the selected entry with this FX key.",
                                     "KEY2");
    const QCommandLineOption view(
        "view",
        "Show this page: browse, compare, why (why the selection missed), stats, prune, bench, "
        "import (the Import dialog for the bundle opened), redis (Add Redis Server), pull (the "
        "selection of a Redis root, --into DIR), push (the selection, or the first dir opened, "
        "to the first Redis server opened).",
        "VIEW");
    const QCommandLineOption search("search", "Type this into the search field.", "TEXT");
    const QCommandLineOption maxSize(
        "max-size", "With --view prune: preview a prune to this size (2G, 500M).", "SIZE");
    const QCommandLineOption into(
        "into", "With --view import or pull: the cache dir to write into (default PyTorch's).",
        "DIR");
    const QCommandLineOption catalog(
        "catalog", "The catalog file (default $XDG_DATA_HOME/cachelens/catalog.sqlite).", "PATH");
    const QCommandLineOption screenshot(
        "screenshot",
        "Render the state the other options ask for, save the window to FILE.png "
        "and exit.",
        "FILE.png");
    const QCommandLineOption size("size", "Window size for --screenshot (default 1400x900).", "WxH",
                                  "1400x900");
    parser.addOptions(
        {open, select, tab, compare, view, search, maxSize, into, catalog, screenshot, size});
    parser.process(app);

    if (parser.isSet(tab) && !cachelens::ui::MainWindow::tabFromName(parser.value(tab))) {
        std::fprintf(stderr, "cachelens-gui: unknown tab '%s'\n", qPrintable(parser.value(tab)));
        return 2;
    }
    const QString catalogPath =
        parser.isSet(catalog)
            ? parser.value(catalog)
            : QString::fromStdString(cachelens::catalog::default_catalog_path().string());

    cachelens::ui::StartupRequest request;
    for (const QString& path : parser.values(open)) {
        if (path.startsWith(QLatin1String("redis://")) ||
            path.startsWith(QLatin1String("rediss://"))) {
            request.openRedis << path;
            continue;
        }
        const QFileInfo info(path);
        if (info.isDir()) {
            request.open.emplace_back(path.toStdString());
        } else if (info.isFile()) {
            request.openBundles.emplace_back(path.toStdString());
        } else {
            std::fprintf(stderr, "cachelens-gui: %s: neither a directory nor a bundle file\n",
                         qPrintable(path));
            return 2;
        }
    }
    if (request.open.empty() && request.openBundles.empty() && request.openRedis.isEmpty()) {
        if (auto dir = defaultCacheDir()) {
            request.open.push_back(*dir);
        }
    }
    request.select = parser.value(select);
    request.tab = parser.value(tab);
    request.compare = parser.value(compare);
    request.view = parser.value(view);
    request.search = parser.value(search);
    request.pruneMaxSize = parser.value(maxSize);
    request.importInto = parser.value(into);

    cachelens::ui::MainWindow window(catalogPath);
    const QString screenshotFile = parser.value(screenshot);
    if (!screenshotFile.isEmpty()) {
        const QStringList wh = parser.value(size).split('x');
        window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1400,
                      wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 900);
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
