// Will a cache hit on another machine: the environment of a dir made there,
// every entry of a source against it (the devset against itself, against the
// CPU-only cpu_dev, against a machine that differs in GPU, torch, CUDA and
// Triton), and what a source lacks (an AOT entry's graph, a .best_config).

#include "test_paths.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/machine_fingerprint.h>
#include <cachelens/core/child_process.h>
#include <cachelens/explain/preflight.h>

#include <QtTest>

#include <filesystem>

using namespace cachelens;
using namespace cachelens::explain;
namespace fs = std::filesystem;

namespace {

cachedir::Scan scan_of(const fs::path& dir) {
    auto scan = cachedir::scan_cache_dir(dir);
    if (!scan) {
        qFatal("%s", scan.error().describe().c_str());
    }
    return std::move(*scan);
}

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

// A stand-in for the user's Python: a shell script that checks it is run as
// `python -c SCRIPT` from "/" and prints `output` (CI has no torch).
QString stand_in_python(const QTemporaryDir& dir, const QString& output, int exit_code = 0) {
    const QString path = dir.filePath("python-stand-in");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        qFatal("cannot write %s", qPrintable(path));
    }
    file.write(QString("#!/bin/sh\n"
                       "[ \"$1\" = -c ] || exit 9\n"
                       "case \"$2\" in *'import torch'*) ;; *) exit 8 ;; esac\n"
                       "[ \"$(pwd)\" = / ] || exit 7\n"
                       "echo 'torch prints a warning of its own' >&2\n"
                       "cat <<'EOF'\n%1\nEOF\nexit %2\n")
                   .arg(output)
                   .arg(exit_code)
                   .toUtf8());
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

// What the devset's machine says when asked: the debug lines its keys have.
QString devset_machine_output() {
    return R"(some line torch printed
cachelens-fingerprint: {"torch_version": "2.11.0+cu130", "debug_lines": [)"
           R"("[bhbxfhoxf5hkmujdjpm36xihaazrhcnnqhkwzuzb2mhe4uyuamb] torch_version: <bytes>", )"
           R"("[owe5blork7wpk5frnuqge7emkdqmx7mo72yol3al4a5fe6cziir] system_info[device]: )"
           R"({'name': 'NVIDIA H100 80GB HBM3'}", )"
           R"("[mm2c5e5gndez3uirjezzxqr7hd7dorkd7h5vsmetyjlhgksgmn2] system_info[version]: )"
           R"({'triton': '%1', 'cuda': '13.0'}", )"
           R"("[6rab2kq7tm23hqxlkza352r6hgnllt5xrfn5ys2zfu2v6uwgim7] system_info[hash]: )"
           R"(2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158"], )"
           R"("device_types": ["cuda", "cpu"], "triton_targets": ["cuda 90"]})";
}

std::string devset_triton_key() {
    auto devset = cachedir::fingerprint_of_dir(scan_of(test::fixture("devset/cache")));
    if (!devset) {
        qFatal("%s", devset.error().describe().c_str());
    }
    return devset->environment.triton_key;
}

} // namespace

class TestPreflight : public QObject {
    Q_OBJECT

private slots:
    void environmentOfADir() {
        auto devset = cachedir::fingerprint_of_dir(scan_of(test::fixture("devset/cache")));
        QVERIFY_RESULT(devset);
        QCOMPARE(qs(devset->environment.device_name), QString("NVIDIA H100 80GB HBM3"));
        QCOMPARE(qs(devset->environment.cuda_version), QString("13.0"));
        QCOMPARE(qs(devset->environment.triton_version), QString("3.6.0"));
        QCOMPARE(devset->device_types, std::vector<std::string>{"cuda"});
        // The kernels' Triton metadata: Hopper.
        QCOMPARE(devset->triton_targets, std::vector<std::string>{"cuda 90"});
        // The config names whose value differs between the devset's compiles.
        QCOMPARE(devset->varying_config(),
                 (std::vector<std::string>{"coordinate_descent_tuning", "epilogue_fusion",
                                           "max_autotune", "max_fusion_size"}));
        const auto& autotune = devset->inductor_config.at("max_autotune");
        QCOMPARE(autotune.size(), 2u);
        QCOMPARE(qs(autotune[0].text), QString("False")); // the most common first
        QCOMPARE(autotune[0].graphs, 9u);
        QCOMPARE(qs(autotune[1].text), QString("True"));
        QCOMPARE(devset->fx_entries, 10u);
        QCOMPARE(devset->agreeing, 10u);
        auto cpu = cachedir::fingerprint_of_dir(scan_of(test::fixture("cpu_dev/cache")));
        QVERIFY_RESULT(cpu);
        QCOMPARE(cpu->device_types, std::vector<std::string>{"cpu"});
        QVERIFY(cpu->triton_targets.empty()); // C++ kernels
        QVERIFY(cpu->varying_config().empty());

        QTemporaryDir empty;
        auto none = cachedir::fingerprint_of_dir(scan_of(empty.path().toStdString()));
        QVERIFY(!none);
        QCOMPARE(none.error().kind, ErrorKind::NotFound);
        QCOMPARE(qs(none.error().path), empty.path());
        QVERIFY(none.error().message.find("no FX graph entry") != std::string::npos);
    }

    void theDevsetAgainstItselfAndAgainstACpuMachine() {
        const auto devset = scan_of(test::fixture("devset/cache"));
        auto here = cachedir::fingerprint_of_dir(devset);
        QVERIFY_RESULT(here);
        auto same = preflight(preflight_source(devset), *here);
        QVERIFY_RESULT(same);
        QCOMPARE(same->entries.size(), 19u);
        QCOMPARE(same->count(PreflightOutcome::CanHit), 19u);
        QVERIFY(same->incomplete.empty());

        auto cpu = cachedir::fingerprint_of_dir(scan_of(test::fixture("cpu_dev/cache")));
        QVERIFY_RESULT(cpu);
        // The CPU cache was made on the same H100 with the same CUDA, Triton
        // and torch build: its graphs never ran on cuda, which does not say
        // the machine has none. Cannot tell for the device, nothing else.
        auto elsewhere = preflight(preflight_source(devset), *cpu);
        QVERIFY_RESULT(elsewhere);
        QCOMPARE(elsewhere->count(PreflightOutcome::CannotTell), 19u);
        for (const auto& entry : elsewhere->entries) {
            QVERIFY(!entry.reasons.empty());
            QCOMPARE(qs(entry.reasons.front().category), QString("device"));
            QCOMPARE(entry.reasons.front().effect, PreflightOutcome::CannotTell);
            QVERIFY2(entry.reasons.front().text.find(
                         "compiled for cuda; the target's cache holds no cuda graph, which does "
                         "not say the machine has no cuda device") != std::string::npos,
                     entry.reasons.front().text.c_str());
            // Config keys its compiles chose per call are remarks.
            for (const auto& reason : entry.reasons) {
                if (reason.category == "config") {
                    QCOMPARE(reason.effect, PreflightOutcome::CanHit);
                    QVERIFY(reason.text.ends_with(": differs from the target's other compiles "
                                                  "(set per torch.compile call, not by the "
                                                  "machine)"));
                }
            }
        }
        // A fingerprint asked of the machine's Python lists its devices: then
        // a device it lacks is a miss.
        cpu->learnt_from = "python3 (torch 2.11.0+cu130)";
        auto listed = preflight(preflight_source(devset), *cpu);
        QVERIFY_RESULT(listed);
        QCOMPARE(listed->count(PreflightOutcome::WillMiss), 19u);
        QVERIFY(listed->entries.front().reasons.front().text.starts_with(
            "compiled for cuda; the target has cpu only"));
    }

    void aMachineThatDiffersInEverything() {
        const auto devset = scan_of(test::fixture("devset/cache"));
        auto target = cachedir::fingerprint_of_dir(devset);
        QVERIFY_RESULT(target);
        target->environment.device_name = "NVIDIA A100-SXM4-80GB";
        target->environment.torch_build = "zzzzzzzzzz";
        target->environment.cuda_version = "12.8";
        target->environment.triton_key += "-another-build";
        target->environment.system_hash = "0";
        auto checked = preflight(preflight_source(devset), *target);
        QVERIFY_RESULT(checked);
        QCOMPARE(checked->count(PreflightOutcome::WillMiss), 19u);
        const auto& fx = checked->entries.front();
        QCOMPARE(fx.kind, cachedir::FileKind::FxGraph);
        QStringList reasons;
        for (const auto& reason : fx.reasons) {
            reasons << qs(reason.category + ": " + reason.text);
        }
        QCOMPARE(reasons, (QStringList{
                              "device: GPU: NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB",
                              "environment: torch build differs (bhbxfhox -> zzzzzzzz)",
                              "environment: CUDA 13.0 -> 12.8",
                              "environment: Triton build differs (3.6.0 on both)",
                          }));
        // An AOT entry speaks for its graphs.
        const auto aot = std::ranges::find_if(checked->entries, [](const auto& entry) {
            return entry.kind == cachedir::FileKind::AotAutograd;
        });
        QVERIFY(aot != checked->entries.end());
        QVERIFY(aot->reasons.front().text.starts_with("forward graph: GPU: ") ||
                aot->reasons.front().text.starts_with("backward graph: GPU: "));

        // Only the system hash: said as such.
        auto only_hash = cachedir::fingerprint_of_dir(devset);
        QVERIFY_RESULT(only_hash);
        only_hash->environment.system_hash = "0";
        auto hashed = preflight(preflight_source(devset), *only_hash);
        QVERIFY_RESULT(hashed);
        QCOMPARE(qs(hashed->entries.front().reasons.at(0).text),
                 QString("system_info hash differs"));
    }

    // A target made by a release whose keys record no machine (PyTorch 2.7
    // and older): never "-> none"; its files' facts decide, and what they do
    // not say is said as not comparable.
    void aTargetWhoseKeysRecordNoMachine() {
        const auto devset = scan_of(test::fixture("devset/cache"));
        auto target = cachedir::fingerprint_of_dir(devset);
        QVERIFY_RESULT(target);
        target->environment = {}; // as a 2.7 cache's keys leave it
        target->inductor_config.clear();
        target->triton_targets = {"cuda 86"};
        target->triton_versions = {"3.3.0"};
        target->gpu_names = {"NVIDIA GeForce RTX 3090"};
        auto checked = preflight(preflight_source(devset), *target);
        QVERIFY_RESULT(checked);
        for (const auto& entry : checked->entries) {
            for (const auto& reason : entry.reasons) {
                QVERIFY2(reason.text.find("none") == std::string::npos, reason.text.c_str());
            }
        }
        const auto& fx = checked->entries.front();
        QCOMPARE(fx.outcome, PreflightOutcome::WillMiss);
        QStringList reasons;
        for (const auto& reason : fx.reasons) {
            reasons << qs(reason.category + ": " + reason.text);
        }
        QCOMPARE(reasons.value(0),
                 QString("device: GPU arch sm90 -> sm86 (its kernels' Triton target against the "
                         "target's)"));
        QCOMPARE(reasons.value(1),
                 QString("environment: Triton 3.6.0 -> 3.3.0 (as each cache records it)"));
        // The same machine as far as its files say: cannot tell, and why.
        target->triton_targets = {"cuda 90"};
        target->triton_versions = {"3.6.0"};
        target->gpu_names = {"NVIDIA H100 80GB HBM3"};
        auto same = preflight(preflight_source(devset), *target);
        QVERIFY_RESULT(same);
        const auto& reason = same->entries.front().reasons.back();
        QCOMPARE(same->entries.front().outcome, PreflightOutcome::CannotTell);
        QVERIFY2(reason.text.starts_with("the target's cache records no system info in its keys"),
                 reason.text.c_str());
        // The devset's benchmark cache names CUDA 13.0, as the keys do: compared.
        QVERIFY2(reason.text.ends_with(": both say GPU arch sm90, GPU NVIDIA H100 80GB HBM3, "
                                       "Triton 3.6.0, CUDA 13.0; the torch build cannot be "
                                       "compared"),
                 reason.text.c_str());
    }

    void whatASourceLacks() {
        QTemporaryDir temp;
        const fs::path dir = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), dir);
        // The training compile's forward graph, and a kernel's best config.
        fs::remove_all(dir / "fxgraph/lg/flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e");
        fs::remove(dir / "2c/1d478d3f71f84b06d156f2b3d8b027fb6d1f8b2d5491a0dc74571852450c7051"
                         ".best_config");
        const auto source = scan_of(dir);
        auto target = cachedir::fingerprint_of_dir(source);
        QVERIFY_RESULT(target);
        auto checked = preflight(preflight_source(source), *target);
        QVERIFY_RESULT(checked);
        QStringList gaps;
        for (const auto& gap : checked->incomplete) {
            gaps << qs(std::string(cachedir::to_string(gap.kind)) + " " + gap.key.substr(0, 8) +
                       ": " + gap.text);
        }
        QVERIFY2(gaps.contains("aotautograd azz63xek: its forward graph "
                               "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e is not in "
                               "the cache: it can never hit"),
                 qPrintable(gaps.join('\n')));
        QVERIFY2(std::ranges::any_of(gaps,
                                     [](const QString& gap) {
                                         return gap.contains(
                                                    "fxgraph f3gunfwv: the .best_config of "
                                                    "triton_red_fused_mul_sqrt_sum_0 (2c/") &&
                                                gap.endsWith("autotuning runs again there");
                                     }),
                 qPrintable(gaps.join('\n')));
        const auto aot = std::ranges::find_if(
            checked->entries, [](const auto& entry) { return entry.key.starts_with("azz63xek"); });
        QVERIFY(aot != checked->entries.end());
        QCOMPARE(aot->outcome, PreflightOutcome::WillMiss);
    }

    // An entry compiled with a config the target's compiles never used.
    void aConfigTheTargetNeverUses() {
        const auto devset = scan_of(test::fixture("devset/cache"));
        auto target = cachedir::fingerprint_of_dir(devset);
        QVERIFY_RESULT(target);
        // The target compiles everything with max_autotune False only: a
        // mode chosen per torch.compile call, not by the machine.
        auto& autotune = target->inductor_config.at("max_autotune");
        autotune.erase(autotune.begin() + 1);
        auto checked = preflight(preflight_source(devset), *target);
        QVERIFY_RESULT(checked);
        QCOMPARE(checked->count(PreflightOutcome::CanHit), 19u);
        const auto remarked = std::ranges::find_if(checked->entries, [](const auto& entry) {
            return entry.kind == cachedir::FileKind::FxGraph && !entry.reasons.empty();
        });
        QVERIFY(remarked != checked->entries.end());
        QCOMPARE(remarked->reasons.size(), 1u);
        QCOMPARE(remarked->reasons[0].effect, PreflightOutcome::CanHit);
        QCOMPARE(qs(remarked->reasons[0].category + ": " + remarked->reasons[0].text),
                 QString("config: max_autotune True -> False: differs from the target's other "
                         "compiles (set per torch.compile call, not by the machine)"));
        QVERIFY(checked->config_compared);
        QCOMPARE(qs(checked->answer()),
                 QString("19 of 19 entries can hit on the target; 0 will miss, 0 cannot tell"));

        // A key the environment sets (TORCHINDUCTOR_BENCHMARK_KERNEL) is the
        // machine's: the graph and its AOT entry will miss.
        QVERIFY(is_environment_config("benchmark_kernel"));
        QVERIFY(!is_environment_config("max_autotune"));
        QVERIFY(!is_environment_config("epilogue_fusion")); // only a program sets it
        auto& benchmark = target->inductor_config.at("benchmark_kernel");
        QCOMPARE(benchmark.size(), 1u);
        benchmark.front().hash = "another";
        benchmark.front().text = "False";
        auto environment = preflight(preflight_source(devset), *target);
        QVERIFY_RESULT(environment);
        QCOMPARE(environment->count(PreflightOutcome::WillMiss), 19u);
        const auto& reasons = environment->entries.front().reasons;
        QVERIFY(std::ranges::any_of(reasons, [](const PreflightReason& reason) {
            return reason.text == "benchmark_kernel True -> False" &&
                   reason.effect == PreflightOutcome::WillMiss;
        }));

        // A target whose config is not known judges the environment only.
        target->inductor_config.clear();
        auto unknown = preflight(preflight_source(devset), *target);
        QVERIFY_RESULT(unknown);
        QVERIFY(!unknown->config_compared);
        QCOMPARE(unknown->count(PreflightOutcome::CanHit), 19u);
    }

    // The devset's mega-cache bundle, read in place: cannot tell against a
    // CPU cache for its device, can hit where it was made.
    void aBundleAsTheSource() {
        auto file = bundle::open_bundle_file(test::fixture("devset/mega_mlp_train.bin"));
        QVERIFY_RESULT(file);
        const auto source = preflight_source(file->bundle, "mega_mlp_train.bin");
        QCOMPARE(source.graphs.size(), 3u);
        QCOMPARE(source.graphs.front().kind, cachedir::FileKind::FxGraph);
        QVERIFY(source.graphs.front().path.starts_with("fxgraph/lg/flgtecy7im"));
        QVERIFY(source.graphs.front().file.empty());

        auto cpu = cachedir::fingerprint_of_dir(scan_of(test::fixture("cpu_dev/cache")));
        QVERIFY_RESULT(cpu);
        auto elsewhere = preflight(source, *cpu);
        QVERIFY_RESULT(elsewhere);
        QCOMPARE(elsewhere->count(PreflightOutcome::CannotTell), 3u);
        for (const auto& entry : elsewhere->entries) {
            QCOMPARE(qs(entry.reasons.front().category), QString("device"));
        }
        // Exported without its forward graph: the AOT entry can never hit.
        bundle::MegaBundle partial = file->bundle;
        for (auto& section : partial.sections) {
            std::erase_if(section.artifacts, [](const bundle::MegaArtifact& artifact) {
                return artifact.key.starts_with("flgtecy7im");
            });
        }
        auto lacking = preflight(preflight_source(partial, "partial.bin"), *cpu);
        QVERIFY_RESULT(lacking);
        QCOMPARE(lacking->entries.size(), 2u);
        QCOMPARE(lacking->incomplete.size(), 1u);
        QCOMPARE(qs(lacking->incomplete[0].text),
                 QString("its forward graph flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e "
                         "is not in the cache: it can never hit"));

        auto here = explain::preflight_against(source, test::fixture("devset/cache"));
        QVERIFY_RESULT(here);
        QCOMPARE(here->report.count(PreflightOutcome::CanHit), 3u);
        QCOMPARE(qs(here->target.environment.device_name), QString("NVIDIA H100 80GB HBM3"));
    }

    // Graphs with dynamic shapes and no PGO profile: a note, not a gap
    // (dynamic=True needs none).
    void dynamicGraphsWithoutAProfile() {
        const auto devset = scan_of(test::fixture("devset/cache"));
        auto target = cachedir::fingerprint_of_dir(devset);
        QVERIFY_RESULT(target);
        auto source = preflight_source(devset);
        QCOMPARE(source.pgo_profiles, 0u);
        auto checked = preflight(source, *target);
        QVERIFY_RESULT(checked);
        QCOMPARE(checked->notes.size(), 1u);
        QVERIFY2(checked->notes[0].starts_with("3 graphs take dynamic shapes and there is no PGO "
                                               "profile"),
                 checked->notes[0].c_str());
        QVERIFY(checked->all_can_hit());
        source.pgo_profiles = 1;
        auto profiled = preflight(source, *target);
        QVERIFY_RESULT(profiled);
        QVERIFY(profiled->notes.empty());
    }

    void aFingerprintRoundTripsThroughJson() {
        auto devset = cachedir::fingerprint_of_dir(scan_of(test::fixture("devset/cache")));
        QVERIFY_RESULT(devset);
        const std::string json = cachedir::to_json(*devset);
        auto back = cachedir::fingerprint_from_json(json, "env.json");
        QVERIFY_RESULT(back);
        QVERIFY(back->environment == devset->environment);
        QCOMPARE(back->device_types, devset->device_types);
        QCOMPARE(back->triton_targets, devset->triton_targets);
        QCOMPARE(back->varying_config(), devset->varying_config());
        QCOMPARE(back->inductor_config.size(), devset->inductor_config.size());
        QCOMPARE(back->fx_entries, 10u);
        QCOMPARE(qs(cachedir::to_json(*back)), qs(json));
    }

    void aFileThatIsNoFingerprint_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("not json") << "{\"cachelens_fingerprint\": 1,"
                                  << "not a JSON object";
        QTest::newRow("another file") << R"({"entries": []})"
                                      << "not a fingerprint";
        QTest::newRow("a newer format") << R"({"cachelens_fingerprint": 2})"
                                        << "fingerprint format 2";
        QTest::newRow("no environment") << R"({"cachelens_fingerprint": 1})"
                                        << "'environment' is not an object";
        QTest::newRow("a number for a name")
            << R"({"cachelens_fingerprint": 1, "environment": {"device_name": 7}})"
            << "'device_name' is not a string";
        QTest::newRow("devices not a list")
            << R"({"cachelens_fingerprint": 1, "environment": {}, "device_types": "cuda"})"
            << "'device_types' is not a list";
        QTest::newRow("a config value without a hash")
            << R"({"cachelens_fingerprint": 1, "environment": {"cuda": "13.0"},)"
               R"( "inductor_config": {"debug": [{"value": "False", "graphs": 1}]}})"
            << "inductor_config 'debug': a value without a hash";
        QTest::newRow("nothing in it")
            << R"({"cachelens_fingerprint": 1, "environment": {}, "device_types": []})"
            << "names no environment, no device and no machine fact";
    }

    void aFileThatIsNoFingerprint() {
        QFETCH(QString, json);
        QFETCH(QString, error);
        auto read = cachedir::fingerprint_from_json(json.toStdString(), "env.json");
        QVERIFY(!read);
        QCOMPARE(qs(read.error().path), QString("env.json"));
        QVERIFY2(qs(read.error().message).contains(error), read.error().message.c_str());
    }

    // `cachelens env` asks the user's Python; here a stand-in answers as the
    // devset's machine would. What it says is what the devset's keys say.
    void thisMachineAskedThroughPython() {
        QTemporaryDir temp;
        const QString python =
            stand_in_python(temp, devset_machine_output().arg(qs(devset_triton_key())));
        auto machine =
            cachedir::fingerprint_from_python(python.toStdString(), std::chrono::seconds(30));
        QVERIFY_RESULT(machine);
        QCOMPARE(qs(machine->torch_version), QString("2.11.0+cu130"));
        QCOMPARE(machine->device_types, (std::vector<std::string>{"cpu", "cuda"}));
        QCOMPARE(machine->triton_targets, std::vector<std::string>{"cuda 90"});
        QVERIFY(machine->inductor_config.empty());
        auto devset = cachedir::fingerprint_of_dir(scan_of(test::fixture("devset/cache")));
        QVERIFY_RESULT(devset);
        QVERIFY(machine->environment == devset->environment);
        QCOMPARE(qs(machine->describe()), QString("NVIDIA H100 80GB HBM3 (sm90), CUDA 13.0, "
                                                  "Triton 3.6.0, torch build bhbxfhox, torch "
                                                  "2.11.0+cu130"));
        auto checked =
            preflight(preflight_source(scan_of(test::fixture("devset/cache"))), *machine);
        QVERIFY_RESULT(checked);
        QCOMPARE(checked->count(PreflightOutcome::CanHit), 19u);
        // The script PyTorch runs hashes what FxGraphHashDetails hashes.
        const std::string_view script = cachedir::fingerprint_script();
        QVERIFY(script.find("codecache.torch_key()") != std::string_view::npos);
        QVERIFY(script.find("CacheBase.get_system()") != std::string_view::npos);
    }

    void aPythonThatCannotSay_data() {
        QTest::addColumn<QString>("output");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("error");
        QTest::newRow("no torch")
            << R"(cachelens-fingerprint: {"error": "cannot import torch: ModuleNotFoundError: x"})"
            << 3 << "cannot import torch: ModuleNotFoundError: x";
        QTest::newRow("nothing printed") << "" << 1
                                         << "exited 1 without printing a fingerprint: "
                                            "torch prints a warning of its own";
        QTest::newRow("not json") << "cachelens-fingerprint: {oops" << 0
                                  << "without printing a fingerprint";
        QTest::newRow("lines not a list")
            << R"(cachelens-fingerprint: {"debug_lines": 1, "torch_version": "2"})" << 0
            << "its 'debug_lines' is not a list";
        QTest::newRow("no torch build")
            << R"(cachelens-fingerprint: {"debug_lines": [], "device_types": [], )"
               R"("triton_targets": [], "torch_version": "2"})"
            << 0 << "its debug lines name no torch build";
    }

    void aPythonThatCannotSay() {
        QFETCH(QString, output);
        QFETCH(int, exitCode);
        QFETCH(QString, error);
        QTemporaryDir temp;
        const QString python = stand_in_python(temp, output, exitCode);
        auto machine =
            cachedir::fingerprint_from_python(python.toStdString(), std::chrono::seconds(30));
        QVERIFY(!machine);
        QCOMPARE(qs(machine.error().path), python);
        QVERIFY2(qs(machine.error().message).contains(error), machine.error().message.c_str());
        auto missing =
            cachedir::fingerprint_from_python("/nonexistent/python3", std::chrono::seconds(30));
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, ErrorKind::NotFound);
    }

    // The child process runner under the fingerprint: its limits hold.
    void aChildProcessKeepsToItsLimits() {
        const std::vector<std::string> echo = {"/bin/sh", "-c", "pwd; echo err >&2; exit 4"};
        auto ran = run_child(echo);
        QVERIFY_RESULT(ran);
        QCOMPARE(ran->exit_code, 4);
        QCOMPARE(qs(ran->out), QString("/\n")); // run from "/"
        QCOMPARE(qs(ran->err), QString("err\n"));

        ChildLimits quick;
        quick.timeout = std::chrono::milliseconds(300);
        const std::vector<std::string> sleeper = {"/bin/sh", "-c", "sleep 30"};
        auto slow = run_child(sleeper, quick);
        QVERIFY(!slow);
        QCOMPARE(slow.error().kind, ErrorKind::LimitExceeded);

        ChildLimits stop;
        int asked = 0;
        stop.keep_going = [&] {
            return ++asked < 3;
        };
        auto stopped = run_child(sleeper, stop);
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, ErrorKind::Cancelled);

        ChildLimits small;
        small.max_output = 10;
        const std::vector<std::string> chatty = {"/bin/sh", "-c", "yes | head -c 100000"};
        auto capped = run_child(chatty, small);
        QVERIFY_RESULT(capped);
        QCOMPARE(capped->out.size(), 10u);
        QCOMPARE(capped->exit_code, 0);
    }
};

QTEST_GUILESS_MAIN(TestPreflight)
#include "tst_preflight.moc"
