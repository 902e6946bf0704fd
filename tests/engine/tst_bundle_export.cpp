// Exporting from a cache dir. Exporting the devset's forward graph (or the
// AOT entry of the MLP) from devset/cache gives PyTorch's own bundle,
// byte for byte: the AOT entry made of that graph comes along, with the
// backward graph it needs and the best_configs of every kernel. The whole
// dir round-trips through import into an empty dir, file for file. Unknown
// keys, damaged entries and missing best_configs are reported.
// export_bundle_file, the CLI's and the GUI's one pipeline, writes that
// bundle (or its signed container) to a file, reports Reading then Writing,
// and a stop leaves the file as it was.

#include "test_paths.h"

#include <cachelens/bundle/export.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/hash/sha256.h>

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
        for (const auto& file : test::files_under(cache)) {
            QVERIFY2(file_bytes(cache / file) == file_bytes(source / file), file.c_str());
            fx += file.starts_with("fxgraph/");
            aot += file.starts_with("aotautograd/");
            best += file.ends_with(".best_config");
        }
        // As many as the source dir holds of each.
        std::size_t source_fx = 0, source_aot = 0, source_best = 0;
        for (const auto& file : test::files_under(source)) {
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
        QCOMPARE(nonsense.error().kind, ErrorKind::NotFound);
        QVERIFY(nonsense.error().message.starts_with("nothing matches 'hello'"));
        // Keys as every command takes them: a unique prefix names its key...
        auto prefix = bundle::export_bundle(cache, {.keys = {"flgtecy7"}});
        QVERIFY_RESULT(prefix);
        QVERIFY(prefix->bundle.artifact_count() > 0);
        // ...and an entry that is no graph is said to be one.
        auto module = bundle::export_bundle(cache, {.keys = {"triton_red_fused_mul_sqrt_sum_0"}});
        QVERIFY(!module);
        QVERIFY2(module.error().message.find(": export takes FX graph and AOTAutograd keys") !=
                     std::string::npos,
                 module.error().message.c_str());
        QVERIFY(!bundle::export_bundle("/nonexistent/cache"));
    }

    // A key dir without entries (left by a prune, or made by hand) is a
    // miss to PyTorch: the whole dir exports without it, with a note; a key
    // named explicitly that has only such a dir is not found.
    void keyDirsWithoutEntriesAreSkipped() {
        QTemporaryDir temp;
        const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), cache);
        const std::string fx_key = "f" + std::string(51, 'z');
        const std::string aot_key = "a" + std::string(51, 'z');
        fs::create_directories(cache / "fxgraph/zz" / fx_key);
        fs::create_directories(cache / "aotautograd" / aot_key);
        // A key dir emptied of its one entry.
        const fs::path emptied = cache / "fxgraph/lg" / kForwardKey;
        for (const auto& item : fs::directory_iterator(emptied)) {
            fs::remove(item.path());
        }

        auto whole = bundle::export_bundle(cache);
        QVERIFY_RESULT(whole);
        for (const std::string& dir :
             {"fxgraph/zz/" + fx_key, "aotautograd/" + aot_key, "fxgraph/lg/" + kForwardKey}) {
            const std::string note = dir + ": empty key dir (no entries), skipped";
            QVERIFY2(std::ranges::find(whole->notes, note) != whole->notes.end(), note.c_str());
        }
        QCOMPARE(whole->bundle.artifact_count(),
                 bundle::export_bundle(test::fixture("devset/cache"))->bundle.artifact_count() - 1);

        const QString out = temp.path() + "/whole.bin";
        const auto run =
            test::run_cli({"export", QString::fromStdString(cache.string()), "-o", out});
        QCOMPARE(run.exit_code, 0);
        QVERIFY2(run.out.contains(QByteArray::fromStdString(
                     "note: fxgraph/zz/" + fx_key + ": empty key dir (no entries), skipped")),
                 run.out.constData());
        QVERIFY(QFile::exists(out));

        for (const auto& [key, dir] : {std::pair{fx_key, "fxgraph/zz/" + fx_key},
                                       std::pair{aot_key, "aotautograd/" + aot_key},
                                       std::pair{kForwardKey, "fxgraph/lg/" + kForwardKey}}) {
            auto named = bundle::export_bundle(cache, {.keys = {key}});
            QVERIFY(!named);
            QCOMPARE(named.error().kind, ErrorKind::NotFound);
            QCOMPARE(named.error().message,
                     "no entries under key " + key + " (its dir " + dir + " is empty)");
            const auto cli = test::run_cli({"export", QString::fromStdString(cache.string()),
                                            QString::fromStdString(key), "-o", out});
            QCOMPARE(cli.exit_code, 2);
            QVERIFY2(cli.err.contains(QByteArray::fromStdString(named.error().message)),
                     cli.err.constData());
        }
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

    void exportFileWritesPyTorchsBundleAndReportsEachStage() {
        QTemporaryDir temp;
        const fs::path file = fs::path(temp.path().toStdString()) / "mlp.bin";
        std::vector<Progress> reports;
        std::vector<std::string> items;
        auto written = bundle::export_bundle_file(test::fixture("devset/cache"),
                                                  {.keys = {kForwardKey}, .file = file},
                                                  [&](const Progress& report) {
                                                      reports.push_back(report);
                                                      items.emplace_back(report.item);
                                                      return true;
                                                  });
        QVERIFY_RESULT(written);
        const std::string bytes = file_bytes(file);
        QVERIFY(bytes == file_bytes(test::fixture("devset/mega_mlp_train.bin")));
        QCOMPARE(written->size, bytes.size());
        QCOMPARE(written->sha256, hash::sha256_hex(bytes));
        QCOMPARE(written->bundle.artifact_count(), std::size_t{7});
        QVERIFY(!written->signer);
        QVERIFY(written->notes.empty());

        // Reading (each stage's done growing to its total), then one file written.
        QVERIFY(reports.size() >= 3);
        const auto writing = reports.end() - 2;
        for (auto it = reports.begin(); it != writing; ++it) {
            QCOMPARE(it->stage, ProgressStage::Reading);
        }
        QCOMPARE((writing - 1)->done, (writing - 1)->total);
        QCOMPARE(writing->stage, ProgressStage::Writing);
        QCOMPARE(writing->done, std::uint64_t{0});
        QCOMPARE(writing->total, std::uint64_t{1});
        QCOMPARE(reports.back().stage, ProgressStage::Writing);
        QCOMPARE(reports.back().done, std::uint64_t{1});
        QCOMPARE(reports.back().bytes, std::uint64_t{bytes.size()});
        QCOMPARE(items.back(), file.string());
    }

    // A stop while reading or just before the write leaves the file as it
    // was: absent, or the earlier bundle.
    void exportFileStopsBeforeWriting() {
        QTemporaryDir temp;
        const fs::path file = fs::path(temp.path().toStdString()) / "mlp.bin";
        const fs::path cache = test::fixture("devset/cache");
        auto stopped_reading = bundle::export_bundle_file(cache, {.file = file},
                                                          [](const Progress&) { return false; });
        QVERIFY(!stopped_reading);
        QCOMPARE(stopped_reading.error().kind, ErrorKind::Cancelled);
        QVERIFY(!fs::exists(file));

        const std::string earlier = "an earlier file";
        {
            std::ofstream out(file, std::ios::binary);
            out << earlier;
        }
        auto stopped_writing = bundle::export_bundle_file(
            cache, {.keys = {kAotKey}, .file = file},
            [](const Progress& report) { return report.stage != ProgressStage::Writing; });
        QVERIFY(!stopped_writing);
        QCOMPARE(stopped_writing.error().kind, ErrorKind::Cancelled);
        QCOMPARE(file_bytes(file), earlier);
        // Nothing left beside it either: the temp file of a write never started.
        QCOMPARE(test::files_under(temp.path().toStdString()), std::vector<std::string>{"mlp.bin"});
    }

    void exportFileSignsWithTheKeyGiven() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        QVERIFY_RESULT(bundle::write_key_pair(dir / "ours.key", dir / "ours.pub"));
        const fs::path file = dir / "signed.bin";
        auto written = bundle::export_bundle_file(
            test::fixture("devset/cache"),
            {.keys = {kAotKey}, .file = file, .signing_key = dir / "ours.key"});
        QVERIFY_RESULT(written);
        auto public_key = bundle::load_public_key(dir / "ours.pub");
        QVERIFY_RESULT(public_key);
        QCOMPARE(written->signer, std::optional(public_key->fingerprint()));
        const std::string bytes = file_bytes(file);
        QCOMPARE(written->size, bytes.size());
        QCOMPARE(written->sha256, hash::sha256_hex(bytes));
        auto verified = bundle::verify_signed_bundle(bytes, *public_key);
        QVERIFY_RESULT(verified);
        QVERIFY(verified->payload == file_bytes(test::fixture("devset/mega_mlp_train.bin")));
    }

    // Nothing is read (no progress) when the key does not load; an empty
    // dir is nothing to export. Neither writes a file.
    void exportFileRefusesABadKeyAndAnEmptyDir() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        const fs::path file = dir / "out.bin";
        {
            std::ofstream out(dir / "not-a-key.pem");
            out << "hello\n";
        }
        bool heard = false;
        auto bad_key = bundle::export_bundle_file(
            test::fixture("devset/cache"), {.file = file, .signing_key = dir / "not-a-key.pem"},
            [&heard](const Progress&) {
                heard = true;
                return true;
            });
        QVERIFY(!bad_key);
        QCOMPARE(bad_key.error().path, (dir / "not-a-key.pem").string());
        QVERIFY(!heard);

        fs::create_directories(dir / "empty");
        auto empty = bundle::export_bundle_file(dir / "empty", {.file = file});
        QVERIFY(!empty);
        QCOMPARE(empty.error().kind, ErrorKind::NotFound);
        QCOMPARE(empty.error().message, std::string("nothing to export: no entries"));
        QCOMPARE(empty.error().path, (dir / "empty").string());
        QVERIFY(!fs::exists(file));
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
        // What it wrote, absolute, in the JSON and first in the text.
        const QString target =
            QString::fromStdString((fs::canonical(temp.path().toStdString()) / "mlp.bin").string());
        QCOMPARE(json["target"].toString(), target);
        // A relative -o, against the working dir (the child inherits ours).
        const QString working = QDir::currentPath();
        QVERIFY(QDir::setCurrent(temp.path()));
        const auto text =
            test::run_cli({"export", QString::fromStdString(test::fixture("devset/cache").string()),
                           QString::fromStdString(kForwardKey), "-o", "mlp.bin"});
        QVERIFY(QDir::setCurrent(working));
        QCOMPARE(text.exit_code, 0);
        QVERIFY2(text.out.startsWith((target + ": 7 artifacts (").toUtf8()), text.out.constData());

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
