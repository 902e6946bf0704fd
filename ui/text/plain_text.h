#pragma once

// Text from a cache is data, never markup. Qt shows a tooltip, and a QLabel or
// QMessageBox left at Qt::AutoText, as HTML when its first line looks like
// HTML (Qt::mightBeRichText): a key holding <img src=...> would load an image.
// So tooltips and QMessageBox's static functions get cache text through
// literalText, and labels that show it are Qt::PlainText, or Qt::RichText
// with it escaped (QString::toHtmlEscaped).

#include <QString>
#include <QTextDocument>

namespace cachelens::ui {

// `text` for a place that guesses its format (a tooltip, a QMessageBox's static
// functions), shown as written: unchanged when Qt takes it for plain text
// anyway, else as HTML that spells it out (spaces and line breaks kept, as
// plain text keeps them).
inline QString literalText(const QString& text) {
    return Qt::mightBeRichText(text) ? Qt::convertFromPlainText(text, Qt::WhiteSpacePre) : text;
}

} // namespace cachelens::ui
