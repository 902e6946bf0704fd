#include "pages/compare_page.h"

#include "jobs/job_tracker.h"
#include "models/key_diff_model.h"
#include "text/counted.h"
#include "widgets/highlight_colors.h"
#include "widgets/selected_cells.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBlock>
#include <QVBoxLayout>

#include <map>

namespace cachelens::ui {

namespace {

QString qstr(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString describeSide(const EntryRef& ref, const std::string& key) {
    return QStringLiteral("%1  in %2")
        .arg(QString::fromStdString(key),
             QString::fromStdString(ref.root.lexically_normal().string()));
}

// The selected attribute as unified-diff lines: each with its marker and background.
struct DetailLine {
    QChar marker; // ' ', '-', '+'
    QString text;
};

// `raw`: the graph code's diff as written rather than normalized.
std::vector<DetailLine> detailLines(const KeyDiffModel::Row& row, bool raw) {
    std::vector<DetailLine> lines;
    const auto addAll = [&lines](QChar marker, const QString& value) {
        for (const auto& line : value.split(u'\n')) {
            lines.push_back({marker, line});
        }
    };
    const auto& valueDiff = raw && !row.rawValueDiff.empty() ? row.rawValueDiff : row.valueDiff;
    if (!valueDiff.empty()) {
        for (const auto& line : valueDiff) {
            const QChar marker = line.op == explain::DiffLine::Op::Removed ? u'-'
                                 : line.op == explain::DiffLine::Op::Added ? u'+'
                                                                           : u' ';
            lines.push_back({marker, qstr(line.text)});
        }
        return lines;
    }
    if (row.change == KeyDiffModel::Change::Same) {
        addAll(u' ', row.left);
        return lines;
    }
    if (row.hasLeft) {
        addAll(u'-', row.left);
    }
    if (row.hasRight) {
        addAll(u'+', row.right);
    }
    return lines;
}

// Shows rows whose change is not Same, when asked to.
class HideSameFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setHideSame(bool hide) {
        hideSame_ = hide;
        invalidateRowsFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        if (!hideSame_) {
            return true;
        }
        const QModelIndex index = sourceModel()->index(row, 0, parent);
        return index.data(KeyDiffModel::ChangeRole).toInt() !=
               static_cast<int>(KeyDiffModel::Change::Same);
    }

private:
    bool hideSame_ = false;
};

} // namespace

ComparePage::ComparePage(JobPool& pool, QWidget* parent)
    : QWidget(parent)
    , job_(new JobTracker(pool, this))
    , model_(new KeyDiffModel(this))
    , proxy_(new HideSameFilter(this))
    , keys_(new QLabel(this))
    , summary_(new QLabel(this))
    , verdict_(new QLabel(this))
    , causes_(new QLabel(this))
    , error_(new QLabel(this))
    , hideSame_(new QCheckBox(tr("&Hide unchanged attributes"), this))
    , rawCode_(new QCheckBox(tr("Graph code as &written"), this))
    , table_(new QTableView(this))
    , detail_(new QPlainTextEdit(this)) {
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    proxy_->setSourceModel(model_);

    keys_->setObjectName(QStringLiteral("compareKeys"));
    keys_->setTextFormat(Qt::PlainText);
    keys_->setFont(fixed);
    keys_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setObjectName(QStringLiteral("compareSummary"));
    summary_->setTextFormat(Qt::PlainText);
    QFont bold = summary_->font();
    bold.setBold(true);
    summary_->setFont(bold);
    // Text from the cache: plain text only.
    verdict_->setObjectName(QStringLiteral("compareVerdict"));
    verdict_->setTextFormat(Qt::PlainText);
    verdict_->setWordWrap(true);
    verdict_->setFont(bold);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    causes_->setObjectName(QStringLiteral("compareCauses"));
    causes_->setTextFormat(Qt::PlainText);
    causes_->setWordWrap(true);
    causes_->setFont(fixed);
    causes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setObjectName(QStringLiteral("compareError"));
    error_->setTextFormat(Qt::PlainText);
    hideSame_->setObjectName(QStringLiteral("compareHideSame"));
    rawCode_->setObjectName(QStringLiteral("compareRawCode"));
    rawCode_->setToolTip(tr("The graph code's line diff over the code as written. Unticked, the "
                            "code is normalized: frees and sym_size lines dropped, the right "
                            "graph's values named as the left's where their lines pair up, so a "
                            "renumbering shows no change."));
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setVisible(false);

    table_->setObjectName(QStringLiteral("compareTable"));
    table_->setModel(proxy_);
    table_->setFont(fixed);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideRight);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(KeyDiffModel::AttributeColumn,
                                                     QHeaderView::Interactive);
    table_->horizontalHeader()->setSectionResizeMode(KeyDiffModel::ChangeColumn,
                                                     QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(KeyDiffModel::LeftColumn,
                                                     QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(KeyDiffModel::RightColumn,
                                                     QHeaderView::Stretch);
    table_->setColumnWidth(KeyDiffModel::AttributeColumn,
                           table_->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 36);

    detail_->setObjectName(QStringLiteral("compareDetail"));
    detail_->setReadOnly(true);
    detail_->setFont(fixed);
    detail_->setLineWrapMode(QPlainTextEdit::NoWrap);
    detail_->setPlaceholderText(tr("Select an attribute to see both values"));

    auto* copy = new QAction(tr("Copy"), table_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &ComparePage::copySelection);
    table_->addAction(copy);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(table_);
    splitter->addWidget(detail_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* header = new QHBoxLayout;
    header->addWidget(summary_, 1);
    header->addWidget(rawCode_);
    header->addWidget(hideSame_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(keys_);
    layout->addWidget(verdict_);
    layout->addWidget(causes_);
    layout->addLayout(header);
    layout->addWidget(error_);
    layout->addWidget(splitter, 1);

    connect(hideSame_, &QCheckBox::toggled, this,
            [this](bool hide) { static_cast<HideSameFilter*>(proxy_)->setHideSame(hide); });
    connect(rawCode_, &QCheckBox::toggled, this, &ComparePage::showSelected);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ComparePage::showSelected);
    connect(proxy_, &QAbstractItemModel::modelReset, this, &ComparePage::showSelected);
    clear();
}

void ComparePage::compare(const EntryRef& left, const EntryRef& right) {
    clear();
    keys_->setText(
        QStringLiteral("− %1\n+ %2")
            .arg(describeSide(left, left.entry.key), describeSide(right, right.entry.key)));
    summary_->setText(tr("Loading…"));
    job_->run<Result<std::shared_ptr<const KeyComparison>>>(
        [left, right](const JobContext&) { return compareEntries(left, right); },
        [this](Result<std::shared_ptr<const KeyComparison>> result) {
            if (!result) {
                showError(QString::fromStdString(result.error().describe()));
                return;
            }
            showComparison(std::move(*result));
        });
}

void ComparePage::showComparison(std::shared_ptr<const KeyComparison> comparison) {
    if (!comparison) {
        clear();
        return;
    }
    error_->setVisible(false);
    const auto role = [](const cachedir::FxGraphEntry& fx) {
        return QString::fromStdString(std::string(cachedir::to_string(fx.role)));
    };
    keys_->setText(QStringLiteral("− %1  (%2 graph)\n+ %3  (%4 graph)")
                       .arg(describeSide(comparison->left, comparison->leftFx.key),
                            role(comparison->leftFx),
                            describeSide(comparison->right, comparison->rightFx.key),
                            role(comparison->rightFx)));
    // What cannot be told first, then what the entries hold, as `diff` prints them.
    verdict_->setText(
        comparison->causes.held.empty()
            ? QString::fromStdString(comparison->causes.verdict)
            : QString::fromStdString(comparison->causes.verdict + "\n" + comparison->causes.held));
    QStringList causes;
    for (const auto& cause : comparison->causes.causes) {
        const QString category =
            QString::fromStdString(std::string(explain::to_string(cause.category)));
        causes
            << QStringLiteral("%1 %2").arg(category, -11).arg(QString::fromStdString(cause.text));
    }
    std::size_t unchanged = 0;
    QStringList inputs;
    for (const auto& input : comparison->inputs) {
        if (input.changed()) {
            inputs << QStringLiteral("  ") + QString::fromStdString(input.describe());
        } else {
            ++unchanged;
        }
    }
    if (!inputs.isEmpty()) {
        causes << tr("Example inputs, aligned by what they are (%n unchanged):", nullptr,
                     static_cast<int>(unchanged))
               << inputs;
    }
    causes_->setText(causes.join(u'\n'));
    causes_->setVisible(!causes.isEmpty());
    model_->setComparison(std::move(comparison));
    const int differing = model_->differing();
    const int same = model_->same();
    summary_->setText(differing == 0 ? tr("The same key inputs (%1 attributes)").arg(same)
                      : differing == 1
                          ? tr("1 attribute differs, %1 same").arg(same)
                          : tr("%1 attributes differ, %2 same").arg(differing).arg(same));
    if (proxy_->rowCount() > 0) {
        table_->selectionModel()->setCurrentIndex(
            proxy_->index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    emit statusMessage(summary_->text());
}

void ComparePage::clear() {
    job_->cancel();
    model_->clear();
    keys_->setText(tr("Nothing to compare"));
    summary_->clear();
    verdict_->clear();
    causes_->clear();
    causes_->setVisible(false);
    error_->setVisible(false);
    detail_->clear();
}

void ComparePage::showError(const QString& message) {
    model_->clear();
    verdict_->clear();
    causes_->clear();
    causes_->setVisible(false);
    summary_->setText(tr("Cannot compare"));
    error_->setText(message);
    error_->setVisible(true);
    emit statusMessage(message);
}

void ComparePage::showSelected() {
    detail_->clear();
    const QModelIndex current = proxy_->mapToSource(table_->currentIndex());
    if (!current.isValid()) {
        detail_->setExtraSelections({});
        return;
    }
    const auto& row = model_->row(current.row());
    const auto lines = detailLines(row, rawCode_->isChecked());
    QStringList text;
    text.reserve(static_cast<qsizetype>(lines.size()) + 1);
    text << QStringLiteral("%1 (%2)").arg(row.attribute, KeyDiffModel::changeName(row.change));
    for (const auto& line : lines) {
        text << QString(line.marker) + u' ' + line.text;
    }
    detail_->setPlainText(text.join(u'\n'));
    // Backgrounds per changed line, from explain's line diff.
    QList<QTextEdit::ExtraSelection> selections;
    int firstChange = -1;
    QTextBlock block = detail_->document()->findBlockByNumber(1);
    for (std::size_t i = 0; i < lines.size() && block.isValid(); ++i, block = block.next()) {
        if (lines[i].marker == u' ') {
            continue;
        }
        QTextEdit::ExtraSelection selection;
        selection.format.setBackground(lines[i].marker == u'-' ? highlight::removed()
                                                               : highlight::added());
        selection.format.setProperty(QTextFormat::FullWidthSelection, true);
        selection.cursor = QTextCursor(block);
        selections << selection;
        if (firstChange < 0) {
            firstChange = block.blockNumber();
        }
    }
    detail_->setExtraSelections(selections);
    // Show the first change of a long graph rather than its unchanged top.
    if (firstChange > 0) {
        detail_->setTextCursor(QTextCursor(detail_->document()->findBlockByNumber(firstChange)));
        detail_->centerCursor();
    } else {
        detail_->moveCursor(QTextCursor::Start);
    }
}

void ComparePage::copySelection() {
    const QString text = selectedCellsText(*table_, KeyDiffModel::FullValueRole);
    if (text.isEmpty()) {
        return;
    }
    QApplication::clipboard()->setText(text);
    emit statusMessage(
        tr("Copied %1").arg(counted(static_cast<std::size_t>(text.count(u'\n') + 1), "line")));
}

} // namespace cachelens::ui
