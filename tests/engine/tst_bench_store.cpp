// Re-benchmark runs in the catalog and "make this the best config".
//
// Runs: two runs on different GPUs read back as history in run order, with
// their device facts, protocol, every sample and the statistics exactly as
// recorded, by kernel name and by module key; a failed candidate keeps its
// status and message; a write the catalog refuses (read-only, or failing
// half-way) names the catalog file and leaves no row behind.
//
// Accept: on copies of devset .best_config files and the candidates their FX
// entries list, the rewritten file is the JSON PyTorch's AutotuneCache.save
// would write (same keys, same order, same byte layout: rewriting the
// current winner gives back the file byte for byte), configs_hash is kept,
// parse_best_config reads the new winner back, the backup restores the old
// bytes; every refusal leaves the dir exactly as it was.

#include "test_paths.h"

#include <cachelens/bench/accept.h>
#include <cachelens/bench/bench_store.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/test_seams.h>
#include <cachelens/hash/sha256.h>

#include <sqlite3.h>
#include <unistd.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <set>

using namespace cachelens;
using test::read_bytes;
using test::write_bytes;
namespace fs = std::filesystem;
using bench::BenchRun;
using bench::CandidateResult;
using bench::KernelCandidates;
using bench::LaunchPlan;
using cachedir::ConfigValue;
using cachedir::KernelConfig;

// QVERIFY_RESULT evaluates its argument more than once: a call goes through
// a variable.
#define VERIFY_CALL(call)                                                                          \
    do {                                                                                           \
        auto call_result = (call);                                                                 \
        QVERIFY_RESULT(call_result);                                                               \
    } while (false)

namespace {

// The devset kernels the accept tests rewrite: a reduction whose winner came
// from the candidate list (nf/), and one whose winner coordinate descent
// found (2c/).
constexpr const char* kCatKernel = "triton_red_fused_cat_cumsum_sin_0";
constexpr const char* kCatModule = "cnf5o5w6odimfhtjmrti5cer2hekx5pgyfkpq4zyd2efii4utvcp";
constexpr const char* kCatBestConfig =
    "nf/e4ba318612276f8fb2204775462f06fc309cce5bc0c4ddd85d51e606cbf9aa41.best_config";
constexpr const char* kSqrtKernel = "triton_red_fused_mul_sqrt_sum_0";
constexpr const char* kSqrtModule = "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w";
constexpr const char* kSqrtBestConfig =
    "2c/1d478d3f71f84b06d156f2b3d8b027fb6d1f8b2d5491a0dc74571852450c7051.best_config";

fs::path path_of(const QTemporaryDir& dir) {
    return fs::path(dir.path().toStdString());
}

QString text(std::string_view value) {
    return QString::fromUtf8(value.data(), static_cast<qsizetype>(value.size()));
}

// Every file under `dir` with its bytes: what "wrote nothing" compares.
std::map<std::string, std::string> listing(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        if (item.is_regular_file()) {
            files[fs::relative(item.path(), dir).string()] = read_bytes(item.path());
        }
    }
    return files;
}

int count_rows(const catalog::Catalog& catalog, const char* table) {
    sqlite3_stmt* statement = nullptr;
    const std::string sql = std::string("SELECT count(*) FROM ") + table;
    if (sqlite3_prepare_v2(catalog.handle(), sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
        return -1;
    }
    const int count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int(statement, 0) : -1;
    sqlite3_finalize(statement);
    return count;
}

bool exec(const catalog::Catalog& catalog, const char* sql) {
    return sqlite3_exec(catalog.handle(), sql, nullptr, nullptr, nullptr) == SQLITE_OK;
}

KernelConfig config_of(std::vector<std::pair<std::string, ConfigValue>> kwargs, int warps,
                       int stages) {
    KernelConfig config;
    config.kwargs = std::move(kwargs);
    config.num_warps = warps;
    config.num_stages = stages;
    return config;
}

CandidateResult result_of(const std::string& kernel, const std::string& module,
                          const std::string& hash, KernelConfig config, std::vector<double> samples,
                          bench::TimingStats stats) {
    CandidateResult result;
    result.kernel_name = kernel;
    result.module_key = module;
    result.triton_hash = hash;
    result.config = std::move(config);
    result.samples_ms = std::move(samples);
    result.stats = stats;
    return result;
}

// Two runs, the second on another GPU and started earlier than the first:
// history goes by when a run started, not by when it was recorded.
struct TwoRuns {
    BenchRun h100;
    BenchRun a100;
};

TwoRuns two_runs() {
    TwoRuns runs;
    BenchRun& h100 = runs.h100;
    h100.started_ns = 2'000'000'000'000;
    h100.device = {"NVIDIA H100 80GB HBM3", "9.0", "13.0", 1980, 52'428'800};
    h100.protocol.warmup_ms = 25;
    h100.protocol.rep_ms = 100;
    // Samples whose digits only survive an exact round trip.
    h100.results.push_back(
        result_of(kCatKernel, kCatModule, "d35b1b6efa100151aa",
                  config_of({{"XBLOCK", std::int64_t{8}}, {"R0_BLOCK", std::int64_t{8}}}, 2, 1),
                  {0.1 + 0.2, 0.0241, 1.0 / 3.0, 0.024000000208616257},
                  {0.0241, 0.024000000208616257, 0.0240, 0.0300, 0.0245}));
    h100.results.back().was_best = true;
    // Kwarg types other than int, and the launch options beyond warps/stages.
    KernelConfig odd = config_of({{"XBLOCK", std::int64_t{16}},
                                  {"EVEN_K", true},
                                  {"SCALE", 0.5},
                                  {"ACC_TYPE", std::string("tl.float32")}},
                                 4, 3);
    odd.num_ctas = 1;
    odd.maxnreg = 128;
    h100.results.push_back(result_of(kCatKernel, kCatModule, "827ed81231ef6ca1bb", odd,
                                     {0.05, 0.06, 0.07}, {0.06, 0.05, 0.054, 0.066, 0.06}));
    // A candidate that failed to load: its status and message, no samples.
    CandidateResult failed = result_of(
        kCatKernel, kCatModule, "5715f24cdef1b593cc",
        config_of({{"XBLOCK", std::int64_t{1}}, {"R0_BLOCK", std::int64_t{4096}}}, 32, 1), {}, {});
    failed.status = "resources";
    failed.message = "CUDA_ERROR_OUT_OF_RESOURCES: too many resources requested for launch";
    h100.results.push_back(failed);
    // Another kernel of another module, which no query below names.
    h100.results.push_back(
        result_of(kSqrtKernel, kSqrtModule, "e6ad55aa03c0fb91dd",
                  config_of({{"XBLOCK", std::int64_t{1}}, {"R0_BLOCK", std::int64_t{2048}}}, 16, 1),
                  {0.0222, 0.0230}, {0.0226, 0.0222, 0.0224, 0.0228, 0.0226}));

    BenchRun& a100 = runs.a100;
    a100.started_ns = 1'000'000'000'000;
    a100.device = {"NVIDIA A100-SXM4-40GB", "8.0", "12.4", std::nullopt, 41'943'040};
    a100.protocol.warmup_ms = 5;
    a100.protocol.rep_ms = 20;
    a100.protocol.flush_l2 = false;
    a100.protocol.cuda_graph = true;
    // A launch that failed after two timed runs keeps those samples.
    CandidateResult partial =
        result_of(kCatKernel, kCatModule, "d35b1b6efa100151aa",
                  config_of({{"XBLOCK", std::int64_t{8}}, {"R0_BLOCK", std::int64_t{8}}}, 2, 1),
                  {0.031, 0.029}, {0.03, 0.029, 0.0294, 0.0306, 0.03});
    partial.status = "launch";
    partial.message = "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure";
    a100.results.push_back(partial);
    return runs;
}

// The candidates one FX entry of the devset lists for a kernel module.
std::optional<cachedir::KernelAutotuner> devset_autotuner(const std::string& module_key) {
    const fs::path cache = test::fixture("devset/cache");
    auto scan = cachedir::scan_cache_dir(cache);
    if (!scan) {
        return std::nullopt;
    }
    for (const auto& entry : scan->entries()) {
        if (entry.kind != cachedir::FileKind::FxGraph) {
            continue;
        }
        auto content = cachedir::load_entry(cache, entry);
        if (!content) {
            continue;
        }
        if (const auto* fx = std::get_if<cachedir::FxGraphEntry>(&*content)) {
            for (const auto& autotuner : fx->autotuners) {
                if (autotuner.module_key == module_key && !autotuner.candidates.empty()) {
                    return autotuner;
                }
            }
        }
    }
    return std::nullopt;
}

// A kernel as plan_kernels() describes it, built by hand from the FX entry's
// candidates and a .best_config at `best_config` (a copy).
std::optional<KernelCandidates> devset_kernel(const std::string& kernel_name,
                                              const std::string& module_key,
                                              const fs::path& best_config) {
    auto autotuner = devset_autotuner(module_key);
    auto parsed = cachedir::parse_best_config(read_bytes(best_config));
    if (!autotuner || !parsed) {
        return std::nullopt;
    }
    KernelCandidates kernel;
    kernel.kernel_name = kernel_name;
    kernel.module_key = module_key;
    kernel.module = best_config.parent_path() / (module_key + ".py");
    kernel.best_config_path = best_config;
    kernel.best_config = *parsed;
    for (const auto& candidate : autotuner->candidates) {
        LaunchPlan plan;
        plan.kernel_name = kernel_name;
        plan.module_key = module_key;
        plan.module = kernel.module;
        plan.config = candidate.config;
        plan.source.triton_hash = candidate.triton_hash;
        plan.source.cubin_name = kernel_name + ".cubin";
        plan.is_current_best = candidate.triton_dir() == parsed->triton_cache_hash;
        kernel.plans.push_back(plan);
    }
    return kernel;
}

// A kernel dir holding a copy of one devset .best_config and its module.
struct Workspace {
    QTemporaryDir temp;
    fs::path dir;
    fs::path best_config;
    std::string original;
};

void copy_devset_file(const std::string& relative, Workspace& space) {
    const fs::path from = test::fixture("devset/cache") / relative;
    space.dir = path_of(space.temp) / fs::path(relative).parent_path();
    fs::create_directories(space.dir);
    test::copy_file_writable(from, space.dir / from.filename());
    space.best_config = space.dir / from.filename();
    space.original = read_bytes(space.best_config);
}

std::vector<std::string> json_keys(const std::string& bytes) {
    std::vector<std::string> keys;
    // QJsonObject sorts its keys; the order is read from the text instead.
    const QJsonObject object = QJsonDocument::fromJson(QByteArray::fromStdString(bytes)).object();
    std::vector<std::pair<std::size_t, std::string>> positions;
    for (const QString& key : object.keys()) {
        const std::string quoted = "\"" + key.toStdString() + "\": ";
        positions.emplace_back(bytes.find(quoted), key.toStdString());
    }
    std::sort(positions.begin(), positions.end());
    for (const auto& [position, key] : positions) {
        keys.push_back(key);
    }
    return keys;
}

const LaunchPlan* plan_with(const KernelCandidates& kernel, bool current_best) {
    for (const auto& plan : kernel.plans) {
        if (plan.is_current_best == current_best) {
            return &plan;
        }
    }
    return nullptr;
}

} // namespace

class TestBenchStore : public QObject {
    Q_OBJECT

private slots:
    void history_of_two_runs();
    void history_by_module_key();
    void read_only_catalog_records_nothing();
    void failure_half_way_leaves_no_partial_run();
    void accept_writes_what_pytorch_writes();
    void accept_current_winner_is_byte_identical();
    void accept_coordinate_descent_winner();
    void accept_keeps_unknown_keys_in_python_layout();
    void accept_refusals_write_nothing();
    void backups_never_overwrite();
};

void TestBenchStore::history_of_two_runs() {
    QTemporaryDir temp;
    auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
    QVERIFY_RESULT(catalog);
    const TwoRuns runs = two_runs();
    auto first = bench::record_run(*catalog, runs.h100);
    QVERIFY_RESULT(first);
    auto second = bench::record_run(*catalog, runs.a100);
    QVERIFY_RESULT(second);
    QVERIFY(*first != *second);
    QCOMPARE(count_rows(*catalog, "bench_runs"), 2);
    QCOMPARE(count_rows(*catalog, "bench_results"), 5);
    QCOMPARE(count_rows(*catalog, "bench_samples"), 4 + 3 + 0 + 2 + 2);

    auto history = bench::kernel_history(*catalog, kCatKernel);
    QVERIFY_RESULT(history);
    // The A100 run started first: its one result, then the H100 run's three
    // results of this kernel in the order they were recorded.
    QCOMPARE(history->size(), std::size_t{4});
    const std::vector<const CandidateResult*> expected = {
        &runs.a100.results[0], &runs.h100.results[0], &runs.h100.results[1], &runs.h100.results[2]};
    const std::vector<const BenchRun*> expected_runs = {&runs.a100, &runs.h100, &runs.h100,
                                                        &runs.h100};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const bench::HistoryRow& row = (*history)[i];
        const CandidateResult& want = *expected[i];
        const BenchRun& run = *expected_runs[i];
        QCOMPARE(row.run_id, &run == &runs.a100 ? *second : *first);
        QCOMPARE(row.started_ns, run.started_ns);
        QCOMPARE(text(row.device.name), text(run.device.name));
        QCOMPARE(text(row.device.compute_capability), text(run.device.compute_capability));
        QCOMPARE(text(row.device.driver_version), text(run.device.driver_version));
        QVERIFY(row.device.sm_clock_mhz == run.device.sm_clock_mhz);
        QCOMPARE(row.device.l2_bytes, run.device.l2_bytes);
        QCOMPARE(text(row.protocol), text(run.protocol.describe()));
        QCOMPARE(text(row.result.kernel_name), text(want.kernel_name));
        QCOMPARE(text(row.result.module_key), text(want.module_key));
        QCOMPARE(text(row.result.triton_hash), text(want.triton_hash));
        QVERIFY2(row.result.config == want.config, qPrintable(text(row.result.config.describe())));
        QCOMPARE(row.result.was_best, want.was_best);
        QCOMPARE(text(row.result.status), text(want.status));
        QCOMPARE(text(row.result.message), text(want.message));
        // Exactly: the same doubles, in the same order.
        QVERIFY(row.result.samples_ms == want.samples_ms);
        if (want.samples_ms.empty()) {
            QCOMPARE(row.result.stats.median_ms, 0.0);
            QCOMPARE(row.result.stats.mean_ms, 0.0);
        } else {
            QCOMPARE(row.result.stats.median_ms, want.stats.median_ms);
            QCOMPARE(row.result.stats.min_ms, want.stats.min_ms);
            QCOMPARE(row.result.stats.p20_ms, want.stats.p20_ms);
            QCOMPARE(row.result.stats.p80_ms, want.stats.p80_ms);
            double sum = 0;
            for (double ms : want.samples_ms) {
                sum += ms;
            }
            QCOMPARE(row.result.stats.mean_ms, sum / static_cast<double>(want.samples_ms.size()));
        }
    }
    QVERIFY((*history)[1].device.sm_clock_mhz.has_value());
    QVERIFY(!(*history)[0].device.sm_clock_mhz.has_value());
    QVERIFY((*history)[0].protocol != (*history)[1].protocol);
    // The failed candidate, as stored.
    QCOMPARE(text((*history)[3].result.status), QStringLiteral("resources"));
    QVERIFY((*history)[3].result.message.starts_with("CUDA_ERROR_OUT_OF_RESOURCES"));
    QVERIFY((*history)[3].result.samples_ms.empty());

    // The other kernel by its name; a name nobody benchmarked has no history.
    auto sqrt_history = bench::kernel_history(*catalog, kSqrtKernel);
    QVERIFY_RESULT(sqrt_history);
    QCOMPARE(sqrt_history->size(), std::size_t{1});
    QVERIFY(sqrt_history->front().result.samples_ms == runs.h100.results[3].samples_ms);
    auto nothing = bench::kernel_history(*catalog, "triton_poi_fused_nothing_0");
    QVERIFY_RESULT(nothing);
    QVERIFY(nothing->empty());
}

void TestBenchStore::history_by_module_key() {
    QTemporaryDir temp;
    const fs::path file = path_of(temp) / "catalog.sqlite";
    {
        auto catalog = catalog::Catalog::open(file);
        QVERIFY_RESULT(catalog);
        const TwoRuns runs = two_runs();
        VERIFY_CALL(bench::record_run(*catalog, runs.h100));
        VERIFY_CALL(bench::record_run(*catalog, runs.a100));
    }
    // Read again from a fresh connection: nothing lives only in memory.
    auto catalog = catalog::Catalog::open(file);
    QVERIFY_RESULT(catalog);
    auto by_module = bench::kernel_history(*catalog, kCatModule);
    QVERIFY_RESULT(by_module);
    auto by_name = bench::kernel_history(*catalog, kCatKernel);
    QVERIFY_RESULT(by_name);
    QCOMPARE(by_module->size(), std::size_t{4});
    QCOMPARE(by_module->size(), by_name->size());
    for (std::size_t i = 0; i < by_module->size(); ++i) {
        QCOMPARE((*by_module)[i].run_id, (*by_name)[i].run_id);
        QCOMPARE(text((*by_module)[i].result.triton_hash), text((*by_name)[i].result.triton_hash));
        QVERIFY((*by_module)[i].result.samples_ms == (*by_name)[i].result.samples_ms);
    }
    auto sqrt_module = bench::kernel_history(*catalog, kSqrtModule);
    QVERIFY_RESULT(sqrt_module);
    QCOMPARE(sqrt_module->size(), std::size_t{1});
    QCOMPARE(text(sqrt_module->front().result.kernel_name), QString(kSqrtKernel));
}

void TestBenchStore::read_only_catalog_records_nothing() {
    QTemporaryDir temp;
    const fs::path file = path_of(temp) / "catalog.sqlite";
    auto catalog = catalog::Catalog::open(file);
    QVERIFY_RESULT(catalog);
    const TwoRuns runs = two_runs();
    VERIFY_CALL(bench::record_run(*catalog, runs.a100));
    // The tests may run as root, for whom a file's mode bits forbid nothing;
    // query_only makes SQLite refuse every write as it does for a read-only
    // file ("attempt to write a readonly database").
    fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    QVERIFY(exec(*catalog, "PRAGMA query_only = 1"));
    auto refused = bench::record_run(*catalog, runs.h100);
    QVERIFY(!refused);
    QCOMPARE(text(refused.error().path), text(file.string()));
    QVERIFY2(refused.error().describe().find("readonly") != std::string::npos,
             refused.error().describe().c_str());
    QCOMPARE(count_rows(*catalog, "bench_runs"), 1);
    QCOMPARE(count_rows(*catalog, "bench_results"), 1);
    QCOMPARE(count_rows(*catalog, "bench_samples"), 2);
    // The connection is usable again once writes are allowed.
    QVERIFY(exec(*catalog, "PRAGMA query_only = 0"));
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
    VERIFY_CALL(bench::record_run(*catalog, runs.h100));
    QCOMPARE(count_rows(*catalog, "bench_runs"), 2);
}

void TestBenchStore::failure_half_way_leaves_no_partial_run() {
    QTemporaryDir temp;
    const fs::path file = path_of(temp) / "catalog.sqlite";
    auto catalog = catalog::Catalog::open(file);
    QVERIFY_RESULT(catalog);
    const TwoRuns runs = two_runs();
    VERIFY_CALL(bench::record_run(*catalog, runs.a100));
    // The sixth sample of the H100 run fails: by then the run, two results
    // and five samples are inserted, and all of them must go.
    QVERIFY(exec(*catalog, "CREATE TEMP TRIGGER fail_sample BEFORE INSERT ON bench_samples "
                           "WHEN new.ms = 0.06 BEGIN SELECT RAISE(ABORT, 'disk full'); END"));
    auto refused = bench::record_run(*catalog, runs.h100);
    QVERIFY(!refused);
    QCOMPARE(text(refused.error().path), text(file.string()));
    QVERIFY2(refused.error().message.find("disk full") != std::string::npos,
             refused.error().describe().c_str());
    QCOMPARE(count_rows(*catalog, "bench_runs"), 1);
    QCOMPARE(count_rows(*catalog, "bench_results"), 1);
    QCOMPARE(count_rows(*catalog, "bench_samples"), 2);
    auto history = bench::kernel_history(*catalog, kCatKernel);
    QVERIFY_RESULT(history);
    QCOMPARE(history->size(), std::size_t{1});
    // No transaction is left open: the next run records.
    QVERIFY(exec(*catalog, "DROP TRIGGER fail_sample"));
    VERIFY_CALL(bench::record_run(*catalog, runs.h100));
    QCOMPARE(count_rows(*catalog, "bench_samples"), 2 + 9);
}

void TestBenchStore::accept_writes_what_pytorch_writes() {
    Workspace space;
    copy_devset_file(kCatBestConfig, space);
    auto kernel = devset_kernel(kCatKernel, kCatModule, space.best_config);
    QVERIFY(kernel);
    QVERIFY(kernel->plans.size() >= 2);
    const LaunchPlan* winner = plan_with(*kernel, true);
    const LaunchPlan* other = plan_with(*kernel, false);
    QVERIFY(winner != nullptr && other != nullptr);
    const auto before = listing(space.dir);

    auto outcome = bench::accept_candidate(*kernel, *other, 12.7);
    QVERIFY_RESULT(outcome);
    QCOMPARE(text(outcome->best_config.string()), text(space.best_config.string()));
    QCOMPARE(text(outcome->old_config), text(kernel->best_config->config.describe()));
    QCOMPARE(text(outcome->new_config), text(other->config.describe()));

    const std::string written = read_bytes(space.best_config);
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(QByteArray::fromStdString(written), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QVERIFY(json.isObject());
    std::vector<std::string> want_keys;
    for (const auto& [name, value] : other->config.kwargs) {
        want_keys.push_back(name);
    }
    for (const char* key : {"num_warps", "num_stages", "configs_hash", "found_by_coordesc",
                            "time_taken_ms", "triton_cache_hash"}) {
        want_keys.push_back(key);
    }
    QVERIFY(json_keys(written) == want_keys);
    const QJsonObject object = json.object();
    QCOMPARE(object.value("configs_hash").toString(), text(*kernel->best_config->configs_hash));
    QCOMPARE(object.value("found_by_coordesc").toBool(true), false);
    // An int, as PyTorch writes it (time_taken_ns // 1_000_000).
    QVERIFY(written.find("\"time_taken_ms\": 12,") != std::string::npos);
    QVERIFY(written.find(", ") != std::string::npos && written.back() == '}');

    auto parsed = cachedir::parse_best_config(written);
    QVERIFY_RESULT(parsed);
    QVERIFY(parsed->config.kwargs == other->config.kwargs);
    QVERIFY(parsed->config.num_warps == other->config.num_warps);
    QVERIFY(parsed->config.num_stages == other->config.num_stages);
    QCOMPARE(text(*parsed->triton_cache_hash),
             text(hash::triton_dir_from_hex(other->source.triton_hash)));
    QCOMPARE(*parsed->time_taken_ms, 12.0);
    QVERIFY(parsed->other_fields.empty());

    // The backup holds the old bytes; nothing else appeared (no temp file).
    QVERIFY(outcome->backup.filename().string().starts_with(space.best_config.filename().string() +
                                                            ".cachelens-backup-"));
    QVERIFY(outcome->backup.parent_path() == space.dir);
    QCOMPARE(text(read_bytes(outcome->backup)), text(space.original));
    auto after = listing(space.dir);
    QCOMPARE(after.size(), before.size() + 1);
    QVERIFY(after.contains(outcome->backup.filename().string()));

    VERIFY_CALL(bench::restore_backup(outcome->backup, space.best_config));
    QCOMPARE(text(read_bytes(space.best_config)), text(space.original));
    QCOMPARE(listing(space.dir).size(), before.size() + 1);
    // A backup that is not there is an error naming it.
    auto missing =
        bench::restore_backup(space.dir / "no.best_config.cachelens-backup", space.best_config);
    QVERIFY(!missing);
    QVERIFY(missing.error().path.ends_with("no.best_config.cachelens-backup"));
    QCOMPARE(text(read_bytes(space.best_config)), text(space.original));
}

void TestBenchStore::accept_current_winner_is_byte_identical() {
    Workspace space;
    copy_devset_file(kCatBestConfig, space);
    auto kernel = devset_kernel(kCatKernel, kCatModule, space.best_config);
    QVERIFY(kernel);
    const LaunchPlan* winner = plan_with(*kernel, true);
    QVERIFY(winner != nullptr);
    auto outcome = bench::accept_candidate(*kernel, *winner);
    QVERIFY_RESULT(outcome);
    QCOMPARE(text(read_bytes(space.best_config)), text(space.original));
    QCOMPARE(text(outcome->old_config), text(outcome->new_config));
}

void TestBenchStore::accept_coordinate_descent_winner() {
    // 2c/'s winner was found by coordinate descent (found_by_coordesc true,
    // triton_cache_hash null) and is none of the FX entry's candidates. Built
    // here as if compiled without coordinate descent, taking a candidate makes
    // it a plain candidate match again; with it on, the flag stays, as PyTorch
    // writes every coordinate-descent winner.
    Workspace space;
    copy_devset_file(kSqrtBestConfig, space);
    auto kernel = devset_kernel(kSqrtKernel, kSqrtModule, space.best_config);
    QVERIFY(kernel);
    QVERIFY(!kernel->best_config->triton_cache_hash);
    QVERIFY(kernel->best_config->found_by_coordesc == std::optional<bool>(true));
    const LaunchPlan& plan = kernel->plans.back();
    auto outcome = bench::accept_candidate(*kernel, plan);
    QVERIFY_RESULT(outcome);
    const std::string written = read_bytes(space.best_config);
    auto parsed = cachedir::parse_best_config(written);
    QVERIFY_RESULT(parsed);
    QVERIFY(parsed->found_by_coordesc == std::optional<bool>(false));
    QVERIFY(parsed->configs_hash == kernel->best_config->configs_hash);
    // No time given: the old one stays.
    QVERIFY(parsed->time_taken_ms == kernel->best_config->time_taken_ms);
    QVERIFY(written.find("\"time_taken_ms\": 1862, ") != std::string::npos);
    QVERIFY(parsed->config.kwargs == plan.config.kwargs);
    QCOMPARE(text(*parsed->triton_cache_hash),
             text(hash::triton_dir_from_hex(plan.source.triton_hash)));
    // Its cubin is one the cache holds.
    QVERIFY(fs::is_directory(test::fixture("devset/cache") / "triton" / "0" /
                             *parsed->triton_cache_hash));

    // Accepting the coordinate-descent config itself keeps found_by_coordesc.
    VERIFY_CALL(bench::restore_backup(outcome->backup, space.best_config));
    auto again = devset_kernel(kSqrtKernel, kSqrtModule, space.best_config);
    QVERIFY(again);
    LaunchPlan coordesc = again->plans.front();
    coordesc.config = again->best_config->config;
    coordesc.source.triton_hash = "";
    again->plans.push_back(coordesc);
    VERIFY_CALL(bench::accept_candidate(*again, coordesc));
    QCOMPARE(text(read_bytes(space.best_config)), text(space.original));
    QVERIFY(!bench::why_not_launched_as_written(*again));

    again->coordinate_descent_tuning = true;
    auto searched = bench::accept_candidate(*again, again->plans.back());
    QVERIFY_RESULT(searched);
    auto marked = cachedir::parse_best_config(read_bytes(space.best_config));
    QVERIFY_RESULT(marked);
    QVERIFY(marked->found_by_coordesc == std::optional<bool>(true));
    const auto why = bench::why_not_launched_as_written(*again);
    QVERIFY(why);
    QVERIFY(why->starts_with(kSqrtKernel + std::string(" tunes by coordinate descent")));
    QVERIFY(why->find("PyTorch 2.11 starts a new search") != std::string::npos);
}

void TestBenchStore::accept_keeps_unknown_keys_in_python_layout() {
    Workspace space;
    copy_devset_file(kCatBestConfig, space);
    // What PyTorch adds with warp specialization, plus a nested key with text
    // that json.dumps escapes (ensure_ascii).
    std::string extended = space.original;
    extended.pop_back();
    extended += ", \"num_consumer_groups\": 0, \"num_buffers_warp_spec\": 0, \"note\": "
                "{\"by\": \"caf\\u00e9 \\ud83d\\ude00\\n\\\"q\\\"\", \"list\": [1, 2.5, 1e-05, "
                "null, true, []], \"empty\": {}}}";
    write_bytes(space.best_config, extended);
    auto kernel = devset_kernel(kCatKernel, kCatModule, space.best_config);
    QVERIFY(kernel);
    QCOMPARE(kernel->best_config->other_fields.size(), std::size_t{1});
    const LaunchPlan* winner = plan_with(*kernel, true);
    const LaunchPlan* other = plan_with(*kernel, false);
    QVERIFY(winner != nullptr && other != nullptr);

    // The current winner again: the same bytes, extra keys and all.
    VERIFY_CALL(bench::accept_candidate(*kernel, *winner));
    QCOMPARE(text(read_bytes(space.best_config)), text(extended));

    // Another candidate: the extra keys follow PyTorch's, as they were.
    auto outcome = bench::accept_candidate(*kernel, *other, 3.0);
    QVERIFY_RESULT(outcome);
    const std::string written = read_bytes(space.best_config);
    const std::string tail = extended.substr(extended.find(", \"num_consumer_groups\""));
    QVERIFY2(written.ends_with(tail), written.c_str());
    QVERIFY(written.find("\"time_taken_ms\": 3, \"triton_cache_hash\": \"" +
                         hash::triton_dir_from_hex(other->source.triton_hash) + "\"" + tail) !=
            std::string::npos);
    auto parsed = cachedir::parse_best_config(written);
    QVERIFY_RESULT(parsed);
    QVERIFY(parsed->other_fields == kernel->best_config->other_fields);
    QCOMPARE(text(read_bytes(outcome->backup)), text(extended));
}

void TestBenchStore::accept_refusals_write_nothing() {
    Workspace space;
    copy_devset_file(kCatBestConfig, space);
    auto kernel = devset_kernel(kCatKernel, kCatModule, space.best_config);
    QVERIFY(kernel);
    const LaunchPlan* other = plan_with(*kernel, false);
    QVERIFY(other != nullptr);
    const auto before = listing(space.dir);
    auto refuses = [&](const KernelCandidates& k, const LaunchPlan& plan,
                       std::optional<double> time, const std::string& words) {
        auto outcome = bench::accept_candidate(k, plan, time);
        if (outcome) {
            return std::string("accepted");
        }
        if (outcome.error().message.find(words) == std::string::npos) {
            return outcome.error().describe();
        }
        return listing(space.dir) == before ? std::string() : std::string("wrote something");
    };

    KernelCandidates no_file = *kernel;
    no_file.best_config_path.reset();
    no_file.best_config.reset();
    QCOMPARE(text(refuses(no_file, *other, std::nullopt, "has no .best_config")), QString());

    LaunchPlan stranger = *other;
    stranger.source.triton_hash = std::string(64, 'a');
    QCOMPARE(text(refuses(*kernel, stranger, std::nullopt, "is not one of")), QString());
    LaunchPlan other_config = *other;
    other_config.config.num_warps = 64;
    QCOMPARE(text(refuses(*kernel, other_config, std::nullopt, "is not one of")), QString());
    LaunchPlan other_kernel = *other;
    other_kernel.kernel_name = kSqrtKernel;
    QCOMPARE(text(refuses(*kernel, other_kernel, std::nullopt, "is not one of")), QString());

    QCOMPARE(text(refuses(*kernel, *other, -1.0, "time taken")), QString());
    QCOMPARE(text(refuses(*kernel, *other, std::nan(""), "time taken")), QString());

    KernelCandidates twin = *kernel;
    LaunchPlan copy = *other;
    copy.source.triton_hash = std::string(64, 'b');
    twin.plans.push_back(copy);
    QCOMPARE(text(refuses(twin, *other, std::nullopt, "same config")), QString());

    // PyTorch tuned it again after the plan was made.
    std::string retuned = space.original;
    retuned.replace(retuned.find("\"time_taken_ms\": 70"), 19, "\"time_taken_ms\": 71");
    write_bytes(space.best_config, retuned);
    const auto retuned_listing = listing(space.dir);
    auto changed = bench::accept_candidate(*kernel, *other, 1.0);
    QVERIFY(!changed);
    QVERIFY2(changed.error().message.find("changed since it was read") != std::string::npos,
             changed.error().describe().c_str());
    QCOMPARE(text(changed.error().path), text(space.best_config.string()));
    QVERIFY(listing(space.dir) == retuned_listing);

    // PyTorch writes the file between accept's read and its swap: PyTorch's
    // file stays, the swap is undone, and the backup made before it goes too.
    write_bytes(space.best_config, space.original);
    const auto original_listing = listing(space.dir);
    std::string tuned_meanwhile = space.original;
    tuned_meanwhile.replace(tuned_meanwhile.find("\"time_taken_ms\": 70"), 19,
                            "\"time_taken_ms\": 72");
    int swaps = 0;
    test_seams::set_before_place([&](std::string_view name) {
        if (name == space.best_config.filename().string() && swaps++ == 0) {
            const fs::path pytorch_temp = space.dir / "tmp_pytorch_write";
            write_bytes(pytorch_temp, tuned_meanwhile);
            fs::rename(pytorch_temp, space.best_config);
        }
    });
    auto raced = bench::accept_candidate(*kernel, *other);
    test_seams::set_before_place({});
    QVERIFY(!raced);
    QVERIFY2(raced.error().message.find("changed by another process") != std::string::npos,
             raced.error().describe().c_str());
    QCOMPARE(text(raced.error().path), text(space.best_config.string()));
    auto expected_listing = original_listing;
    expected_listing[fs::relative(space.best_config, space.dir).string()] = tuned_meanwhile;
    QVERIFY(listing(space.dir) == expected_listing);

    // Not a .best_config any more.
    write_bytes(space.best_config, "{\"XBLOCK\": ");
    auto corrupt = bench::accept_candidate(*kernel, *other);
    QVERIFY(!corrupt);
    QCOMPARE(text(corrupt.error().path), text(space.best_config.string()));
    QCOMPARE(listing(space.dir).size(), before.size());
}

void TestBenchStore::backups_never_overwrite() {
    Workspace space;
    copy_devset_file(kCatBestConfig, space);
    auto kernel = devset_kernel(kCatKernel, kCatModule, space.best_config);
    QVERIFY(kernel);
    const LaunchPlan* winner = plan_with(*kernel, true);
    QVERIFY(winner != nullptr);
    // Three accepts within a second or two: three backups, none overwritten.
    std::set<fs::path> backups;
    for (int i = 0; i < 3; ++i) {
        auto outcome = bench::accept_candidate(*kernel, *winner);
        QVERIFY_RESULT(outcome);
        QVERIFY(backups.insert(outcome->backup).second);
        QCOMPARE(text(read_bytes(outcome->backup)), text(space.original));
    }
    QCOMPARE(listing(space.dir).size(), std::size_t{1 + 3});
    const std::string stamp = backups.begin()->filename().string();
    const std::string suffix = stamp.substr(stamp.find(".cachelens-backup-") + 18);
    // yyyymmddThhmmssZ
    QCOMPARE(suffix.size(), std::size_t{16});
    QCOMPARE(suffix[8], 'T');
    QCOMPARE(suffix[15], 'Z');
}

QTEST_GUILESS_MAIN(TestBenchStore)
#include "tst_bench_store.moc"
