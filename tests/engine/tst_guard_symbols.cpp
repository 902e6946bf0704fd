// Guards in the user's terms: each L['tN'] named by the SymInt input it is
// and the dims that carry it; --sizes turned into the hints (by symbol, by
// dim, derived expressions) with errors that name the item; on the fixtures,
// every guard symbol of every entry named, and on every golden_multi.json
// probe the sizes pick the entry PyTorch picked.

#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/explain/guard_symbols.h>
#include <cachelens/explain/lookup.h>

#include <QtTest>

#include <filesystem>

using namespace cachelens;
using namespace cachelens::explain;

namespace {

ExampleInput tensor(const std::string& shape, const std::string& dtype = "int64") {
    return parse_example_input("TensorMetadata(dtype=torch." + dtype + ", shape=torch.Size([" +
                               shape +
                               "]), stride=(1, 1), device=device(type='cuda', index=0), "
                               "layout=torch.strided, requires_grad=False)");
}

ExampleInput symint(const std::string& expression) {
    return parse_example_input("('" + expression + "',)");
}

// A batch dynamic graph: t0 is s72, t1 is 128*s72 (a flattened view's size).
std::vector<ExampleInput> batch_graph() {
    return {symint("s72"), symint("128*s72"), tensor("s72, 128"), tensor("128*s72", "float32"),
            tensor("64, 64", "float32")};
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

std::string hints_text(const guards::Hints& hints) {
    std::string text;
    for (const auto& [name, value] : hints.values) {
        text += (text.empty() ? "" : ",") + name + "=" + value.repr();
    }
    return text;
}

} // namespace

class TestGuardSymbols : public QObject {
    Q_OBJECT

private slots:
    void namesEachSymbol() {
        const auto symbols = guard_symbols(batch_graph());
        QCOMPARE(symbols.size(), std::size_t(2));
        QCOMPARE(q(symbols[0].name), QStringLiteral("t0"));
        QCOMPARE(symbols[0].input, std::size_t(0));
        QCOMPARE(q(symbols[0].expression), QStringLiteral("s72"));
        QCOMPARE(symbols[0].dims,
                 std::vector<std::string>{"input 2 dim 0 ([s72, 128] int64 on cuda:0)"});
        QCOMPARE(q(symbols[1].describe()),
                 QStringLiteral("t1 = 128*s72 (input 1): input 3 dim 0 ([128*s72] float32 on "
                                "cuda:0)"));
        const auto sizes = free_sizes(batch_graph());
        QCOMPARE(sizes.size(), std::size_t(1));
        QCOMPARE(q(sizes[0].symbol), QStringLiteral("s72"));
        QCOMPARE(sizes[0].dims, std::vector<std::string>{"input 2 dim 0"});
        // A static graph has none; an unbacked SymInt is not passed.
        QVERIFY(guard_symbols({tensor("4, 128")}).empty());
        QVERIFY(guard_symbols({symint("u0"), tensor("u0")}).empty());
    }

    void sizesDeriveEveryHint() {
        for (const char* sizes : {"s72=48", "input2.dim0=48", " input 2 dim 0 = 48 ",
                                  "s72=48,input2.dim0=48", "s72=48,input4.dim1=64"}) {
            auto hints = hints_from_sizes(batch_graph(), sizes);
            QVERIFY2(hints.has_value(), sizes);
            QCOMPARE(q(hints_text(*hints)), QStringLiteral("t0=48,t1=6144"));
        }
    }

    void badSizesNameTheItem() {
        const auto error = [](std::string_view sizes) {
            auto hints = hints_from_sizes(batch_graph(), sizes);
            return hints ? QString() : q(hints.error().message);
        };
        QCOMPARE(error("s99=3"), QStringLiteral("'s99=3': this graph has no size s99; its sizes "
                                                "are s72 (input 2 dim 0)"));
        QCOMPARE(error("input3.dim0=5"),
                 QStringLiteral("'input3.dim0=5': input 3 dim 0 is 128*s72, which follows from "
                                "other sizes; its sizes are s72 (input 2 dim 0)"));
        QCOMPARE(error("s72=4,input2.dim1=64"),
                 QStringLiteral("'input2.dim1=64': input 2 dim 1 is static (128): this graph "
                                "serves that size only"));
        QCOMPARE(error("s72=4,input2.dim0=5"),
                 QStringLiteral("'s72=4' and 'input2.dim0=5' give s72 two values"));
        QCOMPARE(error(""), QStringLiteral("no value for s72 (input 2 dim 0): give s72=N or "
                                           "input2.dim0=N"));
        QCOMPARE(error("s72=1.5"), QStringLiteral("'s72=1.5': a size is an int"));
        QCOMPARE(error("s72"), QStringLiteral("'s72': give NAME=VALUE (s72=48 or input2.dim0=48)"));
        QCOMPARE(error("input9.dim0=1"),
                 QStringLiteral("'input9.dim0=1': input 9 is not a tensor of this graph (5 "
                                "inputs); its sizes are s72 (input 2 dim 0)"));
    }

    // Every FX entry of the fixtures: each symbol its guards read is named.
    void everyFixtureGuardSymbolIsNamed() {
        std::size_t named = 0;
        for (const char* dir : {"devset/cache", "multi_dev/cache", "cpu_dev/cache"}) {
            auto scan = cachedir::scan_cache_dir(test::fixture(dir));
            if (!scan) {
                continue;
            }
            for (const auto& entry : scan->entries()) {
                if (entry.kind != cachedir::FileKind::FxGraph) {
                    continue;
                }
                auto fx = cachedir::load_fx_graph_entry(scan->root / entry.path);
                QVERIFY_RESULT(fx);
                if (!fx->guards_expr || fx->guards_expr->empty()) {
                    continue;
                }
                auto expression = guards::GuardExpression::parse(*fx->guards_expr);
                QVERIFY_RESULT(expression);
                const auto symbols = guard_symbols(example_inputs_of(fx->debug_lines));
                for (const auto& read : expression->symbols()) {
                    const auto found = std::ranges::find(symbols, read, &GuardSymbol::name);
                    QVERIFY2(found != symbols.end(), (entry.path + ": " + read).c_str());
                    QVERIFY2(!found->dims.empty(), (entry.path + ": " + read).c_str());
                    ++named;
                }
            }
        }
        QVERIFY(named >= 7);
    }

    // golden_multi.json: the sizes a user would give (each t<i>'s symbol)
    // pick the entry PyTorch picked, as the hints do.
    void sizesPickWhatHintsPick() {
        const auto golden = test::read_json(test::fixture("multi_dev/golden_multi.json"));
        const auto key = golden["keys"][0].toObject();
        const std::string key_name =
            std::filesystem::path(key["key_dir"].toString().toStdString()).filename().string();
        auto scan = cachedir::scan_cache_dir(test::fixture("multi_dev/cache"));
        QVERIFY_RESULT(scan);
        const auto entries = cachedir::find_entries(*scan, key_name);
        QVERIFY(!entries.empty());
        auto fx = cachedir::load_fx_graph_entry(scan->root / entries[0].path);
        QVERIFY_RESULT(fx);
        const auto inputs = example_inputs_of(fx->debug_lines);
        const auto symbols = guard_symbols(inputs);
        QCOMPARE(symbols.size(), std::size_t(2));
        int probes = 0;
        for (const auto& value : key["probes"].toArray()) {
            const auto probe = value.toObject();
            const auto hints = probe["hints"].toArray();
            std::vector<guards::Number> numbers;
            std::string by_symbol;
            std::string by_dim;
            for (qsizetype i = 0; i < hints.size(); ++i) {
                numbers.push_back(guards::Number::integer(hints[i].toInteger()));
                const auto& symbol = symbols[static_cast<std::size_t>(i)];
                const std::string number = std::to_string(hints[i].toInteger());
                by_symbol += (by_symbol.empty() ? "" : ",") + symbol.expression + "=" + number;
                // "input 2 dim 0 (...)" -> "input2.dim0"
                std::string dim = symbol.dims.front().substr(0, symbol.dims.front().find(" ("));
                std::erase(dim, ' ');
                dim.insert(dim.find("dim"), ".");
                by_dim += (by_dim.empty() ? "" : ",") + dim + "=" + number;
            }
            const auto expected = guards::Hints::positional(numbers);
            auto pick = simulate_lookup(test::fixture("multi_dev/cache"), key_name, expected);
            QVERIFY_RESULT(pick);
            for (const auto& sizes : {by_symbol, by_dim}) {
                auto derived = hints_from_sizes(inputs, sizes);
                QVERIFY_RESULT(derived);
                QCOMPARE(q(hints_text(*derived)), q(hints_text(expected)));
                auto lookup = simulate_lookup(test::fixture("multi_dev/cache"), key_name, *derived);
                QVERIFY_RESULT(lookup);
                QCOMPARE(lookup->hit, pick->hit);
                QCOMPARE(lookup->hit ? q(*lookup->hit) : QString(),
                         probe["first_hit"].isNull() ? QString() : probe["first_hit"].toString());
            }
            ++probes;
        }
        QCOMPARE(probes, 10);
    }
};

QTEST_GUILESS_MAIN(TestGuardSymbols)
#include "tst_guard_symbols.moc"
