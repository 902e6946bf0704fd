// Dynamo's precompiled functions and DynamoCache entries (cachedir/precompile.h):
// the files PyTorch 2.11 wrote on an H200 (tests/data/real-fixtures, precompile
// and dynamo_cache) read against what PyTorch itself read back (their
// golden.json), and the files of tests/data/precompile (make_precompile.py):
// the layouts of other versions, a missing backend, broken and hostile files.
// What the rest of the engine makes of them: the code audit and the import of
// a mega-cache "precompile" artifact (nothing hostile is written), the source
// spans against a checkout (--against), preflight against a target's
// fingerprint, and their place in a cache dir (kinds, entries, verdicts,
// verify, the description `show` prints). Nothing is ever run: the marker the
// hostile files name never appears.

#include "bundle_helpers.h"
#include "test_paths.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/bundle/import.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/entry_description.h>
#include <cachelens/cachedir/file_kind.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/precompile.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/explain/preflight.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/safety/pickle_policy.h>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace cachelens;
using namespace cachelens::cachedir;
using test::one_artifact;
using test::only;
namespace fs = std::filesystem;

namespace {

const char* const kMarker = "/tmp/cachelens-precompile-marker";
// sha256(b"g5") and sha256(b"h7"): where the DynamoCache keeps g (line 5) and h (line 7).
const std::string kGKey = "239261316e505a034abae9a2c9f0f69e94af25d0c2253f753d10824ac5c9c34d";
const std::string kHKey = "f254a1e7d56840a4f2faa65b43f82d21e65add6e7376169cb5a51da30007822a";
const std::string kHMissingBackend = "__compiled_fn_3_5e0d8a9c_41b2_4c7f_9e36_8f2a1d0c7b54";
const std::string kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

fs::path data(const std::string& relative) {
    return test::test_data("precompile/" + relative);
}

PrecompileFile read_or_die(const fs::path& path) {
    auto file = read_precompile_file(path);
    if (!file) {
        qFatal("%s", file.error().describe().c_str());
    }
    return std::move(*file);
}

Scan scan_or_die(const fs::path& root) {
    auto scan = scan_cache_dir(root);
    if (!scan) {
        qFatal("%s", scan.error().describe().c_str());
    }
    return std::move(*scan);
}

// The entry of `scan` under dynamo/<key>/.
Entry dynamo_entry(const Scan& scan, const std::string& key) {
    for (auto& entry : scan.entries()) {
        if (entry.kind == FileKind::Precompile && entry.key == key) {
            return entry;
        }
    }
    qFatal("no DynamoCache entry %s under %s", key.c_str(), scan.root.c_str());
}

PrecompileFile read_dir_or_die(const fs::path& root, const std::string& key) {
    auto file = read_precompile_dir(root, dynamo_entry(scan_or_die(root), key));
    if (!file) {
        qFatal("%s", file.error().describe().c_str());
    }
    return std::move(*file);
}

bool any_contains(const std::vector<std::string>& texts, std::string_view part) {
    return std::ranges::any_of(
        texts, [&](const std::string& text) { return text.find(part) != std::string::npos; });
}

QByteArray joined(const std::vector<std::string>& lines) {
    std::string all;
    for (const auto& line : lines) {
        all += line + "\n";
    }
    return QByteArray::fromStdString(all);
}

std::vector<std::string> findings_text(const bundle::ArtifactCheck& check) {
    std::vector<std::string> out;
    for (const auto& finding : check.findings) {
        out.push_back(finding.rule + " [" + finding.file + "] " + finding.text);
    }
    return out;
}

std::set<std::string> guard_kinds(const PrecompileGuards& set) {
    std::set<std::string> kinds;
    for (const auto& guard : set.guards) {
        kinds.insert(guard.kind);
    }
    return kinds;
}

// Every path under `root`, relative, symlinks not followed.
std::set<std::string> walk(const fs::path& root) {
    std::set<std::string> paths;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
         ++it) {
        paths.insert(fs::relative(it->path(), root).string());
    }
    return paths;
}

// PyTorch writes a bundled module out as <cache dir>/<key[1:3]>/<key>.py when it loads it.
fs::path module_path(const fs::path& cache, const std::string& cache_key) {
    return cache / cache_key.substr(1, 2) / (cache_key + ".py");
}

// The field of `fields` the JSON names `key`.
const Field* json_field(const std::vector<Field>& fields, std::string_view key) {
    for (const auto& field : fields) {
        if (field.key == key && field.is_for(kJson)) {
            return &field;
        }
    }
    return nullptr;
}

// The target the real files were compiled on, as `cachelens env` there records it.
Fingerprint h200(const QJsonObject& env) {
    Fingerprint target;
    target.torch_version = env["torch"].toString().toStdString();
    target.environment.device_name = env["gpu"].toString().toStdString();
    target.environment.cuda_version = env["cuda"].toString().toStdString();
    target.environment.triton_version = env["triton"].toString().toStdString();
    target.device_types = {"cpu", "cuda"};
    target.triton_targets = {"cuda 90"};
    target.learnt_from = "python3 (torch " + target.torch_version + ")";
    return target;
}

QJsonObject golden(const std::string& set) {
    return test::read_json(test::real_fixture(set + "/golden.json")).object();
}

// What <text> between the first two single quotes of a repr is: '__compiled_fn_1_...'.
std::string unquoted(const QString& repr) {
    const auto first = repr.indexOf('\'');
    return repr.mid(first + 1, repr.indexOf('\'', first + 1) - first - 1).toStdString();
}

} // namespace

class TestPrecompile : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { QVERIFY(!fs::exists(kMarker)); }

    // --- The real files PyTorch 2.11 wrote ---------------------------------

    void realFunctionMatchesGolden() {
        const auto precompile = golden("precompile");
        const auto env = precompile["env"].toObject();
        const auto artifacts =
            precompile["precompile"].toObject()["load"].toObject()["artifacts"].toObject();
        const auto file = read_or_die(test::real_fixture("precompile/fn.bin"));
        QCOMPARE(file.layout, PrecompileLayout::AotFunction);
        QCOMPARE(file.header_version, 0); // 2.11 writes no PT2AOT header
        QCOMPARE(file.functions.size(), 1u);
        const auto& fn = file.functions[0];
        QCOMPARE(qs(fn.qualname), "fn");
        QCOMPARE(qs(fn.file), "<string>");
        QCOMPARE(fn.first_line, 3);
        // inspect.Signature's repr: "<Signature (x, y)>".
        QCOMPARE("<Signature " + qs(fn.signature) + ">",
                 artifacts["signature"].toObject()["repr"].toString());
        const std::string backend_id =
            unquoted(artifacts["backend_id"].toObject()["repr"].toString());
        QCOMPARE(fn.backend_ids, std::vector<std::string>{backend_id});
        QVERIFY(artifacts["original_code"].toObject()["repr"].toString().endsWith(
            "file \"<string>\", line 3>"));

        // SystemInfo as PyTorch read it back, and as the golden's machine was.
        QVERIFY(file.system.recorded);
        QCOMPARE(qs(file.system.python_version), env["python"].toString());
        QCOMPARE(qs(file.system.torch_version), env["torch"].toString());
        QCOMPARE(qs(file.system.toolkit_version), env["cuda"].toString());
        QVERIFY(env["triton"].toString().startsWith(qs(file.system.triton_version) + "."));
        QCOMPARE(qs(file.system.triton_version), "3.6"); // SystemInfo keeps (major, minor)
        QCOMPARE(qs(file.system.gpu_name), env["gpu"].toString());
        QCOMPARE(qs(file.system.gpu_name), "NVIDIA H200");
        QCOMPARE(qs(file.device_type), "cuda");
        QCOMPARE(qs(file.backend_name), "inductor");

        // The backend carries its graph; PyTorch writes it out under its cache key.
        QCOMPARE(file.backends.size(), 1u);
        const auto& backend = file.backends[0];
        QCOMPARE(backend.id, backend_id);
        QVERIFY(backend.present);
        QCOMPARE(qs(backend.kind), "Inductor (bundled AOTAutograd)");
        QVERIFY(!backend.graphs.empty());
        for (const auto& graph : backend.graphs) {
            QVERIFY2(graph.key_matches, graph.cache_key.c_str());
            QVERIFY2(
                fs::exists(module_path(test::real_fixture("precompile/cache"), graph.cache_key)),
                graph.cache_key.c_str());
        }

        // Guards: the tensors fn was called with; PyTorch's guard failure on a
        // double x names the TENSOR_MATCH on L['x'] that expects float.
        QCOMPARE(file.guards.size(), 1u);
        const auto& guards = file.guards[0];
        QVERIFY(guards.error.empty());
        QCOMPARE(guards.inputs.size(), 2u);
        QCOMPARE(qs(guards.inputs[0].name), "x");
        QVERIFY(guards.inputs[0].description.starts_with("Tensor float32 [16, 32]"));
        QCOMPARE(qs(guards.inputs[1].name), "y");
        QVERIFY(guards.inputs[1].description.starts_with("Tensor float32 [32, 8]"));
        QVERIFY(guards.inputs[1].description.ends_with("on cuda:0"));
        const QString failure =
            precompile["precompile"].toObject()["load"].toObject()["guard_failure"].toString();
        QVERIFY(failure.contains("tensor 'L['x']' dtype mismatch. expected Float"));
        QVERIFY(std::ranges::any_of(guards.guards, [](const PrecompileGuard& guard) {
            return guard.kind == "TENSOR_MATCH" && guard.source == "L['x']";
        }));
        const auto kinds = guard_kinds(guards);
        QVERIFY(kinds.contains("TENSOR_MATCH"));
        QVERIFY(kinds.contains("SHAPE_ENV"));
        QVERIFY(!guards.global_state.empty());
        QVERIFY(guards.user_classes.empty());

        // SourceInfo(inlined_sources=set()): code from a string is never checked.
        QVERIFY(artifacts["source_info"].toObject()["repr"].toString().contains("set()"));
        QVERIFY(file.sources.empty());
        QCOMPARE(file.imports.size(), 1u);
        QCOMPARE(qs(file.imports[0].second), "torch._dynamo.utils");
        QVERIFY(file.problems.empty());
        QVERIFY(file.external_data.empty());
    }

    void realModuleForward() {
        const auto file = read_or_die(test::real_fixture("precompile/mlp_forward.bin"));
        QCOMPARE(file.layout, PrecompileLayout::AotFunction);
        QCOMPARE(file.functions.size(), 1u);
        const auto& fn = file.functions[0];
        // torch.compile of a module compiles its __call__.
        QCOMPARE(qs(fn.qualname), "Module._wrapped_call_impl");
        QVERIFY(fn.file.ends_with("/torch/nn/modules/module.py"));
        QCOMPARE(fn.first_line, 1775);
        QCOMPARE(qs(fn.signature), "(self, *args, **kwargs)");
        QCOMPARE(qs(file.system.gpu_name), "NVIDIA H200");
        QCOMPARE(qs(file.device_type), "cuda");

        QCOMPARE(file.backends.size(), 1u);
        std::set<std::string> roles;
        for (const auto& graph : file.backends[0].graphs) {
            roles.insert(graph.role);
            QVERIFY2(graph.key_matches, graph.cache_key.c_str());
            QVERIFY2(
                fs::exists(module_path(test::real_fixture("precompile/cache"), graph.cache_key)),
                graph.cache_key.c_str());
        }
        QCOMPARE(roles, (std::set<std::string>{"forward", "backward"}));

        QCOMPARE(file.guards.size(), 1u);
        const auto& guards = file.guards[0];
        QCOMPARE(guards.user_classes, std::vector<std::string>{"__main__.MLP"});
        QCOMPARE(qs(guards.inputs.at(0).name), "self");
        QVERIFY(guards.inputs[0].description.find("__main__.MLP") != std::string::npos);
        QCOMPARE(qs(guards.inputs.at(1).name), "args");
        QVERIFY(guards.inputs[1].description.starts_with("(Tensor float32 [16, 32]"));
        const auto kinds = guard_kinds(guards);
        QVERIFY(kinds.contains("TENSOR_MATCH"));
        QVERIFY(kinds.contains("SHAPE_ENV"));
        QVERIFY(kinds.contains("TYPE_MATCH"));

        // The spans of torch.nn PyTorch checks on load, each with its module's source.
        QCOMPARE(file.sources.size(), 3u);
        std::multiset<std::string> modules;
        for (const auto& source : file.sources) {
            modules.insert(source.module);
            QCOMPARE(source.content_matches, std::optional<bool>(true));
            QVERIFY(!source.content.empty());
            QCOMPARE(source.checksum.size(), 64u);
        }
        QCOMPARE(modules,
                 (std::multiset<std::string>{"torch.nn.modules.linear", "torch.nn.modules.module",
                                             "torch.nn.modules.module"}));
        QVERIFY(std::ranges::any_of(
            file.imports, [](const auto& import) { return import.second == "__main__"; }));
        QVERIFY(file.problems.empty());
    }

    void realDynamoCacheEntry() {
        const auto dynamo_cache = golden("dynamo_cache");
        const auto saved = dynamo_cache["dynamo_cache"]
                               .toObject()["first"]
                               .toObject()["save_to_dynamo_cache"]
                               .toObject();
        const auto expected = saved["dynamo"].toArray()[0].toObject();
        const std::string key = expected["key"].toString().toStdString();
        const fs::path cache = test::real_fixture("dynamo_cache/cache");
        const auto file = read_dir_or_die(cache, key);
        QCOMPARE(file.layout, PrecompileLayout::DynamoCacheEntry);
        QCOMPARE(file.key, key);
        QCOMPARE(file.expected_key, key);
        QCOMPARE(dynamo_cache_key(expected["fn_name"].toString().toStdString(),
                                  expected["fn_first_lineno"].toInteger()),
                 key);
        QCOMPARE(key, kGKey);
        QCOMPARE(static_cast<int>(file.functions.size()), expected["num_codes"].toString().toInt());
        const auto& fn = file.functions[0];
        QCOMPARE(qs(fn.qualname), expected["fn_name"].toString());
        QCOMPARE(fn.first_line, expected["fn_first_lineno"].toInteger());
        QCOMPARE(qs(fn.python_module), "__main__");
        QVERIFY(!fn.bypassed);
        std::vector<std::string> backend_ids;
        for (const auto& id : expected["backend_ids"].toArray()) {
            backend_ids.push_back(id.toString().toStdString());
        }
        QCOMPARE(fn.backend_ids, backend_ids);
        QCOMPARE(qs(file.device_type), expected["device_type"].toString());
        QCOMPARE(qs(file.system.gpu_name), dynamo_cache["env"].toObject()["gpu"].toString());
        QCOMPARE(qs(file.system.torch_version), dynamo_cache["env"].toObject()["torch"].toString());

        // The backends the cache saved, each bundling the graph the FX graph cache also has.
        std::vector<std::string> saved_backends;
        for (const auto& id : saved["backends"].toArray()) {
            saved_backends.push_back(id.toString().toStdString());
        }
        std::vector<std::string> read_backends;
        for (const auto& backend : file.backends) {
            read_backends.push_back(backend.id);
            QVERIFY(backend.present);
        }
        QCOMPARE(read_backends, saved_backends);
        const auto fx = dynamo_cache["fxgraph"].toArray()[0].toObject();
        QCOMPARE(file.backends[0].graphs.size(), 1u);
        const auto& graph = file.backends[0].graphs[0];
        QVERIFY(graph.key_matches);
        QCOMPARE(qs(graph.cache_key), fx["cache_key"].toString());
        QCOMPARE(qs(graph.fx_graph_key), fx["fx_graph_cache_key"].toString());
        QVERIFY(fs::exists(module_path(cache, graph.cache_key)));

        QCOMPARE(file.guards.size(), 1u);
        QCOMPARE(qs(file.guards[0].where), "codes[0].guarded_codes[0]");
        QCOMPARE(qs(file.guards[0].inputs.at(0).name), "x");
        QVERIFY(file.guards[0].inputs[0].description.starts_with("Tensor float32 [64, 128]"));
        QVERIFY(guard_kinds(file.guards[0]).contains("TENSOR_MATCH"));
        QVERIFY(file.problems.empty());
    }

    // Code PyTorch's own files run is Inductor's and Dynamo's: no finding,
    // __main__'s classes and imports included (allowed by their form).
    void realFilesHaveNoFindings_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("fn.bin") << "precompile/fn.bin";
        QTest::newRow("mlp_forward.bin") << "precompile/mlp_forward.bin";
        QTest::newRow("DynamoCache entry")
            << QString::fromStdString("dynamo_cache/cache/dynamo/" + kGKey + "/entry");
    }
    void realFilesHaveNoFindings() {
        QFETCH(QString, path);
        const auto file = read_or_die(test::real_fixture(path.toStdString()));
        const auto check = bundle::check_precompile(file, path.toStdString());
        QVERIFY2(check.findings.empty(), joined(findings_text(check)).constData());
        QVERIFY2(check.problems.empty(), joined(check.problems).constData());
        QCOMPARE(check.verdict, safety::Verdict::InductorCode);
        QCOMPARE(check.consent, safety::CodeConsent::NotNeeded);
        QVERIFY(any_contains(check.code, "bytecode"));
    }

    // --- Every layout of tests/data/precompile ------------------------------

    void layoutNames_data() {
        QTest::addColumn<int>("layout");
        QTest::addColumn<QString>("says");
        QTest::newRow("2.11") << static_cast<int>(PrecompileLayout::AotFunction) << "2.11";
        QTest::newRow("2.10") << static_cast<int>(PrecompileLayout::AotFunctionFlat) << "2.10";
        QTest::newRow("2.9") << static_cast<int>(PrecompileLayout::AotFunctionEarly) << "2.9";
        QTest::newRow("model") << static_cast<int>(PrecompileLayout::AotModel)
                               << "AOTCompiledModel";
        QTest::newRow("entry") << static_cast<int>(PrecompileLayout::DynamoCacheEntry)
                               << "DynamoCache entry (PyTorch 2.10+)";
        QTest::newRow("split") << static_cast<int>(PrecompileLayout::DynamoCacheSplit)
                               << "dynamo and backends files";
    }
    void layoutNames() {
        QFETCH(int, layout);
        QFETCH(QString, says);
        QVERIFY(qs(to_string(static_cast<PrecompileLayout>(layout))).contains(says));
    }

    void looksLikePrecompile_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("looks");
        QTest::newRow("2.11") << "fn_2_11.bin" << true;
        QTest::newRow("PT2AOT header") << "pt2aot_header.bin" << true;
        QTest::newRow("2.10") << "flat_2_10.bin" << true;
        QTest::newRow("model list") << "model_list.bin" << true;
        QTest::newRow("entry") << QString::fromStdString("cache_dir/dynamo/" + kGKey + "/entry")
                               << true;
        QTest::newRow("2.9 dynamo")
            << QString::fromStdString("legacy_2_9/dynamo/" + kGKey + "/dynamo") << true;
        // Its header says what it is: reading it says why it is not one.
        QTest::newRow("unknown header version") << "not_a_pickle.bin" << true;
        QTest::newRow("python source") << "make_precompile.py" << false;
        QTest::newRow("README") << "README.md" << false;
    }
    void looksLikePrecompile() {
        QFETCH(QString, file);
        QFETCH(bool, looks);
        QCOMPARE(looks_like_precompile(test::read_bytes(data(file.toStdString()))), looks);
    }

    void otherPicklesDoNotLookLikePrecompile() {
        // The FX graph and AOTAutograd entries beside the real DynamoCache entry.
        const Scan scan = scan_or_die(test::real_fixture("dynamo_cache/cache"));
        std::size_t seen = 0;
        for (const auto& file : scan.files) {
            if (file.kind == FileKind::FxGraph || file.kind == FileKind::AotAutograd) {
                QVERIFY2(!looks_like_precompile(test::read_bytes(scan.root / file.path)),
                         file.path.c_str());
                ++seen;
            }
        }
        QCOMPARE(seen, 2u);
        QVERIFY(!looks_like_precompile(""));
        QVERIFY(!looks_like_precompile("{\"XBLOCK\": 128}"));
    }

    void goodLayoutsRead() {
        const auto fn = read_or_die(data("fn_2_11.bin"));
        QCOMPARE(fn.layout, PrecompileLayout::AotFunction);
        QCOMPARE(fn.header_version, 0);
        QCOMPARE(qs(fn.functions.at(0).qualname), "fn");
        QCOMPARE(qs(fn.functions[0].signature), "(x, y)");
        QCOMPARE(qs(fn.guards.at(0).inputs.at(1).name), "y");
        QVERIFY(fn.guards[0].inputs[1].description.starts_with("Tensor float32 [8, 32]"));
        QCOMPARE(fn.guards[0].guards.size(), 9u);
        QVERIFY(fn.backends.at(0).graphs.at(0).key_matches);
        QVERIFY(fn.problems.empty());

        // b"PT2AOT" + version 1, then the same pickle.
        const auto header = read_or_die(data("pt2aot_header.bin"));
        QCOMPARE(header.layout, PrecompileLayout::AotFunction);
        QCOMPARE(header.header_version, 1);
        QCOMPARE(header.functions.at(0).backend_ids, fn.functions[0].backend_ids);
        QVERIFY(header.problems.empty());

        // 2.10: the flat dict, SystemInfo's toolkit spelled cuda_version.
        const auto flat = read_or_die(data("flat_2_10.bin"));
        QCOMPARE(flat.layout, PrecompileLayout::AotFunctionFlat);
        QVERIFY(flat.system.recorded);
        QCOMPARE(qs(flat.system.toolkit_version), "12.8");
        QCOMPARE(qs(flat.system.torch_version), "2.10.0+cu128");
        QCOMPARE(qs(flat.system.triton_version), "3.5");
        QCOMPARE(qs(flat.functions.at(0).qualname), "fn");
        QCOMPARE(qs(flat.imports.at(0).second), "torch._dynamo.utils");
        QVERIFY(flat.problems.empty());

        // AOTCompiledModel: one payload per input, each a function of its own.
        const auto model = read_or_die(data("model_list.bin"));
        QCOMPARE(model.layout, PrecompileLayout::AotModel);
        QCOMPARE(model.functions.size(), 2u);
        QCOMPARE(model.functions[0].backend_ids, fn.functions[0].backend_ids);
        QCOMPARE(model.functions[1].backend_ids,
                 std::vector<std::string>{"__compiled_fn_2_4b1f0e6a_93c2_4d57_a0be_21f3c8d95e47"});
        QCOMPARE(model.backends.size(), 2u);
        QCOMPARE(model.guards.size(), 2u);
        QVERIFY(model.guards[1].inputs.at(0).description.starts_with("Tensor float32 [32, 32]"));
        QVERIFY(model.problems.empty());

        // The `g` entry, read as a file: no dir name to compare with.
        const auto entry = read_or_die(data("cache_dir/dynamo/" + kGKey + "/entry"));
        QCOMPARE(entry.layout, PrecompileLayout::DynamoCacheEntry);
        QVERIFY(entry.key.empty());
        QCOMPARE(entry.expected_key, kGKey);
        QCOMPARE(qs(entry.functions.at(0).qualname), "g");
        QCOMPARE(entry.functions[0].first_line, 5);
        QCOMPARE(entry.functions[0].backend_ids,
                 std::vector<std::string>{"__compiled_fn_1_c414598f_20f0_4738_9478_05e28649675a"});
        QVERIFY(entry.backends.at(0).present);
        QVERIFY(entry.problems.empty());
    }

    // _ShapeGuardsHelper is a dataclass(slots=True): it pickles as
    // BUILD([exprs]), a list state, in PyTorch 2.11's own files too (their
    // static shapes give an empty list). PyTorch compiles the expressions on
    // load, so each is audited: one that is not a shape guard is a finding.
    void shapeGuardsAreReadAndAudited() {
        const std::string bytes = test::read_bytes(data("fn_2_11.bin"));
        auto owned = std::make_shared<const std::string>(bytes);
        auto fn = read_precompile(*owned, owned);
        QVERIFY_RESULT(fn);
        QCOMPARE(fn->guards.at(0).shape_guards, std::vector<std::string>{"L['x'].size()[0] == 16"});

        // The same file with another expression of the same length in its place.
        const std::string guard = "L['x'].size()[0] == 16";
        const std::string hostile = "exec('import os') or 1";
        QCOMPARE(hostile.size(), guard.size()); // every length in the pickle stays right
        auto edited = std::make_shared<std::string>(bytes);
        const auto at = edited->find(guard);
        QVERIFY(at != std::string::npos);
        edited->replace(at, guard.size(), hostile);
        QCOMPARE(edited->find(guard), std::string::npos);
        auto read = read_precompile(*edited, edited);
        QVERIFY_RESULT(read);
        const auto check = bundle::check_precompile(*read, "hostile shape guard");
        QCOMPARE(check.verdict, safety::Verdict::CodeWithFindings);
    }

    // SystemInfo is one per payload, and every payload of a model has the
    // same: reading the second must not add to the first's.
    void aModelReadsSystemInfoOnce() {
        const auto model = read_or_die(data("model_list.bin"));
        QCOMPARE(qs(model.system.triton_version), "3.6");
        const Fingerprint target = h200(golden("precompile")["env"].toObject());
        const auto preflight = explain::preflight_precompile(model, target);
        QCOMPARE(preflight.outcome, explain::PreflightOutcome::CanHit);
    }

    // What the fuzzer and a review found (tests/data/precompile/README.md):
    // shared and cyclic values are read to a bounded depth, once each.
    void sharedValuesAreReadOnce() {
        for (const char* name : {"regressions/cyclic_scope.bin", "regressions/shared_scope.bin"}) {
            QElapsedTimer timer;
            timer.start();
            // Its guards are read (where the overflow and the hang were), then
            // the file is refused: it holds no code.
            auto read = read_precompile_file(data(name));
            QVERIFY2(!read, name);
            QVERIFY(read.error().message.find("is not a SerializedCode") != std::string::npos);
            QVERIFY2(timer.elapsed() < 5000, name); // a hang, not a timing: 8^12 steps before
        }
        auto repeated = read_precompile_file(data("regressions/repeated_payload.bin"));
        QVERIFY(!repeated);
        QVERIFY(repeated.error().message.find("an earlier payload again") != std::string::npos);
    }

    // 2.11's external_data: objects the caller hands back by name at load.
    void externalDataIsNoFinding() {
        // {'model': PERSID 'weights'} and {'model': PERSID 7}, protocol 4.
        static constexpr char kByName[] = "\x80\x04}\x94\x8c\x05model\x94\x8c\x07weights\x94Qs.";
        static constexpr char kByNumber[] = "\x80\x04}\x94\x8c\x05model\x94K\x07Qs.";
        const std::string by_name(kByName, sizeof kByName - 1);
        const std::string by_number(kByNumber, sizeof kByNumber - 1);
        for (const auto& [bytes, findings] :
             {std::pair{by_name, std::size_t{0}}, std::pair{by_number, std::size_t{1}}}) {
            auto document = pickle::unpickle(bytes);
            QVERIFY_RESULT(document);
            const auto checked = safety::check_pickle(**document, safety::PickleSchema::Precompile);
            QCOMPARE(checked.findings.size(), findings);
            QCOMPARE(safety::check_pickle(**document, safety::PickleSchema::Entry).findings.size(),
                     std::size_t{1});
        }
    }

    // vLLM keeps one save_compiled_function file per rank under its cache
    // root: each is an entry of its own, read and judged as the file alone.
    void vllmPerRankFiles() {
        QTemporaryDir temp;
        const fs::path root = temp.path().toStdString();
        for (const char* rank : {"rank_0_0", "rank_1_0"}) {
            fs::create_directories(root / "torch_aot_compile/9c1e" / rank);
            fs::copy_file(data("fn_2_11.bin"), root / "torch_aot_compile/9c1e" / rank / "model");
        }
        const Scan scan = scan_or_die(root);
        const auto entries = scan.entries();
        QCOMPARE(entries.size(), 2u);
        for (const auto& entry : entries) {
            QCOMPARE(entry.kind, FileKind::Precompile);
            QVERIFY(entry.path.ends_with("/model"));
            auto loaded = load_entry(root, entry);
            QVERIFY_RESULT(loaded);
            const auto& file = std::get<PrecompileFile>(*loaded);
            QCOMPARE(file.functions.at(0).qualname, std::string("fn"));
            const auto verdict = bundle::judge_entry(root, entry);
            QVERIFY(verdict.has_value());
            QCOMPARE(verdict->verdict, safety::Verdict::InductorCode);
        }
    }

    // 2.9 split an entry in two files: read from its dir, or from its `dynamo` file.
    void legacySplitEntry() {
        const fs::path root = data("legacy_2_9");
        const Scan scan = scan_or_die(root);
        const auto entries = scan.entries();
        QCOMPARE(entries.size(), 1u);
        QCOMPARE(entries[0].kind, FileKind::Precompile);
        QCOMPARE(entries[0].file_count, 2u);
        auto from_dir = read_precompile_dir(root, entries[0]);
        QVERIFY_RESULT(from_dir);
        auto from_file = read_precompile_file(root / "dynamo" / kGKey / "dynamo");
        QVERIFY_RESULT(from_file);
        for (const PrecompileFile* file : {&*from_dir, &*from_file}) {
            QCOMPARE(file->layout, PrecompileLayout::DynamoCacheSplit);
            QCOMPARE(file->key, kGKey);
            // 2.9 kept no fn_name/fn_first_lineno: what it was looked up as is not recorded.
            QVERIFY(file->expected_key.empty());
            QCOMPARE(qs(file->functions.at(0).qualname), "g");
            QCOMPARE(qs(file->functions[0].python_module), "__main__");
            // _DynamoCacheEntry's own python_version and torch_version, nothing else.
            QVERIFY(file->system.recorded);
            QCOMPARE(qs(file->system.torch_version), "2.9.0+cu128");
            QCOMPARE(qs(file->system.python_version), "3.12.3");
            QVERIFY(file->system.gpu_name.empty());
            // The backend's content is a nested pickle of its own.
            QCOMPARE(file->backends.size(), 1u);
            QVERIFY(file->backends[0].present);
            QVERIFY(file->backends[0].graphs.at(0).key_matches);
            // An InlinedSource with no content: nothing to compare it with.
            QCOMPARE(file->sources.size(), 1u);
            QCOMPARE(qs(file->sources[0].module), "mymodels.mlp");
            QCOMPARE(file->sources[0].content_matches, std::nullopt);
            QVERIFY(file->problems.empty());
        }
    }

    void missingBackendIsAProblem() {
        const auto file = read_dir_or_die(data("cache_dir"), kHKey);
        QCOMPARE(file.key, kHKey);
        QCOMPARE(file.expected_key, kHKey); // its name is right: only the backend is missing
        QCOMPARE(file.functions.at(0).backend_ids, std::vector<std::string>{kHMissingBackend});
        QVERIFY(!file.functions[0].bypassed);
        QCOMPARE(file.problems.size(), 1u);
        QVERIFY2(file.problems[0].starts_with("Backend " + kHMissingBackend +
                                              " is not found in the given backends"),
                 file.problems[0].c_str());
        const auto check = bundle::check_precompile(file, "dynamo/" + kHKey);
        QVERIFY(check.findings.empty());
        QVERIFY(any_contains(check.problems, kHMissingBackend));
        QCOMPARE(check.verdict, safety::Verdict::Unreadable);
    }

    void brokenFilesAreErrors_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("says");
        QTest::newRow("unknown header version") << "not_a_pickle.bin"
                                                << "unsupported serialization format";
        QTest::newRow("truncated") << "truncated.bin"
                                   << "exceeds";
        QTest::newRow("not a pickle at all") << "README.md"
                                             << "";
    }
    void brokenFilesAreErrors() {
        QFETCH(QString, file);
        QFETCH(QString, says);
        auto read = read_precompile_file(data(file.toStdString()));
        QVERIFY(!read.has_value());
        const std::string text = read.error().describe();
        QVERIFY2(text.find(file.toStdString()) != std::string::npos, text.c_str()); // named
        QVERIFY2(text.find(says.toStdString()) != std::string::npos, text.c_str());
    }

    void aHeaderAloneIsAnError() {
        QVERIFY(!read_precompile("PT2AOT", nullptr).has_value());
        auto version_only = read_precompile(std::string_view("PT2AOT\x01", 7), nullptr);
        QVERIFY(!version_only.has_value());
    }

    // PyTorch looks a function up as sha256(name + first line): under any
    // other name the entry is never loaded.
    void aDirUnderAnotherNameIsNeverLoaded() {
        QTemporaryDir temp;
        const fs::path root = temp.path().toStdString();
        const std::string wrong(64, 'a');
        fs::create_directories(root / "dynamo" / wrong);
        test::copy_file_writable(data("cache_dir/dynamo/" + kGKey + "/entry"),
                                 root / "dynamo" / wrong / "entry");
        const auto file = read_dir_or_die(root, wrong);
        QCOMPARE(file.key, wrong);
        QCOMPARE(file.expected_key, kGKey);
        QCOMPARE(file.problems.size(), 1u);
        QVERIFY2(file.problems[0].starts_with("the dir is named " + wrong) &&
                     file.problems[0].find(kGKey) != std::string::npos,
                 file.problems[0].c_str());
        const auto report = verify_cache_dir(scan_or_die(root));
        QCOMPARE(report.problems.size(), 1u);
        QCOMPARE(report.problems[0].kind, ProblemKind::NameMismatch);
        QCOMPARE(qs(report.problems[0].path), qs("dynamo/" + wrong));
    }

    // --- Hostile files ---------------------------------------------------

    void hostileFilesHaveFindings_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("text");
        const QString entry = QString::fromStdString("hostile_entry/dynamo/" + kGKey + "/entry");
        QTest::newRow("bytecode names os") << "hostile_code.bin"
                                           << "bytecode-name"
                                           << "os";
        QTest::newRow("bytecode names system") << "hostile_code.bin"
                                               << "bytecode-name"
                                               << "system";
        QTest::newRow("imports os") << "hostile_code.bin"
                                    << "foreign-import"
                                    << "import os";
        // A finding in the file's own pickle has no prefix...
        QTest::newRow("posix.system") << "hostile_pickle.bin"
                                      << "pickle-call"
                                      << "REDUCE posix.system('touch " + QString(kMarker) + "')";
        // ... one in a nested pickle says where it sits.
        QTest::newRow("eval in the guards") << "hostile_guards.bin"
                                            << "pickle-call"
                                            << "guards_state: REDUCE builtins.eval(";
        QTest::newRow("entry names os") << entry << "bytecode-name"
                                        << "os";
        QTest::newRow("entry names system") << entry << "bytecode-name"
                                            << "system";
        QTest::newRow("entry imports os") << entry << "foreign-import"
                                          << "import os";
    }
    void hostileFilesHaveFindings() {
        QFETCH(QString, file);
        QFETCH(QString, rule);
        QFETCH(QString, text);
        const auto read = read_or_die(data(file.toStdString()));
        const auto check = bundle::check_precompile(read, file.toStdString());
        QVERIFY2(std::ranges::any_of(check.findings,
                                     [&](const safety::Finding& finding) {
                                         return qs(finding.rule) == rule &&
                                                (qs(finding.text) == text ||
                                                 (text.endsWith('(') &&
                                                  qs(finding.text).startsWith(text)));
                                     }),
                 joined(findings_text(check)).constData());
        QCOMPARE(check.verdict, safety::Verdict::CodeWithFindings);
        QCOMPARE(check.consent, safety::CodeConsent::Refused);
        QVERIFY(any_contains(check.problems, "--allow-code"));
    }

    // judge_entry on the hostile DynamoCache dir, as `verify` judges it.
    void hostileEntryInACacheDir() {
        const fs::path root = data("hostile_entry");
        const Scan scan = scan_or_die(root);
        const auto check = bundle::judge_entry(root, dynamo_entry(scan, kGKey));
        QVERIFY(check.has_value());
        QCOMPARE(check->verdict, safety::Verdict::CodeWithFindings);
        QCOMPARE(check->consent, safety::CodeConsent::Refused);
    }

    // A mega-cache "precompile" artifact goes to dynamo/<key>/entry: a hostile
    // one is refused and nothing is written, in the cache dir or around it.
    void hostileBundleIsRefused() {
        QTemporaryDir temp;
        const fs::path around = temp.path().toStdString();
        const fs::path cache = around / "cache";
        fs::create_directories(cache);
        const auto bundle =
            one_artifact("precompile", kGKey,
                         test::read_bytes(data("hostile_entry/dynamo/" + kGKey + "/entry")));
        auto plan = bundle::plan_import(bundle, cache);
        QVERIFY_RESULT(plan);
        QCOMPARE(only(*plan).action, bundle::ImportAction::Refused);
        QCOMPARE(qs(only(*plan).check.destination), qs("dynamo/" + kGKey + "/entry"));
        QCOMPARE(only(*plan).check.verdict, safety::Verdict::CodeWithFindings);
        const auto rules = findings_text(only(*plan).check);
        QVERIFY2(any_contains(rules, "bytecode-name [bytecode g] system"),
                 joined(rules).constData());
        QVERIFY2(any_contains(rules, "foreign-import"), joined(rules).constData());
        const auto done = bundle::run_import(std::move(*plan), bundle);
        QCOMPARE(only(done).action, bundle::ImportAction::Refused);
        QCOMPARE(done.count(bundle::ImportAction::Written), 0u);
        QCOMPARE(walk(around), std::set<std::string>{"cache"});
    }

    void goodBundleLandsWherePyTorchPutsIt() {
        QTemporaryDir temp;
        const fs::path cache = temp.path().toStdString();
        const std::string bytes = test::read_bytes(data("cache_dir/dynamo/" + kGKey + "/entry"));
        const auto bundle = one_artifact("precompile", kGKey, bytes);
        const auto done = bundle::run_import(*bundle::plan_import(bundle, cache), bundle);
        QCOMPARE(only(done).action, bundle::ImportAction::Written);
        QCOMPARE(only(done).check.verdict, safety::Verdict::InductorCode);
        QVERIFY(only(done).check.parses_to.starts_with("DynamoCache entry"));
        QCOMPARE(test::read_bytes(cache / "dynamo" / kGKey / "entry"), bytes);
        QVERIFY(read_dir_or_die(cache, kGKey).problems.empty());
    }

    void bundleArtifactChecks_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("problem");
        QTest::newRow("another function's key")
            << QString::fromStdString(kHKey)
            << QString::fromStdString("cache_dir/dynamo/" + kGKey + "/entry")
            << QString::fromStdString("the entry is for key " + kGKey);
        QTest::newRow("not a key")
            << "g5" << QString::fromStdString("cache_dir/dynamo/" + kGKey + "/entry")
            << "does not look like a DynamoCache key";
        QTest::newRow("missing backend")
            << QString::fromStdString(kHKey)
            << QString::fromStdString("cache_dir/dynamo/" + kHKey + "/entry")
            << QString::fromStdString(kHMissingBackend);
        QTest::newRow("not an entry") << QString::fromStdString(kGKey) << "truncated.bin"
                                      << "not a DynamoCache entry";
    }
    void bundleArtifactChecks() {
        QFETCH(QString, key);
        QFETCH(QString, file);
        QFETCH(QString, problem);
        const auto check = bundle::check_artifact("precompile", key.toStdString(),
                                                  test::read_bytes(data(file.toStdString())));
        QVERIFY(!check.readable);
        QCOMPARE(check.verdict, safety::Verdict::Unreadable);
        QVERIFY2(any_contains(check.problems, problem.toStdString()),
                 joined(check.problems).constData());
    }

    // --- Checked source spans against a checkout (--against) -----------------

    void sourcesAgainstACheckout_data() {
        QTest::addColumn<QString>("tree");
        QTest::addColumn<int>("same");
        QTest::addColumn<int>("changed");
        QTest::addColumn<int>("missing");
        QTest::addColumn<QString>("answer");
        QTest::newRow("as compiled") << "source_tree" << 2 << 0 << 0
                                     << "All 2 checked spans are unchanged: the sources will not "
                                        "reject it";
        QTest::newRow("forward changed")
            << "source_tree_changed" << 1 << 1 << 0
            << "1 of 2 checked spans changed: PyTorch's DynamoCache and vLLM reject this file and "
               "compile again";
        QTest::newRow("nothing there")
            << "" << 0 << 0 << 2 << "2 of 2 checked spans not found in the checkout";
    }
    void sourcesAgainstACheckout() {
        QFETCH(QString, tree);
        QFETCH(int, same);
        QFETCH(int, changed);
        QFETCH(int, missing);
        QFETCH(QString, answer);
        QTemporaryDir empty;
        const fs::path dir =
            tree.isEmpty() ? fs::path(empty.path().toStdString()) : data(tree.toStdString());
        const auto file = read_or_die(data("mlp_sources_2_11.bin"));
        const auto checks = check_sources_against(file, dir);
        QCOMPARE(checks.size(), 2u);
        const auto count = [&](SourceCheck::Status status) {
            return static_cast<int>(std::ranges::count(checks, status, &SourceCheck::status));
        };
        QCOMPARE(count(SourceCheck::Status::Same), same);
        QCOMPARE(count(SourceCheck::Status::Changed), changed);
        QCOMPARE(count(SourceCheck::Status::Missing), missing);
        for (const auto& check : checks) {
            QVERIFY(check.source != nullptr);
            if (check.status == SourceCheck::Status::Missing) {
                QVERIFY(check.path.empty());
                QVERIFY2(check.text.find("not under") != std::string::npos, check.text.c_str());
            } else {
                QCOMPARE(qs(check.path), "mymodels/mlp.py");
            }
            if (check.status == SourceCheck::Status::Changed) {
                // PyTorch's words: the second span, MLP.forward.
                QCOMPARE(check.source->first_line, 17);
                QVERIFY2(check.text.starts_with("Source code changes detected for mymodels.mlp "
                                                "(line 17 - line 21)"),
                         check.text.c_str());
            }
        }
        QVERIFY(qs(source_checks_answer(checks)).startsWith(answer));
    }

    void sourceChecksAnswerWithoutSpans() {
        QVERIFY(source_checks_answer({}).starts_with("Nothing of your source is checked on load"));
        const auto fn = read_or_die(data("fn_2_11.bin"));
        QTemporaryDir empty;
        QVERIFY(check_sources_against(fn, empty.path().toStdString()).empty());
    }

    // The real spans of torch.nn against a checkout made of the sources the
    // file records: one module there, then both.
    void realSpansAgainstTheirOwnSource() {
        const auto file = read_or_die(test::real_fixture("precompile/mlp_forward.bin"));
        const auto content_of = [&](std::string_view module) {
            for (const auto& source : file.sources) {
                if (source.module == module) {
                    return std::string(source.content);
                }
            }
            qFatal("no source of %s", std::string(module).c_str());
        };
        QTemporaryDir temp;
        const fs::path checkout = temp.path().toStdString();
        test::write_bytes(checkout / "torch/nn/modules/linear.py",
                          content_of("torch.nn.modules.linear"));
        auto checks = check_sources_against(file, checkout);
        QCOMPARE(checks.size(), 3u);
        QCOMPARE(std::ranges::count(checks, SourceCheck::Status::Same, &SourceCheck::status), 1);
        QCOMPARE(qs(source_checks_answer(checks)),
                 "2 of 3 checked spans not found in the checkout; the rest unchanged");
        // A package's __init__.py below src/ is found too.
        test::write_bytes(checkout / "src/torch/nn/modules/module/__init__.py",
                          content_of("torch.nn.modules.module"));
        checks = check_sources_against(file, checkout);
        QCOMPARE(std::ranges::count(checks, SourceCheck::Status::Same, &SourceCheck::status), 3);
        QVERIFY(std::ranges::any_of(checks, [](const SourceCheck& check) {
            return check.path == "src/torch/nn/modules/module/__init__.py";
        }));
        QCOMPARE(qs(source_checks_answer(checks)),
                 "All 3 checked spans are unchanged: the sources will not reject it");
    }

    // PyTorch reads the module through linecache (inspect.getsourcelines):
    // universal newlines, and a last line without one gets "\n". A checkout
    // with CRLF line ends, or without a newline at its end, is unchanged to it.
    void checkoutReadAsPythonReadsIt_data() {
        QTest::addColumn<QString>("form");
        QTest::newRow("CRLF") << "crlf";
        QTest::newRow("no newline at the end") << "no-eol";
    }
    void checkoutReadAsPythonReadsIt() {
        QFETCH(QString, form);
        std::string source = test::read_bytes(data("source_tree/mymodels/mlp.py"));
        if (form == "crlf") {
            std::string crlf;
            for (const char c : source) {
                crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
            }
            source = crlf;
        } else {
            QVERIFY(source.ends_with('\n'));
            source.pop_back(); // MLP.forward's span ends at the last line
        }
        QTemporaryDir temp;
        const fs::path checkout = temp.path().toStdString();
        test::write_bytes(checkout / "mymodels/mlp.py", source);
        const auto file = read_or_die(data("mlp_sources_2_11.bin"));
        const auto checks = check_sources_against(file, checkout);
        QCOMPARE(checks.size(), 2u);
        QCOMPARE(std::ranges::count(checks, SourceCheck::Status::Same, &SourceCheck::status), 2);
    }

    // sha256("".join(lines[first - 1:last - 1])), lines kept with their ends,
    // hashed by hand in Python.
    void spanChecksum_data() {
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("last");
        QTest::addColumn<QString>("sha256");
        QTest::newRow("one line")
            << 2 << 3 << "e85c8782d906ed2cbe0bd1c351ab117287b5691d546891de7f59b62537ea6b67";
        QTest::newRow("first function")
            << 1 << 3 << "72d3d5b08c2cf9d267d33ca44474dfaeabe3c74c51fad8b1094d3d07ce3856b7";
        QTest::newRow("to the end")
            << 5 << 7 << "3d5f1ce8cbdf44af1c3b0e981c515e9d77bffeeab5454a42d4a3497ef7080f00";
        // Python's slice stops at the end.
        QTest::newRow("past the end")
            << 5 << 99 << "3d5f1ce8cbdf44af1c3b0e981c515e9d77bffeeab5454a42d4a3497ef7080f00";
        QTest::newRow("whole")
            << 1 << 7 << "79c24e9facbc611b03547bebf85a0cff3cee1118534f11c4d507ed5f372fa43f";
        QTest::newRow("empty") << 3 << 3 << QString::fromStdString(kEmptySha256);
        QTest::newRow("reversed") << 4 << 2 << QString::fromStdString(kEmptySha256);
    }
    void spanChecksum() {
        QFETCH(int, first);
        QFETCH(int, last);
        QFETCH(QString, sha256);
        const std::string text = "def f(x):\n    return x\n\n\ndef g(y):\n    return y + 1\n";
        QCOMPARE(qs(source_span_checksum(text, first, last)), sha256);
    }

    void spanChecksumOfTheTestTrees() {
        // What make_precompile.py recorded, and what the changed line makes of it.
        const auto source = test::read_bytes(data("source_tree/mymodels/mlp.py"));
        QCOMPARE(qs(source_span_checksum(source, 17, 21)),
                 "7e0062726390765484056d1bb3584e0526ce2b9e50392444e5a31dd188d510da");
        QCOMPARE(qs(source_span_checksum(source, 6, 9)),
                 "188ea983b70c0f4e1194e0f56f3221b6def00ec37ed5228310b6aba9857996a0");
        const auto changed = test::read_bytes(data("source_tree_changed/mymodels/mlp.py"));
        QCOMPARE(qs(source_span_checksum(changed, 17, 21)),
                 "7841400c1c1ae34ccec63887670df27233ad05a8c83e0bd06f6fe4727451d328");
        QCOMPARE(source_span_checksum(changed, 6, 9), source_span_checksum(source, 6, 9));
    }

    void dynamoCacheKey() {
        QCOMPARE(dynamo_cache_key("g", 5), kGKey);
        QCOMPARE(dynamo_cache_key("h", 7), kHKey);
        QVERIFY(dynamo_cache_key("g", 6) != kGKey);
    }

    // --- Preflight: SystemInfo.check_compatibility against a fingerprint ------

    void preflight_data() {
        QTest::addColumn<QString>("torch");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("cuda");
        QTest::addColumn<QString>("triton");
        QTest::addColumn<QStringList>("devices");
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<QString>("reason");
        const QStringList gpu_host{"cpu", "cuda"};
        QTest::newRow("same machine") << "2.11.0+cu130"
                                      << "NVIDIA H200"
                                      << "13.0"
                                      << "3.6.0" << gpu_host << "can_hit"
                                      << "";
        QTest::newRow("other GPU")
            << "2.11.0+cu130"
            << "NVIDIA H100 80GB HBM3"
            << "13.0"
            << "3.6.0" << gpu_host << "will_miss"
            << "Compile package was created with different GPU: cached=NVIDIA H200, "
               "current=NVIDIA H100 80GB HBM3";
        QTest::newRow("torch not known") << ""
                                         << "NVIDIA H200"
                                         << "13.0"
                                         << "3.6.0" << gpu_host << "cannot_tell"
                                         << "the target's torch version is not known";
        QTest::newRow("other torch") << "2.10.0+cu128"
                                     << "NVIDIA H200"
                                     << "13.0"
                                     << "3.6.0" << gpu_host << "will_miss"
                                     << "Compile package was created with a different PyTorch "
                                        "version: 2.11.0+cu130 -> 2.10.0+cu128";
        QTest::newRow("other Triton minor")
            << "2.11.0+cu130"
            << "NVIDIA H200"
            << "13.0"
            << "3.5.1" << gpu_host << "will_miss"
            << "Compile package was created with a different Triton version: 3.6 -> 3.5.1";
        // SystemInfo keeps (major, minor) only.
        QTest::newRow("other Triton patch") << "2.11.0+cu130"
                                            << "NVIDIA H200"
                                            << "13.0"
                                            << "3.6.1" << gpu_host << "can_hit"
                                            << "";
        QTest::newRow("other toolkit")
            << "2.11.0+cu130"
            << "NVIDIA H200"
            << "12.8"
            << "3.6.0" << gpu_host << "will_miss"
            << "Compile package was created with a different toolkit version: 13.0 -> 12.8";
        QTest::newRow("GPU not known") << "2.11.0+cu130"
                                       << ""
                                       << ""
                                       << "" << gpu_host << "cannot_tell"
                                       << "the target's GPU is not known";
        QTest::newRow("no GPU") << "2.11.0+cu130"
                                << ""
                                << ""
                                << "" << QStringList{"cpu"} << "will_miss"
                                << "cuda is not available on the target";
    }
    void preflight() {
        QFETCH(QString, torch);
        QFETCH(QString, gpu);
        QFETCH(QString, cuda);
        QFETCH(QString, triton);
        QFETCH(QStringList, devices);
        QFETCH(QString, outcome);
        QFETCH(QString, reason);
        Fingerprint target;
        target.torch_version = torch.toStdString();
        target.environment.device_name = gpu.toStdString();
        target.environment.cuda_version = cuda.toStdString();
        target.environment.triton_version = triton.toStdString();
        for (const auto& device : devices) {
            target.device_types.push_back(device.toStdString());
        }
        const auto file = read_or_die(test::real_fixture("precompile/fn.bin"));
        const auto result = explain::preflight_precompile(file, target);
        QCOMPARE(qs(explain::to_string(result.outcome)), outcome);
        if (reason.isEmpty()) {
            QVERIFY(result.reasons.empty());
            QCOMPARE(qs(result.answer()), "The precompiled function can load on the target");
        } else {
            QVERIFY(std::ranges::any_of(result.reasons, [&](const explain::PreflightReason& r) {
                return qs(r.text).contains(reason);
            }));
        }
        if (result.outcome == explain::PreflightOutcome::WillMiss) {
            QVERIFY(result.answer().starts_with(
                "The precompiled function will not load on the target"));
        } else if (result.outcome == explain::PreflightOutcome::CannotTell) {
            QVERIFY(result.answer().starts_with("Cannot tell"));
        }
        // No fingerprint knows the target's Python.
        QVERIFY(any_contains(result.notes, "needs Python 3.12.3"));
    }

    void preflightOfTheGoldenMachine() {
        const auto precompile = golden("precompile");
        const auto target = h200(precompile["env"].toObject());
        for (const char* path : {"precompile/fn.bin", "precompile/mlp_forward.bin"}) {
            const auto result =
                explain::preflight_precompile(read_or_die(test::real_fixture(path)), target);
            QVERIFY2(result.outcome == explain::PreflightOutcome::CanHit, path);
        }
        // What PyTorch would refuse in the file refuses it on every machine.
        const auto h = read_dir_or_die(data("cache_dir"), kHKey);
        const auto refused = explain::preflight_precompile(h, target);
        QCOMPARE(refused.outcome, explain::PreflightOutcome::WillMiss);
        QCOMPARE(qs(refused.reasons.at(0).category), "file");
        QVERIFY(refused.reasons[0].text.find(kHMissingBackend) != std::string::npos);
    }

    // 2.9's save_compiled_function recorded no SystemInfo: nothing to compare.
    void preflightWithoutSystemInfo() {
        PrecompileFile file;
        file.layout = PrecompileLayout::AotFunctionEarly;
        file.device_type = "cuda";
        QVERIFY(!file.system.recorded);
        const auto result =
            explain::preflight_precompile(file, h200(golden("precompile")["env"].toObject()));
        QCOMPARE(result.outcome, explain::PreflightOutcome::CannotTell);
        QVERIFY(any_contains(result.notes, "records no system info"));
        QVERIFY(result.answer().starts_with("Cannot tell"));
    }

    // --- In a cache dir ----------------------------------------------------

    void classify_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kind");
        const QString key = QString::fromStdString(kGKey);
        QTest::newRow("entry") << "dynamo/" + key + "/entry"
                               << "precompile";
        QTest::newRow("2.9 dynamo") << "dynamo/" + key + "/dynamo"
                                    << "precompile";
        QTest::newRow("2.9 backends") << "dynamo/" + key + "/backends"
                                      << "precompile";
        QTest::newRow("pgo profile") << "dynamo/code_state_model.py_12_forward.pkl"
                                     << "pgo";
        QTest::newRow("63 hex") << "dynamo/" + key.left(63) + "/entry"
                                << "unknown";
        QTest::newRow("upper-case hex") << "dynamo/" + key.toUpper() + "/entry"
                                        << "unknown";
        QTest::newRow("other file name") << "dynamo/" + key + "/entry.bak"
                                         << "unknown";
        QTest::newRow("deeper") << "dynamo/" + key + "/entry/entry"
                                << "unknown";
    }
    void classify() {
        QFETCH(QString, path);
        QFETCH(QString, kind);
        QCOMPARE(qs(to_string(cachedir::classify(path.toStdString()))), kind);
    }

    void kindName() {
        QCOMPARE(qs(to_string(FileKind::Precompile)), "precompile");
        QCOMPARE(file_kind_from_string("precompile"), std::optional(FileKind::Precompile));
    }

    void entriesAreDirs() {
        const Scan scan = scan_or_die(data("cache_dir"));
        std::vector<Entry> entries = scan.entries();
        QCOMPARE(entries.size(), 2u);
        std::ranges::sort(entries, {}, &Entry::key);
        QCOMPARE(entries[0].key, kGKey);
        QCOMPARE(qs(entries[0].path), qs("dynamo/" + kGKey));
        QCOMPARE(entries[1].key, kHKey);
        QCOMPARE(qs(entries[1].path), qs("dynamo/" + kHKey));
        for (const auto& entry : entries) {
            QCOMPARE(entry.kind, FileKind::Precompile);
            QCOMPARE(entry.file_count, 1u);
        }
    }

    void judgeCacheDir() {
        auto verdicts = bundle::judge_cache_dir(scan_or_die(data("cache_dir")));
        QVERIFY_RESULT(verdicts);
        QCOMPARE(verdicts->size(), 2u);
        QCOMPARE(qs((*verdicts)[0].path), qs("dynamo/" + kGKey));
        QCOMPARE((*verdicts)[0].check.verdict, safety::Verdict::InductorCode);
        QVERIFY((*verdicts)[0].check.findings.empty());
        QCOMPARE(qs((*verdicts)[1].path), qs("dynamo/" + kHKey));
        QCOMPARE((*verdicts)[1].check.verdict, safety::Verdict::Unreadable);
        QVERIFY(any_contains((*verdicts)[1].check.problems, kHMissingBackend));
    }

    void verifyNamesTheMissingBackend() {
        const auto report = verify_cache_dir(scan_or_die(data("cache_dir")));
        QCOMPARE(report.entries_checked, 2u);
        QCOMPARE(report.names_verified, 2u); // both dirs are named as PyTorch names them
        QCOMPARE(report.problems.size(), 1u);
        QCOMPARE(qs(report.problems[0].path), qs("dynamo/" + kHKey));
        QVERIFY2(report.problems[0].message.find(kHMissingBackend) != std::string::npos,
                 report.problems[0].message.c_str());
        // The real cache dir the DynamoCache wrote is clean.
        const auto real = verify_cache_dir(scan_or_die(test::real_fixture("dynamo_cache/cache")));
        QVERIFY(real.clean());
    }

    // What `show --json` prints of an entry: the fields scripts read.
    void descriptionForJson() {
        const fs::path root = data("cache_dir");
        const Entry entry = dynamo_entry(scan_or_die(root), kHKey);
        auto content = load_entry(root, entry);
        QVERIFY_RESULT(content);
        QVERIFY(std::holds_alternative<PrecompileFile>(*content));
        const auto fields = describe_entry(entry, *content).fields;
        for (const char* key : {"layout", "functions", "backends", "guards", "sources", "problems",
                                "system_info", "expected_key", "imports", "codes"}) {
            QVERIFY2(json_field(fields, key) != nullptr, key);
        }
        QCOMPARE(json_field(fields, "layout")->value_text(),
                 to_string(PrecompileLayout::DynamoCacheEntry));
        QCOMPARE(json_field(fields, "functions")->shape, FieldShape::List);
        QCOMPARE(json_field(fields, "functions")->children.size(), 1u);
        const Field* problems = json_field(fields, "problems");
        QCOMPARE(problems->children.size(), 1u);
        QVERIFY(problems->children[0].value_text().find(kHMissingBackend) != std::string::npos);
        QVERIFY(json_field(fields, "sources")->children.empty());

        // A file on its own: its checked spans, each matching the source beside it.
        auto standalone = load_standalone_file(data("mlp_sources_2_11.bin"));
        QVERIFY_RESULT(standalone);
        QCOMPARE(standalone->entry.kind, FileKind::Precompile);
        const auto own = describe_entry(standalone->entry, standalone->content).fields;
        const Field* sources = json_field(own, "sources");
        QVERIFY(sources != nullptr);
        QCOMPARE(sources->children.size(), 2u);
        for (const auto& source : sources->children) {
            const Field* matches = json_field(source.children, "content_matches");
            QVERIFY(matches != nullptr);
            QCOMPARE(matches->value, FieldValue(true));
        }
        QVERIFY(json_field(own, "problems")->children.empty());
        QCOMPARE(json_field(own, "guards")->children.size(), 1u);
        QCOMPARE(json_field(own, "backends")->children.size(), 1u);
    }
};

QTEST_GUILESS_MAIN(TestPrecompile)
#include "tst_precompile.moc"
