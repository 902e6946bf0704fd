// Watching a cache dir fill (watch/cache_watch.h): a writer thread copies real
// PyTorch 2.11 entries into an empty dir in PyTorch's write order — each file
// under a temp name then renamed (write_atomic), the Triton kernel's files in
// a tmp.* staging dir renamed into place, the graph after its kernels — while
// the watcher runs. Every entry is reported once, in the order it completed,
// nothing half-written is read, and a graph compiled again at another dtype
// is a recompile with that cause.

#include "test_paths.h"

#include <cachelens/watch/cache_watch.h>

#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <thread>

using namespace cachelens;
using namespace cachelens::watch;
namespace fs = std::filesystem;

namespace {

const fs::path kCache = "devset/cache";
// The devset compiled one graph at float32 and again at float16.
const std::string kFloat32 = "fajgubgjoc7472fanbq4v7toa3fipqcxuw5brgm2dgofcoq3dily";
const std::string kFloat16 = "fcblktfdhj2nw664pzoe6ceizrqj2gonbqakerkx6hbjkiz5g3fa";

// write_atomic: a temp name beside the file, then a rename.
void write_atomic(const fs::path& from, const fs::path& to) {
    fs::create_directories(to.parent_path());
    const fs::path temp = to.parent_path() / ("." + to.filename().string() + ".123.456.tmp");
    fs::copy_file(from, temp);
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // a slow writer
    fs::rename(temp, to);
}

void write_fx_graph(const fs::path& cache, const std::string& key) {
    const fs::path dir = test::fixture((kCache / "fxgraph" / key.substr(1, 2) / key).string());
    const fs::path file = fs::directory_iterator(dir)->path();
    write_atomic(file, cache / "fxgraph" / key.substr(1, 2) / key / file.filename());
}

// Triton: the kernel's files into tmp.<random>/, renamed to the hash dir.
void write_triton_kernel(const fs::path& cache, const fs::path& kernel_dir) {
    const fs::path staging = cache / "triton" / "0" / "tmp.pid_123_456";
    fs::create_directories(staging);
    for (const auto& file : fs::directory_iterator(kernel_dir)) {
        fs::copy_file(file.path(), staging / file.path().filename());
    }
    fs::rename(staging, cache / "triton" / "0" / kernel_dir.filename());
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
        const auto summary = QJsonDocument::fromJson(lines[3]).object();
        QCOMPARE(summary["compiles"].toInt(), 2);
        QCOMPARE(summary["causes"].toObject()["dtypes"].toInt(), 1);
        QCOMPARE(test::run_cli({"watch", QString::fromStdString((cache / "missing").string())})
                     .exit_code,
                 2);
    }

    void whatIsThereIsNotReported() {
        QTemporaryDir dir;
        const fs::path cache = fs::path(dir.path().toStdString()) / "cache";
        test::copy_tree(test::fixture(kCache.string()), cache);
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
