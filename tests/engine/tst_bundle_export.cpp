// Exporting from a cache dir. Exporting the devset's forward graph (or the
// AOT entry of the MLP) from devset/cache gives PyTorch's own bundle,
// byte for byte: the AOT entry made of that graph comes along, with the
// backward graph it needs and the best_configs of every kernel. The whole
// dir round-trips through import into an empty dir, file for file. Unknown
// keys, damaged entries and missing best_configs are reported.

#include "test_paths.h"

#include <cachelens/bundle/export.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

const std::string kForwardKey = "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e";
const std::string kAotKey = "azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i";

std::string file_bytes(const fs::path& path) {
    const QByteArray bytes = test::read_file(path);
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

std::string exported(const std::vector<std::string>& keys, const fs::path& cache) {
    auto result = bundle::export_bundle(cache, {.keys = keys});
    if (!result) {
        qFatal("%s", result.error().describe().c_str());
    }
    return bundle::encode_mega_cache(result->bundle);
}

// Every regular file under `root`, relative.
std::vector<std::string> files_under(const fs::path& root) {
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        if (entry.is_regular_file()) {
            files.push_back(fs::relative(entry.path(), root).string());
        }
    }
    std::ranges::sort(files);
    return files;
}

} // namespace

class TestBundleExport : public QObject {
    Q_OBJECT

private slots:
    void oneGraphGivesPyTorchsOwnBundle() {
        const std::string pytorch = file_bytes(test::fixture("devset/mega_mlp_train.bin"));
        QVERIFY(exported({kForwardKey}, test::fixture("devset/cache")) == pytorch);
        QVERIFY(exported({kAotKey}, test::fixture("devset/cache")) == pytorch);
    }

    void wholeDirRoundTripsThroughImport() {
        const fs::path source = test::fixture("devset/cache");
        auto result = bundle::export_bundle(source);
        QVERIFY_RESULT(result);
        std::map<std::string, std::size_t> per_type;
        for (const auto& section : result->bundle.sections) {
            per_type[section.type] += section.artifacts.size();
        }
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        const auto done =
            bundle::run_import(*bundle::plan_import(result->bundle, cache), result->bundle);
        QVERIFY(done.clean());
        QCOMPARE(done.count(bundle::ImportAction::Written), result->bundle.artifact_count());

        std::size_t fx = 0, aot = 0, best = 0;
        for (const auto& file : files_under(cache)) {
            QVERIFY2(file_bytes(cache / file) == file_bytes(source / file), file.c_str());
            fx += file.starts_with("fxgraph/");
            aot += file.starts_with("aotautograd/");
            best += file.ends_with(".best_config");
        }
        // As many as the source dir holds of each.
        std::size_t source_fx = 0, source_aot = 0, source_best = 0;
        for (const auto& file : files_under(source)) {
            source_fx += file.starts_with("fxgraph/");
            source_aot += file.starts_with("aotautograd/");
            source_best += file.ends_with(".best_config");
        }
        QCOMPARE(fx, source_fx);
        QCOMPARE(aot, source_aot);
        QCOMPARE(best, source_best);
        QCOMPARE(per_type["inductor"], source_fx);
        QCOMPARE(per_type["aot_autograd"], source_aot);
        QCOMPARE(per_type["autotune"], source_best);
    }

    void unknownKeysAreErrors() {
        const fs::path cache = test::fixture("devset/cache");
        auto missing = bundle::export_bundle(cache, {.keys = {"f" + std::string(51, 'a')}});
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, ErrorKind::NotFound);
        QVERIFY(missing.error().message.find("no FX graph entry with key faaa") !=
                std::string::npos);
        auto nonsense = bundle::export_bundle(cache, {.keys = {"hello"}});
        QVERIFY(!nonsense);
        QVERIFY(nonsense.error().message.find("neither an FX graph key") != std::string::npos);
        QVERIFY(!bundle::export_bundle("/nonexistent/cache"));
    }

    void damagedEntryIsRefused() {
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        test::copy_tree(test::fixture("devset/cache"), cache);
        const fs::path entry = cache / "fxgraph/lg" / kForwardKey /
                               "4uitwgn6erdqhr4khsp7h66twlfllkcat3gom2p4rt4llpf34yx";
        std::fstream file(entry, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(1000);
        file.put('\x55');
        file.close();
        auto result = bundle::export_bundle(cache, {.keys = {kForwardKey}});
        QVERIFY(!result);
        QCOMPARE(result.error().path, entry.string());
        QVERIFY(result.error().message.find("not the hash of its bytes") != std::string::npos);
    }

    void missingBestConfigIsANote() {
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        test::copy_tree(test::fixture("devset/cache"), cache);
        fs::remove(
            cache /
            "a6/b92708b62fd19dab503567221d57ffcf4683baeb6b435fd5cc876b684c8e862a.best_config");
        auto result = bundle::export_bundle(cache, {.keys = {kForwardKey}});
        QVERIFY_RESULT(result);
        QCOMPARE(result->bundle.artifact_count(), std::size_t{6});
        QCOMPARE(result->notes.size(), std::size_t{1});
        QVERIFY(result->notes[0].find("a6/b92708b62fd1") != std::string::npos);
        QVERIFY(result->notes[0].find("will autotune again") != std::string::npos);
    }

    void cliExportsAndReportsJson() {
        QTemporaryDir temp;
        const QString out = temp.path() + "/mlp.bin";
        const auto run =
            test::run_cli({"export", QString::fromStdString(test::fixture("devset/cache").string()),
                           QString::fromStdString(kForwardKey), "-o", out, "--json"});
        QCOMPARE(run.exit_code, 0);
        QVERIFY(file_bytes(out.toStdString()) ==
                file_bytes(test::fixture("devset/mega_mlp_train.bin")));
        const auto json = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(json["artifacts"].toArray().size(), 7);
        QVERIFY(json["signed_by"].isNull());
        QCOMPARE(json["sha256"].toString().size(), 64);

        const auto bad =
            test::run_cli({"export", QString::fromStdString(test::fixture("devset/cache").string()),
                           "fnope", "-o", out});
        QCOMPARE(bad.exit_code, 2);
        QVERIFY2(bad.err.contains("fnope"), bad.err.constData());
        // A failed export leaves the earlier file as it was.
        QVERIFY(file_bytes(out.toStdString()) ==
                file_bytes(test::fixture("devset/mega_mlp_train.bin")));
    }

    void cliSignedExportImportsOnlyWithTheRightKey() {
        QTemporaryDir temp;
        const QString dir = temp.path();
        QCOMPARE(test::run_cli({"keygen", "-o", dir + "/ours"}).exit_code, 0);
        QCOMPARE(test::run_cli({"keygen", "-o", dir + "/theirs"}).exit_code, 0);
        const QString bundle = dir + "/signed.bin";
        const auto run = test::run_cli(
            {"export", QString::fromStdString(test::fixture("devset/cache").string()),
             QString::fromStdString(kAotKey), "-o", bundle, "--sign", dir + "/ours.key"});
        QCOMPARE(run.exit_code, 0);
        QVERIFY2(run.out.contains("signed by"), run.out.constData());

        const auto wrong = test::run_cli({"import", bundle, "--into", dir + "/wrong",
                                          "--require-signature", dir + "/theirs.pub"});
        QCOMPARE(wrong.exit_code, 2);
        QVERIFY(!QFile::exists(dir + "/wrong"));

        const auto right = test::run_cli({"import", bundle, "--into", dir + "/right",
                                          "--require-signature", dir + "/ours.pub", "--json"});
        QCOMPARE(right.exit_code, 0);
        const auto json = QJsonDocument::fromJson(right.out).object();
        QCOMPARE(json["signed"].toObject()["verified"].toBool(), true);
        QCOMPARE(json["counts"].toObject()["written"].toInt(), 7);

        // An unsigned bundle is refused when a signature is required.
        const auto unsigned_run = test::run_cli(
            {"import", QString::fromStdString(test::fixture("devset/mega_mlp_train.bin").string()),
             "--into", dir + "/unsigned", "--require-signature", dir + "/ours.pub"});
        QCOMPARE(unsigned_run.exit_code, 2);
        QVERIFY2(unsigned_run.err.contains("not a signed bundle"), unsigned_run.err.constData());
        QVERIFY(!QFile::exists(dir + "/unsigned"));
    }
};

QTEST_GUILESS_MAIN(TestBundleExport)
#include "tst_bundle_export.moc"
