#include "pages/stats_page.h"

#include "data/stats_snapshot.h"
#include "jobs/job_tracker.h"
#include "models/kind_stats_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/plain_text.h"
#include "text/stats_text.h"
#include "widgets/banner.h"
#include "widgets/chart_style.h"

#include <cachelens/cachedir/cache_dir.h>

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QCursor>
#include <QEvent>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHorizontalBarSeries>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <array>

namespace cachelens::ui {

namespace {

constexpr int kRootRole = Qt::UserRole + 1;
constexpr int kPathRole = Qt::UserRole + 2;

// Ctrl+C on a table: the selected cells, a line per row, tab-separated.
void copyTableSelection(const QTableView* view) {
    auto indexes = view->selectionModel()->selectedIndexes();
    if (indexes.isEmpty() && view->currentIndex().isValid()) {
        indexes << view->currentIndex();
    }
    std::sort(indexes.begin(), indexes.end(), [](const QModelIndex& a, const QModelIndex& b) {
        return std::pair(a.row(), a.column()) < std::pair(b.row(), b.column());
    });
    QString text;
    int row = -1;
    for (const auto& index : indexes) {
        if (row != -1) {
            text += index.row() == row ? u'\t' : u'\n';
        }
        row = index.row();
        text += index.data().toString();
    }
    if (!text.isEmpty()) {
        QApplication::clipboard()->setText(text);
    }
}

// Ctrl+C on an entry list: the selected entries' paths, a line each.
void copyListSelection(const QTreeWidget* list) {
    QStringList lines;
    for (auto* item : list->selectedItems()) {
        lines << item->data(0, kPathRole).toString();
    }
    if (!lines.isEmpty()) {
        QApplication::clipboard()->setText(lines.join(u'\n'));
    }
}

QTreeWidget* makeEntryList(const QStringList& headers) {
    auto* list = new QTreeWidget;
    list->setHeaderLabels(headers);
    list->setRootIsDecorated(false);
    list->setUniformRowHeights(true);
    list->setAlternatingRowColors(true);
    list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    list->setTextElideMode(Qt::ElideMiddle);
    list->header()->setStretchLastSection(true);
    QShortcut* copy = new QShortcut(QKeySequence::Copy, list);
    copy->setContext(Qt::WidgetShortcut);
    QObject::connect(copy, &QShortcut::activated, list, [list] { copyListSelection(list); });
    return list;
}

QChartView* makeChartView(const QString& title, const QString& objectName) {
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->hide();
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* view = new QChartView(chart);
    view->setObjectName(objectName);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    return view;
}

// A byte unit that keeps the largest bar's number readable: 1 to 1023.
std::pair<double, QString> byteUnit(std::uint64_t largest) {
    static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
    double scale = 1;
    std::size_t unit = 0;
    while (static_cast<double>(largest) / scale >= 1024 && unit + 1 < kUnits.size()) {
        scale *= 1024;
        ++unit;
    }
    return {scale, QString::fromLatin1(kUnits[unit])};
}

void clearChart(QChart* chart) {
    chart->removeAllSeries();
    for (auto* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

} // namespace

StatsPage::StatsPage(JobPool& pool, QString catalogPath, QWidget* parent)
    : QWidget(parent)
    , job_(new JobTracker(pool, this))
    , catalogPath_(std::move(catalogPath))
    , kinds_(new KindStatsModel(this))
    , sorted_(new KindStatsSortProxy(this)) {
    title_ = new QLabel(tr("Stats"));
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    title_->setFont(titleFont);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    title_->setWordWrap(true);
    title_->setTextFormat(Qt::PlainText);
    subtitle_ = new QLabel;
    subtitle_->setTextFormat(Qt::PlainText);
    subtitle_->setWordWrap(true);
    refresh_ = new QPushButton(tr("Refresh"));
    refresh_->setShortcut(QKeySequence::Refresh);
    refresh_->setToolTip(tr("Read the catalog again (F5)"));
    prune_ = new QPushButton(tr("Prune…"));
    prune_->setToolTip(tr("Delete the oldest entries of this cache dir down to a size or age"));
    prune_->setEnabled(false);
    error_ = makeBanner(QStringLiteral("statsError"), BannerTone::Error);

    auto* header = new QHBoxLayout;
    auto* titles = new QVBoxLayout;
    titles->addWidget(title_);
    titles->addWidget(subtitle_);
    header->addLayout(titles, 1);
    header->addWidget(refresh_, 0, Qt::AlignTop);
    header->addWidget(prune_, 0, Qt::AlignTop);

    sorted_->setSourceModel(kinds_);
    table_ = new QTableView;
    table_->setObjectName(QStringLiteral("kindStatsTable"));
    table_->setModel(sorted_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(KindStatsModel::BytesColumn, Qt::DescendingOrder);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    table_->setAlternatingRowColors(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    // The table spans the page: its numbers spread out, no empty band beside it.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(KindStatsModel::KindColumn,
                                                     QHeaderView::ResizeToContents);
    auto* copyTable = new QShortcut(QKeySequence::Copy, table_);
    copyTable->setContext(Qt::WidgetShortcut);
    connect(copyTable, &QShortcut::activated, this, [this] { copyTableSelection(table_); });

    bytesView_ = makeChartView(tr("Size by kind"), QStringLiteral("bytesByKindChart"));
    ageView_ = makeChartView(tr("Entries by age"), QStringLiteral("entriesByAgeChart"));
    auto* charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(bytesView_);
    charts->addWidget(ageView_);
    charts->setChildrenCollapsible(false);
    charts->setStretchFactor(0, 1);
    charts->setStretchFactor(1, 1);

    largest_ = makeEntryList({tr("Size"), tr("Kind"), tr("Path"), tr("Cache dir")});
    largest_->setObjectName(QStringLiteral("largestEntries"));
    errors_ = makeEntryList({tr("Kind"), tr("Path"), tr("Error"), tr("Cache dir")});
    errors_->setObjectName(QStringLiteral("parseErrors"));
    auto* largestBox = new QGroupBox(tr("Largest entries"));
    (new QVBoxLayout(largestBox))->addWidget(largest_);
    auto* errorsBox = new QGroupBox(tr("Entries that do not parse, files of no known kind"));
    (new QVBoxLayout(errorsBox))->addWidget(errors_);
    // What fills a Triton cache: its kernels by arch and by name.
    triton_ = makeEntryList({tr("Size"), tr("Kernels"), tr("Arch or kernel"), tr("Cache dir")});
    triton_->setObjectName(QStringLiteral("tritonKernels"));
    triton_->setSelectionMode(QAbstractItemView::NoSelection);
    // Kernel names share their start (triton_per_fused_): keep their ends.
    triton_->setTextElideMode(Qt::ElideLeft);
    auto* tritonBox = new QGroupBox(tr("Triton kernels"));
    (new QVBoxLayout(tritonBox))->addWidget(triton_);
    auto* lists = new QSplitter(Qt::Horizontal);
    lists->addWidget(largestBox);
    lists->addWidget(errorsBox);
    lists->addWidget(tritonBox);
    lists->setChildrenCollapsible(false);
    for (auto* list : {largest_, errors_}) {
        connect(list, &QTreeWidget::itemActivated, this,
                [this](QTreeWidgetItem* item) { activateItem(item); });
        list->setToolTip(tr("Double-click to open the entry; Ctrl+C copies the paths"));
    }

    auto* parts = new QSplitter(Qt::Vertical);
    parts->addWidget(table_);
    parts->addWidget(charts);
    parts->addWidget(lists);
    parts->setChildrenCollapsible(false);
    parts->setStretchFactor(0, 2);
    parts->setStretchFactor(1, 3);
    parts->setStretchFactor(2, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(error_);
    layout->addWidget(parts, 1);

    connect(refresh_, &QPushButton::clicked, this, &StatsPage::refresh);
    connect(prune_, &QPushButton::clicked, this, [this] {
        if (root_) {
            emit pruneRequested(*root_);
        }
    });
    applyPalette();
}

StatsPage::~StatsPage() = default;

QChart* StatsPage::bytesChart() const {
    return bytesView_->chart();
}

QChart* StatsPage::ageChart() const {
    return ageView_->chart();
}

QString StatsPage::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

void StatsPage::showRoot(const std::optional<std::filesystem::path>& root) {
    root_ = root;
    prune_->setEnabled(false);
    title_->setText(root ? QString::fromStdString(root->string()) : tr("Every cache dir"));
    refresh();
}

void StatsPage::refresh() {
    subtitle_->setText(tr("Reading the catalog…"));
    error_->hide();
    const std::filesystem::path catalogPath = catalogPath_.toStdString();
    const auto root = root_;
    const auto now = stats_text::nowNs();
    job_->run<Result<StatsSnapshot>>(
        [catalogPath, root, now](const JobContext&) {
            return loadStatsSnapshot(catalogPath, root, now);
        },
        [this](Result<StatsSnapshot> snapshot) {
            if (!snapshot) {
                showError(QString::fromStdString(snapshot.error().describe()));
                return;
            }
            setSnapshot(std::move(*snapshot));
        });
}

void StatsPage::showError(const QString& message) {
    error_->setText(message);
    error_->show();
    subtitle_->clear();
    emit statusMessage(message);
}

void StatsPage::setSnapshot(StatsSnapshot snapshot) {
    snapshot_ = std::make_unique<StatsSnapshot>(std::move(snapshot));
    const auto& roots = snapshot_->roots;
    kinds_->setStats(roots, snapshot_->now_ns);
    table_->resizeColumnsToContents();
    // As tall as its rows (a few kinds): the space below is the charts'.
    int height = table_->horizontalHeader()->height() + 2 * table_->frameWidth();
    for (int row = 0; row < sorted_->rowCount(); ++row) {
        height += table_->rowHeight(row);
    }
    table_->setMaximumHeight(std::max(height, 4 * table_->verticalHeader()->defaultSectionSize()));
    error_->hide();

    const bool one = root_.has_value();
    prune_->setEnabled(one && !roots.empty());
    if (roots.empty()) {
        error_->setText(
            one ? tr("%1 is not in the catalog yet: index it first.")
                      .arg(QString::fromStdString(root_->string()))
                : tr("The catalog %1 has no cache dirs yet: index one first.").arg(catalogPath_));
        error_->show();
    }
    const auto& total = kinds_->total();
    QString summary = tr("%L1 entries, %L2 files, %3")
                          .arg(static_cast<qulonglong>(total.entries))
                          .arg(static_cast<qulonglong>(total.files))
                          .arg(stats_text::bytes(total.bytes));
    if (one && !roots.empty()) {
        const auto& indexed = roots.front().root.indexed_ns;
        subtitle_->setText(tr("%1 · indexed %2")
                               .arg(summary, indexed ? stats_text::age(*indexed, snapshot_->now_ns)
                                                     : tr("never completely")));
        title_->setText(QString::fromStdString(roots.front().root.location));
    } else if (!one) {
        subtitle_->setText(tr("%2 in %1 · catalog %3")
                               .arg(counted(static_cast<std::size_t>(roots.size()), "cache dir"))
                               .arg(summary, catalogPath_));
    } else {
        subtitle_->clear();
    }

    // The lists: every root's, largest first; the root column only for several.
    std::vector<std::pair<const catalog::RootStats*, const catalog::EntrySummary*>> largest;
    std::vector<std::pair<const catalog::RootStats*, const catalog::EntrySummary*>> errors;
    for (const auto& root : roots) {
        for (const auto& entry : root.largest) {
            largest.emplace_back(&root, &entry);
        }
        for (const auto& entry : root.parse_errors) {
            errors.emplace_back(&root, &entry);
        }
    }
    // Then the files cachelens does not know: never parsed, never checked.
    std::size_t parseErrors = errors.size();
    std::uint64_t unknownFiles = 0;
    std::uint64_t unknownBytes = 0;
    for (const auto& root : roots) {
        if (const auto found = root.kinds.find(cachedir::FileKind::Unknown);
            found != root.kinds.end()) {
            unknownFiles += found->second.files;
            unknownBytes += found->second.bytes;
        }
        for (const auto& entry : root.unknown) {
            errors.emplace_back(&root, &entry);
        }
    }
    std::stable_sort(largest.begin(), largest.end(),
                     [](const auto& a, const auto& b) { return a.second->size > b.second->size; });
    if (largest.size() > 20) {
        largest.resize(20);
    }
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    auto fill = [&](QTreeWidget* list, const auto& rows, bool isError) {
        list->clear();
        QList<QTreeWidgetItem*> items;
        for (const auto& [root, entry] : rows) {
            const QString kind = QString::fromUtf8(cachedir::to_string(entry->kind));
            const QString path = QString::fromStdString(entry->path);
            const QString location = QString::fromStdString(root->root.location);
            auto* item = new QTreeWidgetItem(
                isError ? QStringList{kind, path, QString::fromStdString(entry->error), location}
                        : QStringList{stats_text::bytes(entry->size), kind, path, location});
            item->setData(0, kRootRole, location);
            item->setData(0, kPathRole, path);
            const int pathColumn = isError ? 1 : 2;
            item->setFont(pathColumn, mono);
            item->setToolTip(pathColumn, literalText(path));
            if (isError) {
                item->setToolTip(2, literalText(QString::fromStdString(entry->error)));
            } else {
                item->setTextAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
                item->setToolTip(0, tr("%L1 bytes").arg(static_cast<qulonglong>(entry->size)));
            }
            items << item;
        }
        list->addTopLevelItems(items);
        list->setColumnHidden(3, one);
        // Size and kind fit their contents; paths share what is left.
        const int pathColumn = isError ? 1 : 2;
        for (int column = 0; column < pathColumn; ++column) {
            list->resizeColumnToContents(column);
        }
        // With a cache dir column beside it, the path still gets most of the width.
        if (isError || !one) {
            list->setColumnWidth(pathColumn, std::max(list->viewport()->width() * 3 / 5, 200));
        }
    };
    fill(largest_, largest, false);
    fill(errors_, errors, true);
    triton_->clear();
    for (const auto& root : roots) {
        const QString location = QString::fromStdString(root.root.location);
        for (const auto& [groups, label] : {std::pair{&root.triton_by_arch, tr("arch %1")},
                                            std::pair{&root.triton_by_name, QString("%1")}}) {
            for (const auto& group : *groups) {
                const QString name = group.group.empty() ? tr("(unknown)") : text(group.group);
                auto* item = new QTreeWidgetItem({stats_text::bytes(group.bytes),
                                                  QString::number(group.kernels), label.arg(name),
                                                  location});
                item->setTextAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
                item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
                item->setToolTip(2, tr("newest %1, oldest %2")
                                        .arg(stats_text::age(group.newest_ns, snapshot_->now_ns),
                                             stats_text::age(group.oldest_ns, snapshot_->now_ns)));
                triton_->addTopLevelItem(item);
            }
        }
    }
    triton_->setColumnHidden(3, one);
    triton_->resizeColumnToContents(0);
    triton_->resizeColumnToContents(1);
    // The engine's one sentence, the one `cachelens scan` and `stats` print.
    auto* coverage = new QTreeWidgetItem(QStringList{QString::fromStdString(
        cachedir::coverage_line(parseErrors, unknownFiles, unknownBytes, {}))});
    coverage->setFlags(Qt::NoItemFlags);
    errors_->insertTopLevelItem(0, coverage);
    coverage->setFirstColumnSpanned(true);
    // A cache dir walked from its parent: say which dir to open instead.
    int noteRow = 1;
    for (const auto& root : roots) {
        std::vector<std::string> unknownPaths;
        for (const auto& entry : root.unknown) {
            unknownPaths.push_back(entry.path);
        }
        const auto nested = cachedir::nested_cache_dirs(unknownPaths);
        if (nested.empty()) {
            continue;
        }
        auto* note = new QTreeWidgetItem(QStringList{
            QString::fromStdString(cachedir::nested_cache_dirs_note(root.root.location, nested))});
        note->setFlags(Qt::NoItemFlags);
        errors_->insertTopLevelItem(noteRow++, note);
        note->setFirstColumnSpanned(true);
    }

    fillCharts();
    emit statusMessage(tr("Stats: %1").arg(summary));
}

void StatsPage::fillCharts() {
    QChart* bytes = bytesView_->chart();
    QChart* ages = ageView_->chart();
    clearChart(bytes);
    clearChart(ages);

    // Bytes by kind, largest on top (a horizontal bar chart draws its first
    // category at the bottom), only the kinds that take any space.
    std::vector<KindStatsModel::Row> kinds;
    for (const auto& row : kinds_->kinds()) {
        if (row.stats.bytes > 0) {
            kinds.push_back(row);
        }
    }
    std::stable_sort(kinds.begin(), kinds.end(),
                     [](const auto& a, const auto& b) { return a.stats.bytes < b.stats.bytes; });
    const std::uint64_t most = kinds.empty() ? 0 : kinds.back().stats.bytes;
    const auto [scale, unit] = byteUnit(most);
    auto* sizeSet = new QBarSet(tr("Size"));
    QStringList kindNames;
    QStringList kindTips;
    for (const auto& row : kinds) {
        const QString name = QString::fromUtf8(cachedir::to_string(row.kind));
        // The size in words beside the kind: bar labels can only print the
        // number, and 3.6e-05 MiB reads worse than 38 B.
        kindNames << tr("%1  %2").arg(name, stats_text::bytes(row.stats.bytes));
        kindTips << tr("%1: %2 in %L3 entries")
                        .arg(name, stats_text::bytes(row.stats.bytes))
                        .arg(static_cast<qulonglong>(row.stats.entries));
        *sizeSet << static_cast<double>(row.stats.bytes) / scale;
    }
    auto* sizeSeries = new QHorizontalBarSeries;
    sizeSeries->append(sizeSet);
    sizeSeries->setBarWidth(0.7);
    bytes->addSeries(sizeSeries);
    auto* kindAxis = new QBarCategoryAxis;
    kindAxis->append(kindNames);
    kindAxis->setTruncateLabels(false);
    kindAxis->setTitleText(tr("Kind"));
    auto* sizeAxis = new QValueAxis;
    sizeAxis->setTitleText(tr("Size (%1)").arg(unit));
    sizeAxis->setRange(0, most == 0 ? 1 : static_cast<double>(most) / scale);
    sizeAxis->applyNiceNumbers();
    sizeAxis->setLabelFormat(QStringLiteral("%.0f"));
    bytes->addAxis(kindAxis, Qt::AlignLeft);
    bytes->addAxis(sizeAxis, Qt::AlignBottom);
    sizeSeries->attachAxis(kindAxis);
    sizeSeries->attachAxis(sizeAxis);
    connect(sizeSeries, &QHorizontalBarSeries::hovered, this,
            [kindTips](bool status, int index, QBarSet*) {
                if (status && index >= 0 && index < kindTips.size()) {
                    QToolTip::showText(QCursor::pos(), kindTips[index]);
                } else {
                    QToolTip::hideText();
                }
            });

    // Entries by when they were last written.
    auto* ageSet = new QBarSet(tr("Entries"));
    QStringList buckets;
    std::uint64_t tallest = 0;
    if (snapshot_) {
        for (const auto& bucket : snapshot_->ages) {
            // Axis labels are rich text: "< 1 day" would be an unclosed tag.
            buckets << bucket.label.toHtmlEscaped();
            *ageSet << static_cast<double>(bucket.entries);
            tallest = std::max(tallest, bucket.entries);
        }
    }
    auto* ageSeries = new QBarSeries;
    ageSeries->append(ageSet);
    ageSeries->setBarWidth(0.7);
    ageSeries->setLabelsVisible(true);
    ageSeries->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    ageSeries->setLabelsFormat(QStringLiteral("@value"));
    ages->addSeries(ageSeries);
    auto* bucketAxis = new QBarCategoryAxis;
    bucketAxis->append(buckets);
    bucketAxis->setTruncateLabels(false);
    bucketAxis->setTitleText(tr("Last written"));
    auto* countAxis = new QValueAxis;
    countAxis->setTitleText(tr("Entries"));
    countAxis->setRange(0, tallest == 0 ? 1 : static_cast<double>(tallest) * 1.2);
    countAxis->applyNiceNumbers();
    countAxis->setLabelFormat(QStringLiteral("%.0f"));
    ages->addAxis(bucketAxis, Qt::AlignBottom);
    ages->addAxis(countAxis, Qt::AlignLeft);
    ageSeries->attachAxis(bucketAxis);
    ageSeries->attachAxis(countAxis);

    applyPalette();
}

void StatsPage::applyPalette() {
    const QColor text = palette().color(QPalette::Text);
    const QColor bar = palette().color(QPalette::Highlight);
    for (QChartView* view : {bytesView_, ageView_}) {
        applyChartStyle(view, *this);
        for (auto* series : view->chart()->series()) {
            if (auto* bars = qobject_cast<QAbstractBarSeries*>(series)) {
                for (auto* set : bars->barSets()) {
                    set->setColor(bar);
                    set->setBorderColor(bar);
                    set->setLabelColor(text);
                    set->setLabelFont(font());
                }
            }
        }
    }
}

void StatsPage::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        applyPalette();
    }
}

void StatsPage::activateItem(QTreeWidgetItem* item) {
    const QString path = item->data(0, kPathRole).toString();
    if (!path.isEmpty()) {
        emit entryActivated(item->data(0, kRootRole).toString(), path);
    }
}

} // namespace cachelens::ui
