// The pickle policy (safety/pickle_policy.h): every real entry we have passes
// with no finding, hostile pickles each give the finding they should, and the
// table covers every class the PyTorch inventory (read from PyTorch's source)
// lists.

#include <cachelens/pickle/unpickler.h>
#include <cachelens/safety/pickle_policy.h>

#include <test_paths.h>

#include <QElapsedTimer>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace cachelens;
using safety::PickleSchema;
namespace fs = std::filesystem;

namespace {

safety::PickleCheck check_file(const fs::path& path, PickleSchema schema) {
    auto document = pickle::unpickle_file(path);
    if (!document) {
        QTest::qFail(qPrintable(QString::fromStdString(document.error().message)), __FILE__,
                     __LINE__);
        return {};
    }
    return safety::check_pickle(**document, schema);
}

safety::PickleCheck check_policy_pickle(const std::string& name, PickleSchema schema) {
    return check_file(test::test_data("pickles/policy/" + name), schema);
}

QString describe(const std::vector<safety::Finding>& findings) {
    QString out;
    for (const auto& finding : findings) {
        out +=
            QString::fromStdString(finding.rule + " " + finding.text + ": " + finding.why) + "\n";
    }
    return out;
}

// Pickle opcodes (protocol 4) for the pickles built here.
std::string u32(std::size_t value) {
    std::string out;
    for (int i = 0; i < 4; ++i) {
        out += static_cast<char>((value >> (8 * i)) & 0xff);
    }
    return out;
}
std::string text_op(std::string_view text) {
    return "X" + u32(text.size()) + std::string(text);
}
std::string bytes_op(std::string_view bytes) {
    return "B" + u32(bytes.size()) + std::string(bytes);
}
std::string global_op(std::string_view module, std::string_view name) {
    return "c" + std::string(module) + "\n" + std::string(name) + "\n";
}

std::string memo_put(int index) {
    return std::string("q") + static_cast<char>(index);
}
std::string memo_get(int index) {
    return std::string("h") + static_cast<char>(index);
}

// An AOTDedupeWrapper whose keep_arg_mask is `levels` lists deep, each list
// holding the one below `width` times over (the memo shares it), the
// innermost holding `leaf` (a pickle opcode pushing one value).
std::string nested_shared_lists(std::size_t width, int levels, const std::string& leaf) {
    std::string out =
        "\x80\x04" +
        global_op("torch._functorch._aot_autograd.runtime_wrappers", "AOTDedupeWrapper") + ")\x81";
    out += "]" + leaf + "a" + memo_put(0) + "0";
    for (int level = 1; level <= levels; ++level) {
        out += "](";
        for (std::size_t i = 0; i < width; ++i) {
            out += memo_get(level - 1);
        }
        out += "e" + memo_put(level) + "0";
    }
    return out + "}" + text_op("keep_arg_mask") + memo_get(levels) + "sb.";
}

// A list of `count` distinct objects that all share, through the memo, the
// same `shared` value: built as `build(memo 1)` from memo 1 = `head` and
// memo 2 = `shared`.
std::string shared_by_many(const std::string& head, const std::string& shared,
                           const std::string& each, std::size_t count) {
    std::string out = "\x80\x04" + head + "q\x01" + shared + "q\x02" + "0" + "](";
    for (std::size_t i = 0; i < count; ++i) {
        out += each;
    }
    return out + "e.";
}

} // namespace

class TestPicklePolicy : public QObject {
    Q_OBJECT

private slots:
    // Every FX graph, AOTAutograd and PGO pickle of every real cache we have.
    void everyRealEntryHasNoFinding() {
        std::vector<fs::path> roots{test::sample_cache()};
        for (const char* root :
             {"devset/cache", "devset/cache_from_mega", "multi_dev/cache", "cpu_dev/cache"}) {
            if (fs::exists(test::fixture(root))) {
                roots.push_back(test::fixture(root));
            }
        }
        std::size_t entries = 0;
        std::size_t graph_modules = 0;
        for (const auto& root : roots) {
            for (const auto& file : fs::recursive_directory_iterator(root)) {
                if (!file.is_regular_file()) {
                    continue;
                }
                const std::string path = file.path().generic_string();
                const bool pgo = file.path().filename().string().starts_with("code_state_");
                const bool entry = path.find("/fxgraph/") != std::string::npos ||
                                   path.find("/aotautograd/") != std::string::npos;
                if ((!entry && !pgo) || file.path().extension() == ".lock") {
                    continue;
                }
                const auto check =
                    check_file(file.path(), pgo ? PickleSchema::Pgo : PickleSchema::Entry);
                QVERIFY2(check.findings.empty(), qPrintable(QString::fromStdString(path) + ":\n" +
                                                            describe(check.findings)));
                for (const auto& code : check.code) {
                    QVERIFY(code.source.find("def forward(") != std::string::npos);
                    QVERIFY(code.import_block.find("import torch") != std::string::npos);
                }
                graph_modules += check.code.size();
                ++entries;
            }
        }
        QVERIFY2(entries >= 40, qPrintable(QString::number(entries)));
        // The training-step entries keep their backward GraphModule for later.
        QVERIFY(graph_modules > 0);
    }

    // Guards naming Source classes no fixture has, as PyTorch >= 2.10 pickles
    // them (a call with the field values), a device, a slice, two enums.
    void realisticAotEntryPasses() {
        const auto check = check_policy_pickle("aot_entry_sources.pkl", PickleSchema::Entry);
        QVERIFY2(check.findings.empty(), qPrintable(describe(check.findings)));
    }

    void pgoProfilePassesOnlyAsAProfile() {
        const auto profile = check_policy_pickle("pgo_profile.pkl", PickleSchema::Pgo);
        QVERIFY2(profile.findings.empty(), qPrintable(describe(profile.findings)));
        const auto entry = check_policy_pickle("pgo_profile.pkl", PickleSchema::Entry);
        QVERIFY(!entry.findings.empty());
        QCOMPARE(entry.findings[0].rule, std::string("pickle-global"));
    }

    void hostilePicklesGiveTheirFinding_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("text");
        QTest::newRow("os.system") << "os_system.pkl"
                                   << "pickle-call"
                                   << "REDUCE os.system('id')";
        QTest::newRow("getattr dunder")
            << "getattr_dunder.pkl"
            << "pickle-getattr"
            << "REDUCE builtins.getattr(torch._dynamo.source.LocalSource, '__class__')";
        QTest::newRow("getattr computed name") << "getattr_computed.pkl"
                                               << "pickle-getattr"
                                               << "REDUCE builtins.getattr(";
        QTest::newRow("getattr on a foreign class")
            << "getattr_foreign_class.pkl"
            << "pickle-getattr"
            << "REDUCE builtins.getattr(subprocess.Popen, 'wait')";
        QTest::newRow("enum built with a callable")
            << "enum_with_callable.pkl"
            << "pickle-enum"
            << "REDUCE torch._dynamo.source.TensorProperty(os.getcwd)";
        QTest::newRow("NEWOBJ of a callable") << "newobj_callable.pkl"
                                              << "pickle-newobj"
                                              << "NEWOBJ collections.OrderedDict(";
        QTest::newRow("eval") << "builtins_eval.pkl"
                              << "pickle-call"
                              << "REDUCE builtins.eval('1')";
        QTest::newRow("exec") << "builtins_exec.pkl"
                              << "pickle-call"
                              << "REDUCE builtins.exec('pass')";
        QTest::newRow("extension code") << "extension.pkl"
                                        << "pickle-extension"
                                        << "EXT 1";
        QTest::newRow("PGO class in an entry") << "pgo_class_in_entry.pkl"
                                               << "pickle-global"
                                               << "NEWOBJ torch._dynamo.pgo.CodeId(";
        // Classes whose use by PyTorch runs code from the pickle, or that no
        // entry holds (refused after reading PyTorch's source).
        QTest::newRow("CompiledAOTI loads the .so it names")
            << "compiled_aoti.pkl"
            << "pickle-global"
            << "NEWOBJ torch._inductor.output_code.CompiledAOTI(";
        QTest::newRow("TritonCompileResult is never in an entry")
            << "triton_compile_result.pkl"
            << "pickle-global"
            << "NEWOBJ torch._inductor.runtime.triton_heuristics.TritonCompileResult(";
        QTest::newRow("RuntimeWrapper is built at load, never pickled")
            << "runtime_wrapper_in_entry.pkl"
            << "pickle-global"
            << "NEWOBJ torch._functorch._aot_autograd.runtime_wrappers.RuntimeWrapper(";
    }

    void hostilePicklesGiveTheirFinding() {
        QFETCH(QString, file);
        QFETCH(QString, rule);
        QFETCH(QString, text);
        const auto check = check_policy_pickle(file.toStdString(), PickleSchema::Entry);
        bool found = false;
        for (const auto& finding : check.findings) {
            QCOMPARE(finding.file, std::string("pickle"));
            QCOMPARE(finding.line, std::size_t{0});
            QVERIFY(finding.id.size() == 13 && finding.id[0] == 'F');
            QVERIFY(!finding.why.empty());
            found = found || (finding.rule == rule.toStdString() &&
                              finding.text.starts_with(text.toStdString()));
        }
        QVERIFY2(found, qPrintable(describe(check.findings)));
    }

    // A static autotuner with every grid kind Inductor writes (precomputed
    // python/cpp grids, a fixed grid of launcher arguments, combo sizes, a
    // str constant) passes the field checks.
    void inductorGridsPass() {
        const auto check = check_policy_pickle("static_autotuner_grids.pkl", PickleSchema::Entry);
        QVERIFY2(check.findings.empty(), qPrintable(describe(check.findings)));
    }

    // Allowed classes whose fields PyTorch turns into code (or into a code
    // path): each hostile value gives exactly one finding, pickle-field, on
    // that field.
    void fieldShapesAreChecked_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("text");
        QTest::newRow("str in base_groups") << "field_base_groups_str.pkl"
                                            << "AOTSyntheticBaseWrapper.base_groups holds a str (";
        QTest::newRow("argument name that is code")
            << "field_arg_name_code.pkl"
            << "StaticallyLaunchedCudaKernel.arg_names holds a str ('x); import os; "
               "os.system(\"id\"); (') where PyTorch writes identifiers";
        QTest::newRow("call in a fixed grid")
            << "field_fixed_grid_call.pkl"
            << "StaticTritonCompileResult.inductor_meta['fixed_grid'] holds a str (";
        QTest::newRow("triton_interpret") << "field_triton_interpret.pkl"
                                          << "CachingAutotuner.triton_interpret holds True where "
                                             "PyTorch writes False";
        QTest::newRow("JITFunction.fn set") << "field_jit_fn.pkl"
                                            << "JITFunction.fn holds a str (";
        QTest::newRow("quote in a str constant")
            << "field_constant_quote.pkl"
            << "StaticTritonCompileResult.compile_meta['constants'] holds a str (";
    }

    void fieldShapesAreChecked() {
        QFETCH(QString, file);
        QFETCH(QString, text);
        const auto check = check_policy_pickle(file.toStdString(), PickleSchema::Entry);
        QVERIFY2(check.findings.size() == 1, qPrintable(describe(check.findings)));
        const auto& finding = check.findings[0];
        QCOMPARE(finding.rule, std::string("pickle-field"));
        QCOMPARE(finding.file, std::string("pickle"));
        QCOMPARE(finding.line, std::size_t{0});
        QVERIFY2(finding.text.starts_with(text.toStdString()),
                 qPrintable(describe(check.findings)));
        QVERIFY(finding.why.find("PyTorch") != std::string::npos);
    }

    // CompiledFxGraph._serialized_original_gm is a second pickle PyTorch
    // loads: it is decoded and checked under the same policy.
    void nestedPickleIsChecked() {
        const auto check = check_policy_pickle("field_nested_pickle.pkl", PickleSchema::Entry);
        QVERIFY2(check.findings.size() == 1, qPrintable(describe(check.findings)));
        QCOMPARE(check.findings[0].rule, std::string("pickle-call"));
        QVERIFY2(check.findings[0].text.starts_with(
                     "CompiledFxGraph._serialized_original_gm: REDUCE os.system('id')"),
                 qPrintable(describe(check.findings)));
    }

    // reduce_graph_module is not a finding: the code it would exec is handed
    // to the code audit.
    void graphModuleCodeIsReturned() {
        const auto check = check_policy_pickle("graph_module.pkl", PickleSchema::Entry);
        QVERIFY2(check.findings.empty(), qPrintable(describe(check.findings)));
        QCOMPARE(check.code.size(), std::size_t{1});
        QCOMPARE(check.code[0].where, std::string("graph module 0"));
        QCOMPARE(check.code[0].source, std::string("def forward(self, x):\n    return x\n"));
        QCOMPARE(check.code[0].import_block, std::string("import torch"));
    }

    // Values the memo shares between many objects are checked once: a
    // CompiledFxGraph's nested pickle shared by 400 graphs is decoded once,
    // and the GraphModule 400 REDUCEs in it share is one code to audit.
    // Checked per object, the work (and the code handed to the audit) grew
    // with the product of the two counts: a 64 KiB pickle ran for minutes.
    void sharedValuesAreCheckedOnce() {
        const std::string inner = shared_by_many(
            global_op("torch.fx.graph_module", "reduce_graph_module"),
            "(}" + text_op("_code") + text_op("def forward(self, x):\n    return x\n") + "s" +
                text_op("import torch") + "t",
            "h\x01h\x02R", 400);
        const std::string outer =
            shared_by_many(global_op("torch._inductor.output_code", "CompiledFxGraph"),
                           "}" + text_op("_serialized_original_gm") + bytes_op(inner) + "s",
                           "h\x01)\x81h\x02"
                           "b",
                           400);
        for (const std::string* bytes : {&inner, &outer}) {
            auto document = pickle::unpickle(*bytes);
            QVERIFY_RESULT(document);
            const auto check = safety::check_pickle(**document, PickleSchema::Entry);
            QVERIFY2(check.findings.empty(), qPrintable(describe(check.findings)));
            QCOMPARE(check.code.size(), std::size_t{1});
            QCOMPARE(check.code[0].source, std::string("def forward(self, x):\n    return x\n"));
        }
    }

    // A field of indices whose lists share one list many times over is
    // walked once per list: walked per path (24^7 of them), this 479-byte
    // pickle took half a minute.
    void sharedIndexListsAreWalkedOnce() {
        QElapsedTimer timer;
        timer.start();
        for (const auto& [leaf, findings] : {std::pair{std::string("K\x01"), std::size_t{0}},
                                             std::pair{text_op("x"), std::size_t{1}}}) {
            const std::string bytes = nested_shared_lists(24, 7, leaf);
            auto document = pickle::unpickle(bytes);
            QVERIFY_RESULT(document);
            const auto check = safety::check_pickle(**document, PickleSchema::Entry);
            QVERIFY2(check.findings.size() == findings, qPrintable(describe(check.findings)));
        }
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    }

    void tableRowsAreUniqueAndExplained() {
        std::set<std::pair<std::string_view, std::string_view>> names;
        for (const auto& row : safety::pickle_policy()) {
            QVERIFY2(names.emplace(row.module, row.name).second,
                     qPrintable(QString::fromUtf8(row.module) + "." + QString::fromUtf8(row.name)));
            QVERIFY(!row.why.empty());
            QVERIFY(!row.versions.empty());
            QVERIFY((row.role == safety::GlobalRole::Callable) ==
                    (row.call != safety::CallRule::None));
            QCOMPARE(safety::find_policy_row(row.module, row.name), &row);
        }
        // A dotted name is matched whole, never walked.
        QVERIFY(safety::find_policy_row("torch", "_utils.torch.contiguous_format") == nullptr);
    }

    // Every class PyTorch's source defines in the inventoried modules
    // (scripts/pytorch-inventory.py) is allowed or refused with a reason.
    void inventoryIsCovered() {
        std::ifstream tsv(test::test_data("pytorch-inventory/classes.tsv"));
        QVERIFY(tsv);
        std::string line;
        std::getline(tsv, line);
        QCOMPARE(line, std::string("module\tclass\tkind\thas_setstate_or_reduce\tversions"));
        std::size_t rows = 0;
        QStringList missing;
        while (std::getline(tsv, line)) {
            if (line.empty() || line.starts_with('#')) {
                continue;
            }
            std::istringstream fields(line);
            std::string module;
            std::string name;
            std::getline(fields, module, '\t');
            std::getline(fields, name, '\t');
            const auto* row = safety::find_policy_row(module, name);
            if (row == nullptr) {
                missing << QString::fromStdString(module + "." + name);
            }
            ++rows;
        }
        QVERIFY2(missing.isEmpty(), qPrintable("not in the policy table: " + missing.join(", ")));
        QVERIFY(rows > 100);
    }

    // docs/SECURITY.md shows every row with its role.
    void securityDocListsEveryRow() {
        const QString doc =
            QString::fromUtf8(test::read_file(test::source_dir() / "docs/SECURITY.md"));
        for (const auto& row : safety::pickle_policy()) {
            const QString cell =
                QStringLiteral("| `%1` | `%2` | %3 |")
                    .arg(QString::fromUtf8(row.module), QString::fromUtf8(row.name),
                         QString::fromUtf8(safety::to_string(row.role)));
            QVERIFY2(doc.contains(cell), qPrintable(cell));
        }
    }
};

QTEST_GUILESS_MAIN(TestPicklePolicy)
#include "tst_pickle_policy.moc"
