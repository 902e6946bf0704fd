// Where things are in and around a cache dir, the one answer both front ends
// use: PyTorch's default cache dir, which entries of a dir use which (a
// module's Triton kernels and best_configs, a best_config's winner, an FX
// entry's best_configs, the benchmark caches), a bundle's staging dir and a
// Redis server's mirror dir with its origin file.

#include "test_paths.h"

#include <cachelens/bundle/staging.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/default_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/entry_links.h>
#include <cachelens/remote/mirror.h>
#include <cachelens/remote/redis_endpoint.h>

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

// devset: kFx's kernel has four candidates, compiled from kModule; its
// best_config kBestConfig names kWinner.
constexpr const char* kFx = "f4h6wj3z2ch3hwiotz5hct4ivdtd6blgc4qcfuyiepcwtjzdmfuy";
constexpr const char* kModule = "cnf5o5w6odimfhtjmrti5cer2hekx5pgyfkpq4zyd2efii4utvcp";
constexpr const char* kBestConfig =
    "nf/e4ba318612276f8fb2204775462f06fc309cce5bc0c4ddd85d51e606cbf9aa41.best_config";
constexpr const char* kWinner = "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA";
constexpr const char* kBenchmarkCache =
    "2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158";
constexpr const char* kChoice = "cfdvvtlhs2q6o4e3apbmiul2cvkjxdhnpqosnjxq4ladnbfmwh7y";

// Sets (or, with nullopt, unsets) environment variables for one scope.
class ScopedEnvironment {
public:
    ScopedEnvironment(
        std::initializer_list<std::pair<const char*, std::optional<std::string>>> vars) {
        for (const auto& [name, value] : vars) {
            const char* old = std::getenv(name);
            saved_.emplace_back(name,
                                old == nullptr ? std::nullopt : std::optional<std::string>(old));
            apply(name, value);
        }
    }
    ~ScopedEnvironment() {
        for (const auto& [name, value] : saved_) {
            apply(name.c_str(), value);
        }
    }
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

private:
    static void apply(const char* name, const std::optional<std::string>& value) {
        if (value) {
            ::setenv(name, value->c_str(), 1);
        } else {
            ::unsetenv(name);
        }
    }
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

cachedir::EntryContent load(const fs::path& root, const std::string& query) {
    auto scan = cachedir::scan_cache_dir(root);
    if (!scan) {
        qFatal("%s", scan.error().describe().c_str());
    }
    const auto entries = cachedir::find_entries(*scan, query);
    if (entries.size() != 1) {
        qFatal("%zu entries for %s", entries.size(), query.c_str());
    }
    auto content = cachedir::load_entry(root, entries.front());
    if (!content) {
        qFatal("%s", content.error().describe().c_str());
    }
    return std::move(*content);
}

remote::RedisEndpoint endpoint(const std::string& url) {
    auto parsed = remote::parse_redis_endpoint(url);
    if (!parsed) {
        qFatal("%s", parsed.error().describe().c_str());
    }
    return std::move(*parsed);
}

} // namespace

class TestCacheLayout : public QObject {
    Q_OBJECT

private slots:
    // cache_dir_utils.py: $TORCHINDUCTOR_CACHE_DIR, else
    // tempfile.gettempdir()/torchinductor_<getpass.getuser(), sanitized>.
    void defaultCacheDirFromTheEnvironment() {
        const ScopedEnvironment set{{"TORCHINDUCTOR_CACHE_DIR", "/data/inductor"}};
        QCOMPARE(cachedir::inductor_cache_dir(), fs::path("/data/inductor"));
    }

    void defaultCacheDirWithoutIt() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const std::string tmp = temp.path().toStdString();
        const ScopedEnvironment set{{"TORCHINDUCTOR_CACHE_DIR", std::nullopt},
                                    {"TMPDIR", tmp + "/"},
                                    {"LOGNAME", std::nullopt},
                                    {"USER", "ada"},
                                    {"LNAME", "not-this-one"}};
        QCOMPARE(cachedir::python_temp_dir(), fs::path(tmp));
        QCOMPARE(cachedir::python_user_name(), std::string("ada"));
        QCOMPARE(cachedir::default_inductor_cache_dir(), fs::path(tmp) / "torchinductor_ada");
        QCOMPARE(cachedir::inductor_cache_dir(), fs::path(tmp) / "torchinductor_ada");
        // Set but empty counts as unset, for PyTorch's variable and getuser()'s.
        const ScopedEnvironment empty{{"TORCHINDUCTOR_CACHE_DIR", ""}, {"USER", ""}};
        QCOMPARE(cachedir::inductor_cache_dir(), fs::path(tmp) / "torchinductor_not-this-one");
    }

    void defaultCacheDirSanitizesTheUserName() {
        QTemporaryDir temp;
        const ScopedEnvironment set{{"TORCHINDUCTOR_CACHE_DIR", std::nullopt},
                                    {"TMPDIR", temp.path().toStdString()},
                                    {"LOGNAME", "dom\\a/b:c*d?e\"f<g>h|i"}};
        QCOMPARE(cachedir::default_inductor_cache_dir().filename().string(),
                 std::string("torchinductor_dom_a_b_c_d_e_f_g_h_i"));
    }

    void tempDirSkipsWhatIsNoDir() {
        QTemporaryDir temp;
        const std::string tmp = temp.path().toStdString();
        {
            const ScopedEnvironment set{{"TMPDIR", tmp + "/missing"}, {"TEMP", tmp}};
            QCOMPARE(cachedir::python_temp_dir(), fs::path(tmp));
        }
        const ScopedEnvironment none{
            {"TMPDIR", std::nullopt}, {"TEMP", std::nullopt}, {"TMP", tmp + "/missing"}};
        QCOMPARE(cachedir::python_temp_dir(), fs::path("/tmp"));
    }

    void linkRulesOnNames() {
        QCOMPARE(cachedir::cache_relative_path("/tmp/x/cache/nf/abc.best_config"),
                 std::string("nf/abc.best_config"));
        QCOMPARE(cachedir::cache_relative_path("abc.best_config"), std::string("abc.best_config"));
        QCOMPARE(cachedir::module_key_of_choice(std::string("triton_mm-") + kChoice),
                 std::string(kChoice));
        QCOMPARE(cachedir::module_key_of_choice("triton_mm-cXYZ"), std::string());
        QCOMPARE(cachedir::module_key_of_choice("mm"), std::string());
        cachedir::TritonKernelDir dir;
        dir.device = "0";
        dir.hash = kWinner;
        QCOMPARE(cachedir::triton_dir_path(dir), std::string("triton/0/") + kWinner);
    }

    void aModulesTritonKernelsAndBestConfigs() {
        const fs::path root = test::fixture("devset/cache");
        const auto source = std::get<cachedir::ModuleSource>(load(root, kModule));
        const auto names = source.module.kernel_names();
        const auto dirs = cachedir::find_triton_dirs_of_module(root, kModule, names);
        QCOMPARE(dirs.size(), std::size_t{4}); // the FX entry's kernel's candidates
        std::set<std::string> hashes;
        for (const auto& dir : dirs) {
            QCOMPARE(dir.module_key, std::string(kModule));
            QCOMPARE(dir.device, std::string("0"));
            hashes.insert(dir.hash);
        }
        QCOMPARE(hashes.size(), std::size_t{4});
        QVERIFY(hashes.contains(kWinner));
        QVERIFY(cachedir::find_triton_dirs_of_module(root, kModule, {"no_such_kernel"}).empty());
        QVERIFY(cachedir::find_triton_dirs_of_module(root, "cnotamodule", names).empty());

        const auto bests = cachedir::find_best_configs_of_module(root, kModule);
        QCOMPARE(bests.size(), std::size_t{1});
        QCOMPARE(bests.front().path, std::string(kBestConfig));
        QCOMPARE(bests.front().config.triton_cache_hash.value_or(""), std::string(kWinner));

        const std::atomic<bool> cancelled{true};
        QVERIFY(cachedir::find_triton_dirs_of_module(root, kModule, names, &cancelled).empty());
        QVERIFY(cachedir::find_best_configs_of_module(root, kModule, &cancelled).empty());
    }

    // Triton writes into tmp.* dirs and renames them: a copy there is no kernel.
    void tritonTmpDirsAreNoKernels() {
        QTemporaryDir temp;
        const fs::path root = temp.path().toStdString();
        const fs::path winner = test::fixture("devset/cache/triton/0") / kWinner;
        test::copy_tree(winner, root / "triton/0" / (std::string("tmp.") + kWinner));
        const auto source =
            std::get<cachedir::ModuleSource>(load(test::fixture("devset/cache"), kModule));
        QVERIFY(cachedir::find_triton_dirs_of_module(root, kModule, source.module.kernel_names())
                    .empty());
        QVERIFY(!cachedir::find_triton_dir(root, std::string("tmp.") + kWinner));
        test::copy_tree(winner, root / "triton/0" / kWinner);
        QCOMPARE(cachedir::find_triton_dirs_of_module(root, kModule, source.module.kernel_names())
                     .size(),
                 std::size_t{1});
    }

    void aBestConfigsWinner() {
        const fs::path root = test::fixture("devset/cache");
        const auto winner = cachedir::find_triton_dir(root, kWinner);
        QVERIFY(winner.has_value());
        QCOMPARE(winner->hash, std::string(kWinner));
        QCOMPARE(winner->module_key, std::string(kModule));
        QVERIFY(!cachedir::find_triton_dir(root, "NOSUCHHASH"));
        QVERIFY(!cachedir::find_triton_dir(root, "../../cache"));
        QVERIFY(!cachedir::find_triton_dir(root, ""));
    }

    void anFxEntrysBestConfigs() {
        const fs::path root = test::fixture("devset/cache");
        const auto fx = std::get<cachedir::FxGraphEntry>(load(root, kFx));
        const auto found = cachedir::read_best_configs_of(root, fx);
        QCOMPARE(found.size(), std::size_t{1});
        QVERIFY(found.contains(kBestConfig));
        QCOMPARE(found.at(kBestConfig).triton_cache_hash.value_or(""), std::string(kWinner));
        // Elsewhere (a dir without them): none.
        QTemporaryDir temp;
        QVERIFY(cachedir::read_best_configs_of(temp.path().toStdString(), fx).empty());
    }

    // A kernel the FX entry's bundle carries reads as the dir it becomes does.
    void aBundledKernelReadsAsItsDir() {
        const fs::path root = test::fixture("devset/cache");
        const auto fx = std::get<cachedir::FxGraphEntry>(load(root, kFx));
        QVERIFY(!fx.triton_artifacts.empty());
        std::size_t compared = 0;
        for (const auto& artifacts : fx.triton_artifacts) {
            const auto bundled = cachedir::bundled_triton_kernel(artifacts);
            QCOMPARE(bundled.hash, artifacts.kernel_hash);
            QCOMPARE(bundled.device, std::to_string(artifacts.device));
            QVERIFY(bundled.metadata.has_value());
            QVERIFY(bundled.ptx.has_value());
            const auto on_disk = cachedir::find_triton_dir(root, artifacts.kernel_hash);
            if (!on_disk) {
                continue;
            }
            QCOMPARE(bundled.kernel_name, on_disk->kernel_name);
            QCOMPARE(bundled.module_key, on_disk->module_key);
            QCOMPARE(bundled.module_path, on_disk->module_path);
            // The same files; the compiled code byte for byte (JSON that names
            // paths differs where the bundle was written from).
            std::map<std::string, std::uint64_t> bundled_files;
            for (const auto& file : bundled.files) {
                bundled_files[file.name] = file.size;
            }
            QCOMPARE(bundled_files.size(), on_disk->files.size());
            for (const auto& file : on_disk->files) {
                QVERIFY2(bundled_files.contains(file.name), file.name.c_str());
                if (file.name.ends_with(".cubin") || file.name.ends_with(".ptx")) {
                    QCOMPARE(bundled_files[file.name], file.size);
                }
            }
            ++compared;
        }
        QVERIFY(compared > 0);
    }

    void theBenchmarkCaches() {
        const fs::path root = test::fixture("devset/cache");
        const auto caches = cachedir::read_benchmark_caches(root);
        QCOMPARE(caches.size(), std::size_t{1});
        QCOMPARE(caches.front().system_hash, std::string(kBenchmarkCache));
        QVERIFY(!caches.front().choices.empty());

        // Temporary and unreadable files are skipped.
        QTemporaryDir temp;
        const fs::path copy = temp.path().toStdString();
        fs::create_directories(copy / "cache");
        test::copy_file_writable(root / "cache" / kBenchmarkCache,
                                 copy / "cache" / kBenchmarkCache);
        test::copy_file_writable(root / "cache" / kBenchmarkCache,
                                 copy / "cache" / (std::string(".") + kBenchmarkCache + ".tmp"));
        test::write_bytes(copy / "cache/broken", "not json");
        QCOMPARE(cachedir::read_benchmark_caches(copy).size(), std::size_t{1});
        QVERIFY(cachedir::read_benchmark_caches(copy / "nowhere").empty());
    }

    void bundleStagingLayout() {
        QTemporaryDir temp;
        const fs::path base = fs::path(temp.path().toStdString()) / "bundles";
        const fs::path file = "/somewhere/model.bundle";
        const auto paths = bundle::staging_paths(base, file, "the bundle's bytes");
        const std::string hash = paths.dir.filename().string();
        QCOMPARE(hash.size(), std::size_t{16});
        QCOMPARE(paths.dir, base / hash);
        QCOMPARE(paths.root, base / hash / "bundle/model.bundle");
        QCOMPARE(paths.origin_file, base / hash / "origin");
        QCOMPARE(paths.report_file, base / hash / "report");
        // The same bytes stage to the same place, other bytes elsewhere.
        QCOMPARE(bundle::staging_paths(base, "/elsewhere/model.bundle", "the bundle's bytes").dir,
                 paths.dir);
        QVERIFY(bundle::staging_paths(base, file, "other bytes").dir != paths.dir);

        test::write_bytes(paths.root / "stale/file", "left by an earlier staging");
        QVERIFY_RESULT(bundle::prepare_staging(paths));
        QVERIFY(fs::is_directory(paths.root));
        QVERIFY(fs::is_empty(paths.root));
        QVERIFY(bundle::is_staged_bundle(paths.root, base));
        QVERIFY(!bundle::staged_origin(paths.root)); // not recorded yet
        QVERIFY(!bundle::staged_report(paths.root));

        QVERIFY_RESULT(bundle::record_staging(paths, file, "7 artifacts: 7 shown"));
        QCOMPARE(bundle::staged_origin(paths.root), std::optional(file));
        QCOMPARE(bundle::staged_report(paths.root),
                 std::optional<std::string>("7 artifacts: 7 shown"));
        // Read from any base; recognised under its own only.
        QVERIFY(!bundle::is_staged_bundle(paths.root, temp.path().toStdString()));
        QVERIFY(!bundle::is_staged_bundle(paths.dir, base));
        QVERIFY(!bundle::is_staged_bundle(base / "not-a-hash!!!!!!/bundle/x", base));
        QVERIFY(!bundle::staged_origin(test::fixture("devset/cache")));
    }

    void mirrorLayout() {
        QTemporaryDir temp;
        const fs::path catalog = fs::path(temp.path().toStdString()) / "catalog.sqlite";
        const fs::path base = remote::mirror_base(catalog);
        QCOMPARE(base, fs::path(temp.path().toStdString()) / "remote");
        const fs::path dir = remote::mirror_dir_for(catalog, endpoint("redis://10.0.0.5:7000/3"));
        QCOMPARE(dir, base / "10.0.0.5-7000-db3");
        QVERIFY(remote::is_mirror_root(dir, base));
        QVERIFY(!remote::is_mirror_root(base / "10.0.0.5-7000", base));
        QVERIFY(!remote::is_mirror_root(base / "host-port-db3", base));
        QVERIFY(!remote::is_mirror_root(base / "host-123456-db3", base));
        QVERIFY(!remote::is_mirror_root(fs::path(temp.path().toStdString()) / "10.0.0.5-7000-db3",
                                        base));
        QCOMPARE(remote::mirror_origin_file(dir), base / "10.0.0.5-7000-db3.origin");

        // No origin file: the server is read back from the dir's name.
        QCOMPARE(remote::mirror_origin(dir), std::optional<std::string>("redis://10.0.0.5:7000/3"));
        QVERIFY(!remote::mirror_origin(base / "not-a-mirror"));

        // A name that cannot be read back (IPv6, a user) needs the origin file.
        const auto ipv6 = endpoint("redis://alice:secret@[::1]:6380/2");
        const fs::path ipv6_dir = remote::mirror_dir_for(catalog, ipv6);
        QCOMPARE(ipv6_dir.filename().string(), std::string("__1-6380-db2"));
        fs::create_directories(base);
        QVERIFY_RESULT(remote::write_mirror_origin(ipv6_dir, ipv6));
        const std::string written = test::read_bytes(remote::mirror_origin_file(ipv6_dir));
        QCOMPARE(written, ipv6.display());
        QVERIFY(written.find("secret") == std::string::npos); // never the password
        QCOMPARE(remote::mirror_origin(ipv6_dir), std::optional(ipv6.display()));

        // An origin file that holds no URL is not believed.
        test::write_bytes(remote::mirror_origin_file(dir), "not a url at all");
        QCOMPARE(remote::mirror_origin(dir), std::optional<std::string>("redis://10.0.0.5:7000/3"));
        test::write_bytes(remote::mirror_origin_file(dir), "  redis://cache.example:7000/3\n");
        QCOMPARE(remote::mirror_origin(dir),
                 std::optional<std::string>("redis://cache.example:7000/3"));
    }
};

QTEST_GUILESS_MAIN(TestCacheLayout)
#include "tst_cache_layout.moc"
