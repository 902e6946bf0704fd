#include "tabs/overview_tab.h"

#include "jobs/job_tracker.h"
#include "models/entry_fields_model.h"

#include <cachelens/bundle/code_verdicts.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QTreeView>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace {

// What a module links to, found on disk.
struct ModuleLinks {
    std::vector<cachedir::TritonKernelDir> kernels;
    std::vector<cachedir::LocatedBestConfig> bestConfigs;
};

} // namespace

OverviewTab::OverviewTab(JobPool& pool, QWidget* parent)
    : EntryTab(parent)
    , title_(new QLabel(this))
    , view_(new QTreeView(this))
    , model_(new EntryFieldsModel(this))
    , tritonJob_(new JobTracker(pool, this))
    , safetyJob_(new JobTracker(pool, this))
    , aotJob_(new JobTracker(pool, this)) {
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    title_->setTextFormat(Qt::PlainText);
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    title_->setFont(titleFont);

    view_->setModel(model_);
    view_->setUniformRowHeights(true); // fast with thousands of candidates
    view_->setAlternatingRowColors(true);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Double-click follows a link; groups expand from their arrow or Enter.
    view_->setExpandsOnDoubleClick(false);
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    view_->header()->setStretchLastSection(true);
    view_->header()->setSectionResizeMode(EntryFieldsModel::NameColumn, QHeaderView::Interactive);

    auto* copy = new QAction(tr("Copy"), view_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, &OverviewTab::copySelection);
    view_->addAction(copy);

    connect(view_, &QTreeView::activated, this, &OverviewTab::onActivated);
    connect(view_, &QWidget::customContextMenuRequested, this, &OverviewTab::showContextMenu);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(title_);
    layout->addWidget(view_);
}

OverviewTab::~OverviewTab() {
    tritonJob_->cancel();
    safetyJob_->cancel();
    aotJob_->cancel();
}

bool OverviewTab::appliesTo(cachedir::FileKind) const {
    return true;
}

void OverviewTab::showEntry(const EntryRef& ref, const SharedContent& content) {
    tritonJob_->cancel();
    safetyJob_->cancel();
    aotJob_->cancel();
    title_->setText(QString::fromUtf8(cachedir::to_string(ref.entry.kind)) + QLatin1Char(' ') +
                    QString::fromStdString(ref.entry.key));
    model_->setEntry(ref.entry, *content);
    view_->expandToDepth(0);
    fitNameColumn();

    // What importing it would say: the verdict of the pickle and the code
    // PyTorch would run from it, read off the GUI thread (a wrapper is MBs).
    const std::filesystem::path entryRoot = ref.root;
    const cachedir::Entry entry = ref.entry;
    safetyJob_->run<std::optional<bundle::ArtifactCheck>>(
        [entryRoot, entry](const JobContext&) { return bundle::judge_entry(entryRoot, entry); },
        [this](std::optional<bundle::ArtifactCheck> check) {
            if (!check) {
                return;
            }
            model_->prependField(safetyField(*check));
            if (!check->findings.empty()) {
                view_->expand(model_->index(0, 0));
            }
            fitNameColumn();
        });

    if (ref.entry.kind == cachedir::FileKind::FxGraph) {
        // What this graph belongs to: the AOTAutograd entries that run it.
        const std::string fxKey = ref.entry.key;
        aotJob_->run<std::vector<cachedir::AotUse>>(
            [entryRoot, fxKey](const JobContext& context) {
                return cachedir::find_aot_entries_using(entryRoot, fxKey, context.cancelFlag());
            },
            [this](std::vector<cachedir::AotUse> uses) {
                std::vector<FieldNode> children;
                for (const auto& use : uses) {
                    children.push_back(
                        {tr("its %1 graph")
                             .arg(QString::fromStdString(std::string(cachedir::to_string(use.as)))),
                         QString::fromStdString(use.key),
                         true,
                         EntryLink{cachedir::FileKind::AotAutograd,
                                   QString::fromStdString(use.path)},
                         {}});
                }
                FieldNode group{tr("AOTAutograd entries"),
                                uses.empty() ? tr("none in this cache dir") : QString(), false,
                                std::nullopt, std::move(children)};
                model_->appendField(std::move(group));
                view_->expand(model_->index(model_->rowCount() - 1, 0));
                fitNameColumn();
            });
        return;
    }
    const auto* module = std::get_if<cachedir::ModuleSource>(content.get());
    if (module == nullptr || module->module.kernel_names().empty()) {
        return;
    }
    // Which Triton kernels were compiled from this module: a walk of triton/.
    const std::filesystem::path root = ref.root;
    const std::string key = ref.entry.key;
    const std::vector<std::string> names = module->module.kernel_names();
    tritonJob_->run<ModuleLinks>(
        [root, key, names](const JobContext& context) {
            ModuleLinks out;
            out.kernels =
                cachedir::find_triton_dirs_of_module(root, key, names, context.cancelFlag());
            out.bestConfigs =
                cachedir::find_best_configs_of_module(root, key, context.cancelFlag());
            return out;
        },
        [this](ModuleLinks links) {
            FieldNode kernels = tritonKernelsGroup(tr("Triton kernels"), links.kernels);
            if (links.kernels.empty()) {
                kernels.value = tr("none in this cache dir");
            }
            model_->appendField(std::move(kernels));
            view_->expand(model_->index(model_->rowCount() - 1, 0));
            if (!links.bestConfigs.empty()) {
                model_->appendField(bestConfigsGroup(tr("Best configs"), links.bestConfigs));
                view_->expand(model_->index(model_->rowCount() - 1, 0));
            }
            fitNameColumn();
        });
}

void OverviewTab::fitNameColumn() {
    // Names fit, but never so wide that values (keys, guards) get no room.
    view_->resizeColumnToContents(EntryFieldsModel::NameColumn);
    view_->setColumnWidth(EntryFieldsModel::NameColumn,
                          std::min(view_->columnWidth(EntryFieldsModel::NameColumn) + 16, 360));
}

void OverviewTab::clear() {
    tritonJob_->cancel();
    safetyJob_->cancel();
    aotJob_->cancel();
    title_->clear();
    model_->clear();
}

bool OverviewTab::followLink(const QModelIndex& index) {
    const auto link = linkAt(index);
    if (!link) {
        return false;
    }
    emit followRequested(link->kind, link->target);
    return true;
}

void OverviewTab::onActivated(const QModelIndex& index) {
    if (!followLink(index)) {
        const QModelIndex first = index.siblingAtColumn(0);
        view_->setExpanded(first, !view_->isExpanded(first));
    }
}

void OverviewTab::copySelection() {
    QModelIndexList rows = view_->selectionModel()->selectedRows(EntryFieldsModel::NameColumn);
    if (rows.isEmpty() && view_->currentIndex().isValid()) {
        rows << view_->currentIndex().siblingAtColumn(EntryFieldsModel::NameColumn);
    }
    if (rows.isEmpty()) {
        return;
    }
    std::sort(rows.begin(), rows.end(), [this](const QModelIndex& a, const QModelIndex& b) {
        return view_->visualRect(a).top() < view_->visualRect(b).top();
    });
    auto value = [](const QModelIndex& row) {
        return row.siblingAtColumn(EntryFieldsModel::ValueColumn)
            .data(EntryFieldsModel::FullValueRole)
            .toString();
    };
    QString text;
    if (rows.size() == 1) {
        text = value(rows.front());
    } else {
        QStringList lines;
        for (const QModelIndex& row : rows) {
            lines << row.data().toString() + QLatin1Char('\t') + value(row);
        }
        text = lines.join(QLatin1Char('\n'));
    }
    QApplication::clipboard()->setText(text);
    emit statusMessage(rows.size() == 1 ? tr("Copied %1").arg(rows.front().data().toString())
                                        : tr("Copied %1 fields").arg(rows.size()));
}

void OverviewTab::showContextMenu(const QPoint& position) {
    const QModelIndex index = view_->indexAt(position);
    QMenu menu(this);
    if (const auto link = linkAt(index)) {
        QAction* go = menu.addAction(tr("Go to %1").arg(link->describe()));
        connect(go, &QAction::triggered, this, [this, index] { followLink(index); });
        menu.setDefaultAction(go);
        menu.addSeparator();
    }
    if (index.isValid()) {
        QAction* copy = menu.addAction(tr("Copy"), this, &OverviewTab::copySelection);
        copy->setShortcut(QKeySequence::Copy);
        menu.addSeparator();
    }
    menu.addAction(tr("Expand all"), view_, &QTreeView::expandAll);
    menu.addAction(tr("Collapse all"), view_, &QTreeView::collapseAll);
    menu.exec(view_->viewport()->mapToGlobal(position));
}

} // namespace cachelens::ui
