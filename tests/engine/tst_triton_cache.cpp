// Triton's own cache as a root (~/.triton/cache, $TRITON_CACHE_DIR, or an
// Inductor cache's triton/<device>/): the fixtures' Triton dirs copied flat
// classify with no unknown file, every kernel loads, verify finds what
// hand-made damage leaves (a renamed dir, a missing child, no group file, a
// writer's temp dir), and a prune takes whole hash dirs, never one a writer
// is filling.

#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/file_kind.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/catalog/catalog.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <fstream>
#include <set>

using namespace cachelens;
using namespace cachelens::cachedir;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kDayNs = 86400LL * 1'000'000'000;

// A kernel of the devset, and its name (formats.md §5).
constexpr const char* kKernelDir = "42WVLKQDYD5ZCK6CFR2LX6QK6QE2GO6XYEABMMIW3VHRYI62AS7Q";
constexpr const char* kKernelName = "triton_red_fused_mul_sqrt_sum_0";

// What triton.autotune(cache_results=True) writes: [config.__dict__, do_bench quantiles].
constexpr const char* kAutotuneJson =
    R"({"key": ["1024", "torch.float32"], "configs_timings": [)"
    R"([{"kwargs": {"BLOCK": 64}, "num_warps": 4, "num_ctas": 1, "num_stages": 3, "maxnreg": null,)"
    R"( "pre_hook": null, "ir_override": null}, [0.021, 0.020, 0.023]],)"
    R"([{"kwargs": {"BLOCK": 128}, "num_warps": 8, "num_ctas": 1, "num_stages": 3, "maxnreg": null,)"
    R"( "pre_hook": null, "ir_override": null}, [0.017, 0.016, 0.018]]]})";
constexpr const char* kAutotuneDir = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void age_files(const fs::path& dir, double days) {
    const auto mtime = now_ns() - static_cast<std::int64_t>(days * kDayNs);
    const timespec times[2] = {{mtime / 1'000'000'000, mtime % 1'000'000'000},
                               {mtime / 1'000'000'000, mtime % 1'000'000'000}};
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        if (item.is_regular_file()) {
            QVERIFY(::utimensat(AT_FDCWD, item.path().c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
        }
    }
}

// The fixtures' triton/0/ hash dirs, copied side by side into `to`: a Triton
// cache as ~/.triton/cache holds one. Returns the hash dirs copied.
std::set<std::string> copy_flat(const fs::path& to) {
    std::set<std::string> dirs;
    for (const char* set : {"devset", "multi_dev"}) {
        for (const auto& item : fs::directory_iterator(test::fixture(set) / "cache/triton/0")) {
            const std::string name = item.path().filename().string();
            if (dirs.insert(name).second) {
                test::copy_tree(item.path(), to / name);
            }
        }
    }
    return dirs;
}

std::set<std::string> subdirs(const fs::path& dir) {
    std::set<std::string> out;
    for (const auto& item : fs::directory_iterator(dir)) {
        if (item.is_directory()) {
            out.insert(item.path().filename().string());
        }
    }
    return out;
}

QJsonObject json_of(const test::CliRun& run) {
    return QJsonDocument::fromJson(run.out).object();
}

bool has_problem(const VerifyReport& report, const std::string& path, ProblemKind kind,
                 const std::string& words) {
    return std::ranges::any_of(report.problems, [&](const Problem& problem) {
        return problem.path == path && problem.kind == kind &&
               problem.message.find(words) != std::string::npos;
    });
}

std::string problems_of(const VerifyReport& report) {
    std::string out;
    for (const auto& problem : report.problems) {
        out += problem.path + ": " + std::string(to_string(problem.kind)) + ": " + problem.message +
               "\n";
    }
    return out;
}

} // namespace

class TestTritonCache : public QObject {
    Q_OBJECT

private slots:
    // What each file of a kernel dir is, by Triton's names: the one reading
    // the GUI's Kernels tab shows.
    void eachFileOfAKernelDirIsNamed() {
        using cachelens::cachedir::triton_file_type;
        QCOMPARE(triton_file_type("__grp__triton_poi_fused_0.json").description,
                 std::string_view("file group (JSON)"));
        QCOMPARE(triton_file_type("triton_poi_fused_0.ptx").description, std::string_view("PTX"));
        QVERIFY(!triton_file_type("triton_poi_fused_0.ptx").binary);
        QVERIFY(triton_file_type("triton_poi_fused_0.cubin").binary);
        QVERIFY(triton_file_type("triton_poi_fused_0.hsaco").binary);
        QCOMPARE(triton_file_type("notes.txt").description, std::string_view("file"));
    }

    void classifiesTritonCachePaths_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kind");
        const QString dir = QString::fromLatin1(kKernelDir);
        QTest::newRow("kernel file") << dir + "/k.cubin"
                                     << "triton";
        QTest::newRow("group file") << dir + "/__grp__k.json"
                                    << "triton";
        QTest::newRow("autotune") << dir + "/matmul_kernel.autotune.json"
                                  << "triton_autotune";
        QTest::newRow("launcher") << dir + "/__triton_launcher.so"
                                  << "library";
        QTest::newRow("put() staging dir") << dir + "/tmp.pid_77_0a1b/k.cubin"
                                           << "tmp";
        QTest::newRow("staging before 3.0") << dir + "/k.cubin.tmp.pid_77_123"
                                            << "tmp";
        QTest::newRow("bundler staging") << "tmp.0a1b2c3d/k.cubin"
                                         << "tmp";
        QTest::newRow("deeper") << dir + "/sub/k.cubin"
                                << "unknown";
        QTest::newRow("lower-case name") << dir.toLower() + "/k.cubin"
                                         << "unknown";
        QTest::newRow("short name") << "ABCDEF/k.cubin"
                                    << "unknown";
        QTest::newRow("inductor put() staging") << "triton/0/" + dir + "/tmp.pid_77_0a1b/k.cubin"
                                                << "tmp";
        QTest::newRow("inductor autotune") << "triton/0/" + dir + "/f.autotune.json"
                                           << "triton_autotune";
    }
    void classifiesTritonCachePaths() {
        QFETCH(QString, path);
        QFETCH(QString, kind);
        QCOMPARE(QString::fromStdString(std::string(to_string(classify(path.toStdString())))),
                 kind);
    }

    void hashDirNamesAreBase32OfASha256() {
        QVERIFY(is_triton_hash_dir_name(kKernelDir));
        QVERIFY(!is_triton_hash_dir_name(std::string(kKernelDir).substr(1)));
        QVERIFY(!is_triton_hash_dir_name(std::string(kKernelDir) + "A"));
        QVERIFY(!is_triton_hash_dir_name("42WVLKQDYD5ZCK6CFR2LX6QK6QE2GO6XYEABMMIW3VHRYI62AS71"));
        QVERIFY(!is_triton_hash_dir_name("fxgraph"));
    }

    void aFlatCopyScansWithNoUnknownFile() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        const auto dirs = copy_flat(root);
        QVERIFY(dirs.size() >= 66);
        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QCOMPARE(scan->layout(), RootLayout::Triton);
        QVERIFY(scan->errors.empty());
        for (const auto& file : scan->files) {
            QVERIFY2(file.kind == FileKind::Triton, file.path.c_str());
        }
        const auto entries = scan->entries();
        QCOMPARE(entries.size(), dirs.size());
        for (const auto& entry : entries) {
            QVERIFY(dirs.contains(entry.path));
            QCOMPARE(entry.key, entry.path);
            QVERIFY2(!entry.name.empty(), entry.path.c_str());
            auto loaded = load_entry(scan->root, entry);
            QVERIFY_RESULT(loaded);
            const auto& kernel = std::get<TritonKernelDir>(*loaded);
            QCOMPARE(kernel.kernel_name, entry.name);
            QVERIFY(kernel.device.empty()); // no triton/<device>/ around it
            QVERIFY(kernel.module_file.empty());
        }
        QVERIFY(!find_entries(*scan, kKernelName).empty());
        QCOMPARE(find_entries(*scan, std::string(kKernelDir) + "/" + kKernelName + ".cubin").size(),
                 1u);
        const auto report = verify_cache_dir(*scan);
        QVERIFY2(report.clean(), problems_of(report).c_str());
        QCOMPARE(report.names_verified, dirs.size());
        // Their group files name the files where the fixtures were made
        // (/tmp/fixtures/...): Triton, at this path, finds nothing and compiles
        // each kernel again. A warning per kernel dir.
        QCOMPARE(report.warnings.size(), dirs.size());
        for (const auto& warning : report.warnings) {
            QCOMPARE(warning.kind, ProblemKind::Moved);
            QVERIFY2(warning.message.find("Triton finds nothing and compiles this kernel again") !=
                         std::string::npos,
                     warning.message.c_str());
        }
        // A group file naming this dir's own files is no warning.
        const fs::path kernel = root / kKernelDir;
        std::string children;
        for (const auto& file : fs::directory_iterator(kernel)) {
            const std::string name = file.path().filename().string();
            if (!name.starts_with("__grp__")) {
                children += std::string(children.empty() ? "" : ", ") + "\"" + name + "\": \"" +
                            (kernel / name).string() + "\"";
            }
        }
        for (const auto& file : fs::directory_iterator(kernel)) {
            if (file.path().filename().string().starts_with("__grp__")) {
                std::ofstream(file.path()) << "{\"child_paths\": {" << children << "}}";
            }
        }
        auto rescanned = scan_cache_dir(root);
        QVERIFY_RESULT(rescanned);
        QCOMPARE(verify_cache_dir(*rescanned).warnings.size(), dirs.size() - 1);

        // An Inductor cache stays one, and its triton/0/ taken alone is a Triton cache.
        auto inductor = scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(inductor);
        QCOMPARE(inductor->layout(), RootLayout::Inductor);
        auto device_dir = scan_cache_dir(test::fixture("devset/cache/triton/0"));
        QVERIFY_RESULT(device_dir);
        QCOMPARE(device_dir->layout(), RootLayout::Triton);
        QCOMPARE(inductor_cache_of(test::fixture("devset/cache/triton/0")),
                 std::optional(test::fixture("devset/cache").lexically_normal()));
        QVERIFY(!inductor_cache_of(root));
    }

    void verifyFindsWhatAWriterLeftOrBroke() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        auto dirs = copy_flat(root);
        auto it = dirs.begin();
        const std::string renamed_from = *it++;
        const std::string no_cubin = *it++;
        const std::string no_group = *it++;
        const std::string writing = *it++;
        // A hash dir whose name is not its metadata's hash.
        const std::string renamed_to(52, 'B');
        fs::rename(root / renamed_from, root / renamed_to);
        // A group file naming a child that is gone.
        for (const auto& item : fs::directory_iterator(root / no_cubin)) {
            if (item.path().extension() == ".cubin") {
                fs::remove(item.path());
            }
        }
        // A kernel dir without its group file: Triton writes that last.
        for (const auto& item : fs::directory_iterator(root / no_group)) {
            if (item.path().filename().string().starts_with("__grp__")) {
                fs::remove(item.path());
            }
        }
        // A writer's temp dir inside a kernel dir, and the bundler's beside them.
        test::write_bytes(root / writing / "tmp.pid_4242_0a1b" / "k.ptx", "half a PTX");
        test::write_bytes(root / "tmp.5f2c" / "k.cubin", "half a cubin");
        // An autotune result, and one cut short.
        test::write_bytes(root / kAutotuneDir / "matmul_kernel.autotune.json", kAutotuneJson);
        const std::string broken_dir(52, 'C');
        test::write_bytes(root / broken_dir / "matmul_kernel.autotune.json", R"({"key": [)");
        // Left a minute ago or more: problems. Written now: a writer at work (below).
        test::age_files(root, std::chrono::minutes(2));

        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QCOMPARE(scan->layout(), RootLayout::Triton);
        for (const auto& file : scan->files) {
            QVERIFY2(file.kind != FileKind::Unknown, file.path.c_str());
        }
        const auto report = verify_cache_dir(*scan);
        const std::string all = problems_of(report);
        QVERIFY2(has_problem(report, renamed_to, ProblemKind::NameMismatch,
                             "names no dir by any Triton release's rule (" + renamed_from +
                                 " from Triton 3.3 on)"),
                 all.c_str());
        QVERIFY2(
            has_problem(report, no_cubin, ProblemKind::Incomplete, ".cubin (listed in __grp__"),
            all.c_str());
        QVERIFY2(has_problem(report, no_group, ProblemKind::Incomplete, "no group file"),
                 all.c_str());
        QVERIFY2(has_problem(report, writing + "/tmp.pid_4242_0a1b/k.ptx", ProblemKind::StrayTemp,
                             "temp file"),
                 all.c_str());
        QVERIFY2(has_problem(report, "tmp.5f2c/k.cubin", ProblemKind::StrayTemp, "temp file"),
                 all.c_str());
        QVERIFY2(has_problem(report, broken_dir + "/matmul_kernel.autotune.json",
                             ProblemKind::ParseError, "Triton autotune result"),
                 all.c_str());
        QVERIFY2(has_problem(report, no_cubin, ProblemKind::Incomplete, "no compiled binary"),
                 all.c_str());
        QCOMPARE(report.problems.size(), 7u);

        // The same written just now: warnings that a writer is at work, no problem.
        const std::string fresh_group_less(52, 'D');
        fs::create_directories(root / fresh_group_less);
        for (const auto& item : fs::directory_iterator(root / no_group)) {
            fs::copy_file(item.path(), root / fresh_group_less / item.path().filename());
        }
        test::write_bytes(root / "tmp.6a3d" / "k.cubin", "half a cubin");
        auto again = scan_cache_dir(root);
        QVERIFY_RESULT(again);
        const auto now = verify_cache_dir(*again);
        QCOMPARE(now.problems.size(), 7u);
        const auto warned = [&](const std::string& path, std::string_view text) {
            return std::ranges::any_of(now.warnings, [&](const Problem& warning) {
                return warning.path == path && warning.message.find(text) != std::string::npos;
            });
        };
        QVERIFY(warned(fresh_group_less, "being written: no group file yet"));
        QVERIFY(warned("tmp.6a3d/k.cubin", "being written: the temp file"));
    }

    void autotuneResultsAreReadAndShown() {
        auto result = parse_triton_autotune(kAutotuneJson);
        QVERIFY_RESULT(result);
        QCOMPARE(result->key, (std::vector<std::string>{"1024", "torch.float32"}));
        QCOMPARE(result->timings.size(), 2u);
        QCOMPARE(result->timings[1].milliseconds, (std::vector<double>{0.017, 0.016, 0.018}));
        QCOMPARE(result->best(), std::optional<std::size_t>(1));
        QVERIFY(!parse_triton_autotune(R"({"key": []})"));
        QVERIFY(!parse_triton_autotune(R"({"configs_timings": [[{}, "fast"]]})"));

        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path root = fs::path(temp.path().toStdString());
        test::write_bytes(root / kAutotuneDir / "matmul_kernel.autotune.json", kAutotuneJson);
        const auto show = test::run_cli({"show", temp.path(), "matmul_kernel", "--json"});
        QVERIFY2(show.exit_code == 0, show.err.constData());
        const QJsonObject json = json_of(show);
        QCOMPARE(json["kind"].toString(), QStringLiteral("triton_autotune"));
        QCOMPARE(json["key"].toString(), QString::fromLatin1(kAutotuneDir));
        QCOMPARE(json["function"].toString(), QStringLiteral("matmul_kernel"));
        QCOMPARE(json["configs_timings"].toArray().size(), 2);
        const auto text = test::run_cli({"show", temp.path(), kAutotuneDir});
        QVERIFY2(text.exit_code == 0, text.err.constData());
        QVERIFY2(text.out.contains("(fastest)"), text.out.constData());
    }

    void theCliReadsATritonCache() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        const auto dirs = copy_flat(root);
        const QString dir = QString::fromStdString(root.string());
        const auto scan = test::run_cli({"scan", dir, "--json"});
        QCOMPARE(scan.exit_code, 0);
        const QJsonObject summary = json_of(scan);
        QCOMPARE(summary["layout"].toString(), QStringLiteral("triton"));
        QCOMPARE(summary["kinds"].toObject().keys(), QStringList{"triton"});
        QCOMPARE(summary["entries"].toInt(), int(dirs.size()));
        const auto text = test::run_cli({"scan", dir});
        QVERIFY2(text.out.contains("a Triton cache"), text.out.constData());

        const auto show = test::run_cli({"show", dir, kKernelDir, "--json"});
        QCOMPARE(show.exit_code, 0);
        QCOMPARE(json_of(show)["kernel_name"].toString(), QString::fromLatin1(kKernelName));
        QVERIFY(json_of(show)["device"].isNull());
        QCOMPARE(test::run_cli({"verify", dir}).exit_code, 0);
        const auto ls = test::run_cli({"ls", dir, "--json"});
        QCOMPARE(ls.exit_code, 0);
        QCOMPARE(QJsonDocument::fromJson(ls.out).array().size(), qsizetype(dirs.size()));

        // bench: no kernel module in ~/.triton/cache; an Inductor cache's
        // triton/0/ plans the kernels of the modules one level up.
        const auto flat_plan = test::run_cli({"bench", dir, "--plan"});
        QCOMPARE(flat_plan.exit_code, 2);
        QVERIFY2(flat_plan.err.contains("a Triton cache holds compiled kernels"),
                 flat_plan.err.constData());
        const QString device_dir =
            QString::fromStdString(test::fixture("devset/cache/triton/0").string());
        const auto plan = test::run_cli({"bench", device_dir, "--plan"});
        QVERIFY2(plan.exit_code == 0, plan.err.constData());
        QVERIFY2(plan.out.contains(kKernelName), plan.out.constData());
    }

    void catalogStatsSearchAndPruneWholeHashDirs() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        const QString catalog_arg = temp.path() + "/catalog.sqlite";
        auto dirs = copy_flat(root);
        test::write_bytes(root / kAutotuneDir / "matmul_kernel.autotune.json", kAutotuneJson);
        dirs.insert(kAutotuneDir);
        // A kernel dir a writer is filling: an old one, so only the temp dir holds it.
        const std::string writing = *dirs.begin();
        test::write_bytes(root / writing / "tmp.pid_4242_0a1b" / "k.ptx", "half a PTX");
        age_files(root, 40);
        const QString dir = QString::fromStdString(root.string());

        QCOMPARE(test::run_cli({"index", dir, "--catalog", catalog_arg}).exit_code, 0);
        auto catalog = catalog::Catalog::open(catalog_arg.toStdString());
        QVERIFY_RESULT(catalog);
        auto found = catalog->find_root(root);
        QVERIFY_RESULT(found);
        QVERIFY(found->has_value());
        QCOMPARE((*found)->layout, RootLayout::Triton);

        const auto stats = test::run_cli({"stats", dir, "--json", "--catalog", catalog_arg});
        QVERIFY2(stats.exit_code == 0, stats.err.constData());
        QVERIFY2(stats.out.contains("\"triton_autotune\""), stats.out.constData());
        // Its kernels by arch (all Hopper's) and by name, the largest first.
        const auto stats_root =
            QJsonDocument::fromJson(stats.out).object()["roots"].toArray()[0].toObject();
        const auto by_arch = stats_root["triton_by_arch"].toArray();
        QCOMPARE(by_arch.size(), 1);
        QCOMPARE(by_arch[0].toObject()["group"].toString(), QString("90"));
        QVERIFY(by_arch[0].toObject()["kernels"].toInt() >= 66);
        const auto by_name = stats_root["triton_by_name"].toArray();
        QCOMPARE(by_name.size(), 10); // --largest
        QVERIFY(by_name[0].toObject()["bytes"].toInteger() >=
                by_name[9].toObject()["bytes"].toInteger());
        const auto stats_text = test::run_cli({"stats", dir, "--catalog", catalog_arg});
        QVERIFY2(stats_text.out.contains("\n  Triton kernels by arch:\n"),
                 stats_text.out.constData());
        const auto search =
            test::run_cli({"search", kKernelName, "--json", "--catalog", catalog_arg});
        QVERIFY2(search.exit_code == 0, search.err.constData());
        QVERIFY2(search.out.contains(kKernelDir), search.out.constData());
        const auto by_function =
            test::run_cli({"search", "matmul_kernel", "--json", "--catalog", catalog_arg});
        QVERIFY2(by_function.out.contains(kAutotuneDir), by_function.out.constData());

        const auto prune = test::run_cli({"prune", dir, "--max-size", "0", "--older-than", "1s",
                                          "--catalog", catalog_arg, "--json"});
        QVERIFY2(prune.exit_code == 1, prune.out.constData()); // the writer's dir stays
        // Every hash dir went whole, files and dir, but the one being written.
        QCOMPARE(subdirs(root), (std::set<std::string>{writing}));
        std::set<std::string> left;
        for (const auto& item : fs::recursive_directory_iterator(root)) {
            if (item.is_regular_file()) {
                left.insert(fs::relative(item.path(), root / writing).string());
            }
        }
        std::set<std::string> expected{"tmp.pid_4242_0a1b/k.ptx"};
        for (const auto& item :
             fs::directory_iterator(test::fixture("devset/cache/triton/0") / writing)) {
            expected.insert(item.path().filename().string());
        }
        if (!fs::exists(test::fixture("devset/cache/triton/0") / writing)) {
            expected = {"tmp.pid_4242_0a1b/k.ptx"};
            for (const auto& item :
                 fs::directory_iterator(test::fixture("multi_dev/cache/triton/0") / writing)) {
                expected.insert(item.path().filename().string());
            }
        }
        QCOMPARE(left, expected);
    }
};

QTEST_GUILESS_MAIN(TestTritonCache)
#include "tst_triton_cache.moc"
