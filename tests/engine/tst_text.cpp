// core/text.h: UTF-8 checks and escape_for_terminal, the one way text from a
// cache reaches a terminal: every control, hazardous code point and invalid
// byte escaped, everything else (\n, \t, the backslash, any other UTF-8) kept.

#include "test_paths.h"

#include <cachelens/core/text.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <random>
#include <string>

using namespace cachelens;
using namespace std::string_literals;

namespace {

// Nothing a terminal acts on: no C0 control but \n and \t, no DEL, no C1, no
// bidi control or line separator, valid UTF-8.
bool inert(std::string_view text) {
    if (!is_valid_utf8(text)) {
        return false;
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            return false;
        }
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        const auto third = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0;
        if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {
            return false; // C1
        }
        if (c == 0xe2 && next == 0x80 &&
            (third == 0x8e || third == 0x8f || third == 0xa8 || third == 0xa9 ||
             (third >= 0xaa && third <= 0xae))) {
            return false; // U+200E, U+200F, U+2028, U+2029, U+202A-U+202E
        }
        if (c == 0xe2 && next == 0x81 && third >= 0xa6 && third <= 0xa9) {
            return false; // U+2066-U+2069
        }
        if (c == 0xd8 && next == 0x9c) {
            return false; // U+061C
        }
        if (c == 0xed && next >= 0xa0) {
            return false; // an encoded surrogate
        }
    }
    return true;
}

// What a writer that gets `text` cut at `cut` prints: the first piece less
// the start of a character it ends with, then that start with the rest.
std::string escaped_in_two_pieces(std::string_view text, std::size_t cut) {
    std::string_view first = text.substr(0, cut);
    const std::size_t tail = incomplete_utf8_tail(first);
    first.remove_suffix(tail);
    std::string out = escape_for_terminal(first);
    append_escaped_for_terminal(out, text.substr(cut - tail));
    return out;
}

} // namespace

class TestText : public QObject {
    Q_OBJECT

private slots:
    void lastLinesKeepTheEndOfWhatAChildSaid() {
        QCOMPARE(last_lines("a\nb\nc\nd\n\n ", 2), std::string("c\nd"));
        QCOMPARE(last_lines("only\n", 3), std::string("only"));
        QCOMPARE(last_lines("", 3), std::string());
        QCOMPARE(last_lines("x\ny", 5), std::string("x\ny"));
    }

    void keepsTextAndLayout() {
        QCOMPARE(escape_for_terminal(""), "");
        QCOMPARE(escape_for_terminal("triton_poi_fused_0 XBLOCK=256"),
                 "triton_poi_fused_0 XBLOCK=256");
        QCOMPARE(escape_for_terminal("def f(x):\n\treturn x\n"), "def f(x):\n\treturn x\n");
        // The result is for reading: a backslash stays one.
        QCOMPARE(escape_for_terminal(R"(C:\tmp 'a\nb')"), R"(C:\tmp 'a\nb')");
        // Any other UTF-8: 2, 3 and 4 bytes, a joiner inside an emoji.
        QCOMPARE(escape_for_terminal("é € 日本 𝄞 👩\u200d💻"), "é € 日本 𝄞 👩\u200d💻");
    }

    void escapesControls() {
        QCOMPARE(escape_for_terminal("\x1b[2J\x1b]0;title\x07"), R"(\x1b[2J\x1b]0;title\x07)");
        QCOMPARE(escape_for_terminal("a\rb"), R"(a\rb)");
        QCOMPARE(escape_for_terminal("\b\x12\x06\x7f"), R"(\x08\x12\x06\x7f)");
        QCOMPARE(escape_for_terminal("a\0b"s), R"(a\x00b)");
        QCOMPARE(escape_for_terminal("\v\f"), R"(\x0b\x0c)");
    }

    void escapesC1AndFormatCharacters() {
        QCOMPARE(escape_for_terminal("\u0085 \u009b2J"), R"(\u0085 \u009b2J)");
        QCOMPARE(escape_for_terminal("a\u2028b\u2029c"), R"(a\u2028b\u2029c)");
        QCOMPARE(escape_for_terminal("\u202eexe.txt\u202c"), R"(\u202eexe.txt\u202c)");
        QCOMPARE(escape_for_terminal("\u202a\u202b\u202d"), R"(\u202a\u202b\u202d)");
        QCOMPARE(escape_for_terminal("\u2066\u2067\u2068\u2069"), R"(\u2066\u2067\u2068\u2069)");
        QCOMPARE(escape_for_terminal("\u200e\u200f\u061c"), R"(\u200e\u200f\u061c)");
        // Their neighbours are text.
        QCOMPARE(escape_for_terminal("\u00a0\u2027\u202f\u2065\u206a"),
                 "\u00a0\u2027\u202f\u2065\u206a");
    }

    void escapesEachByteThatIsNotUtf8() {
        // A C1 control as a raw byte is not UTF-8: its byte, not a code point.
        QCOMPARE(escape_for_terminal("\x9b"
                                     "2J"),
                 R"(\x9b2J)");
        QCOMPARE(escape_for_terminal("\x80"), R"(\x80)");
        QCOMPARE(escape_for_terminal("\xff\xfe"), R"(\xff\xfe)");
        QCOMPARE(escape_for_terminal("\xf5\xf8"), R"(\xf5\xf8)");
        // Overlong forms.
        QCOMPARE(escape_for_terminal("\xc0\x80"), R"(\xc0\x80)");
        QCOMPARE(escape_for_terminal("\xc1\xbf"), R"(\xc1\xbf)");
        QCOMPARE(escape_for_terminal("\xe0\x80\xaf"), R"(\xe0\x80\xaf)");
        QCOMPARE(escape_for_terminal("\xf0\x80\x80\xaf"), R"(\xf0\x80\x80\xaf)");
        // Past U+10FFFF.
        QCOMPARE(escape_for_terminal("\xf4\x90\x80\x80"), R"(\xf4\x90\x80\x80)");
        // Cut short, by the end or by another character; the next one survives.
        QCOMPARE(escape_for_terminal("a\xe2\x82"), R"(a\xe2\x82)");
        QCOMPARE(escape_for_terminal("\xe2"
                                     "A"),
                 R"(\xe2A)");
        QCOMPARE(escape_for_terminal("\xf0\x9d\x84é"), R"(\xf0\x9d\x84é)");
        // Encoded surrogates (Python's surrogatepass writes them) are code points.
        QCOMPARE(escape_for_terminal("\xed\xa0\x80\xed\xbf\xbf"), R"(\ud800\udfff)");
    }

    void invalidUtf8StaysInvalid() {
        // escape_for_terminal shares is_valid_utf8's decoder: the same verdicts.
        QVERIFY(is_valid_utf8("é € 𝄞"));
        QVERIFY(is_valid_utf8("\xed\xa0\x80"));
        QVERIFY(is_valid_utf8("\xf4\x8f\xbf\xbf"));
        QVERIFY(!is_valid_utf8("\xc0\x80"));
        QVERIFY(!is_valid_utf8("\xe0\x80\xaf"));
        QVERIFY(!is_valid_utf8("\xf4\x90\x80\x80"));
        QVERIFY(!is_valid_utf8("abcdefgh\xe2\x82"));
        QVERIFY(!is_valid_utf8("\x80"));
    }

    void incompleteTail() {
        QCOMPARE(incomplete_utf8_tail(""), 0u);
        QCOMPARE(incomplete_utf8_tail("abc"), 0u);
        QCOMPARE(incomplete_utf8_tail("a\xc3"), 1u);
        QCOMPARE(incomplete_utf8_tail("a\xe2"), 1u);
        QCOMPARE(incomplete_utf8_tail("a\xe2\x82"), 2u);
        QCOMPARE(incomplete_utf8_tail("\xe2\x82\xac"), 0u);
        QCOMPARE(incomplete_utf8_tail("\xf0\x9d\x84"), 3u);
        QCOMPARE(incomplete_utf8_tail("\xf0\x9d\x84\x9e"), 0u);
        QCOMPARE(incomplete_utf8_tail("\x80\x80\x80"), 0u);
        QCOMPARE(incomplete_utf8_tail("\xff"), 0u);
        QCOMPARE(incomplete_utf8_tail("é\x1b"), 0u);
    }

    void aCharacterCutInTwoWritesIsKept() {
        const std::string text = "a\u00e9\u20ac\U0001d11e\u2028\x1b[0m\xe2\x82"
                                 "b\xc3\xed\xa0\x80\r";
        const std::string whole = escape_for_terminal(text);
        QCOMPARE(whole, R"(aé€𝄞\u2028\x1b[0m\xe2\x82b\xc3\ud800\r)");
        for (std::size_t cut = 0; cut <= text.size(); ++cut) {
            QCOMPARE(escaped_in_two_pieces(text, cut), whole);
        }
    }

    void anyBytesComeOutInert() {
        std::mt19937 random(16);
        for (int round = 0; round < 2000; ++round) {
            std::string bytes(static_cast<std::size_t>(random() % 24), '\0');
            for (auto& byte : bytes) {
                // Biased to the interesting range: controls, lead and continuation bytes.
                const unsigned value = random() % 4 == 0 ? random() % 0x20 : random() % 0x100;
                byte = static_cast<char>(value);
            }
            const std::string escaped = escape_for_terminal(bytes);
            QVERIFY2(inert(escaped), escaped.c_str());
            if (inert(bytes)) {
                QCOMPARE(escaped, bytes);
            }
        }
    }

    void torchVersionDebugLine() {
        // A real GPT-2 entry's key hashes the raw bytes of torch's version
        // hash: \x08, \x12, \x06 among them.
        const auto golden = test::read_json(test::fixture("devset/golden.json"));
        bool seen = false;
        for (const auto& line :
             golden["fxgraph"].toArray()[0].toObject()["debug_lines"].toArray()) {
            const std::string text = line.toString().toStdString();
            if (text.find("torch_version") == std::string::npos) {
                continue;
            }
            seen = true;
            QVERIFY(!inert(text));
            const std::string escaped = escape_for_terminal(text);
            QVERIFY(inert(escaped));
            QVERIFY(escaped.find(R"(\x08)") != std::string::npos);
            QVERIFY(escaped.find(R"(\x12)") != std::string::npos);
            QVERIFY(escaped.find(R"(\x06)") != std::string::npos);
        }
        QVERIFY(seen);
    }
};

QTEST_APPLESS_MAIN(TestText)
#include "tst_text.moc"
