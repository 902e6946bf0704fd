#include "widgets/python_highlighter.h"

#include <string_view>
#include <unordered_set>

namespace cachelens::ui {

namespace {

using Words = std::unordered_set<std::u16string_view>;

const Words& keywords() {
    static const Words words = {
        u"False",  u"None",   u"True",    u"and",      u"as",       u"assert", u"async",
        u"await",  u"break",  u"class",   u"continue", u"def",      u"del",    u"elif",
        u"else",   u"except", u"finally", u"for",      u"from",     u"global", u"if",
        u"import", u"in",     u"is",      u"lambda",   u"nonlocal", u"not",    u"or",
        u"pass",   u"raise",  u"return",  u"try",      u"while",    u"with",   u"yield",
    };
    return words;
}

const Words& builtins() {
    static const Words words = {
        u"abs",      u"all",          u"any",        u"bool",       u"bytes",
        u"dict",     u"enumerate",    u"Exception",  u"filter",     u"float",
        u"getattr",  u"hasattr",      u"int",        u"isinstance", u"iter",
        u"len",      u"list",         u"map",        u"max",        u"min",
        u"next",     u"object",       u"open",       u"print",      u"range",
        u"repr",     u"set",          u"setattr",    u"slice",      u"sorted",
        u"str",      u"sum",          u"super",      u"tuple",      u"type",
        u"zip",      u"RuntimeError", u"ValueError", u"TypeError",  u"AssertionError",
        u"__name__",
    };
    return words;
}

std::u16string_view view(const QString& text, qsizetype from, qsizetype to) {
    return {reinterpret_cast<const char16_t*>(text.utf16()) + from,
            static_cast<std::size_t>(to - from)};
}

bool isIdentifierStart(QChar c) {
    return c.isLetter() || c == QLatin1Char('_');
}

bool isIdentifierPart(QChar c) {
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

bool isQuote(QChar c) {
    return c == QLatin1Char('\'') || c == QLatin1Char('"');
}

bool isStringPrefix(std::u16string_view word) {
    if (word.size() > 2) {
        return false;
    }
    for (char16_t c : word) {
        if (std::u16string_view(u"rRbBfFuU").find(c) == std::u16string_view::npos) {
            return false;
        }
    }
    return true;
}

// Where `delimiter` closes a string, skipping backslash escapes; -1 if not on this line.
qsizetype findClosing(const QString& text, qsizetype from, QStringView delimiter) {
    const qsizetype n = text.size();
    for (qsizetype j = from; j < n;) {
        if (text[j] == QLatin1Char('\\')) {
            j += 2;
        } else if (QStringView(text).mid(j, delimiter.size()) == delimiter) {
            return j;
        } else {
            ++j;
        }
    }
    return -1;
}

QTextCharFormat makeFormat(const QColor& color, bool bold = false, bool italic = false) {
    QTextCharFormat out;
    out.setForeground(color);
    if (bold) {
        out.setFontWeight(QFont::Bold);
    }
    out.setFontItalic(italic);
    return out;
}

} // namespace

PythonHighlighter::PythonHighlighter(QObject* parent)
    : QSyntaxHighlighter(parent) {
    setColors(false);
}

void PythonHighlighter::setDarkBackground(bool dark) {
    if (dark == dark_) {
        return;
    }
    setColors(dark);
    rehighlight();
}

void PythonHighlighter::setColors(bool dark) {
    dark_ = dark;
    // IntelliJ's light and Darcula schemes: each readable on its own base.
    if (dark) {
        keyword_ = makeFormat(QColor(0xcc, 0x78, 0x32), true);
        builtin_ = makeFormat(QColor(0x88, 0x88, 0xc6));
        self_ = makeFormat(QColor(0xb2, 0x83, 0xb4));
        string_ = makeFormat(QColor(0x6a, 0xab, 0x73));
        comment_ = makeFormat(QColor(0x8c, 0x8c, 0x8c), false, true);
        number_ = makeFormat(QColor(0x68, 0x97, 0xbb));
        decorator_ = makeFormat(QColor(0xbb, 0xb5, 0x29));
        definition_ = makeFormat(QColor(0xff, 0xc6, 0x6d), true);
    } else {
        keyword_ = makeFormat(QColor(0x00, 0x33, 0xb3), true);
        builtin_ = makeFormat(QColor(0x7a, 0x3e, 0x9d));
        self_ = makeFormat(QColor(0x94, 0x55, 0x8d));
        string_ = makeFormat(QColor(0x06, 0x7d, 0x17));
        comment_ = makeFormat(QColor(0x6e, 0x6e, 0x6e), false, true);
        number_ = makeFormat(QColor(0x17, 0x50, 0xeb));
        decorator_ = makeFormat(QColor(0x9e, 0x6a, 0x03));
        definition_ = makeFormat(QColor(0x00, 0x62, 0x7a), true);
    }
}

qsizetype PythonHighlighter::scanString(const QString& text, qsizetype start, qsizetype quote) {
    const qsizetype n = text.size();
    const QChar q = text[quote];
    const bool triple = quote + 2 < n && text[quote + 1] == q && text[quote + 2] == q;
    if (triple) {
        const QString delimiter(3, q);
        const qsizetype end = findClosing(text, quote + 3, delimiter);
        if (end < 0) {
            setFormat(static_cast<int>(start), static_cast<int>(n - start), string_);
            setCurrentBlockState(q == QLatin1Char('\'') ? InSingleTriple : InDoubleTriple);
            return -1;
        }
        setFormat(static_cast<int>(start), static_cast<int>(end + 3 - start), string_);
        return end + 3;
    }
    qsizetype j = quote + 1;
    while (j < n && text[j] != q) {
        j += text[j] == QLatin1Char('\\') ? 2 : 1;
    }
    const qsizetype end = std::min(j + 1, n);
    setFormat(static_cast<int>(start), static_cast<int>(end - start), string_);
    return end;
}

void PythonHighlighter::highlightBlock(const QString& text) {
    const qsizetype n = text.size();
    qsizetype i = 0;
    setCurrentBlockState(Normal);
    const int previous = previousBlockState();
    if (previous == InSingleTriple || previous == InDoubleTriple) {
        const QString delimiter(3, QLatin1Char(previous == InSingleTriple ? '\'' : '"'));
        const qsizetype end = findClosing(text, 0, delimiter);
        if (end < 0) {
            setFormat(0, static_cast<int>(n), string_);
            setCurrentBlockState(previous);
            return;
        }
        setFormat(0, static_cast<int>(end + 3), string_);
        i = end + 3;
    }
    bool atLineStart = true;  // only whitespace so far: a '@' is a decorator
    bool nameFollows = false; // after `def` or `class`
    while (i < n) {
        const QChar c = text[i];
        if (c.isSpace()) {
            ++i;
            continue;
        }
        const bool lineStart = atLineStart;
        atLineStart = false;
        if (c == QLatin1Char('#')) {
            setFormat(static_cast<int>(i), static_cast<int>(n - i), comment_);
            return;
        }
        if (isQuote(c)) {
            i = scanString(text, i, i);
            if (i < 0) {
                return;
            }
            continue;
        }
        if (c == QLatin1Char('@') && lineStart) {
            qsizetype j = i + 1;
            while (j < n && (isIdentifierPart(text[j]) || text[j] == QLatin1Char('.'))) {
                ++j;
            }
            setFormat(static_cast<int>(i), static_cast<int>(j - i), decorator_);
            i = j;
            continue;
        }
        if (c.isDigit() || (c == QLatin1Char('.') && i + 1 < n && text[i + 1].isDigit())) {
            const bool hex = c == QLatin1Char('0') && i + 1 < n &&
                             (text[i + 1] == QLatin1Char('x') || text[i + 1] == QLatin1Char('X'));
            qsizetype j = i + 1;
            while (j < n) {
                const QChar d = text[j];
                const bool exponentSign =
                    !hex && (d == QLatin1Char('+') || d == QLatin1Char('-')) &&
                    (text[j - 1] == QLatin1Char('e') || text[j - 1] == QLatin1Char('E'));
                if (!(isIdentifierPart(d) || d == QLatin1Char('.') || exponentSign)) {
                    break;
                }
                ++j;
            }
            setFormat(static_cast<int>(i), static_cast<int>(j - i), number_);
            i = j;
            continue;
        }
        if (isIdentifierStart(c)) {
            qsizetype j = i + 1;
            while (j < n && isIdentifierPart(text[j])) {
                ++j;
            }
            const std::u16string_view word = view(text, i, j);
            if (j < n && isQuote(text[j]) && isStringPrefix(word)) {
                i = scanString(text, i, j);
                if (i < 0) {
                    return;
                }
                continue;
            }
            if (nameFollows) {
                setFormat(static_cast<int>(i), static_cast<int>(j - i), definition_);
                nameFollows = false;
            } else if (keywords().contains(word)) {
                setFormat(static_cast<int>(i), static_cast<int>(j - i), keyword_);
                nameFollows = word == u"def" || word == u"class";
            } else if (builtins().contains(word)) {
                setFormat(static_cast<int>(i), static_cast<int>(j - i), builtin_);
            } else if (word == u"self" || word == u"cls") {
                setFormat(static_cast<int>(i), static_cast<int>(j - i), self_);
            }
            i = j;
            continue;
        }
        nameFollows = false;
        ++i;
    }
}

} // namespace cachelens::ui
