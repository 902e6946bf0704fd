// The typed readers against what PyTorch itself read back from the same files
// (devset/golden.json, multi_dev/golden_multi.json): FX graph entries, AOT
// entries, best_configs, Triton metadata, the benchmark cache.

#include "test_paths.h"

#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/benchmark_cache.h>
#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/environment.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

#include <algorithm>
#include <set>

using namespace cachelens;
using namespace cachelens::cachedir;

namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// A golden set: one of ../shared's fixtures ("devset", made on an H100) or of
// the repository's real fixtures ("h200/transformer", made on an H200).
std::filesystem::path set_root(const QString& set) {
    if (set.startsWith("h200/")) {
        return test::real_fixture(set.mid(5).toStdString());
    }
    return test::fixture(set.toStdString());
}

QJsonArray golden_array(const QString& set, const char* field) {
    return test::read_json(set_root(set) / "golden.json")[field].toArray();
}

std::filesystem::path set_path(const QString& set, const QJsonObject& record) {
    return set_root(set) / record["path"].toString().toStdString();
}

std::filesystem::path devset_path(const QJsonObject& record) {
    return set_path("devset", record);
}

// Code points in UTF-8 text: Python's len() of the decoded str.
qsizetype code_points(std::string_view utf8) {
    return std::count_if(utf8.begin(), utf8.end(),
                         [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; });
}

QStringList all_matches(const QString& text, const QString& pattern) {
    QStringList out;
    auto it = QRegularExpression(pattern).globalMatch(text);
    while (it.hasNext()) {
        out << it.next().captured(1);
    }
    return out;
}

} // namespace

class TestCacheEntries : public QObject {
    Q_OBJECT

private slots:
    void fxGraphEntriesMatchGolden_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("entries");
        QTest::newRow("devset (cache and cache_from_mega)") << "devset" << 14;
        QTest::newRow("cpu_dev") << "cpu_dev" << 2;
        QTest::newRow("h200 transformer at two lengths") << "h200/transformer" << 4;
        QTest::newRow("h200 channels_last CNN") << "h200/cnn" << 1;
        QTest::newRow("h200 DynamoCache run") << "h200/dynamo_cache" << 1;
    }
    void fxGraphEntriesMatchGolden() {
        QFETCH(QString, set);
        QFETCH(int, entries);
        int checked = 0;
        for (const auto& value : golden_array(set, "fxgraph")) {
            const auto golden = value.toObject();
            const auto path = set_path(set, golden);
            auto entry = load_fx_graph_entry(path);
            QVERIFY_RESULT(entry);

            QCOMPARE(qs(entry->class_name), golden["type"].toString());
            QCOMPARE(entry->document->protocol, golden["pickle_protocol"].toInt());
            QCOMPARE(qs(entry->key), golden["fx_graph_cache_key"].toString());
            QCOMPARE(qs(path.parent_path().filename().string()), golden["key_dir"].toString());
            if (golden["guards_expr"].isNull()) {
                QVERIFY(!entry->guards_expr.has_value());
            } else {
                QVERIFY(entry->guards_expr.has_value());
                QCOMPARE(qs(*entry->guards_expr), golden["guards_expr"].toString());
            }
            const auto lines = golden["debug_lines"].toArray();
            QCOMPARE(static_cast<qsizetype>(entry->debug_lines.size()), lines.size());
            for (qsizetype i = 0; i < lines.size(); ++i) {
                QCOMPARE(qs(entry->debug_lines[static_cast<std::size_t>(i)]), lines[i].toString());
            }
            QCOMPARE(qs(hash::sha256_hex(entry->source_code)),
                     golden["source_code_sha256"].toString());
            QCOMPARE(code_points(entry->source_code), golden["source_code_len"].toInteger());
            QCOMPARE(qs(entry->cache_key), golden["cache_key"].toString());
            QStringList devices;
            for (const auto& device : entry->device_types) {
                devices << qs(device);
            }
            QCOMPARE(devices, golden["device_types"].toVariant().toStringList());
            QVERIFY(entry->time_taken_ns.has_value());
            QCOMPARE(*entry->time_taken_ns, golden["time_taken_ns"].toInteger());

            QStringList attributes;
            for (auto name : entry->attribute_names) {
                attributes << qs(name);
            }
            attributes.sort();
            QCOMPARE(attributes, golden["attrs"].toVariant().toStringList());

            // The Triton bundle, as PyTorch printed it (the repr is cut, so compare what it shows).
            const QString bundle = golden["triton_bundle"].toString();
            const QStringList hashes = all_matches(bundle, "kernel_hash='(\\w+)'");
            QCOMPARE(hashes.isEmpty(), entry->triton_artifacts.empty());
            for (qsizetype i = 0; i < hashes.size(); ++i) {
                QCOMPARE(qs(entry->triton_artifacts.at(static_cast<std::size_t>(i)).kernel_hash),
                         hashes[i]);
            }
            const QStringList files = all_matches(bundle, "filename='([^']+)'");
            QStringList ours;
            for (const auto& kernel : entry->triton_artifacts) {
                for (const auto& file : kernel.files) {
                    ours << qs(file.name);
                    QVERIFY2(!file.payload.empty(), file.name.c_str());
                }
            }
            QCOMPARE(ours.mid(0, files.size()), files);
            const QStringList tuner_keys = all_matches(bundle, "cache_key='(\\w+)'");
            const QStringList tuner_names = all_matches(bundle, "kernel_name='(\\w+)'");
            for (qsizetype i = 0; i < tuner_keys.size(); ++i) {
                QCOMPARE(qs(entry->autotuners.at(static_cast<std::size_t>(i)).cache_key),
                         tuner_keys[i]);
                QCOMPARE(qs(entry->autotuners.at(static_cast<std::size_t>(i)).kernel_name),
                         tuner_names[i]);
            }
            ++checked;
        }
        QCOMPARE(checked, entries);
    }

    void fxGraphFieldsBeyondTheGolden() {
        // devset 3g: the sqrt-of-sum reduction (formats.md §5's worked example).
        const auto dir = test::fixture(
            "devset/cache/fxgraph/3g/f3gunfwvnc2bijojank6na6pplhx6nopcc7cx3stulctblbl4cln");
        const auto file = *std::filesystem::directory_iterator(dir);
        auto entry = load_fx_graph_entry(file.path());
        QVERIFY(entry.has_value());
        QCOMPARE(entry->device_idxs, std::vector<std::int64_t>{0});
        QVERIFY(entry->mutated_inputs.empty());
        QCOMPARE(entry->output_strides.size(), 1u);
        QCOMPARE(*entry->output_strides[0], std::vector<std::string>{"1"});
        QVERIFY(std::find(entry->counter_deltas.begin(), entry->counter_deltas.end(),
                          std::pair<std::string, std::int64_t>{"async_compile_cache_miss", 2}) !=
                entry->counter_deltas.end());
        QVERIFY(std::find(entry->metrics_deltas.begin(), entry->metrics_deltas.end(),
                          std::pair<std::string, std::int64_t>{"generated_kernel_count", 1}) !=
                entry->metrics_deltas.end());
        QCOMPARE(entry->autotuners.size(), 1u);
        const KernelAutotuner& tuner = entry->autotuners[0];
        QCOMPARE(tuner.heuristic, "reduction");
        QCOMPARE(tuner.grid_type, "Grid1D");
        QCOMPARE(tuner.module_key, "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w");
        // The autotuner names the .best_config it saved, as a path on the compiling machine.
        QVERIFY(tuner.best_config_path.ends_with(
            "/2c/1d478d3f71f84b06d156f2b3d8b027fb6d1f8b2d5491a0dc74571852450c7051.best_config"));
        QCOMPARE(tuner.candidates.size(), 1u);
        const CompiledCandidate& candidate = tuner.candidates[0];
        QCOMPARE(candidate.result_class,
                 "torch._inductor.runtime.triton_heuristics.StaticTritonCompileResult");
        QCOMPARE(candidate.config.describe(),
                 "XBLOCK=1, R0_BLOCK=2048, num_warps=16, num_stages=1");
        QCOMPARE(candidate.arg_types, "OOii");
        QCOMPARE(candidate.arg_names.size(), 6u);
        QCOMPARE(candidate.declared_constexprs, (std::vector<std::int64_t>{4, 5}));
        QVERIFY(candidate.has_global_scratch && candidate.has_profile_scratch);
        QCOMPARE(candidate.triton_dir(), entry->triton_artifacts[0].kernel_hash);
        QVERIFY(entry->runnable_graph.has_value());
        QVERIFY(entry->post_grad_graph->starts_with("class <lambda>"));
    }

    // The user's calls a graph was traced from, from its wrapper's comments.
    void tracedCallsComeFromTheSourceNodeComments() {
        const std::string source =
            "# Topologically Sorted Source Nodes: [linear, layer_norm], Original ATen: [aten.mm]\n"
            "    # Topologically Sorted Source Nodes: [linear, layer_norm], Original ATen: x\n"
            "# Topologically Sorted Source Nodes: [linear_1, constant_pad_nd_default, gelu, "
            "mm_default_1, sum_10, sum_2, x\x1b[0m, ], Original ATen: [aten.gelu]\n"
            "# Topologically Sorted Source Nodes: [unterminated, linear_2\n"
            // fuzz_kernel_module: a node of digits after an underscore alone
            // was read as the 19th call of a nameless one.
            "# Topologically Sorted Source Nodes: [_19], Original ATen: [aten.mm]\n";
        const auto calls = traced_calls(source);
        QCOMPARE(QString::fromStdString(describe(calls)),
                 QString("linear x2, layer_norm, gelu, sum x2, _19"));
        QVERIFY(traced_calls("").empty());
        QVERIFY(traced_calls("# Topologically Sorted Source Nodes: [").empty());

        // The devset's forward graph: a two-layer MLP with a log-softmax.
        const auto dir = test::fixture(
            "devset/cache/fxgraph/lg/flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e");
        auto entry = load_fx_graph_entry(std::filesystem::directory_iterator(dir)->path());
        QVERIFY(entry.has_value());
        QCOMPARE(QString::fromStdString(describe(traced_calls(entry->source_code))),
                 QString("layer_norm, gelu, log_softmax, linear x2"));
    }

    // What another machine must match: every fixture entry was compiled on
    // an H100 with CUDA 13.0, Triton 3.6.0 and one torch build.
    void environmentOfEveryFixtureEntry() {
        std::set<std::string> builds;
        int entries = 0;
        for (const char* set : {"devset/cache", "cpu_dev/cache", "multi_dev/cache"}) {
            for (const auto& file :
                 std::filesystem::recursive_directory_iterator(test::fixture(set) / "fxgraph")) {
                if (!file.is_regular_file()) {
                    continue;
                }
                auto entry = load_fx_graph_entry(file.path());
                QVERIFY(entry.has_value());
                const Environment environment = environment_of(entry->debug_lines);
                QCOMPARE(qs(environment.device_name), QString("NVIDIA H100 80GB HBM3"));
                QCOMPARE(qs(environment.cuda_version), QString("13.0"));
                QVERIFY(environment.hip_version.empty());
                QCOMPARE(qs(environment.triton_version), QString("3.6.0"));
                QVERIFY(environment.triton_key.starts_with("3.6.0"));
                QCOMPARE(environment.system_hash.size(), 64u);
                QCOMPARE(qs(environment.describe()),
                         "NVIDIA H100 80GB HBM3, CUDA 13.0, Triton 3.6.0, torch build " +
                             qs(environment.torch_build.substr(0, 8)));
                builds.insert(environment.torch_build);
                // The whole fingerprint: torch 2.11 from the repro header, the
                // device its graph runs on (cpu_dev: CPU, C++ kernels, no
                // Triton target), Hopper's arch for the kernels it carries.
                const Fingerprint fingerprint = fingerprint_of(*entry);
                QCOMPARE(qs(fingerprint.torch_version), QString("2.11.0+cu130"));
                const bool cpu = std::string_view(set).starts_with("cpu_dev");
                QCOMPARE(fingerprint.device_types, std::vector<std::string>{cpu ? "cpu" : "cuda"});
                if (cpu || entry->triton_artifacts.empty()) {
                    QVERIFY(fingerprint.triton_targets.empty());
                } else {
                    QCOMPARE(fingerprint.triton_targets, std::vector<std::string>{"cuda 90"});
                }
                QVERIFY(fingerprint.inductor_config.contains("max_autotune"));
                ++entries;
            }
        }
        QVERIFY(entries > 10);
        QCOMPARE(builds.size(), 1u);

        // ROCm, a missing GPU name, lines that are not what get_system() writes.
        const std::string_view rocm[] = {
            "[aaaa] system_info[device]: {'name': 'gfx942:sramecc+:xnack-'}",
            "[bbbb] system_info[version]: {'triton': '3.4.0abc-def', 'hip': '6.4.1'}",
        };
        const Environment amd = environment_of(rocm);
        QCOMPARE(qs(amd.device_name), QString("gfx942:sramecc+:xnack-"));
        QCOMPARE(qs(amd.hip_version), QString("6.4.1"));
        QCOMPARE(qs(amd.triton_version), QString("3.4.0abc")); // no 64-digit hash: as written
        QVERIFY(amd.torch_build.empty() && amd.cuda_version.empty());
        const std::string_view odd[] = {
            "[cccc] system_info[device]: {'name': None}",
            "[dddd] system_info[version]: ['not', 'a', 'dict'",
            "system_info[hash]: no hash prefix",
            "[eeee] system_info[hashes]: a longer name",
        };
        const Environment unknown = environment_of(odd);
        QVERIFY(unknown.empty());
        QCOMPARE(qs(unknown.describe()), QString("not recorded in its key"));
    }

    // The repository's real fixtures were compiled on an H200 by the same
    // PyTorch build as ../shared's H100 sets: only the GPU differs.
    void environmentOfTheH200Fixtures() {
        std::set<std::string> builds;
        for (const auto& file :
             std::filesystem::recursive_directory_iterator(test::fixture("devset/cache/fxgraph"))) {
            if (file.is_regular_file()) {
                builds.insert(
                    environment_of(load_fx_graph_entry(file.path())->debug_lines).torch_build);
            }
        }
        QCOMPARE(builds.size(), 1u);
        int entries = 0;
        for (const char* set : {"transformer/cache", "cnn/cache", "dynamo_cache/cache"}) {
            for (const auto& file : std::filesystem::recursive_directory_iterator(
                     test::real_fixture(set) / "fxgraph")) {
                if (!file.is_regular_file()) {
                    continue;
                }
                auto entry = load_fx_graph_entry(file.path());
                QVERIFY_RESULT(entry);
                const Environment environment = environment_of(entry->debug_lines);
                QCOMPARE(qs(environment.device_name), QString("NVIDIA H200"));
                QCOMPARE(qs(environment.cuda_version), QString("13.0"));
                QCOMPARE(qs(environment.triton_version), QString("3.6.0"));
                QCOMPARE(qs(environment.torch_build), qs(*builds.begin()));
                const Fingerprint fingerprint = fingerprint_of(*entry);
                QCOMPARE(qs(fingerprint.torch_version), QString("2.11.0+cu130"));
                QCOMPARE(fingerprint.device_types, std::vector<std::string>{"cuda"});
                if (!entry->triton_artifacts.empty()) {
                    QCOMPARE(fingerprint.triton_targets, std::vector<std::string>{"cuda 90"});
                }
                ++entries;
            }
        }
        QCOMPARE(entries, 6);
    }

    void everyCandidateNamesAnExistingTritonDir() {
        // formats.md §5: triton/<device>/ + base32(bytes.fromhex(hash)) holds the cubin, and
        // the entry's own bundle carries it. (In cache_from_mega the graphs that came from the
        // bundle were never used again, so PyTorch never unpacked their kernels to disk.)
        int candidates = 0;
        for (const auto& value : golden_array("devset", "fxgraph")) {
            const auto path = devset_path(value.toObject());
            const auto root = path.parent_path().parent_path().parent_path().parent_path();
            auto entry = load_fx_graph_entry(path);
            QVERIFY(entry.has_value());
            std::set<std::string> bundled;
            for (const auto& kernel : entry->triton_artifacts) {
                bundled.insert(kernel.kernel_hash);
            }
            for (const auto& tuner : entry->autotuners) {
                for (const auto& candidate : tuner.candidates) {
                    QVERIFY(bundled.contains(candidate.triton_dir()));
                    if (root.filename() == "cache") {
                        QVERIFY(std::filesystem::is_directory(root / "triton" / "0" /
                                                              candidate.triton_dir()));
                    }
                    ++candidates;
                }
            }
        }
        QVERIFY(candidates >= 20);
    }

    void aotEntriesMatchGolden_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("entries");
        QTest::newRow("devset (cache and cache_from_mega)") << "devset" << 11;
        QTest::newRow("cpu_dev") << "cpu_dev" << 2;
        QTest::newRow("h200 transformer at two lengths") << "h200/transformer" << 2;
        QTest::newRow("h200 channels_last CNN") << "h200/cnn" << 1;
        QTest::newRow("h200 precompiled functions") << "h200/precompile" << 2;
        QTest::newRow("h200 DynamoCache run") << "h200/dynamo_cache" << 1;
    }
    void aotEntriesMatchGolden() {
        QFETCH(QString, set);
        QFETCH(int, entries);
        int checked = 0;
        const QRegularExpression key_in_repr("fx_graph_cache_info=\\('(f\\w+)'");
        // A bundled graph (precompile, the DynamoCache) is the CompiledFxGraph itself.
        const QRegularExpression bundled_key("^Bundled\\w+\\(result=CompiledFxGraph\\("
                                             "_fx_graph_cache_key=(?:'(f\\w+)'|None)");
        for (const auto& value : golden_array(set, "aotautograd")) {
            const auto golden = value.toObject();
            auto entry = load_aot_autograd_entry(set_path(set, golden));
            QVERIFY_RESULT(entry);
            QCOMPARE(qs(entry->class_name), golden["type"].toString());
            const auto fields = golden["small_fields"].toObject();
            for (const auto& [field, link] : {std::pair{"compiled_fw", &entry->forward},
                                              std::pair{"compiled_bw", &entry->backward}}) {
                const QString repr = fields[field].toString();
                if (repr == "None") {
                    QVERIFY(!link->has_value());
                } else if (const auto bundled = bundled_key.match(repr); bundled.hasMatch()) {
                    QVERIFY(link->has_value());
                    QVERIFY((*link)->bundled);
                    QCOMPARE(qs((*link)->key), bundled.captured(1));
                    QCOMPARE((*link)->debug_lines.empty(), bundled.captured(1).isEmpty());
                } else {
                    QVERIFY(link->has_value());
                    QVERIFY(!(*link)->bundled);
                    QCOMPARE(qs((*link)->key), key_in_repr.match(repr).captured(1));
                    QVERIFY(!(*link)->debug_lines.empty());
                }
            }
            if (fields["guards_expr"].toString() == "None") {
                QVERIFY(!entry->guards_expr.has_value());
            } else {
                QVERIFY(entry->guards_expr.has_value());
            }
            QCOMPARE(QString::number(entry->forward_time_taken_ns.value_or(-1)),
                     fields["forward_time_taken_ns"].toString());
            QCOMPARE(QString::number(entry->backward_time_taken_ns.value_or(-1)),
                     fields["backward_time_taken_ns"].toString());
            QStringList attributes;
            for (auto name : entry->attribute_names) {
                attributes << qs(name);
            }
            attributes.sort();
            QCOMPARE(attributes, golden["attrs"].toVariant().toStringList());
            ++checked;
        }
        QCOMPARE(checked, entries);
    }

    void multiEntryKeyHoldsBothGuardedEntries() {
        const auto golden =
            test::read_json(test::fixture("multi_dev/golden_multi.json"))["keys"].toArray();
        QCOMPARE(golden.size(), 1);
        const auto key = golden[0].toObject();
        const auto key_dir = test::fixture("multi_dev/" + key["key_dir"].toString().toStdString());
        for (const auto& value : key["entries"].toArray()) {
            const auto expected = value.toObject();
            auto entry = load_fx_graph_entry(key_dir / expected["file"].toString().toStdString());
            QVERIFY(entry.has_value());
            QCOMPARE(qs(entry->key), qs(key_dir.filename().string()));
            QVERIFY(entry->guards_expr.has_value());
            QCOMPARE(qs(*entry->guards_expr), expected["guards_expr"].toString());
        }
    }

    void bestConfigsMatchGolden_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("entries");
        QTest::newRow("devset") << "devset" << 14;
        QTest::newRow("h200 transformer at two lengths") << "h200/transformer" << 30;
        QTest::newRow("h200 channels_last CNN") << "h200/cnn" << 1;
        QTest::newRow("h200 precompiled functions") << "h200/precompile" << 2;
        QTest::newRow("h200 AOTInductor CUDA package") << "h200/aoti_cuda" << 1;
    }
    void bestConfigsMatchGolden() {
        QFETCH(QString, set);
        QFETCH(int, entries);
        int checked = 0;
        for (const auto& value : golden_array(set, "best_configs")) {
            const auto golden = value.toObject();
            const auto json = golden["json"].toObject();
            auto text = read_text_file(set_path(set, golden));
            QVERIFY(text.has_value());
            auto best = parse_best_config(*text);
            QVERIFY_RESULT(best);
            for (const auto& name : {"XBLOCK", "YBLOCK", "R0_BLOCK", "R1_BLOCK"}) {
                const ConfigValue* kwarg = best->config.kwarg(name);
                QCOMPARE(kwarg != nullptr, json.contains(name));
                if (kwarg != nullptr) {
                    QCOMPARE(std::get<std::int64_t>(*kwarg), json[name].toInteger());
                }
            }
            QCOMPARE(best->config.num_warps.value(), json["num_warps"].toInteger());
            QCOMPARE(best->config.num_stages.value(), json["num_stages"].toInteger());
            QCOMPARE(qs(best->configs_hash.value()), json["configs_hash"].toString());
            QCOMPARE(best->found_by_coordesc.value(), json["found_by_coordesc"].toBool());
            QCOMPARE(best->time_taken_ms.value(), json["time_taken_ms"].toDouble());
            if (json["triton_cache_hash"].isNull()) {
                QVERIFY(!best->triton_cache_hash.has_value());
            } else {
                QCOMPARE(qs(best->triton_cache_hash.value()), json["triton_cache_hash"].toString());
            }
            QVERIFY(best->other_fields.empty());
            ++checked;
        }
        QCOMPARE(checked, entries);
    }

    void bestConfigRejectsGarbage() {
        QVERIFY(!parse_best_config("{\"XBLOCK\": 8").has_value());
        QVERIFY(!parse_best_config("[1, 2]").has_value());
        QVERIFY(!parse_best_config("{\"XBLOCK\": 8}").has_value()); // no num_warps
        QCOMPARE(parse_kernel_perf("0.10316800326108932\n")->milliseconds, 0.10316800326108932);
        QVERIFY(!parse_kernel_perf("fast").has_value());
    }

    void tritonMetadataMatchesGolden_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("entries");
        QTest::newRow("devset") << "devset" << 66;
        QTest::newRow("h200 transformer at two lengths") << "h200/transformer" << 80;
        QTest::newRow("h200 channels_last CNN") << "h200/cnn" << 4;
        QTest::newRow("h200 AOTInductor CUDA package") << "h200/aoti_cuda" << 3;
    }
    void tritonMetadataMatchesGolden() {
        QFETCH(QString, set);
        QFETCH(int, entries);
        int checked = 0;
        for (const auto& value : golden_array(set, "triton_cache")) {
            const auto golden = value.toObject();
            const auto json_path = set_path(set, golden);
            auto kernel = read_triton_kernel_dir(json_path.parent_path());
            QVERIFY_RESULT(kernel);
            QVERIFY(kernel->metadata.has_value());
            const TritonMetadata& meta = *kernel->metadata;
            QCOMPARE(qs(meta.name), golden["name"].toString());
            QCOMPARE(qs(kernel->kernel_name), golden["name"].toString());
            QCOMPARE(meta.num_warps.value(), golden["num_warps"].toInteger());
            QCOMPARE(meta.num_stages.value(), golden["num_stages"].toInteger());
            QCOMPARE(meta.shared, golden["shared"].toInteger());
            if (golden.contains("global_scratch_size")) { // the H200 sets record the keys only
                QCOMPARE(meta.global_scratch_size, golden["global_scratch_size"].toInteger());
                QCOMPARE(meta.profile_scratch_size, golden["profile_scratch_size"].toInteger());
            }
            QCOMPARE(qs(meta.backend), golden["target"]["backend"].toString());
            QCOMPARE(qs(meta.arch), QString::number(golden["target"]["arch"].toInt()));
            QStringList keys;
            for (const auto& key : meta.keys) {
                keys << qs(key);
            }
            QCOMPARE(keys, golden["keys"].toVariant().toStringList());
            // The dir is named after the metadata hash.
            QCOMPARE(hash::triton_dir_from_hex(meta.hash), kernel->hash);
            // The PTX entry is the kernel, and names the module it came from.
            QVERIFY(kernel->ptx.has_value());
            QCOMPARE(kernel->ptx->entry, meta.name);
            QVERIFY(kernel->ptx->parameters.size() >= 2);
            QVERIFY(kernel->module_key.starts_with('c'));
            QVERIFY(kernel->has(".cubin"));
            ++checked;
        }
        QCOMPARE(checked, entries);
    }

    void tritonMetadataToleratesWrongTypes() {
        // Found by fuzz_triton_kernel: a field of the wrong type once threw out of the reader.
        auto meta = parse_triton_metadata(
            R"({"name": "k", "launch_pdl": 3, "num_warps": "four", "target": {"arch": [9]}})");
        QVERIFY_RESULT(meta);
        QVERIFY(!meta->launch_pdl);
        QVERIFY(!meta->num_warps.has_value());
        QCOMPARE(meta->arch, "[9]");
        QVERIFY(!parse_triton_metadata(R"({"num_warps": 4})").has_value()); // no name
    }

    void ptxParametersOfTheWorkedExample() {
        // formats.md: the 2c reduction takes two pointers, two i32, two scratch pointers.
        const auto triton = test::fixture("devset/cache/triton/0");
        bool found = false;
        for (const auto& dir : std::filesystem::directory_iterator(triton)) {
            auto kernel = read_triton_kernel_dir(dir.path());
            QVERIFY(kernel.has_value());
            if (kernel->module_key != "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w") {
                continue;
            }
            found = true;
            const auto& params = kernel->ptx->parameters;
            QCOMPARE(params.size(), 6u);
            QVERIFY(params[0].pointer && params[1].pointer && params[4].pointer &&
                    params[5].pointer);
            QCOMPARE(params[2].type, ".u32");
            QCOMPARE(params[2].bytes, 4u);
            QVERIFY(!params[3].pointer);
            QCOMPARE(kernel->ptx->target, "sm_90a");
        }
        QVERIFY(found);
        QVERIFY(!parse_ptx("garbage").has_value());
        // Found by fuzz_triton_kernel: an unknown parameter type is an error, not a size.
        QVERIFY(!parse_ptx(".visible .entry k(\n.param .u99999 k_param_0\n)\n").has_value());
        QVERIFY(!parse_ptx(".visible .entry k(\n.param .u64 k_param_0,\n").has_value());
    }

    void benchmarkCacheParses() {
        const auto file = test::fixture(
            "devset/cache/cache/2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158");
        auto text = read_text_file(file);
        QVERIFY(text.has_value());
        auto cache = parse_benchmark_cache(*text);
        QVERIFY_RESULT(cache);
        QCOMPARE(qs(cache->system_hash), qs(file.filename().string()));
        QCOMPARE(cache->device_name, "NVIDIA H100 80GB HBM3");
        QCOMPARE(cache->other_entries.size(), 6u); // pad_mm timings and decisions
        QVERIFY(!cache->choices.empty());
        for (const auto& choice : cache->choices) {
            QCOMPARE(choice.op, "mm");
            QCOMPARE(choice.precision, "highest");
            QVERIFY(choice.ms > 0);
        }
        const auto& first = cache->choices.front();
        const BenchmarkChoice* best = cache->best(first.op, first.inputs, first.precision);
        QVERIFY(best != nullptr);
        for (const auto& choice : cache->choices) {
            QVERIFY(best->ms <= choice.ms);
        }
        QVERIFY(!parse_benchmark_cache("{\"cache\": {\"mm\": {\"x\": 3}}}").has_value());
        // Nested as deep as a hostile file likes: refused or read, never a crash.
        const std::size_t depth = 200'000;
        const std::string deep =
            "{\"system\": " + std::string(depth, '[') + "Infinity" + std::string(depth, ']') + "}";
        (void)parse_benchmark_cache(deep);
    }
};

QTEST_GUILESS_MAIN(TestCacheEntries)
#include "tst_cache_entries.moc"
