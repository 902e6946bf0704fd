#include "dialogs/prune_dialog.h"

#include "models/prune_plan_model.h"
#include "text/engine_text.h"
#include "text/stats_text.h"
#include "widgets/job_status_line.h"

#include <cachelens/catalog/catalog.h>

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QShortcut>
#include <QTextDocument>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace cachelens::ui {

namespace {

// Ctrl+C on the plan: the selected rows' paths (a unit's: its first entry's).
void copyPaths(const QTreeView* tree) {
    QStringList lines;
    for (const auto& index : tree->selectionModel()->selectedRows(PrunePlanModel::PathColumn)) {
        lines << index.data().toString();
    }
    if (!lines.isEmpty()) {
        QApplication::clipboard()->setText(lines.join(u'\n'));
    }
}

// What the jobs report as `what`: the engine's stage ("scanning", "parsing",
// "deleting"), worded by onProgress.
QString stageName(const Progress& progress) {
    return text(to_string(progress.stage));
}

} // namespace

PruneDialog::PruneDialog(JobPool& pool, QString catalogPath, std::filesystem::path root,
                         QWidget* parent)
    : PlanDialog(pool,
                 {.objectPrefix = QStringLiteral("prune"),
                  .runText = tr("&Delete…"),
                  .runToolTip = tr("Delete what the preview lists (asks first)"),
                  .confirmTitle = tr("Delete cache entries"),
                  .runRole = QDialogButtonBox::DestructiveRole,
                  .runIsDefault = false,
                  .planDelay = std::chrono::milliseconds(0),
                  .statusText = tr("Set a max size or an age and press Preview.")},
                 parent)
    , catalogPath_(std::move(catalogPath))
    , root_(std::move(root))
    , plan_(new PrunePlanModel(this)) {
    const QString rootText = QString::fromStdString(root_.string());
    setWindowTitle(tr("Prune %1").arg(rootText));

    auto* intro = new QLabel(
        tr("Deletes the oldest entries of <b>%1</b>: an FX key with every entry under it, the "
           "AOT entries linking to it and the modules, best configs and Triton kernels only they "
           "used go together. Locks, files being written and unknown files are never deleted. "
           "Nothing is deleted before you confirm.")
            .arg(rootText.toHtmlEscaped()));
    intro->setTextFormat(Qt::RichText); // the root in it is escaped
    intro->setWordWrap(true);
    intro->setTextInteractionFlags(Qt::TextSelectableByMouse);

    maxSize_ = new QLineEdit;
    maxSize_->setObjectName(QStringLiteral("maxSize"));
    maxSize_->setPlaceholderText(tr("e.g. 2G, 500M (empty: no size limit)"));
    olderThan_ = new QLineEdit;
    olderThan_->setObjectName(QStringLiteral("olderThan"));
    olderThan_->setPlaceholderText(tr("e.g. 30d, 12h (empty: any age)"));
    keepRecent_ = new QLineEdit(QStringLiteral("10m"));
    keepRecent_->setObjectName(QStringLiteral("keepRecent"));
    keepRecent_->setPlaceholderText(tr("default 10m"));
    keepRecent_->setToolTip(tr("Never delete what was written within this long: PyTorch writes "
                               "kernels minutes before the graph that uses them"));
    auto* form = new QFormLayout;
    form->addRow(tr("Max &size:"), maxSize_);
    form->addRow(tr("&Older than:"), olderThan_);
    form->addRow(tr("&Keep recent:"), keepRecent_);
    for (auto* input : {maxSize_, olderThan_, keepRecent_}) {
        connect(input, &QLineEdit::textChanged, this, &PruneDialog::inputsChanged);
    }

    previewButton()->setToolTip(
        tr("Index the dir and list what these limits delete; deletes nothing"));
    auto* actions = new QHBoxLayout;
    actions->addWidget(previewButton());
    actions->addWidget(cancelButton());
    actions->addWidget(progressBar(), 1);
    actions->addWidget(progressLabel());
    actions->addStretch();

    tree_ = new QTreeView;
    tree_->setObjectName(QStringLiteral("prunePlan"));
    tree_->setModel(plan_);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    tree_->setTextElideMode(Qt::ElideMiddle);
    tree_->header()->setStretchLastSection(true);
    auto* copy = new QShortcut(QKeySequence::Copy, tree_);
    copy->setContext(Qt::WidgetShortcut);
    connect(copy, &QShortcut::activated, this, [this] { copyPaths(tree_); });

    outcome_ = new QPlainTextEdit;
    outcome_->setObjectName(QStringLiteral("pruneOutcome"));
    outcome_->setReadOnly(true);
    outcome_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    outcome_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addLayout(actions);
    layout->addWidget(errorBanner());
    layout->addWidget(statusLine());
    layout->addWidget(tree_, 1);
    layout->addWidget(outcome_);
    layout->addWidget(buttonBox());
    resize(900, 640);
}

void PruneDialog::setLimits(std::optional<QString> maxSize, std::optional<QString> olderThan,
                            QString keepRecent) {
    maxSize_->setText(maxSize.value_or(QString()));
    olderThan_->setText(olderThan.value_or(QString()));
    keepRecent_->setText(keepRecent);
}

bool PruneDialog::planWrites() const {
    return plan_->unitCount() > 0;
}

void PruneDialog::clearPlan() {
    plan_->clear();
}

QString PruneDialog::outcomeText() const {
    return outcome_->isHidden() ? QString() : outcome_->toPlainText();
}

void PruneDialog::showPhase(Phase phase) {
    for (auto* input : {maxSize_, olderThan_, keepRecent_}) {
        input->setReadOnly(phase == Phase::Running);
    }
    tree_->setEnabled(phase == Phase::Planned || phase == Phase::Done);
}

void PruneDialog::reportError(const QString& message) {
    showError(message);
    emit statusMessage(message);
}

void PruneDialog::inputsChanged() {
    if (phase() == Phase::Running) {
        return;
    }
    const bool previewShown = phase() == Phase::Planned || phase() == Phase::Planning;
    invalidatePlan();
    showError({});
    if (previewShown) {
        setStatus(tr("The limits changed: Preview again to see what they delete."));
    }
}

void PruneDialog::planCancelled() {
    setStatus(tr("Preview cancelled."));
}

void PruneDialog::reject() {
    if (phase() == Phase::Running) {
        emit statusMessage(tr("Deleting: the dialog closes when it is done."));
        return;
    }
    if (cancelPlan()) {
        planCancelled();
    }
    QDialog::reject();
}

void PruneDialog::startPlan() {
    showError({});
    auto options =
        stats_text::pruneOptions(maxSize_->text(), olderThan_->text(), keepRecent_->text());
    if (!options) {
        reportError(QString::fromStdString(options.error().message));
        invalidatePlan();
        return;
    }
    outcome_->hide();
    const std::filesystem::path catalogPath = catalogPath_.toStdString();
    const auto root = root_;
    runPlanJob<Result<catalog::PrunePlan>>(
        tr("Indexing %1 and planning…").arg(QString::fromStdString(root_.string())),
        [catalogPath, root,
         options = *options](const JobContext& context) -> Result<catalog::PrunePlan> {
            auto catalog = catalog::Catalog::open(catalogPath);
            if (!catalog) {
                return std::unexpected(catalog.error());
            }
            // The plan is made from the dir as it is now.
            catalog::IndexOptions indexing;
            indexing.progress = context.engineProgress(stageName);
            auto planned = catalog->index_and_plan_prune(root, options, indexing);
            if (!planned) {
                return std::unexpected(planned.error());
            }
            if (!*planned || context.cancelled()) {
                return cancelled();
            }
            return std::move(**planned);
        },
        [this](Result<catalog::PrunePlan> plan) {
            if (!plan) {
                const QString error = QString::fromStdString(plan.error().describe());
                emit statusMessage(error);
                failed(error, tr("No preview."));
                return;
            }
            showPlan(std::move(*plan));
        });
}

void PruneDialog::showPlan(catalog::PrunePlan plan) {
    plan_->setPlan(std::move(plan));
    const auto& shown = *plan_->prunePlan();
    const std::size_t entries = plan_->entryCount();
    QString text = tr("%1 now").arg(stats_text::bytes(shown.bytes_before));
    if (shown.max_size) {
        text += tr(", limit %1").arg(stats_text::bytes(*shown.max_size));
    }
    if (shown.units.empty()) {
        text += tr(": nothing to delete.");
    } else {
        text += tr(" → %1 after deleting %n entries", nullptr, static_cast<int>(entries))
                    .arg(stats_text::bytes(shown.bytes_after));
        text +=
            tr(" in %n groups (%1), oldest first.", nullptr, static_cast<int>(shown.units.size()))
                .arg(stats_text::bytes(plan_->bytes()));
    }
    if (shown.recent_bytes > 0 || shown.unevictable_bytes > 0) {
        text += tr("\nAlways kept: %1 written in the last %2, %3 of locks, files being "
                   "written and unknown files.")
                    .arg(stats_text::bytes(shown.recent_bytes),
                         stats_text::duration(shown.keep_recent_ns),
                         stats_text::bytes(shown.unevictable_bytes));
    }
    if (shown.max_size) {
        text += shown.size_reached
                    ? tr("\nThe limit is reached.")
                    : tr("\nThe limit of %1 cannot be reached without deleting what is always "
                         "kept.")
                          .arg(stats_text::bytes(*shown.max_size));
    }
    setStatus(text);
    if (entries <= 200) {
        tree_->expandAll();
    }
    for (int column = 0; column < PrunePlanModel::PathColumn; ++column) {
        tree_->resizeColumnToContents(column);
    }
    planShown();
    emit statusMessage(shown.units.empty()
                           ? tr("Prune preview: nothing to delete")
                           : tr("Prune preview: %n entries, %1", nullptr, static_cast<int>(entries))
                                 .arg(stats_text::bytes(plan_->bytes())));
}

QString PruneDialog::confirmationText() const {
    if (!plan_->prunePlan()) {
        return {};
    }
    return tr("Delete %n entries in %1 groups (%2) from %3?", nullptr,
              static_cast<int>(plan_->entryCount()))
        .arg(plan_->unitCount())
        .arg(stats_text::bytes(plan_->bytes()), QString::fromStdString(root_.string()));
}

bool PruneDialog::confirmRun() {
    QMessageBox ask(QMessageBox::Warning, tr("Delete cache entries"), confirmationText(),
                    QMessageBox::Cancel, this);
    ask.setTextFormat(Qt::PlainText); // the root may hold anything
    ask.setInformativeText(tr("The files are deleted, not moved to the trash. PyTorch "
                              "compiles them again when it needs them."));
    auto* yes = ask.addButton(tr("Delete"), QMessageBox::DestructiveRole);
    ask.setDefaultButton(QMessageBox::Cancel);
    ask.exec();
    return ask.clickedButton() == yes;
}

void PruneDialog::startRun() {
    const std::filesystem::path catalogPath = catalogPath_.toStdString();
    catalog::PrunePlan plan = *plan_->prunePlan();
    runWriteJob<Result<catalog::PruneOutcome>>(
        tr("Deleting %n entries…", nullptr, static_cast<int>(plan_->entryCount())),
        [catalogPath,
         plan = std::move(plan)](const JobContext& context) -> Result<catalog::PruneOutcome> {
            auto catalog = catalog::Catalog::open(catalogPath);
            if (!catalog) {
                return std::unexpected(catalog.error());
            }
            // Prune indexes the root, deletes, and indexes it again. No
            // Cancel: only closing the window stops it, leaving whole
            // entries and a consistent catalog.
            catalog::IndexOptions indexing;
            indexing.progress = context.engineProgress(stageName);
            return catalog->prune(plan, indexing);
        },
        [this](Result<catalog::PruneOutcome> outcome) {
            if (!outcome) {
                const QString error = QString::fromStdString(outcome.error().describe());
                emit statusMessage(error);
                failed(error, tr("Nothing was deleted. Preview again."));
                emit pruned(); // the catalog may have changed
                return;
            }
            showOutcome(*outcome);
        });
}

void PruneDialog::showOutcome(const catalog::PruneOutcome& outcome) {
    QStringList lines;
    lines << tr("Deleted %n entries", nullptr, static_cast<int>(outcome.entries_deleted)) +
                 tr(" (%n files, %1).", nullptr, static_cast<int>(outcome.files_deleted))
                     .arg(stats_text::bytes(outcome.bytes_freed));
    if (!outcome.dirs_removed.empty()) {
        lines << tr("Removed %n empty key and shard dirs.", nullptr,
                    static_cast<int>(outcome.dirs_removed.size()));
    }
    if (!outcome.kept.empty()) {
        lines << tr("Kept %n planned entries:", nullptr, static_cast<int>(outcome.kept.size()));
        for (const auto& line : outcome.kept) {
            lines << QStringLiteral("  ") + QString::fromStdString(line);
        }
    }
    if (!outcome.errors.empty()) {
        lines << tr("%n errors:", nullptr, static_cast<int>(outcome.errors.size()));
        for (const auto& error : outcome.errors) {
            lines << QStringLiteral("  ") + QString::fromStdString(error.describe());
        }
        reportError(tr("Some files could not be deleted: see below."));
    }
    outcome_->setPlainText(lines.join(u'\n'));
    // As tall as what it says, up to 8 lines (then it scrolls).
    const auto shown = std::min<qsizetype>(lines.size(), 8);
    outcome_->setFixedHeight(outcome_->fontMetrics().lineSpacing() * static_cast<int>(shown + 1) +
                             2 * outcome_->frameWidth() +
                             2 * static_cast<int>(outcome_->document()->documentMargin()));
    outcome_->show();
    setStatus(tr("Deleted what is listed below, except what the outcome says was kept. "
                 "Preview again to see the dir as it is now."));
    runDone();
    emit statusMessage(lines.front());
    emit pruned();
}

QString PruneDialog::progressText(qint64 done, qint64 total, const QString& what) const {
    const bool deleting = what == u"deleting";
    const bool again = phase() == Phase::Running; // a delete indexes before and after
    if (total <= 0) {
        if (what.isEmpty()) {
            return again ? tr("Deleting…") : tr("Indexing…");
        }
        return what == u"planning" ? tr("Planning…")
               : deleting          ? tr("Deleting…")
               : again             ? tr("Indexing again…")
                                   : tr("Indexing…");
    }
    return deleting ? tr("Deleting: %1 / %2 entries").arg(done).arg(total)
           : again  ? tr("Indexing again: %1 / %2").arg(done).arg(total)
                    : tr("Indexing: %1 / %2").arg(done).arg(total);
}

} // namespace cachelens::ui
