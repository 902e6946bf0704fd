// cachelens-gui's command line: parsed before any QApplication, every bad
// value of every option refused naming the option and what it accepts, Qt's
// own options let through; and the built binary answering --help and
// --version with no display at all, and exiting 2 on a bad value.

#include "command_line.h"
#include "pages/browse_page.h"
#include "test_paths.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace cachelens;
using namespace cachelens::ui;
using Outcome = GuiCommandLine::Outcome;

namespace {

GuiCommandLine parse(QStringList arguments) {
    arguments.prepend(QStringLiteral("cachelens-gui"));
    return parseCommandLine(arguments, QStringLiteral("9.8.7"));
}

struct GuiRun {
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QString out;
    QString err;
};

// The built cachelens-gui, with no display: no X, no Wayland, no QPA platform.
GuiRun runGui(const QStringList& arguments) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
        env.remove(QString::fromLatin1(name));
    }
    process.setProcessEnvironment(env);
    process.start(qEnvironmentVariable("CACHELENS_GUI"), arguments);
    GuiRun run;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitCode();
    run.status = process.exitStatus();
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

} // namespace

class TestGuiCommandLine : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(temp_.isValid());
        QVERIFY(QDir(temp_.path()).mkpath("cache"));
        QFile bundle(temp_.filePath("model.bin"));
        QVERIFY(bundle.open(QIODevice::WriteOnly));
        bundle.write("not parsed here");
    }

    void goodLinesRun() {
        const QString cache = temp_.filePath("cache");
        const auto line = parse({"-platform",    "offscreen",
                                 "--open",       cache,
                                 "--open",       temp_.filePath("model.bin"),
                                 "--open",       "redis://127.0.0.1:6390/2",
                                 "--select",     "fxgraph/tk/k/e",
                                 "--tab",        "autotune",
                                 "--compare",    "fabc",
                                 "--view",       "prune",
                                 "--max-size",   "2G",
                                 "--search",     "triton_poi",
                                 "--catalog",    temp_.filePath("c.sqlite"),
                                 "--screenshot", temp_.filePath("shot.png"),
                                 "--size",       "800x600",
                                 "-style",       "fusion",
                                 "-reverse"});
        QCOMPARE(line.outcome, Outcome::Run);
        QVERIFY(!line.openDefault);
        QCOMPARE(line.request.open.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(line.request.open.front().string()), cache);
        QVERIFY(line.request.browseOpened);
        QCOMPARE(line.request.openBundles.size(), std::size_t{1});
        QCOMPARE(line.request.openRedis, QStringList{"redis://127.0.0.1:6390/2"});
        QCOMPARE(line.request.select, QStringLiteral("fxgraph/tk/k/e"));
        QCOMPARE(line.request.tab, QStringLiteral("autotune"));
        QCOMPARE(line.request.compare, QStringLiteral("fabc"));
        QCOMPARE(line.request.view, QStringLiteral("prune"));
        QCOMPARE(line.request.pruneMaxSize, QStringLiteral("2G"));
        QCOMPARE(line.request.search, QStringLiteral("triton_poi"));
        QCOMPARE(line.catalogPath, temp_.filePath("c.sqlite"));
        QCOMPARE(line.screenshot, temp_.filePath("shot.png"));
        QCOMPARE(line.screenshotSize, QSize(800, 600));

        const auto bare = parse({});
        QCOMPARE(bare.outcome, Outcome::Run);
        QVERIFY(bare.openDefault);
        QVERIFY(bare.catalogPath.isEmpty());
        QVERIFY(bare.screenshot.isEmpty());

        for (const QString& view : StartupScript::viewNames()) {
            QCOMPARE(parse({"--view", view}).outcome, Outcome::Run);
        }
        for (const QString& tab : BrowsePage::tabNames()) {
            QCOMPARE(parse({"--tab", tab}).outcome, Outcome::Run);
        }
        QCOMPARE(parse({"--view", "import", "--into", temp_.filePath("new-dir")}).outcome,
                 Outcome::Run);
    }

    void helpAndVersion() {
        for (const char* option : {"--help", "-h"}) {
            const auto help = parse({option, "--view", "bogus"});
            QCOMPARE(help.outcome, Outcome::Help);
            QVERIFY(help.message.startsWith(QStringLiteral("Usage: cachelens-gui [options]")));
            for (const char* documented :
                 {"--open", "--select", "--tab", "--compare", "--view", "--search", "--max-size",
                  "--into", "--catalog", "--screenshot", "--size", "--version"}) {
                QVERIFY2(help.message.contains(QLatin1String(documented)), documented);
            }
            // Qt's options are taken, not offered.
            QVERIFY(!help.message.contains(QLatin1String("platform")));
        }
        const auto version = parse({"--version"});
        QCOMPARE(version.outcome, Outcome::Version);
        QCOMPARE(version.message, QStringLiteral("cachelens-gui 9.8.7\n"));
    }

    void badValuesAreRefused_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("said"); // what the message must contain
        const QString png = temp_.filePath("shot.png");
        const QString cache = temp_.filePath("cache");
        const QString file = temp_.filePath("model.bin");
        QTest::newRow("view") << QStringList{"--view", "bogus"}
                              << QStringList{"--view", "'bogus'",
                                             "browse, compare, why, stats, "
                                             "prune, bench, import, redis, "
                                             "pull, push"};
        QTest::newRow("tab") << QStringList{"--tab", "bogus"}
                             << QStringList{"--tab", "'bogus'",
                                            "overview, debug, guards, source, kernels, autotune"};
        QTest::newRow("view, no value") << QStringList{"--view"} << QStringList{"'--view'"};
        QTest::newRow("unknown option") << QStringList{"--bogus"} << QStringList{"bogus"};
        QTest::newRow("help-all") << QStringList{"--help-all"} << QStringList{"help-all"};
        QTest::newRow("positional") << QStringList{cache} << QStringList{"--open " + cache};
        QTest::newRow("view twice") << QStringList{"--view", "stats", "--view", "bench"}
                                    << QStringList{"--view", "stats, bench"};
        QTest::newRow("select empty")
            << QStringList{"--select", ""} << QStringList{"--select", "key", "path", "kernel name"};
        QTest::newRow("compare empty") << QStringList{"--select", "k", "--compare", " "}
                                       << QStringList{"--compare", "FX graph key"};
        QTest::newRow("compare without select")
            << QStringList{"--compare", "fabc"} << QStringList{"--compare", "--select"};
        QTest::newRow("open missing") << QStringList{"--open", "/nonexistent/cachelens"}
                                      << QStringList{"--open", "'/nonexistent/cachelens'",
                                                     "cache dir", "bundle file", "redis://"};
        QTest::newRow("open bad url") << QStringList{"--open", "redis://host:notaport"}
                                      << QStringList{"--open", "'redis://host:notaport'"};
        QTest::newRow("max-size") << QStringList{"--view", "prune", "--max-size", "lots"}
                                  << QStringList{"--max-size", "'lots'", "2G"};
        QTest::newRow("max-size without prune")
            << QStringList{"--max-size", "2G"} << QStringList{"--max-size", "--view prune"};
        QTest::newRow("into a file") << QStringList{"--view", "import", "--into", file}
                                     << QStringList{"--into", file, "directory"};
        QTest::newRow("into without import")
            << QStringList{"--into", cache} << QStringList{"--into", "--view import", "pull"};
        QTest::newRow("catalog a dir")
            << QStringList{"--catalog", cache} << QStringList{"--catalog", cache, "SQLite file"};
        QTest::newRow("screenshot not png")
            << QStringList{"--screenshot", temp_.filePath("shot.jpg")}
            << QStringList{"--screenshot", "shot.jpg", "FILE.png"};
        QTest::newRow("screenshot in no dir")
            << QStringList{"--screenshot", "/nonexistent/cachelens/shot.png"}
            << QStringList{"--screenshot", "/nonexistent/cachelens"};
        QTest::newRow("size") << QStringList{"--screenshot", png, "--size", "big"}
                              << QStringList{"--size", "'big'", "WxH"};
        QTest::newRow("size zero") << QStringList{"--screenshot", png, "--size", "0x900"}
                                   << QStringList{"--size", "'0x900'", "WxH"};
        QTest::newRow("size huge") << QStringList{"--screenshot", png, "--size", "99999x900"}
                                   << QStringList{"--size", "WxH"};
        QTest::newRow("size without screenshot")
            << QStringList{"--size", "800x600"} << QStringList{"--size", "--screenshot"};
    }

    void badValuesAreRefused() {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, said);
        const auto line = parse(arguments);
        QCOMPARE(line.outcome, Outcome::Error);
        for (const QString& part : said) {
            QVERIFY2(line.message.contains(part),
                     qPrintable(QStringLiteral("'%1' not in: %2").arg(part, line.message)));
        }
    }

    // The binary itself, with no display to start a QApplication on.
    void theBinaryAnswersWithoutADisplay() {
        QVERIFY2(!qEnvironmentVariable("CACHELENS_GUI").isEmpty(), "CACHELENS_GUI is not set");
        const auto help = runGui({"--help"});
        QCOMPARE(help.status, QProcess::NormalExit);
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.startsWith(QStringLiteral("Usage: cachelens-gui [options]")));
        QVERIFY(help.out.contains(QStringLiteral("--select <KEY|PATH|NAME>")));
        QVERIFY(help.err.isEmpty());

        const auto version = runGui({"--version"});
        QCOMPARE(version.status, QProcess::NormalExit);
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.out.startsWith(QStringLiteral("cachelens-gui ")));

        const auto view = runGui({"--view", "bogus"});
        QCOMPARE(view.status, QProcess::NormalExit);
        QCOMPARE(view.exitCode, 2);
        QVERIFY(view.out.isEmpty());
        QVERIFY(view.err.startsWith(QStringLiteral("cachelens-gui: --view 'bogus'")));
        QVERIFY(view.err.contains(QStringLiteral("browse, compare")));

        const auto tab = runGui({"--tab", "bogus"});
        QCOMPARE(tab.exitCode, 2);
        QVERIFY(tab.err.contains(QStringLiteral("--tab 'bogus'")));

        const auto open = runGui({"--open", "/nonexistent/cachelens"});
        QCOMPARE(open.status, QProcess::NormalExit);
        QCOMPARE(open.exitCode, 2);
        QVERIFY(open.err.contains(QStringLiteral("--open '/nonexistent/cachelens'")));
    }

private:
    QTemporaryDir temp_;
};

QTEST_GUILESS_MAIN(TestGuiCommandLine)
#include "tst_gui_command_line.moc"
