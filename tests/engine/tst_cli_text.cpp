// Text from a cache is data, never terminal control: what `cachelens` prints
// for people (stdout and stderr) escapes control characters, C1 controls,
// bidi and line-separator code points and invalid UTF-8; `--json` carries
// the exact strings.

#include "test_paths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

// A .best_config name and values that clear the screen, retitle the
// terminal, ring, back up, return to the line start and flip the text.
const std::string kHostileName = "\x1b[2J\x1b]0;pwned\x07\b\r\u2028\u202e"
                                 "evil";
const QByteArray kHostileNameShown = R"(\x1b[2J\x1b]0;pwned\x07\x08\r\u2028\u202eevil)";
const std::string kConfigsHash = "\x1b[2J\x1b]0;title\x07";
const std::string kTritonHash = "A\rB\u0085C\u2029D\x7f";

// Nothing a terminal acts on: no C0 control but \n and \t, no DEL, no C1, no
// U+2028/U+2029 or bidi control, valid UTF-8.
bool inert(const QByteArray& bytes) {
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            qWarning("control byte 0x%02x at %lld: %s", c, static_cast<long long>(i),
                     bytes.mid(std::max<qsizetype>(0, i - 40), 80).toPercentEncoding().constData());
            return false;
        }
    }
    const QString text = QString::fromUtf8(bytes);
    if (text.toUtf8() != bytes) {
        qWarning("not UTF-8: %s", bytes.left(400).toPercentEncoding().constData());
        return false;
    }
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if ((u >= 0x80 && u <= 0x9f) || u == 0x2028 || u == 0x2029 ||
            (u >= 0x202a && u <= 0x202e) || (u >= 0x2066 && u <= 0x2069) || u == 0x200e ||
            u == 0x200f || u == 0x061c) {
            qWarning("U+%04x in %s", u, qPrintable(text.left(400)));
            return false;
        }
    }
    return true;
}

QJsonDocument parse_json(const QByteArray& out) {
    QJsonParseError error{};
    auto doc = QJsonDocument::fromJson(out, &error);
    if (error.error != QJsonParseError::NoError) {
        qWarning("not JSON (%s): %s", qPrintable(error.errorString()), out.left(400).constData());
    }
    return doc;
}

QString qs(const std::string& bytes) {
    return QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size()));
}

void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace

class TestCliText : public QObject {
    Q_OBJECT

private slots:
    void init() {
        QVERIFY(temp_.emplace().isValid());
        root_ = fs::path(temp_->path().toStdString()) / "cache";
        dir_ = qs(root_.string());
        write(root_ / "ab" / (kHostileName + ".best_config"),
              R"({"XBLOCK": 8, "num_warps": 2, "num_stages": 1, )"
              R"("configs_hash": "\u001b[2J\u001b]0;title\u0007", "found_by_coordesc": false, )"
              R"("time_taken_ms": 3, "triton_cache_hash": "A\rB\u0085C\u2029D\u007f"})");
    }

    void cleanup() {
        // QTemporaryDir cannot name a file that is not UTF-8: remove the tree first.
        std::error_code ignored;
        fs::remove_all(root_, ignored);
        temp_.reset();
    }

    void showEscapesWhatACacheHolds() {
        const QString path = qs("ab/" + kHostileName + ".best_config");
        const auto run = test::run_cli({"show", dir_, path});
        QCOMPARE(run.exit_code, 0);
        QVERIFY(inert(run.out));
        QVERIFY(run.out.contains("best_config " + kHostileNameShown));
        QVERIFY(run.out.contains(R"(configs hash           \x1b[2J\x1b]0;title\x07)"));
        QVERIFY(run.out.contains(R"(winner cubin           triton/0/A\rB\u0085C\u2029D\x7f)"));
        // cachelens's own layout is kept.
        QVERIFY(run.out.contains("\n  path "));
    }

    void jsonCarriesTheExactStrings() {
        const QString path = qs("ab/" + kHostileName + ".best_config");
        const auto run = test::run_cli({"show", dir_, path, "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto json = parse_json(run.out).object();
        QCOMPARE(json["key"].toString(), qs(kHostileName));
        QCOMPARE(json["configs_hash"].toString(), qs(kConfigsHash));
        QCOMPARE(json["triton_cache_hash"].toString(), qs(kTritonHash));
        // Written exact, not through the terminal's escaping: JSON escapes the
        // ASCII controls itself and keeps U+2029 and DEL as they are.
        QVERIFY(run.out.contains(R"(\u001b[2J\u001b]0;title\u0007)"));
        QVERIFY(run.out.contains("C\u2029D\x7f"));

        const auto ls = test::run_cli({"ls", dir_, "--json"});
        QCOMPARE(ls.exit_code, 0);
        QCOMPARE(parse_json(ls.out).array()[0].toObject()["key"].toString(), qs(kHostileName));
    }

    void listingsAndReportsEscape() {
        const auto ls = test::run_cli({"ls", dir_});
        QCOMPARE(ls.exit_code, 0);
        QVERIFY(inert(ls.out));
        QVERIFY(ls.out.contains(kHostileNameShown));

        // The name is no sha256 of the kernel: verify names the file.
        const auto verify = test::run_cli({"verify", dir_});
        QCOMPARE(verify.exit_code, 1);
        QVERIFY(inert(verify.out));
        QVERIFY(verify.out.contains("ab/" + kHostileNameShown + ".best_config"));

        const QString catalog = temp_->filePath("catalog.sqlite");
        const auto index = test::run_cli({"index", "--catalog", catalog, dir_});
        QCOMPARE(index.exit_code, 0);
        QVERIFY(inert(index.out));
        QVERIFY(inert(index.err));
        const auto search = test::run_cli({"search", "--catalog", catalog, ""});
        QCOMPARE(search.exit_code, 0);
        QVERIFY(inert(search.out));
        QVERIFY(search.out.contains(kHostileNameShown));
    }

    void errorsOnStderrEscape() {
        const auto missing = test::run_cli({"show", dir_, qs("\x1b]0;pwned\x07nothing\r")});
        QCOMPARE(missing.exit_code, 2);
        QVERIFY(inert(missing.err));
        QVERIFY(missing.err.contains(R"(nothing matches '\x1b]0;pwned\x07nothing\r')"));

        write(root_ / "cd" / (kHostileName + "2.best_config"), "{\"XBLOCK\": \x1b");
        const auto broken =
            test::run_cli({"show", dir_, qs("cd/" + kHostileName + "2.best_config")});
        QCOMPARE(broken.exit_code, 2);
        QVERIFY(inert(broken.err));
        QVERIFY(broken.err.contains("cd/" + kHostileNameShown + "2.best_config"));

        // CLI11's own messages quote what was typed.
        const auto bad_option = test::run_cli({"ls", dir_, qs("--\x1b[2Jsausage")});
        QCOMPARE(bad_option.exit_code, 2);
        QVERIFY(inert(bad_option.err));
        QVERIFY(bad_option.err.contains(R"(\x1b[2Jsausage)"));
    }

    void bytesThatAreNotUtf8() {
        write(root_ / "ef" / "\xff\xfe\x1b.kernel_perf", "1.5\n");
        const auto ls = test::run_cli({"ls", dir_, "--kind", "kernel_perf"});
        QCOMPARE(ls.exit_code, 0);
        QVERIFY(inert(ls.out));
        QVERIFY(ls.out.contains(R"(\xff\xfe\x1b)"));
        // JSON replaces each byte that is not UTF-8 with U+FFFD (documented).
        const auto json = test::run_cli({"ls", dir_, "--kind", "kernel_perf", "--json"});
        QCOMPARE(json.exit_code, 0);
        QCOMPARE(parse_json(json.out).array()[0].toObject()["key"].toString(),
                 QString::fromUtf16(u"\ufffd\ufffd\x1b"));
    }

    void sourceKeepsItsLinesAndEveryCharacter() {
        // Long enough that stdio hands it to the sink in several writes, at
        // offsets that cut a two-byte character in half.
        std::string accents;
        for (int i = 0; i < 30000; ++i) {
            accents += "é";
        }
        const std::string source = "# " + accents + "\nx = 1\r\n\tassert x\x1b[0m\n";
        write(root_ / "zz" / "czzsource.py", source);
        const auto run = test::run_cli({"show", dir_, "zz/czzsource.py", "--source"});
        QCOMPARE(run.exit_code, 0);
        QVERIFY(inert(run.out));
        QVERIFY(run.out.contains(QByteArray::fromStdString("# " + accents + "\nx = 1")));
        QVERIFY(run.out.contains("x = 1\\r\n\tassert x\\x1b[0m\n"));
    }

    void debugLinesOfARealGraph() {
        // A GPT-2 graph's key hashes torch's version hash as raw bytes.
        const auto golden =
            test::read_json(test::fixture("devset/golden.json"))["fxgraph"].toArray()[0].toObject();
        const auto run = test::run_cli({"show", qs(test::fixture("devset/cache").string()),
                                        golden["fx_graph_cache_key"].toString(), "--debug-lines"});
        QCOMPARE(run.exit_code, 0);
        QVERIFY(inert(run.out));
        const auto line = run.out.indexOf("torch_version: ");
        QVERIFY(line >= 0);
        const QByteArray torch_version = run.out.mid(line, run.out.indexOf('\n', line) - line);
        QVERIFY(torch_version.contains(R"(\x08)"));
        QVERIFY(torch_version.contains(R"(\x12)"));
        QVERIFY(torch_version.contains(R"(\x06)"));
    }

private:
    std::optional<QTemporaryDir> temp_;
    fs::path root_;
    QString dir_;
};

QTEST_GUILESS_MAIN(TestCliText)
#include "tst_cli_text.moc"
