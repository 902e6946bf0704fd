// Importing a mega-cache bundle. The devset bundle lands exactly where
// PyTorch put it (devset/cache_from_mega: same paths, same bytes), and a
// second import leaves everything alone. Hostile bundles: a key "../../x",
// an absolute key, a symlinked shard dir in the target (before planning and
// swapped in after), a pickle that REDUCEs os.system, content that does not
// parse, a size over the limit, a type cachelens does not place: each is
// refused with its reason, and a walk of the filesystem around the cache
// dir shows nothing written outside it. Every FX and AOT entry of every
// fixture passes the pickle policy (safety/pickle_policy.h).

#include "bundle_helpers.h"
#include "test_paths.h"

#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/mapped_file.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>

using namespace cachelens;
using test::one_artifact;
using test::only;
using test::write_bytes;
namespace fs = std::filesystem;

namespace {

const std::string kFxKey = "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e";
const std::string kBestConfigKey =
    "a6/b92708b62fd19dab503567221d57ffcf4683baeb6b435fd5cc876b684c8e862a.best_config";

bundle::MegaBundle devset_bundle() {
    auto file = MappedFile::open(test::fixture("devset/mega_mlp_train.bin"));
    if (!file) {
        qFatal("%s", file.error().describe().c_str());
    }
    auto decoded = bundle::decode_mega_cache((*file)->bytes());
    if (!decoded) {
        qFatal("%s", decoded.error().describe().c_str());
    }
    return std::move(*decoded);
}

std::string file_bytes(const fs::path& path) {
    const QByteArray bytes = test::read_file(path);
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

// Every path under `root`, relative, symlinks not followed.
std::set<std::string> walk(const fs::path& root) {
    std::set<std::string> paths;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
         ++it) {
        paths.insert(fs::relative(it->path(), root).string());
    }
    return paths;
}

// A pickle (protocol 2) of os.system("id"): what a hostile bundle carries.
const std::string kSystemPickle("\x80\x02"
                                "cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.",
                                31);

bool mentions(const std::vector<std::string>& lines, std::string_view text) {
    return std::ranges::any_of(
        lines, [&](const auto& line) { return line.find(text) != std::string::npos; });
}

QByteArray joined(const std::vector<std::string>& lines) {
    std::string all;
    for (const auto& line : lines) {
        all += line + "\n";
    }
    return QByteArray::fromStdString(all);
}

} // namespace

class TestBundleImport : public QObject {
    Q_OBJECT

private slots:
    void devsetLandsWherePyTorchPutIt() {
        QTemporaryDir temp;
        const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
        const auto bundle = devset_bundle();
        auto plan = bundle::plan_import(bundle, cache);
        QVERIFY_RESULT(plan);
        QVERIFY(plan->creates_cache_dir);
        QCOMPARE(plan->count(bundle::ImportAction::Write), std::size_t{7});
        QVERIFY(!fs::exists(cache)); // planning writes nothing

        const auto done = bundle::run_import(std::move(*plan), bundle);
        QCOMPARE(done.count(bundle::ImportAction::Written), std::size_t{7});
        QVERIFY(done.clean());

        // Exactly the artifacts' files, each byte-identical to what PyTorch
        // wrote when it loaded this bundle; no temp file left behind.
        const fs::path pytorch = test::fixture("devset/cache_from_mega");
        std::set<std::string> files;
        for (const auto& path : walk(cache)) {
            if (fs::is_regular_file(cache / path)) {
                files.insert(path);
                QVERIFY2(fs::exists(pytorch / path), path.c_str());
                QVERIFY2(file_bytes(cache / path) == file_bytes(pytorch / path), path.c_str());
            }
        }
        QCOMPARE(files.size(), std::size_t{7});
        for (const auto& artifact : done.artifacts) {
            QVERIFY(files.contains(artifact.check.destination));
        }
    }

    void secondImportLeavesEverythingAlone() {
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        const auto bundle = devset_bundle();
        bundle::run_import(*bundle::plan_import(bundle, cache), bundle);
        const auto first_time = fs::last_write_time(cache / kBestConfigKey);
        auto again = bundle::plan_import(bundle, cache);
        QVERIFY_RESULT(again);
        QCOMPARE(again->count(bundle::ImportAction::AlreadyPresent), std::size_t{7});
        const auto done = bundle::run_import(std::move(*again), bundle);
        QCOMPARE(done.count(bundle::ImportAction::Written), std::size_t{0});
        QCOMPARE(fs::last_write_time(cache / kBestConfigKey), first_time);
    }

    void otherBytesThereAreAConflictLeftAlone() {
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        write_bytes(cache / kBestConfigKey, "{\"XBLOCK\": 1}");
        const auto bundle = devset_bundle();
        const auto done = bundle::run_import(*bundle::plan_import(bundle, cache), bundle);
        QCOMPARE(done.count(bundle::ImportAction::Conflict), std::size_t{1});
        QCOMPARE(done.count(bundle::ImportAction::Written), std::size_t{6});
        QVERIFY(!done.clean());
        QCOMPARE(file_bytes(cache / kBestConfigKey), std::string("{\"XBLOCK\": 1}"));
        const auto conflict = std::ranges::find(done.artifacts, bundle::ImportAction::Conflict,
                                                &bundle::PlannedArtifact::action);
        QVERIFY(mentions(conflict->notes, "exists with other bytes"));
    }

    void keysThatLeaveTheCacheDirAreRefused_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("reason");
        QTest::newRow("autotune ../../x") << "autotune"
                                          << "../../x"
                                          << "outside the cache dir";
        QTest::newRow("autotune a6/../../x") << "autotune"
                                             << "a6/../../../x.best_config"
                                             << "outside the cache dir";
        QTest::newRow("absolute") << "autotune"
                                  << "/tmp/x.best_config"
                                  << "absolute path";
        QTest::newRow("inductor ../../x") << "inductor"
                                          << "../../x"
                                          << "outside the cache dir";
        QTest::newRow("aot ..") << "aot_autograd"
                                << ".."
                                << "outside the cache dir";
        QTest::newRow("inductor shape") << "inductor"
                                        << "fnotakey"
                                        << "does not look like";
        QTest::newRow("autotune shape") << "autotune"
                                        << "a6/x.best_config"
                                        << "does not look like";
        QTest::newRow("NUL") << "autotune" << QString::fromLatin1("a6/x\0y", 6) << "NUL";
        QTest::newRow("precompile shape") << "precompile"
                                          << "k"
                                          << "does not look like a DynamoCache key";
        QTest::newRow("unknown type") << "torch_function_mode"
                                      << "k"
                                      << "does not import 'torch_function_mode'";
    }

    void keysThatLeaveTheCacheDirAreRefused() {
        QFETCH(QString, type);
        QFETCH(QString, key);
        QFETCH(QString, reason);
        QTemporaryDir temp;
        const fs::path around = temp.path().toStdString();
        const fs::path cache = around / "deep" / "cache";
        fs::create_directories(cache);
        const auto bundle =
            one_artifact(type.toStdString(), key.toStdString(),
                         file_bytes(test::fixture("devset/cache") / kBestConfigKey));
        const auto done = bundle::run_import(*bundle::plan_import(bundle, cache), bundle);
        QCOMPARE(only(done).action, bundle::ImportAction::Refused);
        QVERIFY2(mentions(only(done).check.problems, reason.toStdString()),
                 joined(only(done).check.problems).constData());
        QCOMPARE(walk(around), (std::set<std::string>{"deep", "deep/cache"}));
    }

    void symlinkedShardDirIsRefused() {
        QTemporaryDir temp;
        const fs::path around = temp.path().toStdString();
        const fs::path cache = around / "cache";
        const fs::path outside = around / "outside";
        fs::create_directories(cache);
        fs::create_directories(outside);
        fs::create_directory_symlink(outside, cache / "a6");
        const auto bundle = devset_bundle();
        const auto done = bundle::run_import(*bundle::plan_import(bundle, cache), bundle);
        const auto refused =
            std::ranges::find(done.artifacts, kBestConfigKey, &bundle::PlannedArtifact::key);
        QCOMPARE(refused->action, bundle::ImportAction::Refused);
        QVERIFY2(mentions(refused->check.problems, "symlink"),
                 joined(refused->check.problems).constData());
        QCOMPARE(done.count(bundle::ImportAction::Written), std::size_t{6});
        QVERIFY(fs::is_empty(outside));
    }

    void shardDirSwappedForASymlinkAfterPlanningIsRefused() {
        QTemporaryDir temp;
        const fs::path around = temp.path().toStdString();
        const fs::path cache = around / "cache";
        const fs::path outside = around / "outside";
        fs::create_directories(cache);
        fs::create_directories(outside);
        const auto bundle = devset_bundle();
        auto plan = bundle::plan_import(bundle, cache);
        QVERIFY_RESULT(plan);
        QCOMPARE(plan->count(bundle::ImportAction::Write), std::size_t{7});
        fs::create_directory_symlink(outside, cache / "a6");
        fs::create_directory_symlink(outside, cache / "fxgraph");
        const auto done = bundle::run_import(std::move(*plan), bundle);
        QCOMPARE(done.count(bundle::ImportAction::Refused), std::size_t{3});
        QCOMPARE(done.count(bundle::ImportAction::Written), std::size_t{4});
        QVERIFY(fs::is_empty(outside));
    }

    void picklesNamingForeignGlobalsAreRefused() {
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        for (const char* type : {"inductor", "aot_autograd", "pgo"}) {
            const std::string key = std::string(type) == "inductor" ? kFxKey
                                    : std::string(type) == "pgo"
                                        ? std::string("model.py:1:forward")
                                        : std::string("a") + kFxKey.substr(1);
            const auto bundle = one_artifact(type, key, kSystemPickle);
            const auto done = bundle::run_import(*bundle::plan_import(bundle, cache), bundle);
            QCOMPARE(only(done).action, bundle::ImportAction::Refused);
            const auto& findings = only(done).check.findings;
            QCOMPARE(findings.size(), std::size_t{1});
            QCOMPARE(findings[0].rule, std::string("pickle-call"));
            QVERIFY2(findings[0].text.starts_with("REDUCE os.system("), findings[0].text.c_str());
            QVERIFY(mentions(only(done).check.problems, "os.system is not a class or function"));
        }
        QVERIFY(fs::is_empty(cache));
    }

    void contentThatDoesNotParseIsRefused() {
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        auto bundle = devset_bundle();
        auto& fx = bundle.sections[0].artifacts[0].content;
        fx = std::string(fx.view().substr(0, fx.size() / 2));
        bundle.sections[1].artifacts[0].content = "{not json";
        const auto done = bundle::run_import(*bundle::plan_import(bundle, cache), bundle);
        QCOMPARE(done.artifacts[0].action, bundle::ImportAction::Refused);
        QVERIFY(mentions(done.artifacts[0].check.problems, "does not parse"));
        QCOMPARE(done.artifacts[2].action, bundle::ImportAction::Refused);
        QVERIFY(mentions(done.artifacts[2].check.problems, "not a best_config"));
        QCOMPARE(done.count(bundle::ImportAction::Written), std::size_t{5});
    }

    void anFxEntryUnderAnotherKeyIsRefused() {
        auto bundle = devset_bundle();
        std::swap(bundle.sections[0].artifacts[0].key, bundle.sections[0].artifacts[1].key);
        QTemporaryDir temp;
        auto plan = bundle::plan_import(bundle, temp.path().toStdString());
        QVERIFY_RESULT(plan);
        QCOMPARE(plan->artifacts[0].action, bundle::ImportAction::Refused);
        QVERIFY(mentions(plan->artifacts[0].check.problems, "the entry inside is for key"));
    }

    void sizeLimit() {
        QTemporaryDir temp;
        const auto bundle = devset_bundle();
        auto plan = bundle::plan_import(bundle, temp.path().toStdString(),
                                        {.max_artifact_bytes = 200 * 1024, .trust = {}});
        QVERIFY_RESULT(plan);
        QCOMPARE(plan->count(bundle::ImportAction::Refused), std::size_t{2}); // the FX graphs
        QVERIFY(mentions(plan->artifacts[0].check.problems, "over the limit"));
    }

    void duplicatesInOneBundle() {
        const std::string config = file_bytes(test::fixture("devset/cache") / kBestConfigKey);
        bundle::MegaBundle bundle;
        bundle.sections.push_back({"autotune",
                                   {{kBestConfigKey, config},
                                    {kBestConfigKey, config},
                                    {kBestConfigKey, config + "\n"}}});
        QTemporaryDir temp;
        const auto done =
            bundle::run_import(*bundle::plan_import(bundle, temp.path().toStdString()), bundle);
        QCOMPARE(done.artifacts[0].action, bundle::ImportAction::Written);
        QCOMPARE(done.artifacts[1].action, bundle::ImportAction::AlreadyPresent);
        QCOMPARE(done.artifacts[2].action, bundle::ImportAction::Conflict);
    }

    void pgoGoesWherePyTorchPutsIt() {
        // A dynamo profile: a plain pickled dict (protocol 2), no globals.
        const std::string profile("\x80\x02}q\x00.", 6);
        const auto bundle = one_artifact("pgo", "model.py:12:forward<x>", profile);
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        const auto done = bundle::run_import(*bundle::plan_import(bundle, cache), bundle);
        QCOMPARE(only(done).action, bundle::ImportAction::Written);
        QCOMPARE(only(done).check.destination,
                 std::string("dynamo/code_state_model.py_12_forward_x_.pkl"));
        QCOMPARE(file_bytes(cache / only(done).check.destination), profile);
    }

    // The allowed globals are exactly what real entries need: every FX and
    // AOT entry in every fixture passes, with its parse summary.
    void everyFixtureEntryPassesTheChecks() {
        std::size_t checked = 0;
        for (const char* root :
             {"devset/cache", "devset/cache_from_mega", "multi_dev/cache", "cpu_dev/cache"}) {
            const fs::path cache = test::fixture(root);
            if (!fs::exists(cache)) {
                continue;
            }
            for (const auto& entry : fs::recursive_directory_iterator(cache)) {
                const auto relative = fs::relative(entry.path(), cache);
                const std::string top = relative.begin()->string();
                if (!entry.is_regular_file() || (top != "fxgraph" && top != "aotautograd")) {
                    continue;
                }
                const std::string key = entry.path().parent_path().filename().string();
                const auto check = bundle::check_artifact(
                    top == "fxgraph" ? "inductor" : "aot_autograd", key, file_bytes(entry.path()));
                QVERIFY2(check.problems.empty(),
                         qPrintable(QString::fromStdString(entry.path().string()) + ": " +
                                    joined(check.problems)));
                QCOMPARE(check.destination, relative.string());
                QVERIFY(!check.parses_to.empty());
                ++checked;
            }
        }
        QVERIFY2(checked >= 30, qPrintable(QString::number(checked)));
    }

    void cliDryRunWritesNothing() {
        QTemporaryDir temp;
        const QString cache = temp.path() + "/cache";
        const auto run = test::run_cli(
            {"import", QString::fromStdString(test::fixture("devset/mega_mlp_train.bin").string()),
             "--into", cache, "--dry-run", "--json"});
        QCOMPARE(run.exit_code, 0);
        QVERIFY(!QFile::exists(cache));
        const auto json = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(json["dry_run"].toBool(), true);
        QCOMPARE(json["creates_cache_dir"].toBool(), true);
        QCOMPARE(json["counts"].toObject()["write"].toInt(), 7);
        const auto first = json["artifacts"].toArray()[0].toObject();
        QCOMPARE(first["action"].toString(), QString("write"));
        QVERIFY(first["parses_to"].toString().startsWith("CompiledFxGraph: 2 Triton kernels"));
        QCOMPARE(first["destination"].toString(),
                 QString("fxgraph/lg/") + QString::fromStdString(kFxKey) +
                     "/4uitwgn6erdqhr4khsp7h66twlfllkcat3gom2p4rt4llpf34yx");
    }

    // The dir written into is echoed absolute, before the artifacts, and in
    // the JSON as "target".
    void cliEchoesItsTarget() {
        QTemporaryDir temp;
        QVERIFY(QDir(temp.path()).mkdir("x"));
        const QString spelled = temp.path() + "/x/../cache";
        const QString target =
            QString::fromStdString((fs::canonical(temp.path().toStdString()) / "cache").string());
        const QString bundle =
            QString::fromStdString(test::fixture("devset/mega_mlp_train.bin").string());
        const auto dry = test::run_cli({"import", bundle, "--into", spelled, "--dry-run"});
        QCOMPARE(dry.exit_code, 0);
        QCOMPARE(dry.out.split('\n').at(1),
                 ("into " + target + " (to be created): dry run, nothing is written").toUtf8());
        const auto json = test::run_cli({"import", bundle, "--into", spelled, "--json"});
        QCOMPARE(json.exit_code, 0);
        QCOMPARE(QJsonDocument::fromJson(json.out).object()["target"].toString(), target);
        QVERIFY(QFile::exists(target + "/fxgraph/lg"));
        const auto again = test::run_cli({"import", bundle, "--into", spelled});
        QCOMPARE(again.exit_code, 0);
        QCOMPARE(again.out.split('\n').at(1), ("into " + target + ":").toUtf8());
    }

    void cliHostileBundleExitsOneAndNamesWhy() {
        QTemporaryDir temp;
        const fs::path file = fs::path(temp.path().toStdString()) / "hostile.bin";
        bundle::MegaBundle hostile = one_artifact("inductor", kFxKey, kSystemPickle);
        hostile.sections.push_back({"autotune", {{"../../x", "{}"}}});
        write_bytes(file, bundle::encode_mega_cache(hostile));
        const QString cache = temp.path() + "/cache";
        const auto run =
            test::run_cli({"import", QString::fromStdString(file.string()), "--into", cache});
        QCOMPARE(run.exit_code, 1);
        // The verdict, the finding with its id and text, and why it is refused.
        QVERIFY2(run.out.contains("code with findings (refused)"), run.out.constData());
        QVERIFY2(QRegularExpression("F[0-9a-f]{12} pickle: REDUCE os.system\\('id'\\)")
                     .match(QString::fromUtf8(run.out))
                     .hasMatch(),
                 run.out.constData());
        QVERIFY2(run.out.contains("refused: 1 finding outside what PyTorch and Inductor generate"),
                 run.out.constData());
        QVERIFY2(run.out.contains("verdicts: 0 data only, 0 Inductor code, 1 code with findings, "
                                  "1 unreadable"),
                 run.out.constData());
        QVERIFY2(run.out.contains("climbs out with '..'"), run.out.constData());
        QVERIFY2(run.out.contains("2 refused"), run.out.constData());
        QCOMPARE(walk(temp.path().toStdString()), (std::set<std::string>{"hostile.bin"}));
    }

    void cliUnreadableBundleExitsTwoNamingTheFile() {
        QTemporaryDir temp;
        const fs::path file = fs::path(temp.path().toStdString()) / "cut.bin";
        write_bytes(file, file_bytes(test::fixture("devset/mega_mlp_train.bin")).substr(0, 5000));
        const auto run = test::run_cli(
            {"import", QString::fromStdString(file.string()), "--into", temp.path() + "/cache"});
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.contains("cut.bin") && run.err.contains("crc32"), run.err.constData());
        QVERIFY(!QFile::exists(temp.path() + "/cache"));
    }
};

QTEST_GUILESS_MAIN(TestBundleImport)
#include "tst_bundle_import.moc"
