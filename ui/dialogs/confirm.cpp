#include "dialogs/confirm.h"

#include "text/plain_text.h"

#include <QMessageBox>

namespace cachelens::ui {

bool askBeforeWriting(QWidget* parent, const QString& title, const QString& question) {
    return QMessageBox::question(parent, title, literalText(question),
                                 QMessageBox::Yes | QMessageBox::No,
                                 QMessageBox::No) == QMessageBox::Yes;
}

} // namespace cachelens::ui
