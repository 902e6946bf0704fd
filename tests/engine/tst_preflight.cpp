// Will a cache hit on another machine: the environment of a dir made there,
// every entry of a source against it (the devset against itself, against the
// CPU-only cpu_dev, against a machine that differs in GPU, torch, CUDA and
// Triton), and what a source lacks (an AOT entry's graph, a .best_config).

#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
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

} // namespace

class TestPreflight : public QObject {
    Q_OBJECT

private slots:
    void environmentOfADir() {
        auto devset = environment_of_dir(scan_of(test::fixture("devset/cache")));
        QVERIFY_RESULT(devset);
        QCOMPARE(qs(devset->environment.device_name), QString("NVIDIA H100 80GB HBM3"));
        QCOMPARE(devset->device_types, std::vector<std::string>{"cuda"});
        QCOMPARE(devset->fx_entries, 10u);
        QCOMPARE(devset->agreeing, 10u);
        auto cpu = environment_of_dir(scan_of(test::fixture("cpu_dev/cache")));
        QVERIFY_RESULT(cpu);
        QCOMPARE(cpu->device_types, std::vector<std::string>{"cpu"});

        QTemporaryDir empty;
        auto none = environment_of_dir(scan_of(empty.path().toStdString()));
        QVERIFY(!none);
        QCOMPARE(none.error().kind, ErrorKind::NotFound);
        QCOMPARE(qs(none.error().path), empty.path());
        QVERIFY(none.error().message.find("no FX graph entry") != std::string::npos);
    }

    void theDevsetAgainstItselfAndAgainstACpuMachine() {
        const auto devset = scan_of(test::fixture("devset/cache"));
        auto here = environment_of_dir(devset);
        QVERIFY_RESULT(here);
        auto same = preflight(devset, *here);
        QVERIFY_RESULT(same);
        QCOMPARE(same->entries.size(), 19u);
        QCOMPARE(same->count(PreflightOutcome::CanHit), 19u);
        QVERIFY(same->incomplete.empty());

        auto cpu = environment_of_dir(scan_of(test::fixture("cpu_dev/cache")));
        QVERIFY_RESULT(cpu);
        auto elsewhere = preflight(devset, *cpu);
        QVERIFY_RESULT(elsewhere);
        QCOMPARE(elsewhere->count(PreflightOutcome::WillMiss), 19u);
        for (const auto& entry : elsewhere->entries) {
            QVERIFY(!entry.reasons.empty());
            QCOMPARE(qs(entry.reasons.front().category), QString("device"));
            QVERIFY2(entry.reasons.front().text.find(
                         "compiled for cuda; the target's graphs were compiled for cpu only") !=
                         std::string::npos,
                     entry.reasons.front().text.c_str());
        }
    }

    void aMachineThatDiffersInEverything() {
        const auto devset = scan_of(test::fixture("devset/cache"));
        auto target = environment_of_dir(devset);
        QVERIFY_RESULT(target);
        target->environment.device_name = "NVIDIA A100-SXM4-80GB";
        target->environment.torch_build = "zzzzzzzzzz";
        target->environment.cuda_version = "12.8";
        target->environment.triton_key += "-another-build";
        target->environment.system_hash = "0";
        auto checked = preflight(devset, *target);
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
        auto only_hash = environment_of_dir(devset);
        QVERIFY_RESULT(only_hash);
        only_hash->environment.system_hash = "0";
        auto hashed = preflight(devset, *only_hash);
        QVERIFY_RESULT(hashed);
        QCOMPARE(qs(hashed->entries.front().reasons.at(0).text),
                 QString("system_info hash differs"));
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
        auto target = environment_of_dir(source);
        QVERIFY_RESULT(target);
        auto checked = preflight(source, *target);
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
};

QTEST_GUILESS_MAIN(TestPreflight)
#include "tst_preflight.moc"
