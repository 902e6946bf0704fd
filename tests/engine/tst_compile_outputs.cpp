// What Inductor's compilers leave in a cache dir besides its entries
// (cachedir/compile_outputs.h): the AOTInductor output dirs PyTorch 2.11
// wrote on an H200 (tests/data/real-fixtures, aoti_cuda and aoti_cpu) read
// against what PyTorch's loader reads of the same files (golden.json), and a
// dir of every other kind made here by codecache.py's naming rules.

#include "test_paths.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/verify.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <chrono>
#include <filesystem>

using namespace cachelens;
using namespace cachelens::cachedir;
namespace fs = std::filesystem;

namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString arg(const fs::path& path) {
    return QString::fromStdString(path.string());
}

const Entry* entry_of(const std::vector<Entry>& entries, FileKind kind) {
    for (const auto& entry : entries) {
        if (entry.kind == kind) {
            return &entry;
        }
    }
    return nullptr;
}

// A cubin's ELF header as CUDA 13 writes it (ABI 8: the SM in bits 8-15).
std::string cubin(int sm) {
    std::string header(128, '\0');
    header.replace(0, 4,
                   "\x7f"
                   "ELF");
    header[4] = 2;
    header[8] = 8;
    header[18] = static_cast<char>(190);
    header[49] = static_cast<char>(sm);
    return header;
}

} // namespace

class TestCompileOutputs : public QObject {
    Q_OBJECT

private slots:
    void realAotiOutputDirs_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("kernels");
        QTest::newRow("cuda") << "aoti_cuda"
                              << "cuda" << 2;
        QTest::newRow("cpu") << "aoti_cpu"
                             << "cpu" << 0;
    }
    void realAotiOutputDirs() {
        QFETCH(QString, fixture);
        QFETCH(QString, device);
        QFETCH(int, kernels);
        const fs::path root = test::real_fixture(fixture.toStdString() + "/cache");
        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        const auto summary = scan->summary();
        QVERIFY(!summary.contains(FileKind::Unknown)); // every file PyTorch wrote has a kind
        QCOMPARE(summary.at(FileKind::AotiOutput).entries, 1u);
        const auto entries = scan->entries();
        const Entry* output = entry_of(entries, FileKind::AotiOutput);
        QVERIFY(output != nullptr);
        QCOMPARE(qs(output->key), "chx2qgaetskedlxq7h7dzw2yyyszhm4med4b2pdrkz2uzixwlrkg");
        auto content = load_entry(root, *output);
        QVERIFY_RESULT(content);
        const auto& dir = std::get<AotiOutputDir>(*content);
        QVERIFY(dir.problems.empty());
        // The same model PyTorch packaged: the metadata its loader reads.
        const auto golden =
            test::read_json(test::real_fixture(fixture.toStdString() + "/golden.json"))
                .object()["aoti"]
                .toObject()["zip_text"]
                .toObject();
        QString packaged_metadata;
        for (const auto& key : golden.keys()) {
            if (key.endsWith(".kernel_metadata.json")) {
                packaged_metadata = golden[key].toString();
            }
        }
        const auto metadata = QJsonDocument::fromJson(packaged_metadata.toUtf8()).object();
        QCOMPARE(static_cast<qsizetype>(dir.model.metadata_values.size()), metadata.size());
        QCOMPARE(qs(dir.model.device_key()), device);
        QCOMPARE(static_cast<int>(dir.model.kernels.size()), kernels);
        for (const auto& kernel : dir.model.kernels) {
            QCOMPARE(kernel.sm, std::optional<int>(90));
        }
        QCOMPARE(dir.model.constants.size(), 3u);
        QVERIFY(dir.model.library.has_value());
        QCOMPARE(verify_cache_dir(*scan).problems.size(), 0u);
        auto verdict = bundle::judge_entry(root, *output);
        QVERIFY(verdict.has_value());
        QCOMPARE(verdict->verdict, safety::Verdict::InductorCode);
        QCOMPARE(verdict->code.size(), 2u); // the wrapper's and the kernels' C++
    }

    // Each other kind, by codecache.py's names, shown and checked.
    void companionsAndText() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::write_bytes(root / "ab/cabc.cpp", "extern \"C\" void kernel() {}\n");
        test::write_bytes(root / "ab/cabc.o", "\x7f"
                                              "ELF object");
        test::write_bytes(root / "ab/cabc.cubin", cubin(90));
        test::write_bytes(root / "cd/ccdf.cubin", "not an ELF file");
        test::write_bytes(root / "ab/cabc.so.error", "[[\"nvcc\", \"x.cu\"], \"error: boom\"]");
        test::write_bytes(root / "ab/cabc.txt", "metric,value\ngenerated_kernel_count,3\n");
        test::write_bytes(root / "precompiled_headers/cxyz.h.gch", "gch");
        test::write_bytes(root / "ab/cabc.debug/output_code.py", "# debug");
        test::write_bytes(root / "ab/cabc.debug/ir_post_fusion.txt", "# debug");
        test::write_bytes(root / "tmpab_cd1ef/fxgraph/3g/f3gun/mmgn42", "x");
        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QVERIFY(!scan->summary().contains(FileKind::Unknown));
        QCOMPARE(scan->summary().at(FileKind::DebugCopy).entries, 1u); // one dir, one entry
        QCOMPARE(scan->summary().at(FileKind::DebugCopy).files, 2u);
        const auto entries = scan->entries();
        const auto find = [&](std::string_view path) -> const Entry& {
            for (const auto& entry : entries) {
                if (entry.path == path) {
                    return entry;
                }
            }
            qFatal("no entry %s", std::string(path).c_str());
        };
        auto object = load_entry(root, find("ab/cabc.o"));
        QVERIFY_RESULT(object);
        QCOMPARE(std::get<CompanionFile>(*object).owners,
                 (std::vector<std::string>{"ab/cabc.cpp"}));
        auto binary = load_entry(root, find("ab/cabc.cubin"));
        QVERIFY_RESULT(binary);
        QCOMPARE(std::get<CompanionFile>(*binary).sm, std::optional<int>(90));
        QVERIFY(!load_entry(root, find("cd/ccdf.cubin")).has_value()); // no CUDA ELF
        auto error = load_entry(root, find("ab/cabc.so.error"));
        QVERIFY_RESULT(error);
        QVERIFY(std::get<TextFile>(*error).what.starts_with("a compile error"));
        const auto report = verify_cache_dir(*scan);
        std::vector<std::string> problems;
        for (const auto& problem : report.problems) {
            problems.push_back(problem.path + " " + std::string(to_string(problem.kind)));
        }
        QVERIFY(std::ranges::find(problems, "cd/ccdf.cubin parse-error") != problems.end());

        const auto shown = test::run_cli({"show", arg(root), "ab/cabc.o", "--json"});
        QCOMPARE(shown.exit_code, 0);
        const auto json = QJsonDocument::fromJson(shown.out).object();
        QCOMPARE(json["kind"].toString(), "object");
        QCOMPARE(json["owners"].toArray(), QJsonArray{"ab/cabc.cpp"});
        const auto text = test::run_cli({"show", arg(root), "ab/cabc.txt"});
        QVERIFY(text.out.contains("generated_kernel_count,3"));
    }

    // An AOTInductor dir goes whole: its files, its subdirs, itself.
    void pruneTakesAnAotiDirWhole() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::real_fixture("aoti_cpu/cache"), root);
        const std::string dir = "chx2qgaetskedlxq7h7dzw2yyyszhm4med4b2pdrkz2uzixwlrkg";
        test::write_bytes(root / dir / "c2udw4ocqz4cs6yjxp3z7dlxbegbcdqc4ulnbvcvi2uoyb3kj63x" /
                              "consts.o",
                          "x"); // the constants' subdir
        const auto old = fs::file_time_type::clock::now() - std::chrono::hours(24 * 40);
        for (const auto& item : fs::recursive_directory_iterator(root)) {
            fs::last_write_time(item.path(), old);
        }
        const QString catalog = temp.path() + "/catalog.sqlite";
        QCOMPARE(test::run_cli({"index", arg(root), "--catalog", catalog}).exit_code, 0);
        const auto run = test::run_cli({"prune", arg(root), "--older-than", "30d", "--keep-recent",
                                        "0s", "--catalog", catalog});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY(!fs::exists(root / dir));
    }
};

QTEST_GUILESS_MAIN(TestCompileOutputs)
#include "tst_compile_outputs.moc"
