// Guard expressions against Python itself: PyTorch's own answers for the
// fixtures' guards (golden.json, golden_multi.json), and CPython 3.11's value
// or exception for every case in tests/data/guards/cases.json (written by
// make_guard_cases.py: operators over ints, big ints, floats, bools and None,
// every function and sympy name, round, tuples, clauses and operands).
// Then what Python cannot tell us: parse errors and their columns, limits,
// hints, and that check() does not allocate.

#include "test_paths.h"

#include <cachelens/guards/guard_expression.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>

using namespace cachelens;
using namespace cachelens::guards;

// Counts heap allocations, to show check() makes none on the common path.
// AddressSanitizer brings its own operator new; there the count is skipped.
#if defined(__SANITIZE_ADDRESS__)
#define CACHELENS_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CACHELENS_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef CACHELENS_COUNT_ALLOCATIONS
#define CACHELENS_COUNT_ALLOCATIONS 1
#endif

namespace {
std::atomic<long> g_allocations{0};
}

#if CACHELENS_COUNT_ALLOCATIONS
void* operator new(std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) {
        return p;
    }
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
#endif

namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

std::string str(const QJsonValue& value) {
    return value.toString().toStdString();
}

// "true", "false" or the error's message.
QString answer(const Result<bool>& result) {
    return result ? (*result ? "true" : "false") : qs(result.error().message);
}

GuardExpression parse_or_die(std::string_view text) {
    auto guard = GuardExpression::parse(text);
    if (!guard) {
        qFatal("cannot parse %s: %s", std::string(text).c_str(), guard.error().message.c_str());
    }
    return std::move(*guard);
}

Hints hints_or_die(std::string_view text) {
    auto hints = Hints::parse(text);
    if (!hints) {
        qFatal("cannot parse hints %s: %s", std::string(text).c_str(),
               hints.error().message.c_str());
    }
    return std::move(*hints);
}

Hints positional(const QJsonArray& values) {
    std::vector<Number> numbers;
    for (const auto& value : values) {
        numbers.push_back(Number::integer(value.toInteger()));
    }
    return Hints::positional(numbers);
}

// What Python gave: a value (type and repr) or an exception (type, str()).
struct Expected {
    explicit Expected(const QJsonObject& outcome)
        : error(outcome["error"].toString().toStdString())
        , message(str(outcome["message"]))
        , type(str(outcome["type"]))
        , repr(str(outcome["repr"])) {}

    bool raised() const { return !error.empty(); }
    bool truthy() const {
        return !raised() && repr != "0" && repr != "0.0" && repr != "-0.0" && repr != "False" &&
               repr != "None";
    }
    // Python's str(KeyError('t2')) is "'t2'": ours names the symbol.
    std::string missing_hint_message() const { return "no hint for L[" + message + "]"; }

    std::string error;
    std::string message;
    std::string type;
    std::string repr;
};

// Python's float repr parses back to the same double: compare within one
// ulp where a different libm may round the other way.
bool within_one_ulp(const std::string& ours, const std::string& python) {
    auto a = Number::parse(ours);
    auto b = Number::parse(python);
    if (!a || !b || !a->is_float() || !b->is_float()) {
        return false;
    }
    const double x = a->float_value();
    const double y = b->float_value();
    return std::nextafter(x, y) == y;
}

class CaseChecker {
public:
    int inexact_libm = 0;

    // Our value against Python's: same type, same repr (or one ulp for libm).
    bool same_value(const Number& ours, const Expected& python, bool libm) {
        if (qs(ours.type_name()) != qs(python.type)) {
            return false;
        }
        if (ours.repr() == python.repr) {
            return true;
        }
        if (libm && within_one_ulp(ours.repr(), python.repr)) {
            ++inexact_libm;
            return true;
        }
        return false;
    }
};

// Our error message (value()/check(): "Type: message") against Python's.
bool same_raise(const Error& ours, const Expected& python) {
    if (python.error == "KeyError") {
        return ours.message == python.missing_hint_message();
    }
    if (python.error == "size limit") {
        return ours.kind == ErrorKind::LimitExceeded;
    }
    const std::string prefix = python.error + ": ";
    if (python.message.empty()) { // AssertionError(), complex results: ours says more
        return ours.message.starts_with(prefix) && ours.message.size() > prefix.size();
    }
    return ours.message == prefix + python.message;
}

// A clause's error (the message alone) against Python's.
bool same_clause_error(const std::string& ours, const Expected& python) {
    if (python.error == "KeyError") {
        return ours == python.missing_hint_message();
    }
    if (python.message.empty() || python.error == "size limit") {
        return !ours.empty();
    }
    return ours == python.message;
}

} // namespace

class TestGuards : public QObject {
    Q_OBJECT

private slots:
    void goldenGuardsArePyTorchs() {
        int evaluations = 0;
        for (const char* set : {"devset/golden.json", "cpu_dev/golden.json"}) {
            const auto golden = test::read_json(test::fixture(set));
            for (const auto& value : golden["guards"].toArray()) {
                const auto guard = value.toObject();
                const GuardExpression expression = parse_or_die(str(guard["expr"]));
                QCOMPARE(expression.symbols().size(),
                         static_cast<std::size_t>(guard["num_args"].toInt()));
                const auto evals = guard["evals"].toArray();
                QCOMPARE(evals.size(), 35);
                for (const auto& run_value : evals) {
                    const auto run = run_value.toObject();
                    const Hints hints = positional(run["hints"].toArray());
                    const auto checked = expression.check(hints);
                    QVERIFY_RESULT(checked);
                    QCOMPARE(*checked, run["result"].toBool());
                    const auto evaluation = expression.evaluate(hints);
                    QVERIFY_RESULT(evaluation);
                    QCOMPARE(evaluation->result, run["result"].toBool());
                    ++evaluations;
                }
            }
        }
        QCOMPARE(evaluations, 4 * 35);
    }

    // The transformer layer compiled at lengths 16 and 24 on the H200: the
    // dynamic graphs' guards as PyTorch stored them (its run recorded no
    // evaluations, so these are the expressions' own arithmetic: 2 * 20479.5
    // rounds the sequence bound to 40959, and the backward ties t1 to 2 * t0).
    void transformerGuardsOfTheRealFixture() {
        const auto golden = test::read_json(test::real_fixture("transformer/golden.json"));
        std::vector<std::string> exprs;
        for (const auto& value : golden["guards"].toArray()) {
            exprs.push_back(str(value.toObject()["expr"]));
        }
        QCOMPARE(exprs.size(), 3u);
        struct Probe {
            std::size_t guard;
            std::vector<std::int64_t> hints;
            bool passes;
        };
        const Probe probes[] = {
            {0, {24}, true},
            {0, {1}, false},
            {0, {5592405}, true},
            {0, {5592406}, false},
            {1, {24, 48}, true},
            {1, {24, 49}, false},
            {1, {40959, 81918}, true},
            {1, {40960, 81920}, false},
            {2, {2}, true},
            {2, {40960}, false},
        };
        for (const auto& probe : probes) {
            const GuardExpression expression = parse_or_die(exprs[probe.guard]);
            QJsonArray values;
            for (const auto hint : probe.hints) {
                values.append(static_cast<qint64>(hint));
            }
            const auto checked = expression.check(positional(values));
            QVERIFY_RESULT(checked);
            QVERIFY2(*checked == probe.passes, exprs[probe.guard].c_str());
        }
    }

    void multiDevFirstHitIsPyTorchs() {
        const auto golden = test::read_json(test::fixture("multi_dev/golden_multi.json"));
        int probes = 0;
        for (const auto& key_value : golden["keys"].toArray()) {
            const auto key = key_value.toObject();
            std::vector<std::pair<QString, GuardExpression>> entries;
            for (const auto& entry_value : key["entries"].toArray()) {
                const auto entry = entry_value.toObject();
                entries.emplace_back(entry["file"].toString(),
                                     parse_or_die(str(entry["guards_expr"])));
            }
            for (const auto& probe_value : key["probes"].toArray()) {
                const auto probe = probe_value.toObject();
                const Hints hints = positional(probe["hints"].toArray());
                QJsonValue hit = QJsonValue::Null;
                for (const auto& [file, guard] : entries) {
                    const auto passed = guard.check(hints);
                    QVERIFY_RESULT(passed);
                    if (*passed) {
                        hit = file;
                        break;
                    }
                }
                QCOMPARE(hit, probe["first_hit"]);
                ++probes;
            }
        }
        QCOMPARE(probes, 10);
    }

    // Every case CPython evaluated: value(), check() and evaluate() clause
    // by clause agree with it.
    void pythonCases() {
        const auto document = test::read_json(test::test_data("guards/cases.json"));
        const auto cases = document["cases"].toArray();
        QVERIFY(cases.size() > 10000);
        CaseChecker checker;
        int clauses_checked = 0;
        for (const auto& value : cases) {
            const auto record = value.toObject();
            const std::string text = str(record["expr"]);
            const bool libm = record["libm"].toBool();
            const Expected python(record["outcome"].toObject());
            const auto where = QString("%1 with %2").arg(qs(text), record["hints"].toString());
            auto guard = GuardExpression::parse(text);
            QVERIFY2(guard, qPrintable(where + ": " + qs(guard ? "" : guard.error().message)));
            const Hints hints = hints_or_die(str(record["hints"]));

            const auto ours = guard->value(hints);
            if (python.raised()) {
                QVERIFY2(!ours, qPrintable(where + " gave " + qs(ours ? ours->repr() : "")));
                QVERIFY2(same_raise(ours.error(), python),
                         qPrintable(where + ": " + qs(ours.error().message) + " vs " +
                                    qs(python.error + ": " + python.message)));
            } else {
                QVERIFY2(ours, qPrintable(where + ": " + qs(ours ? "" : ours.error().message)));
                QVERIFY2(checker.same_value(*ours, python, libm),
                         qPrintable(where + ": " + qs(ours->repr()) + " (" + qs(ours->type_name()) +
                                    ") vs " + qs(python.repr) + " (" + qs(python.type) + ")"));
            }
            const auto checked = guard->check(hints);
            QCOMPARE(checked.has_value(), !python.raised());
            if (checked) {
                QCOMPARE(*checked, python.truthy());
            }
            clauses_checked += check_clauses(*guard, hints, record, python, checker, where);
            if (QTest::currentTestFailed()) {
                return;
            }
        }
        qInfo("%lld Python cases, %d clauses; %d libm results one ulp from Python's",
              static_cast<long long>(cases.size()), clauses_checked, checker.inexact_libm);
    }

    void clauseResultsExplainAFailure() {
        const auto guard =
            parse_or_die("L['t1']*L['t0'] <= 2147483647 and 2 <= L['t0'] and 2 <= L['t1']");
        QCOMPARE(guard.clause_count(), 3U);
        QCOMPARE(guard.clause_text(2), "2 <= L['t1']");
        const auto evaluation = guard.evaluate(hints_or_die("65536,32769"));
        QVERIFY_RESULT(evaluation);
        QVERIFY(!evaluation->result);
        QCOMPARE(evaluation->first_failure, std::optional<std::size_t>(0));
        const ClauseResult& first = evaluation->clauses[0];
        QCOMPARE(first.text, "L['t1']*L['t0'] <= 2147483647");
        QCOMPARE(first.symbols, (std::vector<std::string>{"t0", "t1"}));
        QVERIFY(first.value && first.value->is_bool() && !first.passed && first.reached);
        QCOMPARE(first.operands.size(), 2U);
        QCOMPARE(first.operands[0].first, "L['t1']*L['t0']");
        QCOMPARE(first.operands[0].second.repr(), "2147549184");
        QCOMPARE(first.operands[1].first, "2147483647");
        // The later clauses pass but Python's `and` never reached them.
        QVERIFY(evaluation->clauses[1].passed && !evaluation->clauses[1].reached);
        QVERIFY(evaluation->clauses[2].passed && !evaluation->clauses[2].reached);

        const auto passing = guard.evaluate(hints_or_die("64,128"));
        QVERIFY_RESULT(passing);
        QVERIFY(passing->result);
        QVERIFY(!passing->first_failure);
    }

    void shortCircuitAndErrors() {
        // `0 and 1/0` is fine; `1/0 and 0` raises.
        const auto fine = parse_or_die("0 and 1/0");
        QCOMPARE(answer(fine.check({})), "false");
        const auto evaluation = fine.evaluate({});
        QVERIFY_RESULT(evaluation);
        QCOMPARE(evaluation->clauses[1].error, "division by zero");
        QVERIFY(!evaluation->clauses[1].reached);
        QCOMPARE(evaluation->first_failure, std::optional<std::size_t>(0));

        const auto raising = parse_or_die("1/0 and 0");
        const auto checked = raising.check({});
        QVERIFY(!checked);
        QCOMPARE(checked.error().message, "ZeroDivisionError: division by zero");
        const auto explained = raising.evaluate({});
        QVERIFY_RESULT(explained);
        QVERIFY(!explained->result);
        QCOMPARE(explained->first_failure, std::optional<std::size_t>(0));
        QCOMPARE(explained->clauses[0].error, "division by zero");
        QVERIFY(!explained->clauses[0].value);
        QVERIFY(!explained->clauses[1].reached);
    }

    void missingHints() {
        const auto guard = parse_or_die("L['t0'] > 1 and L['t2'] > 1");
        QCOMPARE(guard.symbols(), (std::vector<std::string>{"t0", "t2"}));
        // Reached: an error naming the symbol, from every entry point.
        const Hints five = hints_or_die("5");
        QCOMPARE(guard.evaluate(five).error().message, "no hint for L['t2']");
        QCOMPARE(guard.check(five).error().message, "no hint for L['t2']");
        QCOMPARE(guard.value(five).error().message, "no hint for L['t2']");
        // Not reached: Python never reads it, so neither do we.
        const Hints zero = hints_or_die("0");
        QCOMPARE(answer(guard.check(zero)), "false");
        const auto evaluation = guard.evaluate(zero);
        QVERIFY_RESULT(evaluation);
        QCOMPARE(evaluation->clauses[1].error, "no hint for L['t2']");
        QVERIFY(!evaluation->clauses[1].reached);
        // A key that is not a plain name is quoted as Python would.
        QCOMPARE(parse_or_die("L[\"it's\"] + 1").check({}).error().message,
                 "no hint for L[\"it's\"]");
    }

    void symbolsInNaturalOrder() {
        const auto guard = parse_or_die("L['t10'] + L['t2'] + L[\"t1\"] + L['t0'] + L['t1'] > 0");
        QCOMPARE(guard.symbols(), (std::vector<std::string>{"t0", "t1", "t2", "t10"}));
        const auto evaluation = guard.evaluate(hints_or_die("t10=1,t2=1,t1=1,t0=1"));
        QVERIFY_RESULT(evaluation);
        QCOMPARE(evaluation->clauses[0].symbols, guard.symbols());
    }

    void emptyGuardAlwaysHits() {
        for (const GuardExpression& guard : {GuardExpression(), parse_or_die("  \n")}) {
            QCOMPARE(guard.clause_count(), 0U);
            QVERIFY(guard.symbols().empty());
            QCOMPARE(answer(guard.check({})), "true");
            const auto evaluation = guard.evaluate({});
            QVERIFY_RESULT(evaluation);
            QVERIFY(evaluation->result && evaluation->clauses.empty());
        }
    }

    void parseErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        auto row = [](const char* name, QString text, const char* message) {
            QTest::newRow(name) << text << QString(message);
        };
        row("incomplete", "L['t0'] <", "column 10: expected an expression, found the end");
        row("unclosed", "(1 + 2", "column 7: expected ',' or ')', found the end");
        row("two operators", "1 +* 2", "column 4: expected an expression, found '*'");
        row("unknown function", "foo(1)", "column 1: unknown function 'foo'");
        row("unknown name", "x == 1", "column 1: unknown name 'x'");
        row("unknown attribute", "1 + math.bar", "column 5: unknown name 'math.bar'");
        row("module alone", "math + 1", "column 6: expected '.' after the module math");
        row("not called", "abs", "column 1: abs must be called");
        row("too many args", "abs(1, 2)", "column 1: abs() takes 1 argument (2 given)");
        row("too few args", "round()", "column 1: round() takes 1 or 2 arguments (0 given)");
        row("max of one", "max(1)", "column 1: max() takes at least 2 arguments (1 given)");
        row("sympy arity", "FloorDiv(1)", "column 1: FloorDiv() takes 2 arguments (1 given)");
        row("int key", "L[0]", "column 3: expected a string key in L[...], found '0'");
        row("attribute of L", "L.t0", "column 2: expected '[' after L");
        row("assignment", "L['t0'] = 1", "column 9: '=' is not an operator here");
        row("keyword argument", "round(1.5, ndigits=1)", "column 19: '=' is not an operator");
        row("leading zeros", "01 + 1", "column 1: '01' is not a number literal: leading zeros");
        row("trailing underscore", "1_", "column 1: '1_' is not a number literal");
        row("empty hex", "0x", "column 1: '0x' is not a number literal");
        row("complex", "1j", "column 1: '1j' is a complex literal");
        row("string", "'a' == 1", "column 1: a string is only allowed as a symbol's key");
        row("tuple", "(1, 2)", "column 1: a tuple is only allowed as an argument");
        row("tuple operand", "1 + (1, 2)", "column 5: a tuple is only allowed as an argument");
        row("tuple among varargs", "max((1, 2), 3)", "column 5: a tuple is only allowed");
        row("tuple to abs", "abs((1,))", "column 5: a tuple is only allowed");
        row("odd strides", "IsNonOverlappingAndDenseIndicator(1, 2, 3)",
            "column 1: IsNonOverlappingAndDenseIndicator takes sizes then strides: an even number");
        row("uneven tuples", "IsNonOverlappingAndDenseIndicator((1, 2), (3,))",
            "column 1: IsNonOverlappingAndDenseIndicator takes two tuples of equal length");
        row("line break", "1 +\n2", "column 4: a line break outside brackets");
        row("no else", "1 if 2", "column 7: expected 'else', found the end");
        row("in", "L['t0'] in (1, 2)",
            "column 9: expected an operator or the end of the "
            "expression, found 'in'");
        row("call of a call", "abs(1)(2)", "column 7: expected an operator or the end");
        row("keyword alone", "and", "column 1: expected an expression, found 'and'");
        row("not after compare", "1 == not 2", "column 6: expected an expression, found 'not'");
        row("non-ascii", "1 + \xc3\xa9", "column 5: unexpected character (byte 0xc3)");
        row("columns count characters", "L['\xc3\xa9'] < )", "column 10: expected an expression");
        row("matmul", "1 @ 2", "column 3: unexpected character '@'");
        row("unterminated", "L['t0", "column 3: unterminated string");
        row("string prefix", "L[r't0']", "column 3: string prefixes");
        row("triple quotes", "L['''t0''']", "column 3: triple-quoted strings");
        row("too many digits", QString(4301, '1'), "past the 4300 digits Python reads");
        row("deep parentheses", QString(201, '(') + "1" + QString(201, ')'),
            "nests deeper than 200 levels");
        row("deep unary", QString(300, '-') + "1", "nests deeper than 200 levels");
        row("deep tree", "1" + QString("+1").repeated(1000), "deeper than 1000 levels");
        row("too long", "1" + QString(" ").repeated(1 << 20), "longer than the 1048576");
    }

    void parseErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto guard = GuardExpression::parse(text.toStdString());
        QVERIFY(!guard);
        QVERIFY2(qs(guard.error().message).contains(message), guard.error().message.c_str());
    }

    void parseAcceptsPythonLayout() {
        // Comments, continuation lines, line breaks inside brackets.
        const auto guard = parse_or_die("(L['t0'] # size\n  > 1) and \\\n L['t0'] < 9\n");
        QCOMPARE(guard.clause_count(), 2U);
        QCOMPARE(guard.clause_text(0), "(L['t0'] # size\n  > 1)");
        QCOMPARE(answer(guard.check(hints_or_die("5"))), "true");
    }

    void pastPythonsPatience() {
        // Python would build 10**(2**70) first and never answer; the value is 0.
        QCOMPARE(parse_or_die("round(5, -(2**70))").value({})->repr(), "0");
        // Ints past kMaxIntBits are refused, not computed.
        for (const char* text : {"2**16384", "1 << 16384", "2**8192 * 2**8192", "2**(2**70)",
                                 "7**100000", "1 << (1 << 80)"}) {
            const auto value = parse_or_die(text).value({});
            QVERIFY2(!value && value.error().kind == ErrorKind::LimitExceeded, text);
        }
        QCOMPARE(answer(parse_or_die("2**16383 > 0").check({})), "true");
        // Powers of 0, 1 and -1 need no size at all.
        QCOMPARE(parse_or_die("(-1)**(2**200 + 1)").value({})->repr(), "-1");
    }

    void hintsParse() {
        const Hints positional = hints_or_die(" 64 , 128 ");
        QCOMPARE(positional.values.size(), 2U);
        QCOMPARE(positional.values[1].first, "t1");
        QCOMPARE(positional.find("t1")->repr(), "128");
        QVERIFY(!positional.find("t2"));
        const Hints named = hints_or_die("t1=5,t0=3");
        QCOMPARE(named.find("t0")->repr(), "3");
        const Hints kinds = hints_or_die("123456789012345678901234567890,-1.5e3,inf,True,-0.0");
        QCOMPARE(kinds.find("t0")->repr(), "123456789012345678901234567890");
        QCOMPARE(kinds.find("t1")->repr(), "-1500.0");
        QCOMPARE(kinds.find("t2")->repr(), "inf");
        QVERIFY(kinds.find("t3")->is_bool());
        QCOMPARE(kinds.find("t4")->repr(), "-0.0");
        QVERIFY(hints_or_die("").values.empty());

        auto error_of = [](const char* text) {
            auto hints = Hints::parse(text);
            return hints ? std::string() : hints.error().message;
        };
        QVERIFY(error_of("64,2**40").starts_with("hint 2 ('2**40'): "));
        QVERIFY(error_of("t0=1,2").starts_with("hint 2 ('2'): mix of positional"));
        QVERIFY(error_of("t0=1,t0=2").starts_with("hint 2 ('t0=2'): t0 is given twice"));
        QVERIFY(error_of("1,,2").starts_with("hint 2 (''): no value"));
        QVERIFY(error_of("t 0=1").starts_with("hint 1 ('t 0=1'): the name before '='"));
        QVERIFY(error_of("abc").starts_with("hint 1 ('abc'): 'abc' is not a number literal"));
    }

    void hintsMustFitWhatTheGuardsRead() {
        const auto error_of = [](const char* text, std::vector<std::vector<std::string>> read) {
            auto fits = check_hints(hints_or_die(text), read, "the guards of fkey");
            return fits ? std::string() : fits.error().message;
        };
        const std::vector<std::vector<std::string>> two = {{"t0", "t1"}};
        QCOMPARE(error_of("64,128", two), "");
        QCOMPARE(error_of("t1=128,t0=64", two), "");
        // Too few, too many, none, a name nothing reads: errors naming the symbols.
        QCOMPARE(error_of("64", two),
                 "1 value given, but the guards of fkey read 2 symbols: L['t0'], L['t1']");
        QCOMPARE(error_of("64,128,5", two),
                 "3 values given, but the guards of fkey read 2 symbols: L['t0'], L['t1']");
        QCOMPARE(error_of("", two),
                 "no values given, but the guards of fkey read 2 symbols: L['t0'], L['t1']");
        QCOMPARE(error_of("t5=3", two),
                 "1 value given, but the guards of fkey read 2 symbols: L['t0'], L['t1'] (no "
                 "value for L['t0'], L['t1']; nothing reads L['t5'])");
        QCOMPARE(error_of("t0=1,t1=2,x=3", two),
                 "3 values given, but the guards of fkey read 2 symbols: L['t0'], L['t1'] "
                 "(nothing reads L['x'])");
        // PyTorch passes a hint for each symbolic input: one below the
        // highest symbol read fits even when no guard reads it.
        const std::vector<std::vector<std::string>> gap = {{"t0", "t2"}};
        QCOMPARE(error_of("1,2,3", gap), "");
        QCOMPARE(error_of("t0=1,t2=3", gap), "");
        QCOMPARE(error_of("1,2", gap), "2 values given, but the guards of fkey read 2 symbols: "
                                       "L['t0'], L['t2'] (no value for L['t2'])");
        // Several entries: their union, said so.
        const std::vector<std::vector<std::string>> differ = {{"t0", "t1"}, {"t0", "t2"}, {}};
        QCOMPARE(error_of("1,2,3", differ), "");
        QCOMPARE(error_of("1,2", differ),
                 "2 values given, but the guards of fkey read 3 symbols between them: L['t0'], "
                 "L['t1'], L['t2']");
        // No guards (or guards without a symbol) read nothing: no values.
        QCOMPARE(error_of("", {{}}), "");
        QCOMPARE(error_of("", {}), "");
        QCOMPARE(error_of("64", {{}}), "1 value given, but the guards of fkey read no symbols: "
                                       "give none");
        QCOMPARE(error_of("x=1", {{"x"}}), "");
    }

    void numbers() {
        QCOMPARE(Number::integer(2147549184).repr(), "2147549184");
        QCOMPARE(Number::boolean(true).repr(), "True");
        QCOMPARE(Number::real(0.5).repr(), "0.5");
        QCOMPARE(Number::real(INFINITY).repr(), "inf");
        QCOMPARE(Number::none().repr(), "None");
        QCOMPARE(Number::parse("-9223372036854775809")->repr(), "-9223372036854775809");
        QVERIFY(Number::parse("-9223372036854775808")->is_small());
        QCOMPARE(Number::parse("0x_ff")->repr(), "255");
        QCOMPARE(Number::parse("1_0.5e1")->repr(), "105.0");
        QCOMPARE(Number::parse("-nan")->repr(), "nan");
        QVERIFY(!Number::parse("1.2.3"));
        QVERIFY(!Number::parse(""));
        QVERIFY(Number::real(NAN).identical(Number::real(NAN)));
        QVERIFY(!Number::real(0.0).identical(Number::real(-0.0)));
        QVERIFY(!Number::integer(1).identical(Number::boolean(true)));
        QVERIFY(Number::real(NAN).truthy());
        QVERIFY(!Number::real(-0.0).truthy());
        QVERIFY(Number::parse("18446744073709551616")
                    ->identical(Number::integer(BigInt(1).shifted_left(64))));
    }

    // check() on machine ints allocates nothing: resolving hints, evaluating
    // and the result all stay on the stack.
    void checkDoesNotAllocate() {
        if (!CACHELENS_COUNT_ALLOCATIONS) {
            QSKIP("allocations are not counted under AddressSanitizer");
        }
        const auto guard = parse_or_die(
            "L['t2']*L['t1'] + L['t0']*L['t1'] <= 2147483647 and L['t0']*L['t1'] <= 2147483647 "
            "and 2 <= L['t0'] and max(L['t1'], 2) // 2 >= 1 and (L['t2'] if L['t0'] else 0) >= 2");
        const Hints hints = hints_or_die("64,128,3");
        QCOMPARE(answer(guard.check(hints)), "true"); // warm up
        const long before = g_allocations.load();
        bool all = true;
        for (int i = 0; i < 1000; ++i) {
            all = all && guard.check(hints).value_or(false);
        }
        QCOMPARE(g_allocations.load() - before, 0L);
        QVERIFY(all);
    }

private:
    // evaluate() clause by clause against the case's clauses (or, for a
    // single-clause case, the whole expression). Returns the clauses checked.
    static int check_clauses(const GuardExpression& guard, const Hints& hints,
                             const QJsonObject& record, const Expected& python,
                             CaseChecker& checker, const QString& where) {
        const bool libm = record["libm"].toBool();
        QJsonArray clauses = record["clauses"].toArray();
        if (!record.contains("clauses")) {
            QJsonObject whole;
            whole["text"] = record["expr"];
            whole["symbols"] = record["symbols"];
            whole["outcome"] = record["outcome"];
            whole["passed"] = python.truthy();
            whole["reached"] = true;
            whole["operands"] = record["operands"];
            clauses.append(whole);
        }
        const auto evaluation = guard.evaluate(hints);
        // Only a missing hint in a reached clause fails evaluate().
        for (const auto& value : clauses) {
            const auto clause = value.toObject();
            const Expected outcome(clause["outcome"].toObject());
            if (clause["reached"].toBool() && outcome.error == "KeyError") {
                if (evaluation || evaluation.error().message != outcome.missing_hint_message()) {
                    QTest::qFail(qPrintable(where + ": evaluate() should fail for a missing hint"),
                                 __FILE__, __LINE__);
                }
                return 0;
            }
        }
        if (!evaluation) {
            QTest::qFail(qPrintable(where + ": " + qs(evaluation.error().message)), __FILE__,
                         __LINE__);
            return 0;
        }
        auto fail = [&](const QString& what) {
            QTest::qFail(qPrintable(where + ": " + what), __FILE__, __LINE__);
            return 0;
        };
        if (evaluation->clauses.size() != static_cast<std::size_t>(clauses.size())) {
            return fail("clause count");
        }
        std::optional<std::size_t> first_failure;
        for (qsizetype i = 0; i < clauses.size(); ++i) {
            const auto clause = clauses[i].toObject();
            const ClauseResult& ours = evaluation->clauses[static_cast<std::size_t>(i)];
            const Expected outcome(clause["outcome"].toObject());
            if (qs(ours.text) != clause["text"].toString()) {
                return fail("clause text " + qs(ours.text));
            }
            QStringList symbols;
            for (const auto& symbol : ours.symbols) {
                symbols << qs(symbol);
            }
            if (QJsonArray::fromStringList(symbols) != clause["symbols"].toArray()) {
                return fail("symbols of " + qs(ours.text));
            }
            if (outcome.raised()) {
                if (ours.value || !same_clause_error(ours.error, outcome)) {
                    return fail("clause error " + qs(ours.error));
                }
            } else if (!ours.value || !checker.same_value(*ours.value, outcome, libm)) {
                return fail("clause value of " + qs(ours.text) + ": " + qs(ours.error));
            }
            if (ours.passed != clause["passed"].toBool() ||
                ours.reached != clause["reached"].toBool()) {
                return fail("passed/reached of " + qs(ours.text));
            }
            const auto operands = clause["operands"].toArray();
            if (ours.operands.size() != static_cast<std::size_t>(operands.size())) {
                return fail("operand count of " + qs(ours.text));
            }
            for (qsizetype k = 0; k < operands.size(); ++k) {
                const auto& [text, number] = ours.operands[static_cast<std::size_t>(k)];
                const auto operand = operands[k].toArray();
                if (qs(text) != operand[0].toString() ||
                    !checker.same_value(number, Expected(operand[1].toObject()), libm)) {
                    return fail("operand " + qs(text) + " = " + qs(number.repr()));
                }
            }
            if (!ours.passed && !first_failure) {
                first_failure = static_cast<std::size_t>(i);
            }
        }
        if (evaluation->first_failure != first_failure ||
            evaluation->result != (!python.raised() && python.truthy())) {
            return fail("result or first failure");
        }
        return static_cast<int>(clauses.size());
    }
};

QTEST_GUILESS_MAIN(TestGuards)
#include "tst_guards.moc"
