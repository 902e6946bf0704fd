// `index` and `prune` running while a writer keeps adding entries the way
// PyTorch does (temp file + rename, modules before the FX entry that uses
// them, new key dirs and new entries in old ones): no crash, no torn read,
// nothing the writer completed lost or half-deleted, and a catalog that
// matches the dir at the end.

#include "catalog_checks.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/catalog/catalog.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <set>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

std::uint64_t fnv1a64(const std::string& data) {
    std::uint64_t hash = 1469598103934665603ULL;
    for (unsigned char c : data) {
        hash = (hash ^ c) * 1099511628211ULL;
    }
    return hash;
}

std::uint64_t total_bytes(const fs::path& dir) {
    std::uint64_t total = 0;
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        if (item.is_regular_file()) {
            total += item.file_size();
        }
    }
    return total;
}

// The FX key dirs with files, each with its files.
std::map<std::string, std::set<std::string>> fx_keys(const fs::path& dir) {
    std::map<std::string, std::set<std::string>> keys;
    for (const auto& item : fs::recursive_directory_iterator(dir / "fxgraph")) {
        if (item.is_regular_file()) {
            keys[fs::relative(item.path().parent_path(), dir)].insert(item.path().filename());
        }
    }
    return keys;
}

// The paths a prune's --json output says it deleted: what it planned, less
// what it kept.
void record_deleted(const QJsonObject& prune, std::set<std::string>& deleted) {
    std::set<std::string> kept;
    for (const auto& line : prune["deleted"].toObject()["kept"].toArray()) {
        kept.insert(line.toString().section(':', 0, 0).toStdString());
    }
    for (const auto& unit : prune["units"].toArray()) {
        for (const auto& entry : unit.toObject()["entries"].toArray()) {
            const std::string path = entry.toObject()["path"].toString().toStdString();
            if (!kept.contains(path)) {
                deleted.insert(path);
            }
        }
    }
}

struct WrittenFile {
    std::uint64_t size = 0;
    std::string checksum;
};

// What the writer logged as completed: the last write of each path wins.
std::map<std::string, WrittenFile> completed_writes(const fs::path& log) {
    std::map<std::string, WrittenFile> files;
    std::ifstream in(log);
    std::string path, checksum;
    std::uint64_t size = 0;
    while (in >> path >> size >> checksum) {
        files[path] = {size, checksum};
    }
    return files;
}

std::string checksum_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    const std::string data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(fnv1a64(data)));
    return text;
}

} // namespace

class TestPruneConcurrency : public QObject {
    Q_OBJECT

private slots:
    void indexAndPruneWhileTheCacheIsWritten() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path dir = fs::path(temp.path().toStdString()) / "cache";
        const fs::path log = fs::path(temp.path().toStdString()) / "written.log";
        const QString catalog = temp.filePath("catalog.sqlite");
        const fs::path source = test::fixture("devset/cache");
        test::copy_tree(source, dir);
        test::age_files(dir, std::chrono::days(40));
        const auto old_keys = fx_keys(dir);
        const std::uint64_t initial = total_bytes(dir);

        QProcess writer;
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start(CACHELENS_CACHE_WRITER,
                     {QString::fromStdString(source.string()), QString::fromStdString(dir.string()),
                      QString::fromStdString(log.string()), "240", "25"});
        QVERIFY(writer.waitForStarted());

        // Ever smaller limits, then everything old: each round deletes while
        // the writer writes.
        const QString cache = QString::fromStdString(dir.string());
        int rounds = 0;
        int rounds_during_writes = 0;
        std::set<std::string> deleted;
        for (int percent = 90; rounds < 12; percent = std::max(10, percent - 15), ++rounds) {
            const bool writing = writer.state() != QProcess::NotRunning;
            if (!writing && rounds >= 8) {
                break;
            }
            rounds_during_writes += writing ? 1 : 0;
            const auto index = test::run_cli({"index", cache, "--catalog", catalog});
            QVERIFY2(index.exit_code == 0, index.err.constData());
            const QString limit = QString::number(initial / 100 * static_cast<unsigned>(percent));
            QStringList prune = {"prune", cache, "--catalog", catalog, "--json"};
            prune += rounds % 4 == 3 ? QStringList{"--older-than", "30d"}
                                     : QStringList{"--max-size", limit};
            // Every other round may take what the writer just wrote as well.
            if (rounds % 2 == 1) {
                prune += QStringList{"--keep-recent", "0s"};
            }
            const auto pruned = test::run_cli(prune);
            // 0, or 1 when the limit cannot be met without touching recent files.
            QVERIFY2(pruned.exit_code == 0 || pruned.exit_code == 1, pruned.err.constData());
            QVERIFY2(pruned.err.isEmpty(), pruned.err.constData());
            record_deleted(QJsonDocument::fromJson(pruned.out).object(), deleted);
        }
        QVERIFY(writer.waitForFinished(120000));
        QCOMPARE(writer.exitStatus(), QProcess::NormalExit);
        QCOMPARE(writer.exitCode(), 0);
        qInfo("%d index+prune rounds, %d of them while the writer was writing", rounds,
              rounds_during_writes);
        QVERIFY2(rounds_during_writes >= 3, "the writer finished before the rounds overlapped it");

        const auto final_prune =
            test::run_cli({"prune", cache, "--older-than", "30d", "--catalog", catalog});
        QVERIFY2(final_prune.exit_code == 0, final_prune.err.constData());

        // Everything the writer completed is there, byte for byte, unless a
        // prune reported deleting it.
        const auto written = completed_writes(log);
        std::ifstream log_lines(log);
        const auto writes = std::count(std::istreambuf_iterator<char>(log_lines),
                                       std::istreambuf_iterator<char>(), '\n');
        QCOMPARE(writes, 2 * 240);     // a module and an FX entry per round
        QVERIFY(written.size() > 400); // distinct paths: a few entries were rewritten
        std::size_t written_and_pruned = 0;
        for (const auto& [path, file] : written) {
            const fs::path on_disk = dir / path;
            if (!fs::exists(on_disk)) {
                QVERIFY2(deleted.contains(path), ("lost: " + path).c_str());
                ++written_and_pruned;
                continue;
            }
            QCOMPARE(fs::file_size(on_disk), file.size);
            QCOMPARE(checksum_of(on_disk), file.checksum);
        }
        qInfo("%zu of the %zu files written were pruned again", written_and_pruned, written.size());
        // Old keys went whole (the writer may have added to one afterwards), or
        // stayed whole because the writer added to them first.
        const auto keys_now = fx_keys(dir);
        for (const auto& [key, files] : old_keys) {
            auto it = keys_now.find(key);
            if (it == keys_now.end()) {
                continue;
            }
            const auto old_left = std::ranges::count_if(
                files, [&](const std::string& name) { return it->second.contains(name); });
            QVERIFY2(old_left == 0 || old_left == std::ssize(files),
                     ("half of an old key is left: " + key).c_str());
            bool got_new_entry = false;
            for (const auto& name : it->second) {
                got_new_entry |= written.contains(key + "/" + name);
            }
            QVERIFY2(got_new_entry, ("an old key no writer touched survived: " + key).c_str());
        }
        // No temp file left, nothing half-written read, links intact.
        auto scan = cachedir::scan_cache_dir(dir);
        QVERIFY_RESULT(scan);
        for (const auto& file : scan->files) {
            QVERIFY2(file.kind != cachedir::FileKind::Temp, file.path.c_str());
        }
        for (const auto& problem : cachedir::verify_cache_dir(*scan).problems) {
            QVERIFY2(problem.kind != cachedir::ProblemKind::DanglingLink &&
                         problem.kind != cachedir::ProblemKind::Incomplete &&
                         problem.kind != cachedir::ProblemKind::ParseError,
                     (problem.path + ": " + problem.message).c_str());
        }
        auto opened = catalog::Catalog::open(catalog.toStdString());
        QVERIFY_RESULT(opened);
        auto indexed = opened->index(dir);
        QVERIFY_RESULT(indexed);
        QCOMPARE(indexed->parse_errors, std::size_t(0));
        sqlite3* db = opened->handle();
        QCOMPARE(test::integrity_problems(db), std::string("ok"));
        QCOMPARE(test::half_written_entries(db), std::vector<std::string>{});
        QCOMPARE(test::dangling_rows(db), std::vector<std::string>{});
        auto fresh = catalog::Catalog::open(fs::path(temp.path().toStdString()) / "fresh.sqlite");
        QVERIFY_RESULT(fresh);
        QVERIFY_RESULT(fresh->index(dir));
        const std::string difference =
            test::first_difference(test::canonical_dump(*fresh), test::canonical_dump(*opened));
        QVERIFY2(difference.empty(), difference.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPruneConcurrency)
#include "tst_prune_concurrency.moc"
