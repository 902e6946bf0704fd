// Why two keys differ, as causes: hand-made debug lines for each category
// (a dim that became dynamic among 27 unchanged inputs, a dtype, a config
// key, the environment, a path, forward -> backward), and the fixtures'
// pairs (the variant compiles, cache_from_mega against cache, every pair:
// each differing attribute in exactly one cause).

#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/graph_code.h>
#include <cachelens/explain/key_diff.h>

#include <QCryptographicHash>
#include <QtTest>

#include <map>
#include <set>

using namespace cachelens;
using namespace cachelens::explain;

namespace {

std::string tensor(const std::string& dtype, const std::string& shape, const std::string& stride) {
    return "TensorMetadata(dtype=torch." + dtype + ", shape=torch.Size([" + shape + "]), stride=(" +
           stride +
           "), device=device(type='cuda', index=0), layout=torch.strided, "
           "memory_format=torch.contiguous_format, storage_offset=0, requires_grad=False)";
}

// A key's debug lines: its inputs, then `extra` lines ("name: value"). Each
// line's hash is its text's sha256 (lower-case hex, as a debug-line hash is
// lower case), so equal lines have equal hashes.
struct Key {
    std::vector<std::string> lines;
    std::vector<std::string_view> views() const { return {lines.begin(), lines.end()}; }
};

Key key(const std::vector<std::string>& inputs, const std::vector<std::string>& extra = {}) {
    Key out;
    const auto add = [&](const std::string& name_and_value) {
        const auto hash = QCryptographicHash::hash(QByteArray::fromStdString(name_and_value),
                                                   QCryptographicHash::Sha256)
                              .toHex()
                              .toStdString();
        out.lines.push_back("[" + hash + "] " + name_and_value);
    };
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        add("example_inputs[" + std::to_string(i) + "]: " + inputs[i]);
    }
    for (const auto& line : extra) {
        add(line);
    }
    return out;
}

const Cause* find(const KeyCauses& causes, CauseCategory category) {
    for (const auto& cause : causes.causes) {
        if (cause.category == category) {
            return &cause;
        }
    }
    return nullptr;
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

std::vector<std::string> many_weights(std::size_t count) {
    std::vector<std::string> weights;
    for (std::size_t i = 0; i < count; ++i) {
        weights.push_back(tensor("float32", std::to_string(64 + i) + ", 128", "128, 1"));
    }
    return weights;
}

} // namespace

class TestCauses : public QObject {
    Q_OBJECT

private slots:
    // The commonest miss: the batch became dynamic. PyTorch puts a SymInt in
    // front, so positionally all 28 inputs moved; one cause says it.
    void batchBecameDynamic() {
        auto before_inputs = many_weights(27);
        before_inputs.insert(before_inputs.begin() + 2, tensor("int64", "4, 128", "128, 1"));
        auto after_inputs = many_weights(27);
        after_inputs.insert(after_inputs.begin() + 2, tensor("int64", "s72, 128", "128, 1"));
        after_inputs.insert(after_inputs.begin(), "('s72',)");
        const Key before = key(before_inputs, {"gm: def forward(self, x): pass"});
        const Key after = key(after_inputs, {"gm: def forward(self, s72, x): pass"});
        const auto causes = explain_causes(before.views(), after.views());
        QVERIFY(!causes.causes.empty());
        QCOMPARE(causes.causes.front().category, CauseCategory::Dynamic);
        QCOMPARE(
            q(causes.causes.front().text),
            QStringLiteral("dim 0 of input 3 (input 2 before) became dynamic (4 -> s72); SymInt "
                           "input 0 (s72) added with it"));
        QVERIFY(q(causes.verdict)
                    .startsWith(QStringLiteral(
                        "Missed because dim 0 of input 3 (input 2 before) became dynamic")));
        QVERIFY(!find(causes, CauseCategory::Shapes)); // nothing else about the inputs
        // Every positional example_inputs line that differs belongs to it.
        const auto diff = diff_keys(before.views(), after.views());
        std::size_t input_lines = 0;
        for (const auto& difference : diff.differences) {
            input_lines += difference.name.starts_with("example_inputs[") ? 1 : 0;
        }
        QCOMPARE(causes.causes.front().attributes.size(), input_lines);
        QVERIFY(input_lines > 20);
    }

    void dtypesSaidOnceForSeveralInputs() {
        const Key before = key({tensor("float32", "8, 8", "8, 1"), tensor("float32", "8", "1")});
        const Key after = key({tensor("float16", "8, 8", "8, 1"), tensor("float16", "8", "1")});
        const auto causes = explain_causes(before.views(), after.views());
        QCOMPARE(causes.causes.size(), std::size_t(1));
        QCOMPARE(causes.causes[0].category, CauseCategory::Dtypes);
        QCOMPARE(q(causes.causes[0].text),
                 QStringLiteral("input dtypes changed: inputs 0, 1: float32 -> float16"));
        QCOMPARE(q(causes.verdict),
                 QStringLiteral("Missed because input dtypes changed: inputs 0, 1: float32 -> "
                                "float16"));
    }

    // "Another graph" on evidence only: keys that record no ops (no gm, no
    // wrapper_ops: a 2.2/2.3 entry, or this test's bare inputs) are neither
    // one graph nor two; wrapper ops alike are one graph, unalike two.
    void anotherGraphOnlyOnEvidence() {
        const auto shape = [](const Key& key) {
            const auto views = key.views();
            return graph_shape_of(views);
        };
        const std::vector<std::string> inputs{tensor("float32", "8", "1")};
        const Key bare = key(inputs);
        QVERIFY(!shape(bare).ops_known);
        QVERIFY(!same_family(shape(bare), shape(bare)));
        QVERIFY(!other_family(shape(bare), shape(bare)));

        const Key mm = key(inputs, {"wrapper_ops: extern aten.mm x2, extern aten.addmm"});
        const Key mm_again = key(inputs, {"wrapper_ops: extern aten.mm, extern aten.addmm"});
        const Key conv = key(inputs, {"wrapper_ops: extern aten.convolution"});
        QVERIFY(shape(mm).ops_known);
        QVERIFY(same_family(shape(mm), shape(mm_again)));
        QVERIFY(!other_family(shape(mm), shape(mm_again)));
        QVERIFY(other_family(shape(mm), shape(conv)));
        QVERIFY(!same_family(shape(mm), shape(conv)));
        QVERIFY(!other_family(shape(mm), shape(bare))); // one side says nothing

        const auto different = explain_causes(mm.views(), conv.views());
        QVERIFY2(different.verdict.starts_with("Another graph, not this one compiled before"),
                 different.verdict.c_str());
        const Key bare_half = key({tensor("float16", "8", "1")});
        const auto unknown = explain_causes(bare.views(), bare_half.views());
        QVERIFY2(unknown.verdict.starts_with("Missed because"), unknown.verdict.c_str());
    }

    void configEnvironmentAutogradAndPaths() {
        const std::vector<std::string> inputs{tensor("float32", "8", "1")};
        const Key before =
            key(inputs, {"inductor_config[max_autotune]: False",
                         "system_info[device]: {'name': 'NVIDIA H100 80GB HBM3'}",
                         "fx_kwargs[is_backward]: False",
                         "cache_key_tag: /tmp/torchinductor_alice/x.py", "torch_version: 1"});
        const Key after =
            key(inputs, {"inductor_config[max_autotune]: True",
                         "system_info[device]: {'name': 'NVIDIA A100-SXM4-40GB'}",
                         "fx_kwargs[is_backward]: True",
                         "cache_key_tag: /tmp/torchinductor_bob/x.py", "torch_version: 1"});
        const auto causes = explain_causes(before.views(), after.views());
        QCOMPARE(causes.causes.size(), std::size_t(4));
        QCOMPARE(causes.causes[0].category, CauseCategory::Autograd);
        QCOMPARE(q(causes.causes[0].text),
                 QStringLiteral("a forward graph before, a backward graph now"));
        QCOMPARE(causes.causes[1].category, CauseCategory::Config);
        QCOMPARE(q(causes.causes[1].text),
                 QStringLiteral("the Inductor config changed: max_autotune: False -> True"));
        QCOMPARE(causes.causes[1].attributes,
                 std::vector<std::string>{"inductor_config[max_autotune]"});
        QCOMPARE(causes.causes[2].category, CauseCategory::Environment);
        QCOMPARE(q(causes.causes[2].text),
                 QStringLiteral("the environment changed: GPU: NVIDIA H100 80GB HBM3 -> NVIDIA "
                                "A100-SXM4-40GB"));
        QCOMPARE(causes.causes[3].category, CauseCategory::Paths);
        QVERIFY(q(causes.causes[3].text).contains(QStringLiteral("torchinductor_alice")));
        QCOMPARE(q(causes.verdict),
                 QStringLiteral("Another graph, not this one compiled before; it differs: a "
                                "forward graph before, a backward graph now; also: config, "
                                "environment, paths"));
    }

    void graphOpsCounted() {
        const Key before =
            key({}, {"gm: def forward(self, x):\n    a = torch.ops.aten.relu.default(x)\n"});
        const Key after =
            key({}, {"gm: def forward(self, x):\n    a = torch.ops.aten.gelu.default(x)\n    b = "
                     "torch.ops.aten.gelu.default(a)\n"});
        const auto causes = explain_causes(before.views(), after.views());
        QCOMPARE(causes.causes.size(), std::size_t(1));
        QCOMPARE(q(causes.causes[0].text),
                 QStringLiteral("the graph's code changed: ops added: aten.gelu x2; ops removed: "
                                "aten.relu"));
        // Other ops: another graph, not this one compiled again.
        QCOMPARE(graph_similarity(before.views(), after.views()), 0.0);
        QCOMPARE(graph_similarity(after.views(), after.views()), 1.0);
    }

    void sameKeysSaySo() {
        const Key one = key({tensor("float32", "8", "1")}, {"inductor_config[a]: 1"});
        const auto causes = explain_causes(one.views(), one.views());
        QVERIFY(causes.causes.empty());
        QCOMPARE(q(causes.verdict), QStringLiteral("The two keys are the same"));
    }

    // The three variant compiles of the devset: a config cause naming the
    // changed keys, and a dtypes cause for float16.
    void variantCompiles() {
        auto scan = cachedir::scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(scan);
        std::map<std::string, cachedir::FxGraphEntry> by_key;
        for (const auto& entry : scan->entries()) {
            if (entry.kind == cachedir::FileKind::FxGraph) {
                auto fx = cachedir::load_fx_graph_entry(scan->root / entry.path);
                QVERIFY_RESULT(fx);
                by_key.emplace(fx->key, std::move(*fx));
            }
        }
        const auto& base = by_key.at("fajgubgjoc7472fanbq4v7toa3fipqcxuw5brgm2dgofcoq3dily");
        const auto& config = by_key.at("fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq");
        const auto& half = by_key.at("fcblktfdhj2nw664pzoe6ceizrqj2gonbqakerkx6hbjkiz5g3fa");

        const auto config_causes = explain_causes(base.debug_lines, config.debug_lines);
        QCOMPARE(config_causes.causes.size(), std::size_t(1));
        QCOMPARE(config_causes.causes[0].category, CauseCategory::Config);
        QCOMPARE(config_causes.causes[0].attributes,
                 (std::vector<std::string>{"inductor_config[epilogue_fusion]",
                                           "inductor_config[max_fusion_size]"}));

        const auto half_causes = explain_causes(base.debug_lines, half.debug_lines);
        QCOMPARE(half_causes.causes.front().category, CauseCategory::Dtypes);
        QVERIFY(q(half_causes.causes.front().text).contains(QStringLiteral("float32 -> float16")));
        QVERIFY(find(half_causes, CauseCategory::Config));
        QVERIFY(find(half_causes, CauseCategory::Graph));
    }

    // cache_from_mega's graph against the same graph in cache: only
    // benchmark_kernel differs.
    void cacheFromMegaOnlyBenchmarkKernel() {
        const auto load = [](const char* dir, const char* key) {
            auto scan = cachedir::scan_cache_dir(test::fixture(dir));
            if (!scan) {
                return Result<cachedir::FxGraphEntry>(std::unexpected(scan.error()));
            }
            for (const auto& entry : scan->entries()) {
                if (entry.kind == cachedir::FileKind::FxGraph &&
                    entry.path.find(key) != std::string::npos) {
                    return cachedir::load_fx_graph_entry(scan->root / entry.path);
                }
            }
            return Result<cachedir::FxGraphEntry>(
                fail(ErrorKind::NotFound, "not in the fixture", key));
        };
        auto mega =
            load("devset/cache_from_mega", "fc4trgrb2j5vgs4efv523duie5glgxlqc4ue2pybjpnp2cbbaxm3");
        auto cache = load("devset/cache", "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e");
        QVERIFY_RESULT(mega);
        QVERIFY_RESULT(cache);
        const auto causes = explain_causes(cache->debug_lines, mega->debug_lines);
        QCOMPARE(causes.causes.size(), std::size_t(1));
        QCOMPARE(causes.causes[0].attributes,
                 std::vector<std::string>{"inductor_config[benchmark_kernel]"});
        QCOMPARE(q(causes.verdict),
                 QStringLiteral("Missed because the Inductor config changed: benchmark_kernel: "
                                "True -> False"));
    }

    // Every pair of FX entries in the fixtures: each differing attribute is
    // in exactly one cause, and the answer is the same twice.
    void everyFixturePairAccountsForEveryLine() {
        std::vector<cachedir::FxGraphEntry> graphs;
        for (const char* dir :
             {"devset/cache", "devset/cache_from_mega", "multi_dev/cache", "cpu_dev/cache"}) {
            auto scan = cachedir::scan_cache_dir(test::fixture(dir));
            if (!scan) {
                continue;
            }
            for (const auto& entry : scan->entries()) {
                if (entry.kind == cachedir::FileKind::FxGraph) {
                    auto fx = cachedir::load_fx_graph_entry(scan->root / entry.path);
                    QVERIFY_RESULT(fx);
                    graphs.push_back(std::move(*fx));
                }
            }
        }
        QVERIFY(graphs.size() >= 10);
        for (const auto& before : graphs) {
            for (const auto& after : graphs) {
                const auto diff = diff_keys(before.debug_lines, after.debug_lines);
                const auto causes = explain_causes(before.debug_lines, after.debug_lines);
                std::multiset<std::string> accounted;
                for (const auto& cause : causes.causes) {
                    QVERIFY(!cause.text.empty());
                    accounted.insert(cause.attributes.begin(), cause.attributes.end());
                }
                std::multiset<std::string> differing;
                for (const auto& difference : diff.differences) {
                    differing.insert(difference.name);
                }
                QCOMPARE(accounted, differing);
                QCOMPARE(causes.causes.empty(), diff.differences.empty());
                const auto again = explain_causes(before.debug_lines, after.debug_lines);
                QCOMPARE(again.verdict, causes.verdict);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCauses)
#include "tst_causes.moc"
