// cachelens beside busy writers (issue #37): PyTorch, Triton, OnDiskCache and
// vLLM writers (tests/support/soak_writer.py, each writing as its producer
// does: temp + rename, FileLocks, Triton's staging dirs and group file last,
// exclusive create written in place, an index rewritten in place) and a
// process holding old files open, all at once for CACHELENS_SOAK_SECONDS
// (20 by default: `make test`; `make soak` runs 480), while `index`,
// `prune`, `verify` and `stats` run in turn and the window browses and
// indexes again. Afterwards:
//  - no command crashed; each exited 0 (or 1: a prune that could not reach
//    its size, a verify that found the copies' names are not their hashes);
//  - nothing a writer completed within --keep-recent of a prune's start was
//    deleted by it, and nothing it completed is lost unless a prune said so;
//  - no file the holder had open through a prune was deleted by it;
//  - no problem `verify` or `index` reported during the run is absent from a
//    verify of the finished dir: none was a file caught half written;
//  - the catalog the run kept up to date equals a fresh index of both dirs;
//  - the window's event loop never stalled (reported; bounded loosely here,
//    the 100 ms goal is `make bench`'s).

#include "catalog_checks.h"
#include "main_window.h"
#include "pages/browse_page.h"
#include "serving_trees.h"
#include "stall_meter.h"
#include "startup_script.h"
#include "test_paths.h"

#include <cachelens/catalog/catalog.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <QAction>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QProcess>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kKeepRecentNs = 3'000'000'000;

std::int64_t wall_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::uint64_t total_bytes(const fs::path& dir) {
    std::uint64_t total = 0;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(dir, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_regular_file(error)) {
            total += it->file_size(error);
        }
    }
    return total;
}

// One cachelens run: when it ran (wall clock, as the writers log) and what it said.
struct Run {
    QStringList args;
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    QProcess::ExitStatus status = QProcess::NormalExit;
    int exit_code = 0;
    QByteArray out;
    QByteArray err;
};

// Runs the CLI while the event loop goes on (the window keeps browsing).
Run run_async(const QStringList& args) {
    Run run;
    run.args = args;
    QProcess process;
    QEventLoop loop;
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&process, &QProcess::errorOccurred, &loop, &QEventLoop::quit);
    run.start_ns = wall_ns();
    process.start(test::cli_path(), args);
    loop.exec();
    if (process.state() != QProcess::NotRunning) {
        process.waitForFinished(-1);
    }
    run.end_ns = wall_ns();
    run.status = process.exitStatus();
    run.exit_code = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

struct Write {
    std::int64_t ns = 0;
    fs::path root;    // the dir the writer wrote into
    std::string path; // relative to it
    std::string size;
    std::string sha1;
};

// Every line of the writers' logs, in order of time.
std::vector<Write> read_writes(const std::vector<std::pair<fs::path, fs::path>>& logs) {
    std::vector<Write> out;
    for (const auto& [log, root] : logs) {
        std::ifstream in(log);
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            Write write;
            write.root = root;
            std::string ns;
            std::getline(fields, ns, '\t');
            std::getline(fields, write.path, '\t');
            std::getline(fields, write.size, '\t');
            std::getline(fields, write.sha1, '\t');
            write.ns = std::stoll(ns);
            out.push_back(std::move(write));
        }
    }
    std::ranges::sort(out, {}, &Write::ns);
    return out;
}

std::string sha1_of(const fs::path& file) {
    QFile in(QString::fromStdString(file.string()));
    if (!in.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QCryptographicHash::hash(in.readAll(), QCryptographicHash::Sha1).toHex().toStdString();
}

// The entries (paths relative to the root) a prune's --json says it deleted.
std::set<std::string> deleted_by(const Run& prune) {
    const QJsonObject json = QJsonDocument::fromJson(prune.out).object();
    std::set<std::string> kept;
    for (const auto& line : json["deleted"].toObject()["kept"].toArray()) {
        kept.insert(line.toString().section(':', 0, 0).toStdString());
    }
    std::set<std::string> out;
    for (const auto& unit : json["units"].toArray()) {
        for (const auto& entry : unit.toObject()["entries"].toArray()) {
            const auto object = entry.toObject();
            const std::string path = object["path"].toString().toStdString();
            if (kept.contains(path)) {
                continue;
            }
            out.insert(path);
        }
    }
    return out;
}

// Whether `path` is one of `entries` or a file in one (a Triton kernel dir).
bool covered(const std::set<std::string>& entries, const std::string& path) {
    return std::ranges::any_of(entries, [&](const std::string& entry) {
        return path == entry || path.starts_with(entry + "/");
    });
}

// "path: problem" for each problem a verify --json reported.
std::set<std::string> problems_of(const Run& verify) {
    std::set<std::string> out;
    for (const auto& problem : QJsonDocument::fromJson(verify.out).object()["problems"].toArray()) {
        const auto object = problem.toObject();
        out.insert((object["path"].toString() + ": " + object["problem"].toString()).toStdString());
    }
    return out;
}

int soak_seconds() {
    bool ok = false;
    const int seconds = qEnvironmentVariableIntValue("CACHELENS_SOAK_SECONDS", &ok);
    return ok && seconds > 0 ? seconds : 20;
}

} // namespace

class TestSoak : public QObject {
    Q_OBJECT

private slots:
    void everyCommandBesideBusyWriters() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path base = temp.path().toStdString();
        const fs::path cache = base / "cache";
        const fs::path devset = test::fixture("devset/cache");
        test::copy_tree(devset, cache);
        const fs::path tree = test::serving_fixture::vllm_08(base / "vllm");
        test::age_files(cache, std::chrono::days(40));
        test::age_files(tree, std::chrono::days(40));
        const QString catalogPath = QString::fromStdString((base / "catalog.sqlite").string());
        const QString cacheArg = QString::fromStdString(cache.string());
        const QString treeArg = QString::fromStdString(tree.string());
        QCOMPARE(test::run_cli({"index", cacheArg, treeArg, "--catalog", catalogPath}).exit_code,
                 0);

        auto window = std::make_unique<MainWindow>(catalogPath);
        window->resize(1200, 800);
        window->show();
        {
            QSignalSpy done(window.get(), &MainWindow::requestDone);
            StartupRequest request;
            request.open = {cache, tree};
            window->runStartupRequest(request);
            QVERIFY(done.wait(60'000));
        }
        QAction* indexAgain = nullptr;
        for (QAction* action : window->findChildren<QAction*>()) {
            if (action->text() == QStringLiteral("&Index again")) {
                indexAgain = action;
            }
        }
        QVERIFY(indexAgain != nullptr);
        BrowsePage* browse = window->browsePage();

        const int seconds = soak_seconds();
        struct Writer {
            QString mode;
            fs::path target;
            int seed;
        };
        const std::vector<Writer> writers = {{"inductor", cache, 1}, {"inductor", cache, 2},
                                             {"triton", cache, 3},   {"ondisk", cache, 4},
                                             {"vllm", tree, 5},      {"holder", cache, 6}};
        std::vector<std::unique_ptr<QProcess>> processes;
        std::vector<std::pair<fs::path, fs::path>> write_logs; // (log, the dir written)
        fs::path holder_log;
        for (const auto& writer : writers) {
            const fs::path log =
                base / (writer.mode.toStdString() + "-" + std::to_string(writer.seed) + ".log");
            if (writer.mode == "holder") {
                holder_log = log;
            } else {
                write_logs.emplace_back(log, writer.target);
            }
            auto process = std::make_unique<QProcess>();
            process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
            process->start("python3", {CACHELENS_SOAK_WRITER, writer.mode,
                                       QString::fromStdString(devset.string()),
                                       QString::fromStdString(writer.target.string()),
                                       QString::fromStdString(log.string()),
                                       QString::number(seconds), QString::number(writer.seed)});
            QVERIFY(process->waitForStarted());
            processes.push_back(std::move(process));
        }
        const auto writing = [&] {
            return std::ranges::any_of(
                processes, [](const auto& p) { return p->state() != QProcess::NotRunning; });
        };

        test::StallMeter meter(5);
        std::vector<Run> runs;
        const QString keepRecent = QString::number(kKeepRecentNs / 1'000'000'000) + "s";
        for (int round = 0; writing(); ++round) {
            const QString limit = QString::number(total_bytes(cache) / 100 * 60);
            const QList<QStringList> commands = {
                {"index", cacheArg, treeArg, "--catalog", catalogPath, "--json"},
                {"prune", cacheArg, "--max-size", limit, "--keep-recent", keepRecent, "--catalog",
                 catalogPath, "--json"},
                {"verify", cacheArg, "--json"},
                {"stats", cacheArg, "--catalog", catalogPath, "--json"},
                {"prune", treeArg, "--max-size", "1", "--keep-recent", keepRecent, "--json"},
            };
            runs.push_back(run_async(commands[round % commands.size()]));
            // The window meanwhile: index again, search, scroll.
            indexAgain->trigger();
            browse->searchField()->setText(round % 2 == 0 ? QStringLiteral("triton") : QString());
            QScrollBar* bar = browse->entryTable()->verticalScrollBar();
            bar->setValue(round % 3 == 0 ? bar->maximum() : 0);
        }
        for (auto& process : processes) {
            QVERIFY(process->state() == QProcess::NotRunning || process->waitForFinished(60'000));
            QCOMPARE(process->exitStatus(), QProcess::NormalExit);
            QCOMPARE(process->exitCode(), 0);
        }
        QTest::qWait(500);
        const auto longestStall = static_cast<qint64>(meter.longestMs());
        window.reset(); // its jobs end with it: no index of the window's runs on

        // No crash, and each exit as it should be.
        std::map<QString, int> counts;
        for (const auto& run : runs) {
            const QString command = run.args.front();
            ++counts[command];
            QVERIFY2(run.status == QProcess::NormalExit,
                     qPrintable(run.args.join(' ') + " crashed: " + run.err));
            const bool allowed =
                run.exit_code == 0 ||
                (run.exit_code == 1 && (command == "prune" || command == "verify"));
            QVERIFY2(allowed, qPrintable(run.args.join(' ') + " exited " +
                                         QString::number(run.exit_code) + ": " + run.err));
        }
        qInfo("%d s of writers: %zu cachelens runs (index %d, prune %d, verify %d, stats %d); "
              "the longest event-loop stall %lld ms",
              seconds, runs.size(), counts["index"], counts["prune"], counts["verify"],
              counts["stats"], longestStall);
        QVERIFY(counts["prune"] >= 2 && counts["verify"] >= 1);

        // What was written, deleted and held open.
        const auto writes = read_writes(write_logs);
        QVERIFY(writes.size() > 50);
        std::map<std::string, std::int64_t> opened; // path -> when the holder opened it
        std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> held;
        {
            std::ifstream in(holder_log);
            std::string line;
            while (std::getline(in, line)) {
                std::istringstream fields(line);
                std::string ns, what, path;
                fields >> ns >> what >> path;
                if (what == "open") {
                    opened[path] = std::stoll(ns);
                } else if (opened.contains(path)) {
                    held.emplace_back(path, opened[path], std::stoll(ns));
                }
            }
        }
        std::set<std::string> deleted_ever;
        std::size_t deletions = 0;
        for (const auto& run : runs) {
            if (run.args.front() != "prune" || run.args[1] != cacheArg) {
                continue;
            }
            const auto deleted = deleted_by(run);
            deletions += deleted.size();
            deleted_ever.insert(deleted.begin(), deleted.end());
            for (const auto& write : writes) {
                // A write is logged just after its rename: 200 ms for the mtime before it.
                if (write.root == cache && write.ns > run.start_ns - kKeepRecentNs + 200'000'000 &&
                    write.ns < run.end_ns) {
                    QVERIFY2(!covered(deleted, write.path),
                             ("written within --keep-recent of the prune, deleted: " + write.path)
                                 .c_str());
                }
            }
            for (const auto& [path, from, to] : held) {
                if (from < run.start_ns && to > run.end_ns) {
                    QVERIFY2(!covered(deleted, path),
                             ("open in another process, deleted: " + path).c_str());
                }
            }
        }
        qInfo("%zu writes, %zu files deleted by prunes, %zu holds", writes.size(), deletions,
              held.size());
        // Each completed file is there with its last bytes, or a prune said it went.
        std::map<fs::path, const Write*> last;
        for (const auto& write : writes) {
            last[write.root / write.path] = &write;
        }
        for (const auto& [file, write] : last) {
            if (!fs::exists(file)) {
                QVERIFY2(write->root == cache && covered(deleted_ever, write->path),
                         ("lost: " + file.string()).c_str());
                continue;
            }
            QCOMPARE(sha1_of(file), write->sha1);
        }

        // Nothing reported corrupt while it was being written.
        const Run final_verify = run_async({"verify", cacheArg, "--json"});
        const auto final_problems = problems_of(final_verify);
        for (const auto& run : runs) {
            if (run.args.front() != "verify") {
                continue;
            }
            for (const auto& problem : problems_of(run)) {
                const std::string path = problem.substr(0, problem.find(": "));
                if (fs::exists(cache / path)) {
                    QVERIFY2(final_problems.contains(problem),
                             ("reported while being written: " + problem).c_str());
                }
            }
        }
        for (const auto& run : runs) {
            if (run.args.front() == "index") {
                for (const auto& root :
                     QJsonDocument::fromJson(run.out).object()["roots"].toArray()) {
                    QVERIFY2(root.toObject()["parse_errors"].toInt() == 0,
                             qPrintable("index reported parse errors: " + run.out));
                }
            }
        }

        // The catalog kept up to date equals a fresh index of both dirs.
        auto kept = catalog::Catalog::open(catalogPath.toStdString());
        QVERIFY_RESULT(kept);
        QVERIFY_RESULT(kept->index(cache));
        QVERIFY_RESULT(kept->index(tree));
        QCOMPARE(test::integrity_problems(kept->handle()), std::string("ok"));
        auto fresh = catalog::Catalog::open(base / "fresh.sqlite");
        QVERIFY_RESULT(fresh);
        QVERIFY_RESULT(fresh->index(cache));
        QVERIFY_RESULT(fresh->index(tree));
        const std::string entries =
            "SELECT r.location || ' ' || e.path FROM entries e JOIN roots r "
            "ON r.id = e.root_id ORDER BY 1";
        const auto fresh_entries = test::query_rows(fresh->handle(), entries);
        const auto kept_entries = test::query_rows(kept->handle(), entries);
        std::vector<std::string> only_one;
        std::ranges::set_symmetric_difference(fresh_entries, kept_entries,
                                              std::back_inserter(only_one));
        if (!only_one.empty()) {
            QFAIL(("in one catalog only: " + only_one.front()).c_str());
        }
        const std::string difference =
            test::first_difference(test::canonical_dump(*fresh), test::canonical_dump(*kept));
        QVERIFY2(difference.empty(), difference.c_str());

        // Loose: a machine this busy (six writers, the CLI, the window on two
        // cores) shares its CPU; a stall of seconds would be a blocking call.
        QVERIFY2(longestStall < 1000,
                 qPrintable(QString("the event loop stalled %1 ms").arg(longestStall)));
    }
};

QTEST_MAIN(TestSoak)
#include "tst_soak.moc"
