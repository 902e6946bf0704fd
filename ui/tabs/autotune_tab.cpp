#include "tabs/autotune_tab.h"

#include "jobs/job_tracker.h"
#include "models/autotune_model.h"
#include "text/counted.h"

#include <cachelens/cachedir/entry_links.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <optional>
#include <set>

namespace cachelens::ui {

namespace {

// "1 line", "3 lines".
struct ModuleTuning {
    std::vector<cachedir::LocatedBestConfig> bestConfigs;
    std::vector<cachedir::BenchmarkCache> caches;
};

} // namespace

AutotuneTab::AutotuneTab(JobPool& pool, QWidget* parent)
    : EntryTab(parent)
    , summary_(new QLabel(this))
    , table_(new QTableView(this))
    , model_(new AutotuneModel(this))
    , proxy_(new QSortFilterProxyModel(this))
    , job_(new JobTracker(pool, this)) {
    summary_->setTextFormat(Qt::PlainText);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    proxy_->setSourceModel(model_);
    proxy_->setSortRole(AutotuneModel::SortRole);
    connect(model_, &QAbstractItemModel::modelReset, this, &AutotuneTab::modelChanged);

    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    // The model's own order (kernel by kernel, benchmark by benchmark) first.
    table_->sortByColumn(-1, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setWordWrap(false);
    table_->setAlternatingRowColors(false); // the winners' tint must stand out
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(table_, &QTableView::activated, this, &AutotuneTab::follow);

    auto* copy = new QAction(tr("Copy rows"), table_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, &AutotuneTab::copySelection);
    table_->addAction(copy);
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(summary_);
    layout->addWidget(table_, 1);
}

AutotuneTab::~AutotuneTab() {
    job_->cancel();
}

bool AutotuneTab::appliesTo(cachedir::FileKind kind) const {
    using cachedir::FileKind;
    return kind == FileKind::BestConfig || kind == FileKind::BenchmarkCache ||
           kind == FileKind::FxGraph || kind == FileKind::Module;
}

void AutotuneTab::showEntry(const EntryRef& ref, const SharedContent& content) {
    job_->cancel();
    const std::filesystem::path root = ref.root;
    if (const auto* best = std::get_if<cachedir::BestConfig>(content.get())) {
        model_->showBestConfig(*best, {});
        summary_->setText(tr("The config autotuning chose for one kernel."));
        if (!best->triton_cache_hash) {
            return;
        }
        // The winner's Triton dir says which kernel (and module) this is for.
        const std::string hash = *best->triton_cache_hash;
        job_->run<std::optional<cachedir::TritonKernelDir>>(
            [root, hash](const JobContext&) { return cachedir::find_triton_dir(root, hash); },
            [this, content](std::optional<cachedir::TritonKernelDir> kernel) {
                if (!kernel) {
                    summary_->setText(tr("The config autotuning chose for one kernel (its "
                                         "winner's Triton dir is not in this cache dir)."));
                    return;
                }
                const QString name = QString::fromStdString(kernel->kernel_name);
                model_->showBestConfig(std::get<cachedir::BestConfig>(*content), {}, name);
                summary_->setText(tr("The config autotuning chose for %1 (module %2).")
                                      .arg(name, kernel->module_key.empty()
                                                     ? tr("unknown")
                                                     : QString::fromStdString(kernel->module_key)));
            });
    } else if (const auto* cache = std::get_if<cachedir::BenchmarkCache>(content.get())) {
        model_->showBenchmarkCache(*cache);
        std::set<std::tuple<std::string, std::string, std::string>> benchmarks;
        for (const auto& choice : cache->choices) {
            benchmarks.insert({choice.op, choice.inputs, choice.precision});
        }
        summary_->setText(
            tr("%1: %2 in %3; the fastest of each is marked best.")
                .arg(QString::fromStdString(cache->device_name),
                     counted(static_cast<qsizetype>(cache->choices.size()), "timed choice"),
                     counted(static_cast<qsizetype>(benchmarks.size()), "benchmark")));
    } else if (const auto* fx = std::get_if<cachedir::FxGraphEntry>(content.get())) {
        model_->showFxGraph(*fx);
        std::size_t candidates = 0;
        std::size_t bestConfigs = 0; // the kernels that record one
        for (const auto& tuner : fx->autotuners) {
            candidates += tuner.candidates.size();
            bestConfigs += tuner.best_config_path.empty() ? 0 : 1;
        }
        const QString counts =
            tr("%1 of %2")
                .arg(counted(static_cast<qsizetype>(candidates), "candidate"),
                     counted(static_cast<qsizetype>(fx->autotuners.size()), "kernel"));
        summary_->setText(bestConfigs == 0 ? counts + tr("; no kernel records a best_config.")
                                           : counts + tr("; reading their best_configs…"));
        if (bestConfigs == 0) {
            return;
        }
        job_->run<std::map<std::string, cachedir::BestConfig>>(
            [root, content](const JobContext& context) {
                return cachedir::read_best_configs_of(
                    root, std::get<cachedir::FxGraphEntry>(*content), context.cancelFlag());
            },
            [this, content, counts,
             kernels = bestConfigs](std::map<std::string, cachedir::BestConfig> found) {
                model_->showFxGraph(std::get<cachedir::FxGraphEntry>(*content), found);
                summary_->setText(
                    counts + tr("; %1 of %2 found in this dir, the winners "
                                "they name marked best.")
                                 .arg(found.size())
                                 .arg(counted(static_cast<qsizetype>(kernels), "best_config")));
            });
    } else if (std::holds_alternative<cachedir::ModuleSource>(*content)) {
        model_->clear();
        summary_->setText(tr("Looking for this module's best_configs and benchmarks…"));
        const std::string key = ref.entry.key;
        job_->run<ModuleTuning>(
            [root, key](const JobContext& context) {
                ModuleTuning out;
                out.bestConfigs =
                    cachedir::find_best_configs_of_module(root, key, context.cancelFlag());
                out.caches = cachedir::read_benchmark_caches(root);
                return out;
            },
            [this, key](ModuleTuning tuning) {
                model_->showModule(QString::fromStdString(key), tuning.bestConfigs, tuning.caches);
                const int timings =
                    model_->rowCount() - static_cast<int>(tuning.bestConfigs.size());
                summary_->setText(
                    model_->rowCount() == 0
                        ? tr("No best_config or benchmark of this module in this "
                             "cache dir.")
                        : tr("%1 of this module's kernels; %2 of the choices "
                             "this module competed with.")
                              .arg(counted(static_cast<qsizetype>(tuning.bestConfigs.size()),
                                           "best_config"),
                                   counted(timings, "benchmark timing")));
            });
    } else {
        clear();
    }
}

void AutotuneTab::clear() {
    job_->cancel();
    model_->clear();
    summary_->clear();
}

void AutotuneTab::modelChanged() {
    for (int column = 0; column < AutotuneModel::ColumnCount; ++column) {
        table_->setColumnHidden(column, !model_->isColumnUsed(column));
    }
    table_->resizeColumnsToContents();
    // Inputs reprs and choice names can be very long: keep the others visible.
    const int limit = table_->fontMetrics().horizontalAdvance(QString(60, QLatin1Char('x')));
    for (int column = 0; column < AutotuneModel::ColumnCount; ++column) {
        table_->setColumnWidth(column, std::min(table_->columnWidth(column), limit));
    }
    // The last visible column changes with the mode: stretch the new one.
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->horizontalHeader()->setStretchLastSection(true);
}

void AutotuneTab::follow(const QModelIndex& index) {
    if (const auto link = linkAt(index)) {
        emit followRequested(link->kind, link->target);
        return;
    }
    // Anywhere else on a row: its Triton kernel, else its choice's module.
    for (int column : {AutotuneModel::TritonColumn, AutotuneModel::ConfigColumn}) {
        if (const auto link = linkAt(index.siblingAtColumn(column))) {
            emit followRequested(link->kind, link->target);
            return;
        }
    }
}

void AutotuneTab::copySelection() {
    QModelIndexList rows = table_->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        return;
    }
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QStringList lines;
    for (const QModelIndex& row : rows) {
        QStringList cells;
        for (int column = 0; column < AutotuneModel::ColumnCount; ++column) {
            if (!table_->isColumnHidden(column)) {
                cells << row.siblingAtColumn(column).data().toString();
            }
        }
        lines << cells.join(QLatin1Char('\t'));
    }
    QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
    emit statusMessage(tr("Copied %1").arg(counted(lines.size(), "row")));
}

} // namespace cachelens::ui
