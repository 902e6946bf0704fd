// The catalog survives `cachelens index` killed (SIGKILL) at random moments:
// after each kill SQLite's checks pass and no entry is half-written, and the
// next index completes the catalog to exactly what one uninterrupted index
// writes. The kill delays come from fixed seeds, so a run is repeatable up to
// the machine's timing.

#include "catalog_checks.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/catalog/catalog.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <random>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

fs::path path_of(const QTemporaryDir& dir) {
    return fs::path(dir.path().toStdString());
}

std::string join_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) {
        out += line + "\n";
    }
    return out;
}

// `name` with its last character replaced by the `n`th other one of
// `alphabet`: another key or hash of the same length and alphabet.
std::string renamed(const std::string& name, std::string_view alphabet, std::size_t n) {
    std::string out = name;
    const auto at = alphabet.find(name.back());
    out.back() = alphabet[(at + 1 + n) % alphabet.size()];
    return out;
}

// The devset cache grown past two index batches (200 entries each), so that
// kills land between committed batches too: every module again under 5 more
// keys and every Triton kernel dir again under 1 more hash.
void make_big_cache(const fs::path& root) {
    test::copy_tree(test::fixture("devset/cache"), root);
    auto scan = cachedir::scan_cache_dir(root);
    QVERIFY_RESULT(scan);
    for (const auto& entry : scan->entries()) {
        const fs::path path = root / entry.path;
        if (entry.kind == cachedir::FileKind::Module) {
            const std::string stem = path.stem().string();
            for (std::size_t n = 0; n < 5; ++n) {
                fs::copy_file(path, path.parent_path() /
                                        (renamed(stem, "abcdefghijklmnopqrstuvwxyz234567", n) +
                                         path.extension().string()));
            }
        } else if (entry.kind == cachedir::FileKind::Triton) {
            fs::copy(path,
                     path.parent_path() /
                         renamed(path.filename().string(), "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 0),
                     fs::copy_options::recursive);
        }
    }
}

// Triton kernel dirs whose group file names a file that is not there: Triton
// would take the kernel as cached and fail to load it.
std::vector<std::string> broken_triton_groups(const fs::path& root) {
    std::vector<std::string> out;
    const fs::path triton = root / "triton";
    if (!fs::exists(triton)) {
        return out;
    }
    for (const auto& item : fs::recursive_directory_iterator(triton)) {
        const std::string name = item.path().filename().string();
        if (!item.is_regular_file() || !cachedir::is_triton_group_file_name(name)) {
            continue;
        }
        const QByteArray bytes = test::read_file(item.path());
        const auto children = QJsonDocument::fromJson(bytes).object()["child_paths"].toObject();
        for (const auto& child : children) {
            // The paths are the writing machine's: the file is looked for beside the group.
            const fs::path beside =
                item.path().parent_path() / fs::path(child.toString().toStdString()).filename();
            if (!fs::exists(beside)) {
                out.push_back(fs::relative(beside, root).string());
            }
        }
    }
    return out;
}

QStringList prune_arguments(const fs::path& root, const fs::path& catalog) {
    return {"prune",         QString::fromStdString(root.string()),
            "--older-than",  "30d",
            "--keep-recent", "0s",
            "--catalog",     QString::fromStdString(catalog.string())};
}

QStringList index_arguments(const fs::path& root, const fs::path& catalog) {
    return {"index", QString::fromStdString(root.string()), "--catalog",
            QString::fromStdString(catalog.string())};
}

// What the kills did, over all seeds.
struct KillTally {
    int kills = 0;
    int landed = 0;     // the process was still running when killed
    int unfinished = 0; // ... after it had started indexing the root
};

// For one seed: `kills` runs of `cachelens index` on the catalog, each
// killed after a random delay up to `duration_ms`, each leaving a catalog
// SQLite finds sound with no entry half-written (and, where no index had
// removed or replaced anything yet, no unused debug line); then an index in
// process completes it to `reference_dump`.
void kill_and_complete(const fs::path& root, const fs::path& catalog_path, unsigned seed, int kills,
                       qint64 duration_ms, const std::string& reference_dump, bool lines_only_added,
                       KillTally& tally) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<qint64> delay_ms(0, duration_ms);
    for (int kill = 0; kill < kills; ++kill) {
        const qint64 delay = delay_ms(random);
        QProcess process;
        process.start(test::cli_path(), index_arguments(root, catalog_path));
        QVERIFY(process.waitForStarted());
        // The deliberate random delay: the kill lands wherever the index is then.
        if (!process.waitForFinished(static_cast<int>(delay))) {
            process.kill();
            QVERIFY(process.waitForFinished());
        }
        ++tally.kills;
        const bool killed = process.exitStatus() == QProcess::CrashExit;
        if (!killed) {
            QCOMPARE(process.exitCode(), 0);
        }

        auto catalog = catalog::Catalog::open(catalog_path);
        QVERIFY_RESULT(catalog);
        sqlite3* db = catalog->handle();
        const std::string problems = test::integrity_problems(db);
        QVERIFY2(problems == "ok", problems.c_str());
        const auto half_written = test::half_written_entries(db);
        QVERIFY2(half_written.empty(), join_lines(half_written).c_str());
        if (lines_only_added) {
            const auto dangling = test::dangling_rows(db);
            QVERIFY2(dangling.empty(), join_lines(dangling).c_str());
        }
        if (killed) {
            ++tally.landed;
            tally.unfinished +=
                test::query_integer(
                    db,
                    "SELECT COUNT(*) FROM roots WHERE index_started_ns IS NOT NULL AND "
                    "(index_completed_ns IS NULL OR index_completed_ns < index_started_ns)") > 0;
        }
    }
    auto catalog = catalog::Catalog::open(catalog_path);
    QVERIFY_RESULT(catalog);
    auto report = catalog->index(root);
    QVERIFY_RESULT(report);
    QCOMPARE(report->parse_errors, 0u);
    QVERIFY(!report->cancelled);
    const std::string difference =
        test::first_difference(reference_dump, test::canonical_dump(*catalog));
    QVERIFY2(difference.empty(),
             qPrintable(QString("seed %1: %2").arg(seed).arg(difference.c_str())));
}

void report_tally(const KillTally& tally) {
    qInfo("%d kills: %d landed mid-index (%d after it had started on the root), %d after it "
          "had finished",
          tally.kills, tally.landed, tally.unfinished, tally.kills - tally.landed);
}

// A catalog built from nothing on `root`, as its canonical dump.
std::string fresh_dump(const fs::path& root, const fs::path& catalog_path) {
    auto catalog = catalog::Catalog::open(catalog_path);
    if (!catalog) {
        return catalog.error().describe();
    }
    if (auto report = catalog->index(root); !report) {
        return report.error().describe();
    }
    return test::canonical_dump(*catalog);
}

constexpr unsigned kSeeds[] = {1, 2, 3, 5, 8};
constexpr int kKillsPerSeed = 3;

} // namespace

class TestCatalogCrash : public QObject {
    Q_OBJECT

private slots:
    // Kills while a new catalog is first filled.
    void killedFirstIndexIsCompletedByTheNext() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path root = path_of(temp) / "cache";
        make_big_cache(root);
        if (QTest::currentTestFailed()) {
            return;
        }
        auto scan = cachedir::scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        const std::size_t total = scan->entries().size();
        QVERIFY2(total > 400, "the cache spans three batches");

        // One uninterrupted index: how long it takes, and what it writes.
        const fs::path reference_path = path_of(temp) / "reference.sqlite";
        QElapsedTimer timer;
        timer.start();
        const auto whole = test::run_cli(index_arguments(root, reference_path));
        const qint64 duration_ms = timer.elapsed();
        QCOMPARE(whole.exit_code, 0);
        QVERIFY2(whole.out.contains(QByteArray::number(qulonglong(total)) + " entries"),
                 whole.out.constData());
        std::string reference_dump;
        {
            auto reference = catalog::Catalog::open(reference_path);
            QVERIFY_RESULT(reference);
            reference_dump = test::canonical_dump(*reference);
        }
        qInfo("an uninterrupted first index of %zu entries takes %lld ms", total,
              static_cast<long long>(duration_ms));

        KillTally tally;
        for (unsigned seed : kSeeds) {
            const fs::path catalog_path =
                path_of(temp) / ("seed-" + std::to_string(seed) + ".sqlite");
            kill_and_complete(root, catalog_path, seed, kKillsPerSeed, duration_ms, reference_dump,
                              true, tally);
            if (QTest::currentTestFailed()) {
                return;
            }
        }
        report_tally(tally);
        QVERIFY2(tally.landed > 0, "no kill landed before the index finished");
    }

    // Kills while an index removes deleted entries and parses changed ones
    // again, which frees debug lines for the cleanup at its end.
    void killedReindexIsCompletedByTheNext() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path root = path_of(temp) / "cache";
        make_big_cache(root);
        if (QTest::currentTestFailed()) {
            return;
        }
        const fs::path base_path = path_of(temp) / "base.sqlite";
        {
            auto base = catalog::Catalog::open(base_path);
            QVERIFY_RESULT(base);
            QVERIFY_RESULT(base->index(root));
        }
        QVERIFY(!fs::exists(base_path.string() + "-wal"));

        // Two FX entries deleted; every other FX entry and every module touched.
        auto scan = cachedir::scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        int deleted = 0;
        std::size_t touched = 0;
        for (const auto& entry : scan->entries()) {
            const fs::path path = root / entry.path;
            if (entry.kind == cachedir::FileKind::FxGraph && deleted < 2) {
                QVERIFY(fs::remove(path));
                ++deleted;
            } else if (entry.kind == cachedir::FileKind::FxGraph ||
                       entry.kind == cachedir::FileKind::Module) {
                fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(1));
                ++touched;
            }
        }
        QVERIFY2(touched > 250, "the re-index spans two batches");
        const std::string reference_dump = fresh_dump(root, path_of(temp) / "reference.sqlite");

        // One uninterrupted re-index, for its duration.
        const fs::path timed_path = path_of(temp) / "timed.sqlite";
        fs::copy_file(base_path, timed_path);
        QElapsedTimer timer;
        timer.start();
        const auto whole = test::run_cli(index_arguments(root, timed_path));
        const qint64 duration_ms = timer.elapsed();
        QCOMPARE(whole.exit_code, 0);
        QVERIFY2(whole.out.contains(QByteArray::number(qulonglong(touched)) + " parsed") &&
                     whole.out.contains("2 removed"),
                 whole.out.constData());
        qInfo("an uninterrupted re-index of %zu changed entries takes %lld ms", touched,
              static_cast<long long>(duration_ms));

        KillTally tally;
        for (unsigned seed : kSeeds) {
            const fs::path catalog_path =
                path_of(temp) / ("seed-" + std::to_string(seed) + ".sqlite");
            fs::copy_file(base_path, catalog_path);
            kill_and_complete(root, catalog_path, seed, kKillsPerSeed, duration_ms, reference_dump,
                              false, tally);
            if (QTest::currentTestFailed()) {
                return;
            }
        }
        report_tally(tally);
        QVERIFY2(tally.landed > 0, "no kill landed before the index finished");
    }
    // Kills while `prune` deletes: after each one the catalog is sound with no
    // entry half-written and no Triton kernel dir keeps a group file naming a
    // file that is gone (the group goes first: Triton compiles again rather
    // than failing); then the next prune finishes the job, leaving the files
    // one uninterrupted prune leaves, and a catalog equal to a fresh index.
    void killedPruneLeavesEntriesWholeOrGone() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path root = path_of(temp) / "cache";
        make_big_cache(root);
        test::age_files(root, std::chrono::days(40));
        if (QTest::currentTestFailed()) {
            return;
        }
        const fs::path reference = path_of(temp) / "reference";
        fs::copy(root, reference, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
        test::age_files(reference, std::chrono::days(40));
        const fs::path reference_catalog = path_of(temp) / "reference.sqlite";
        QCOMPARE(test::run_cli(index_arguments(reference, reference_catalog)).exit_code, 0);
        QElapsedTimer timer;
        timer.start();
        const auto whole = test::run_cli(prune_arguments(reference, reference_catalog));
        const qint64 duration_ms = timer.elapsed();
        QVERIFY2(whole.exit_code == 0, whole.err.constData());
        const auto left_by_one_prune = test::files_under(reference);
        qInfo("an uninterrupted prune of %zu files to %zu takes %lld ms",
              test::files_under(root).size(), left_by_one_prune.size(),
              static_cast<long long>(duration_ms));

        KillTally tally;
        for (unsigned seed : kSeeds) {
            // Each seed on its own copy: the first kills land in a prune with all to do.
            const fs::path dir = path_of(temp) / ("seed-" + std::to_string(seed));
            fs::copy(root, dir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
            test::age_files(dir, std::chrono::days(40));
            const fs::path catalog_path =
                path_of(temp) / ("seed-" + std::to_string(seed) + ".sqlite");
            QCOMPARE(test::run_cli(index_arguments(dir, catalog_path)).exit_code, 0);
            std::mt19937 random(seed);
            std::uniform_int_distribution<qint64> delay_ms(0, duration_ms);
            for (int kill = 0; kill < kKillsPerSeed; ++kill) {
                QProcess process;
                process.start(test::cli_path(), prune_arguments(dir, catalog_path));
                QVERIFY(process.waitForStarted());
                // The deliberate random delay: the kill lands wherever the prune is then.
                if (!process.waitForFinished(static_cast<int>(delay_ms(random)))) {
                    process.kill();
                    QVERIFY(process.waitForFinished());
                }
                ++tally.kills;
                tally.landed += process.exitStatus() == QProcess::CrashExit;
                auto catalog = catalog::Catalog::open(catalog_path);
                QVERIFY_RESULT(catalog);
                QCOMPARE(test::integrity_problems(catalog->handle()), std::string("ok"));
                const auto half_written = test::half_written_entries(catalog->handle());
                QVERIFY2(half_written.empty(), join_lines(half_written).c_str());
                const auto broken = broken_triton_groups(dir);
                QVERIFY2(broken.empty(), join_lines(broken).c_str());
            }
            const auto last = test::run_cli(prune_arguments(dir, catalog_path));
            QVERIFY2(last.exit_code == 0, last.err.constData());
            QCOMPARE(test::files_under(dir), left_by_one_prune);
            auto catalog = catalog::Catalog::open(catalog_path);
            QVERIFY_RESULT(catalog);
            QVERIFY_RESULT(catalog->index(dir));
            const std::string difference = test::first_difference(
                fresh_dump(dir, path_of(temp) / ("fresh-" + std::to_string(seed) + ".sqlite")),
                test::canonical_dump(*catalog));
            QVERIFY2(difference.empty(), difference.c_str());
        }
        qInfo("%d kills of prune: %d landed mid-prune", tally.kills, tally.landed);
        QVERIFY2(tally.landed > 0, "no kill landed before the prune finished");
    }
};

QTEST_GUILESS_MAIN(TestCatalogCrash)
#include "tst_catalog_crash.moc"
