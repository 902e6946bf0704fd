// A graph's example inputs typed from their debug lines, and two graphs'
// inputs aligned by what they are: hand-made lists (a SymInt inserted in
// front, a dtype change, a reorder, a removal) and every pair of FX entries of
// the fixtures (no crash, the same answer twice, every input accounted for).

#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/debug_line.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/explain/example_inputs.h>

#include <QtTest>

#include <set>

using namespace cachelens;
using namespace cachelens::explain;

namespace {

std::string tensor(const std::string& dtype, const std::string& shape, const std::string& stride,
                   const std::string& device = "device(type='cuda', index=0)") {
    return "TensorMetadata(dtype=torch." + dtype + ", shape=torch.Size([" + shape + "]), stride=(" +
           stride + "), device=" + device +
           ", layout=torch.strided, memory_format=torch.contiguous_format, storage_offset=0, "
           "storage_bytes=None, requires_grad=False, is_quantized=False, is_conj=False, "
           "is_neg=False, is_inference=False, is_sparse=False, is_coalesced=None, "
           "dense_dim=None, sparse_dim=None)";
}

std::vector<ExampleInput> inputs(const std::vector<std::string>& values) {
    std::vector<ExampleInput> out;
    for (const auto& value : values) {
        out.push_back(parse_example_input(value));
    }
    return out;
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

QStringList changes(const AlignedInput& aligned) {
    QStringList out;
    for (const auto& change : aligned.changes) {
        out << q(change.text);
    }
    return out;
}

} // namespace

class TestExampleInputs : public QObject {
    Q_OBJECT

private slots:
    void readsATensor() {
        const auto input = parse_example_input(tensor("float16", "1024, 1024", "1024, 1"));
        QVERIFY(input.kind == ExampleInput::Kind::Tensor);
        QCOMPARE(q(input.dtype), QStringLiteral("float16"));
        QCOMPARE(input.shape, (std::vector<std::string>{"1024", "1024"}));
        QCOMPARE(input.stride, (std::vector<std::string>{"1024", "1"}));
        QCOMPARE(q(input.device), QStringLiteral("cuda:0"));
        QCOMPARE(q(input.layout), QStringLiteral("strided"));
        QCOMPARE(input.requires_grad, std::optional<bool>(false));
        QCOMPARE(q(input.fields.at("memory_format")), QStringLiteral("torch.contiguous_format"));
        QVERIFY(!input.fields.contains("shape"));
        QCOMPARE(q(input.describe()), QStringLiteral("[1024, 1024] float16 on cuda:0"));
    }

    void readsSymbolicSizesAndSymInts() {
        const auto input = parse_example_input(
            tensor("int64", "s72, 128*s70", "128*s70, 1", "device(type='cpu')"));
        QCOMPARE(input.shape, (std::vector<std::string>{"s72", "128*s70"}));
        QCOMPARE(input.stride, (std::vector<std::string>{"128*s70", "1"}));
        QCOMPARE(q(input.device), QStringLiteral("cpu"));
        QVERIFY(!is_static_size("s72") && !is_static_size("128*s70") && is_static_size("128"));

        const auto symint = parse_example_input("('s72',)");
        QVERIFY(symint.kind == ExampleInput::Kind::SymInt);
        QCOMPARE(q(symint.expression), QStringLiteral("s72"));
        QCOMPARE(q(symint.describe()), QStringLiteral("SymInt s72"));

        // A scalar shape, and values that are neither: kept as written.
        QVERIFY(parse_example_input(tensor("float32", "", "")).shape.empty());
        for (const char* other : {"5", "('a', 'b')", "TensorMetadata(", "", "(')"}) {
            const auto input_other = parse_example_input(other);
            QVERIFY2(input_other.kind == ExampleInput::Kind::Other, other);
            QCOMPARE(q(input_other.text), QString::fromLatin1(other).trimmed());
        }
    }

    // The commonest miss: the batch became dynamic, and PyTorch put its
    // SymInt in front. Aligned by position, every input would differ.
    void aSymIntInFrontShiftsNothing() {
        const auto left =
            inputs({tensor("int64", "4, 128", "128, 1"), tensor("float32", "512, 128", "128, 1"),
                    tensor("float32", "128", "1")});
        const auto right =
            inputs({"('s72',)", tensor("int64", "s72, 128", "128, 1"),
                    tensor("float32", "512, 128", "128, 1"), tensor("float32", "128", "1")});
        const auto aligned = align_inputs(left, right);
        QCOMPARE(aligned.size(), std::size_t{4});
        QVERIFY(aligned[0].added());
        QCOMPARE(changes(aligned[0]), QStringList{"added: SymInt s72"});
        QCOMPARE(aligned[1].left, std::optional<std::size_t>(0));
        QCOMPARE(aligned[1].right, std::optional<std::size_t>(1));
        QCOMPARE(changes(aligned[1]), QStringList{"dim 0: 4 -> s72 (became dynamic)"});
        for (std::size_t i : {2u, 3u}) {
            QCOMPARE(aligned[i].left, std::optional<std::size_t>(i - 1));
            QVERIFY(!aligned[i].changed());
        }
        // And back: static again, the SymInt removed.
        const auto back = align_inputs(right, left);
        QVERIFY(back[0].removed());
        QCOMPARE(changes(back[1]), QStringList{"dim 0: s72 -> 4 (became static)"});
    }

    // Each compile names its symbols anew: a renamed symbol is no change, a
    // size tied to another symbol is.
    void renamedSymbolsAreTheSameSize() {
        const auto left = inputs({"('s77',)", "('s27',)", tensor("float32", "s77, s27", "s27, 1"),
                                  tensor("float32", "s27, 4*s77", "4*s77, 1")});
        const auto right = inputs({"('s97',)", "('s98',)", tensor("float32", "s97, s98", "s98, 1"),
                                   tensor("float32", "s97, 4*s97", "4*s97, 1")});
        const auto aligned = align_inputs(left, right);
        QCOMPARE(aligned.size(), std::size_t{4});
        for (std::size_t i = 0; i < 3; ++i) {
            QVERIFY2(!aligned[i].changed(), qPrintable(changes(aligned[i]).join("; ")));
        }
        QCOMPARE(changes(aligned[3]), QStringList{"dim 0: s27 -> s97"});
    }

    void dtypeDeviceAndRequiresGrad() {
        auto a = tensor("float32", "128, 256", "256, 1");
        auto b = tensor("float16", "128, 256", "256, 1");
        auto aligned = align_inputs(inputs({a}), inputs({b}));
        QCOMPARE(aligned.size(), std::size_t{1});
        QCOMPARE(changes(aligned[0]), QStringList{"dtype: float32 -> float16"});

        const auto cpu = tensor("float32", "128, 256", "256, 1", "device(type='cpu')");
        aligned = align_inputs(inputs({a}), inputs({cpu}));
        QCOMPARE(changes(aligned[0]), QStringList{"device: cuda:0 -> cpu"});

        std::string grad = a;
        grad.replace(grad.find("requires_grad=False"), 19, "requires_grad=True");
        aligned = align_inputs(inputs({a}), inputs({grad}));
        QCOMPARE(changes(aligned[0]), QStringList{"requires_grad: False -> True"});

        // Only the stride: said; with the sizes, it follows from them and is not.
        const auto transposed = tensor("float32", "128, 256", "1, 128");
        aligned = align_inputs(inputs({a}), inputs({transposed}));
        QCOMPARE(changes(aligned[0]), QStringList{"stride: (256, 1) -> (1, 128)"});
        const auto wider = tensor("float32", "128, 512", "512, 1");
        aligned = align_inputs(inputs({a}), inputs({wider}));
        QCOMPARE(changes(aligned[0]), QStringList{"dim 1: 256 -> 512"});
    }

    void reorderedAndRemovedInputs() {
        const auto weights = tensor("float32", "512, 128", "128, 1");
        const auto ids = tensor("int64", "4, 128", "128, 1");
        const auto bias = tensor("float32", "128", "1");
        // Swapped: one stays in order, the other is found moved, not added and removed.
        auto aligned = align_inputs(inputs({weights, ids}), inputs({ids, weights}));
        QCOMPARE(aligned.size(), std::size_t{2});
        int moved = 0;
        for (const auto& pair : aligned) {
            QVERIFY(pair.left && pair.right);
            moved += pair.changed() ? 1 : 0;
            if (pair.changed()) {
                QCOMPARE(changes(pair).size(), 1);
                QVERIFY(changes(pair).front().startsWith("moved: input "));
            }
        }
        QCOMPARE(moved, 1);

        // One removed in the middle: the others stay paired.
        aligned = align_inputs(inputs({weights, ids, bias}), inputs({weights, bias}));
        QCOMPARE(aligned.size(), std::size_t{3});
        QVERIFY(!aligned[0].changed());
        QVERIFY(aligned[1].removed());
        QCOMPARE(changes(aligned[1]), QStringList{"removed: [4, 128] int64 on cuda:0"});
        QVERIFY(!aligned[2].changed());

        // Nothing on one side.
        QCOMPARE(align_inputs({}, inputs({bias})).size(), std::size_t{1});
        QVERIFY(align_inputs({}, {}).empty());
    }

    // Every pair of FX entries in the fixtures: every input on each side
    // appears once, identical graphs align with no change, and the answer is
    // the same twice.
    void everyFixturePairAligns() {
        std::vector<std::vector<ExampleInput>> graphs;
        for (const char* dir : {"devset/cache", "multi_dev/cache", "cpu_dev/cache"}) {
            auto scan = cachedir::scan_cache_dir(test::fixture(dir));
            if (!scan) {
                continue; // a set without a cache dir of that name
            }
            for (const auto& entry : scan->entries()) {
                if (entry.kind != cachedir::FileKind::FxGraph) {
                    continue;
                }
                auto fx = cachedir::load_fx_graph_entry(scan->root / entry.path);
                QVERIFY_RESULT(fx);
                graphs.push_back(example_inputs_of(fx->debug_lines));
            }
        }
        QVERIFY(graphs.size() >= 10);
        std::size_t tensors = 0;
        for (const auto& graph : graphs) {
            for (const auto& input : graph) {
                tensors += input.kind == ExampleInput::Kind::Tensor ? 1 : 0;
                QVERIFY2(input.kind != ExampleInput::Kind::Other, input.text.c_str());
            }
        }
        QVERIFY(tensors > 0);
        for (const auto& left : graphs) {
            for (const auto& right : graphs) {
                const auto aligned = align_inputs(left, right);
                std::multiset<std::size_t> lefts;
                std::multiset<std::size_t> rights;
                for (const auto& pair : aligned) {
                    QVERIFY(pair.left || pair.right);
                    if (pair.left) {
                        lefts.insert(*pair.left);
                    }
                    if (pair.right) {
                        rights.insert(*pair.right);
                    }
                }
                QCOMPARE(lefts.size(), left.size());
                QCOMPARE(std::set<std::size_t>(lefts.begin(), lefts.end()).size(), left.size());
                QCOMPARE(rights.size(), right.size());
                QCOMPARE(std::set<std::size_t>(rights.begin(), rights.end()).size(), right.size());
                const auto again = align_inputs(left, right);
                QCOMPARE(again.size(), aligned.size());
                for (std::size_t i = 0; i < aligned.size(); ++i) {
                    QCOMPARE(again[i].left, aligned[i].left);
                    QCOMPARE(again[i].changes, aligned[i].changes);
                }
                if (&left == &right) {
                    for (const auto& pair : aligned) {
                        QVERIFY(!pair.changed());
                    }
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestExampleInputs)
#include "tst_example_inputs.moc"
