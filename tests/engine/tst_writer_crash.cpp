// The commands that write one file (or one key pair) killed (SIGKILL) at
// random moments: `export`, `keygen`, `pack` and `bench accept`. Each leaves
// its file as it was or whole — never half written — and nothing under
// another visible name: only its hidden temp file (`.<name>.<pid>.tmp`, as
// PyTorch's write_atomic leaves one), which holds a private key only with
// mode 0600. Every other run is killed as soon as a temp file or a backup
// shows, so that kills land between a write and its rename, which a random
// delay seldom hits. (import, pull, unpack, index and prune have theirs in
// tst_import_crash, tst_serving_cli and tst_catalog_crash.)

#include "serving_trees.h"
#include "test_paths.h"

#include <cachelens/bundle/signing.h>

#include <sys/stat.h>

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

using namespace cachelens;
namespace fixture = cachelens::test::serving_fixture;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& path) {
    return QString::fromStdString(path.string());
}

std::string bytes_of(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

bool is_temp_name(const std::string& name) {
    return name.starts_with('.') && name.ends_with(".tmp");
}

// The names directly in `dir`, sorted.
std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool any_temp_in(const fs::path& dir) {
    std::error_code error;
    for (auto it = fs::directory_iterator(dir, error); !error && it != fs::directory_iterator();
         it.increment(error)) {
        if (is_temp_name(it->path().filename().string())) {
            return true;
        }
    }
    return false;
}

struct KillTally {
    int kills = 0;
    int landed = 0; // the process was still running when killed
    int temps = 0;  // ... and had left a temp file
};

// Runs the CLI with `arguments` and kills it: after a random delay up to
// `duration_ms` on even runs, or, on odd runs, as soon as `started_writing()`
// holds. An uninterrupted run must succeed.
void run_and_kill(int run, const QStringList& arguments, const QProcessEnvironment& environment,
                  std::mt19937& random, qint64 duration_ms,
                  const std::function<bool()>& started_writing, KillTally& tally) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(test::cli_path(), arguments);
    QVERIFY(process.waitForStarted());
    if (run % 2 == 1) {
        while (!started_writing() && !process.waitForFinished(0)) {
        }
    } else {
        process.waitForFinished(
            static_cast<int>(std::uniform_int_distribution<qint64>(0, duration_ms)(random)));
    }
    ++tally.kills;
    if (process.state() != QProcess::NotRunning) {
        process.kill();
        QVERIFY(process.waitForFinished());
    }
    if (process.exitStatus() == QProcess::CrashExit) {
        ++tally.landed;
    } else {
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    }
}

void report(const char* what, const KillTally& tally) {
    qInfo("%s: %d kills, %d landed mid-run, %d of them left a temp file", what, tally.kills,
          tally.landed, tally.temps);
}

// Every name in `dir` is one of `allowed` or a hidden temp file.
void check_only(const fs::path& dir, const std::vector<std::string>& allowed, KillTally& tally,
                bool landed) {
    bool temp = false;
    for (const auto& name : names_in(dir)) {
        if (is_temp_name(name)) {
            temp = true;
            continue;
        }
        QVERIFY2(std::ranges::find(allowed, name) != allowed.end(),
                 qPrintable(QString("left a file under another name: ") + name.c_str()));
    }
    tally.temps += landed && temp;
}

std::mt19937 random_for(const char* test) {
    return std::mt19937(static_cast<unsigned>(std::hash<std::string>{}(test)));
}

} // namespace

class TestWriterCrash : public QObject {
    Q_OBJECT

private slots:
    // `export -o FILE` over an older bundle: FILE is the old bundle or the
    // whole new one, byte for byte.
    void killedExportLeavesTheOldBundleOrTheNew() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path base = temp.path().toStdString();
        // Three copies of the devset cache under fresh keys: an export long enough to land in.
        QProcess maker;
        maker.start("python3", {CACHELENS_SYNTHETIC_BUNDLE_SCRIPT, q(test::fixture("devset/cache")),
                                q(base / "synthetic.bin"), "--copies", "3"});
        QVERIFY(maker.waitForFinished(120000) && maker.exitCode() == 0);
        const fs::path cache = base / "cache";
        QCOMPARE(test::run_cli({"import", q(base / "synthetic.bin"), "--into", q(cache)}).exit_code,
                 0);
        const fs::path out_dir = base / "out";
        fs::create_directories(out_dir);
        const fs::path out = out_dir / "bundle.bin";
        QCOMPARE(
            test::run_cli({"export", q(test::fixture("devset/cache")), "-o", q(out)}).exit_code, 0);
        const std::string old_bundle = bytes_of(out);
        QElapsedTimer timer;
        timer.start();
        const QStringList arguments = {"export", q(cache), "-o", q(out)};
        QCOMPARE(test::run_cli(arguments).exit_code, 0);
        const qint64 duration = std::max<qint64>(timer.elapsed(), 20);
        const std::string new_bundle = bytes_of(out);
        QVERIFY(new_bundle.size() > 2 * old_bundle.size());
        QCOMPARE(test::run_cli(arguments).exit_code, 0);
        QVERIFY2(bytes_of(out) == new_bundle, "export writes the same bytes every time");

        auto random = random_for("export");
        KillTally tally;
        for (int run = 0; run < 10; ++run) {
            write_bytes(out, old_bundle);
            run_and_kill(
                run, arguments, QProcessEnvironment::systemEnvironment(), random, duration,
                [&] { return any_temp_in(out_dir); }, tally);
            const std::string now = bytes_of(out);
            QVERIFY2(now == old_bundle || now == new_bundle,
                     qPrintable(QString("run %1: the bundle holds %2 bytes, neither the old "
                                        "bundle nor the new one")
                                    .arg(run)
                                    .arg(now.size())));
            check_only(out_dir, {"bundle.bin"}, tally, true);
        }
        report("export", tally);
        QVERIFY2(tally.landed > 0, "no kill landed before the export finished");
        QCOMPARE(test::run_cli(arguments).exit_code, 0);
        QVERIFY(bytes_of(out) == new_bundle);
    }

    // `keygen`: both keys (a pair), the public one alone, or neither; a temp
    // file holding the private key is readable by its owner only.
    void killedKeygenLeavesAPairOrNothingSecret() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path dir = temp.path().toStdString();
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(test::run_cli({"keygen", "-o", q(dir / "probe")}).exit_code, 0);
        const qint64 duration = std::max<qint64>(timer.elapsed(), 5);
        auto random = random_for("keygen");
        KillTally tally;
        int pairs = 0;
        int public_only = 0;
        for (int run = 0; run < 16; ++run) {
            const std::string prefix = "k" + std::to_string(run);
            run_and_kill(
                run, {"keygen", "-o", q(dir / prefix)}, QProcessEnvironment::systemEnvironment(),
                random, duration, [&] { return any_temp_in(dir); }, tally);
            const fs::path key = dir / (prefix + ".key");
            const fs::path pub = dir / (prefix + ".pub");
            if (fs::exists(key)) {
                QVERIFY2(fs::exists(pub), "a private key without its public key");
                auto private_key = bundle::load_private_key(key);
                auto public_key = bundle::load_public_key(pub);
                QVERIFY(private_key && public_key);
                QVERIFY(private_key->public_key() == *public_key);
                ++pairs;
            } else if (fs::exists(pub)) {
                QVERIFY(bundle::load_public_key(pub).has_value());
                ++public_only;
            }
            bool temp_left = false;
            for (const auto& name : names_in(dir)) {
                if (!is_temp_name(name)) {
                    continue;
                }
                temp_left = true;
                if (bytes_of(dir / name).find("PRIVATE KEY") != std::string::npos) {
                    struct stat info {};
                    QCOMPARE(::stat((dir / name).c_str(), &info), 0);
                    QVERIFY2((info.st_mode & 077) == 0, "a temp file with the private key is "
                                                        "readable by others");
                }
                fs::remove(dir / name); // the next run's check is its own
            }
            tally.temps += temp_left;
        }
        report("keygen", tally);
        qInfo("keygen: %d pairs, %d public keys alone", pairs, public_only);
        QVERIFY2(tally.landed > 0, "no kill landed before keygen finished");
    }

    // `pack -o FILE`: no FILE, or a whole archive that unpacks.
    void killedPackLeavesNoArchiveOrAWholeOne() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path base = temp.path().toStdString();
        const fs::path root = base / "tree" / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(test::run_cli({"pack", q(root / hash), "-o", q(base / "probe.tar.zst")}).exit_code,
                 0);
        const qint64 duration = std::max<qint64>(timer.elapsed(), 20);
        auto random = random_for("pack");
        KillTally tally;
        int whole = 0;
        for (int run = 0; run < 10; ++run) {
            const fs::path out_dir = base / ("out" + std::to_string(run));
            fs::create_directories(out_dir);
            const std::string name = "cache.tar.zst";
            const fs::path out = out_dir / name;
            run_and_kill(
                run, {"pack", q(root / hash), "-o", q(out)},
                QProcessEnvironment::systemEnvironment(), random, duration,
                [&] { return any_temp_in(out_dir); }, tally);
            check_only(out_dir, {name}, tally, true);
            if (fs::exists(out)) { // the kill came after the rename: the archive is whole
                const fs::path there = base / ("there" + std::to_string(run));
                const auto unpacked = test::run_cli({"unpack", q(out), "--into", q(there)});
                QVERIFY2(unpacked.exit_code == 0, unpacked.err.constData());
                QVERIFY(fixture::tree_bytes(there / hash) == fixture::tree_bytes(root / hash));
                ++whole;
            }
        }
        report("pack", tally);
        qInfo("pack: %d archives whole after the kill", whole);
        QVERIFY2(tally.landed > 0, "no kill landed before pack finished");
    }

    // `bench accept` (stand-in GPU): the best_config as it was or as the
    // accept writes it, and every backup the old bytes.
    void killedAcceptLeavesTheOldConfigOrTheNew() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path base = temp.path().toStdString();
        const fs::path dir = base / "cache";
        test::copy_tree(test::fixture("devset/cache"), dir);
        const fs::path shard = dir / "a6";
        const fs::path best_config =
            shard / "b92708b62fd19dab503567221d57ffcf4683baeb6b435fd5cc876b684c8e862a.best_config";
        const std::string before = bytes_of(best_config);
        QProcessEnvironment gpu = QProcessEnvironment::systemEnvironment();
        gpu.insert("LD_LIBRARY_PATH", CACHELENS_FAKE_CUDA_DIR);
        const QStringList arguments = {"bench",
                                       "accept",
                                       "triton_per_fused__log_softmax_prepare_softmax_online_sub_1",
                                       "e07be71b",
                                       "--dir",
                                       q(dir),
                                       "--catalog",
                                       q(base / "catalog.sqlite")};
        QElapsedTimer timer;
        timer.start();
        const auto accepted = test::run_cli(arguments, gpu);
        QVERIFY2(accepted.exit_code == 0, accepted.err.constData());
        const qint64 duration = std::max<qint64>(timer.elapsed(), 20);
        const std::string after = bytes_of(best_config);
        QVERIFY(after != before && after.find("\"XBLOCK\": 32") != std::string::npos);
        const auto backups = [&] {
            std::vector<fs::path> found;
            // The backups under their names (a backup being written is a
            // hidden temp file until it is whole, like any other).
            for (const auto& entry : fs::directory_iterator(shard)) {
                const std::string name = entry.path().filename().string();
                if (name.find(".cachelens-backup-") != std::string::npos && !is_temp_name(name)) {
                    found.push_back(entry.path());
                }
            }
            return found;
        };
        const std::size_t first_backups = backups().size();

        auto random = random_for("accept");
        KillTally tally;
        for (int run = 0; run < 8; ++run) {
            write_bytes(best_config, before);
            const std::size_t known = backups().size();
            run_and_kill(
                run, arguments, gpu, random, duration,
                [&] { return any_temp_in(shard) || backups().size() > known; }, tally);
            const std::string now = bytes_of(best_config);
            QVERIFY2(now == before || now == after,
                     qPrintable(QString("run %1: the best_config is neither the old one nor "
                                        "the accepted one:\n%2")
                                    .arg(run)
                                    .arg(now.c_str())));
            for (const auto& backup : backups()) {
                QVERIFY2(bytes_of(backup) == before, backup.c_str());
            }
            bool temp_left = false;
            for (const auto& name : names_in(shard)) {
                temp_left |= is_temp_name(name);
            }
            tally.temps += temp_left;
        }
        report("bench accept", tally);
        qInfo("bench accept: %zu backups made by the killed runs",
              backups().size() - first_backups);
        QVERIFY2(tally.landed > 0, "no kill landed before the accept finished");
    }
};

QTEST_GUILESS_MAIN(TestWriterCrash)

#include "tst_writer_crash.moc"
