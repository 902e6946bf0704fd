// The Python literal reader: every form Inductor writes, the decorator dicts
// of the real fixture modules (which must print back exactly as PyTorch wrote
// them), errors with their positions, and hostile input.

#include "test_paths.h"

#include <cachelens/cachedir/python_literal.h>
#include <cachelens/pickle/repr.h>

#include <QDirIterator>
#include <QtTest>

#include <cmath>
#include <string>

using namespace cachelens;
using namespace cachelens::cachedir;
using pickle::Kind;
using pickle::Value;

namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

std::shared_ptr<const pickle::Document> parsed(std::string_view text) {
    auto document = parse_python_literal(text);
    if (!document) {
        qFatal("cannot parse %s: %s", std::string(text).c_str(),
               document.error().describe().c_str());
    }
    return *document;
}

// What went wrong, for a failure message (empty when nothing did).
template <class T>
std::string why(const Result<T>& result) {
    return result ? std::string() : result.error().describe();
}

QString repr_of(std::string_view text) {
    pickle::ReprOptions options;
    options.max_items = 1000;
    options.max_string = 100000;
    return qs(pickle::repr(parsed(text)->root(), options));
}

Error error_of(std::string_view text, const LiteralLimits& limits = {}) {
    auto document = parse_python_literal(text, {}, limits);
    if (document) {
        qFatal("parsed what should fail: %s", std::string(text.substr(0, 200)).c_str());
    }
    return document.error();
}

// Every module the fixtures hold.
std::vector<std::filesystem::path> fixture_modules() {
    std::vector<std::filesystem::path> modules;
    for (const char* set : {"devset/cache", "cpu_dev/cache", "multi_dev/cache"}) {
        QDirIterator it(qs(test::fixture(set).string()), {"*.py"}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            modules.emplace_back(it.next().toStdString());
        }
    }
    std::sort(modules.begin(), modules.end());
    return modules;
}

// The offset just past `keyword=` on each line that holds it, e.g. the
// `inductor_meta=` argument of every kernel decorator.
std::vector<std::size_t> values_after(std::string_view text, std::string_view keyword) {
    std::vector<std::size_t> offsets;
    for (std::size_t at = text.find(keyword); at != std::string_view::npos;
         at = text.find(keyword, at + 1)) {
        if (at == 0 || text[at - 1] == '\n' || text[at - 1] == ' ') {
            offsets.push_back(at + keyword.size());
        }
    }
    return offsets;
}

} // namespace

class TestPythonLiteral : public QObject {
    Q_OBJECT

private slots:
    void constants() {
        QCOMPARE(parsed("None")->root().kind(), Kind::None);
        QCOMPARE(parsed("True")->root().kind(), Kind::Bool);
        QVERIFY(parsed("True")->root().as_bool());
        QVERIFY(!parsed("False")->root().as_bool());
    }

    void integers() {
        QCOMPARE(parsed("0")->root().as_int(), 0);
        QCOMPARE(parsed("4096")->root().as_int(), 4096);
        QCOMPARE(parsed("-5")->root().as_int(), -5);
        QCOMPARE(parsed("+5")->root().as_int(), 5);
        QCOMPARE(parsed("- -5")->root().as_int(), 5);
        QCOMPARE(parsed("1_000_000")->root().as_int(), 1000000);
        QCOMPARE(parsed("0x1F")->root().as_int(), 31);
        QCOMPARE(parsed("0o17")->root().as_int(), 15);
        QCOMPARE(parsed("0b101")->root().as_int(), 5);
        QCOMPARE(parsed("-True")->root().as_int(), -1);
        QCOMPARE(parsed("-9223372036854775808")->root().kind(), Kind::Int);
        QCOMPARE(parsed("-9223372036854775808")->root().as_int(),
                 std::numeric_limits<std::int64_t>::min());
        // Past int64: a BigInt that prints exactly.
        QCOMPARE(parsed("9223372036854775808")->root().kind(), Kind::BigInt);
        QCOMPARE(repr_of("9223372036854775808"), "9223372036854775808");
        QCOMPARE(repr_of("-18446744073709551616"), "-18446744073709551616");
        QCOMPARE(repr_of("-(-9223372036854775808)"), "9223372036854775808");
        QCOMPARE(repr_of("-(-340282366920938463463374607431768211456)"),
                 "340282366920938463463374607431768211456");
        // Python's own digit limit is accepted in full.
        const std::string digits(kMaxIntDigits, '7');
        QCOMPARE(repr_of(digits), qs(digits));
    }

    void floats() {
        QCOMPARE(parsed("1.5")->root().as_float(), 1.5);
        QCOMPARE(parsed("-0.25")->root().as_float(), -0.25);
        QCOMPARE(parsed("1e10")->root().as_float(), 1e10);
        QCOMPARE(parsed("1E-3")->root().as_float(), 1e-3);
        QCOMPARE(parsed(".5")->root().as_float(), 0.5);
        QCOMPARE(parsed("5.")->root().as_float(), 5.0);
        QCOMPARE(parsed("1_0.5")->root().as_float(), 10.5);
        QCOMPARE(parsed("7.68e-06")->root().as_float(), 7.68e-06);
        QCOMPARE(parsed("0.049184768")->root().kind(), Kind::Float);
        QVERIFY(std::isinf(parsed("1e400")->root().as_float()));
        QCOMPARE(parsed("1e-400")->root().as_float(), 0.0);
        QCOMPARE(parsed("0e999999999999999999999")->root().as_float(), 0.0);
        // An exponent a long long holds, near its limit (fuzz_serving found the
        // sum with the digits' magnitude overflowing): Python's inf and 0.0.
        QVERIFY(std::isinf(parsed("3333e9223372036854775804")->root().as_float()));
        QCOMPARE(parsed("0.0003e-9223372036854775804")->root().as_float(), 0.0);
        // float('inf') and friends are data here, not calls.
        QCOMPARE(parsed("float('inf')")->root().kind(), Kind::Float);
        QVERIFY(std::isinf(parsed("float('inf')")->root().as_float()));
        QVERIFY(parsed("float('-inf')")->root().as_float() < 0);
        QVERIFY(std::isinf(parsed("float(\"-Infinity\")")->root().as_float()));
        QVERIFY(std::isnan(parsed("float('nan')")->root().as_float()));
        QCOMPARE(parsed("float(' 2.5 ')")->root().as_float(), 2.5);
        QVERIFY(std::isinf(parsed("-math.inf")->root().as_float()));
        QVERIFY(std::isnan(parsed("nan")->root().as_float()));
        QCOMPARE(parsed("float('x')")->root().kind(), Kind::Object); // not a float: kept as a call
    }

    void strings() {
        QCOMPARE(repr_of("'a'"), "'a'");
        QCOMPARE(repr_of("\"b\""), "'b'");
        QCOMPARE(qs(parsed("'''one\ntwo'''")->root().text()), "one\ntwo");
        QCOMPARE(qs(parsed("\"\"\"it's\"\"\"")->root().text()), "it's");
        QCOMPARE(qs(parsed("r'\\n'")->root().text()), "\\n");
        QCOMPARE(qs(parsed("R'\\''")->root().text()), "\\'");
        QCOMPARE(qs(parsed("u'x'")->root().text()), "x");
        QCOMPARE(qs(parsed("'\\n\\t\\x41\\u00e9\\''")->root().text()), "\n\tA\u00e9'");
        QCOMPARE(qs(parsed("'caf\xc3\xa9'")->root().text()), "caf\u00e9");
        QCOMPARE(qs(parsed("''")->root().text()), "");
        QCOMPARE(qs(parsed("''''''")->root().text()), "");
        // Adjacent literals concatenate, across lines inside brackets.
        QCOMPARE(qs(parsed("'a' \"b\" '''c'''")->root().text()), "abc");
        QCOMPARE(repr_of("('a'\n 'b')"), "'ab'");
        QCOMPARE(repr_of("'x\\n' r'\\n'"), "'x\\n\\\\n'");
        // bytes
        const auto bytes = parsed("b'\\x00\\xff' rb'\\x'");
        QCOMPARE(bytes->root().kind(), Kind::Bytes);
        QCOMPARE(bytes->root().text(), std::string_view("\x00\xff\\x", 4));
        QCOMPARE(parsed("Br'a'")->root().kind(), Kind::Bytes);
    }

    void stringsViewTheInputWhenTheyCan() {
        const auto keep = std::make_shared<const std::string>("['plain', 'esc\\n', 'a' 'b']");
        auto document = parse_python_literal(*keep, keep);
        QVERIFY(document.has_value());
        const auto items = (*document)->root().items();
        QCOMPARE(items[0]->text().data(), keep->data() + 2); // a view, no copy
        QCOMPARE(qs(items[1]->text()), "esc\n");
        QCOMPARE(qs(items[2]->text()), "ab");
    }

    void containers() {
        QCOMPARE(repr_of("()"), "()");
        QCOMPARE(repr_of("(1,)"), "(1,)");
        QCOMPARE(repr_of("(1)"), "1");
        QCOMPARE(repr_of("(1, 2, )"), "(1, 2)");
        QCOMPARE(repr_of("[]"), "[]");
        QCOMPARE(repr_of("[1, [2, 'x'],]"), "[1, [2, 'x']]");
        QCOMPARE(repr_of("{}"), "{}");
        QCOMPARE(repr_of("{'a': 1, 'b': None}"), "{'a': 1, 'b': None}");
        QCOMPARE(repr_of("{'a': 1, 'a': 2}"), "{'a': 2}");
        QCOMPARE(repr_of("{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}"),
                 "{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}");
        QCOMPARE(repr_of("{1, 2, 1}"), "{1, 2}");
        QCOMPARE(parsed("{1, 2}")->root().kind(), Kind::Set);
        QCOMPARE(repr_of("set()"), "set()");
        QCOMPARE(repr_of("frozenset()"), "frozenset()");
        QCOMPARE(repr_of("set([3, 4])"), "{3, 4}");
        QCOMPARE(repr_of("{'x': {'y': (1.5, -2)}}"), "{'x': {'y': (1.5, -2)}}");
        // A bare tuple at the top, as ast.literal_eval reads it.
        QCOMPARE(repr_of("1, 2"), "(1, 2)");
        QCOMPARE(repr_of("1,"), "(1,)");
    }

    void blanksAndComments() {
        QCOMPARE(repr_of("  # leading comment\n[1,  # one\n\n  2,\t# two\n]  # trailing\n\n"),
                 "[1, 2]");
        QCOMPARE(repr_of("{'a':\n    1,\n 'b'\n : 2}"), "{'a': 1, 'b': 2}");
        QCOMPARE(repr_of("[1,\r\n 2]"), "[1, 2]");
        QCOMPARE(repr_of("(1, \\\n 2)"), "(1, 2)");
    }

    void dottedNamesAndCalls() {
        const auto dtype = parsed("torch.float32");
        QCOMPARE(dtype->root().kind(), Kind::Global);
        QCOMPARE(qs(dtype->root().module()), "torch");
        QCOMPARE(qs(dtype->root().name()), "float32");
        QCOMPARE(qs(parsed("ReductionHint.INNER")->root().module()), "ReductionHint");
        QCOMPARE(qs(parsed("tl.float32")->root().name()), "float32");
        const auto deep = parsed("torch._inductor.runtime.hints.DeviceProperties");
        QCOMPARE(qs(deep->root().module()), "torch._inductor.runtime.hints");
        QCOMPARE(qs(parsed("torch . float32")->root().module()), "torch");
        const auto bare = parsed("__file__");
        QCOMPARE(bare->root().kind(), Kind::Global);
        QCOMPARE(qs(bare->root().module()), "");
        QCOMPARE(qs(bare->root().name()), "__file__");

        const auto call = parsed("a.b.C(1, 'x', key=[2], other=None)");
        const Value& object = call->root();
        QCOMPARE(object.kind(), Kind::Object);
        QCOMPARE(object.construction(), pickle::Construction::Reduce);
        QCOMPARE(qs(object.class_name()), "a.b.C");
        QCOMPARE(qs(pickle::repr(*object.args())), "(1, 'x')");
        QCOMPARE(qs(pickle::repr(*object.kwargs())), "{'key': [2], 'other': None}");
        QCOMPARE(qs(pickle::repr(object, {.qualified_names = true})),
                 "a.b.C(1, 'x', key=[2], other=None)");

        const auto no_kwargs = parsed("torch.device('cuda', 0)");
        QVERIFY(no_kwargs->root().kwargs() == nullptr);
        QCOMPARE(no_kwargs->root().args()->items().size(), std::size_t{2});
        const auto empty = parsed("Thing ()");
        QCOMPARE(empty->root().args()->items().size(), std::size_t{0});

        const auto device = parsed(
            "DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, "
            "regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, "
            "max_threads_per_block=1024, warp_size=32)");
        QCOMPARE(qs(device->root().callable()->name()), "DeviceProperties");
        QCOMPARE(device->root().kwargs()->find("cc")->as_int(), 90);
        QCOMPARE(qs(device->root().kwargs()->find("type")->text()), "cuda");
    }

    void prefixStopsWhereTheExpressionEnds() {
        const std::string text = "size_hints={'x': 4096, 'r0_': 4096},\n    reduction_hint=x";
        pickle::Document document({}, 1 << 20);
        pickle::Builder builder(document.arena(), 64);
        auto value = parse_python_literal_prefix(builder, text, text.find('=') + 1);
        QVERIFY(value.has_value());
        QCOMPARE(value->consumed, std::string("{'x': 4096, 'r0_': 4096}").size());
        QCOMPARE(qs(pickle::repr(*value->value)), "{'x': 4096, 'r0_': 4096}");

        // Trailing blanks and comments stay unconsumed; a line break ends the expression.
        auto number = parse_python_literal_prefix(builder, "  42   # c\n7", 0);
        QCOMPARE(number->consumed, std::size_t{4});
        auto first_line = parse_python_literal_prefix(builder, "1\n2");
        QCOMPARE(first_line->consumed, std::size_t{1});
        auto joined = parse_python_literal_prefix(builder, "'a' 'b' x");
        QCOMPARE(joined->consumed, std::size_t{7});
        QCOMPARE(qs(joined->value->text()), "ab");
        auto name = parse_python_literal_prefix(builder, "arg_0, arg_1");
        QCOMPARE(name->consumed, std::size_t{5});
        auto call = parse_python_literal_prefix(builder, "f(1)[0]");
        QCOMPARE(call->consumed, std::size_t{4});

        // Positions in errors are the text's, not the offset's.
        const std::string later = "x = 1\ny = [1, 2\n";
        auto broken = parse_python_literal_prefix(builder, later, later.find('['));
        QVERIFY(!broken);
        QCOMPARE(broken.error().kind, ErrorKind::Truncated);
        QVERIFY2(broken.error().message.starts_with("line 3, column 1 (byte 16)"),
                 broken.error().message.c_str());
        QCOMPARE(parse_python_literal_prefix(builder, "1", 5).error().kind,
                 ErrorKind::InvalidArgument);
    }

    void scanAndSkipHelpers() {
        const std::string text = "x = rb'''a\\'''b''' + 1";
        auto extent = scan_string_literal(text, 4);
        QVERIFY(extent.has_value());
        QVERIFY(extent->raw && extent->bytes && extent->triple_quoted);
        QCOMPARE(extent->body_begin, std::size_t{9});
        QCOMPARE(text.substr(extent->body_begin, extent->body_end - extent->body_begin),
                 std::string("a\\'''b"));
        QCOMPARE(extent->end, text.find(" +"));
        QCOMPARE(scan_string_literal(text, 0).error().kind, ErrorKind::Corrupt);
        QCOMPARE(scan_string_literal("'''open", 0).error().kind, ErrorKind::Truncated);

        QCOMPARE(skip_python_blank("  # c\n\t\\\n x", 0), std::size_t{10});
        QCOMPARE(skip_python_blank("abc", 3), std::size_t{3});

        const SourceLines lines("one\r\ntwo\n\nfour");
        QCOMPARE(lines.count(), std::size_t{4});
        QCOMPARE(qs(lines.line(0)), "one");
        QCOMPARE(qs(lines.line(3)), "four");
        QCOMPARE(lines.start(1), std::size_t{5});
        QCOMPARE(lines.index_of(4), std::size_t{0});
        QCOMPARE(lines.index_of(5), std::size_t{1});
        QCOMPARE(lines.first_at_or_after(6), std::size_t{2});
        QCOMPARE(qs(lines.position(11)), "line 4, column 2 (byte 11)");
        QCOMPARE(qs(lines.position(99)), "line 4, column 5 (byte 14)");
    }

    void realDecoratorDictsPrintBackExactly() {
        // Inductor writes repr(inductor_meta): reading it and printing it again
        // must give the same text, for every kernel of every fixture module.
        pickle::ReprOptions options;
        options.max_items = 1000;
        options.max_string = 100000;
        int checked = 0;
        for (const auto& path : fixture_modules()) {
            const QByteArray bytes = test::read_file(path);
            const std::string_view text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
            for (std::size_t at : values_after(text, "inductor_meta=")) {
                pickle::Document document({}, 16 << 20);
                pickle::Builder builder(document.arena(), 256);
                auto value = parse_python_literal_prefix(builder, text, at);
                QVERIFY2(value.has_value(), why(value).c_str());
                const std::string_view written = text.substr(at, value->consumed);
                QCOMPARE(qs(pickle::repr(*value->value, options)), qs(written));
                QVERIFY(text[at + value->consumed] == ',' || text[at + value->consumed] == '\n');
                ++checked;
            }
        }
        QVERIFY2(checked >= 50, std::to_string(checked).c_str());
    }

    void realTritonMeta() {
        const QByteArray bytes = test::read_file(test::fixture(
            "devset/cache/2c/c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w.py"));
        const std::string_view text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
        const auto at = values_after(text, "triton_meta=");
        QCOMPARE(at.size(), std::size_t{1});
        pickle::Document document({}, 16 << 20);
        pickle::Builder builder(document.arena(), 256);
        auto meta = parse_python_literal_prefix(builder, text, at.front());
        QVERIFY2(meta.has_value(), why(meta).c_str());
        const Value* root = meta->value;
        QCOMPARE(qs(pickle::repr(*root->find("signature"))),
                 "{'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': "
                 "'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}");
        QCOMPARE(qs(pickle::repr(*root->find("configs"))),
                 "[{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): "
                 "[['tt.divisibility', 16]]}]");
        QCOMPARE(qs(root->find("device")->callable()->name()), "DeviceProperties");
        QCOMPARE(qs(root->find("device")->callable()->module()), ""); // a bare name
        QCOMPARE(root->find("device")->kwargs()->find("multi_processor_count")->as_int(), 132);
        QCOMPARE(root->find("launch_pdl")->kind(), Kind::Bool);

        // The whole decorator is one call expression too.
        const std::size_t decorator = text.find("@triton_heuristics.") + 1;
        auto call = parse_python_literal_prefix(builder, text, decorator);
        QVERIFY2(call.has_value(), why(call).c_str());
        QCOMPARE(qs(call->value->class_name()), "triton_heuristics.reduction");
        QCOMPARE(qs(call->value->kwargs()->find("reduction_hint")->name()), "INNER");
        QCOMPARE(text.substr(decorator + call->consumed, 12), std::string_view("\n@triton.jit"));
    }

    void errorsSayWhereAndWhat() {
        auto check = [](std::string_view text, ErrorKind kind, const char* position,
                        const char* words) {
            const Error error = error_of(text);
            QVERIFY2(error.kind == kind, error.message.c_str());
            QVERIFY2(error.message.find(position) != std::string::npos, error.message.c_str());
            QVERIFY2(error.message.find(words) != std::string::npos, error.message.c_str());
        };
        check("[1, 2", ErrorKind::Truncated, "line 1, column 6 (byte 5)", "expected ',' or ']'");
        check("{'a' 1}", ErrorKind::Corrupt, "line 1, column 6 (byte 5)", "expected ',' or '}'");
        check("{'a': 1, 'b' 2}", ErrorKind::Corrupt, "line 1, column 14 (byte 13)",
              "expected ':' after a dict key");
        check("[1,\n  2 3]", ErrorKind::Corrupt, "line 2, column 5 (byte 8)", "found '3'");
        check("[1,,2]", ErrorKind::Corrupt, "column 4", "expected a value");
        check("1 2", ErrorKind::Corrupt, "column 3", "expected the end of the input");
        check("1 + 2", ErrorKind::Unsupported, "column 3", "operator");
        check("x[0]", ErrorKind::Corrupt, "column 2", "expected the end of the input");
        check("", ErrorKind::Truncated, "line 1, column 1", "expected a value");
        check("'abc", ErrorKind::Truncated, "column 1", "unterminated string");
        check("'abc\n'", ErrorKind::Corrupt, "column 1", "the line ends");
        check("  '''abc\n\ndef", ErrorKind::Truncated, "line 1, column 3",
              "unterminated triple-quoted string");
        check("'a' b'b'", ErrorKind::Corrupt, "column 5", "cannot mix bytes and str");
        check("b'\xc3\xa9'", ErrorKind::Corrupt, "column 1", "ASCII");
        check("'\xff'", ErrorKind::Corrupt, "column 1", "UTF-8");
        check("'\\x4'", ErrorKind::Corrupt, "column 1", "escape");
        check("f'{x}'", ErrorKind::Unsupported, "column 1", "f-strings");
        check("lambda: 1", ErrorKind::Unsupported, "column 1", "'lambda' is code");
        check("[x for x in y]", ErrorKind::Corrupt, "column 4", "expected ',' or ']'");
        check("f(x=1, x=2)", ErrorKind::Corrupt, "column 8", "keyword argument repeated");
        check("f(x=1, 2)", ErrorKind::Corrupt, "column 8", "positional argument follows");
        check("f(*a)", ErrorKind::Unsupported, "column 3", "unpacking");
        check("{**a}", ErrorKind::Unsupported, "column 2", "unpacking");
        check("1j", ErrorKind::Unsupported, "column 1", "complex");
        check("0x", ErrorKind::Corrupt, "column 1", "invalid integer literal");
        check("012", ErrorKind::Corrupt, "column 1", "leading zeros");
        check("1__0", ErrorKind::Corrupt, "column 1", "invalid integer literal");
        check("1_.5", ErrorKind::Corrupt, "column 1", "invalid float literal");
        check("12abc", ErrorKind::Corrupt, "column 1", "invalid number literal '12abc'");
        check("-'a'", ErrorKind::Unsupported, "column 1", "a sign applies to numbers only");
        check("torch.", ErrorKind::Truncated, "column 7", "a name after '.'");
        check("[1, 2]]", ErrorKind::Corrupt, "column 7", "expected the end");
        check("(1 2)", ErrorKind::Corrupt, "column 4", "expected ',' or ')'");
        check("\x01", ErrorKind::Corrupt, "column 1", "byte 0x01");
        check("'a'\n'b'", ErrorKind::Corrupt, "line 2, column 1", "expected the end");
    }

    void deepNestingIsAnError() {
        for (const char* open : {"[", "(", "{", "f(", "{1: ", "-("}) {
            std::string text;
            for (int i = 0; i < 10000; ++i) {
                text += open;
            }
            const Error error = error_of(text);
            QCOMPARE(error.kind, ErrorKind::LimitExceeded);
            QVERIFY2(error.message.find("nesting is deeper than the limit of 256") !=
                         std::string::npos,
                     error.message.c_str());
        }
        // Closed nesting within the limit reads fine; one more level does not.
        const std::string ok = std::string(100, '[') + std::string(100, ']');
        QCOMPARE(parsed(ok)->root().depth(), 100u);
        LiteralLimits tight;
        tight.max_depth = 99;
        QCOMPARE(error_of(ok, tight).kind, ErrorKind::LimitExceeded);
        // Signs are not nesting: a long run of them is fine.
        QCOMPARE(parsed(std::string(100000, '-') + "1")->root().as_int(), 1);
    }

    void hugeValuesAreErrors() {
        const Error digits = error_of(std::string(100000, '9'));
        QCOMPARE(digits.kind, ErrorKind::LimitExceeded);
        QVERIFY2(digits.message.find("100000 digits") != std::string::npos, digits.message.c_str());
        QCOMPARE(error_of("0x" + std::string(100000, 'f')).kind, ErrorKind::LimitExceeded);

        LiteralLimits small;
        small.max_alloc = 4096;
        std::string many = "[";
        for (int i = 0; i < 10000; ++i) {
            many += "1, ";
        }
        many += "]";
        QCOMPARE(error_of(many, small).kind, ErrorKind::LimitExceeded);
        QCOMPARE(error_of("'" + std::string(100000, 'a') + "\\n'", small).kind,
                 ErrorKind::LimitExceeded);
        // Unterminated strings and brackets far from their start.
        QCOMPARE(error_of("'''" + std::string(1 << 20, 'x')).kind, ErrorKind::Truncated);
        QCOMPARE(error_of(std::string(200, '[') + std::string(1 << 20, ' ')).kind,
                 ErrorKind::Truncated);
    }

    void everyTruncationOfARealDecoratorIsHandled() {
        // Cut a real decorator at every byte: each prefix reads or fails, never crashes.
        const QByteArray bytes = test::read_file(test::fixture(
            "devset/cache/4x/c4xg4td7f33pgz2ruhk35nkacxbs5mqjfphimhtvbfiul7mlncit.py"));
        const std::string text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
        const std::size_t begin = text.find("triton_heuristics.template(");
        const std::size_t end = text.find("@triton.jit");
        int failed = 0;
        for (std::size_t cut = begin; cut < end; ++cut) {
            auto result = parse_python_literal(std::string_view(text).substr(begin, cut - begin));
            failed += result ? 0 : 1;
        }
        QVERIFY(failed > 0);
        QVERIFY(
            parse_python_literal(std::string_view(text).substr(begin, end - begin)).has_value());
    }
};

QTEST_GUILESS_MAIN(TestPythonLiteral)
#include "tst_python_literal.moc"
