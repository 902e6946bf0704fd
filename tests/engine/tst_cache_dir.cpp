// Scanning, classifying, finding and verifying cache dirs: the real fixtures
// (which must verify clean) and damaged copies (which must name exactly the
// damaged files).

#include "serving_trees.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/verify.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>

using namespace cachelens;
using test::read_bytes;
using test::write_bytes;
using namespace cachelens::cachedir;
namespace fs = std::filesystem;

namespace {

std::map<std::string, const Entry*> by_path(const std::vector<Entry>& entries) {
    std::map<std::string, const Entry*> out;
    for (const auto& entry : entries) {
        out[entry.path] = &entry;
    }
    return out;
}

// An entry as every field reads, to compare two scans' entries whole.
std::string described(const Entry& entry) {
    return std::string(to_string(entry.kind)) + " " + entry.key + " " + entry.path + " " +
           entry.name + " " + std::to_string(entry.size) + " " + std::to_string(entry.mtime_ns) +
           " " + std::to_string(entry.file_count);
}

std::string described(const FileRecord& file) {
    return std::string(to_string(file.kind)) + " " + file.path + " " + std::to_string(file.size) +
           " " + std::to_string(file.mtime_ns) + " " + std::to_string(file.inode);
}

std::string first_file_in(const fs::path& dir) {
    return fs::directory_iterator(dir)->path().filename().string();
}

} // namespace

class TestCacheDir : public QObject {
    Q_OBJECT

private slots:
    // The README's shortened keys: the start of one key names its entries; the
    // start of several is an error listing them; paths and short starts are not
    // prefixes.
    void keyPrefixes() {
        auto devset = cachedir::scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(devset);
        auto one = cachedir::find_entries_or_key_prefix(*devset, "fugz3vdph3s6");
        QVERIFY_RESULT(one);
        QCOMPARE(one->size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(one->front().key),
                 QStringLiteral("fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq"));
        for (const char* none : {"fug", "zzzzzz", "fxgraph/ug/fugz3"}) {
            auto nothing = cachedir::find_entries_or_key_prefix(*devset, none);
            QVERIFY_RESULT(nothing);
            QVERIFY2(nothing->empty(), none);
        }

        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const std::filesystem::path root = temp.path().toStdString();
        std::filesystem::create_directories(root / "ab");
        for (const char* name : {"abcd0001", "abcd0002"}) {
            std::ofstream(root / "ab" / (std::string(name) + ".best_config")) << "{}";
        }
        auto scan = cachedir::scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        auto several = cachedir::find_entries_or_key_prefix(*scan, "abcd");
        QVERIFY(!several);
        QCOMPARE(several.error().kind, ErrorKind::InvalidArgument);
        QVERIFY2(several.error().message ==
                     "'abcd' is the start of 2 keys; give more of one:\n  abcd0001\n  abcd0002",
                 several.error().message.c_str());
        auto exact = cachedir::find_entries_or_key_prefix(*scan, "abcd0002");
        QVERIFY_RESULT(exact);
        QCOMPARE(exact->size(), std::size_t{1});
    }

    void classifiesEveryKind_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kind");
        QTest::newRow("fx") << "fxgraph/3g/f3gun/mmgn42"
                            << "fxgraph";
        QTest::newRow("fx too deep") << "fxgraph/3g/f3gun/x/y"
                                     << "unknown";
        QTest::newRow("aot") << "aotautograd/anyued6/sjgoq"
                             << "aotautograd";
        QTest::newRow("module") << "2c/c2cluqct.py"
                                << "module";
        QTest::newRow("cpp") << "ys/cyshqrint.cpp"
                             << "cpp";
        QTest::newRow("main cpp") << "vb/cvb2kkjv.main.cpp"
                                  << "cpp";
        QTest::newRow("so") << "vb/cvb2kkjv.main.so"
                            << "library";
        QTest::newRow("best config") << "nf/e4ba3186.best_config"
                                     << "best_config";
        QTest::newRow("kernel perf") << "lq/clqkpwbf.kernel_perf"
                                     << "kernel_perf";
        QTest::newRow("benchmark cache") << "cache/2b00ebb9d40b"
                                         << "benchmark_cache";
        QTest::newRow("triton") << "triton/0/2NNRW3X/k.cubin"
                                << "triton";
        QTest::newRow("triton staging") << "triton/0/tmp.pid_12_34/k.cubin"
                                        << "tmp";
        QTest::newRow("pgo") << "dynamo/code_state_abc.pkl"
                             << "pgo";
        QTest::newRow("lock") << "locks/cssjfi4q.lock"
                              << "lock";
        QTest::newRow("temp") << "fxgraph/3g/f3gun/.1234.5678.tmp"
                              << "tmp";
        QTest::newRow("stray") << "notes.txt"
                               << "unknown";
        // What codecache.py's other writers leave (docs/FORMATS.md §3).
        const std::string aoti = "chx2qgaetskedlxq7h7dzw2yyyszhm4med4b2pdrkz2uzixwlrkg";
        const auto row = [](const char* name, const std::string& path, const char* kind) {
            QTest::newRow(name) << QString::fromStdString(path) << QString(kind);
        };
        row("aoti wrapper", aoti + "/cfoh.wrapper.cpp", "aoti");
        row("aoti library", aoti + "/cfoh.wrapper.so", "aoti");
        row("aoti cubin", aoti + "/cbfa.cubin", "aoti");
        row("aoti consts dir", aoti + "/cfoh/cdpb.weights.o", "aoti");
        row("aoti lock", aoti + "/x.lock", "lock");
        row("aoti eager", "aoti_eager/aten/cpu/add.Tensor.json", "aoti");
        row("cubin for the C++ wrapper", "ab/cabc.cubin", "kernel_binary");
        row("hsaco", "ab/cabc.hsaco", "kernel_binary");
        row("zebin", "ab/cabc.zebin", "kernel_binary");
        row("object", "ab/cabc.main.o", "object");
        row("cutlass source", "ab/cabc.cu", "cpp");
        row("cpp prefix copy", "ab/cabc.h", "cpp");
        row("metric table", "ab/cabc.txt", "text");
        row("compile error", "ab/cabc.so.error", "text");
        row("precompiled header source", "precompiled_headers/cxyz.h", "cpp");
        row("precompiled header", "precompiled_headers/cxyz.h.gch", "precompiled_header");
        row("precompiled header lock", "precompiled_headers/locks/cxyz.lock", "lock");
        row("debug copy", "ab/cabc.debug/output_code.py", "debug");
        row("debug lock", "ab/cabc.debug.lock", "lock");
        row("halide kernel", "ab/cabc.halide/generate_kernel.py", "halide");
        row("halide lock", "ab/cabc.halide/lock", "lock");
        row("halide runtime", "halide-runtime-host-abc/standalone_halide_runtime.a", "halide");
        row("autoheuristic", "autoheuristic/NVIDIA H100/mm.txt", "text");
        row("bisector", "bisect/run/_config.txt", "text");
        row("memoizer dump", "memoizer_cache.json", "text");
        row("deterministic dump", "cache/dcache_dump/imc.save", "text");
        row("cutlass op configs", "configs_1234abcd.json", "text");
        row("fresh cache dir", "tmpab_cd1ef/fxgraph/3g/f3gun/mmgn42", "tmp");
        row("compiler scratch", "ab/cabc_CxxBuild/x.o", "tmp");
        row("pgo being written", "dynamo/code_state_abc.pkl.tmp", "tmp");
        row("keyed cache value", "cache/inductor_on_disk_cache/054560f575c37a2e455c434de988c4cc",
            "on_disk_cache");
        row("keyed cache lock", "cache/inductor_on_disk_cache/locks/0545.lock", "lock");
        row("vLLM precompiled model", "torch_aot_compile/3f2a/rank_0_0/model", "precompile");
        // A cache dir called "cache" walked from its parent: its modules are no values.
        row("module of a nested cache dir",
            "cache/xd/cxud5m2rmclr46xmocmetjq4xbnp6b7qkt4sa5l3lmv2utix7hbk.py", "unknown");
        row("caching module lock", "cache/should_pad/dir.lock", "lock");
    }
    void classifiesEveryKind() {
        QFETCH(QString, path);
        QFETCH(QString, kind);
        QCOMPARE(QString::fromStdString(std::string(to_string(classify(path.toStdString())))),
                 kind);
        QCOMPARE(file_kind_from_string(kind.toStdString()), classify(path.toStdString()));
    }

    // Which dirs under a walked dir are cache dirs of their own.
    void nestedCacheDirs() {
        const std::vector<std::string> unknown{
            "cache/xd/cxud5m2rmclr46xmocmetjq4xbnp6b7qkt4sa5l3lmv2utix7hbk.py",
            "cache/fxgraph/xd/fxdkey/abc",
            "notes/readme.md",
            "notes/todo.txt",
            "stray.bin",
        };
        QCOMPARE(cachedir::nested_cache_dirs(unknown), std::vector<std::string>{"cache"});
        QCOMPARE(cachedir::nested_cache_dirs({}), std::vector<std::string>{});
        QCOMPARE(cachedir::nested_cache_dirs_note("/x/run", std::vector<std::string>{"cache"}),
                 std::string("/x/run/cache looks like a cache dir of its own: cachelens scan "
                             "/x/run/cache"));
    }

    void scanMatchesTheManifest() {
        // golden.json's manifest lists every file PyTorch wrote, with its size.
        const auto golden = test::read_json(test::fixture("devset/golden.json"));
        std::map<std::string, qint64> expected;
        for (const auto& value : golden["manifest"].toArray()) {
            const auto path = value.toObject()["path"].toString().toStdString();
            if (path.starts_with("cache/")) {
                expected[path.substr(6)] = value.toObject()["size"].toInteger();
            }
        }
        auto scan = scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(scan);
        QVERIFY(scan->errors.empty());
        QCOMPARE(scan->files.size(), expected.size());
        for (const auto& file : scan->files) {
            QVERIFY2(expected.contains(file.path), file.path.c_str());
            QCOMPARE(static_cast<qint64>(file.size), expected[file.path]);
            QVERIFY(file.kind != FileKind::Unknown);
            QVERIFY(file.inode != 0 && file.mtime_ns > 0);
        }
        const auto summary = scan->summary();
        QCOMPARE(summary.at(FileKind::FxGraph).entries, 10u);
        QCOMPARE(summary.at(FileKind::AotAutograd).entries, 9u);
        QCOMPARE(summary.at(FileKind::Module).entries, 49u);
        QCOMPARE(summary.at(FileKind::BestConfig).entries, 8u);
        QCOMPARE(summary.at(FileKind::Triton).entries, 66u);
        QCOMPARE(summary.at(FileKind::Triton).files, 528u);
        std::uint64_t bytes = 0;
        for (const auto& [kind, counts] : summary) {
            bytes += counts.bytes;
        }
        std::uint64_t manifest_bytes = 0;
        for (const auto& [path, size] : expected) {
            manifest_bytes += static_cast<std::uint64_t>(size);
        }
        QCOMPARE(bytes, manifest_bytes);
    }

    void everyEntryOfEveryFixtureLoads() {
        for (const char* dir :
             {"devset/cache", "devset/cache_from_mega", "multi_dev/cache", "cpu_dev/cache"}) {
            auto scan = scan_cache_dir(test::fixture(dir));
            QVERIFY_RESULT(scan);
            for (const auto& entry : scan->entries()) {
                auto loaded = load_entry(scan->root, entry);
                QVERIFY_RESULT(loaded);
            }
        }
    }

    void tritonDirsAreOneEntry() {
        auto scan = scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(scan);
        const auto entries = scan->entries();
        const auto paths = by_path(entries);
        const Entry* kernel =
            paths.at("triton/0/42WVLKQDYD5ZCK6CFR2LX6QK6QE2GO6XYEABMMIW3VHRYI62AS7Q");
        QCOMPARE(kernel->kind, FileKind::Triton);
        QCOMPARE(kernel->name, "triton_red_fused_mul_sqrt_sum_0");
        QCOMPARE(kernel->file_count, 8u);
        QCOMPARE(kernel->key, "42WVLKQDYD5ZCK6CFR2LX6QK6QE2GO6XYEABMMIW3VHRYI62AS7Q");
    }

    void findsEntriesByKeyPathAndName() {
        auto scan = scan_cache_dir(test::fixture("multi_dev/cache"));
        QVERIFY_RESULT(scan);
        const std::string key = "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
        QCOMPARE(find_entries(*scan, key).size(), 2u); // one key, two guarded entries
        QCOMPARE(find_entries(*scan, "fxgraph/tk/" + key).size(), 2u);
        QCOMPARE(find_entries(*scan, "fxgraph/tk/" + key + "/").size(), 2u);
        const auto one = find_entries(
            *scan, "fxgraph/tk/" + key + "/hjhnw6azgd6tla6trsnehzke4j5doxsegqmai4fpurmrc2yqoas");
        QCOMPARE(one.size(), 1u);
        const auto absolute = find_entries(*scan, (scan->root / one[0].path).string());
        QCOMPARE(absolute.size(), 1u);
        QCOMPARE(absolute[0].path, one[0].path);
        QVERIFY(find_entries(*scan, "nothing-like-this").empty());
        QVERIFY(find_entries(*scan, "/etc/passwd").empty());

        auto devset = scan_cache_dir(test::fixture("devset/cache"));
        QVERIFY_RESULT(devset);
        const auto by_name = find_entries(*devset, "triton_red_fused_mul_sqrt_sum_0");
        QVERIFY(by_name.size() >= 2); // one Triton dir per autotune candidate
        for (const auto& entry : by_name) {
            QCOMPARE(entry.kind, FileKind::Triton);
        }
        const auto inside =
            find_entries(*devset, "triton/0/42WVLKQDYD5ZCK6CFR2LX6QK6QE2GO6XYEABMMIW3VHRYI62AS7Q/"
                                  "triton_red_fused_mul_sqrt_sum_0.cubin");
        QCOMPARE(inside.size(), 1u);
    }

    // What the GUI's --select and links use: how an entry matches a query,
    // and the key a catalog search finds it by.
    void entryQueryTellsAPathFromAKey() {
        auto scan = scan_cache_dir(test::fixture("multi_dev/cache"));
        QVERIFY_RESULT(scan);
        const std::string key = "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
        const std::string second = "ndyhf46ldwmlkvpp4mky6repcjnctgzt5cojksekpxljmat467r";
        const std::string path = "fxgraph/tk/" + key + "/" + second;
        const auto entries = scan->entries();
        const auto matches = [&](const EntryQuery& query, EntryQuery::Match how) {
            std::vector<std::string> out;
            for (const auto& entry : entries) {
                if (query.match(entry) == how) {
                    out.push_back(entry.path);
                }
            }
            return out;
        };
        for (const std::string& spelled :
             {path, (scan->root / path).string(), (scan->root / path).string() + "/"}) {
            const EntryQuery query(scan->root, spelled);
            QCOMPARE(matches(query, EntryQuery::Match::Path), std::vector<std::string>{path});
            QVERIFY(matches(query, EntryQuery::Match::Key).empty());
            QCOMPARE(query.search_key(), key);
        }
        const EntryQuery byKey(scan->root, key);
        QVERIFY(matches(byKey, EntryQuery::Match::Path).empty());
        QCOMPARE(matches(byKey, EntryQuery::Match::Key).size(), 2u);
        QCOMPARE(byKey.search_key(), key);
        const EntryQuery keyDir(scan->root, "fxgraph/tk/" + key);
        QCOMPARE(matches(keyDir, EntryQuery::Match::Key).size(), 2u);
        QCOMPARE(keyDir.search_key(), key);
        // Outside the root: nothing, even when the tail looks like an entry's.
        const EntryQuery outside(scan->root, "/elsewhere/" + path);
        QVERIFY(matches(outside, EntryQuery::Match::Path).empty());

        const std::string triton = "triton/0/L2KQLBTF3B3HZ3YRXN7U25EN6KGYJTFQDFHON2CZ62ZFHDARA6MA";
        const EntryQuery tritonFile(scan->root, triton + "/triton_poi_fused_mul_sin_0.cubin");
        QCOMPARE(matches(tritonFile, EntryQuery::Match::Path), std::vector<std::string>{triton});
        QCOMPARE(tritonFile.search_key(), "L2KQLBTF3B3HZ3YRXN7U25EN6KGYJTFQDFHON2CZ62ZFHDARA6MA");
        QCOMPARE(EntryQuery(scan->root, triton).search_key(),
                 "L2KQLBTF3B3HZ3YRXN7U25EN6KGYJTFQDFHON2CZ62ZFHDARA6MA");
        const EntryQuery name(scan->root, "triton_poi_fused_mul_sin_0");
        QCOMPARE(matches(name, EntryQuery::Match::Key).size(), 4u);
        QCOMPARE(EntryQuery(scan->root,
                            "ev/83fc9438728699e376cdfacdd6ef6ec58cc063f3df1aef131c7310620367f69a"
                            ".best_config")
                     .search_key(),
                 "83fc9438728699e376cdfacdd6ef6ec58cc063f3df1aef131c7310620367f69a");
    }

    // A part scan (what `watch` and Follow changes index) reads an entry as
    // the whole walk does: for every file of every entry of the devset and of
    // a vLLM tree (whose kinds depend on where a file sits), the part scan of
    // that one file holds that entry, every field and every file equal, and
    // only entries the whole scan has; a file of a Triton kernel dir reads the
    // dir whole.
    void partScanReadsAnEntryAsTheWholeScan_data() {
        QTest::addColumn<QString>("tree");
        QTest::newRow("devset") << "devset";
        QTest::newRow("vllm 0.9") << "vllm";
    }
    void partScanReadsAnEntryAsTheWholeScan() {
        QFETCH(QString, tree);
        QTemporaryDir temp;
        const fs::path root = tree == "devset"
                                  ? test::fixture("devset/cache")
                                  : test::serving_fixture::vllm_09(temp.path().toStdString()) /
                                        "64625fd5e0" / "rank_0_0";
        auto whole = scan_cache_dir(root);
        QVERIFY_RESULT(whole);
        if (tree != "devset") {
            QVERIFY(whole->serving.has_value());
        }
        std::map<std::string, std::string> whole_entries;
        for (const auto& entry : whole->entries()) {
            whole_entries[entry.path] = described(entry);
        }
        std::map<std::string, std::string> whole_files;
        for (const auto& file : whole->files) {
            whole_files[file.path] = described(file);
        }
        std::size_t triton_dirs = 0;
        for (const auto& file : whole->files) {
            const std::vector<std::string> paths{file.path};
            auto part = scan_cache_paths(root, paths);
            QVERIFY_RESULT(part);
            QVERIFY(part->scan.errors.empty());
            QCOMPARE(part->scan.serving.has_value(), whole->serving.has_value());
            const std::string_view dir = entry_dir_of(file.kind, file.path);
            const std::string entry_path = dir.empty() ? file.path : std::string(dir);
            bool found = false;
            for (const auto& entry : part->scan.entries()) {
                QVERIFY2(whole_entries.contains(entry.path), entry.path.c_str());
                QCOMPARE(QString::fromStdString(described(entry)),
                         QString::fromStdString(whole_entries.at(entry.path)));
                found |= entry.path == entry_path;
            }
            QVERIFY2(found, file.path.c_str());
            for (const auto& record : part->scan.files) {
                QCOMPARE(QString::fromStdString(described(record)),
                         QString::fromStdString(whole_files.at(record.path)));
            }
            if (dir.empty()) {
                QCOMPARE(part->files, paths);
                QVERIFY(part->dirs.empty());
            } else {
                QCOMPARE(part->dirs, std::vector<std::string>{std::string(dir)});
                triton_dirs += file.kind == FileKind::Triton ? 1 : 0;
            }
        }
        QVERIFY(triton_dirs > 0);
    }

    // A dir named reads every entry under it; a file that is gone is spoken
    // for and not found; a path out of the root is refused.
    void partScanOfDirsGoneFilesAndPathsOutside() {
        const fs::path root = test::fixture("devset/cache");
        auto whole = scan_cache_dir(root);
        QVERIFY_RESULT(whole);
        const std::vector<std::string> paths{"fxgraph", "fxgraph/zz/gone", "triton/0"};
        auto part = scan_cache_paths(root, paths);
        QVERIFY_RESULT(part);
        QCOMPARE(part->dirs, (std::vector<std::string>{"fxgraph", "triton/0"}));
        QVERIFY(part->files.empty()); // the gone file is under fxgraph
        std::size_t expected = 0;
        for (const auto& file : whole->files) {
            expected += file.path.starts_with("fxgraph/") || file.path.starts_with("triton/0/");
        }
        QCOMPARE(part->scan.files.size(), expected);
        QVERIFY(expected > 0);

        const std::vector<std::string> gone{"modules/xx/cgone.py"};
        auto none = scan_cache_paths(root, gone);
        QVERIFY_RESULT(none);
        QVERIFY(none->scan.files.empty());
        QCOMPARE(none->files, gone);

        for (const std::string outside : {"../devset", "/etc/passwd", "fxgraph/../../x", "", "."}) {
            const std::vector<std::string> bad{outside};
            auto refused = scan_cache_paths(root, bad);
            QVERIFY2(!refused, outside.c_str());
            QCOMPARE(refused.error().kind, ErrorKind::InvalidArgument);
        }
    }

    void scanRefusesWhatIsNotADir() {
        auto missing = scan_cache_dir("/nonexistent/cachelens/dir");
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, ErrorKind::NotFound);
        QCOMPARE(missing.error().path, "/nonexistent/cachelens/dir");
        const auto file = test::fixture("devset/golden.json");
        auto not_dir = scan_cache_dir(file);
        QVERIFY(!not_dir);
        QCOMPARE(not_dir.error().kind, ErrorKind::InvalidArgument);
    }

    void symlinksAreNotFollowed() {
        QTemporaryDir temp;
        const fs::path root = temp.path().toStdString();
        fs::create_directories(root / "fxgraph");
        fs::create_directory_symlink("/etc", root / "fxgraph" / "escape");
        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QVERIFY(scan->files.empty());
        QCOMPARE(scan->errors.size(), 1u);
        QVERIFY(scan->errors[0].message.find("symbolic link") != std::string::npos);
        const auto report = verify_cache_dir(*scan);
        QCOMPARE(report.problems.size(), 1u);
        QCOMPARE(report.problems[0].kind, ProblemKind::Unreadable);
    }

    // The walk's threads share the dirs of the first two levels: on a wide
    // tree (hundreds of them, files and symlinks at every depth) the scan
    // finds exactly what a plain recursive walk finds, every file once, the
    // same sizes, and reports each symlink once, in path order.
    void wideTreeScansAsAPlainWalkDoes() {
        QTemporaryDir temp;
        const fs::path root = temp.path().toStdString();
        std::size_t made = 0;
        for (int shard = 0; shard < 40; ++shard) {
            const fs::path shard_dir =
                root / "fxgraph" / ((shard < 10 ? "0" : "") + std::to_string(shard));
            for (int key = 0; key < 12; ++key) {
                const fs::path key_dir = shard_dir / ("fkey" + std::to_string(shard * 100 + key));
                fs::create_directories(key_dir);
                write_bytes(key_dir / "entry", std::string(static_cast<std::size_t>(key), 'x'));
                ++made;
            }
            const fs::path modules = root / ("m" + std::to_string(shard));
            fs::create_directories(modules);
            for (int module = 0; module < 9; ++module) {
                write_bytes(modules / ("c" + std::to_string(module) + ".py"), "pass\n");
                ++made;
            }
        }
        write_bytes(root / "top-file", "x");
        ++made;
        fs::create_directory_symlink("/etc", root / "m3" / "link");
        fs::create_directory_symlink("/etc", root / "fxgraph" / "07" / "link");
        fs::create_directory_symlink("/etc", root / "link");

        std::map<std::string, std::uintmax_t> expected;
        std::size_t links = 0;
        for (auto it = fs::recursive_directory_iterator(root); it != fs::end(it); ++it) {
            if (it->is_symlink()) {
                ++links;
            } else if (it->is_regular_file()) {
                expected[fs::relative(it->path(), root).string()] = it->file_size();
            }
        }
        QCOMPARE(expected.size(), made);
        for (int round = 0; round < 5; ++round) {
            auto scan = scan_cache_dir(root);
            QVERIFY_RESULT(scan);
            std::map<std::string, std::uintmax_t> found;
            for (const auto& file : scan->files) {
                QVERIFY2(found.emplace(file.path, file.size).second, file.path.c_str());
            }
            QCOMPARE(found, expected);
            QVERIFY(std::ranges::is_sorted(scan->files, {}, &FileRecord::path));
            QCOMPARE(scan->errors.size(), links);
            QVERIFY(std::ranges::is_sorted(scan->errors, {}, &Error::path));
            QCOMPARE(scan->empty_key_dirs.size(), 0u);
        }
        // A stop asked from the progress callback ends every thread's walk.
        std::size_t reports = 0;
        auto stopped = scan_cache_dir(root, [&](const Progress&) { return ++reports < 2; });
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, ErrorKind::Cancelled);
    }

    // A key dir without entries is what a prune may leave: the scan names
    // it, verify lists it as a warning (the dir stays clean), and a command
    // asking for that key can say why it finds nothing.
    void keyDirsWithoutEntries() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), root);
        const std::string fx_key = "f" + std::string(51, 'z');
        const std::string aot_key = "a" + std::string(51, 'z');
        const std::string fx_dir = "fxgraph/zz/" + fx_key;
        const std::string aot_dir = "aotautograd/" + aot_key;
        fs::create_directories(root / fx_dir);
        fs::create_directories(root / aot_dir);
        // Only a write in progress: still no entry.
        const std::string writing_dir = "fxgraph/yy/f" + std::string(51, 'y');
        fs::create_directories(root / writing_dir);
        std::ofstream(root / writing_dir / ".123.456.tmp") << "half";
        // Two minutes without a write: one that died, not one at work.
        test::age_files(root / writing_dir / ".123.456.tmp", std::chrono::minutes(2));
        fs::create_directories(root / "fxgraph/xx"); // a shard dir, not a key dir

        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QCOMPARE(scan->empty_key_dirs, (std::vector<std::string>{aot_dir, writing_dir, fx_dir}));
        QCOMPARE(empty_key_dir_named(*scan, fx_key), fx_dir);
        QCOMPARE(empty_key_dir_named(*scan, fx_dir + "/"), fx_dir);
        QCOMPARE(empty_key_dir_named(*scan, (root / aot_dir).string()), aot_dir);
        QCOMPARE(empty_key_dir_named(*scan, "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e"),
                 std::string());
        QCOMPARE(empty_key_dir_named(*scan, "fnope"), std::string());
        QCOMPARE(no_entries_message(fx_dir),
                 "no entries under key " + fx_key + " (its dir " + fx_dir + " is empty)");

        const auto report = verify_cache_dir(*scan);
        QCOMPARE(report.problems.size(), 1u); // the temp file
        QCOMPARE(report.problems[0].kind, ProblemKind::StrayTemp);
        QCOMPARE(report.warnings.size(), 3u);
        for (const auto& warning : report.warnings) {
            QCOMPARE(warning.kind, ProblemKind::EmptyKeyDir);
            QCOMPARE(to_string(warning.kind), std::string_view("empty-key-dir"));
        }
        QCOMPARE(report.warnings[0].path, aot_dir);
        fs::remove(root / writing_dir / ".123.456.tmp");
        scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QVERIFY(verify_cache_dir(*scan).clean());
    }

    void fixturesVerifyClean_data() {
        QTest::addColumn<QString>("dir");
        QTest::newRow("devset") << "devset/cache";
        QTest::newRow("after a mega-cache load") << "devset/cache_from_mega";
        QTest::newRow("multi entry key") << "multi_dev/cache";
        QTest::newRow("cpu") << "cpu_dev/cache";
    }
    void fixturesVerifyClean() {
        QFETCH(QString, dir);
        auto scan = scan_cache_dir(test::fixture(dir.toStdString()));
        QVERIFY_RESULT(scan);
        const auto report = verify_cache_dir(*scan);
        for (const auto& problem : report.problems) {
            qWarning("%s: %s", problem.path.c_str(), problem.message.c_str());
        }
        QVERIFY(report.clean());
        QVERIFY(report.names_verified > 0);
        QCOMPARE(report.entries_checked, scan->entries().size());
    }

    void sampleCacheVerifiesClean() {
        auto scan = scan_cache_dir(test::sample_cache());
        QVERIFY_RESULT(scan);
        QVERIFY(scan->summary().at(FileKind::FxGraph).entries >= 5);
        QVERIFY(verify_cache_dir(*scan).clean());
    }

    void verifyNamesExactlyTheDamagedFiles() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), root);

        // Truncated FX entry, bit-flipped module, renamed AOT entry, truncated
        // best_config, a Triton dir without its cubin, a stray temp file, an
        // AOT entry whose forward graph was deleted.
        const fs::path fx_dir =
            root / "fxgraph/kk/fkkjvznfduzvetzt76yadqm6ez5k5ymangrh732nwzvbbl3y25oq";
        const std::string fx = "fxgraph/kk/fkkjvznfduzvetzt76yadqm6ez5k5ymangrh732nwzvbbl3y25oq/" +
                               first_file_in(fx_dir);
        write_bytes(root / fx, read_bytes(root / fx).substr(0, 5000));

        const std::string module = "2c/c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w.py";
        std::string source = read_bytes(root / module);
        source[source.size() / 2] ^= 0x04;
        write_bytes(root / module, source);

        const fs::path aot_dir =
            root / "aotautograd/acbrwiqvrn7rg4grcchrurss26pj64efbb4xv6kecwqscfodrjec";
        const std::string renamed_aot =
            "aotautograd/acbrwiqvrn7rg4grcchrurss26pj64efbb4xv6kecwqscfodrjec/"
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        fs::rename(aot_dir / first_file_in(aot_dir), root / renamed_aot);

        const std::string best_config =
            "nf/e4ba318612276f8fb2204775462f06fc309cce5bc0c4ddd85d51e606cbf9aa41.best_config";
        write_bytes(root / best_config, read_bytes(root / best_config).substr(0, 40));

        const std::string triton = "triton/0/2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA";
        fs::remove(root / triton / "triton_red_fused_cat_cumsum_sin_0.cubin");

        const std::string temp_file = "fxgraph/3g/.4242.139871.tmp";
        write_bytes(root / temp_file, "half a write");

        // anyued6's forward graph is f3gun: delete that key dir.
        fs::remove_all(root / "fxgraph/3g/f3gunfwvnc2bijojank6na6pplhx6nopcc7cx3stulctblbl4cln");
        const std::string orphan_aot_dir =
            "aotautograd/anyued6fehzl7v6da7mshoibxbxwa7ub4djhrl57qhvwptoxex6v/";
        const std::string orphan_aot = orphan_aot_dir + first_file_in(root / orphan_aot_dir);
        // Damage a minute old or more: a write that died, not one at work.
        test::age_files(root, std::chrono::minutes(2));

        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        const auto report = verify_cache_dir(*scan);
        std::map<std::string, std::vector<ProblemKind>> found;
        for (const auto& problem : report.problems) {
            found[problem.path].push_back(problem.kind);
        }
        const std::map<std::string, std::vector<ProblemKind>> expected = {
            {fx, {ProblemKind::NameMismatch, ProblemKind::ParseError}},
            {module, {ProblemKind::NameMismatch}},
            {renamed_aot, {ProblemKind::NameMismatch}},
            {best_config, {ProblemKind::ParseError}},
            {triton, {ProblemKind::Incomplete, ProblemKind::Incomplete}},
            {temp_file, {ProblemKind::StrayTemp}},
            {orphan_aot, {ProblemKind::DanglingLink}},
        };
        for (const auto& problem : report.problems) {
            qDebug("%s: %s: %s", problem.path.c_str(), std::string(to_string(problem.kind)).c_str(),
                   problem.message.c_str());
        }
        QCOMPARE(found, expected);
    }

    void verifyCatchesMovedAndMismatchedEntries() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("multi_dev/cache"), root);
        // An entry moved under another key: its name still matches, its key does not.
        const fs::path from =
            root / "fxgraph/tk/ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
        const fs::path to = root / "fxgraph/zz/fzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";
        fs::create_directories(to);
        const std::string name = first_file_in(from);
        fs::rename(from / name, to / name);
        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        const auto report = verify_cache_dir(*scan);
        QCOMPARE(report.problems.size(), 1u);
        QCOMPARE(report.problems[0].kind, ProblemKind::KeyMismatch);
        QCOMPARE(report.problems[0].path,
                 "fxgraph/zz/fzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz/" + name);
    }
};

QTEST_GUILESS_MAIN(TestCacheDir)
#include "tst_cache_dir.moc"
