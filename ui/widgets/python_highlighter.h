#pragma once

// Python syntax colouring for CodeView: keywords, builtins, strings (triple-
// quoted ones across lines, through the block state), comments, numbers,
// decorators and the names def/class introduce. A hand-written scanner, not
// regexes, so that a '#' inside a string is not a comment and a quote inside
// a comment opens nothing. Two colour sets, for light and dark bases.

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace cachelens::ui {

class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT

public:
    // Block states: inside a '''…''' or a """…""" string that continues.
    enum State { Normal = 0, InSingleTriple = 1, InDoubleTriple = 2 };

    explicit PythonHighlighter(QObject* parent = nullptr);

    // Picks the colours for a dark (or light) background and recolours.
    void setDarkBackground(bool dark);
    bool darkBackground() const { return dark_; }

protected:
    void highlightBlock(const QString& text) override;

private:
    void setColors(bool dark);
    // Colours a string starting at `start` whose quote is at `quote`; returns
    // where scanning goes on, or -1 when the string runs past the line.
    qsizetype scanString(const QString& text, qsizetype start, qsizetype quote);

    bool dark_ = false;
    QTextCharFormat keyword_, builtin_, self_, string_, comment_, number_, decorator_, definition_;
};

} // namespace cachelens::ui
