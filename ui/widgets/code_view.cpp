#include "widgets/code_view.h"

#include "widgets/python_highlighter.h"

#include <QFontDatabase>
#include <QPainter>
#include <QTextBlock>

namespace cachelens::ui {

class LineNumberArea : public QWidget {
public:
    explicit LineNumberArea(CodeView* view)
        : QWidget(view)
        , view_(view) {}

    QSize sizeHint() const override { return {view_->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { view_->paintLineNumbers(event); }

private:
    CodeView* view_;
};

CodeView::CodeView(QWidget* parent)
    : QPlainTextEdit(parent)
    , lineNumberArea_(new LineNumberArea(this))
    , highlighter_(new PythonHighlighter(this)) {
    setReadOnly(true);
    // Read-only text with a caret, so the keyboard can move and select.
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setUndoRedoEnabled(false);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    connect(this, &QPlainTextEdit::blockCountChanged, this, &CodeView::updateLineNumberAreaWidth);
    connect(this, &QPlainTextEdit::updateRequest, this, &CodeView::updateLineNumberArea);
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, &CodeView::highlightCurrentLine);
    updateLineNumberAreaWidth();
    applyPalette();
}

void CodeView::setCode(const QString& text, Language language) {
    language_ = language;
    // Detached while the text goes in, so it colours the new document once.
    highlighter_->setDocument(nullptr);
    setPlainText(text);
    if (language == Language::Python && text.size() <= kMaxHighlightBytes) {
        highlighter_->setDocument(document());
    }
    highlightCurrentLine();
}

void CodeView::clearCode() {
    setCode({}, Language::Plain);
}

bool CodeView::isHighlighted() const {
    return highlighter_->document() == document();
}

void CodeView::goToLine(int line) {
    const QTextBlock block = document()->findBlockByNumber(std::max(0, line - 1));
    if (!block.isValid()) {
        return;
    }
    QTextCursor cursor(block);
    setTextCursor(cursor);
    centerCursor();
}

bool CodeView::findText(const QString& text, bool backward) {
    if (text.isEmpty()) {
        return false;
    }
    const QTextDocument::FindFlags flags =
        backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    if (find(text, flags)) {
        return true;
    }
    // Wrap around from the other end.
    const QTextCursor saved = textCursor();
    QTextCursor cursor(document());
    cursor.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
    setTextCursor(cursor);
    if (find(text, flags)) {
        return true;
    }
    setTextCursor(saved);
    return false;
}

int CodeView::lineNumberAreaWidth() const {
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10) {
        ++digits;
    }
    digits = std::max(digits, 3);
    return 10 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void CodeView::updateLineNumberAreaWidth() {
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

void CodeView::updateLineNumberArea(const QRect& rect, int dy) {
    if (dy != 0) {
        lineNumberArea_->scroll(0, dy);
    } else {
        lineNumberArea_->update(0, rect.y(), lineNumberArea_->width(), rect.height());
    }
    if (rect.contains(viewport()->rect())) {
        updateLineNumberAreaWidth();
    }
}

void CodeView::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect area = contentsRect();
    lineNumberArea_->setGeometry(
        QRect(area.left(), area.top(), lineNumberAreaWidth(), area.height()));
}

void CodeView::changeEvent(QEvent* event) {
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
    } else if (event->type() == QEvent::FontChange) {
        updateLineNumberAreaWidth();
    }
}

void CodeView::applyPalette() {
    highlighter_->setDarkBackground(palette().color(QPalette::Base).lightness() < 128);
    highlightCurrentLine();
    lineNumberArea_->update();
}

void CodeView::highlightCurrentLine() {
    QTextEdit::ExtraSelection selection;
    // The selection colour, faint: a tint over the base in light and dark palettes.
    QColor tint = palette().color(QPalette::Highlight);
    tint.setAlpha(40);
    selection.format.setBackground(tint);
    selection.format.setProperty(QTextFormat::FullWidthSelection, true);
    selection.cursor = textCursor();
    selection.cursor.clearSelection();
    setExtraSelections({selection});
}

void CodeView::paintLineNumbers(QPaintEvent* event) {
    QPainter painter(lineNumberArea_);
    painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    const QColor dim = palette().color(QPalette::PlaceholderText);
    const QColor current = palette().color(QPalette::Text);
    const int currentBlock = textCursor().blockNumber();

    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    const int width = lineNumberArea_->width() - 5;
    const int height = fontMetrics().height();
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top()) {
            painter.setPen(number == currentBlock ? current : dim);
            painter.drawText(0, top, width, height, Qt::AlignRight, QString::number(number + 1));
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
        ++number;
    }
}

} // namespace cachelens::ui
