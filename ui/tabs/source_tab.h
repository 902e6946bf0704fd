#pragma once

// The Source tab: the text an entry carries, in a code view with line
// numbers and Python colouring. An FX entry: its wrapper module (and its
// post-grad and runnable graphs when recorded); an AOT entry: its forward,
// backward and joint graphs; a module: its source, with a jump to each
// kernel's def; a C++ source: its text. A chooser picks among several texts;
// Ctrl+F finds in the text.

#include "tabs/entry_tab.h"
#include "widgets/code_view.h"

#include <string_view>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;

namespace cachelens::ui {

class SourceTab : public EntryTab {
    Q_OBJECT

public:
    explicit SourceTab(QWidget* parent = nullptr);

    bool appliesTo(cachedir::FileKind kind) const override;
    void showEntry(const EntryRef& ref, const SharedContent& content) override;
    void clear() override;

    CodeView* codeView() const { return code_; }
    QComboBox* textChooser() const { return chooser_; }
    // Shows the text named `title` ("Wrapper module", "Forward graph", ...).
    bool showText(const QString& title);
    QStringList textTitles() const;

private:
    struct Text {
        QString title;
        std::string_view text; // into content_
        CodeView::Language language = CodeView::Language::Python;
    };
    void showTextAt(int index);
    void find(bool backward);

    SharedContent content_; // keeps the texts' bytes alive
    std::vector<Text> texts_;
    QComboBox* chooser_ = nullptr;
    QComboBox* kernels_ = nullptr; // a module's kernels: jump to the def
    QLabel* info_ = nullptr;
    QLineEdit* find_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    CodeView* code_ = nullptr;
    QLabel* empty_ = nullptr;
};

} // namespace cachelens::ui
