// The mega-cache codec on the bundle PyTorch 2.11 wrote for the devset MLP:
// every artifact equals what PyTorch itself read back (golden.json "mega":
// type, key, sha256, size, in order); encoding the decoded bundle gives the
// same bytes; hostile and damaged bundles (bad crc, cut short, a length or
// count larger than the file, bad base64, another version, a pickle) are
// refused with what is wrong and where. Base64 against RFC 4648's vectors.

#include "test_paths.h"

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/base64.h>
#include <cachelens/hash/sha256.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

using namespace cachelens;

namespace {

std::string bundle_bytes() {
    const QByteArray bytes = test::read_file(test::fixture("devset/mega_mlp_train.bin"));
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

// The bundle with its crc made right again after an edit of the stream.
std::string with_crc(std::string bytes) {
    const std::uint32_t crc = bundle::crc32(std::string_view(bytes).substr(4));
    for (int i = 0; i < 4; ++i) {
        bytes[static_cast<std::size_t>(i)] = static_cast<char>((crc >> (24 - 8 * i)) & 0xff);
    }
    return bytes;
}

void put_u64_at(std::string& bytes, std::size_t at, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) {
        bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (56 - 8 * i)) & 0xff);
    }
}

} // namespace

class TestMegaCache : public QObject {
    Q_OBJECT

private slots:
    void base64MatchesRfc4648() {
        const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                               {"f", "Zg=="},
                                                               {"fo", "Zm8="},
                                                               {"foo", "Zm9v"},
                                                               {"foob", "Zm9vYg=="},
                                                               {"fooba", "Zm9vYmE="},
                                                               {"foobar", "Zm9vYmFy"}};
        for (const auto& [plain, encoded] : vectors) {
            QCOMPARE(base64_encode(plain), std::string(encoded));
            auto decoded = base64_decode(encoded);
            QVERIFY_RESULT(decoded);
            QCOMPARE(*decoded, std::string(plain));
        }
        for (const char* bad : {"Zg=", "Z===", "Zm9v!A==", "Zg==Zg==", "=Zg="}) {
            QVERIFY2(!base64_decode(bad).has_value(), bad);
        }
    }

    void decodesWhatPyTorchReadBack() {
        const std::string bytes = bundle_bytes();
        auto decoded = bundle::decode_mega_cache(bytes);
        QVERIFY_RESULT(decoded);
        QCOMPARE(decoded->form, bundle::MegaBundle::Form::Crc32);
        QCOMPARE(decoded->version, std::uint64_t{1});

        const auto golden = test::read_json(test::fixture("devset/golden.json")).object();
        QJsonArray expected;
        for (const auto& entry : golden["mega"].toArray()) {
            if (entry.toObject()["path"].toString() == "mega_mlp_train.bin") {
                expected = entry.toObject()["artifacts"].toArray();
            }
        }
        QCOMPARE(expected.size(), 7);
        QCOMPARE(decoded->artifact_count(), static_cast<std::size_t>(expected.size()));
        int at = 0;
        for (const auto& section : decoded->sections) {
            for (const auto& artifact : section.artifacts) {
                const auto want = expected[at++].toObject();
                QCOMPARE(QString::fromStdString(section.type), want["type"].toString());
                QCOMPARE(QString::fromStdString(artifact.key), want["key"].toString());
                QCOMPARE(QString::fromStdString(hash::sha256_hex(artifact.content)),
                         want["content_sha256"].toString());
                QCOMPARE(static_cast<qint64>(artifact.content.size()),
                         static_cast<qint64>(want["content_len"].toInteger()));
            }
        }
    }

    void cliListsTheArtifacts() {
        const QString file =
            QString::fromStdString(test::fixture("devset/mega_mlp_train.bin").string());
        const auto run = test::run_cli({"bundle", "ls", file, "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto listed = QJsonDocument::fromJson(run.out).array();
        const auto golden = test::read_json(test::fixture("devset/golden.json")).object();
        const auto expected = golden["mega"].toArray()[0].toObject()["artifacts"].toArray();
        QCOMPARE(listed.size(), expected.size());
        for (int i = 0; i < listed.size(); ++i) {
            const auto got = listed[i].toObject();
            const auto want = expected[i].toObject();
            QCOMPARE(got["type"].toString(), want["type"].toString());
            QCOMPARE(got["key"].toString(), want["key"].toString());
            QCOMPARE(got["sha256"].toString(), want["content_sha256"].toString());
            QCOMPARE(got["size"].toInteger(), want["content_len"].toInteger());
        }
        // Not a bundle: exit 2 naming the file and the problem.
        const QString other = QString::fromStdString(test::fixture("devset/golden.json").string());
        const auto refused = test::run_cli({"bundle", "ls", other});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY(refused.err.contains("golden.json"));
        QVERIFY(refused.err.contains("crc32 mismatch"));
    }

    void encodingGivesTheSameBytes() {
        const std::string bytes = bundle_bytes();
        auto decoded = bundle::decode_mega_cache(bytes);
        QVERIFY_RESULT(decoded);
        QVERIFY(bundle::encode_mega_cache(*decoded) == bytes);
    }

    void readsTheFormWithoutACrc() {
        const std::string bytes = bundle_bytes();
        auto decoded = bundle::decode_mega_cache(std::string_view(bytes).substr(4));
        QVERIFY_RESULT(decoded);
        QCOMPARE(decoded->form, bundle::MegaBundle::Form::NoCrc);
        QCOMPARE(decoded->artifact_count(), std::size_t{7});
        // Written back in the current form, with the crc.
        QVERIFY(bundle::encode_mega_cache(*decoded) == bytes);
    }

    void refusesDamagedAndHostileBundles() {
        const std::string bytes = bundle_bytes();
        struct Case {
            const char* name;
            std::string bytes;
            const char* says;
        };
        std::vector<Case> cases;
        std::string flipped = bytes;
        flipped[bytes.size() / 2] = static_cast<char>(flipped[bytes.size() / 2] ^ 1);
        cases.push_back({"one flipped byte", flipped, "crc32 mismatch"});
        cases.push_back({"cut short", bytes.substr(0, bytes.size() - 100), "crc32 mismatch"});
        cases.push_back(
            {"cut short, crc fixed", with_crc(bytes.substr(0, bytes.size() - 100)), "only"});
        // The first key's length (after crc, version, type, count) made huge.
        std::string huge_length = bytes;
        put_u64_at(huge_length, 4 + 8 + 8 + 12 + 8, std::uint64_t{1} << 60);
        cases.push_back({"a length larger than the file", with_crc(huge_length), "only"});
        std::string huge_count = bytes;
        put_u64_at(huge_count, 4 + 8 + 8 + 12, std::uint64_t{1} << 40);
        cases.push_back({"a count larger than the file", with_crc(huge_count), "cannot fit"});
        std::string bad_text = bytes;
        bad_text[4 + 8 + 8] = '!';
        cases.push_back({"a type that is not base64", with_crc(bad_text), "not base64"});
        std::string version = bytes;
        put_u64_at(version, 4, 2);
        cases.push_back({"version 2", with_crc(version), "version 2"});
        cases.push_back({"a pickle", std::string("\x80\x04\x95", 3), "pickle"});
        cases.push_back({"empty", std::string(), "at least 12 bytes"});
        for (const auto& c : cases) {
            auto decoded = bundle::decode_mega_cache(c.bytes);
            QVERIFY2(!decoded.has_value(), c.name);
            QVERIFY2(decoded.error().message.find(c.says) != std::string::npos,
                     (std::string(c.name) + ": " + decoded.error().message).c_str());
        }
    }
};

QTEST_MAIN(TestMegaCache)
#include "tst_mega_cache.moc"
