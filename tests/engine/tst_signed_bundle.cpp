// Signed cachelens bundles on PyTorch's devset bundle: signing then verifying
// passes and the manifest lists what golden.json says the bundle holds, with
// the source machine read from the FX entries (H100, torch 2.11, triton 3.6,
// CUDA 13.0, as golden.json's env says); one flipped byte in every part of
// the file fails the check, naming the artifact when it falls in one (each
// of the 7, in its key, its length and its content); another key fails
// naming both fingerprints; cut files fail. Key files: Ed25519 against RFC
// 8032's vector and OpenSSL's own PEM, refused for what they are (not PEM,
// RSA, the other half of the pair, encrypted, missing), never overwritten,
// the private one 0600. The CLI: keygen, verify --trust, bundle ls.

#include "test_paths.h"

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/core/base64.h>
#include <cachelens/hash/sha256.h>

#include <sys/stat.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace cachelens;
using test::write_bytes;
namespace fs = std::filesystem;

namespace {

std::string to_std(const QByteArray& bytes) {
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

std::string bundle_bytes() {
    return to_std(test::read_file(test::fixture("devset/mega_mlp_train.bin")));
}

std::uint64_t u64_at(std::string_view bytes, std::size_t at) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        value = (value << 8) | static_cast<std::uint8_t>(bytes[at + i]);
    }
    return value;
}

std::string hex(std::string_view bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (char c : bytes) {
        out += kHex[static_cast<std::uint8_t>(c) >> 4];
        out += kHex[static_cast<std::uint8_t>(c) & 15];
    }
    return out;
}

std::string unhex(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
        out += static_cast<char>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16));
    }
    return out;
}

// Where things are in a signed file, found by walking it here (not with the
// code under test).
struct ArtifactAt {
    std::string type, key;
    std::size_t section_at = 0; // the section header it is first in, or 0
    std::size_t key_at = 0;     // the key's length field
    std::size_t length_at = 0;  // the content's length field
    std::size_t content_at = 0;
    std::size_t size = 0;
};

struct Layout {
    std::size_t manifest_length_at = 24;
    std::size_t manifest_at = 32;
    std::size_t signature_length_at = 0;
    std::size_t signature_at = 0;
    std::size_t payload_at = 0;
    std::vector<ArtifactAt> artifacts;
};

Layout layout_of(std::string_view file) {
    Layout layout;
    layout.signature_length_at = layout.manifest_at + u64_at(file, 24);
    layout.signature_at = layout.signature_length_at + 8;
    layout.payload_at = layout.signature_at + 64;
    // crc (unless the payload starts with the version), version
    const bool no_crc = u64_at(file, layout.payload_at) == 1;
    std::size_t at = layout.payload_at + (no_crc ? 0 : 4) + 8;
    while (at < file.size()) {
        const std::size_t section_at = at;
        const std::uint64_t type_size = u64_at(file, at);
        const std::string type = *base64_decode(file.substr(at + 8, type_size));
        at += 8 + type_size;
        const std::uint64_t count = u64_at(file, at);
        at += 8;
        for (std::uint64_t i = 0; i < count; ++i) {
            ArtifactAt artifact;
            artifact.type = type;
            artifact.section_at = i == 0 ? section_at : 0;
            artifact.key_at = at;
            const std::uint64_t key_size = u64_at(file, at);
            artifact.key = *base64_decode(file.substr(at + 8, key_size));
            at += 8 + key_size;
            artifact.length_at = at;
            artifact.size = u64_at(file, at);
            artifact.content_at = at + 8;
            at += 8 + artifact.size;
            layout.artifacts.push_back(artifact);
        }
    }
    return layout;
}

std::string flipped(std::string bytes, std::size_t at, std::uint8_t mask = 0x01) {
    bytes[at] = static_cast<char>(static_cast<std::uint8_t>(bytes[at]) ^ mask);
    return bytes;
}

QJsonObject manifest_json(std::string_view file) {
    const std::string_view text = file.substr(32, u64_at(file, 24));
    return QJsonDocument::fromJson(QByteArray(text.data(), static_cast<qsizetype>(text.size())))
        .object();
}

QJsonArray golden_artifacts() {
    const auto golden = test::read_json(test::fixture("devset/golden.json")).object();
    return golden["mega"].toArray()[0].toObject()["artifacts"].toArray();
}

// The verify error for `bytes`, or "" when it (wrongly) verifies.
std::string verify_error(std::string_view bytes, const bundle::PublicKey& key) {
    auto result = bundle::verify_signed_bundle(bytes, key);
    return result ? std::string() : result.error().message;
}

QString q(const fs::path& path) {
    return QString::fromStdString(path.string());
}

// An RSA key pair (512 bits, made for this test with openssl genpkey): the
// loaders must say it is RSA, not Ed25519.
constexpr const char* kRsaPrivate = R"(-----BEGIN PRIVATE KEY-----
MIIBVAIBADANBgkqhkiG9w0BAQEFAASCAT4wggE6AgEAAkEAsvEeEKYllpntqpp4
Zj91NyUFAcnHIsyW5xTksFOPHG4jnMRfEMI/y+FcGgKio8EQdsIo7qfDbcsGWZF8
jCx1pwIDAQABAkBGD9oxspvtB3/i2HBjuFzwpnH7bUGnAmvjNm8ECvNxsZWnBEKq
DD6QDO6wotiM/bx6KYHiL5FZeggaIgCjYGZBAiEA66JJWRj8UN/0Grqcsv5RUvEi
GQYjaGkV4moxDiTcti8CIQDCaHGWr4Nxaa1Wd6+XdF5dyZDv6AYOYzZXfhnjjiFS
CQIgdU/SnJ0n4UveSABoS2T6MAUFKNg5gJ3w20xrJ9OKXtkCIASxXLyUdAnS0Tpb
HUP8rSJ6cSM5aJwETRWDl8Bkd+1xAiEA0NJc/VG5WlS8nz1htHJTB5izGPoi/b1b
kr5D9cBfJ50=
-----END PRIVATE KEY-----
)";
constexpr const char* kRsaPublic = R"(-----BEGIN PUBLIC KEY-----
MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBALLxHhCmJZaZ7aqaeGY/dTclBQHJxyLM
lucU5LBTjxxuI5zEXxDCP8vhXBoCoqPBEHbCKO6nw23LBlmRfIwsdacCAwEAAQ==
-----END PUBLIC KEY-----
)";
// An Ed25519 pair from `openssl genpkey -algorithm ed25519` / `openssl pkey -pubout`.
constexpr const char* kOpensslPrivate = R"(-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIDApPj/lYzoehi77bOHYJaML2KSbaFwq+XusqtLkh8i2
-----END PRIVATE KEY-----
)";
constexpr const char* kOpensslPublic = R"(-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAU6FGP7j0ZjLcZqw1my1pgJgze/J03D1A0wjBhLJ8nxM=
-----END PUBLIC KEY-----
)";
// RFC 8032 section 7.1, TEST 1: this secret key as PKCS#8, its public key,
// and its signature of the empty message.
constexpr const char* kRfcPrivate = R"(-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g
-----END PRIVATE KEY-----
)";
constexpr const char* kRfcPublicHex =
    "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
constexpr const char* kRfcSignatureHex =
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b4"
    "6bd25bf5f0595bbe24655141438e7a100b";

} // namespace

class TestSignedBundle : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    fs::path key_file_;
    fs::path pub_file_;
    std::optional<bundle::PrivateKey> key_;
    std::string plain_;
    std::string signed_;

    fs::path path(const std::string& name) const {
        return fs::path(dir_.path().toStdString()) / name;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        key_file_ = path("signer.key");
        pub_file_ = path("signer.pub");
        QVERIFY_RESULT(bundle::write_key_pair(key_file_, pub_file_));
        auto key = bundle::load_private_key(key_file_);
        QVERIFY_RESULT(key);
        key_.emplace(std::move(*key));
        plain_ = bundle_bytes();
        auto signed_bytes = bundle::sign_bundle(plain_, *key_);
        QVERIFY_RESULT(signed_bytes);
        signed_ = std::move(*signed_bytes);
    }

    void ed25519MatchesRfc8032() {
        auto key = bundle::PrivateKey::from_pem(kRfcPrivate);
        QVERIFY_RESULT(key);
        const auto& raw = key->public_key().raw;
        QCOMPARE(hex(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size())),
                 std::string(kRfcPublicHex));
        const std::string signature = key->sign("");
        QCOMPARE(hex(signature), std::string(kRfcSignatureHex));
        QVERIFY(key->public_key().verify("", unhex(kRfcSignatureHex)));
        QVERIFY(!key->public_key().verify("x", unhex(kRfcSignatureHex)));
        QVERIFY(!key->public_key().verify("", unhex(kRfcSignatureHex).substr(0, 63)));
        // The fingerprint is the sha256 of the raw public key.
        QCOMPARE(key->public_key().fingerprint(), hash::sha256_hex(unhex(kRfcPublicHex)));
        QCOMPARE(key->public_key().short_fingerprint(),
                 hash::sha256_hex(unhex(kRfcPublicHex)).substr(0, 16));
    }

    void signThenVerify() {
        auto verified = bundle::verify_signed_bundle(signed_, key_->public_key());
        QVERIFY_RESULT(verified);
        QVERIFY(verified->signature_verified);
        QVERIFY(verified->payload == plain_);
        QCOMPARE(verified->bundle.artifact_count(), std::size_t{7});
        QCOMPARE(verified->manifest.signer_fingerprint, key_->public_key().fingerprint());
        QCOMPARE(verified->manifest.payload_size, std::uint64_t{plain_.size()});
        QCOMPARE(verified->manifest.payload_sha256, hash::sha256_hex(plain_));
        const auto expected = golden_artifacts();
        QCOMPARE(verified->manifest.artifacts.size(), std::size_t(expected.size()));
        for (qsizetype i = 0; i < expected.size(); ++i) {
            const auto want = expected[i].toObject();
            const auto& got = verified->manifest.artifacts[static_cast<std::size_t>(i)];
            QCOMPARE(QString::fromStdString(got.type), want["type"].toString());
            QCOMPARE(QString::fromStdString(got.key), want["key"].toString());
            QCOMPARE(QString::fromStdString(got.sha256), want["content_sha256"].toString());
            QCOMPARE(static_cast<qint64>(got.size), want["content_len"].toInteger());
        }
        QVERIFY(QRegularExpression(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$)")
                    .match(QString::fromStdString(verified->manifest.created))
                    .hasMatch());
        // Reading without the key gives the same, marked unverified.
        auto read = bundle::read_signed_bundle(signed_);
        QVERIFY_RESULT(read);
        QVERIFY(!read->signature_verified);
        QCOMPARE(read->manifest.artifacts.size(), std::size_t{7});
        QVERIFY(bundle::looks_signed(signed_));
        QVERIFY(!bundle::looks_signed(plain_));
    }

    void containerLayout() {
        QVERIFY(signed_.starts_with("CACHELENS-SIGNED-BUNDLE\n"));
        const Layout layout = layout_of(signed_);
        QCOMPARE(u64_at(signed_, layout.signature_length_at), std::uint64_t{64});
        QVERIFY(std::string_view(signed_).substr(layout.payload_at) == plain_);
        QCOMPARE(layout.artifacts.size(), std::size_t{7});
        // The manifest's JSON as documented, the signature over exactly it.
        const auto manifest = manifest_json(signed_);
        QCOMPARE(manifest["format"].toString(), QString("cachelens-signed-bundle"));
        QCOMPARE(manifest["version"].toInt(), 1);
        QCOMPARE(manifest["signer"].toObject()["fingerprint"].toString().toStdString(),
                 key_->public_key().fingerprint());
        QCOMPARE(manifest["payload"].toObject()["size"].toInteger(),
                 static_cast<qint64>(plain_.size()));
        QCOMPARE(manifest["artifacts"].toArray().size(), 7);
        const auto first = manifest["artifacts"].toArray()[0].toObject();
        QCOMPARE(first.keys().size(), 4); // type, key, size, sha256
        const std::string_view text =
            std::string_view(signed_).substr(layout.manifest_at, u64_at(signed_, 24));
        QVERIFY(key_->public_key().verify(
            text, std::string_view(signed_).substr(layout.signature_at, 64)));
    }

    void sourceFactsFromTheFxEntries() {
        const auto env =
            test::read_json(test::fixture("devset/golden.json")).object()["env"].toObject();
        auto decoded = bundle::decode_mega_cache(plain_);
        QVERIFY_RESULT(decoded);
        const bundle::SourceFacts facts = bundle::source_facts(*decoded);
        QVERIFY(facts.gpu && facts.torch_version && facts.triton_version && facts.cuda_version);
        QCOMPARE(QString::fromStdString(*facts.gpu), env["gpu"].toString());
        QVERIFY(facts.gpu->find("H100") != std::string::npos);
        QCOMPARE(QString::fromStdString(*facts.torch_version), env["torch"].toString());
        QCOMPARE(QString::fromStdString(*facts.triton_version), env["triton"].toString());
        QCOMPARE(QString::fromStdString(*facts.cuda_version), env["cuda"].toString());
        // And in the signed manifest.
        const auto source = manifest_json(signed_)["source"].toObject();
        QCOMPARE(source["gpu"].toString(), env["gpu"].toString());
        QCOMPARE(source["torch_version"].toString(), env["torch"].toString());
        QCOMPARE(source["triton_version"].toString(), env["triton"].toString());
        QCOMPARE(source["cuda_version"].toString(), env["cuda"].toString());
        // The fingerprint preflight compares: the torch build, the devices, the
        // kernels' Triton target, as the FX entries' keys name them.
        QCOMPARE(source["torch_build"].toString(),
                 QString("bhbxfhoxf5hkmujdjpm36xihaazrhcnnqhkwzuzb2mhe4uyuamb"));
        QCOMPARE(source["system_hash"].toString().size(), 64);
        QCOMPARE(source["device_types"].toArray(), QJsonArray{"cuda"});
        QCOMPARE(source["triton_targets"].toArray(), QJsonArray{"cuda 90"});
        QCOMPARE(QString::fromStdString(facts.fingerprint().describe()),
                 QString("NVIDIA H100 80GB HBM3 (sm90), CUDA 13.0, Triton 3.6.0, torch build "
                         "bhbxfhox, torch 2.11.0+cu130"));
        // Read back from the signed bundle.
        auto read = bundle::read_signed_bundle(signed_);
        QVERIFY_RESULT(read);
        QCOMPARE(read->manifest.source.device_types, std::vector<std::string>{"cuda"});
        QCOMPARE(read->manifest.source.torch_build, facts.torch_build);
    }

    void bundlesWithoutFxEntriesOrWithOddSections() {
        auto decoded = bundle::decode_mega_cache(plain_);
        QVERIFY_RESULT(decoded);
        // Only the autotune section: nothing says where it was made (nulls),
        // and an empty section and a second section of the same type still
        // verify.
        bundle::MegaBundle small;
        for (const auto& section : decoded->sections) {
            if (section.type == "autotune") {
                small.sections.push_back(
                    {"autotune", {section.artifacts[0], section.artifacts[1]}});
                small.sections.push_back({"pgo", {}});
                small.sections.push_back({"autotune", {section.artifacts[2]}});
            }
        }
        const std::string bytes = bundle::encode_mega_cache(small);
        auto signed_small = bundle::sign_bundle(bytes, *key_);
        QVERIFY_RESULT(signed_small);
        const auto source = manifest_json(*signed_small)["source"].toObject();
        for (const char* fact : {"gpu", "torch_version", "triton_version", "cuda_version"}) {
            QVERIFY2(source[fact].isNull(), fact);
        }
        auto verified = bundle::verify_signed_bundle(*signed_small, key_->public_key());
        QVERIFY_RESULT(verified);
        QCOMPARE(verified->manifest.artifacts.size(), std::size_t{3});
        QCOMPARE(verified->bundle.sections.size(), std::size_t{3});
        // A flipped byte in the third artifact (second autotune section) names it.
        const Layout layout = layout_of(*signed_small);
        QCOMPARE(layout.artifacts.size(), std::size_t{3});
        const std::string error = verify_error(
            flipped(*signed_small, layout.artifacts[2].content_at + 5), key_->public_key());
        QVERIFY2(error.find("artifact 3 (autotune " + layout.artifacts[2].key + ")") !=
                     std::string::npos,
                 error.c_str());
    }

    void signsTheFormWithoutACrcUnchanged() {
        const std::string no_crc = plain_.substr(4);
        auto signed_no_crc = bundle::sign_bundle(no_crc, *key_);
        QVERIFY_RESULT(signed_no_crc);
        const Layout layout = layout_of(*signed_no_crc);
        QVERIFY(std::string_view(*signed_no_crc).substr(layout.payload_at) == no_crc);
        auto verified = bundle::verify_signed_bundle(*signed_no_crc, key_->public_key());
        QVERIFY_RESULT(verified);
        QCOMPARE(verified->bundle.form, bundle::MegaBundle::Form::NoCrc);
        QCOMPARE(verified->manifest.artifacts.size(), std::size_t{7});
        // Its last content byte flipped: named (no crc to fall back on).
        const std::string error =
            verify_error(flipped(*signed_no_crc, signed_no_crc->size() - 1), key_->public_key());
        QVERIFY2(error.find("artifact 7 (aot_autograd ") != std::string::npos, error.c_str());
    }

    void refusesToSignWhatIsNotAGoodBundle() {
        auto damaged = bundle::sign_bundle(flipped(plain_, 5000), *key_);
        QVERIFY(!damaged);
        QVERIFY2(damaged.error().message.find("crc32") != std::string::npos,
                 damaged.error().message.c_str());
        auto twice = bundle::sign_bundle(signed_, *key_);
        QVERIFY(!twice);
        QVERIFY(twice.error().message.find("signed already") != std::string::npos);
    }

    void flippedByteInEveryPartFails() {
        const auto& trusted = key_->public_key();
        const Layout layout = layout_of(signed_);
        auto expect = [&](std::size_t at, const std::string& needle, const char* part) {
            for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0x80}}) {
                const std::string error = verify_error(flipped(signed_, at, mask), trusted);
                QVERIFY2(!error.empty(), part);
                QVERIFY2(error.find(needle) != std::string::npos,
                         qPrintable(QString("%1 (offset %2): \"%3\" not in: %4")
                                        .arg(part)
                                        .arg(at)
                                        .arg(QString::fromStdString(needle))
                                        .arg(QString::fromStdString(error))));
                // Reading without the key refuses every flip outside the manifest
                // and signature too.
                if (at < layout.manifest_at || at >= layout.payload_at) {
                    QVERIFY2(!bundle::read_signed_bundle(flipped(signed_, at, mask)), part);
                }
            }
        };
        expect(0, "not a signed cachelens bundle", "magic");
        expect(23, "not a signed cachelens bundle", "magic");
        expect(layout.manifest_length_at, "offset 24", "manifest length, high byte");
        expect(layout.manifest_length_at + 7, "offset", "manifest length, low byte");
        expect(layout.manifest_at, "signature check failed", "manifest, first byte");
        expect(layout.manifest_at + 100, "signature check failed", "manifest");
        expect(layout.signature_length_at - 2, "signature check failed", "manifest, last byte");
        expect(layout.signature_length_at, "signature length", "signature length, high byte");
        expect(layout.signature_length_at + 7, "signature length", "signature length, low byte");
        expect(layout.signature_at, "signature check failed", "signature, first byte");
        expect(layout.signature_at + 63, "signature check failed", "signature, last byte");
        expect(layout.payload_at, "crc32", "payload crc");
        expect(layout.payload_at + 3, "crc32", "payload crc");
        expect(layout.payload_at + 4 + 7, "version", "payload version");
        for (std::size_t i = 0; i < layout.artifacts.size(); ++i) {
            const ArtifactAt& a = layout.artifacts[i];
            const std::string name =
                "artifact " + std::to_string(i + 1) + " (" + a.type + " " + a.key + ")";
            if (a.section_at != 0) {
                expect(a.section_at + 7, name, "section type length");
                expect(a.section_at + 9, name, "section type");
                const std::size_t count_at = a.section_at + 8 + u64_at(signed_, a.section_at);
                expect(count_at + 7, name, "section count, low byte");
                expect(count_at, name, "section count, high byte");
            }
            expect(a.key_at + 7, name, "key length");
            expect(a.key_at + 8, name, "key, first byte");
            expect(a.length_at - 1, name, "key, last byte");
            expect(a.length_at, name, "content length, high byte");
            expect(a.length_at + 7, name, "content length, low byte");
            expect(a.content_at, name + ": sha256", "content, first byte");
            expect(a.content_at + a.size / 2, name + ": sha256", "content, middle");
            expect(a.content_at + a.size - 1, name + ": sha256", "content, last byte");
        }
    }

    void flippedByteAnywhereFails() {
        // Every byte before the payload, then every 1009th byte of the payload:
        // none verifies, and each flip in the payload names an artifact, the
        // crc or the version.
        const auto& trusted = key_->public_key();
        const Layout layout = layout_of(signed_);
        std::string bytes = signed_;
        std::size_t checked = 0;
        for (std::size_t at = 0; at < bytes.size(); at += at < layout.payload_at ? 1 : 1009) {
            bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
            const std::string error = verify_error(bytes, trusted);
            bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
            QVERIFY2(!error.empty(), qPrintable(QString("offset %1 verifies").arg(at)));
            if (at >= layout.payload_at + 12) {
                QVERIFY2(error.find("artifact ") != std::string::npos,
                         qPrintable(QString("offset %1: %2").arg(at).arg(error.c_str())));
            }
            ++checked;
        }
        QCOMPARE(checked, layout.payload_at + (plain_.size() + 1008) / 1009);
    }

    void theSameArtifactsInOtherBytesFail() {
        // The autotune section split in two (with its crc made right): every
        // artifact is the signed one, but the payload is not the signed bytes.
        auto decoded = bundle::decode_mega_cache(plain_);
        QVERIFY_RESULT(decoded);
        bundle::MegaBundle split;
        for (const auto& section : decoded->sections) {
            if (section.type != "autotune") {
                split.sections.push_back(section);
                continue;
            }
            split.sections.push_back({"autotune", {section.artifacts[0], section.artifacts[1]}});
            split.sections.push_back({"autotune", {section.artifacts[2], section.artifacts[3]}});
        }
        const Layout layout = layout_of(signed_);
        const std::string other =
            signed_.substr(0, layout.payload_at) + bundle::encode_mega_cache(split);
        const std::string error = verify_error(other, key_->public_key());
        QVERIFY2(error.find("not the one the manifest lists") != std::string::npos, error.c_str());
    }

    void anotherKeyFails() {
        QVERIFY_RESULT(bundle::write_key_pair(path("other.key"), path("other.pub")));
        auto other = bundle::load_public_key(path("other.pub"));
        QVERIFY_RESULT(other);
        const std::string error = verify_error(signed_, *other);
        QVERIFY2(error.find(key_->public_key().fingerprint()) != std::string::npos, error.c_str());
        QVERIFY2(error.find(other->fingerprint()) != std::string::npos, error.c_str());
        // The signer's fingerprint in the manifest changed to the other key's:
        // the signature still fails.
        std::string forged = signed_;
        const std::size_t at = forged.find(key_->public_key().fingerprint());
        QVERIFY(at != std::string::npos);
        forged.replace(at, 64, other->fingerprint());
        QVERIFY(!verify_error(forged, *other).empty());
    }

    void cutShortFails() {
        const auto& trusted = key_->public_key();
        const Layout layout = layout_of(signed_);
        const std::pair<std::size_t, std::string> cuts[] = {
            {0, "not a signed"},
            {10, "cut short"},
            {28, "manifest length"},
            {layout.manifest_at + 10, "only"},
            {layout.signature_length_at + 3, "signature length"},
            {layout.signature_at + 30, "signature"},
            {layout.payload_at, "cut short"},
            {layout.payload_at + 2, "cut short"},
            {layout.artifacts[1].content_at + 1000, layout.artifacts[1].key},
            {layout.artifacts[4].key_at + 3, layout.artifacts[4].key},
            {signed_.size() - 1, layout.artifacts[6].key},
        };
        for (const auto& [size, needle] : cuts) {
            const std::string cut = signed_.substr(0, size);
            const std::string error = verify_error(cut, trusted);
            QVERIFY2(error.find(needle) != std::string::npos,
                     qPrintable(QString("cut at %1: \"%2\" not in: %3")
                                    .arg(size)
                                    .arg(needle.c_str())
                                    .arg(error.c_str())));
            QVERIFY(!bundle::read_signed_bundle(cut));
        }
        // Bytes appended after the payload are refused too.
        QVERIFY(!verify_error(signed_ + std::string(20, '\0'), trusted).empty());
    }

    void keyFiles() {
        // OpenSSL's own Ed25519 PEM loads; the pair belongs together.
        write_bytes(path("openssl.key"), kOpensslPrivate);
        write_bytes(path("openssl.pub"), kOpensslPublic);
        auto openssl_key = bundle::load_private_key(path("openssl.key"));
        QVERIFY_RESULT(openssl_key);
        auto openssl_pub = bundle::load_public_key(path("openssl.pub"));
        QVERIFY_RESULT(openssl_pub);
        QVERIFY(openssl_key->public_key() == *openssl_pub);
        QVERIFY(openssl_pub->verify("m", openssl_key->sign("m")));

        auto expect_error = [&](auto result, const fs::path& file, const char* needle) {
            QVERIFY2(!result, needle);
            QVERIFY2(result.error().path == file.string(), result.error().describe().c_str());
            QVERIFY2(result.error().message.find(needle) != std::string::npos,
                     result.error().describe().c_str());
        };
        write_bytes(path("rsa.key"), kRsaPrivate);
        write_bytes(path("rsa.pub"), kRsaPublic);
        expect_error(bundle::load_private_key(path("rsa.key")), path("rsa.key"),
                     "RSA, not Ed25519");
        expect_error(bundle::load_public_key(path("rsa.pub")), path("rsa.pub"), "RSA, not Ed25519");
        write_bytes(path("notes.txt"), "just some text\n");
        expect_error(bundle::load_private_key(path("notes.txt")), path("notes.txt"), "not a PEM");
        expect_error(bundle::load_public_key(path("notes.txt")), path("notes.txt"), "not a PEM");
        write_bytes(path("broken.key"),
                    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        expect_error(bundle::load_private_key(path("broken.key")), path("broken.key"),
                     "cannot read");
        expect_error(bundle::load_private_key(pub_file_), pub_file_, "not a private key");
        expect_error(bundle::load_public_key(key_file_), key_file_, "a private key");
        write_bytes(
            path("encrypted.key"),
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        expect_error(bundle::load_private_key(path("encrypted.key")), path("encrypted.key"),
                     "encrypted");
        auto missing = bundle::load_public_key(path("missing.pub"));
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, ErrorKind::NotFound);
        QVERIFY(missing.error().describe().find("missing.pub") != std::string::npos);
    }

    void keyPairFilesAreNeverOverwritten() {
        struct stat st {};
        QCOMPARE(::stat(key_file_.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        QCOMPARE(::stat(pub_file_.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0644u);
        const QByteArray before = test::read_file(key_file_);

        // Either file there: refused, naming it, the existing one untouched and
        // nothing else written (no temp files left, no lone half of a pair).
        const auto fresh_pub = path("fresh.pub");
        auto again = bundle::write_key_pair(key_file_, fresh_pub);
        QVERIFY(!again);
        QCOMPARE(again.error().path, key_file_.string());
        QVERIFY(again.error().message.find("already exists") != std::string::npos);
        QVERIFY(!fs::exists(fresh_pub));
        QCOMPARE(test::read_file(key_file_), before);
        const auto fresh_key = path("fresh.key");
        auto again_pub = bundle::write_key_pair(fresh_key, pub_file_);
        QVERIFY(!again_pub);
        QCOMPARE(again_pub.error().path, pub_file_.string());
        QVERIFY(!fs::exists(fresh_key));
        // A dangling symlink counts as there.
        fs::create_symlink(path("nowhere"), path("link.key"));
        QVERIFY(!bundle::write_key_pair(path("link.key"), path("link.pub")));
        QVERIFY(!fs::exists(path("nowhere")));
        // A dir that does not exist: an error, nothing left.
        auto no_dir = bundle::write_key_pair(path("no/such.key"), path("no/such.pub"));
        QVERIFY(!no_dir);
        for (const auto& entry : fs::directory_iterator(dir_.path().toStdString())) {
            QVERIFY2(entry.path().filename().string().front() != '.', entry.path().c_str());
        }
    }

    void cliKeygenVerifyAndLs() {
        const fs::path prefix = path("cli");
        const auto made = test::run_cli({"keygen", "-o", q(prefix), "--json"});
        QCOMPARE(made.exit_code, 0);
        const auto made_json = QJsonDocument::fromJson(made.out).object();
        QCOMPARE(made_json["private_key"].toString(), q(path("cli.key")));
        QCOMPARE(made_json["public_key"].toString(), q(path("cli.pub")));
        // Where it wrote, absolute.
        QCOMPARE(made_json["target"].toString(),
                 q(fs::weakly_canonical(path("cli.key")).parent_path()));
        auto cli_key = bundle::load_private_key(path("cli.key"));
        QVERIFY_RESULT(cli_key);
        QCOMPARE(made_json["fingerprint"].toString().toStdString(),
                 cli_key->public_key().fingerprint());
        struct stat st {};
        QCOMPARE(::stat(path("cli.key").c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        const auto refused = test::run_cli({"keygen", "-o", q(prefix)});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY2(refused.err.contains("cli.key") && refused.err.contains("already exists"),
                 refused.err.constData());

        auto signed_bytes = bundle::sign_bundle(plain_, *cli_key);
        QVERIFY_RESULT(signed_bytes);
        const fs::path file = path("mlp.signed");
        write_bytes(file, *signed_bytes);
        const QString pub = q(path("cli.pub"));

        const auto ok = test::run_cli({"verify", q(file), "--trust", pub});
        QCOMPARE(ok.exit_code, 0);
        QVERIFY2(ok.out.contains("signature verified"), ok.out.constData());
        const auto ok_json = test::run_cli({"verify", q(file), "--trust", pub, "--json"});
        QCOMPARE(ok_json.exit_code, 0);
        const auto report = QJsonDocument::fromJson(ok_json.out).object();
        QVERIFY(report["ok"].toBool() && report["signed"].toBool() &&
                report["signature_verified"].toBool());
        QCOMPARE(report["artifacts"].toInt(), 7);

        // Another key, a damaged file, no key: exit 1 saying why.
        const auto wrong = test::run_cli({"verify", q(file), "--trust", q(pub_file_)});
        QCOMPARE(wrong.exit_code, 1);
        QVERIFY2(wrong.out.contains(QByteArray::fromStdString(key_->public_key().fingerprint())),
                 wrong.out.constData());
        const Layout layout = layout_of(*signed_bytes);
        const fs::path damaged = path("damaged.signed");
        write_bytes(damaged, flipped(*signed_bytes, layout.artifacts[3].content_at + 100));
        const auto bad = test::run_cli({"verify", q(damaged), "--trust", pub});
        QCOMPARE(bad.exit_code, 1);
        QVERIFY2(bad.out.contains(QByteArray::fromStdString(layout.artifacts[3].key)),
                 bad.out.constData());
        const auto untrusted = test::run_cli({"verify", q(file)});
        QCOMPARE(untrusted.exit_code, 1);
        QVERIFY2(untrusted.out.contains("signed by") &&
                     untrusted.out.contains("nothing was trusted"),
                 untrusted.out.constData());

        // A plain PyTorch bundle: fine without --trust, "not signed" with it.
        const QString plain = q(test::fixture("devset/mega_mlp_train.bin"));
        const auto plain_ok = test::run_cli({"verify", plain});
        QCOMPARE(plain_ok.exit_code, 0);
        QVERIFY2(plain_ok.out.contains("unsigned"), plain_ok.out.constData());
        const auto plain_trusted = test::run_cli({"verify", plain, "--trust", pub});
        QCOMPARE(plain_trusted.exit_code, 1);
        QVERIFY2(plain_trusted.out.contains("not signed"), plain_trusted.out.constData());
        const fs::path plain_damaged = path("damaged.bin");
        write_bytes(plain_damaged, flipped(plain_, 5000));
        QCOMPARE(test::run_cli({"verify", q(plain_damaged)}).exit_code, 1);
        // Usage and I/O: exit 2.
        QCOMPARE(test::run_cli({"verify", q(file), "--trust", q(path("missing.pub"))}).exit_code,
                 2);
        QCOMPARE(test::run_cli({"verify", q(file), "--trust", q(path("cli.key"))}).exit_code, 2);
        QCOMPARE(test::run_cli({"verify", q(path("missing.bin"))}).exit_code, 2);
        QCOMPARE(test::run_cli({"verify", dir_.path(), "--trust", pub}).exit_code, 2);

        // bundle ls: the signer and the source machine, then the same artifacts;
        // the JSON is the same array as the plain bundle's.
        const auto listed = test::run_cli({"bundle", "ls", q(file)});
        QCOMPARE(listed.exit_code, 0);
        QVERIFY2(
            listed.out.contains(QByteArray::fromStdString(cli_key->public_key().fingerprint())),
            listed.out.constData());
        QVERIFY(listed.out.contains("NVIDIA H100 80GB HBM3"));
        QVERIFY(listed.out.contains(QByteArray::fromStdString(layout.artifacts[6].key)));
        const auto listed_json = test::run_cli({"bundle", "ls", q(file), "--json"});
        QCOMPARE(listed_json.exit_code, 0);
        QCOMPARE(listed_json.out, test::run_cli({"bundle", "ls", plain, "--json"}).out);
        const auto listed_damaged = test::run_cli({"bundle", "ls", q(damaged)});
        QCOMPARE(listed_damaged.exit_code, 2);
        QVERIFY(listed_damaged.err.contains(QByteArray::fromStdString(layout.artifacts[3].key)));
    }
};

QTEST_MAIN(TestSignedBundle)
#include "tst_signed_bundle.moc"
