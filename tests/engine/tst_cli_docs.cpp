// The man pages and the bash completion against what the programs say:
// every command, positional and option of `cachelens --help` and of each
// `cachelens COMMAND --help` is in cachelens(1) under that command and in the
// completion; every option of `cachelens-gui --help` is in cachelens-gui(1)
// and no other. The pages format cleanly with groff and man.

#include "cli_reference.h"
#include "test_paths.h"

#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

using namespace cachelens;

namespace {

struct Run {
    int exit_code = -1;
    QString out;
    QString err;
};

Run run(const QString& program, const QStringList& args,
        const QMap<QString, QString>& environment = {}) {
    QProcess process;
    auto env = QProcessEnvironment::systemEnvironment();
    for (auto it = environment.begin(); it != environment.end(); ++it) {
        env.insert(it.key(), it.value());
    }
    process.setProcessEnvironment(env);
    process.start(program, args);
    Run result;
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        result.err = program + " timed out or did not start";
        return result;
    }
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

// What one `--help` of CLI11 lists: the lines of its "Positionals:",
// "Subcommands:" and option sections ("Options:", or a group's name), each an
// entry at two spaces of indent (continuation lines are indented further).
struct CliHelp {
    QStringList positionals;
    QStringList options; // "-h", "--help", ...
    QStringList commands;
};

CliHelp parse_cli_help(const QString& text) {
    CliHelp help;
    QString section;
    for (const QString& line : text.split('\n')) {
        if (!line.startsWith(' ') && line.endsWith(':')) {
            section = line.chopped(1);
            continue;
        }
        if (!line.startsWith(QLatin1String("  ")) || line.size() < 3 || line[2] == ' ') {
            continue;
        }
        const QString first = line.mid(2).section(' ', 0, 0);
        if (section == QLatin1String("Positionals")) {
            help.positionals << first;
        } else if (section == QLatin1String("Subcommands")) {
            help.commands << first;
        } else if (first.startsWith('-')) {
            // "Options", or the name of an option group.
            help.options << first.split(',');
        }
    }
    return help;
}

// A roff line as text: the arguments of a font macro (.B, .BI, ...) joined as
// it joins them, font changes dropped, the escapes the pages use resolved.
QString roff_text(const QString& line) {
    QString text = line;
    if (line.startsWith('.')) {
        const QString macro = line.section(' ', 0, 0).mid(1);
        QStringList args;
        QString arg;
        bool quoted = false, any = false;
        for (const QChar c : line.section(' ', 1)) {
            if (c == '"') {
                quoted = !quoted;
                any = true;
            } else if (c == ' ' && !quoted) {
                if (any) {
                    args << arg;
                }
                arg.clear();
                any = false;
            } else {
                arg += c;
                any = true;
            }
        }
        if (any) {
            args << arg;
        }
        if (macro == "B" || macro == "I" || macro == "SH" || macro == "SS") {
            text = args.join(' ');
        } else if (QStringList{"BI", "BR", "IB", "IR", "RB", "RI"}.contains(macro)) {
            text = args.join(QString());
        } else {
            return {};
        }
    }
    static const QRegularExpression font("\\\\f[BIRP]");
    static const QRegularExpression unicode("\\\\\\[u([0-9A-F]{4,6})\\]");
    text.remove(font).remove("\\&").remove("\\|");
    text.replace("\\-", "-").replace("\\(aq", "'").replace("\\(ga", "`").replace("\\(dq", "\"");
    text.replace("\\ ", " ").replace("\\e", "\\");
    for (auto match = unicode.match(text); match.hasMatch(); match = unicode.match(text)) {
        text.replace(
            match.capturedStart(), match.capturedLength(),
            QString::fromUcs4(
                std::array{static_cast<char32_t>(match.captured(1).toUInt(nullptr, 16))}.data(),
                1));
    }
    return text;
}

// A man page's structure from its roff: the sections (.SH), subsections
// (.SS), the synopsis as text, and per section or subsection the option names
// ("-x", "--xyz") and upper-case positionals its tagged paragraphs (.TP) name.
struct ManPage {
    QStringList sections;
    QStringList subsections;
    QString synopsis;
    QMap<QString, QSet<QString>> tags;
};

ManPage read_man_page(const QString& source) {
    // DIR, KEY_OR_PATH, DIR_A:KEY_A, [DIR_B:]KEY_B: no lower case.
    static const QRegularExpression positional("^[^a-z-][^a-z]*$");
    ManPage page;
    QString section, heading;
    bool tag_next = false;
    for (const QString& line : source.split('\n')) {
        if (line.startsWith(QLatin1String(".SH "))) {
            section = heading = roff_text(line);
            page.sections << section;
        } else if (line.startsWith(QLatin1String(".SS "))) {
            heading = roff_text(line);
            page.subsections << heading;
        } else if (line == QLatin1String(".TP")) {
            tag_next = true;
            continue;
        } else if (tag_next) {
            const QStringList words =
                roff_text(line).replace(',', ' ').split(' ', Qt::SkipEmptyParts);
            for (qsizetype i = 0; i < words.size(); ++i) {
                if (words[i].startsWith('-') || (i == 0 && positional.match(words[i]).hasMatch())) {
                    page.tags[heading].insert(words[i]);
                } else {
                    break;
                }
            }
        } else if (section == QLatin1String("SYNOPSIS")) {
            page.synopsis += roff_text(line) + '\n';
        }
        tag_next = false;
    }
    return page;
}

// What `man` and groff warn about in a page; empty when nothing.
QString format_warnings(const QString& page) {
    const Run man = run("man", {"--warnings", "-l", page},
                        {{"MANWIDTH", "80"}, {"LC_ALL", "C.UTF-8"}, {"MANPAGER", "cat"}});
    if (man.exit_code != 0 || !man.err.isEmpty() || !man.out.contains("SEE ALSO")) {
        return "man --warnings -l " + page + " (exit " + QString::number(man.exit_code) +
               "): " + man.err;
    }
    const Run groff = run("groff", {"-ww", "-man", "-z", page});
    if (groff.exit_code != 0 || !groff.err.isEmpty()) {
        return "groff -ww -man -z " + page + " (exit " + QString::number(groff.exit_code) +
               "): " + groff.err;
    }
    return {};
}

QString read_text(const char* path) {
    return QString::fromUtf8(test::read_file(path));
}

// Every command of `cachelens`, as the words after the program name, with
// what its --help lists. The root is the empty list.
QList<QPair<QStringList, CliHelp>> cli_commands() {
    QList<QPair<QStringList, CliHelp>> out;
    QList<QStringList> pending{{}};
    while (!pending.isEmpty()) {
        const QStringList path = pending.takeFirst();
        const auto help = test::run_cli(path + QStringList{"--help"});
        if (help.exit_code != 0) {
            qWarning("cachelens %s --help: exit %d", qPrintable(path.join(' ')), help.exit_code);
            return {};
        }
        const CliHelp parsed = parse_cli_help(QString::fromUtf8(help.out));
        out.append({path, parsed});
        for (const QString& command : parsed.commands) {
            pending.append(path + QStringList{command});
        }
    }
    return out;
}

// The replies of the bash completion, one list per query (COMP_WORDS).
QList<QStringList> complete(const QList<QStringList>& queries, QString& error) {
    QString script = "set -u\nsource \"$1\"\nquery() {\n"
                     "  COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMPREPLY=()\n"
                     "  _cachelens || echo \"_cachelens returned $?\" >&2\n"
                     "  echo '@@'; printf '%s\\n' \"${COMPREPLY[@]}\"\n}\n";
    for (const QStringList& words : queries) {
        script += "query";
        for (const QString& word : words) {
            script += " '" + word + "'";
        }
        script += '\n';
    }
    const Run bash = run("bash", {"-c", script, "bash", CACHELENS_BASH_COMPLETION});
    QList<QStringList> replies;
    if (bash.exit_code != 0 || !bash.err.isEmpty()) {
        error = "bash (exit " + QString::number(bash.exit_code) + "): " + bash.err;
        return replies;
    }
    const QStringList parts = bash.out.split("@@\n");
    for (qsizetype i = 1; i < parts.size(); ++i) {
        replies.append(parts[i].split('\n', Qt::SkipEmptyParts));
    }
    return replies;
}

} // namespace

class TestCliDocs : public QObject {
    Q_OBJECT

private slots:
    void manPagesFormatCleanly() {
        for (const char* path : {CACHELENS_MAN_PAGE, CACHELENS_GUI_MAN_PAGE}) {
            const QString warnings = format_warnings(path);
            QVERIFY2(warnings.isEmpty(), qPrintable(warnings));
            const QString source = read_text(path);
            const ManPage page = read_man_page(source);
            for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS",
                                        "ENVIRONMENT", "FILES", "SEE ALSO"}) {
                QVERIFY2(page.sections.contains(section),
                         qPrintable(QString(path) + " has no " + section +
                                    " section: " + page.sections.join(", ")));
            }
            // A NAME line that mandb reads into whatis: "name \- summary".
            QVERIFY2(source.contains(QRegularExpression(
                         "\n\\.SH NAME\ncachelens(\\\\-gui)? \\\\- [a-z][^\n]+\n\\.SH")),
                     path);
            QVERIFY2(!source.contains(QRegularExpression("@[A-Z_]+@")),
                     qPrintable(QString(path) + " has a placeholder left"));
        }
    }

    void cachelensManPageHasEveryCommandAndOption() {
        const auto commands = cli_commands();
        QVERIFY(commands.size() > 20);
        const ManPage page = read_man_page(read_text(CACHELENS_MAN_PAGE));
        QVERIFY(page.sections.contains("COMMANDS"));

        QStringList headings;
        for (const auto& [path, help] : commands) {
            // Each command has its subsection, "cachelens bench history", and
            // a line in the synopsis; the root's options and --help are
            // under OPTIONS.
            const QString name = "cachelens " + path.join(' ');
            const QString heading = path.isEmpty() ? QStringLiteral("OPTIONS") : name;
            if (!path.isEmpty()) {
                headings << heading;
                QVERIFY2(page.subsections.contains(heading),
                         qPrintable("cachelens.1 has no section " + heading));
                QVERIFY2(page.synopsis.contains(
                             QRegularExpression("^" + QRegularExpression::escape(name) + "( |$)",
                                                QRegularExpression::MultilineOption)),
                         qPrintable("the synopsis lacks " + name + ":\n" + page.synopsis));
            }
            QSet<QString> expected;
            for (const QString& option : help.options) {
                if (path.isEmpty() || (option != "-h" && option != "--help")) {
                    expected.insert(option);
                }
            }
            for (const QString& positional : help.positionals) {
                expected.insert(positional);
            }
            const QSet<QString> documented = page.tags.value(heading);
            QVERIFY2(documented == expected,
                     qPrintable(heading + ": --help lists " +
                                QStringList(expected.values()).join(' ') + ", cachelens.1 " +
                                QStringList(documented.values()).join(' ')));
        }
        // And no section for a command that is gone.
        for (const QString& subsection : page.subsections) {
            QVERIFY2(headings.contains(subsection), qPrintable("stale section " + subsection));
        }
    }

    void bashCompletionOffersEveryCommandAndOption() {
        const auto commands = cli_commands();
        QVERIFY(commands.size() > 20);
        QList<QStringList> queries;
        for (const auto& [path, help] : commands) {
            queries.append(QStringList{"cachelens"} + path + QStringList{"-"});
            queries.append(QStringList{"cachelens"} + path + QStringList{""});
        }
        QString error;
        const auto replies = complete(queries, error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(replies.size(), queries.size());
        for (qsizetype i = 0; i < commands.size(); ++i) {
            const auto& [path, help] = commands[i];
            const QSet<QString> options(replies[2 * i].begin(), replies[2 * i].end());
            QCOMPARE(options, QSet<QString>(help.options.begin(), help.options.end()));
            // Command names, and file names too where the command takes arguments.
            const QStringList& words = replies[2 * i + 1];
            for (const QString& command : help.commands) {
                QVERIFY2(words.contains(command),
                         qPrintable("cachelens " + path.join(' ') + " <TAB> lacks " + command));
            }
            if (help.commands.isEmpty()) {
                QVERIFY2(words.isEmpty(), qPrintable(words.join(' ')));
            }
        }
    }

    void bashCompletionSkipsOptionValues() {
        QString error;
        const auto replies = complete(
            {
                // "history" is --catalog's value, not the command: bench's options.
                {"cachelens", "bench", "--catalog", "history", "--all"},
                {"cachelens", "bench", "history", "--js"},
                // A value: file names, from readline (an empty reply).
                {"cachelens", "search", "--catalog", ""},
                {"cachelens", "search", "--catalog", "=", ""},
                {"cachelens", "import", "--into", "=", "d", "--dry"},
                {"cachelens", "remote", "p"},
                {"cachelens", "--v"},
            },
            error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(replies.size(), 7);
        QCOMPARE(replies[0], QStringList{"--all-configs"});
        QCOMPARE(replies[1], QStringList{"--json"});
        QCOMPARE(replies[2], QStringList{});
        QCOMPARE(replies[3], QStringList{});
        QCOMPARE(replies[4], QStringList{"--dry-run"});
        QCOMPARE(replies[5], (QStringList{"pull", "push"}));
        QCOMPARE(replies[6], QStringList{"--version"});
    }

    void guiManPageHasEveryOptionOfHelp() {
        const Run help = run(CACHELENS_GUI, {"--help"}, {{"QT_QPA_PLATFORM", "offscreen"}});
        QVERIFY2(help.exit_code == 0, qPrintable(help.err));
        QSet<QString> options;
        static const QRegularExpression entry("^  (-[^ ,]+(, -[^ ,]+)*)");
        for (const QString& line : help.out.split('\n')) {
            if (const auto match = entry.match(line); match.hasMatch()) {
                for (const QString& name : match.captured(1).split(", ")) {
                    options.insert(name);
                }
            }
        }
        QVERIFY2(options.contains("--screenshot"), qPrintable(help.out));
        const ManPage page = read_man_page(read_text(CACHELENS_GUI_MAN_PAGE));
        const QSet<QString> documented = page.tags.value("OPTIONS");
        QVERIFY2(documented == options,
                 qPrintable("--help lists " + QStringList(options.values()).join(' ') +
                            ", cachelens-gui.1 " + QStringList(documented.values()).join(' ')));
    }

    void roffEscapesWhatRoffWouldRead() {
        QCOMPARE(cli::roff_escape(".hidden 'x' a\\b --json"),
                 QString("\\&.hidden \\(aqx\\(aq a\\eb \\-\\-json").toStdString());
        QCOMPARE(cli::roff_escape("f\xE2\x80\xA6 `x`"), std::string("f\\[u2026] \\(gax\\(ga"));
        QCOMPARE(cli::roff_escape("bad \xFF"), std::string("bad \\[uFFFD]"));
    }

    void manPageTemplateMustHoldEveryPlaceholder() {
        CLI::App app{"test", "cachelens"};
        auto page = cli::man_page(app, "@VERSION@ @DATE@ @SYNOPSIS@ @COMMANDS@",
                                  {.version = "1", .date = "2026-01-01"});
        QVERIFY(!page);
        QVERIFY(page.error().message.find("@OPTIONS@") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliDocs)
#include "tst_cli_docs.moc"
