#include "tabs/source_tab.h"

#include "text/counted.h"
#include "text/engine_text.h"

#include <cachelens/core/format.h>

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace {

// "1 line", "3 lines".
} // namespace

SourceTab::SourceTab(QWidget* parent)
    : EntryTab(parent)
    , chooser_(new QComboBox(this))
    , kernels_(new QComboBox(this))
    , info_(new QLabel(this))
    , find_(new QLineEdit(this))
    , stack_(new QStackedWidget(this))
    , code_(new CodeView(this))
    , empty_(new QLabel(this)) {
    chooser_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(chooser_, &QComboBox::currentIndexChanged, this, &SourceTab::showTextAt);
    kernels_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    kernels_->setToolTip(tr("Go to a kernel's def"));
    connect(kernels_, &QComboBox::activated, this, [this](int index) {
        const int line = kernels_->itemData(index).toInt();
        if (line > 0) {
            code_->goToLine(line);
            code_->setFocus();
        }
    });
    find_->setPlaceholderText(tr("Find (Ctrl+F)"));
    find_->setToolTip(tr("Enter: next match, Shift+Enter: previous"));
    find_->setMinimumWidth(260);
    find_->setClearButtonEnabled(true);
    connect(find_, &QLineEdit::returnPressed, this,
            [this] { find((QApplication::keyboardModifiers() & Qt::ShiftModifier) != 0); });
    auto* focusFind = new QShortcut(QKeySequence::Find, this);
    focusFind->setContext(Qt::WidgetWithChildrenShortcut);
    connect(focusFind, &QShortcut::activated, this, [this] {
        find_->setFocus();
        find_->selectAll();
    });
    auto* findNext = new QShortcut(QKeySequence::FindNext, this);
    findNext->setContext(Qt::WidgetWithChildrenShortcut);
    connect(findNext, &QShortcut::activated, this, [this] { find(false); });

    info_->setTextFormat(Qt::PlainText);
    empty_->setTextFormat(Qt::PlainText);
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setWordWrap(true);
    stack_->addWidget(code_);
    stack_->addWidget(empty_);

    auto* top = new QHBoxLayout;
    top->addWidget(chooser_);
    top->addWidget(kernels_);
    top->addWidget(info_, 1);
    top->addWidget(find_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(stack_, 1);
    clear();
}

bool SourceTab::appliesTo(cachedir::FileKind kind) const {
    using cachedir::FileKind;
    return kind == FileKind::FxGraph || kind == FileKind::AotAutograd || kind == FileKind::Module ||
           kind == FileKind::CppSource;
}

void SourceTab::showEntry(const EntryRef&, const SharedContent& content) {
    using Language = CodeView::Language;
    content_ = content;
    texts_.clear();
    kernels_->clear();
    std::visit(
        [&](const auto& item) {
            using T = std::decay_t<decltype(item)>;
            if constexpr (std::is_same_v<T, cachedir::FxGraphEntry>) {
                texts_.push_back(
                    {tr("Wrapper module %1").arg(QString::fromStdString(item.cache_key)),
                     item.source_code, Language::Python});
                if (item.post_grad_graph) {
                    texts_.push_back(
                        {tr("Post-grad graph"), *item.post_grad_graph, Language::Python});
                }
                if (item.runnable_graph) {
                    texts_.push_back(
                        {tr("Runnable graph"), *item.runnable_graph, Language::Python});
                }
            } else if constexpr (std::is_same_v<T, cachedir::AotAutogradEntry>) {
                for (const auto& [title, graph] :
                     {std::pair{tr("Forward graph"), item.forward_graph},
                      std::pair{tr("Backward graph"), item.backward_graph},
                      std::pair{tr("Joint graph"), item.joint_graph}}) {
                    if (graph) {
                        texts_.push_back({title, *graph, Language::Python});
                    }
                }
            } else if constexpr (std::is_same_v<T, cachedir::ModuleSource>) {
                texts_.push_back({tr("Module source"), item.text(), Language::Python});
                for (const auto& kernel : item.module.kernels) {
                    kernels_->addItem(QString::fromStdString(kernel.name),
                                      static_cast<int>(kernel.def_line));
                }
            } else if constexpr (std::is_same_v<T, cachedir::CppSource>) {
                texts_.push_back({tr("C++ source"), item.text(), Language::Plain});
            }
        },
        *content);

    const QSignalBlocker blocker(chooser_);
    chooser_->clear();
    for (const auto& text : texts_) {
        chooser_->addItem(text.title);
    }
    chooser_->setVisible(texts_.size() > 1);
    kernels_->setVisible(kernels_->count() > 0);
    if (kernels_->count() > 0) {
        kernels_->insertItem(0, tr("Go to kernel…"), 0);
        kernels_->setCurrentIndex(0);
    }
    if (texts_.empty()) {
        code_->clearCode();
        info_->clear();
        empty_->setText(tr("This entry records no source or graph text."));
        stack_->setCurrentWidget(empty_);
        return;
    }
    chooser_->setCurrentIndex(0);
    showTextAt(0);
}

void SourceTab::clear() {
    content_.reset();
    texts_.clear();
    {
        const QSignalBlocker blocker(chooser_);
        chooser_->clear();
    }
    chooser_->hide();
    kernels_->clear();
    kernels_->hide();
    info_->clear();
    code_->clearCode();
    empty_->setText(tr("No entry selected."));
    stack_->setCurrentWidget(empty_);
}

QStringList SourceTab::textTitles() const {
    QStringList out;
    for (const auto& text : texts_) {
        out << text.title;
    }
    return out;
}

bool SourceTab::showText(const QString& title) {
    for (std::size_t i = 0; i < texts_.size(); ++i) {
        if (texts_[i].title.startsWith(title)) {
            {
                const QSignalBlocker blocker(chooser_);
                chooser_->setCurrentIndex(static_cast<int>(i));
            }
            showTextAt(static_cast<int>(i));
            return true;
        }
    }
    return false;
}

void SourceTab::showTextAt(int index) {
    if (index < 0 || static_cast<std::size_t>(index) >= texts_.size()) {
        return;
    }
    const Text& shown = texts_[static_cast<std::size_t>(index)];
    code_->setCode(text(shown.text), shown.language);
    QString info = counted(code_->blockCount(), "line") + QStringLiteral(", ") +
                   QString::fromStdString(format_bytes(shown.text.size()));
    if (shown.language == CodeView::Language::Python && !code_->isHighlighted()) {
        info += tr(" (too large to colour)");
    }
    info_->setText(info);
    stack_->setCurrentWidget(code_);
}

void SourceTab::find(bool backward) {
    if (!code_->findText(find_->text(), backward)) {
        emit statusMessage(tr("'%1' not found").arg(find_->text()));
    }
}

} // namespace cachelens::ui
