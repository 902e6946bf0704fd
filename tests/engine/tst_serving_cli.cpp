// The vLLM workflow end to end through the CLI, on trees laid out as vLLM
// writes them (serving_trees.h): scan says what the tree is and finds no
// unknown file, show lists the piecewise graphs, why names the factor that
// made a new dir, verify fails a hostile tree, preflight compares factors,
// pack on one machine and unpack on another (refused when signed by another
// key; killed with SIGKILL at random points it leaves the hash dir whole or
// absent), prune goes by whole hash dirs. Bad arguments exit 2.

#include "serving_trees.h"
#include "test_paths.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <map>

using namespace cachelens;
namespace fixture = cachelens::test::serving_fixture;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& path) {
    return QString::fromStdString(path.string());
}

} // namespace

class TestServingCli : public QObject {
    Q_OBJECT

private slots:
    void scanShowWhyVerify() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        const std::string flash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        const std::string infer = fixture::vllm_ranges(root, fixture::vllm_env("FLASHINFER"));

        const auto scan = test::run_cli({"scan", q(root)});
        QCOMPARE(scan.exit_code, 0);
        QVERIFY2(scan.out.contains("vLLM compile cache: 2 cache dirs, 2 ranks, prefix backbone; "
                                   "8 piecewise graphs, 8 linked to artifacts"),
                 scan.out.constData());
        QVERIFY(scan.out.contains("serving_index"));
        QVERIFY(!scan.out.contains("unknown"));
        const auto json = test::run_cli({"scan", q(root), "--json"});
        const auto document = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(document["layout"].toString(), QString("vllm"));
        QVERIFY(!document["kinds"].toObject().contains("unknown"));

        const auto show = test::run_cli({"show", q(root), QString::fromStdString(infer)});
        QCOMPARE(show.exit_code, 0);
        QVERIFY2(show.out.contains(QByteArray::fromStdString(infer + "/rank_0_0/backbone: 4 "
                                                                     "piecewise graphs, 4 linked")),
                 show.out.constData());
        QVERIFY(show.out.contains("(1, 8192)"));
        QVERIFY(show.out.contains("artifact_compile_range_16_16_subgraph_1"));
        QVERIFY(show.out.contains("VLLM_ATTENTION_BACKEND = \"FLASHINFER\""));
        const auto show_json =
            test::run_cli({"show", q(root / infer / "rank_0_0/backbone"), "--json"});
        QCOMPARE(show_json.exit_code, 0);
        const auto prefixes = QJsonDocument::fromJson(show_json.out).object()["prefixes"].toArray();
        QCOMPARE(prefixes.size(), 1);
        QCOMPARE(prefixes[0].toObject()["graphs"].toArray().size(), 4);
        QCOMPARE(prefixes[0].toObject()["factors"].toObject()["dir_name"].toString(),
                 QString::fromStdString(infer));
        const auto wrong =
            test::run_cli({"show", q(root), QString::fromStdString(infer) + "/rank_9_9"});
        QCOMPARE(wrong.exit_code, 2);
        QVERIFY2(wrong.err.contains("no rank dir 'rank_9_9'"), wrong.err.constData());

        const auto why = test::run_cli({"why", q(root / infer)});
        QCOMPARE(why.exit_code, 0);
        QVERIFY2(why.out.startsWith("vLLM made a new cache dir because env VLLM_ATTENTION_BACKEND "
                                    "changed (FLASH_ATTN -> FLASHINFER)\n"),
                 why.out.constData());
        const auto against =
            test::run_cli({"why", q(root / flash), "--against", q(root / infer), "--json"});
        QCOMPARE(QJsonDocument::fromJson(against.out).object()["changes"].toArray().size(), 1);
        const auto tokens = test::run_cli({"why", q(root / infer), "--tokens", "9000"});
        QCOMPARE(tokens.exit_code, 1);
        QVERIFY2(tokens.out.contains("compiled are (1, 8192), (16, 16)"), tokens.out.constData());
        QCOMPARE(test::run_cli({"why", q(root / infer), "--tokens", "16"}).exit_code, 0);

        QCOMPARE(test::run_cli({"verify", q(root)}).exit_code, 0);
        // A graph whose artifact is gone.
        fs::remove(root / infer / "rank_0_0/backbone/artifact_compile_range_1_8192_subgraph_0");
        const auto broken = test::run_cli({"verify", q(root / infer)});
        QCOMPARE(broken.exit_code, 1);
        QVERIFY2(broken.out.contains("graph 0 for range (1, 8192): its artifact "
                                     "artifact_compile_range_1_8192_subgraph_0 is not in"),
                 broken.out.constData());
    }

    void hostileTextIsEscaped() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        const fs::path prefix = root / "abcdef0123/rank_0_0/backbone";
        test::write_bytes(prefix / "vllm_compile_cache.py",
                          "{((1, 8), 0, 'inductor_standalone'): ('\\x1b]0;pwned\\x07', '/x')}");
        const auto verify = test::run_cli({"verify", q(root)});
        QCOMPARE(verify.exit_code, 1);
        QVERIFY(!verify.out.contains('\x1b'));
        QVERIFY2(verify.out.contains("never followed"), verify.out.constData());
    }

    void preflightComparesFactors() {
        QTemporaryDir here;
        QTemporaryDir there;
        const fs::path source = fs::path(here.path().toStdString()) / "torch_compile_cache";
        const fs::path target = fs::path(there.path().toStdString()) / "torch_compile_cache";
        const std::string mine = fixture::vllm_ranges(source, fixture::vllm_env("FLASH_ATTN"));
        const std::string theirs = fixture::vllm_ranges(target, fixture::vllm_env("FLASHINFER"));
        // The inner FX entries (the unpacked artifact's) tell the machine: the same.
        const auto differ =
            test::run_cli({"preflight", q(source / mine), "--target", q(target / theirs)});
        QCOMPARE(differ.exit_code, 1);
        QVERIFY2(
            differ.out.startsWith("vLLM there hashes other factors (env VLLM_ATTENTION_BACKEND "
                                  "changed (FLASH_ATTN -> FLASHINFER)): it makes its own cache "
                                  "dir and never reads " +
                                  QByteArray::fromStdString(mine)),
            differ.out.constData());
        const std::string same = fixture::vllm_ranges(target, fixture::vllm_env("FLASH_ATTN"));
        const auto alike =
            test::run_cli({"preflight", q(source / mine), "--target", q(target / same), "--json"});
        const auto factors =
            QJsonDocument::fromJson(alike.out).object()["serving_factors"].toObject();
        QVERIFY2(factors["answer"].toString().contains("hashes the same factors"),
                 alike.out.constData());
    }

    void packOnOneMachineUnpackOnAnother() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = base / "here" / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        QCOMPARE(test::run_cli({"keygen", "-o", q(base / "ours")}).exit_code, 0);
        QCOMPARE(test::run_cli({"keygen", "-o", q(base / "theirs")}).exit_code, 0);
        const fs::path pack = base / "cache.tar.zst";
        const auto packed =
            test::run_cli({"pack", q(root / hash), "-o", q(pack), "--sign", q(base / "ours.key")});
        QCOMPARE(packed.exit_code, 0);
        QVERIFY2(packed.out.contains("signed by"), packed.out.constData());
        // Half a rank is never packed.
        QCOMPARE(
            test::run_cli({"pack", q(root / hash / "rank_0_0"), "-o", q(base / "x")}).exit_code, 2);
        QCOMPARE(test::run_cli({"pack", q(root / hash), "-o", q(pack)}).exit_code, 2); // exists

        const fs::path there = base / "there" / "torch_compile_cache";
        const auto stranger = test::run_cli(
            {"unpack", q(pack), "--into", q(there), "--require-signature", q(base / "theirs.pub")});
        QCOMPARE(stranger.exit_code, 2);
        QVERIFY(!fs::exists(there / hash));
        const auto dry = test::run_cli({"unpack", q(pack), "--into", q(there), "--dry-run",
                                        "--require-signature", q(base / "ours.pub")});
        QCOMPARE(dry.exit_code, 0);
        QVERIFY2(dry.out.contains("dry run: nothing written"), dry.out.constData());
        QVERIFY(!fs::exists(there / hash));
        const auto unpacked = test::run_cli(
            {"unpack", q(pack), "--into", q(there), "--require-signature", q(base / "ours.pub")});
        QCOMPARE(unpacked.exit_code, 0);
        QVERIFY(fixture::tree_bytes(there / hash) == fixture::tree_bytes(root / hash));
        QCOMPARE(test::run_cli({"verify", q(there)}).exit_code, 0);
        QCOMPARE(
            test::run_cli({"unpack", q(base / "missing.tar.zst"), "--into", q(there)}).exit_code,
            2);
        QCOMPARE(
            test::run_cli({"unpack", q(pack), "--into", q(there), "--allow-code", "F000000000000"})
                .exit_code,
            2); // no such finding: never "nothing allowed"
    }

    // SIGKILL at random points of an unpack: the hash dir is whole or absent,
    // and the next unpack finishes the job (clearing the dead run's staging).
    void killedUnpackLeavesWholeOrNothing() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = base / "here" / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        const fs::path pack = base / "cache.tar.zst";
        QCOMPARE(test::run_cli({"pack", q(root / hash), "-o", q(pack)}).exit_code, 0);
        const auto expected = fixture::tree_bytes(root / hash);
        QElapsedTimer timer;
        timer.start();
        const fs::path probe = base / "probe";
        QCOMPARE(test::run_cli({"unpack", q(pack), "--into", q(probe)}).exit_code, 0);
        const qint64 duration = std::max<qint64>(timer.elapsed(), 50);
        int landed = 0;
        for (int run = 0; run < 12; ++run) {
            const fs::path there = base / ("there" + std::to_string(run));
            QProcess process;
            process.start(test::cli_path(), {"unpack", q(pack), "--into", q(there)});
            QVERIFY(process.waitForStarted());
            QTest::qWait(static_cast<int>(QRandomGenerator::global()->bounded(duration)));
            landed += process.state() == QProcess::Running;
            process.kill();
            process.waitForFinished();
            if (fs::exists(there / hash)) {
                QVERIFY(fixture::tree_bytes(there / hash) == expected);
            }
            const auto again = test::run_cli({"unpack", q(pack), "--into", q(there)});
            QCOMPARE(again.exit_code, 0);
            QVERIFY(fixture::tree_bytes(there / hash) == expected);
            for (const auto& entry : fs::directory_iterator(there)) {
                QVERIFY2(entry.path().filename() == hash, entry.path().c_str()); // no staging left
            }
        }
        qInfo("unpack: 12 kills, %d landed mid-run", landed);
    }

    void indexSearchStatsAcrossServingRoots() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = fixture::vllm_08(base);
        const QString catalog = q(base / "catalog.sqlite");
        QCOMPARE(test::run_cli({"index", q(root), "--catalog", catalog}).exit_code, 0);
        const std::string key = fixture::devset_graphs().front().key;
        const auto found =
            test::run_cli({"search", QString::fromStdString(key), "--catalog", catalog});
        QCOMPARE(found.exit_code, 0);
        QVERIFY2(found.out.contains("d4ec7c2a7d/rank_0_0/inductor_cache/fxgraph/"),
                 found.out.constData());
        const auto stats = test::run_cli({"stats", q(root), "--catalog", catalog});
        QCOMPARE(stats.exit_code, 0);
        QVERIFY2(stats.out.contains("serving_index"), stats.out.constData());
        QVERIFY(stats.out.contains("  vLLM compile cache: 1 cache dir, 1 rank"));
        const auto ls = test::run_cli({"ls", q(root / "d4ec7c2a7d")});
        QCOMPARE(ls.exit_code, 0);
        QVERIFY2(ls.err.startsWith("vLLM compile cache: 1 cache dir, 1 rank"), ls.err.constData());
        QVERIFY(ls.out.contains("serving_index"));
        QVERIFY(!stats.out.contains("unknown"));
    }

    void pruneByWholeHashDirs() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        const std::string a = fixture::vllm_ranges(root, fixture::vllm_env("A"));
        const auto dry = test::run_cli(
            {"prune", q(root), "--max-size", "0", "--keep-recent", "1h", "--dry-run", "--json"});
        QCOMPARE(dry.exit_code, 1); // everything is recent: the limit cannot be met
        const auto plan = QJsonDocument::fromJson(dry.out).object();
        QCOMPARE(plan["dirs"].toArray().size(), 0);
        QCOMPARE(plan["kept"].toArray().size(), 1);
        QVERIFY(plan["kept"].toArray()[0].toObject()["why"].toString().startsWith("written "));
        const auto inside = test::run_cli({"prune", q(root / a), "--max-size", "0"});
        QCOMPARE(inside.exit_code, 2);
        const auto gone =
            test::run_cli({"prune", q(root), "--max-size", "0", "--keep-recent", "0s"});
        QCOMPARE(gone.exit_code, 0);
        QVERIFY(!fs::exists(root / a));
    }
};

QTEST_GUILESS_MAIN(TestServingCli)
#include "tst_serving_cli.moc"
