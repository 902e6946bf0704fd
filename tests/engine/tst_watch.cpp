// Watching a cache dir fill (watch/cache_watch.h): a writer thread copies real
// PyTorch 2.11 entries into an empty dir in PyTorch's write order — each file
// under a temp name then renamed (write_atomic), the Triton kernel's files in
// a tmp.* staging dir renamed into place, the graph after its kernels — while
// the watcher runs. Every entry is reported once, in the order it completed,
// nothing half-written is read, and a graph compiled again at another dtype
// is a recompile with that cause.

#include "pytorch_writes.h"
#include "test_paths.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/trace/trace_log.h>
#include <cachelens/watch/cache_watch.h>
#include <cachelens/watch/trace_watch.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

using namespace cachelens;
using namespace cachelens::watch;
namespace fs = std::filesystem;

namespace {

const fs::path kCache = "devset/cache";
using test::pytorch_writes::append_in_pieces;
using test::pytorch_writes::write_triton_kernel;
const std::string& kFloat32 = test::pytorch_writes::kFloat32Graph;
const std::string& kFloat16 = test::pytorch_writes::kFloat16Graph;

// A slow writer: 20 ms between a file's temp write and its rename.
constexpr std::chrono::milliseconds kSlowWriter{20};

void write_atomic(const fs::path& from, const fs::path& to) {
    test::pytorch_writes::write_atomic(from, to, kSlowWriter);
}

void write_fx_graph(const fs::path& cache, const std::string& key) {
    test::pytorch_writes::write_fx_graph(cache, key, kSlowWriter);
}

const fs::path kTraceLog =
    "devset/trace/dedicated_log_torch_trace_zyfkwfwy.log"; // 1.6 MB, FX and AOT events

std::string bytes_of(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// What a finished log's cache events are, each as "compile status key line".
std::vector<std::string> event_ids(const std::vector<trace::CacheEvent>& events) {
    std::vector<std::string> ids;
    for (const auto& event : events) {
        ids.push_back(event.compile_id + " " + std::string(trace::to_string(event.cache)) + " " +
                      event.status + " " + event.key + " " + std::to_string(event.line) + " " +
                      std::to_string(event.components.size()));
    }
    return ids;
}

} // namespace

class TestWatch : public QObject {
    Q_OBJECT

private slots:
    void reportsEachEntryOnceInOrder() {
        QTemporaryDir dir;
        const fs::path cache = fs::path(dir.path().toStdString()) / "cache";
        fs::create_directories(cache);
        auto watch = CacheWatch::start(cache);
        QVERIFY_RESULT(watch);
        auto watcher = DirWatcher::open(cache);
        QVERIFY_RESULT(watcher);
        const fs::path kernel =
            *fs::directory_iterator(test::fixture((kCache / "triton" / "0").string()));
        const fs::path best = test::fixture(
            "devset/cache/2c/1d478d3f71f84b06d156f2b3d8b027fb6d1f8b2d5491a0dc74571852450c7051"
            ".best_config");
        std::thread writer([&] {
            write_triton_kernel(cache, kernel);
            write_atomic(best, cache / "2c" / best.filename());
            write_fx_graph(cache, kFloat32);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            write_fx_graph(cache, kFloat16);
        });
        std::vector<WatchEvent> events;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (events.size() < 4 && std::chrono::steady_clock::now() < deadline) {
            auto changed = (*watcher)->wait(std::chrono::milliseconds(100));
            QVERIFY_RESULT(changed);
            for (const auto& path : *changed) {
                QVERIFY2(path.find(".tmp") == std::string::npos && !path.contains("tmp.pid"),
                         path.c_str()); // nothing under a temp name
            }
            for (auto& event : watch->events_for(*changed)) {
                events.push_back(std::move(event));
            }
        }
        writer.join();
        // Anything left: nothing new (each entry once).
        auto rest = (*watcher)->wait(std::chrono::milliseconds(200));
        QVERIFY(watch->events_for(*rest).empty());
        QCOMPARE(events.size(), std::size_t{4});
        QCOMPARE(events[0].kind, WatchEvent::Kind::TritonKernel);
        QVERIFY2(events[0].line.starts_with("Triton kernel compiled: triton_"),
                 events[0].line.c_str());
        QCOMPARE(events[1].kind, WatchEvent::Kind::BestConfig);
        QVERIFY2(events[1].line.contains("num_warps"), events[1].line.c_str());
        QCOMPARE(events[2].kind, WatchEvent::Kind::FxGraph);
        QCOMPARE(events[2].key, kFloat32);
        QVERIFY(!events[2].recompile);
        QCOMPARE(events[3].key, kFloat16);
        QVERIFY(events[3].recompile);
        QVERIFY2(events[3].line.contains("dtype"), events[3].line.c_str());
        const auto& summary = watch->summary();
        QCOMPARE(summary.compiles, std::size_t{2});
        QCOMPARE(summary.recompiles, std::size_t{1});
        QVERIFY2(summary.line().starts_with("2 compiles, 1 recompile: 1 "), summary.line().c_str());
    }

    void cliPrintsALineAnEventThenTheSummary() {
        QTemporaryDir dir;
        const fs::path cache = fs::path(dir.path().toStdString()) / "cache";
        fs::create_directories(cache);
        QProcess watch;
        watch.start(test::cli_path(), {"watch", QString::fromStdString(cache.string()), "--seconds",
                                       "4", "--json-lines"});
        QVERIFY(watch.waitForStarted());
        QVERIFY(watch.waitForReadyRead(10000)); // {"watching": ...}: it watches now
        write_fx_graph(cache, kFloat32);
        write_fx_graph(cache, kFloat16);
        QVERIFY(watch.waitForFinished(30000));
        QCOMPARE(watch.exitCode(), 0);
        const QList<QByteArray> lines = watch.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 4); // watching, two graphs, the summary
        const auto second = QJsonDocument::fromJson(lines[2]).object();
        QCOMPARE(second["key"].toString(), QString::fromStdString(kFloat16));
        QCOMPARE(second["recompile"].toBool(), true);
        // The cause is the one `why` gives for that graph in that dir.
        const auto why = test::run_cli(
            {"why", QString::fromStdString(cache.string()), QString::fromStdString(kFloat16)});
        QCOMPARE(why.exit_code, 0);
        // Mid-line the answer starts lower case.
        QString answer = QString::fromUtf8(why.out.left(why.out.indexOf('\n')));
        answer[0] = answer[0].toLower();
        QVERIFY2(second["line"].toString().endsWith(": " + answer),
                 qPrintable(second["line"].toString() + "\n" + answer));
        const auto summary = QJsonDocument::fromJson(lines[3]).object();
        QCOMPARE(summary["compiles"].toInt(), 2);
        QCOMPARE(summary["causes"].toObject()["dtypes"].toInt(), 1);
        QCOMPARE(test::run_cli({"watch", QString::fromStdString((cache / "missing").string())})
                     .exit_code,
                 2);
    }

    // `watch --index`: the catalog has what was there when the watch began
    // and, by their paths alone, each entry written while it ran, which
    // `stats --as-indexed` reads as it is; a catalog that cannot be opened
    // ends the watch at once, named.
    void cliKeepsTheCatalogUpToDate() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path cache = base / "cache";
        write_fx_graph(cache, kFloat32);
        const fs::path catalog_path = base / "catalog.sqlite";
        QProcess watch;
        watch.start(test::cli_path(), {"watch", QString::fromStdString(cache.string()), "--seconds",
                                       "4", "--json-lines", "--index", "--catalog",
                                       QString::fromStdString(catalog_path.string())});
        QVERIFY(watch.waitForStarted());
        // {"watching": ...}, then the dir indexed whole: what comes now is
        // indexed by its paths (a graph written during the whole index may be
        // caught under its temp name, which its path takes away again).
        QByteArray head;
        while (head.count('\n') < 2 && watch.waitForReadyRead(30000)) {
            head += watch.readAllStandardOutput();
        }
        QVERIFY2(head.contains("\"whole\":true"), head.constData());
        write_fx_graph(cache, kFloat16);
        const fs::path kernels = test::fixture((kCache / "triton" / "0").string());
        write_triton_kernel(cache, fs::directory_iterator(kernels)->path());
        QVERIFY(watch.waitForFinished(30000));
        QCOMPARE(watch.exitCode(), 0);
        const QList<QByteArray> lines = watch.readAllStandardOutput().trimmed().split('\n');
        const auto summary = QJsonDocument::fromJson(lines.back()).object();
        const auto indexed = summary["catalog"].toObject();
        QCOMPARE(indexed["written"].toInt(), 2); // the float16 graph and the kernel dir
        QCOMPARE(indexed["removed"].toInt(), 0);

        auto catalog = catalog::Catalog::open(catalog_path);
        QVERIFY_RESULT(catalog);
        catalog::SearchQuery all;
        all.root = cache.string();
        all.limit = 100;
        auto hits = catalog->search(all);
        QVERIFY_RESULT(hits);
        QStringList keys;
        for (const auto& hit : *hits) {
            keys << QString::fromStdString(std::string(cachedir::to_string(hit.kind)) + " " +
                                           hit.key);
        }
        keys.sort();
        QCOMPARE(keys.size(), 3);
        QVERIFY2(keys.contains(QString::fromStdString("fxgraph " + kFloat16)),
                 qPrintable(keys.join(", ")));
        QVERIFY2(keys.contains(QString::fromStdString("fxgraph " + kFloat32)),
                 qPrintable(keys.join(", ")));

        // `stats DIR --as-indexed` reads that, without a walk: what was written
        // since (a graph no watch saw) shows only once DIR is indexed again.
        const QString cache_arg = QString::fromStdString(cache.string());
        const QString catalog_arg = QString::fromStdString(catalog_path.string());
        fs::remove_all(cache / "fxgraph" / kFloat32.substr(1, 2));
        const auto fx_entries = [&](const QStringList& flags) {
            const auto stats = test::run_cli(
                QStringList{"stats", cache_arg, "--json", "--catalog", catalog_arg} + flags);
            const auto roots = QJsonDocument::fromJson(stats.out).object()["roots"].toArray();
            return roots.isEmpty() ? -1
                                   : roots[0]
                                         .toObject()["kinds"]
                                         .toObject()["fxgraph"]
                                         .toObject()["entries"]
                                         .toInt();
        };
        QCOMPARE(fx_entries({"--as-indexed"}), 2);
        QCOMPARE(fx_entries({}), 1);
        const auto as_indexed =
            test::run_cli({"stats", cache_arg, "--as-indexed", "--catalog", catalog_arg});
        QVERIFY2(as_indexed.out.contains("\n  as indexed "), as_indexed.out.constData());

        test::write_bytes(base / "not-a-catalog", "hello");
        const auto refused = test::run_cli(
            {"watch", QString::fromStdString(cache.string()), "--seconds", "1", "--index",
             "--catalog", QString::fromStdString((base / "not-a-catalog").string())});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY2(refused.err.contains("not-a-catalog"), refused.err.constData());
    }

    // A log read in pieces that end anywhere is the log read whole; before
    // it settles, what it gives is a prefix of that, never a partial event.
    void aFollowedLogIsTheLogReadWhole() {
        const std::string bytes = bytes_of(test::fixture(kTraceLog.string()));
        auto whole = trace::parse_trace_log(bytes, "log");
        QVERIFY_RESULT(whole);
        QVERIFY(whole->events.size() > 3);
        const auto expected = event_ids(whole->events);
        std::mt19937 random(7);
        trace::TraceLogFollower follower("log");
        QVERIFY(!follower.snapshot(true)); // nothing yet: no trace event
        std::size_t seen = 0;
        for (std::size_t at = 0; at < bytes.size();) {
            const std::size_t piece = std::min(
                bytes.size() - at, std::uniform_int_distribution<std::size_t>(1, 20000)(random));
            follower.feed(std::string_view(bytes).substr(at, piece));
            at += piece;
            if (auto partial = follower.snapshot(false)) {
                const auto ids = event_ids(partial->events);
                QVERIFY(ids.size() >= seen && ids.size() <= expected.size());
                QVERIFY(std::equal(ids.begin(), ids.end(), expected.begin()));
                seen = ids.size();
            }
        }
        auto settled = follower.snapshot(true);
        QVERIFY_RESULT(settled);
        QVERIFY(event_ids(settled->events) == expected);
        QCOMPARE(settled->compiles.size(), whole->compiles.size());
        QCOMPARE(settled->phases.size(), whole->phases.size());
        QCOMPARE(settled->kernels.size(), whole->kernels.size());
        QCOMPARE(settled->warnings, whole->warnings);
        QCOMPARE(follower.bytes_read(), std::uint64_t{bytes.size()});
    }

    // TraceWatch while a process appends its log: every cache event once, in
    // order, with its compile; a log started later and one cut short are read.
    void traceWatchReportsEachCacheEventOnce() {
        QTemporaryDir dir;
        const fs::path logs = fs::path(dir.path().toStdString()) / "trace";
        fs::create_directories(logs);
        const std::string bytes = bytes_of(test::fixture(kTraceLog.string()));
        const auto expected = event_ids(trace::parse_trace_log(bytes, "log")->events);
        auto watch = TraceWatch::start(logs, false);
        QVERIFY_RESULT(watch);
        QVERIFY(!TraceWatch::start(logs / "missing", false));
        std::thread writer([&] { append_in_pieces(logs / "rank0.log", bytes, 3); });
        std::vector<trace::CacheEvent> events;
        std::vector<std::string> lines;
        const auto collect = [&] {
            auto polled = watch->poll(std::chrono::milliseconds(300));
            QVERIFY_RESULT(polled);
            for (auto& item : *polled) {
                QCOMPARE(item.log, std::string("rank0.log"));
                lines.push_back(item.line);
                events.push_back(std::move(item.event));
            }
        };
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (events.size() < expected.size() && std::chrono::steady_clock::now() < deadline) {
            collect();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        writer.join();
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        collect(); // settled: nothing more
        QVERIFY(event_ids(events) == expected);
        QVERIFY2(lines.front().starts_with("compile ") && lines.front().contains(" cache "),
                 lines.front().c_str());
        QCOMPARE(watch->logs().size(), std::size_t{1});

        // A log cut short (a new run wrote it again) is read again from its start.
        const std::size_t before = events.size();
        {
            std::ofstream(logs / "rank0.log", std::ios::binary | std::ios::trunc)
                << bytes.substr(0, bytes.size() / 2);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        collect();
        QVERIFY(events.size() > before);
    }

    void cliFollowsTheTraceBesideTheCache() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path cache = base / "cache";
        const fs::path logs = base / "trace";
        fs::create_directories(cache);
        fs::create_directories(logs);
        const std::string bytes = bytes_of(test::fixture(kTraceLog.string()));
        const auto finished = trace::parse_trace_log(bytes, "log");
        QProcess watch;
        watch.start(test::cli_path(),
                    {"watch", QString::fromStdString(cache.string()), "--trace",
                     QString::fromStdString(logs.string()), "--seconds", "5", "--json-lines"});
        QVERIFY(watch.waitForStarted());
        QVERIFY(watch.waitForReadyRead(10000));
        append_in_pieces(logs / "run.log", bytes, 11);
        QVERIFY(watch.waitForFinished(30000));
        QCOMPARE(watch.exitCode(), 0);
        int trace_lines = 0;
        for (const auto& line : watch.readAllStandardOutput().trimmed().split('\n')) {
            trace_lines += QJsonDocument::fromJson(line).object()["kind"].toString() == "trace";
        }
        QCOMPARE(trace_lines, static_cast<int>(finished->events.size()));

        // report --follow over the finished log ends where report does.
        const auto followed = test::run_cli(
            {"report", "--follow", QString::fromStdString(logs.string()), "--seconds", "1"});
        QCOMPARE(followed.exit_code, 0);
        const auto once = test::run_cli({"report", QString::fromStdString(logs.string())});
        QCOMPARE(once.exit_code, 0);
        const QByteArray summary = once.out.left(once.out.indexOf('\n'));
        QVERIFY2(followed.out.trimmed().endsWith(summary), followed.out.constData());
        QVERIFY2(followed.out.count("\ncompile ") == once.out.count("\ncompile "),
                 followed.out.constData());
        QCOMPARE(test::run_cli({"watch", QString::fromStdString(cache.string()), "--trace",
                                QString::fromStdString((base / "missing").string())})
                     .exit_code,
                 2);
    }

    // Past the watch limit (here a budget of 2 dirs: the root and fxgraph/),
    // the shard dirs are scanned instead: the graphs still come, each once.
    void dirsPastTheWatchLimitAreScanned() {
        QTemporaryDir dir;
        const fs::path cache = fs::path(dir.path().toStdString()) / "cache";
        for (const auto& key : {kFloat32, kFloat16}) {
            fs::create_directories(cache / "fxgraph" / key.substr(1, 2));
        }
        auto watch = CacheWatch::start(cache);
        QVERIFY_RESULT(watch);
        auto watcher = DirWatcher::open(cache, 2);
        QVERIFY_RESULT(watcher);
        (*watcher)->set_scan_interval(std::chrono::milliseconds(100));
        QCOMPARE((*watcher)->watched_dirs(), std::size_t{2});
        QVERIFY((*watcher)->limit_note().has_value());
        QVERIFY2((*watcher)->limit_note()->contains("the 2 past it are looked at every 10 s"),
                 (*watcher)->limit_note()->c_str());
        write_fx_graph(cache, kFloat32);
        write_fx_graph(cache, kFloat16);
        std::vector<WatchEvent> events;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (events.size() < 2 && std::chrono::steady_clock::now() < deadline) {
            auto changed = (*watcher)->wait(std::chrono::milliseconds(50));
            QVERIFY_RESULT(changed);
            for (auto& event : watch->events_for(*changed)) {
                events.push_back(std::move(event));
            }
        }
        QCOMPARE(events.size(), std::size_t{2});
        QCOMPARE(events[0].key, kFloat32);
        QCOMPARE(events[1].key, kFloat16);
        QVERIFY(events[1].recompile);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        auto rest = (*watcher)->wait(std::chrono::milliseconds(50));
        QVERIFY_RESULT(rest);
        QVERIFY(watch->events_for(*rest).empty()); // each once
    }

    void whatIsThereIsNotReported() {
        QTemporaryDir dir;
        const fs::path cache = fs::path(dir.path().toStdString()) / "cache";
        test::copy_tree(test::fixture(kCache.string()), cache);
        // Written a minute ago, as a cache is before a run starts (entries
        // written in the same clock tick as the start may be reported again).
        test::age_files(cache, std::chrono::seconds(60));
        auto watch = CacheWatch::start(cache);
        QVERIFY_RESULT(watch);
        std::vector<std::string> every;
        for (const auto& file : fs::recursive_directory_iterator(cache)) {
            if (file.is_regular_file()) {
                every.push_back(file.path().lexically_relative(cache).generic_string());
            }
        }
        QVERIFY(watch->events_for(every).empty());
        QVERIFY(!DirWatcher::open(cache / "missing"));
    }
};

QTEST_GUILESS_MAIN(TestWatch)
#include "tst_watch.moc"
