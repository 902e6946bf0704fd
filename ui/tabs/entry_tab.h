#pragma once

// A tab of the detail area: shows one entry the main window has loaded (off
// the GUI thread) and shares with every tab. Panels hold no business logic:
// they put engine results into models and views.

#include "data/entry_ref.h"

#include <cachelens/cachedir/entry_content.h>

#include <QWidget>

#include <memory>

namespace cachelens::ui {

using SharedContent = std::shared_ptr<const cachedir::EntryContent>;

class EntryTab : public QWidget {
    Q_OBJECT

public:
    using QWidget::QWidget;

    // Whether the tab has anything to show for entries of this kind; the
    // main window disables it otherwise.
    virtual bool appliesTo(cachedir::FileKind kind) const = 0;
    // `content` is the parsed entry; never null.
    virtual void showEntry(const EntryRef& ref, const SharedContent& content) = 0;
    virtual void clear() = 0;

signals:
    // A link was clicked: the entry of `kind` named `keyOrPath` (a key, or a
    // path relative to the root) in the same root.
    void followRequested(cachelens::cachedir::FileKind kind, const QString& keyOrPath);
    // Something worth a line in the status bar (copied to the clipboard, ...).
    void statusMessage(const QString& message);
};

} // namespace cachelens::ui
