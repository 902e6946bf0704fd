// Import safety end to end (issue #17, docs/SECURITY.md): what PyTorch would
// run from a bundle gets a verdict before anything is written.
//
// Every entry of every real cache we have is "data only" or "Inductor code".
// The hostile entries are real fixture entries with one line changed in
// place (same length, so the pickle stays valid for PyTorch too): they name
// only PyTorch's own globals, and still carry code PyTorch would run — a
// wrapper calling os.system, a Triton kernel string hiding __import__, a
// GraphModule that execs, a CPU kernel's C++ calling system(). Each is
// refused with its finding (file, line, text, rule) and nothing is written;
// --allow-code with the finding's id, or a signature from a trusted key, lets
// it in; a wrong id is an error. The code never runs: the marker file each
// would create never appears.

#include "hostile_entries.h"
#include "test_paths.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/bundle/export.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/safety/pickle_policy.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>

using namespace cachelens;
using test::fixture_entry;
using test::FixtureEntry;
using test::kWrapperEntry;
using test::read_bytes;
using test::replace_line;
using test::write_bytes;
namespace fs = std::filesystem;

namespace {

const std::string kCpuEntry =
    "cpu_dev/cache/fxgraph/bs/fbsetkgshductsqall6jpf2scss325b5a4tknlely2yjllovzj4r";

// The devset AOT entry that keeps a GraphModule (its backward) for PyTorch
// to exec, and where that code starts in the pickle.
const std::string kGraphModuleEntry =
    "devset/cache/aotautograd/azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i";

std::size_t graph_module_code_at(const std::string& content) {
    auto document = pickle::unpickle(content);
    if (!document) {
        qFatal("%s", document.error().describe().c_str());
    }
    const auto check = safety::check_pickle(**document, safety::PickleSchema::Entry);
    if (check.code.size() != 1) {
        qFatal("expected one GraphModule, got %zu", check.code.size());
    }
    // The last copy: the entry's debug strings (the backward graph as text)
    // hold the same text earlier, and PyTorch never runs those.
    const auto at = content.rfind(check.code.front().source);
    if (at == std::string::npos) {
        qFatal("the GraphModule's code is not stored as one string");
    }
    return at;
}

bundle::MegaBundle one_artifact(std::string type, std::string key, std::string content) {
    bundle::MegaBundle bundle;
    bundle.sections.push_back({std::move(type), {{std::move(key), std::move(content)}}});
    return bundle;
}

const bundle::PlannedArtifact& only(const bundle::ImportPlan& plan) {
    if (plan.artifacts.size() != 1) {
        qFatal("expected one planned artifact, got %zu", plan.artifacts.size());
    }
    return plan.artifacts.front();
}

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// A hostile entry and what its one finding must be.
struct Hostile {
    const char* name;
    std::string type;
    FixtureEntry entry;
    std::string rule;
    std::string file;
    std::size_t line = 0;
    std::string text; // a part of the finding's text
};

} // namespace

class TestImportSafety : public QObject {
    Q_OBJECT

    QTemporaryDir scratch_;
    std::string marker_; // what each hostile line would create, were it ever run

    // The devset wrapper with a line PyTorch would run at import.
    Hostile wrapper_calling_os_system() {
        auto [entry, line] = test::wrapper_calling_os_system(marker_);
        return {"wrapper", "inductor",         entry, "call-outside-vocabulary", "source_code",
                line,      "os.system('touch "};
    }

    // A Triton kernel's source string inside the wrapper, which PyTorch
    // imports and compiles: its set_driver_to_gpu() call becomes __import__.
    Hostile kernel_hiding_import() {
        FixtureEntry entry = fixture_entry(kWrapperEntry);
        const auto source = entry.content.find("# AOT ID:");
        const auto kernel = entry.content.find("async_compile.triton(");
        const auto line = replace_line(entry.content, source, "triton_helpers.set_driver_to_gpu()",
                                       "__import__('os').getcwd()", kernel);
        return {"kernel", "inductor", entry, "dynamic-code", "", line, "__import__('os')"};
    }

    // A GraphModule's code, which reduce_graph_module execs.
    Hostile graph_module_exec() {
        FixtureEntry entry = fixture_entry(kGraphModuleEntry);
        const auto code = graph_module_code_at(entry.content);
        replace_line(entry.content, code, "torch.ops.aten.", "exec('import os')", code);
        // Its lines count from the import block PyTorch puts before it: not checked here.
        return {"graph module", "aot_autograd", entry, "dynamic-code", "graph module 0", 0,
                "exec("};
    }

    // A CPU kernel's C++, which PyTorch compiles and loads.
    Hostile cpp_calling_system() {
        FixtureEntry entry = fixture_entry(kCpuEntry);
        const auto source = entry.content.find("# AOT ID:");
        const auto line =
            replace_line(entry.content, source, "#include <torch/csrc/inductor/cpp_prefix.h>",
                         "static int x = system(\"id\");");
        return {"C++", "inductor", entry, "cpp-call", "", line, "system("};
    }

    std::vector<Hostile> hostile_entries() {
        return {wrapper_calling_os_system(), kernel_hiding_import(), graph_module_exec(),
                cpp_calling_system()};
    }

private slots:
    void initTestCase() {
        QVERIFY(scratch_.isValid());
        marker_ = scratch_.path().toStdString() + "/ran";
    }

    void everyRealEntryIsDataOrInductorCode() {
        for (const char* dir : {"devset/cache", "cpu_dev/cache", "multi_dev/cache"}) {
            auto scan = cachedir::scan_cache_dir(test::fixture(dir));
            QVERIFY_RESULT(scan);
            auto verdicts = bundle::judge_cache_dir(*scan);
            QVERIFY_RESULT(verdicts);
            QVERIFY(!verdicts->empty());
            for (const auto& file : *verdicts) {
                QVERIFY2(file.check.verdict == safety::Verdict::DataOnly ||
                             file.check.verdict == safety::Verdict::InductorCode,
                         (file.path + ": " + std::string(safety::to_string(file.check.verdict)))
                             .c_str());
                QVERIFY2(file.check.findings.empty(), file.path.c_str());
            }
            // Exported and imported again: nothing refused, every artifact judged.
            auto exported = bundle::export_bundle(test::fixture(dir));
            QVERIFY_RESULT(exported);
            QTemporaryDir into;
            auto plan = bundle::plan_import(exported->bundle, into.path().toStdString());
            QVERIFY_RESULT(plan);
            QCOMPARE(plan->count(bundle::ImportAction::Refused), std::size_t{0});
            const auto code = std::ranges::count(plan->artifacts, safety::Verdict::InductorCode,
                                                 [](const auto& a) { return a.check.verdict; });
            QVERIFY2(code > 0, dir);
        }
        auto sample = cachedir::scan_cache_dir(test::sample_cache());
        QVERIFY_RESULT(sample);
        auto verdicts = bundle::judge_cache_dir(*sample);
        QVERIFY_RESULT(verdicts);
        for (const auto& file : *verdicts) {
            QVERIFY2(file.check.findings.empty(), file.path.c_str());
        }
    }

    void hostileCodeIsRefusedWithItsFinding() {
        for (const auto& hostile : hostile_entries()) {
            QTemporaryDir temp;
            const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
            const auto bundle =
                one_artifact(hostile.type, hostile.entry.key, hostile.entry.content);
            auto plan = bundle::plan_import(bundle, cache);
            QVERIFY_RESULT(plan);
            const auto& artifact = only(*plan);
            QVERIFY2(artifact.action == bundle::ImportAction::Refused, hostile.name);
            QVERIFY(artifact.check.verdict == safety::Verdict::CodeWithFindings);
            QVERIFY(artifact.check.consent == safety::CodeConsent::Refused);
            QVERIFY2(artifact.check.readable, hostile.name);
            std::string all;
            for (const auto& f : artifact.check.findings) {
                all += f.rule + " " + safety::location(f) + ": " + f.text + "\n";
            }
            QVERIFY2(artifact.check.findings.size() == 1, all.c_str());
            const auto& finding = artifact.check.findings.front();
            QCOMPARE(qs(finding.rule), qs(hostile.rule));
            if (!hostile.file.empty()) {
                QCOMPARE(qs(finding.file), qs(hostile.file));
            }
            if (hostile.line != 0) {
                QCOMPARE(finding.line, hostile.line);
            }
            QVERIFY2(finding.text.find(hostile.text) != std::string::npos, finding.text.c_str());
            QVERIFY(finding.id.size() == 13 && finding.id[0] == 'F');

            const auto done = bundle::run_import(std::move(*plan), bundle);
            QCOMPARE(only(done).action, bundle::ImportAction::Refused);
            QVERIFY2(!fs::exists(cache), hostile.name); // nothing written, not even the dir
        }
        QVERIFY(!fs::exists(marker_)); // and nothing ran
    }

    void allowedFindingsLetItIn() {
        for (const auto& hostile : hostile_entries()) {
            QTemporaryDir temp;
            const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
            const auto bundle =
                one_artifact(hostile.type, hostile.entry.key, hostile.entry.content);
            const auto first = bundle::plan_import(bundle, cache);
            QVERIFY_RESULT(first);
            QVERIFY2(!only(*first).check.findings.empty(), hostile.name);
            const auto id = only(*first).check.findings.front().id;

            const bundle::ImportRules rules{
                .max_artifact_bytes = bundle::ImportRules{}.max_artifact_bytes,
                .trust = {.allowed_ids = {id}, .signed_by_trusted_key = false}};
            auto plan = bundle::plan_import(bundle, cache, rules);
            QVERIFY_RESULT(plan);
            QVERIFY2(only(*plan).action == bundle::ImportAction::Write, hostile.name);
            QVERIFY(only(*plan).check.consent == safety::CodeConsent::AllowedByUser);
            QVERIFY(bundle::unknown_finding_ids(*plan, rules).empty());
            const auto done = bundle::run_import(std::move(*plan), bundle);
            QCOMPARE(only(done).action, bundle::ImportAction::Written);
            QCOMPARE(read_bytes(cache / only(done).check.destination), hostile.entry.content);

            const bundle::ImportRules other{
                .max_artifact_bytes = bundle::ImportRules{}.max_artifact_bytes,
                .trust = {.allowed_ids = {"F000000000000"}, .signed_by_trusted_key = false}};
            auto refused = bundle::plan_import(bundle, cache / "other", other);
            QVERIFY_RESULT(refused);
            QCOMPARE(only(*refused).action, bundle::ImportAction::Refused);
            QCOMPARE(bundle::unknown_finding_ids(*refused, other),
                     std::vector<std::string>{"F000000000000"});
        }
        QVERIFY(!fs::exists(marker_));
    }

    void hostilePicklesAreRefused() {
        // Only PyTorch's classes, used as PyTorch never does.
        const auto key = fixture_entry(kWrapperEntry).key;
        for (const auto& [file, rule] : std::vector<std::pair<std::string, std::string>>{
                 {"getattr_dunder.pkl", "pickle-getattr"},
                 {"enum_with_callable.pkl", "pickle-enum"}}) {
            QTemporaryDir temp;
            const auto content = read_bytes(test::test_data("pickles/policy/" + file));
            auto plan = bundle::plan_import(one_artifact("inductor", key, content),
                                            fs::path(temp.path().toStdString()) / "cache");
            QVERIFY_RESULT(plan);
            QCOMPARE(only(*plan).action, bundle::ImportAction::Refused);
            QVERIFY(only(*plan).check.verdict == safety::Verdict::CodeWithFindings);
            const auto& findings = only(*plan).check.findings;
            QVERIFY2(std::ranges::any_of(findings, [&](const auto& f) { return f.rule == rule; }),
                     file.c_str());
        }
    }

    void aTrustedSignatureLetsCodeIn() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        const auto pair = bundle::write_key_pair(dir / "team.key", dir / "team.pub");
        QVERIFY2(pair.has_value(), pair ? "" : pair.error().describe().c_str());
        auto key = bundle::load_private_key(dir / "team.key");
        QVERIFY_RESULT(key);
        const Hostile hostile = wrapper_calling_os_system();
        const auto mega = bundle::encode_mega_cache(
            one_artifact(hostile.type, hostile.entry.key, hostile.entry.content));
        auto signed_bytes = bundle::sign_bundle(mega, *key);
        QVERIFY_RESULT(signed_bytes);
        write_bytes(dir / "signed.bin", *signed_bytes);

        // Without the key the finding refuses it; with it, it is let in.
        const QString cache = QString::fromStdString((dir / "cache").string());
        const auto refused = test::run_cli(
            {"import", QString::fromStdString((dir / "signed.bin").string()), "--into", cache});
        QCOMPARE(refused.exit_code, 1);
        QVERIFY(!fs::exists(dir / "cache"));
        const auto trusted = test::run_cli(
            {"import", QString::fromStdString((dir / "signed.bin").string()), "--into", cache,
             "--require-signature", QString::fromStdString((dir / "team.pub").string())});
        QCOMPARE(trusted.exit_code, 0);
        QVERIFY2(trusted.out.contains("code with findings (let in: signed by the key you trust)"),
                 trusted.out.constData());
        QVERIFY(!fs::exists(marker_));
    }

    void cliShowsVerdictsAndAllowsById() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        const Hostile hostile = wrapper_calling_os_system();
        const fs::path file = dir / "hostile.bin";
        write_bytes(file, bundle::encode_mega_cache(one_artifact(hostile.type, hostile.entry.key,
                                                                 hostile.entry.content)));
        const QString bundle_path = QString::fromStdString(file.string());
        const QString cache = QString::fromStdString((dir / "cache").string());

        const auto json = test::run_cli({"import", bundle_path, "--into", cache, "--json"});
        QCOMPARE(json.exit_code, 1);
        const auto artifact =
            QJsonDocument::fromJson(json.out).object()["artifacts"].toArray()[0].toObject();
        QCOMPARE(artifact["verdict"].toString(), QString("code-with-findings"));
        QCOMPARE(artifact["action"].toString(), QString("refused"));
        const auto finding = artifact["findings"].toArray()[0].toObject();
        QCOMPARE(finding["file"].toString(), QString("source_code"));
        QCOMPARE(finding["line"].toInt(), int(hostile.line));
        QCOMPARE(finding["rule"].toString(), QString("call-outside-vocabulary"));
        QVERIFY(finding["text"].toString().contains("os.system('touch "));
        const QString id = finding["id"].toString();

        const auto text = test::run_cli({"import", bundle_path, "--into", cache, "--dry-run"});
        QVERIFY2(text.out.contains(
                     (id + " source_code:" + QString::number(hostile.line) + ": os.system('touch ")
                         .toUtf8()),
                 text.out.constData());
        QVERIFY2(text.out.contains("verdicts: 0 data only, 0 Inductor code, 1 code with findings"),
                 text.out.constData());

        const auto ls = test::run_cli({"bundle", "ls", bundle_path});
        QCOMPARE(ls.exit_code, 0);
        QVERIFY2(ls.out.contains(id.toUtf8()) && ls.out.contains("code with findings"),
                 ls.out.constData());

        // A mistyped id: an error, and nothing written.
        const auto typo = test::run_cli(
            {"import", bundle_path, "--into", cache, "--allow-code", "F0123456789ab"});
        QCOMPARE(typo.exit_code, 2);
        QVERIFY2(typo.err.contains("--allow-code F0123456789ab"), typo.err.constData());
        QVERIFY(!fs::exists(dir / "cache"));

        const auto allowed =
            test::run_cli({"import", bundle_path, "--into", cache, "--allow-code", id});
        QCOMPARE(allowed.exit_code, 0);
        QVERIFY2(allowed.out.contains("code with findings (allowed with --allow-code)"),
                 allowed.out.constData());

        // verify on the cache dir now holding it: the finding fails verify.
        const auto verify = test::run_cli({"verify", cache});
        QCOMPARE(verify.exit_code, 1);
        QVERIFY2(verify.out.contains(id.toUtf8()), verify.out.constData());
        QVERIFY(!fs::exists(marker_));
    }
};

QTEST_GUILESS_MAIN(TestImportSafety)
#include "tst_import_safety.moc"
