// `cachelens tune` from the command line, where CI runs it (no GPU, no
// torch): --plan in text and JSON lines, refusals (no GPU, no Python, no
// Triton, an unsafe module, bad arguments) with exit 2 and nothing written,
// and whole runs on the stand-in libcuda with the real compile server run by
// a stand-in Python on a fake kernel module (tests/data/tune); then
// `bench history` and `bench accept` of what the tune found.

#include "test_paths.h"

#include <cachelens/bench/bench_protocol.h>
#include <cachelens/bench/bench_store.h>
#include <cachelens/catalog/catalog.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <sstream>

using namespace cachelens;
namespace fs = std::filesystem;
namespace protocol = bench::protocol;

namespace {

// The records of a --json-lines stream, read with the engine's reader.
std::vector<protocol::Record> records(const QByteArray& out) {
    protocol::StreamReader reader;
    std::vector<protocol::Record> read;
    for (auto& item : reader.feed(std::string_view(out.constData(), out.size()))) {
        if (auto* record = std::get_if<protocol::Record>(&item)) {
            read.push_back(std::move(*record));
        } else {
            return {};
        }
    }
    return read;
}

template <class T>
std::vector<T> all_of(const std::vector<protocol::Record>& read) {
    std::vector<T> out;
    for (const auto& record : read) {
        if (const auto* typed = std::get_if<T>(&record)) {
            out.push_back(*typed);
        }
    }
    return out;
}

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Every file under `root` with its bytes: a cache a command must not touch.
std::map<std::string, std::string> tree(const fs::path& root) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        if (entry.is_regular_file()) {
            files[entry.path().lexically_relative(root).string()] = slurp(entry.path());
        }
    }
    return files;
}

// How many processes have `mark` in their environment (what the stand-in
// Python and its workers inherit from the CLI).
int processes_marked(const std::string& mark) {
    int count = 0;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) {
            continue;
        }
        const std::string environ = slurp(entry.path() / "environ");
        if (environ.find(mark) != std::string::npos) {
            ++count;
        }
    }
    return count;
}

QString stand_in_python() {
    return QString::fromStdString(
        (fs::path(CACHELENS_SOURCE_DIR) / "tests/data/tune/stand-in-python").string());
}

} // namespace

class TestTuneCli : public QObject {
    Q_OBJECT

    QTemporaryDir temp_;
    fs::path cache_;
    fs::path log_;

    // The stand-in driver, the stand-in Python's template (the kernel's own
    // Triton dir), its log.
    QProcessEnvironment environment(const std::string& kernel) const {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("LD_LIBRARY_PATH", CACHELENS_FAKE_CUDA_DIR);
        env.insert("STAND_IN_LOG", QString::fromStdString(log_.string()));
        for (const auto& entry : fs::recursive_directory_iterator(cache_ / "triton")) {
            if (entry.path().filename() == kernel + ".json") {
                env.insert("CACHELENS_FAKE_TRITON_TEMPLATE",
                           QString::fromStdString(entry.path().parent_path().string()));
                break;
            }
        }
        return env;
    }
    QString path(const fs::path& p) const { return QString::fromStdString(p.string()); }

private slots:
    void initTestCase() {
        QVERIFY(temp_.isValid());
        cache_ = fs::path(temp_.path().toStdString()) / "cache";
        log_ = fs::path(temp_.path().toStdString()) / "python.log";
        test::copy_tree(test::fixture("devset/cache"), cache_);
    }

    void planNeedsNoGpuAndNoPython() {
        const auto text = test::run_cli({"tune", path(cache_), "triton_poi_fused_mm_t_2", "--plan",
                                         "--python", "/nonexistent/python"});
        QCOMPARE(text.exit_code, 0);
        QVERIFY(text.out.startsWith("triton_poi_fused_mm_t_2  ("));
        QVERIFY(
            text.out.contains("start: XBLOCK=256, num_warps=4, num_stages=1 (the current best)"));
        QVERIFY(text.out.contains("25 configs listed (2 cached, 23 to compile)"));
        const auto json =
            test::run_cli({"tune", path(cache_), "c4az3bzp", "--plan", "--json-lines"});
        QCOMPARE(json.exit_code, 0);
        const auto read = records(json.out);
        QVERIFY(!read.empty());
        QVERIFY(std::holds_alternative<protocol::Header>(read.front()));
        const auto starts = all_of<protocol::TuneStart>(read);
        QCOMPARE(starts.size(), 1u);
        QCOMPARE(starts[0].kernel, std::string("triton_poi_fused_mm_t_2"));
        QCOMPARE(starts[0].planned, 25u);
        const auto candidates = all_of<protocol::TuneCandidate>(read);
        QCOMPARE(candidates.size(), 25u);
        QVERIFY(candidates[0].is_current_best);
        QCOMPARE(candidates[0].origin, std::string("cached"));
        QCOMPARE(candidates[2].origin, std::string("new"));
        QCOMPARE(candidates[2].config.describe(),
                 std::string("XBLOCK=512, num_warps=4, num_stages=1"));
        const auto grid =
            test::run_cli({"tune", path(cache_), "triton_per_fused_sum_6", "--plan", "--strategy",
                           "grid", "--space", "XBLOCK=8..2048,num_warps=2..8"});
        QCOMPARE(grid.exit_code, 0);
        QVERIFY(grid.out.contains("XBLOCK=1024, 2048 left out: above 512 (size hint x=512)"));
    }

    void badArgumentsAreRefused() {
        const std::vector<std::pair<QStringList, QString>> cases = {
            {{"tune", path(cache_), "triton_poi"}, "names 2 kernels"},
            {{"tune", path(cache_), "nothing_like_it"},
             "no kernel named or keyed 'nothing_like_it'"},
            {{"tune", path(cache_), "triton_per_fused_sum_6", "--strategy", "grid"},
             "--strategy grid needs --space; this kernel's fields: XBLOCK"},
            {{"tune", path(cache_), "triton_per_fused_sum_6", "--strategy", "simplex"},
             "not coordesc, grid or random"},
            {{"tune", path(cache_), "triton_per_fused_sum_6", "--budget", "soon"}, "--budget soon"},
            {{"tune", path(cache_), "triton_per_fused_sum_6", "--space", "XBLOCK=8"},
             "--space is for --strategy grid or random"},
            {{"tune", path(cache_ / "nowhere"), "k"}, "nowhere"},
            {{"tune", path(cache_)}, "tune needs a cache dir and a kernel"},
        };
        for (const auto& [args, words] : cases) {
            const auto run = test::run_cli(args);
            QCOMPARE(run.exit_code, 2);
            QVERIFY2(run.err.contains(words.toUtf8()), run.err.constData());
        }
    }

    void withoutADriverNothingRunsOrIsRecorded() {
        const fs::path catalog = fs::path(temp_.path().toStdString()) / "nodriver.sqlite";
        fs::remove(log_);
        const auto run =
            test::run_cli({"tune", path(cache_), "triton_poi_fused_mm_t_2", "--json-lines",
                           "--catalog", path(catalog), "--python", stand_in_python()});
        if (!run.err.contains("no CUDA driver")) {
            QSKIP("this machine has a CUDA driver");
        }
        QCOMPARE(run.exit_code, 2);
        const auto read = records(run.out);
        QCOMPARE(all_of<protocol::Failure>(read).size(), 1u);
        QVERIFY(!fs::exists(log_)); // Python is not started before the GPU is known
    }

    void missingPythonOrTritonIsNamed() {
        const fs::path catalog = fs::path(temp_.path().toStdString()) / "nopython.sqlite";
        auto env = environment("triton_poi_fused_mm_t_2");
        const auto none =
            test::run_cli({"tune", path(cache_), "triton_poi_fused_mm_t_2", "--catalog",
                           path(catalog), "--python", "/nonexistent/python3"},
                          env);
        QCOMPARE(none.exit_code, 2);
        QVERIFY2(none.err.contains("/nonexistent/python3"), none.err.constData());
        // A Python whose triton is a plain module without Config: "no-triton".
        const fs::path shadow = fs::path(temp_.path().toStdString()) / "shadow";
        test::write_bytes(shadow / "triton.py", "raise ImportError('no triton here')\n");
        env.insert("STAND_IN_PYTHONPATH", path(shadow));
        // The shadow comes after fake_python: put it first instead.
        test::write_bytes(shadow / "run.sh",
                          "#!/bin/bash\nPYTHONPATH=" + shadow.string() + " exec python3 \"$@\"\n");
        fs::permissions(shadow / "run.sh", fs::perms::owner_all);
        const auto no_triton =
            test::run_cli({"tune", path(cache_), "triton_poi_fused_mm_t_2", "--catalog",
                           path(catalog), "--python", path(shadow / "run.sh")},
                          env);
        QCOMPARE(no_triton.exit_code, 2);
        QVERIFY2(no_triton.err.contains("triton") || no_triton.err.contains("torch"),
                 no_triton.err.constData());
    }

    void anUnsafeModuleIsNeverHandedToPython() {
        const fs::path dir = fs::path(temp_.path().toStdString()) / "unsafe";
        test::copy_tree(cache_, dir);
        const fs::path module = dir / "4a/c4az3bzplssfvyosqdizom3fkaxg4ecmepfkginzio75y43sii43.py";
        std::string text = slurp(module);
        text.insert(0, "import os\nos.system('touch /tmp/cachelens-tune-pwned')\n");
        test::write_bytes(module, text);
        fs::remove(log_);
        const auto run = test::run_cli({"tune", path(dir), "triton_poi_fused_mm_t_2", "--catalog",
                                        path(dir.parent_path() / "unsafe.sqlite"), "--python",
                                        stand_in_python()},
                                       environment("triton_poi_fused_mm_t_2"));
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.contains("refusing to hand this module to Python"), run.err.constData());
        QVERIFY(!fs::exists(log_));
        QVERIFY(!fs::exists("/tmp/cachelens-tune-pwned"));
    }

    void aRunCompilesTimesRecordsAndAnswersFirst() {
        const fs::path catalog = fs::path(temp_.path().toStdString()) / "data" / "catalog.sqlite";
        const auto before = tree(cache_);
        const auto run = test::run_cli({"tune", path(cache_), "triton_poi_fused_mm_t_2",
                                        "--catalog", path(catalog), "--python", stand_in_python(),
                                        "--workers", "2", "--compile-timeout", "5"},
                                       environment("triton_poi_fused_mm_t_2"));
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QString first = QString::fromUtf8(run.out.split('\n').front());
        QVERIFY2(first.startsWith("triton_poi_fused_mm_t_2: XBLOCK=2048, num_warps=1, num_stages=1 "
                                  "is "),
                 qPrintable(first));
        QVERIFY2(first.contains("faster than the cached best (30 of 30 paired rounds agree)") &&
                     first.contains("3 failed: out of shared memory"),
                 qPrintable(first));
        QVERIFY(run.out.contains("to keep it: cachelens bench accept triton_poi_fused_mm_t_2 "));
        QVERIFY(run.out.contains(
            "XBLOCK=2048, num_warps=1, num_stages=1  (40 registers per thread, no spills)"));
        // The user's cache is as it was; compiles went beside the catalog.
        QVERIFY(tree(cache_) == before);
        QVERIFY(fs::exists(catalog.parent_path() / "tune" /
                           "c4az3bzplssfvyosqdizom3fkaxg4ecmepfkginzio75y43sii43" / "triton"));
        auto opened = catalog::Catalog::open(catalog);
        QVERIFY_RESULT(opened);
        auto history = bench::kernel_history(*opened, "triton_poi_fused_mm_t_2");
        QVERIFY_RESULT(history);
        QCOMPARE(history->front().kind, std::string("tune"));
        QCOMPARE(history->front().strategy, std::string("coordesc"));
        std::size_t fresh = 0;
        std::size_t resources = 0;
        for (const auto& row : *history) {
            fresh += row.result.origin == "new" ? 1 : 0;
            resources += row.result.status == "resources" ? 1 : 0;
        }
        QCOMPARE(resources, 3u);
        QVERIFY(fresh > 10);
        const auto shown = test::run_cli(
            {"bench", "history", "triton_poi_fused_mm_t_2", "--catalog", path(catalog)});
        QVERIFY(shown.out.contains("(tune coordesc)"));
        QVERIFY(shown.out.contains("\n  + "));

        // The same as records, in order: header, tune_start, ..., tune_end last.
        const auto json = test::run_cli({"tune", path(cache_), "triton_poi_fused_mm_t_2",
                                         "--json-lines", "--catalog", path(catalog), "--python",
                                         stand_in_python(), "--budget", "8"},
                                        environment("triton_poi_fused_mm_t_2"));
        QCOMPARE(json.exit_code, 0);
        const auto read = records(json.out);
        QVERIFY(read.size() > 3);
        QVERIFY(std::holds_alternative<protocol::TuneStart>(read[1]));
        QVERIFY(std::holds_alternative<protocol::TuneEnd>(read.back()));
        const auto end = std::get<protocol::TuneEnd>(read.back());
        QCOMPARE(end.ended, std::string("budget"));
        QCOMPARE(end.tried, 8u);
        QVERIFY(end.answer.find("the budget (600 s or 8 configs) ended the search") ==
                    std::string::npos &&
                end.answer.find("the budget (8 configs) ended the search") != std::string::npos);
        const auto results = all_of<protocol::Result>(read);
        QCOMPARE(results.size(), 8u);
        QCOMPARE(results[0].result.origin, std::string("cached"));
        // What the driver said of each loaded kernel (the stand-in: 40 registers, no spills).
        QCOMPARE(results[0].result.registers.value_or(-1), 40);
        QCOMPARE(results[0].result.local_bytes.value_or(-1), 0);
        QVERIFY(!all_of<protocol::Compiled>(read).empty());
    }

    // Ctrl-C (what the GUI's Stop sends): the search ends, what was measured
    // is recorded and answered, the compile server and its workers go.
    void ctrlCStopsTheSearchAndKeepsWhatWasMeasured() {
        const fs::path catalog = fs::path(temp_.path().toStdString()) / "stop" / "catalog.sqlite";
        auto env = environment("triton_poi_fused_mm_t_2");
        env.insert("CACHELENS_FAKE_COMPILE_SECONDS", "30");
        env.insert("CACHELENS_CLI_TEST_MARK", "stop-test");
        QProcess cli;
        cli.setProcessEnvironment(env);
        cli.start(QString::fromLocal8Bit(qgetenv("CACHELENS_CLI")),
                  {"tune", path(cache_), "triton_poi_fused_mm_t_2", "--json-lines", "--catalog",
                   path(catalog), "--python", stand_in_python(), "--workers", "2"});
        QVERIFY(cli.waitForStarted());
        QByteArray out;
        // Both cached configs timed: the search is waiting on a compile.
        QTRY_VERIFY_WITH_TIMEOUT(
            (out += cli.readAllStandardOutput()).count("\"event\":\"result\"") >= 2, 20000);
        QTest::qWait(300);
        ::kill(static_cast<pid_t>(cli.processId()), SIGINT);
        QVERIFY(cli.waitForFinished(15000));
        out += cli.readAllStandardOutput();
        QCOMPARE(cli.exitCode(), 130);
        const auto read = records(out);
        QVERIFY(!read.empty());
        QVERIFY2(std::holds_alternative<protocol::TuneEnd>(read.back()), out.constData());
        const auto end = std::get<protocol::TuneEnd>(read.back());
        QCOMPARE(end.ended, std::string("stopped"));
        QVERIFY(end.answer.find("stopped before the search ended") != std::string::npos);
        QVERIFY(end.run_id > 0);
        // No compile server or worker outlives the command.
        QTRY_VERIFY_WITH_TIMEOUT(processes_marked("CACHELENS_CLI_TEST_MARK=stop-test") == 0, 5000);
    }

    void acceptOfAnExploredConfigFollowsWhatPyTorchHonours() {
        const fs::path catalog = fs::path(temp_.path().toStdString()) / "accept" / "catalog.sqlite";
        // Coordinate descent off: refused, nothing written, the way out named.
        const auto tuned =
            test::run_cli({"tune", path(cache_), "triton_poi_fused_mm_t_2", "--json-lines",
                           "--catalog", path(catalog), "--python", stand_in_python()},
                          environment("triton_poi_fused_mm_t_2"));
        QCOMPARE(tuned.exit_code, 0);
        auto read = records(tuned.out);
        std::string hash;
        for (const auto& result : all_of<protocol::Result>(read)) {
            if (result.result.origin == "new" && result.result.status == "ok") {
                hash = result.result.triton_hash.substr(0, 12);
            }
        }
        QVERIFY(!hash.empty());
        const fs::path off = fs::path(temp_.path().toStdString()) / "off";
        test::copy_tree(cache_, off);
        const auto before = tree(off);
        const auto refused = test::run_cli({"bench", "accept", "triton_poi_fused_mm_t_2",
                                            QString::fromStdString(hash), "--dir", path(off),
                                            "--catalog", path(catalog)},
                                           environment("triton_poi_fused_mm_t_2"));
        QCOMPARE(refused.exit_code, 2);
        QVERIFY2(refused.err.contains("compiled with coordinate_descent_tuning off") &&
                     refused.err.contains("TORCHINDUCTOR_COORDINATE_DESCENT_TUNING=1"),
                 refused.err.constData());
        QVERIFY(tree(off) == before);

        // Coordinate descent on: written, found_by_coordesc true, what PyTorch does said.
        const std::string kernel = "triton_red_fused_mul_sqrt_sum_0";
        const auto on_run = test::run_cli({"tune", path(cache_), QString::fromStdString(kernel),
                                           "--json-lines", "--catalog", path(catalog), "--python",
                                           stand_in_python(), "--budget", "12"},
                                          environment(kernel));
        QCOMPARE(on_run.exit_code, 0);
        const auto end = std::get<protocol::TuneEnd>(records(on_run.out).back());
        QVERIFY(end.faster);
        std::string winner;
        for (const auto& result : all_of<protocol::Result>(records(on_run.out))) {
            if (cachedir::same_config(result.result.config, end.best_config)) {
                winner = result.result.triton_hash.substr(0, 12);
            }
        }
        const fs::path on = fs::path(temp_.path().toStdString()) / "on";
        test::copy_tree(cache_, on);
        const auto accepted = test::run_cli({"bench", "accept", QString::fromStdString(kernel),
                                             QString::fromStdString(winner), "--dir", path(on),
                                             "--catalog", path(catalog)},
                                            environment(kernel));
        QVERIFY2(accepted.exit_code == 0, accepted.err.constData());
        QVERIFY(accepted.out.contains("with coordinate_descent_tuning starts its search here"));
        const std::string written = slurp(
            on / "2c/1d478d3f71f84b06d156f2b3d8b027fb6d1f8b2d5491a0dc74571852450c7051.best_config");
        QVERIFY2(written.find("\"found_by_coordesc\": true") != std::string::npos, written.c_str());
        QVERIFY(written.find(end.best_config.kwargs.front().first) != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTuneCli)
#include "tst_tune_cli.moc"
