// The mega-cache codec on the bundle PyTorch 2.11 wrote for the devset MLP:
// every artifact equals what PyTorch itself read back (golden.json "mega":
// type, key, sha256, size, in order); encoding the decoded bundle gives the
// same bytes; hostile and damaged bundles (bad crc, cut short, a length or
// count larger than the file, bad base64, another version, a pickle) are
// refused with what is wrong and where. Base64 against RFC 4648's vectors.
// The older forms (tests/data/bundle, written by make_type_enum_form.py and
// make_pickle_form.py): the type-enum form (the devset's autotune and AOT
// artifacts, with a crc and base64 keys, without one and UTF-8 keys) and the
// pickle form (protocols 4 and 2) decode to their artifacts and encode to
// the current form; a pickle that is not a bundle, one that REDUCEs
// os.system (never run), an unknown type enum and cut-short bundles are refused.

#include "test_paths.h"

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/base64.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/hash/sha256.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <random>
#include <set>
#include <tuple>

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

// What a bundle lists: (type, key, sha256 of the content), in order.
using Listing = std::vector<std::tuple<std::string, std::string, std::string>>;

Listing listing(const bundle::MegaBundle& decoded) {
    Listing out;
    for (const auto& section : decoded.sections) {
        for (const auto& artifact : section.artifacts) {
            out.emplace_back(section.type, artifact.key, hash::sha256_hex(artifact.content));
        }
    }
    return out;
}

std::string data_bytes(const std::string& name) {
    const QByteArray bytes = test::read_file(test::test_data("bundle/" + name));
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

// The devset bundle's autotune and aot_autograd artifacts, from golden.json:
// what make_type_enum_form.py re-laid in the type-enum form.
Listing devset_enum_subset() {
    const auto golden = test::read_json(test::fixture("devset/golden.json")).object();
    Listing out;
    for (const auto& entry : golden["mega"].toArray()) {
        if (entry.toObject()["path"].toString() != "mega_mlp_train.bin") {
            continue;
        }
        for (const auto& value : entry.toObject()["artifacts"].toArray()) {
            const auto artifact = value.toObject();
            const std::string type = artifact["type"].toString().toStdString();
            if (type == "autotune" || type == "aot_autograd") {
                out.emplace_back(type, artifact["key"].toString().toStdString(),
                                 artifact["content_sha256"].toString().toStdString());
            }
        }
    }
    return out;
}

// What make_pickle_form.py put in its pickles.
const Listing kPickleArtifacts = {
    {"inductor", "fabcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrs",
     "e0332281a64e6b2ef4ea5fa51bcc9d13a782942b68d70756b7dd392102fe2887"},
    {"autotune", "ab/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.best_config",
     "29f429864903f91dd44b7ba70d30fe4e247e2b4f427db245636864e26e606684"},
    {"pgo", "model.py:12:forward:0",
     "b5815a7cfea9f357281237bf920e40426c36d370e17451144dc1a1a932c4309d"},
};

std::string u64_bytes(std::uint64_t value) {
    std::string out(8, '\0');
    put_u64_at(out, 0, value);
    return out;
}

// One artifact of the type-enum form.
std::string enum_artifact(std::uint64_t type, std::string_view key, std::string_view content) {
    return u64_bytes(type) + u64_bytes(key.size()) + std::string(key) + u64_bytes(content.size()) +
           std::string(content);
}

// Pickle opcodes, to write hostile pickles by hand.
std::string p_global(std::string_view module, std::string_view name) {
    return "c" + std::string(module) + "\n" + std::string(name) + "\n";
}

std::string p_le32(std::size_t size) {
    std::string out;
    for (int i = 0; i < 4; ++i) {
        out += static_cast<char>((size >> (8 * i)) & 0xff);
    }
    return out;
}

std::string p_str(std::string_view text) {
    return "X" + p_le32(text.size()) + std::string(text);
}

std::string p_bytes(std::string_view data) {
    return "B" + p_le32(data.size()) + std::string(data);
}

// OrderedSet([...]) around `items` (each a CacheArtifact built with NEWOBJ/BUILD).
std::string p_ordered_set(const std::string& items) {
    return std::string("\x80\x02") + p_global("torch.utils._ordered_set", "OrderedSet") + "](" +
           items + "e\x85R.";
}

// A CacheArtifact whose state dict holds `fields` (pickled key/value pairs).
std::string p_artifact(const std::string& fields) {
    return p_global("torch.compiler._cache", "CacheArtifact") + ")\x81}(" + fields + "ub";
}

// base64 a bit at a time, as RFC 4648 describes it: the reference the table
// codecs are checked against.
std::string reference_base64(const std::string& bytes) {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::uint32_t bits = 0;
    int held = 0;
    for (const char c : bytes) {
        bits = (bits << 8) | static_cast<unsigned char>(c);
        held += 8;
        while (held >= 6) {
            held -= 6;
            out += alphabet[(bits >> held) & 63];
        }
    }
    if (held > 0) {
        out += alphabet[(bits << (6 - held)) & 63];
    }
    while (out.size() % 4 != 0) {
        out += '=';
    }
    return out;
}

// What base64_decode must answer for text that is not base64: the error it
// has always given (the first character outside the alphabet before the
// padding), or nullopt when the text is fine.
std::optional<std::string> reference_base64_error(const std::string& text) {
    if (text.size() % 4 != 0) {
        return "base64 text of " + std::to_string(text.size()) + " characters: not a multiple of 4";
    }
    std::size_t padding = 0;
    if (!text.empty() && text.back() == '=') {
        padding = text[text.size() - 2] == '=' ? 2 : 1;
    }
    const std::string_view alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t at = 0; at < text.size() - padding; ++at) {
        if (alphabet.find(text[at]) == std::string_view::npos) {
            return "base64: bad character at offset " + std::to_string(at);
        }
    }
    return std::nullopt;
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
        for (const char* bad :
             {"Zg=", "Z===", "Zm9v!A==", "Zg==Zg==", "=Zg=", "Zg=A", "Zm9v====", "Zm=v", "===="}) {
            QVERIFY2(!base64_decode(bad).has_value(), bad);
        }
        auto offset = base64_decode("Zm9vYm!y");
        QVERIFY(!offset);
        QCOMPARE(offset.error().message, std::string("base64: bad character at offset 6"));
    }

    // Every length and tail against Qt's codec, on bytes of every value.
    void base64AgreesWithQtOnEveryLength() {
        std::string bytes;
        for (int size = 0; size < 260; ++size) {
            const QByteArray qt = QByteArray::fromStdString(bytes).toBase64();
            const std::string encoded = base64_encode(bytes);
            QCOMPARE(QByteArray::fromStdString(encoded), qt);
            auto decoded = base64_decode(encoded);
            QVERIFY_RESULT(decoded);
            QCOMPARE(*decoded, bytes);
            bytes += static_cast<char>((size * 167 + 13) & 0xff);
        }
    }

    // The folded crc (carry-less multiplication) against the bit-by-bit
    // definition (reflected 0xEDB88320, inverted before and after, as zlib's),
    // on every length up to past two folding steps, at unaligned starts, and
    // on a buffer of megabytes.
    void crc32AgreesWithTheDefinition() {
        const auto reference = [](std::string_view bytes) {
            std::uint32_t crc = 0xffffffffU;
            for (const char byte : bytes) {
                crc ^= static_cast<unsigned char>(byte);
                for (int bit = 0; bit < 8; ++bit) {
                    crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1U)));
                }
            }
            return ~crc;
        };
        QCOMPARE(bundle::crc32("123456789"), 0xcbf43926U);
        QCOMPARE(bundle::crc32(""), 0U);
        std::string random(3 << 20, '\0');
        std::uint64_t state = 0x9e3779b97f4a7c15ULL;
        for (char& byte : random) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            byte = static_cast<char>(state >> 56);
        }
        const std::string_view bytes = random;
        for (const std::size_t start : {0, 1, 5, 8, 15}) {
            for (std::size_t size = 0; size <= 1100; ++size) {
                const auto slice = bytes.substr(start, size);
                QCOMPARE(bundle::crc32(slice), reference(slice));
            }
        }
        QCOMPARE(bundle::crc32(bytes.substr(3)), reference(bytes.substr(3)));
        const std::string zeros(100000, '\0');
        QCOMPARE(bundle::crc32(zeros), reference(zeros));
    }

    // A crc carried from one piece to the next is the crc of the whole, at
    // every split, across the folding sizes.
    void crc32UpdateContinuesOverPieces() {
        std::string bytes(5000, '\0');
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            bytes[i] = static_cast<char>((i * 131 + 7) & 0xff);
        }
        const std::string_view all = bytes;
        for (const std::size_t split : {0, 1, 15, 255, 256, 257, 1024, 4999, 5000}) {
            const std::uint32_t first = bundle::crc32(all.substr(0, split));
            QCOMPARE(bundle::crc32_update(first, all.substr(split)), bundle::crc32(all));
        }
        QCOMPARE(bundle::crc32_update(0, all), bundle::crc32(all));
    }

    // An export writes the encoding as pieces without joining them: the
    // pieces are encode_mega_cache()'s bytes, each content a view of the
    // bundle's own bytes (not a copy), and a file written from more pieces
    // than one writev takes (1024), empty ones among them, holds them all.
    void encodedPiecesAreTheBundleWrittenWithoutACopy() {
        bundle::MegaBundle bundle;
        bundle.sections.push_back({"inductor", {}});
        bundle.sections.push_back({"autotune", {}});
        for (int i = 0; i < 1500; ++i) {
            std::string content(static_cast<std::size_t>(i % 7 == 0 ? 0 : 100 + i), '\0');
            for (std::size_t j = 0; j < content.size(); ++j) {
                content[j] = static_cast<char>((i + j * 13) & 0xff);
            }
            bundle.sections[static_cast<std::size_t>(i % 2)].artifacts.push_back(
                {"key-" + std::to_string(i), std::move(content)});
        }
        const std::string joined = bundle::encode_mega_cache(bundle);
        const auto encoded = bundle::encode_mega_cache_pieces(bundle);
        QVERIFY(encoded.pieces().size() > 2048);
        QCOMPARE(encoded.size(), joined.size());
        std::string concatenated;
        for (const auto piece : encoded.pieces()) {
            concatenated += piece;
        }
        QVERIFY(concatenated == joined);
        std::set<const char*> contents;
        for (const auto& section : bundle.sections) {
            for (const auto& artifact : section.artifacts) {
                if (!artifact.content.empty()) {
                    contents.insert(artifact.content.view().data());
                }
            }
        }
        std::size_t viewed = 0;
        for (const auto piece : encoded.pieces()) {
            viewed += contents.contains(piece.data()) ? 1 : 0;
        }
        QCOMPARE(viewed, contents.size());

        QTemporaryDir temp;
        const std::filesystem::path file =
            std::filesystem::path(temp.path().toStdString()) / "pieces.bin";
        QVERIFY_RESULT(replace_file_atomically(file, encoded.pieces()));
        QFile written(QString::fromStdString(file.string()));
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(written.readAll().toStdString() == joined);
        auto decoded = bundle::decode_mega_cache(joined);
        QVERIFY_RESULT(decoded);
        QCOMPARE(decoded->artifact_count(), std::size_t{1500});
    }

    // The table codecs against the reference on every length from 0 to 300,
    // on random bytes (three seeds) and on runs of every byte value.
    void base64AgreesWithTheReferenceOnEveryLength() {
        std::mt19937 random(20261123);
        for (int round = 0; round < 4; ++round) {
            for (std::size_t size = 0; size <= 300; ++size) {
                std::string bytes(size, '\0');
                for (std::size_t i = 0; i < size; ++i) {
                    bytes[i] = round == 3 ? static_cast<char>((i * 7 + size) & 0xff)
                                          : static_cast<char>(random() & 0xff);
                }
                const std::string encoded = base64_encode(bytes);
                QCOMPARE(encoded, reference_base64(bytes));
                QCOMPARE(encoded.size(), base64_encoded_size(size));
                std::string into(encoded.size() + 2, '#');
                base64_encode_to(bytes, into.data());
                QCOMPARE(into, encoded + "##"); // nothing written past the end
                auto decoded = base64_decode(encoded);
                QVERIFY_RESULT(decoded);
                QCOMPARE(*decoded, bytes);
            }
        }
    }

    // Text that is not base64 is refused with the same error as before the
    // table decoder: a bad character at every place of every length up to
    // 64, padding in the wrong place, wrong lengths.
    void base64RefusesWhatItAlwaysRefused() {
        const std::string valid = reference_base64(std::string(48, '\x5a')) + "QUJD";
        const std::string bad_characters = std::string("=!-_ .\n\x80\xff") + '\0';
        for (std::size_t size = 1; size <= 64; ++size) {
            for (const std::string& base :
                 {valid.substr(0, size), valid.substr(0, size - 1) + "=",
                  size >= 2 ? valid.substr(0, size - 2) + "==" : std::string("=")}) {
                for (std::size_t at = 0; at < base.size(); ++at) {
                    for (const char bad : bad_characters) {
                        std::string text = base;
                        text[at] = bad;
                        const auto expected = reference_base64_error(text);
                        const auto decoded = base64_decode(text);
                        QVERIFY2(decoded.has_value() == !expected.has_value(), text.c_str());
                        if (expected) {
                            QCOMPARE(decoded.error().message, *expected);
                            QCOMPARE(decoded.error().kind, ErrorKind::Corrupt);
                        }
                    }
                }
            }
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
        // Where its graphs were compiled: read from them (it is not signed).
        const auto text = test::run_cli({"bundle", "ls", file});
        QCOMPARE(text.exit_code, 0);
        QVERIFY2(text.out.contains("\ncompiled on NVIDIA H100 80GB HBM3 (sm90), CUDA 13.0, "
                                   "Triton 3.6.0, torch build bhbxfhox, torch 2.11.0+cu130 for "
                                   "cuda\n"),
                 text.out.constData());
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
        QVERIFY2(refused.err.contains("not a PyTorch cache bundle"), refused.err.constData());
        QVERIFY(!refused.err.contains("crc32 mismatch"));
    }

    void aFileThatIsNotABundleIsNotCalledDamaged() {
        // What the user typed: printf garbage > x.bin. Not a damaged bundle.
        QTemporaryDir temp;
        const QString garbage = temp.filePath("x.bin");
        QFile file(garbage);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("garbage");
        file.close();
        const QString damaged = temp.filePath("damaged.bin");
        std::string flipped = bundle_bytes();
        flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 1);
        QFile damaged_file(damaged);
        QVERIFY(damaged_file.open(QIODevice::WriteOnly));
        damaged_file.write(flipped.data(), static_cast<qint64>(flipped.size()));
        damaged_file.close();
        const QString cache = temp.filePath("cache");
        const std::vector<QStringList> commands = {
            {"bundle", "ls"}, {"import", "--dry-run", "--into", cache}, {"verify"}};
        for (const auto& command : commands) {
            const auto not_one = test::run_cli(QStringList(command) << garbage);
            QCOMPARE(not_one.exit_code, 2);
            QVERIFY2(not_one.err.contains((garbage + ": not a PyTorch cache bundle").toUtf8()),
                     not_one.err.constData());
            QVERIFY(not_one.err.contains("67 61 72 62 61 67 65 (\"garbage\")"));
            QVERIFY(!not_one.err.contains("damaged"));
            // A real bundle that fails its crc is damaged: verify finds it (1), the others
            // cannot read it (2).
            const auto broken = test::run_cli(QStringList(command) << damaged);
            QCOMPARE(broken.exit_code, command[0] == "verify" ? 1 : 2);
            QVERIFY2((broken.err + broken.out).contains("crc32 mismatch"), broken.err.constData());
            QVERIFY((broken.err + broken.out).contains("(damaged or truncated)"));
        }
        QVERIFY(!bundle::looks_like_mega_cache("garbage"));
        QVERIFY(!bundle::looks_like_mega_cache("{\n  \"fxgraph\": []\n}\n"));
        QVERIFY(bundle::looks_like_mega_cache(bundle_bytes()));
        QVERIFY(bundle::looks_like_mega_cache(bundle_bytes().substr(0, 9))); // cut short
        QVERIFY(bundle::looks_like_mega_cache(std::string_view(bundle_bytes()).substr(4)));
        QVERIFY(bundle::looks_like_mega_cache(std::string("\x80\x04\x95", 3)));
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
        cases.push_back({"empty", std::string(), "an empty file, not a PyTorch cache bundle"});
        cases.push_back({"cut in the version", bytes.substr(0, 9), "at least 12 bytes"});
        cases.push_back({"not a bundle", std::string("garbage\n"), "not a PyTorch cache bundle"});
        cases.push_back({"JSON", std::string(64, ' ') + "{}", "not a PyTorch cache bundle"});
        for (const auto& c : cases) {
            auto decoded = bundle::decode_mega_cache(c.bytes);
            QVERIFY2(!decoded.has_value(), c.name);
            QVERIFY2(decoded.error().message.find(c.says) != std::string::npos,
                     (std::string(c.name) + ": " + decoded.error().message).c_str());
        }
    }

    void readsTheTypeEnumForm() {
        const Listing expected = devset_enum_subset();
        QCOMPARE(expected.size(), std::size_t{5});
        for (const char* name : {"type_enum_form.bin", "type_enum_nocrc.bin"}) {
            auto decoded = bundle::decode_mega_cache(data_bytes(name));
            QVERIFY_RESULT(decoded);
            QCOMPARE(decoded->form, bundle::MegaBundle::Form::TypeEnum);
            QVERIFY2(listing(*decoded) == expected, name);
            // Consecutive artifacts of one type make one section.
            QCOMPARE(decoded->sections.size(), std::size_t{2});
            QCOMPARE(decoded->sections[0].type, std::string("autotune"));
            QCOMPARE(decoded->sections[0].artifacts.size(), std::size_t{4});
        }
        QCOMPARE(bundle::to_string(bundle::MegaBundle::Form::TypeEnum),
                 std::string_view("type-enum"));
        // The crc of the enum form is checked like the current form's.
        std::string flipped = data_bytes("type_enum_form.bin");
        flipped[flipped.size() - 10] = static_cast<char>(flipped[flipped.size() - 10] ^ 1);
        auto damaged = bundle::decode_mega_cache(flipped);
        QVERIFY(!damaged.has_value());
        QVERIFY(damaged.error().message.find("crc32 mismatch") != std::string::npos);
    }

    void typeEnumFormIsTheDevsetArtifacts() {
        // The same artifacts as the current form: encoding the devset bundle's
        // autotune and AOT sections gives the bytes the enum form encodes to.
        auto current = bundle::decode_mega_cache(bundle_bytes());
        QVERIFY_RESULT(current);
        bundle::MegaBundle subset;
        for (const auto& section : current->sections) {
            if (section.type != "inductor") {
                subset.sections.push_back(section);
            }
        }
        const std::string want = bundle::encode_mega_cache(subset);
        for (const char* name : {"type_enum_form.bin", "type_enum_nocrc.bin"}) {
            auto decoded = bundle::decode_mega_cache(data_bytes(name));
            QVERIFY_RESULT(decoded);
            QVERIFY2(bundle::encode_mega_cache(*decoded) == want, name);
        }
    }

    void typeEnumTextIsBase64OrUtf8() {
        // A key is base64 when that decodes to printable text, else UTF-8; an
        // FX key is valid base64 but decodes to binary, so it stays as written.
        const std::string fx_key = "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e";
        QVERIFY(base64_decode(fx_key).has_value());
        const std::string stream =
            u64_bytes(1) + enum_artifact(1, base64_encode("ab/c.best_config"), "{}") +
            enum_artifact(1, "r\xc3\xa9sum\xc3\xa9", "x") + enum_artifact(0, fx_key, "fx") +
            enum_artifact(1, "", "") + enum_artifact(3, "code:1", "pgo");
        auto decoded = bundle::decode_mega_cache(stream);
        QVERIFY_RESULT(decoded);
        QCOMPARE(decoded->form, bundle::MegaBundle::Form::TypeEnum);
        const Listing expected = {{"autotune", "ab/c.best_config", hash::sha256_hex("{}")},
                                  {"autotune", "r\xc3\xa9sum\xc3\xa9", hash::sha256_hex("x")},
                                  {"inductor", fx_key, hash::sha256_hex("fx")},
                                  {"autotune", "", hash::sha256_hex("")},
                                  {"pgo", "code:1", hash::sha256_hex("pgo")}};
        QVERIFY(listing(*decoded) == expected);
        // Runs of one type: autotune x2, inductor, autotune, pgo.
        QCOMPARE(decoded->sections.size(), std::size_t{4});
        auto again = bundle::decode_mega_cache(bundle::encode_mega_cache(*decoded));
        QVERIFY_RESULT(again);
        QCOMPARE(again->form, bundle::MegaBundle::Form::Crc32);
        QVERIFY(listing(*again) == expected);

        auto binary = bundle::decode_mega_cache(u64_bytes(1) + enum_artifact(0, "\xff\xfe", "x"));
        QVERIFY(!binary.has_value());
        QVERIFY2(binary.error().message.find("neither base64 of text nor UTF-8") !=
                     std::string::npos,
                 binary.error().message.c_str());
    }

    void crcThatLooksLikeAPickleIsACrc() {
        // 0x80 then 2..5 opens a pickle, but a crc32 can start so too: with a
        // version after it, it is the current form. Find such a bundle.
        bundle::MegaBundle made;
        made.sections.push_back({"autotune", {{"k", ""}}});
        bool found = false;
        for (int i = 0; i < (1 << 22) && !found; ++i) {
            made.sections[0].artifacts[0].content = std::to_string(i);
            const std::string bytes = bundle::encode_mega_cache(made);
            if (static_cast<std::uint8_t>(bytes[0]) != 0x80 || bytes[1] < 2 || bytes[1] > 5) {
                continue;
            }
            found = true;
            auto decoded = bundle::decode_mega_cache(bytes);
            QVERIFY_RESULT(decoded);
            QCOMPARE(decoded->form, bundle::MegaBundle::Form::Crc32);
            QVERIFY(listing(*decoded) == listing(made));
        }
        QVERIFY(found);
    }

    void readsThePickleForm() {
        for (const char* name : {"pickle_form.bin", "pickle_form_p2.bin"}) {
            auto decoded = bundle::decode_mega_cache(data_bytes(name));
            QVERIFY_RESULT(decoded);
            QCOMPARE(decoded->form, bundle::MegaBundle::Form::Pickle);
            QVERIFY2(listing(*decoded) == kPickleArtifacts, name);
            QCOMPARE(decoded->sections.size(), std::size_t{3});
            // Encoded, it is a current-form bundle with the same artifacts.
            auto again = bundle::decode_mega_cache(bundle::encode_mega_cache(*decoded));
            QVERIFY_RESULT(again);
            QCOMPARE(again->form, bundle::MegaBundle::Form::Crc32);
            QVERIFY2(listing(*again) == kPickleArtifacts, name);
        }
        QCOMPARE(bundle::to_string(bundle::MegaBundle::Form::Pickle), std::string_view("pickle"));
        // A str type and the per-type subclasses (no type field) read too.
        const std::string typed = p_ordered_set(
            p_artifact(p_str("type") + p_str("precompile") + p_str("key") + p_str("k1") +
                       p_str("content") + p_bytes("one")) +
            p_global("torch.compiler._cache", "AOTAutogradCacheArtifact") + ")\x81}(" +
            p_str("key") + p_str("k2") + p_str("content") + p_bytes("two") + "ub");
        auto decoded = bundle::decode_mega_cache(typed);
        QVERIFY_RESULT(decoded);
        const Listing expected = {{"precompile", "k1", hash::sha256_hex("one")},
                                  {"aot_autograd", "k2", hash::sha256_hex("two")}};
        QVERIFY(listing(*decoded) == expected);
    }

    void encodesOlderFormsInTheCurrentOne() {
        for (const char* name : {"type_enum_form.bin", "type_enum_nocrc.bin", "pickle_form.bin",
                                 "pickle_form_p2.bin"}) {
            auto decoded = bundle::decode_mega_cache(data_bytes(name));
            QVERIFY_RESULT(decoded);
            const std::string encoded = bundle::encode_mega_cache(*decoded);
            auto again = bundle::decode_mega_cache(encoded);
            QVERIFY_RESULT(again);
            QCOMPARE(again->form, bundle::MegaBundle::Form::Crc32);
            QVERIFY2(listing(*again) == listing(*decoded), name);
            // And the current form is a fixed point.
            QVERIFY2(bundle::encode_mega_cache(*again) == encoded, name);
        }
    }

    void refusesHostileOlderForms() {
        struct Case {
            const char* name;
            std::string bytes;
            const char* says;
        };
        std::vector<Case> cases;
        cases.push_back({"type enum 7",
                         u64_bytes(1) + enum_artifact(1, "k", "c") + enum_artifact(7, "k", "c"),
                         "artifact type 7"});
        const std::string enum_form = data_bytes("type_enum_nocrc.bin");
        cases.push_back({"enum form cut in a type", enum_form.substr(0, 8 + 4), "needs 8 bytes"});
        cases.push_back({"enum form cut in a key", enum_form.substr(0, 8 + 8 + 8 + 30), "only"});
        cases.push_back({"enum form cut in the last content",
                         enum_form.substr(0, enum_form.size() - 1), "only"});
        std::string huge = enum_form;
        put_u64_at(huge, 8 + 8, std::uint64_t{1} << 62);
        cases.push_back({"enum form key longer than the file", huge, "only"});
        const std::string enum_crc = data_bytes("type_enum_form.bin");
        cases.push_back(
            {"crc enum form cut short", enum_crc.substr(0, enum_crc.size() - 7), "crc32 mismatch"});
        cases.push_back({"crc enum form cut short, crc fixed",
                         with_crc(enum_crc.substr(0, enum_crc.size() - 7)), "only"});
        cases.push_back({"a pickle of tuples", data_bytes("pickle_not_artifacts.bin"),
                         "item 0 is a tuple, not a CacheArtifact"});
        cases.push_back({"a pickle of a dict", std::string("\x80\x02}.", 4), "holds a dict"});
        cases.push_back({"a pickle that does not decode", std::string("\x80\x04\x95", 3),
                         "a pickle that does not decode"});
        const std::string no_key = p_ordered_set(
            p_artifact(p_str("type") + p_str("autotune") + p_str("content") + p_bytes("x")));
        cases.push_back({"an artifact without a key", no_key, "item 0 has no str key"});
        const std::string bad_enum = p_ordered_set(
            p_artifact(p_str("type") + p_global("torch.compiler._cache", "CacheArtifactType") +
                       "K\x09\x85R" + p_str("key") + p_str("k") + p_str("content") + p_bytes("x")));
        cases.push_back({"CacheArtifactType(9)", bad_enum, "other than 0 to 3"});
        // Encoded, an empty type would read back as the type-enum form.
        const std::string empty_type =
            p_ordered_set(p_artifact(p_str("type") + p_str("") + p_str("key") + p_str("k") +
                                     p_str("content") + p_bytes("x")));
        cases.push_back({"an empty type name", empty_type, "type name of 0 bytes"});
        // Two artifacts sharing one 4 KiB content through the memo: a small
        // pickle may not make a bundle larger than itself.
        const std::string shared =
            p_ordered_set(p_artifact(p_str("type") + p_str("autotune") + p_str("key") + p_str("a") +
                                     p_str("content") + p_bytes(std::string(4096, 'z')) + "q\x01") +
                          p_artifact(p_str("type") + p_str("autotune") + p_str("key") + p_str("b") +
                                     p_str("content") + "h\x01"));
        cases.push_back({"shared content", shared, "they share objects"});
        for (const auto& c : cases) {
            auto decoded = bundle::decode_mega_cache(c.bytes);
            QVERIFY2(!decoded.has_value(), c.name);
            QVERIFY2(decoded.error().message.find(c.says) != std::string::npos,
                     (std::string(c.name) + ": " + decoded.error().message).c_str());
        }
        // Every cut inside the first enum-form artifact (it ends at 368) fails.
        for (std::size_t cut = 9; cut < 368; ++cut) {
            QVERIFY2(!bundle::decode_mega_cache(enum_form.substr(0, cut)).has_value(),
                     std::to_string(cut).c_str());
        }
        auto first = bundle::decode_mega_cache(enum_form.substr(0, 368));
        QVERIFY_RESULT(first);
        QCOMPARE(first->artifact_count(), std::size_t{1});
    }

    void neverRunsAPickledCall() {
        // pickle.loads would run `touch MARKER`; cachelens must refuse it as
        // data, alone or inside an artifact, and the marker must not appear.
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const std::filesystem::path marker =
            std::filesystem::path(temp.path().toStdString()) / "pwned";
        const std::string call =
            p_global("os", "system") + p_str("touch " + marker.string()) + "\x85R";
        const std::string bare = "\x80\x02" + call + ".";
        const std::string inside =
            p_ordered_set(p_artifact(p_str("type") + p_str("autotune") + p_str("key") + call +
                                     p_str("content") + p_bytes("x")));
        for (const auto& bytes : {bare, inside}) {
            auto decoded = bundle::decode_mega_cache(bytes);
            QVERIFY(!decoded.has_value());
            QVERIFY2(decoded.error().message.find(
                         "not a mega-cache bundle: it refers to os.system") != std::string::npos,
                     decoded.error().message.c_str());
            const std::filesystem::path file =
                std::filesystem::path(temp.path().toStdString()) / "hostile.bin";
            QFile out(QString::fromStdString(file.string()));
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(bytes.data(), static_cast<qint64>(bytes.size()));
            out.close();
            const auto run = test::run_cli({"bundle", "ls", QString::fromStdString(file.string())});
            QCOMPARE(run.exit_code, 2);
            QVERIFY2(run.err.contains("os.system"), run.err.constData());
        }
        QVERIFY(!std::filesystem::exists(marker));
    }

    void cliListsEveryForm() {
        const std::pair<const char*, Listing> files[] = {
            {"type_enum_form.bin", devset_enum_subset()},
            {"type_enum_nocrc.bin", devset_enum_subset()},
            {"pickle_form.bin", kPickleArtifacts},
            {"pickle_form_p2.bin", kPickleArtifacts}};
        for (const auto& [name, expected] : files) {
            const QString file =
                QString::fromStdString(test::test_data(std::string("bundle/") + name).string());
            const auto run = test::run_cli({"bundle", "ls", file, "--json"});
            QCOMPARE(run.exit_code, 0);
            Listing listed;
            for (const auto& value : QJsonDocument::fromJson(run.out).array()) {
                const auto got = value.toObject();
                listed.emplace_back(got["type"].toString().toStdString(),
                                    got["key"].toString().toStdString(),
                                    got["sha256"].toString().toStdString());
            }
            QVERIFY2(listed == expected, name);
            const auto plain = test::run_cli({"bundle", "ls", file});
            QCOMPARE(plain.exit_code, 0);
            QVERIFY2(plain.out.contains(std::get<1>(expected.front()).c_str()), name);
        }
        const QString not_bundle =
            QString::fromStdString(test::test_data("bundle/pickle_not_artifacts.bin").string());
        const auto refused = test::run_cli({"bundle", "ls", not_bundle});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY(refused.err.contains("pickle_not_artifacts.bin"));
        QVERIFY(refused.err.contains("not a CacheArtifact"));
    }
};

QTEST_MAIN(TestMegaCache)
#include "tst_mega_cache.moc"
