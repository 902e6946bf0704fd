// torch/_inductor/cache.py's caches (cachedir/keyed_cache.h): OnDiskCache
// values as PyTorch 2.11 wrote them on an H200 (tests/data/real-fixtures) and
// as every way one can go wrong (tests/data/keyed_cache, made by
// make_keyed_cache.py by 2.11's rules), InMemoryCache's file and env forms
// with PyTorch's own errors; the CLI's scan, show, verify and ls over them.

#include "test_paths.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/keyed_cache.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/pickle/repr.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <map>

using namespace cachelens;
using namespace cachelens::cachedir;
namespace fs = std::filesystem;

namespace {

const char* const kMarker = "/tmp/cachelens-keyed-cache-marker";

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString path_arg(const fs::path& path) {
    return QString::fromStdString(path.string());
}

fs::path data(const std::string& relative) {
    return test::test_data("keyed_cache/" + relative);
}

std::string hex(std::string_view bytes) {
    std::string out;
    for (const char c : bytes) {
        static constexpr char digits[] = "0123456789abcdef";
        out += digits[static_cast<unsigned char>(c) >> 4];
        out += digits[static_cast<unsigned char>(c) & 0xf];
    }
    return out;
}

// The value of the file named `name` under the scanned root.
KeyedCacheValue value_named(const Scan& scan, std::string_view name) {
    for (const auto& entry : scan.entries()) {
        if (entry.kind == FileKind::KeyedCacheValue && entry.key == name) {
            auto content = load_entry(scan.root, entry);
            if (!content) {
                qFatal("%s: %s", std::string(name).c_str(), content.error().describe().c_str());
            }
            return std::get<KeyedCacheValue>(*content);
        }
    }
    qFatal("no value named %s", std::string(name).c_str());
}

QJsonObject parse(const QByteArray& json) {
    return QJsonDocument::fromJson(json).object();
}

} // namespace

class TestKeyedCache : public QObject {
    Q_OBJECT

private slots:
    void init() { QFile::remove(kMarker); }
    void cleanup() { QVERIFY2(!QFile::exists(kMarker), "a hostile pickle ran"); }

    void versionPrefixesAreSha256OfTheVersion() {
        QCOMPARE(hex(on_disk_cache_prefix(0)), std::string("5feceb66"));
        QCOMPARE(hex(on_disk_cache_prefix(1)), std::string("6b86b273"));
        QVERIFY(is_keyed_cache_value_name("054560f575c37a2e455c434de988c4cc"));
        QVERIFY(!is_keyed_cache_value_name("054560F575C37A2E455C434DE988C4CC"));
        QVERIFY(!is_keyed_cache_value_name("054560f575c37a2e455c434de988c4c"));
    }

    // What PyTorch 2.11 wrote through InductorOnDiskCache and read back.
    void realValuesMatchWhatPyTorchReadBack() {
        const auto golden = test::read_json(test::real_fixture("on_disk_cache/golden.json"))
                                .object()["on_disk_cache"]
                                .toObject();
        QCOMPARE(golden["version_prefix_hex"].toString(), "5feceb66");
        const fs::path root = test::real_fixture("on_disk_cache/torchinductor_root");
        auto scan = scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QCOMPARE(scan->summary()[FileKind::KeyedCacheValue].entries, 5u);
        int checked = 0;
        for (const auto& item : golden["entries"].toArray()) {
            const auto entry = item.toObject();
            const std::string path = entry["path"].toString().toStdString();
            const std::string name = path.substr(path.rfind('/') + 1);
            const KeyedCacheValue value = value_named(*scan, name);
            QCOMPARE(value.version, ValueVersion::Current);
            QCOMPARE(qs(value.cache_name), QString("inductor_on_disk_cache"));
            QCOMPARE(qs(value.prefix_hex), golden["version_prefix_hex"].toString());
            QVERIFY(entry["read_back_equal"].toBool());
            QCOMPARE(qs(pickle::repr(value.value())), entry["read_back_repr"].toString());
            QVERIFY(!value.memoized);
            ++checked;
        }
        QCOMPARE(checked, 5);
        const VerifyReport report = verify_cache_dir(*scan);
        QVERIFY(report.clean());
        QCOMPARE(report.names_not_content_addressed, 5u);
    }

    void realInMemoryCacheFile() {
        auto file = load_standalone_file(test::real_fixture("on_disk_cache/in_memory_cache.pkl"));
        QVERIFY_RESULT(file);
        QCOMPARE(file->entry.kind, FileKind::InMemoryCache);
        const auto& cache = std::get<InMemoryCacheContents>(file->content);
        QVERIFY(!cache.from_env);
        std::map<std::string, std::string> pairs;
        for (const auto& pair : cache.pairs) {
            pairs[pickle::repr(*pair.key)] = pickle::repr(*pair.value);
        }
        // golden: {'k1': 1, ('k', 2): [3, 4]} as from_file_path read it.
        QCOMPARE(pairs,
                 (std::map<std::string, std::string>{{"'k1'", "1"}, {"('k', 2)", "[3, 4]"}}));
        QCOMPARE(bundle::judge_standalone_file(*file).verdict, safety::Verdict::DataOnly);
    }

    // Each way a value can go wrong, as verify names it.
    void verifyNamesEachProblem() {
        auto scan = scan_cache_dir(data("root"));
        QVERIFY_RESULT(scan);
        const VerifyReport report = verify_cache_dir(*scan);
        std::map<std::string, std::vector<std::pair<ProblemKind, std::string>>> found;
        for (const auto& problem : report.problems) {
            found[problem.path].emplace_back(problem.kind, problem.message);
        }
        const std::string dir = "cache/inductor_on_disk_cache/";
        const auto kind_of = [&](const std::string& file) {
            const auto it = found.find(dir + file);
            return it == found.end() || it->second.size() != 1 ? std::optional<ProblemKind>{}
                                                               : it->second[0].first;
        };
        QCOMPARE(kind_of("5a9f18430ba31dae62ffe2bbec03e503"), ProblemKind::Stale); // version 1
        QVERIFY(found[dir + "5a9f18430ba31dae62ffe2bbec03e503"][0].second.find(
                    "version 1 (prefix 6b86b273)") != std::string::npos);
        QCOMPARE(kind_of("77a8de2cdb8d0e74ca2446549df4f656"), ProblemKind::Stale); // no prefix
        QCOMPARE(kind_of("4af972434203a77325e2d07314f9f90a"), ProblemKind::ParseError);
        QVERIFY(found[dir + "4af972434203a77325e2d07314f9f90a"][0].second.find(
                    "starts with 00010203") != std::string::npos);
        QCOMPARE(kind_of("28ed683b214539b09140979ba3e2c465"), ProblemKind::ParseError);
        QVERIFY(found[dir + "28ed683b214539b09140979ba3e2c465"][0].second.find("CacheError") !=
                std::string::npos);
        QCOMPARE(kind_of("not-a-hash"), ProblemKind::NameMismatch);
        QCOMPARE(kind_of("locks/ffff.lock"), ProblemKind::OrphanLock);
        // The current value, the hostile one (a verdict, below) and the other
        // locks are no problem.
        QCOMPARE(found.size(), 6u);

        // A pickle that calls os.system is data to the unpickler and a finding to the policy.
        auto verdicts = bundle::judge_cache_dir(*scan);
        QVERIFY_RESULT(verdicts);
        std::map<std::string, safety::Verdict> by_path;
        for (const auto& verdict : *verdicts) {
            by_path[verdict.path] = verdict.check.verdict;
        }
        QCOMPARE(by_path[dir + "188cb45085a86111bc58261c5963a341"],
                 safety::Verdict::CodeWithFindings);
        QCOMPARE(by_path[dir + "054560f575c37a2e455c434de988c4cc"], safety::Verdict::DataOnly);
        QCOMPARE(by_path["cache/should_pad/ed953adff4a83ee0af9e91e8b083f8c9"],
                 safety::Verdict::DataOnly);
    }

    void memoizedCallOfTheCachingModule() {
        auto scan = scan_cache_dir(data("root"));
        QVERIFY_RESULT(scan);
        const KeyedCacheValue value = value_named(*scan, "ed953adff4a83ee0af9e91e8b083f8c9");
        QCOMPARE(qs(value.cache_name), QString("should_pad"));
        QVERIFY(value.memoized.has_value());
        QCOMPARE(qs(pickle::repr(*value.memoized->result)), QString("False"));
        QVERIFY(pickle::repr(*value.memoized->params).starts_with("{'mat1': {'shape': (64, 32)"));
        QVERIFY(keyed_cache_owner("should_pad").find("_should_pad") != std::string::npos);
    }

    // InMemoryCache.from_env_var: each of PyTorch's CacheError conditions in its words.
    void envFormErrorsArePyTorchs_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("error");
        QTest::newRow("missing comma") << "missing_comma.txt"
                                       << "from env_var 'VAR', likely missing comma separator.";
        QTest::newRow("invalid literal")
            << "invalid_literal.txt"
            << "Malformed key_bytes_repr \"b'unterminated\" in kv_pair \"b'unterminated,b'x'\", "
               "encoding is invalid.";
        QTest::newRow("str literal") << "str_literal.txt"
                                     << "a str literal, not bytes (PyTorch's pickle.loads raises "
                                        "TypeError on it).";
        QTest::newRow("not a pickle") << "not_a_pickle.txt"
                                      << "Malformed key_bytes_repr \"b'garbage'\" in kv_pair "
                                         "\"b'garbage',b'\\\\x80\\\\x04K\\\\x01.'\", not "
                                         "un-pickle-able.";
        QTest::newRow("two values") << "two_values.txt"
                                    << "Multiple values for key 'k1' found, got 1 and 2.";
    }
    void envFormErrorsArePyTorchs() {
        QFETCH(QString, file);
        QFETCH(QString, error);
        const std::string value = test::read_bytes(data("env/" + file.toStdString()));
        auto cache = read_in_memory_cache_env(value, "VAR");
        QVERIFY(!cache.has_value());
        QVERIFY2(qs(cache.error().message).endsWith(error), cache.error().message.c_str());
    }

    void envFormReadsEveryPairOnce() {
        const std::string value = test::read_bytes(data("env/good.txt"));
        auto cache = read_in_memory_cache_env(value, "VAR");
        QVERIFY_RESULT(cache);
        QVERIFY(cache->from_env);
        QCOMPARE(qs(cache->source), QString("$VAR"));
        QCOMPARE(cache->pairs.size(), 2u); // the exact duplicate is one pair
        QCOMPARE(qs(pickle::repr(*cache->pairs[1].key)), QString("('k', 2)"));
        QCOMPARE(qs(pickle::repr(*cache->pairs[1].value)), QString("[3, 4]"));
        auto empty = read_in_memory_cache_env(" ; ;", "VAR");
        QVERIFY_RESULT(empty);
        QVERIFY(empty->pairs.empty());
        // A hostile pair decodes as data and is a finding when judged.
        auto hostile = read_in_memory_cache_env(test::read_bytes(data("env/hostile.txt")), "VAR");
        QVERIFY_RESULT(hostile);
        QCOMPARE(bundle::check_in_memory_cache(*hostile).verdict,
                 safety::Verdict::CodeWithFindings);
    }

    void fileFormErrorsArePyTorchs() {
        auto list = read_in_memory_cache_file(data("in_memory/list.pkl"));
        QVERIFY(!list.has_value());
        QVERIFY(list.error().message.find("file contents not pickled dict[Key, Value]") !=
                std::string::npos);
        auto text = load_standalone_file(data("env/good.txt"));
        QVERIFY(!text.has_value());
        QCOMPARE(text.error().kind, ErrorKind::InvalidArgument);
        QVERIFY(text.error().message.starts_with("not a file cachelens reads on its own"));
        // Python source is read as Inductor's generated code, never run.
        auto script = load_standalone_file(data("make_keyed_cache.py"));
        QVERIFY_RESULT(script);
        QCOMPARE(script->entry.kind, FileKind::Module);
    }

    void cliScanShowVerifyLs() {
        const QString root = path_arg(data("root"));
        const auto scan = test::run_cli({"scan", root, "--json"});
        QCOMPARE(scan.exit_code, 1); // two values do not decode
        const auto kinds = parse(scan.out)["kinds"].toObject();
        QCOMPARE(kinds["on_disk_cache"].toObject()["entries"].toInt(), 8);
        QCOMPARE(kinds["lock"].toObject()["entries"].toInt(), 7);
        QCOMPARE(parse(scan.out)["errors"].toArray().size(), 2);

        const auto show =
            test::run_cli({"show", root, "054560f575c37a2e455c434de988c4cc", "--json"});
        QCOMPARE(show.exit_code, 0);
        const auto json = parse(show.out);
        QCOMPARE(json["kind"].toString(), "on_disk_cache");
        QCOMPARE(json["cache"].toString(), "inductor_on_disk_cache");
        QCOMPARE(json["version"].toString(), "current");
        QCOMPARE(json["value"].toString(), "{'XBLOCK': 128, 'num_warps': 4}");
        const auto text = test::run_cli({"show", root, "054560f575c37a2e455c434de988c4cc"});
        QVERIFY(text.out.contains("not stored: the file is named by sha256(pickle.dumps(key))"));

        const auto verify = test::run_cli({"verify", root});
        QCOMPARE(verify.exit_code, 1);
        QVERIFY(verify.out.contains("locks/ffff.lock: orphan-lock: "));
        QVERIFY(verify.out.contains("188cb45085a86111bc58261c5963a341: code with findings"));

        const auto ls =
            test::run_cli({"ls", root, "--kind", "on_disk_cache", "--sort", "size", "--json"});
        QCOMPARE(ls.exit_code, 0);
        const auto rows = QJsonDocument::fromJson(ls.out).array();
        QCOMPARE(rows.size(), 8);
        for (qsizetype i = 1; i < rows.size(); ++i) {
            QVERIFY(rows[i - 1].toObject()["size"].toInteger() >=
                    rows[i].toObject()["size"].toInteger());
        }
        QCOMPARE(rows[0].toObject()["name"].toString(), "should_pad"); // the cache's name
    }

    void cliShowAndVerifyFilesOnTheirOwn() {
        const auto dict = test::run_cli({"show", path_arg(data("in_memory/dict.pkl"))});
        QCOMPARE(dict.exit_code, 0);
        QVERIFY(dict.out.contains("    ('k', 2) -> [3, 4]\n"));
        const auto list = test::run_cli({"show", path_arg(data("in_memory/list.pkl"))});
        QCOMPARE(list.exit_code, 2);
        QVERIFY(list.err.contains("not pickled dict[Key, Value]"));
        QCOMPARE(test::run_cli({"verify", path_arg(data("in_memory/dict.pkl"))}).exit_code, 0);
        const auto hostile = test::run_cli({"verify", path_arg(data("in_memory/hostile.pkl"))});
        QCOMPARE(hostile.exit_code, 1);
        QVERIFY(hostile.out.contains("posix.system"));
        const auto stale =
            test::run_cli({"verify", path_arg(data("root/cache/inductor_on_disk_cache/"
                                                   "5a9f18430ba31dae62ffe2bbec03e503"))});
        QCOMPARE(stale.exit_code, 1);
        QVERIFY(stale.out.contains(": stale: written by OnDiskCache version 1"));
    }

    void cliShowEnv() {
        auto environment = QProcessEnvironment::systemEnvironment();
        environment.insert("CACHELENS_TEST_CACHE",
                           QString::fromStdString(test::read_bytes(data("env/good.txt"))));
        const auto run =
            test::run_cli({"show", "--env", "CACHELENS_TEST_CACHE", "--json"}, environment);
        QCOMPARE(run.exit_code, 0);
        const auto json = parse(run.out);
        QCOMPARE(json["kind"].toString(), "in_memory_cache");
        QCOMPARE(json["source"].toString(), "$CACHELENS_TEST_CACHE");
        QCOMPARE(json["pairs"].toArray().size(), 2);
        environment.remove("CACHELENS_TEST_CACHE");
        const auto unset = test::run_cli({"show", "--env", "CACHELENS_TEST_CACHE"}, environment);
        QCOMPARE(unset.exit_code, 2);
        QVERIFY(unset.err.contains("$CACHELENS_TEST_CACHE is not set"));
        const auto from_file =
            test::run_cli({"show", "--env-file", path_arg(data("env/two_values.txt"))});
        QCOMPARE(from_file.exit_code, 2);
        QVERIFY(from_file.err.contains("Multiple values for key 'k1' found, got 1 and 2."));
        QCOMPARE(test::run_cli({"show", "--env", "X", path_arg(data("root"))}).exit_code, 2);
    }

    // A value goes with its lock when the lock's last value goes; a recent
    // value stays, and so does the lock it shares; a lock no value uses stays.
    void pruneTakesAValueWithItsLock() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "root";
        test::copy_tree(data("root"), root);
        const auto old = fs::file_time_type::clock::now() - std::chrono::hours(48);
        for (const auto& file : fs::recursive_directory_iterator(root)) {
            fs::last_write_time(file.path(), old);
        }
        const fs::path values = root / "cache/inductor_on_disk_cache";
        // The current value is fresh: it and its lock stay.
        fs::last_write_time(values / "054560f575c37a2e455c434de988c4cc",
                            fs::file_time_type::clock::now());
        const QString catalog = temp.path() + "/catalog.sqlite";
        QCOMPARE(test::run_cli({"index", path_arg(root), "--catalog", catalog}).exit_code, 0);
        const auto run = test::run_cli({"prune", path_arg(root), "--older-than", "1d",
                                        "--keep-recent", "1h", "--catalog", catalog});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY(fs::exists(values / "054560f575c37a2e455c434de988c4cc"));
        QVERIFY(fs::exists(values / "locks/0545.lock"));
        QVERIFY(!fs::exists(values / "5a9f18430ba31dae62ffe2bbec03e503"));
        QVERIFY(!fs::exists(values / "locks/5a9f.lock"));
        QVERIFY(!fs::exists(values / "77a8de2cdb8d0e74ca2446549df4f656"));
        QVERIFY(!fs::exists(values / "locks/77a8.lock"));
        QVERIFY(fs::exists(values / "locks/ffff.lock")); // verify's to report, not prune's
    }

    // Never "every entry parsed" while files of no known kind are there.
    void coverageSaysWhatItDoesNotKnow() {
        QCOMPARE(coverage_line(0, 0, 0, {}), std::string("Every entry parsed."));
        QCOMPARE(coverage_line(2, 0, 0, {}), std::string("2 entries do not parse."));
        QCOMPARE(coverage_line(0, 1203, 2048, "cachelens ls d --kind unknown --sort size"),
                 std::string("Every entry parsed, but 1,203 files (2.0 KiB) cachelens does not "
                             "know: kind unknown, never parsed or checked (largest first: "
                             "cachelens ls d --kind unknown --sort size)."));
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "my cache";
        test::write_bytes(root / "mystery.bin", "what is this");
        const auto scan = test::run_cli({"scan", path_arg(root)});
        QCOMPARE(scan.exit_code, 0);
        QVERIFY(!scan.out.contains("Every entry parsed."));
        QVERIFY2(scan.out.contains("Every entry parsed, but 1 file (12 B) cachelens does not "
                                   "know: kind unknown, never parsed or checked (largest first: "
                                   "cachelens ls '" +
                                   QByteArray::fromStdString(root.string()) +
                                   "' --kind unknown --sort size)."),
                 scan.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestKeyedCache)
#include "tst_keyed_cache.moc"
