#pragma once

// A read-only code viewer: QPlainTextEdit with a line-number gutter and the
// current line tinted (the structure of Qt's "Code Editor" example), with
// optional Python colouring. Text is set once as a whole document, so
// megabytes of source stay responsive; colouring is skipped above
// kMaxHighlightBytes characters, where it would freeze the window.

#include <QPlainTextEdit>

namespace cachelens::ui {

class PythonHighlighter;

class CodeView : public QPlainTextEdit {
    Q_OBJECT

public:
    enum class Language { Plain, Python };
    static constexpr qsizetype kMaxHighlightBytes = qsizetype{1} << 20; // ~0.25 s to colour

    explicit CodeView(QWidget* parent = nullptr);

    void setCode(const QString& text, Language language = Language::Plain);
    void clearCode();
    Language language() const { return language_; }
    // Whether the text is coloured now (Python, and small enough).
    bool isHighlighted() const;

    // Moves the cursor to a 1-based line and centres it.
    void goToLine(int line);
    // Finds `text` after (or before) the cursor, wrapping around.
    bool findText(const QString& text, bool backward = false);

    int lineNumberAreaWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    friend class LineNumberArea;
    void paintLineNumbers(QPaintEvent* event);
    void updateLineNumberAreaWidth();
    void updateLineNumberArea(const QRect& rect, int dy);
    void highlightCurrentLine();
    void applyPalette();

    QWidget* lineNumberArea_ = nullptr;
    PythonHighlighter* highlighter_ = nullptr;
    Language language_ = Language::Plain;
};

} // namespace cachelens::ui
