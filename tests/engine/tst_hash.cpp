// sha256, base32 and PyTorch's sha256_hash/code_hash against known values and
// against the names PyTorch gave real cache files.

#include "test_paths.h"

#include <cachelens/hash/sha256.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

using namespace cachelens;

class TestHash : public QObject {
    Q_OBJECT

private slots:
    void sha256KnownVectors() {
        QCOMPARE(hash::sha256_hex(""),
                 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        QCOMPARE(hash::sha256_hex("abc"),
                 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        hash::Sha256 incremental;
        incremental.update("a");
        incremental.update("bc");
        QCOMPARE(hash::to_hex(incremental.finish()), hash::sha256_hex("abc"));
    }

    void base32RoundTrip() {
        QCOMPARE(hash::base32("foobar"), "MZXW6YTBOI======");
        QCOMPARE(hash::base32("foobar", false), "MZXW6YTBOI");
        std::string decoded;
        QVERIFY(hash::base32_decode("mzxw6ytboi======", decoded));
        QCOMPARE(decoded, "foobar");
        QVERIFY(!hash::base32_decode("MZ1W", decoded));
    }

    void sha256HashIsPyTorchs() {
        // Python: base64.b32encode(hashlib.sha256(b"abc").digest())[:51].decode().lower()
        QCOMPARE(hash::sha256_hash("abc"), "xj4bnp4pahh6uqkbidpf3lrceoyagyndsylxvhfucd7wd4qacww");
        QCOMPARE(hash::code_hash("abc"), "c" + hash::sha256_hash("abc"));
        QCOMPARE(hash::code_hash("abc", "x"), "c" + hash::sha256_hash("abc||x"));
    }

    void fxGraphNamesAreContentHashes() {
        const auto golden = test::read_json(test::fixture("devset/golden.json"));
        int checked = 0;
        for (const auto& value : golden["fxgraph"].toArray()) {
            const auto entry = value.toObject();
            const auto path = test::fixture("devset/" + entry["path"].toString().toStdString());
            const QByteArray bytes = test::read_file(path);
            const bool matches =
                hash::sha256_hash(std::string_view(bytes.constData(), bytes.size())) ==
                path.filename().string();
            QCOMPARE(matches, entry["name_is_sha256_hash_of_content"].toBool());
            ++checked;
        }
        QCOMPARE(checked, 14);
    }

    void moduleNamesAreCodeHashes() {
        const auto golden = test::read_json(test::fixture("devset/golden.json"));
        int code_hashed = 0;
        for (const auto& value : golden["modules"].toArray()) {
            const auto module = value.toObject();
            const auto path = test::fixture("devset/" + module["path"].toString().toStdString());
            const QByteArray bytes = test::read_file(path);
            const auto content =
                hash::python_strip(std::string_view(bytes.constData(), bytes.size()));
            const bool matches = hash::code_hash(content) == path.stem().string();
            QCOMPARE(matches, module["name_is_code_hash"].toBool());
            code_hashed += matches ? 1 : 0;
        }
        QCOMPARE(code_hashed, 29);
    }

    void tritonDirFromHexHash() {
        // A StaticallyLaunchedCudaKernel hash and the Triton dir that holds its cubin.
        QCOMPARE(hash::triton_dir_from_hex(
                     "e6ad55aa03c0fb912bc22c74bbfa0af409a33bd7c100163116dd4f1c23da04bf"),
                 "42WVLKQDYD5ZCK6CFR2LX6QK6QE2GO6XYEABMMIW3VHRYI62AS7Q");
        QVERIFY(hash::triton_dir_from_hex("zz").empty());
    }

    // Python: base64.b32encode / urlsafe_b64encode of bytes.fromhex(h), '=' cut.
    void tritonDirNamesOfEveryRelease() {
        const std::string hex = hash::sha256_hex("abc");
        QVERIFY(hash::is_triton_dir_name_of(hex, hex)); // Triton 3.0, 3.1
        QVERIFY(hash::is_triton_dir_name_of("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0",
                                            hex)); // 3.2
        QVERIFY(hash::is_triton_dir_name_of("XJ4BNP4PAHH6UQKBIDPF3LRCEOYAGYNDSYLXVHFUCD7WD4QACWWQ",
                                            hex)); // 3.3 on
        QVERIFY(!hash::is_triton_dir_name_of("XJ4BNP4PAHH6UQKBIDPF3LRCEOYAGYNDSYLXVHFUCD7WD4QACWWA",
                                             hex));
        QVERIFY(!hash::is_triton_dir_name_of("ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0", hex));
        QVERIFY(!hash::is_triton_dir_name_of(hex, ""));
        QVERIFY(!hash::is_triton_dir_name_of("zz", "zz"));
    }

    // PyTorch 2.0 and 2.1 named a module by the hash of its text as written,
    // 2.2 on by the hash of its text stripped.
    void moduleNameRulesOfEveryRelease() {
        const std::string text = "\nx = 1\n";
        QCOMPARE(hash::code_hash_rule("cr72dnxxriujikwm2dmnnocaaje5y3sx54kis4grygrldgbkojqt", text),
                 hash::CodeHashRule::Stripped);
        QCOMPARE(hash::code_hash_rule("cvhr4lqkupwumjtogwqdoevo6nxadvpkdovhsra3bapl5pr47oyx", text),
                 hash::CodeHashRule::AsWritten);
        QVERIFY(
            !hash::code_hash_rule("cvhr4lqkupwumjtogwqdoevo6nxadvpkdovhsra3bapl5pr47oyy", text));
    }
};

QTEST_GUILESS_MAIN(TestHash)
#include "tst_hash.moc"
