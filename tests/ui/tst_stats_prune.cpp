// The Stats view and the Prune dialog against a copy of the devset cache:
// the models under QAbstractItemModelTester, the view showing what
// Catalog::stats says (table, charts, lists), the age buckets, and the dialog
// previewing without deleting, deleting down to the limit after a preview of
// the current inputs only, and showing bad input as an error.

#include "data/stats_snapshot.h"
#include "dialogs/prune_dialog.h"
#include "jobs/job_tracker.h"
#include "models/kind_stats_model.h"
#include "models/prune_plan_model.h"
#include "pages/stats_page.h"
#include "test_paths.h"
#include "text/stats_text.h"

#include <cachelens/catalog/catalog.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <QAbstractBarSeries>
#include <QAbstractItemModelTester>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <map>
#include <set>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kDayNs = 86400LL * 1'000'000'000;

void setMtime(const fs::path& file, std::int64_t mtime_ns) {
    const timespec times[2] = {{mtime_ns / 1'000'000'000, mtime_ns % 1'000'000'000},
                               {mtime_ns / 1'000'000'000, mtime_ns % 1'000'000'000}};
    QVERIFY2(::utimensat(AT_FDCWD, file.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0, file.c_str());
}

// Every file under `dir` last written `days` ago.
void ageFiles(const fs::path& dir, double days) {
    const auto mtime = stats_text::nowNs() - static_cast<std::int64_t>(days * kDayNs);
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        if (item.is_regular_file()) {
            setMtime(item.path(), mtime);
        }
    }
}

// path -> (size, mtime) of every file under `dir`.
std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> snapshot(const fs::path& dir) {
    std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> files;
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        struct stat info {};
        if (::lstat(item.path().c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
            files[fs::relative(item.path(), dir).string()] = {
                static_cast<std::uintmax_t>(info.st_size),
                info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec};
        }
    }
    return files;
}

std::uint64_t totalBytes(const fs::path& dir) {
    std::uint64_t total = 0;
    for (const auto& [path, file] : snapshot(dir)) {
        total += file.first;
    }
    return total;
}

// A copy of the devset cache, indexed: the FX entries 200 days old, the rest 40.
struct IndexedCopy {
    QTemporaryDir temp;
    fs::path dir;
    fs::path catalogPath;

    bool make() {
        if (!temp.isValid()) {
            return false;
        }
        dir = fs::path(temp.path().toStdString()) / "cache";
        catalogPath = fs::path(temp.path().toStdString()) / "catalog.sqlite";
        test::copy_tree(test::fixture("devset/cache"), dir);
        ageFiles(dir, 40);
        ageFiles(dir / "fxgraph", 200);
        auto catalog = catalog::Catalog::open(catalogPath);
        if (!catalog) {
            qWarning("%s", catalog.error().describe().c_str());
            return false;
        }
        auto indexed = catalog->index(dir);
        return indexed && indexed->entries > 0;
    }
    catalog::Catalog open() const {
        auto catalog = catalog::Catalog::open(catalogPath);
        if (!catalog) {
            qFatal("%s", catalog.error().describe().c_str());
        }
        return std::move(*catalog);
    }
    catalog::RootStats stats() const {
        auto stats = open().stats(dir, 20);
        if (!stats || stats->size() != 1) {
            qFatal("no stats for the copy");
        }
        return stats->front();
    }
    QString catalogArg() const { return QString::fromStdString(catalogPath.string()); }
};

QAbstractBarSeries* onlyBarSeries(QChart* chart) {
    const auto series = chart->series();
    return series.size() == 1 ? qobject_cast<QAbstractBarSeries*>(series.front()) : nullptr;
}

QStringList categories(QChart* chart) {
    for (auto* axis : chart->axes()) {
        if (auto* category = qobject_cast<QBarCategoryAxis*>(axis)) {
            return category->categories();
        }
    }
    return {};
}

void grab(QWidget& widget, const QString& name) {
    widget.show();
    QCoreApplication::processEvents();
    const QString path = QDir::temp().filePath(name);
    QVERIFY(widget.grab().save(path));
    qInfo("saved %s", qPrintable(path));
}

} // namespace

class TestStatsPrune : public QObject {
    Q_OBJECT

private slots:
    void parsesSizesAndAgesLikeTheCli() {
        QCOMPARE(stats_text::parseSize("2G").value(), 2ULL << 30);
        QCOMPARE(stats_text::parseSize("500M").value(), 500ULL << 20);
        QCOMPARE(stats_text::parseSize("1.5GiB").value(), 3ULL << 29);
        QCOMPARE(stats_text::parseSize("100k").value(), 102400ULL);
        QCOMPARE(stats_text::parseSize(" 1234 ").value(), 1234ULL);
        QVERIFY(!stats_text::parseSize("2X"));
        QVERIFY(QString::fromStdString(stats_text::parseSize("2X").error().message).contains("2X"));
        QVERIFY(!stats_text::parseSize("G"));
        QVERIFY(!stats_text::parseSize("-1G"));
        QCOMPARE(stats_text::parseAge("30d").value(), 30 * kDayNs);
        QCOMPARE(stats_text::parseAge("12h").value(), 12 * 3600LL * 1'000'000'000);
        QCOMPARE(stats_text::parseAge("90m").value(), 90 * 60LL * 1'000'000'000);
        QCOMPARE(stats_text::parseAge("45s").value(), 45LL * 1'000'000'000);
        QCOMPARE(stats_text::parseAge("2w").value(), 14 * kDayNs);
        QVERIFY(!stats_text::parseAge("10"));
        QVERIFY(!stats_text::parseAge("3y"));

        auto options = stats_text::pruneOptions(QString("1G"), std::nullopt, "");
        QVERIFY_RESULT(options);
        QCOMPARE(options->max_size, std::optional<std::uint64_t>(1ULL << 30));
        QCOMPARE(options->keep_recent_ns, catalog::kDefaultKeepRecentNs);
        QVERIFY(!stats_text::pruneOptions(QString(" "), std::nullopt, "10m"));
        QVERIFY(!stats_text::pruneOptions(std::nullopt, QString("30d"), "soon"));

        QCOMPARE(stats_text::bytes(512), QString("512 B"));
        QCOMPARE(stats_text::bytes(3 << 20), QString("3.0 MiB"));
        QCOMPARE(stats_text::duration(catalog::kDefaultKeepRecentNs), QString("10 min"));
        QCOMPARE(stats_text::age(0, 3 * kDayNs), QString("3 days ago"));
    }

    void kindStatsModelMatchesTheCatalog() {
        IndexedCopy copy;
        QVERIFY(copy.make());
        const auto stats = copy.stats();
        QVERIFY(stats.kinds.size() >= 3);

        KindStatsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        KindStatsSortProxy sorted;
        sorted.setSourceModel(&model);
        QAbstractItemModelTester sortedTester(
            &sorted, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setStats({stats}, stats_text::nowNs());
        QCOMPARE(model.rowCount(), static_cast<int>(stats.kinds.size()) + 1);

        std::uint64_t entries = 0;
        std::uint64_t bytes = 0;
        for (int row = 0; row + 1 < model.rowCount(); ++row) {
            auto cell = [&](int column, int role = KindStatsModel::SortRole) {
                return model.data(model.index(row, column), role);
            };
            const auto kind = cachedir::file_kind_from_string(
                cell(KindStatsModel::KindColumn).toString().toStdString());
            QVERIFY(kind);
            const auto& expected = stats.kinds.at(*kind);
            QCOMPARE(cell(KindStatsModel::EntriesColumn).toULongLong(), expected.entries);
            QCOMPARE(cell(KindStatsModel::FilesColumn).toULongLong(), expected.files);
            QCOMPARE(cell(KindStatsModel::BytesColumn).toULongLong(), expected.bytes);
            QCOMPARE(cell(KindStatsModel::BytesColumn, Qt::DisplayRole).toString(),
                     stats_text::bytes(expected.bytes));
            QCOMPARE(cell(KindStatsModel::OldestColumn).toLongLong(), expected.oldest_ns);
            QCOMPARE(cell(KindStatsModel::ParseErrorsColumn).toULongLong(), expected.parse_errors);
            QVERIFY(!cell(0, KindStatsModel::IsTotalRole).toBool());
            entries += expected.entries;
            bytes += expected.bytes;
        }
        const auto total = model.index(model.rowCount() - 1, KindStatsModel::EntriesColumn);
        QVERIFY(total.data(KindStatsModel::IsTotalRole).toBool());
        QCOMPARE(total.data(KindStatsModel::SortRole).toULongLong(), entries);
        QCOMPARE(model.total().bytes, bytes);

        // Sorted by bytes either way, the total row stays last.
        for (auto order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            sorted.sort(KindStatsModel::BytesColumn, order);
            const int last = sorted.rowCount() - 1;
            QVERIFY(sorted.index(last, 0).data(KindStatsModel::IsTotalRole).toBool());
            const auto first = sorted.index(0, KindStatsModel::BytesColumn)
                                   .data(KindStatsModel::SortRole)
                                   .toULongLong();
            const auto before = sorted.index(last - 1, KindStatsModel::BytesColumn)
                                    .data(KindStatsModel::SortRole)
                                    .toULongLong();
            QVERIFY(order == Qt::AscendingOrder ? first <= before : first >= before);
        }
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void ageBucketsCountEveryEntry() {
        IndexedCopy copy;
        QVERIFY(copy.make());
        const auto now = stats_text::nowNs();
        auto snapshot = loadStatsSnapshot(copy.catalogPath, copy.dir, now);
        QVERIFY_RESULT(snapshot);
        QCOMPARE(snapshot->ages.size(), std::size_t(5));
        QCOMPARE(snapshot->ages.back().label, QString("older"));

        // Bucket the entries' mtimes here, from a plain search.
        catalog::SearchQuery all;
        all.root = copy.dir.string();
        all.limit = 100000;
        auto hits = copy.open().search(all);
        QVERIFY_RESULT(hits);
        std::vector<std::uint64_t> expected(5, 0);
        for (const auto& hit : *hits) {
            const auto age = now - hit.mtime_ns;
            std::size_t bucket = 0;
            while (bucket < 4 && age >= kAgeBucketEdgesNs[bucket]) {
                ++bucket;
            }
            ++expected[bucket];
        }
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < 5; ++i) {
            QCOMPARE(snapshot->ages[i].entries, expected[i]);
            sum += snapshot->ages[i].entries;
        }
        QCOMPARE(sum, static_cast<std::uint64_t>(hits->size()));
        // The FX entries were made 200 days old, the rest 40 days.
        const auto& kinds = snapshot->roots.front().kinds;
        QCOMPARE(snapshot->ages[4].entries, kinds.at(cachedir::FileKind::FxGraph).entries);
        QVERIFY(snapshot->ages[3].entries > 0);
    }

    void statsViewShowsWhatTheCatalogSays() {
        IndexedCopy copy;
        QVERIFY(copy.make());
        const auto stats = copy.stats();
        JobPool jobs;
        StatsPage view(jobs, copy.catalogArg());
        view.resize(1280, 960);
        QSignalSpy prune(&view, &StatsPage::pruneRequested);
        QSignalSpy activated(&view, &StatsPage::entryActivated);
        view.showRoot(copy.dir);
        QTRY_COMPARE(view.kindStats()->rowCount(), static_cast<int>(stats.kinds.size()) + 1);
        QVERIFY(view.errorText().isEmpty());

        // The table, as shown (sorted), has the catalog's numbers per kind.
        auto* table = view.findChild<QTableView*>("kindStatsTable");
        QVERIFY(table);
        QCOMPARE(table->model()->rowCount(), view.kindStats()->rowCount());
        for (int row = 0; row + 1 < table->model()->rowCount(); ++row) {
            const auto kind =
                cachedir::file_kind_from_string(table->model()
                                                    ->index(row, KindStatsModel::KindColumn)
                                                    .data()
                                                    .toString()
                                                    .toStdString());
            QVERIFY(kind);
            const auto& expected = stats.kinds.at(*kind);
            QCOMPARE(table->model()->index(row, KindStatsModel::EntriesColumn).data().toULongLong(),
                     expected.entries);
            QCOMPARE(table->model()->index(row, KindStatsModel::BytesColumn).data().toString(),
                     stats_text::bytes(expected.bytes));
        }

        // One bar per kind that takes space, named for it; an age bar per bucket.
        std::set<QString> withBytes;
        for (const auto& [kind, counts] : stats.kinds) {
            if (counts.bytes > 0) {
                withBytes.insert(QString::fromUtf8(cachedir::to_string(kind)));
            }
        }
        auto* bytes = onlyBarSeries(view.bytesChart());
        QVERIFY(bytes);
        QCOMPARE(bytes->barSets().size(), 1);
        QCOMPARE(bytes->barSets().front()->count(), static_cast<int>(withBytes.size()));
        // Each bar is labelled with its kind and its size.
        const auto kindNames = categories(view.bytesChart());
        std::set<QString> labelled;
        for (const auto& label : kindNames) {
            labelled.insert(label.section(' ', 0, 0));
        }
        QCOMPARE(labelled, withBytes);
        for (const auto& [kind, counts] : stats.kinds) {
            if (counts.bytes > 0) {
                QVERIFY(kindNames.contains(QString::fromUtf8(cachedir::to_string(kind)) + "  " +
                                           stats_text::bytes(counts.bytes)));
            }
        }
        for (int i = 0; i < kindNames.size(); ++i) {
            QVERIFY(bytes->barSets().front()->at(i) > 0);
        }
        auto* ages = onlyBarSeries(view.ageChart());
        QVERIFY(ages);
        QCOMPARE(categories(view.ageChart()).size(), 5);
        double aged = 0;
        for (int i = 0; i < 5; ++i) {
            aged += ages->barSets().front()->at(i);
        }
        QCOMPARE(static_cast<std::uint64_t>(aged), view.kindStats()->total().entries);
        for (auto* axis : view.bytesChart()->axes()) {
            QVERIFY(!axis->titleText().isEmpty());
        }

        // The largest entries, largest first; double-click opens one.
        auto* largest = view.largestList();
        QCOMPARE(largest->topLevelItemCount(), static_cast<int>(stats.largest.size()));
        QCOMPARE(largest->topLevelItem(0)->text(2), QString::fromStdString(stats.largest[0].path));
        emit largest->itemActivated(largest->topLevelItem(0), 0);
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated[0][0].toString(), QString::fromStdString(stats.root.location));
        QCOMPARE(activated[0][1].toString(), QString::fromStdString(stats.largest[0].path));

        // The Triton kernels: by arch (the devset's are all Hopper's), then by name.
        auto* triton = view.tritonKernelList();
        QCOMPARE(triton->topLevelItemCount(),
                 static_cast<int>(stats.triton_by_arch.size() + stats.triton_by_name.size()));
        QVERIFY(!stats.triton_by_arch.empty());
        QCOMPARE(triton->topLevelItem(0)->text(2), QString("arch 90"));
        QCOMPARE(triton->topLevelItem(1)->text(2),
                 QString::fromStdString(stats.triton_by_name[0].group));

        auto* pruneButton = view.findChild<QPushButton*>();
        for (auto* button : view.findChildren<QPushButton*>()) {
            if (button->text().startsWith("Prune")) {
                pruneButton = button;
            }
        }
        QVERIFY(pruneButton && pruneButton->isEnabled());
        pruneButton->click();
        QCOMPARE(prune.size(), 1);
        QCOMPARE(prune[0][0].value<fs::path>(), copy.dir);
        grab(view, "cachelens_stats_view.png");

        // A dark palette gives dark charts with light text.
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::AlternateBase, QColor(0x2b, 0x2b, 0x2b));
        dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
        dark.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xd8));
        view.setPalette(dark);
        for (QChart* chart : {view.bytesChart(), view.ageChart()}) {
            QCOMPARE(chart->backgroundBrush().color(), dark.color(QPalette::Base));
            QCOMPARE(chart->titleBrush().color(), dark.color(QPalette::Text));
            for (auto* axis : chart->axes()) {
                QCOMPARE(axis->labelsBrush().color(), dark.color(QPalette::Text));
                QCOMPARE(axis->titleBrush().color(), dark.color(QPalette::Text));
            }
        }
        grab(view, "cachelens_stats_view_dark.png");
        view.setPalette(QPalette());

        // Every root: the same numbers here (one root), no pruning of "all".
        view.showRoot(std::nullopt);
        QVERIFY(!pruneButton->isEnabled());
        QTRY_VERIFY(!largest->isColumnHidden(3)); // the cache dir column, for several
        std::uint64_t entries = 0;
        for (const auto& [kind, counts] : stats.kinds) {
            entries += counts.entries;
        }
        QCOMPARE(view.kindStats()->total().entries, entries);
        QVERIFY(!pruneButton->isEnabled());

        // A dir the catalog does not know: said so in the view.
        QTemporaryDir other;
        view.showRoot(fs::path(other.path().toStdString()));
        QTRY_VERIFY(view.errorText().contains("not in the catalog"));
        QCOMPARE(view.kindStats()->rowCount(), 0);
    }

    void prunePlanModelListsUnitsAndTheirEntries() {
        IndexedCopy copy;
        QVERIFY(copy.make());
        catalog::PruneOptions options;
        options.max_size = totalBytes(copy.dir) / 2;
        auto plan = copy.open().plan_prune(copy.dir, options);
        QVERIFY_RESULT(plan);
        QVERIFY(!plan->units.empty());

        PrunePlanModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(*plan);
        QCOMPARE(model.rowCount(), static_cast<int>(plan->units.size()));
        std::size_t entries = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const auto& unit = plan->units[static_cast<std::size_t>(row)];
            const auto parent = model.index(row, 0);
            QCOMPARE(model.rowCount(parent), static_cast<int>(unit.entries.size()));
            QCOMPARE(parent.data().toString(), PrunePlanModel::reasonText(*plan, unit));
            QVERIFY(parent.data().toString().startsWith("oldest while over"));
            QCOMPARE(model.index(row, PrunePlanModel::SizeColumn)
                         .data(PrunePlanModel::SortRole)
                         .toULongLong(),
                     unit.bytes);
            for (int child = 0; child < model.rowCount(parent); ++child) {
                const auto& entry = unit.entries[static_cast<std::size_t>(child)];
                const auto index = model.index(child, PrunePlanModel::PathColumn, parent);
                QCOMPARE(index.parent(), parent);
                QCOMPARE(index.data().toString(), QString::fromStdString(entry.path));
                QCOMPARE(model.index(child, 0, parent).data().toString(),
                         QString::fromUtf8(cachedir::to_string(entry.kind)));
                QCOMPARE(index.data(PrunePlanModel::DefinesUnitRole).toBool(),
                         static_cast<std::size_t>(child) < unit.defining_entries);
            }
            entries += unit.entries.size();
        }
        // Oldest first.
        for (std::size_t i = 1; i < plan->units.size(); ++i) {
            QVERIFY(plan->units[i - 1].mtime_ns <= plan->units[i].mtime_ns);
        }
        QCOMPARE(model.entryCount(), entries);
        QCOMPARE(model.bytes(), plan->bytes_before - plan->bytes_after);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void previewDeletesNothingThenDeleteReachesTheLimit() {
        IndexedCopy copy;
        QVERIFY(copy.make());
        const auto before = snapshot(copy.dir);
        const std::uint64_t limit = totalBytes(copy.dir) / 2;
        JobPool jobs;
        PruneDialog dialog(jobs, copy.catalogArg(), copy.dir);
        QSignalSpy pruned(&dialog, &PruneDialog::pruned);
        QVERIFY(!dialog.canDelete());

        dialog.setLimits(QString::number(limit), std::nullopt, "10m");
        dialog.preview();
        QVERIFY(dialog.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(dialog.canDelete(), 30000);
        QVERIFY(dialog.errorText().isEmpty());
        QVERIFY(dialog.plan()->unitCount() > 0);
        QVERIFY(dialog.plan()->prunePlan()->size_reached);
        QVERIFY(dialog.summaryText().contains("after deleting"));
        QVERIFY(dialog.summaryText().contains(stats_text::bytes(dialog.plan()->bytes())));
        QVERIFY(snapshot(copy.dir) == before);
        QCOMPARE(pruned.size(), 0);
        grab(dialog, "cachelens_prune_preview.png");

        const auto planned = dialog.plan()->entryCount();
        dialog.confirmAndDelete(false);
        QVERIFY(!dialog.canDelete());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.outcomeText().isEmpty(), 60000);
        QCOMPARE(pruned.size(), 1);
        QVERIFY2(totalBytes(copy.dir) <= limit,
                 qPrintable(QString("%1 > %2").arg(totalBytes(copy.dir)).arg(limit)));
        QVERIFY(snapshot(copy.dir).size() < before.size());
        QVERIFY2(dialog.outcomeText().startsWith(QString("Deleted %1 entries").arg(planned)),
                 qPrintable(dialog.outcomeText()));
        QVERIFY(dialog.errorText().isEmpty());
        QVERIFY(!dialog.canDelete());
        grab(dialog, "cachelens_prune_outcome.png");

        // The catalog was brought up to date by the prune.
        const auto stats = copy.stats();
        std::uint64_t bytes = 0;
        for (const auto& [kind, counts] : stats.kinds) {
            bytes += counts.bytes;
        }
        QVERIFY(bytes <= limit);
    }

    void changingAnInputInvalidatesThePreview() {
        IndexedCopy copy;
        QVERIFY(copy.make());
        const auto before = snapshot(copy.dir);
        JobPool jobs;
        PruneDialog dialog(jobs, copy.catalogArg(), copy.dir);
        dialog.setLimits(std::nullopt, QString("30d"), "10m");
        dialog.preview();
        QTRY_VERIFY_WITH_TIMEOUT(dialog.canDelete(), 30000);
        // Every entry is older than 30 days: all of them are listed.
        QVERIFY(dialog.plan()->unitCount() > 0);
        QVERIFY(dialog.plan()->index(0, 0).data().toString().startsWith("last written"));

        dialog.setLimits(std::nullopt, QString("31d"), "10m");
        QVERIFY(!dialog.canDelete());
        QVERIFY(dialog.summaryText().contains("Preview again"));
        dialog.confirmAndDelete(false); // without a preview of these inputs: nothing
        jobs.waitForAll();
        QCoreApplication::processEvents();
        QVERIFY(snapshot(copy.dir) == before);

        // Cancelling a preview delivers nothing and leaves Delete off.
        dialog.preview();
        QVERIFY(dialog.isBusy());
        for (auto* button : dialog.findChildren<QPushButton*>()) {
            if (button->text() == "Cancel") {
                button->click();
            }
        }
        QVERIFY(!dialog.isBusy());
        jobs.waitForAll();
        QTest::qWait(50);
        QVERIFY(!dialog.canDelete());
        QVERIFY(dialog.summaryText().contains("cancelled"));
    }

    void badInputIsAnErrorInTheDialog() {
        IndexedCopy copy;
        QVERIFY(copy.make());
        JobPool jobs;
        PruneDialog dialog(jobs, copy.catalogArg(), copy.dir);
        dialog.setLimits(QString("2X"), std::nullopt, "10m");
        dialog.preview();
        QVERIFY(!dialog.isBusy());
        QVERIFY2(dialog.errorText().contains("2X"), qPrintable(dialog.errorText()));
        QVERIFY(!dialog.canDelete());
        grab(dialog, "cachelens_prune_error.png");

        dialog.setLimits(std::nullopt, std::nullopt, "10m");
        QVERIFY(dialog.errorText().isEmpty()); // editing clears it
        dialog.preview();
        QVERIFY(dialog.errorText().contains("max size"));
        dialog.setLimits(QString("1G"), std::nullopt, "ten minutes");
        dialog.preview();
        QVERIFY(dialog.errorText().contains("keep recent"));
        QVERIFY(!dialog.canDelete());
    }
};

QTEST_MAIN(TestStatsPrune)
#include "tst_stats_prune.moc"
