#include "tabs/debug_lines_tab.h"

#include "models/debug_lines_model.h"
#include "text/counted.h"
#include "widgets/code_view.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace {

// "1 line", "3 lines".
} // namespace

DebugLinesTab::DebugLinesTab(QWidget* parent)
    : EntryTab(parent)
    , filter_(new QLineEdit(this))
    , count_(new QLabel(this))
    , table_(new QTableView(this))
    , value_(new CodeView(this))
    , model_(new DebugLinesModel(this))
    , proxy_(new QSortFilterProxyModel(this)) {
    filter_->setPlaceholderText(tr("Filter by attribute or value (Ctrl+F)"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, this, &DebugLinesTab::setFilterText);
    auto* find = new QShortcut(QKeySequence::Find, this);
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, this, [this] {
        filter_->setFocus();
        filter_->selectAll();
    });

    proxy_->setSourceModel(model_);
    proxy_->setFilterRole(DebugLinesModel::FilterTextRole);
    proxy_->setFilterKeyColumn(DebugLinesModel::HashColumn);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(proxy_, &QAbstractItemModel::modelReset, this, &DebugLinesTab::updateCount);
    connect(proxy_, &QAbstractItemModel::rowsInserted, this, &DebugLinesTab::updateCount);
    connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &DebugLinesTab::updateCount);
    connect(proxy_, &QAbstractItemModel::layoutChanged, this, &DebugLinesTab::updateCount);

    table_->setModel(proxy_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setWordWrap(false);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    // The hash is mostly for comparing: a prefix is enough to see it change.
    const QFontMetrics mono(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    table_->setColumnWidth(DebugLinesModel::HashColumn,
                           mono.horizontalAdvance(QString(14, QLatin1Char('x'))));
    table_->setColumnWidth(DebugLinesModel::AttributeColumn, 300);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &DebugLinesTab::showCurrentValue);

    auto* copy = new QAction(tr("Copy lines"), table_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, &DebugLinesTab::copySelection);
    table_->addAction(copy);
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);

    value_->setPlaceholderText(tr("Select a line to see its whole value."));

    auto* top = new QHBoxLayout;
    top->addWidget(filter_, 1);
    count_->setTextFormat(Qt::PlainText);
    top->addWidget(count_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(table_);
    splitter->addWidget(value_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    updateCount();
}

bool DebugLinesTab::appliesTo(cachedir::FileKind kind) const {
    return kind == cachedir::FileKind::FxGraph;
}

void DebugLinesTab::showEntry(const EntryRef&, const SharedContent& content) {
    value_->clearCode();
    if (const auto* fx = std::get_if<cachedir::FxGraphEntry>(content.get())) {
        model_->setLines(fx->debug_lines);
    } else {
        model_->clear();
    }
    const QFontMetrics metrics(table_->font());
    table_->resizeColumnToContents(DebugLinesModel::AttributeColumn);
    table_->setColumnWidth(DebugLinesModel::AttributeColumn,
                           std::min(table_->columnWidth(DebugLinesModel::AttributeColumn),
                                    metrics.horizontalAdvance(QString(48, QLatin1Char('x')))));
    updateCount();
}

void DebugLinesTab::clear() {
    model_->clear();
    value_->clearCode();
}

void DebugLinesTab::setFilterText(const QString& text) {
    if (filter_->text() != text) {
        filter_->setText(text); // comes back here through textChanged
        return;
    }
    proxy_->setFilterFixedString(text);
    updateCount();
}

void DebugLinesTab::updateCount() {
    const int all = model_->rowCount();
    const int shown = proxy_->rowCount();
    count_->setText(shown == all ? counted(all, "line")
                                 : tr("%1 of %2").arg(shown).arg(counted(all, "line")));
}

void DebugLinesTab::showCurrentValue() {
    const QModelIndex current = table_->currentIndex();
    if (!current.isValid()) {
        value_->clearCode();
        return;
    }
    value_->setCode(current.data(DebugLinesModel::FullValueRole).toString(),
                    CodeView::Language::Python);
}

void DebugLinesTab::copySelection() {
    QModelIndexList rows = table_->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        return;
    }
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QStringList lines;
    for (const QModelIndex& row : rows) {
        lines << row.data(DebugLinesModel::LineTextRole).toString();
    }
    QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
    emit statusMessage(tr("Copied %1").arg(counted(lines.size(), "debug line")));
}

} // namespace cachelens::ui
