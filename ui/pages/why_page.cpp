#include "pages/why_page.h"

#include "jobs/job_tracker.h"
#include "models/nearest_keys_model.h"
#include "pages/compare_page.h"
#include "text/counted.h"
#include "text/plain_text.h"
#include "widgets/selected_cells.h"

#include <cachelens/core/format.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace {

// More than `cachelens why` shows by default: a table scrolls.
constexpr std::size_t kCandidates = 50;

// A root's last dirs say the most: elide it on the left.
class ElideLeftDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideLeft;
    }
};

} // namespace

WhyPage::WhyPage(JobPool& pool, QWidget* parent)
    : QWidget(parent)
    , job_(new JobTracker(pool, this))
    , model_(new NearestKeysModel(this))
    , header_(new QLabel(this))
    , error_(new QLabel(this))
    , table_(new QTableView(this))
    , compareButton_(new QPushButton(tr("Compare &side by side"), this))
    , compare_(new ComparePage(pool, this)) {
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    // Its own page, with its own job: a candidate's diff does not cancel the Compare page's load.

    header_->setObjectName(QStringLiteral("whyHeader"));
    header_->setTextFormat(Qt::RichText); // the keys in it are escaped
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setObjectName(QStringLiteral("whyError"));
    error_->setTextFormat(Qt::PlainText);
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setVisible(false);

    table_->setObjectName(QStringLiteral("whyTable"));
    table_->setModel(model_);
    table_->setFont(fixed);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setWordWrap(false);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    auto* header = table_->horizontalHeader();
    header->setSectionResizeMode(NearestKeysModel::RankColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(NearestKeysModel::KeyColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(NearestKeysModel::RootColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(NearestKeysModel::RelationColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(NearestKeysModel::SharedColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(NearestKeysModel::VerdictColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(NearestKeysModel::DifferingColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(NearestKeysModel::InputsColumn, QHeaderView::Stretch);
    table_->setColumnWidth(NearestKeysModel::VerdictColumn,
                           table_->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 60);
    table_->setColumnWidth(NearestKeysModel::DifferingColumn,
                           table_->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 40);
    table_->setColumnWidth(NearestKeysModel::RootColumn,
                           table_->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 24);
    table_->setItemDelegateForColumn(NearestKeysModel::RootColumn, new ElideLeftDelegate(table_));

    auto* copy = new QAction(tr("Copy"), table_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &WhyPage::copySelection);
    table_->addAction(copy);

    compareButton_->setObjectName(QStringLiteral("whyCompareButton"));
    compareButton_->setEnabled(false);
    compareButton_->setToolTip(
        tr("Open the explained entry and this candidate in the Compare tab"));

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    auto* headerRow = new QHBoxLayout;
    headerRow->addWidget(header_, 1);
    headerRow->addWidget(compareButton_, 0, Qt::AlignTop);
    topLayout->addLayout(headerRow);
    topLayout->addWidget(error_);
    topLayout->addWidget(table_, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(compare_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &WhyPage::showSelected);
    connect(table_, &QTableView::activated, this, &WhyPage::requestCompare);
    connect(compareButton_, &QPushButton::clicked, this, &WhyPage::requestCompare);
    connect(compare_, &ComparePage::statusMessage, this, &WhyPage::statusMessage);
    clear();
}

void WhyPage::explain(const EntryRef& fxEntry,
                      const std::vector<std::filesystem::path>& searchRoots) {
    clear();
    target_ = fxEntry;
    header_->setText(tr("Looking for the keys nearest to %1…")
                         .arg(QString::fromStdString(fxEntry.entry.key).toHtmlEscaped()));
    job_->run<Result<NearestKeys>>(
        [fxEntry, searchRoots](const JobContext& context) {
            return findNearestKeys(fxEntry, searchRoots, kCandidates, context.cancelFlag());
        },
        [this](Result<NearestKeys> result) {
            if (!result) {
                header_->setText(
                    tr("Why did %1 miss?")
                        .arg(QString::fromStdString(target_.entry.key).toHtmlEscaped()));
                error_->setText(QString::fromStdString(result.error().describe()));
                error_->setVisible(true);
                emit statusMessage(error_->text());
                return;
            }
            const auto shared = std::make_shared<const NearestKeys>(std::move(*result));
            // The answer first, as `cachelens why` prints it.
            QString text = QStringLiteral("<b>%1</b>")
                               .arg(QString::fromStdString(shared->answer).toHtmlEscaped());
            if (!shared->detail.empty()) {
                text +=
                    QStringLiteral("<br>") + QString::fromStdString(shared->detail).toHtmlEscaped();
            }
            // Counted as `cachelens why` counts them, in the words of the engine.
            const QString searched =
                QString::fromStdString(plural(shared->candidateCount, "FX graph") + " in " +
                                       plural(shared->rootCount, "cache dir"));
            const QString lines =
                shared->fromFacts
                    ? tr("compared by what the entries hold")
                    : QString::fromStdString(plural(shared->debugLines, "debug line"));
            text += tr("<br>%1 (%2 graph, %3): %4 of %5 %6 this graph compiled before; its "
                       "family first, then the nearest other graphs")
                        .arg(QString::fromStdString(shared->targetKey).toHtmlEscaped())
                        .arg(QString::fromStdString(
                            std::string(cachedir::to_string(shared->targetRole))))
                        .arg(lines)
                        .arg(shared->family)
                        .arg(searched)
                        .arg(shared->family == 1 ? tr("is") : tr("are"));
            if (shared->incomparable > 0) {
                text += QStringLiteral("<br>") +
                        QString::fromStdString(
                            plural(shared->incomparable, "other FX entry") +
                            " not compared: debug lines on one side only (PyTorch 2.7 and older "
                            "store none in their entries)")
                            .toHtmlEscaped();
            }
            if (!shared->skipped.empty()) {
                QStringList skipped;
                for (const auto& line : shared->skipped) {
                    skipped << QString::fromStdString(line);
                }
                text +=
                    tr("<br>%1 skipped")
                        .arg(counted(static_cast<std::size_t>(skipped.size()), "unreadable entry"));
                header_->setToolTip(literalText(skipped.join(u'\n')));
            }
            header_->setText(text);
            model_->setResult(shared);
            if (model_->rowCount() > 0) {
                table_->selectionModel()->setCurrentIndex(model_->index(0, 0),
                                                          QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
            }
            emit statusMessage(
                tr("%1 ranked")
                    .arg(counted(static_cast<std::size_t>(model_->rowCount()), "candidate key")));
        });
}

void WhyPage::clear() {
    job_->cancel();
    target_ = {};
    model_->clear();
    compare_->clear();
    header_->setText(tr("Pick an FX graph entry and ask why it missed."));
    header_->setToolTip({});
    error_->setVisible(false);
    compareButton_->setEnabled(false);
}

void WhyPage::showSelected() {
    const QModelIndex current = table_->currentIndex();
    compareButton_->setEnabled(current.isValid());
    if (!current.isValid() || !model_->result()) {
        compare_->clear();
        return;
    }
    // Read from the candidate (what the cache holds) to the target (what
    // missed), as the verdict in the table reads.
    compare_->compare(model_->candidate(current.row()).ref, model_->result()->target);
}

void WhyPage::requestCompare() {
    const QModelIndex current = table_->currentIndex();
    if (!current.isValid() || !model_->result()) {
        return;
    }
    emit compareRequested(model_->candidate(current.row()).ref, model_->result()->target);
}

void WhyPage::copySelection() {
    const QString text = selectedCellsText(*table_);
    if (!text.isEmpty()) {
        QApplication::clipboard()->setText(text);
        emit statusMessage(
            tr("Copied %1").arg(counted(static_cast<std::size_t>(text.count(u'\n') + 1), "line")));
    }
}

} // namespace cachelens::ui
