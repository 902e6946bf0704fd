// .pt2 archives (pt2/pt2_archive.h): the AOTInductor packages PyTorch 2.11
// wrote on an H200 (tests/data/real-fixtures, aoti_cuda and aoti_cpu) read
// against what Python's zipfile and PyTorch's loader read of them (their
// golden.json), and the archives of tests/data/pt2 (make_pt2.py): older
// layouts, hostile names, a bad crc, a zip bomb, what PyTorch would refuse.
// Nothing is ever extracted: the marker a hostile archive names never appears.

#include "test_paths.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/explain/preflight.h>
#include <cachelens/pt2/pt2_archive.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <filesystem>
#include <map>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

fs::path data(const std::string& name) {
    return test::test_data("pt2/" + name);
}

pt2::Archive read_or_die(const fs::path& path) {
    auto archive = pt2::read_archive(path);
    if (!archive) {
        qFatal("%s", archive.error().describe().c_str());
    }
    return std::move(*archive);
}

std::vector<std::string> problems_of(const pt2::Archive& archive) {
    std::vector<std::string> out = archive.problems;
    for (const auto& member : archive.members) {
        for (const auto& problem : member.problems) {
            out.push_back(member.name + ": " + problem);
        }
    }
    return out;
}

bool any_contains(const std::vector<std::string>& texts, std::string_view part) {
    return std::ranges::any_of(
        texts, [&](const std::string& text) { return text.find(part) != std::string::npos; });
}

} // namespace

class TestPt2 : public QObject {
    Q_OBJECT

private slots:
    void cleanup() {
        QVERIFY(!fs::exists("/tmp/cachelens-pt2-marker"));
        QVERIFY(!fs::exists("/tmp/cachelens-pt2-slip"));
    }

    // The member table as Python's zipfile read it, and what PyTorch's loader reads.
    void realPackagesMatchGolden_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("device");
        QTest::newRow("cuda") << "aoti_cuda"
                              << "cuda";
        QTest::newRow("cpu") << "aoti_cpu"
                             << "cpu";
    }
    void realPackagesMatchGolden() {
        QFETCH(QString, fixture);
        QFETCH(QString, device);
        const auto golden =
            test::read_json(test::real_fixture(fixture.toStdString() + "/golden.json"))
                .object()["aoti"]
                .toObject();
        const pt2::Archive archive = read_or_die(test::real_fixture(
            fixture.toStdString() + "/" + golden["package"].toString().toStdString()));
        QCOMPARE(archive.layout, pt2::Layout::Archive);
        QCOMPARE(qs(archive.root), "mlp_" + device); // the file's name without .pt2
        const auto zip = golden["zip"].toArray();
        QCOMPARE(static_cast<qsizetype>(archive.members.size()), zip.size());
        for (qsizetype i = 0; i < zip.size(); ++i) {
            const auto expected = zip[i].toObject();
            const auto& member = archive.members[static_cast<std::size_t>(i)];
            QCOMPARE(qs(member.name), expected["name"].toString());
            QCOMPARE(static_cast<qint64>(member.size), expected["size"].toInteger());
            QCOMPARE(static_cast<qint64>(member.crc), expected["crc"].toInteger());
            QCOMPARE(static_cast<int>(member.method), expected["compress_type"].toInt());
            QVERIFY(member.problems.empty());
        }
        const auto text = golden["zip_text"].toObject();
        QCOMPARE(qs(archive.records.at("archive_format")),
                 text[qs(archive.root) + "/archive_format"].toString());
        QCOMPARE(qs(archive.records.at("archive_version")), "0");
        QCOMPARE(qs(archive.records.at(".data/version")), "6");
        QCOMPARE(archive.models.size(), 1u);
        const pt2::AotiModel& model = archive.models[0];
        QCOMPARE(qs(model.name), "model");
        // What the C++ loader reads: the metadata of the last .cpp, the kernel's.
        QVERIFY(model.metadata.has_value());
        const std::string metadata_path = archive.members[*model.metadata].name;
        QVERIFY(metadata_path.ends_with(".kernel_metadata.json"));
        const auto metadata =
            QJsonDocument::fromJson(text[qs(metadata_path)].toString().toUtf8()).object();
        QCOMPARE(static_cast<qsizetype>(model.metadata_values.size()), metadata.size());
        for (const auto& [key, value] : model.metadata_values) {
            QCOMPARE(qs(value), metadata[qs(key)].toString());
        }
        QCOMPARE(qs(model.device_key()), device);
        QVERIFY(model.wrapper_cpp && model.kernel_cpp && model.library);
        QVERIFY(model.weights_location.starts_with("in the .so"));
        // constants_info_ of the wrapper: the MLP's weights.
        std::map<std::string, std::pair<std::vector<std::int64_t>, std::uint64_t>> constants;
        for (const auto& constant : model.constants) {
            QCOMPARE(qs(constant.dtype), "float32");
            QCOMPARE(qs(constant.device), device);
            QCOMPARE(qs(constant.type), "Parameter");
            constants[constant.original_fqn] = {constant.shape, constant.data_size};
        }
        QCOMPARE(constants.at("fc1.weight"),
                 std::make_pair(std::vector<std::int64_t>{64, 32}, std::uint64_t{8192}));
        QCOMPARE(constants.at("fc2.weight"),
                 std::make_pair(std::vector<std::int64_t>{8, 64}, std::uint64_t{2048}));
        QCOMPARE(model.inputs.size(), 1u);
        // The cubins were built for the GPU the metadata names.
        if (device == "cuda") {
            QCOMPARE(model.kernels.size(), 2u);
            for (const auto& kernel : model.kernels) {
                QCOMPARE(kernel.sm, std::optional<int>(90));
            }
            QCOMPARE(qs(model.metadata_values.at("AOTI_COMPUTE_CAPABILITY")), "90");
        } else {
            QVERIFY(model.kernels.empty());
        }
        QVERIFY(archive.problems.empty());
        // Every crc reads, every C++ source is Inductor's.
        auto crcs = pt2::check_member_crcs(archive);
        QVERIFY_RESULT(crcs);
        for (const auto& check : *crcs) {
            QVERIFY2(check.problem.empty(), check.problem.c_str());
        }
        for (const auto& verdict : bundle::judge_pt2_archive(archive)) {
            QCOMPARE(verdict.check.verdict, safety::Verdict::InductorCode);
        }
    }

    void olderLayouts() {
        const auto aoti = read_or_die(data("legacy_aoti.pt2"));
        QCOMPARE(aoti.layout, pt2::Layout::LegacyAoti);
        QVERIFY(aoti.root.empty());
        QCOMPARE(aoti.models.size(), 1u);
        QVERIFY(problems_of(aoti).empty());
        const auto exported = read_or_die(data("legacy_export.pt2"));
        QCOMPARE(exported.layout, pt2::Layout::LegacyExport);
        QVERIFY(!exported.is_aoti_package());
        QCOMPARE(qs(exported.records.at("version")), "8.2");
        const auto two = read_or_die(data("two_models.pt2"));
        QCOMPARE(two.models.size(), 2u);
        QCOMPARE(qs(two.models[1].name), "other");
        QCOMPARE(qs(two.models[0].metadata_values.at("owner")), "tests");
        QCOMPARE(two.models[0].kernels[0].sm, std::optional<int>(80));
        QCOMPARE(qs(two.models[0].constants[1].dtype), "bfloat16");
        QCOMPARE(qs(two.models[0].constants[1].type), "Buffer");
        QCOMPARE(two.models[0].outputs, std::vector<std::string>{"output0"});
        QVERIFY(problems_of(two).empty());
    }

    // What would be unsafe to extract, or what PyTorch would refuse, each named.
    void problemsAreNamed_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("problem");
        QTest::newRow("..") << "slip.pt2"
                            << "a '..' component: PyTorch's C++ loader extracts it";
        QTest::newRow("absolute") << "odd_names.pt2"
                                  << "/etc/cachelens-absolute: an absolute path";
        QTest::newRow("backslash") << "odd_names.pt2"
                                   << "a backslash";
        QTest::newRow("outside the root") << "odd_names.pt2"
                                          << "elsewhere/file: outside the archive's root folder";
        QTest::newRow("twice") << "odd_names.pt2"
                               << "a second member of this name";
        QTest::newRow("zip bomb") << "bomb.pt2"
                                  << ":1, a zip bomb";
        QTest::newRow("archive version") << "version_1.pt2"
                                         << "Saved archive version 1 does not match our current "
                                            "archive version 0.";
        QTest::newRow("no metadata") << "no_metadata.pt2"
                                     << "has no *_metadata.json";
        QTest::newRow("models by prefix") << "prefix_models.pt2"
                                          << "loading model also extracts model2's files";
    }
    void problemsAreNamed() {
        QFETCH(QString, file);
        QFETCH(QString, problem);
        const auto problems = problems_of(read_or_die(data(file.toStdString())));
        QVERIFY2(any_contains(problems, problem.toStdString()), qPrintable(problem));
    }

    void damageIsAnErrorOrAProblem() {
        auto truncated = pt2::read_archive(data("truncated.pt2"));
        QVERIFY(!truncated.has_value());
        QCOMPARE(truncated.error().kind, ErrorKind::Corrupt);
        QVERIFY(truncated.error().describe().find("truncated.pt2") != std::string::npos);
        auto not_zip = pt2::read_archive(data("make_pt2.py"));
        QVERIFY(!not_zip.has_value());
        QVERIFY(not_zip.error().message.find("not a zip") != std::string::npos);
        const auto bad = read_or_die(data("bad_crc.pt2"));
        auto crcs = pt2::check_member_crcs(bad);
        QVERIFY_RESULT(crcs);
        std::size_t mismatches = 0;
        for (const auto& check : *crcs) {
            if (!check.problem.empty()) {
                ++mismatches;
                QVERIFY(bad.members[check.member].name.ends_with("ckernel.kernel.cpp"));
                QVERIFY(check.problem.find("crc") != std::string::npos);
            }
        }
        QCOMPARE(mismatches, 1u);
        auto member = pt2::read_member(bad, *bad.find("data/aotinductor/model/ckernel.kernel.cpp"));
        QVERIFY(!member.has_value());
    }

    void hostileSourceIsAFinding() {
        const auto archive = read_or_die(data("hostile_cpp.pt2"));
        bool found = false;
        for (const auto& verdict : bundle::judge_pt2_archive(archive)) {
            if (verdict.path.ends_with(".wrapper.cpp")) {
                QCOMPARE(verdict.check.verdict, safety::Verdict::CodeWithFindings);
                found = true;
            }
        }
        QVERIFY(found);
    }

    void cubinArchitecture() {
        QCOMPARE(pt2::cubin_arch(""), std::nullopt);
        std::string header(64, '\0');
        header.replace(0, 4,
                       "\x7f"
                       "ELF");
        header[4] = 2;
        header[8] = 7; // the ABI before CUDA 12.9: the SM in the low byte
        header[18] = static_cast<char>(190);
        header[48] = 80;
        QCOMPARE(pt2::cubin_arch(header), std::optional<int>(80));
        header[18] = 62; // x86-64, not a cubin
        QCOMPARE(pt2::cubin_arch(header), std::nullopt);
    }

    void preflightOfAPackage() {
        const auto archive = read_or_die(test::real_fixture("aoti_cuda/mlp_cuda.pt2"));
        cachedir::Fingerprint h200;
        h200.device_types = {"cpu", "cuda"};
        h200.triton_targets = {"cuda 90"};
        h200.learnt_from = "python3 (torch 2.11.0+cu130)";
        auto same = explain::preflight_pt2(archive, h200);
        QVERIFY(same.all_load());
        QCOMPARE(qs(same.answer()), "1 of 1 model can load on the target");
        cachedir::Fingerprint a100 = h200;
        a100.triton_targets = {"cuda 80"};
        auto older = explain::preflight_pt2(archive, a100);
        QCOMPARE(older.count(explain::PreflightOutcome::WillMiss), 1u);
        QVERIFY(older.models[0].reasons[0].text.find("sm_90; the target's GPU is sm_80") !=
                std::string::npos);
        cachedir::Fingerprint cpu_only = h200;
        cpu_only.device_types = {"cpu"};
        cpu_only.triton_targets.clear();
        QCOMPARE(
            explain::preflight_pt2(archive, cpu_only).count(explain::PreflightOutcome::WillMiss),
            1u);
        // A target known only by its cache dir's CPU graphs: it may still have a GPU.
        cpu_only.learnt_from = "cache dir /somewhere";
        QCOMPARE(
            explain::preflight_pt2(archive, cpu_only).count(explain::PreflightOutcome::CannotTell),
            1u);
    }

    void cli() {
        const QString cuda =
            QString::fromStdString(test::real_fixture("aoti_cuda/mlp_cuda.pt2").string());
        const auto show = test::run_cli({"show", cuda, "--json"});
        QCOMPARE(show.exit_code, 0);
        const auto json = QJsonDocument::fromJson(show.out).object();
        QCOMPARE(json["kind"].toString(), "pt2");
        QCOMPARE(json["layout"].toString(), "pt2 archive");
        QCOMPARE(json["members"].toArray().size(), 12);
        const auto model = json["models"].toArray()[0].toObject();
        QCOMPARE(model["device"].toString(), "cuda");
        QCOMPARE(model["compute_capability"].toString(), "90");
        QCOMPARE(model["constants"].toArray().size(), 3);
        const auto text = test::run_cli({"show", cuda});
        QVERIFY(text.out.contains("fc1.weight         float32 [64, 32], 8.0 KiB, Parameter"));
        QVERIFY(text.out.contains("cannot judge it"));
        QCOMPARE(test::run_cli({"verify", cuda}).exit_code, 0);
        const auto ls = test::run_cli({"bundle", "ls", cuda});
        QCOMPARE(ls.exit_code, 0);
        QVERIFY(ls.out.contains("pt2 archive, root mlp_cuda/, 12 members"));
        for (const char* bad : {"slip.pt2", "bad_crc.pt2", "hostile_cpp.pt2", "bomb.pt2"}) {
            const auto run = test::run_cli({"verify", QString::fromStdString(data(bad).string())});
            QVERIFY2(run.exit_code == 1, bad);
        }
        const auto truncated =
            test::run_cli({"show", QString::fromStdString(data("truncated.pt2").string())});
        QCOMPARE(truncated.exit_code, 2);
        QVERIFY(truncated.err.contains("truncated.pt2"));
        // preflight against this machine's fingerprint as a file
        QTemporaryDir temp;
        const QString target = temp.path() + "/a100.json";
        cachedir::Fingerprint a100;
        a100.device_types = {"cpu", "cuda"};
        a100.triton_targets = {"cuda 80"};
        a100.environment.device_name = "NVIDIA A100-SXM4-80GB";
        a100.learnt_from = "python3";
        test::write_bytes(target.toStdString(), cachedir::to_json(a100));
        const auto preflight = test::run_cli({"preflight", cuda, "--target", target});
        QCOMPARE(preflight.exit_code, 1);
        QVERIFY(preflight.out.startsWith("0 of 1 model can load on the target; 1 will not load"));
    }
};

QTEST_GUILESS_MAIN(TestPt2)
#include "tst_pt2.moc"
