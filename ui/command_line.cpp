#include "command_line.h"

#include "jobs/remote_work.h"
#include "pages/browse_page.h"
#include "text/engine_text.h"

#include <cachelens/core/format.h>

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <optional>

namespace cachelens::ui {

namespace {

constexpr int kMaxWindowSide = 16384;

// Options QGuiApplication and QApplication take (and remove from argv when
// they start): parsed here only to be passed over, never shown.
const char* const kQtOptionsWithValue[] = {
    "platform",        "platformpluginpath",
    "platformtheme",   "plugin",
    "qwindowgeometry", "geometry",
    "qwindowtitle",    "title",
    "qwindowicon",     "icon",
    "session",         "style",
    "stylesheet",      "display",
    "qmljsdebugger",
};
const char* const kQtFlags[] = {"reverse", "widgetcount", "testability",
                                "nograb",  "dograb",      "sync"};

bool isRedisUrl(const QString& text) {
    return text.startsWith(QLatin1String("redis://")) ||
           text.startsWith(QLatin1String("rediss://"));
}

GuiCommandLine failure(QString message) {
    GuiCommandLine out;
    out.outcome = GuiCommandLine::Outcome::Error;
    out.message = std::move(message);
    return out;
}

QString quoted(const QString& text) {
    return u'\'' + text + u'\'';
}

} // namespace

GuiCommandLine parseCommandLine(const QStringList& arguments, const QString& version) {
    QCommandLineParser parser;
    // -platform, -style: Qt's options are single-dash words.
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.setApplicationDescription(
        QStringLiteral("Inspector and tuner for PyTorch compile caches."));
    const QCommandLineOption help({"h", "help"}, "Show this help and exit.");
    const QCommandLineOption versionOption({"v", "version"}, "Show the version and exit.");
    const QCommandLineOption open(
        "open",
        "Open this cache dir, this bundle file read-only, or this Redis server's remote cache "
        "(redis://[[user]:password@]host[:port][/db], mirrored and browsed read-only) "
        "(repeatable). The first dir opened is the one pruned with --view prune, and the one "
        "browsed unless a bundle or a server is opened too. "
        "Default: $TORCHINDUCTOR_CACHE_DIR, torchinductor_$USER in $TMPDIR (else /tmp), or the "
        "sample cache, "
        "among every cache dir of the catalog.",
        "DIR|FILE|URL");
    const QCommandLineOption select(
        "select",
        "Select the entry with this key (or its first characters, at least 4, when they start "
        "one key only), path (relative to its cache dir, or absolute: that entry exactly) or "
        "kernel name; with --view import, also the bundle's artifact with "
        "this key, its findings shown.",
        "KEY|PATH|NAME");
    const QCommandLineOption tab(
        "tab", "Show this detail tab: " + BrowsePage::tabNames().join(QStringLiteral(", ")) + '.',
        "TAB");
    const QCommandLineOption compare(
        "compare",
        "With --select: compare the selected entry with this FX key (or its first "
        "characters).",
        "KEY2");
    const QCommandLineOption view(
        "view",
        "Show this page: browse, compare, why (why the selection missed), stats, prune (the "
        "first dir opened), bench, import (the Import dialog for the bundle opened), redis (Add "
        "Redis Server), pull (the selection of a Redis root, --into DIR), push (the selection, "
        "or the first dir opened, to the first Redis server opened), warmstart (the warm-start "
        "report of --trace), tune (the Benchmarks page's Tune dialog for its first kernel, "
        "with what a tune would try), serving (the Serving page of the first dir opened: a "
        "vLLM or SGLang tree, or a dir in it), live (the Live page watching the first dir opened, "
        "and --trace; with --screenshot the picture is taken once what was written meanwhile "
        "has come in and the watch stopped).",
        "VIEW");
    const QCommandLineOption trace(
        "trace",
        "With --view warmstart: the TORCH_TRACE dir or log to report on; the first dir opened "
        "is the cache dir each miss is compared with. With --view live: the TORCH_TRACE dir "
        "to follow.",
        "DIR|LOG");
    const QCommandLineOption file(
        "file",
        "Show this file on its own, read-only: an OnDiskCache value or an InMemoryCache file "
        "(torch/_inductor/cache.py), as File > Open file does.",
        "FILE");
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
    const QCommandLineOption size("size", "With --screenshot: the window size (default 1400x900).",
                                  "WxH");
    parser.addOptions({help, versionOption, open, select, tab, compare, view, search, maxSize, into,
                       catalog, screenshot, size, trace, file});
    for (const char* name : kQtOptionsWithValue) {
        QCommandLineOption qt(QString::fromLatin1(name), {}, QStringLiteral("VALUE"));
        qt.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(qt);
    }
    for (const char* name : kQtFlags) {
        QCommandLineOption qt(QString::fromLatin1(name));
        qt.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(qt);
    }

    if (!parser.parse(arguments)) {
        return failure(parser.errorText() + QStringLiteral(" (--help lists the options)"));
    }
    if (parser.isSet(help)) {
        GuiCommandLine out;
        out.outcome = GuiCommandLine::Outcome::Help;
        out.message = parser.helpText();
        // Without a QCoreApplication Qt does not know the program's name.
        out.message.replace(0, out.message.indexOf(u'\n'),
                            QStringLiteral("Usage: cachelens-gui [options]"));
        return out;
    }
    if (parser.isSet(versionOption)) {
        GuiCommandLine out;
        out.outcome = GuiCommandLine::Outcome::Version;
        out.message = QStringLiteral("cachelens-gui %1\n").arg(version);
        return out;
    }
    if (const QStringList extra = parser.positionalArguments(); !extra.isEmpty()) {
        return failure(QStringLiteral("unexpected argument %1 (to open it: --open %2)")
                           .arg(quoted(extra.front()), extra.front()));
    }
    for (const auto* option : {&select, &tab, &compare, &view, &search, &maxSize, &into, &catalog,
                               &screenshot, &size, &trace}) {
        const QStringList values = parser.values(*option);
        if (values.size() > 1) {
            return failure(QStringLiteral("--%1 given %2 times (%3): it takes one value")
                               .arg(option->names().front())
                               .arg(values.size())
                               .arg(values.join(QStringLiteral(", "))));
        }
    }

    GuiCommandLine out;
    StartupRequest& request = out.request;
    for (const QString& path : parser.values(open)) {
        if (isRedisUrl(path)) {
            const auto parsed = remote_work::parseEndpoint(path);
            if (!parsed) {
                return failure(QStringLiteral("--open %1: %2")
                                   .arg(quoted(path), text(parsed.error().describe())));
            }
            request.openRedis << path;
            continue;
        }
        const QFileInfo info(path);
        if (info.isDir()) {
            request.open.emplace_back(path.toStdString());
        } else if (info.isFile()) {
            request.openBundles.emplace_back(path.toStdString());
        } else {
            return failure(QStringLiteral("--open %1: no such dir or file (accepted: a cache "
                                          "dir, a bundle file, or "
                                          "redis://[[user]:password@]host[:port][/db])")
                               .arg(quoted(path)));
        }
    }
    out.openDefault =
        request.open.empty() && request.openBundles.empty() && request.openRedis.isEmpty();

    if (parser.isSet(file)) {
        const QString path = parser.value(file);
        if (!QFileInfo(path).isFile()) {
            return failure(QStringLiteral("--file %1: no such file").arg(quoted(path)));
        }
        request.file = path.toStdString();
    }

    if (parser.isSet(select)) {
        request.select = parser.value(select);
        if (request.select.trimmed().isEmpty()) {
            return failure(QStringLiteral("--select is empty (accepted: a key, a path relative "
                                          "to its cache dir or absolute, or a kernel name)"));
        }
    }
    if (parser.isSet(tab)) {
        request.tab = parser.value(tab);
        if (!BrowsePage::tabFromName(request.tab)) {
            return failure(
                QStringLiteral("--tab %1: no such tab (accepted: %2)")
                    .arg(quoted(request.tab), BrowsePage::tabNames().join(QStringLiteral(", "))));
        }
    }
    if (parser.isSet(compare)) {
        request.compare = parser.value(compare);
        if (request.compare.trimmed().isEmpty()) {
            return failure(QStringLiteral("--compare is empty (accepted: an FX graph key)"));
        }
        if (request.select.isEmpty()) {
            return failure(QStringLiteral("--compare needs --select: the entry compared with %1")
                               .arg(request.compare));
        }
    }
    if (parser.isSet(view)) {
        request.view = parser.value(view);
        if (!StartupScript::viewNames().contains(request.view)) {
            return failure(QStringLiteral("--view %1: no such view (accepted: %2)")
                               .arg(quoted(request.view),
                                    StartupScript::viewNames().join(QStringLiteral(", "))));
        }
    }
    request.search = parser.value(search);
    if (parser.isSet(maxSize)) {
        request.pruneMaxSize = parser.value(maxSize);
        if (request.view != QLatin1String("prune")) {
            return failure(QStringLiteral("--max-size is for --view prune"));
        }
        if (auto parsed = parse_size(request.pruneMaxSize.toStdString()); !parsed) {
            return failure(QStringLiteral("--max-size %1: %2")
                               .arg(quoted(request.pruneMaxSize),
                                    QString::fromStdString(parsed.error().describe())));
        }
    }
    if (parser.isSet(trace)) {
        const QString path = parser.value(trace);
        if (request.view != QLatin1String("warmstart") && request.view != QLatin1String("live")) {
            return failure(QStringLiteral("--trace is for --view warmstart or --view live"));
        }
        if (!QFileInfo::exists(path)) {
            return failure(QStringLiteral("--trace %1: no such dir or file (accepted: a "
                                          "TORCH_TRACE dir or one of its logs)")
                               .arg(quoted(path)));
        }
        request.trace = path.toStdString();
    }
    if (parser.isSet(into)) {
        request.importInto = parser.value(into);
        if (request.view != QLatin1String("import") && request.view != QLatin1String("pull")) {
            return failure(QStringLiteral("--into is for --view import or --view pull"));
        }
        const QFileInfo info(request.importInto);
        if (request.importInto.isEmpty() || (info.exists() && !info.isDir())) {
            return failure(QStringLiteral("--into %1: not a directory (accepted: a cache dir, "
                                          "made if it does not exist)")
                               .arg(quoted(request.importInto)));
        }
    }
    if (parser.isSet(catalog)) {
        out.catalogPath = parser.value(catalog);
        if (out.catalogPath.isEmpty() || QFileInfo(out.catalogPath).isDir()) {
            return failure(QStringLiteral("--catalog %1: not a file name (accepted: the "
                                          "catalog's SQLite file, made if it does not exist)")
                               .arg(quoted(out.catalogPath)));
        }
    }
    if (parser.isSet(screenshot)) {
        out.screenshot = parser.value(screenshot);
        const QFileInfo info(out.screenshot);
        if (!out.screenshot.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) ||
            info.fileName().size() <= 4) {
            return failure(QStringLiteral("--screenshot %1: not a PNG file name (accepted: "
                                          "FILE.png)")
                               .arg(quoted(out.screenshot)));
        }
        if (!info.absoluteDir().exists()) {
            return failure(QStringLiteral("--screenshot %1: no such dir %2 to write it into")
                               .arg(quoted(out.screenshot), quoted(info.absolutePath())));
        }
    }
    if (parser.isSet(size)) {
        if (out.screenshot.isEmpty()) {
            return failure(QStringLiteral("--size is for --screenshot"));
        }
        static const QRegularExpression wxh(QStringLiteral("^([0-9]{1,5})x([0-9]{1,5})$"));
        const auto match = wxh.match(parser.value(size));
        const int width = match.hasMatch() ? match.captured(1).toInt() : 0;
        const int height = match.hasMatch() ? match.captured(2).toInt() : 0;
        if (width < 1 || height < 1 || width > kMaxWindowSide || height > kMaxWindowSide) {
            return failure(QStringLiteral("--size %1: not a window size (accepted: WxH, each "
                                          "1 to %2, e.g. 1400x900)")
                               .arg(quoted(parser.value(size)))
                               .arg(kMaxWindowSide));
        }
        out.screenshotSize = QSize(width, height);
    }
    return out;
}

} // namespace cachelens::ui
