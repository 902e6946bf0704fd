// `cachelens bench` from the command line, where CI runs it (no GPU): --plan
// in text and JSON lines agrees with plan_kernels(); a run without a CUDA
// driver says so on stderr and as an "error" line, exit 2, writing nothing;
// `bench accept` rewrites a kernel's .best_config and its backup restores it;
// `bench history` reads what the catalog holds; bad arguments are refused.
// On a stand-in libcuda (fake_cuda.cpp): a whole run, a candidate that ends
// the CUDA context, and accept's side-by-side confirmation.

#include "test_paths.h"

#include <cachelens/bench/bench_protocol.h>
#include <cachelens/bench/bench_store.h>
#include <cachelens/bench/launch_plan.h>
#include <cachelens/catalog/catalog.h>

#include <dlfcn.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

// The records of a --json-lines stream after its header, which must be the
// cachelens-bench header of this version (empty when it is not).
std::vector<QJsonObject> json_lines(const QByteArray& out) {
    std::vector<QJsonObject> lines;
    bool header = false;
    for (const auto& line : out.split('\n')) {
        if (line.trimmed().isEmpty()) {
            continue;
        }
        QJsonParseError error{};
        const auto document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject()) {
            return {};
        }
        const QJsonObject object = document.object();
        if (!header) {
            if (object["event"].toString() != "header" ||
                object["format"].toString() != QString::fromUtf8(bench::protocol::kFormat) ||
                object["version"].toInt() != bench::protocol::kVersion) {
                return {};
            }
            header = true;
            continue;
        }
        lines.push_back(object);
    }
    return lines;
}

// The environment of a CLI run on the stand-in driver; `fault` names a kernel
// whose launch ends the CUDA context.
QProcessEnvironment fake_gpu(const QString& fault = {}) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("LD_LIBRARY_PATH", CACHELENS_FAKE_CUDA_DIR);
    if (!fault.isEmpty()) {
        environment.insert("CACHELENS_FAKE_CUDA_FAULT", fault);
    }
    return environment;
}

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

class TestBenchCli : public QObject {
    Q_OBJECT

    QTemporaryDir temp_;
    fs::path cache_;

private slots:
    void initTestCase() {
        QVERIFY(temp_.isValid());
        cache_ = fs::path(temp_.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), cache_);
    }

    void planJsonLinesAgreeWithTheEngine() {
        auto kernels = bench::plan_kernels(cache_);
        QVERIFY_RESULT(kernels);
        std::size_t plans = 0, unplannable = 0;
        for (const auto& kernel : *kernels) {
            plans += kernel.plans.size();
            unplannable += kernel.unplannable.size();
        }
        QVERIFY(plans > 20);
        const auto run = test::run_cli(
            {"bench", QString::fromStdString(cache_.string()), "--plan", "--json-lines"});
        QCOMPARE(run.exit_code, 0);
        const auto lines = json_lines(run.out);
        QCOMPARE(lines.size(), plans + unplannable);
        std::size_t seen_plans = 0;
        for (const auto& line : lines) {
            if (line["event"].toString() != "plan") {
                QCOMPARE(line["event"].toString(), QString("unplannable"));
                QVERIFY(!line["why"].toString().isEmpty());
                continue;
            }
            ++seen_plans;
            QVERIFY(!line["kernel"].toString().isEmpty());
            QVERIFY(line["triton_hash"].toString().size() == 64);
            QCOMPARE(line["grid"].toArray().size(), 3);
            QVERIFY(line["block_threads"].toInt() > 0);
            QVERIFY(line["args"].toArray().size() >= 3);
            QVERIFY(line["config"].toObject().contains("kwargs"));
            if (line["kernel"].toString() == "triton_red_fused_mul_sqrt_sum_0" &&
                line["is_current_best"].toBool()) {
                QCOMPARE(line["grid"].toArray()[0].toInt(), 4096);
                QCOMPARE(line["args"].toArray()[2].toObject()["value"].toInt(), 4096);
                QCOMPARE(line["args"].toArray()[2].toObject()["bytes"].toInt(), 4);
            }
        }
        QCOMPARE(seen_plans, plans);

        // The text form lists every kernel, the current best marked.
        const auto text = test::run_cli({"bench", QString::fromStdString(cache_.string()), "--plan",
                                         "triton_red_fused_mul_sqrt_sum_0"});
        QCOMPARE(text.exit_code, 0);
        QVERIFY(text.out.contains("triton_red_fused_mul_sqrt_sum_0"));
        QVERIFY(text.out.contains("  * "));
        QVERIFY(text.out.contains("Grid1D grid 4096 x 1 x 1"));
        QVERIFY(!text.out.contains("triton_poi_fused_mm_t_2"));
    }

    void runWithoutADriverSaysSoAndRecordsNothing() {
        const fs::path catalog = fs::path(temp_.path().toStdString()) / "no-driver.sqlite";
        const auto run =
            test::run_cli({"bench", QString::fromStdString(cache_.string()), "--json-lines",
                           "--catalog", QString::fromStdString(catalog.string())});
        if (!run.err.contains("no CUDA driver")) {
            QSKIP("this machine has a CUDA driver");
        }
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.contains("no CUDA driver: libcuda.so.1"), run.err.constData());
        const auto lines = json_lines(run.out);
        QCOMPARE(lines.size(), 1u);
        QCOMPARE(lines[0]["event"].toString(), QString("error"));
        QVERIFY(lines[0]["message"].toString().contains("libcuda.so.1"));
        auto opened = catalog::Catalog::open(catalog);
        QVERIFY_RESULT(opened);
        auto history = bench::kernel_history(*opened, "triton_red_fused_mul_sqrt_sum_0");
        QVERIFY_RESULT(history);
        QVERIFY(history->empty());
    }

    void aRunOnTheFakeDriverTimesAndRecordsEveryCandidate() {
        const fs::path catalog = fs::path(temp_.path().toStdString()) / "fake-run.sqlite";
        const auto run = test::run_cli({"bench", QString::fromStdString(cache_.string()),
                                        "--all-configs", "--json-lines", "--rep", "2", "--warmup",
                                        "1", "--catalog", QString::fromStdString(catalog.string())},
                                       fake_gpu());
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const auto lines = json_lines(run.out);
        QVERIFY(!lines.empty());
        QCOMPARE(lines.front()["event"].toString(), QString("start"));
        QCOMPARE(lines.front()["device"].toObject()["name"].toString(),
                 QString("cachelens fake GPU"));
        const int total = lines.front()["candidates"].toInt();
        QVERIFY(total > 10);
        int results = 0;
        std::map<QString, double> softmax; // config -> median
        QJsonObject verdict;
        for (const auto& line : lines) {
            if (line["event"] == "result") {
                ++results;
                QCOMPARE(line["status"].toString(), QString("ok"));
                QVERIFY(line["median_ms"].toDouble() > 0);
                if (line["kernel"] ==
                    "triton_per_fused__log_softmax_prepare_softmax_online_sub_1") {
                    softmax[line["config_text"].toString()] = line["median_ms"].toDouble();
                }
            } else if (line["event"] == "verdict" &&
                       line["kernel"] ==
                           "triton_per_fused__log_softmax_prepare_softmax_online_sub_1") {
                verdict = line;
            }
        }
        QCOMPARE(results, total);
        QCOMPARE(lines.back()["event"].toString(), QString("end"));
        QCOMPARE(lines.back()["results"].toInt(), total);
        // The stand-in's cost grows with the threads launched: 2, 8 and 64
        // blocks of 64 threads rank XBLOCK=32, 8, 1.
        QCOMPARE(softmax.size(), 3u);
        QVERIFY(softmax["XBLOCK=32, num_warps=2, num_stages=1"] <
                softmax["XBLOCK=8, num_warps=2, num_stages=1"]);
        QVERIFY(softmax["XBLOCK=8, num_warps=2, num_stages=1"] <
                softmax["XBLOCK=1, num_warps=2, num_stages=1"]);
        // XBLOCK=32 beat the current best (8): re-timed side by side.
        QVERIFY2(!verdict.isEmpty(), run.out.constData());
        QVERIFY2(verdict["text"].toString().contains("faster"),
                 qPrintable(QJsonDocument(verdict).toJson()));

        auto opened = catalog::Catalog::open(catalog);
        QVERIFY_RESULT(opened);
        auto history = bench::kernel_history(*opened, "triton_poi_fused_mm_t_2");
        QVERIFY_RESULT(history);
        QCOMPARE(history->size(), 2u);
        QCOMPARE(QString::fromStdString(history->front().device.name),
                 QString("cachelens fake GPU"));
    }

    // An illegal address ends the CUDA context for the rest of the process:
    // the failure is a result, stored; the run stops with an error naming
    // the kernel, the kernels left untimed and the command that times them.
    void aCandidateThatEndsTheContextStopsTheRunAndSaysWhatIsLeft() {
        const fs::path catalog = fs::path(temp_.path().toStdString()) / "fault.sqlite";
        const QString dir = QString::fromStdString(cache_.string());
        const auto run = test::run_cli({"bench", dir, "triton_red_fused_add_mean_relu_sum_1",
                                        "triton_per_fused_sum_6", "triton_red_fused_mean_0",
                                        "--json-lines", "--rep", "2", "--warmup", "1", "--catalog",
                                        QString::fromStdString(catalog.string())},
                                       fake_gpu("triton_red_fused_add_mean_relu_sum_1"));
        QCOMPARE(run.exit_code, 2);
        const auto lines = json_lines(run.out);
        QCOMPARE(lines.size(), 3u);
        QCOMPARE(lines[1]["event"].toString(), QString("result"));
        QCOMPARE(lines[1]["status"].toString(), QString("launch"));
        QVERIFY(lines[1]["message"].toString().contains("CUDA_ERROR_ILLEGAL_ADDRESS"));
        QCOMPARE(lines[2]["event"].toString(), QString("error"));
        const QString message = lines[2]["message"].toString();
        QVERIFY2(message.contains("the CUDA driver runs nothing more in this process after "
                                  "triton_red_fused_add_mean_relu_sum_1 (XBLOCK=2, R0_BLOCK=64, "
                                  "num_warps=2, num_stages=1): ") &&
                     message.contains("such an error ends the CUDA context for good; not "
                                      "timed: triton_per_fused_sum_6, triton_red_fused_mean_0; "
                                      "to time them: cachelens bench " +
                                      dir +
                                      " cdub3m7xxi4u2w24xjl6s7htngwituwdn3qsehw57z2y7tndcf4s "
                                      "cjvv5ppm5unukwqpsxcxlzqp6tmi22kpwijzpb5tk62vnr67itlp"),
                 qPrintable(message));
        QVERIFY(run.err.contains("not timed: triton_per_fused_sum_6"));

        auto opened = catalog::Catalog::open(catalog);
        QVERIFY_RESULT(opened);
        auto failed = bench::kernel_history(*opened, "triton_red_fused_add_mean_relu_sum_1");
        QVERIFY_RESULT(failed);
        QCOMPARE(failed->size(), 1u);
        QCOMPARE(QString::fromStdString(failed->front().result.status), QString("launch"));
        auto untimed = bench::kernel_history(*opened, "triton_red_fused_mean_0");
        QVERIFY_RESULT(untimed);
        QVERIFY(untimed->empty());
    }

    // Without coordinate descent, accept writes a candidate only when it wins
    // side by side; the current best again writes nothing.
    void acceptOnTheFakeDriverConfirmsSideBySide() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path dir = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), dir);
        const QString kernel = "triton_per_fused__log_softmax_prepare_softmax_online_sub_1";
        const fs::path best_config =
            dir / "a6" /
            "b92708b62fd19dab503567221d57ffcf4683baeb6b435fd5cc876b684c8e862a.best_config";
        const std::string before = slurp(best_config);
        QVERIFY(before.find("\"XBLOCK\": 8") != std::string::npos);
        const QStringList accept = {"bench", "accept", kernel};
        const QStringList where = {"--dir", QString::fromStdString(dir.string()), "--json"};

        const auto slower = test::run_cli(accept + QStringList{"c1216de1"} + where, fake_gpu());
        QCOMPARE(slower.exit_code, 2);
        QVERIFY2(slower.err.contains("not accepted: the candidate is") &&
                     slower.err.contains("slower than the current best") &&
                     slower.err.contains("nothing written; --force accepts it anyway"),
                 slower.err.constData());
        QCOMPARE(slurp(best_config), before);

        const auto same = test::run_cli(accept + QStringList{"9c9df5b3"} + where, fake_gpu());
        QCOMPARE(same.exit_code, 0);
        QVERIFY(QJsonDocument::fromJson(same.out).object()["backup"].isNull());
        QCOMPARE(slurp(best_config), before);

        const auto faster = test::run_cli(accept + QStringList{"e07be71b"} + where, fake_gpu());
        QVERIFY2(faster.exit_code == 0, faster.err.constData());
        const auto outcome = QJsonDocument::fromJson(faster.out).object();
        QVERIFY(outcome["verdict"].toObject()["text"].toString().contains("faster"));
        QCOMPARE(outcome["new_config"].toString(), QString("XBLOCK=32, num_warps=2, num_stages=1"));
        QVERIFY(slurp(best_config).find("\"XBLOCK\": 32") != std::string::npos);
        QVERIFY(fs::exists(outcome["backup"].toString().toStdString()));
    }

    void historyPrintsWhatTheCatalogHolds() {
        const fs::path path = fs::path(temp_.path().toStdString()) / "history.sqlite";
        auto opened = catalog::Catalog::open(path);
        QVERIFY_RESULT(opened);
        bench::BenchRun run;
        run.started_ns = 1'700'000'000'000'000'000;
        run.device = {"NVIDIA H100 80GB HBM3", "9.0", "13.0", 1980, 52428800};
        bench::CandidateResult result;
        result.kernel_name = "triton_red_fused_mul_sqrt_sum_0";
        result.module_key = "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w";
        result.triton_hash = std::string(64, 'a');
        result.config.kwargs = {{"XBLOCK", std::int64_t{1}}, {"R0_BLOCK", std::int64_t{2048}}};
        result.config.num_warps = 16;
        result.config.num_stages = 1;
        result.samples_ms = {0.0222, 0.0230, 0.0225};
        result.stats = bench::stats_of(result.samples_ms);
        run.results.push_back(result);
        QVERIFY_RESULT(bench::record_run(*opened, run));

        const auto json = test::run_cli({"bench", "history", "triton_red_fused_mul_sqrt_sum_0",
                                         "--json", "--catalog", QString::fromStdString(path)});
        QCOMPARE(json.exit_code, 0);
        const auto rows = QJsonDocument::fromJson(json.out).array();
        QCOMPARE(rows.size(), 1);
        const auto row = rows[0].toObject();
        QCOMPARE(row["device"].toObject()["name"].toString(), QString("NVIDIA H100 80GB HBM3"));
        QCOMPARE(row["samples_ms"].toArray().size(), 3);
        QCOMPARE(row["median_ms"].toDouble(), 0.0225);
        QCOMPARE(row["config"].toObject()["num_warps"].toInt(), 16);

        const auto text = test::run_cli({"bench", "history", result.module_key.c_str(), "--catalog",
                                         QString::fromStdString(path)});
        QCOMPARE(text.exit_code, 0);
        QVERIFY(text.out.contains("NVIDIA H100 80GB HBM3"));
        QVERIFY(text.out.contains("0.0225 ms"));
    }

    void acceptRewritesTheBestConfigAndTheBackupRestoresIt() {
        // The 2c reduction: its FX bundle compiled R0_BLOCK=2048 with 16 warps
        // beside the coordinate-descent winner (formats.md: the faster one).
        auto kernels = bench::plan_kernels(cache_, {{"triton_red_fused_mul_sqrt_sum_0"}, true});
        QVERIFY_RESULT(kernels);
        QCOMPARE(kernels->size(), 1u);
        const auto& kernel = kernels->front();
        QVERIFY(kernel.best_config_path.has_value());
        const std::string before = slurp(*kernel.best_config_path);
        const bench::LaunchPlan* other = nullptr;
        for (const auto& plan : kernel.plans) {
            if (!plan.is_current_best) {
                other = &plan;
            }
        }
        QVERIFY(other != nullptr);
        const QString hash = QString::fromStdString(other->source.triton_hash.substr(0, 10));

        const auto refused = test::run_cli({"bench", "accept", "triton_red_fused_mul_sqrt_sum_0",
                                            "abc", "--dir", QString::fromStdString(cache_)});
        QCOMPARE(refused.exit_code, 2);
        QCOMPARE(slurp(*kernel.best_config_path), before);

        // The devset compiled with coordinate descent on: PyTorch would only
        // start a search from the candidate (seen with 2.11), so it takes --force.
        const auto searched =
            test::run_cli({"bench", "accept", "triton_red_fused_mul_sqrt_sum_0", hash, "--dir",
                           QString::fromStdString(cache_), "--json"});
        QCOMPARE(searched.exit_code, 2);
        QVERIFY2(searched.err.contains("not accepted: triton_red_fused_mul_sqrt_sum_0 tunes by "
                                       "coordinate descent") &&
                     searched.err.contains("nothing written; --force writes it as the starting "
                                           "point"),
                 searched.err.constData());
        // --json: the refusal typed on stdout, as the GUI reads it: --force would write.
        const auto searchedJson = QJsonDocument::fromJson(searched.out).object();
        QCOMPARE(searchedJson["event"].toString(), QString("error"));
        QCOMPARE(searchedJson["refusal"].toString(), QString("not_launched_as_written"));
        QCOMPARE(searchedJson["message"].toString().toUtf8(), searched.err.mid(11).trimmed());
        QCOMPARE(slurp(*kernel.best_config_path), before);

        const auto accepted =
            test::run_cli({"bench", "accept", "triton_red_fused_mul_sqrt_sum_0", hash, "--dir",
                           QString::fromStdString(cache_), "--json", "--force"});
        QCOMPARE(accepted.exit_code, 0);
        const auto outcome = QJsonDocument::fromJson(accepted.out).object();
        QCOMPARE(outcome["best_config"].toString(),
                 QString::fromStdString(kernel.best_config_path->string()));
        const auto after =
            QJsonDocument::fromJson(QByteArray::fromStdString(slurp(*kernel.best_config_path)))
                .object();
        QCOMPARE(after["R0_BLOCK"].toInt(), 2048);
        QCOMPARE(after["num_warps"].toInt(), 16);
        // What PyTorch writes for a coordinate-descent kernel's winner.
        QCOMPARE(after["found_by_coordesc"].toBool(), true);
        QVERIFY(outcome["verdict"].isNull()); // --force: not re-timed
        const auto old = QJsonDocument::fromJson(QByteArray::fromStdString(before)).object();
        QCOMPARE(after["configs_hash"], old["configs_hash"]);
        QCOMPARE(after.keys(), old.keys());
        // The planner now marks the accepted candidate as the best.
        auto again = bench::plan_kernels(cache_, {{"triton_red_fused_mul_sqrt_sum_0"}, false});
        QVERIFY_RESULT(again);
        QCOMPARE(again->front().plans.size(), 1u);
        QCOMPARE(again->front().plans.front().source.triton_hash, other->source.triton_hash);

        const fs::path backup = outcome["backup"].toString().toStdString();
        QCOMPARE(slurp(backup), before);
    }

    // A cache is changed only where the user points: without --dir, accept
    // names the one indexed dir that holds the kernel and writes only with
    // --yes; with several it lists them. What it writes in is echoed.
    void acceptWritesOnlyWhereItIsPointed() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path base = fs::canonical(temp.path().toStdString());
        const fs::path first = base / "first";
        const fs::path second = base / "second";
        const QString catalog = QString::fromStdString((base / "catalog.sqlite").string());
        test::copy_tree(test::fixture("devset/cache"), first);
        {
            auto opened = catalog::Catalog::open(catalog.toStdString());
            QVERIFY_RESULT(opened);
            QVERIFY_RESULT(opened->index(first));
        }
        const QString kernel = "triton_red_fused_mul_sqrt_sum_0";
        auto kernels = bench::plan_kernels(first, {{kernel.toStdString()}, true});
        QVERIFY_RESULT(kernels);
        QCOMPARE(kernels->size(), 1u);
        const fs::path best_config = *kernels->front().best_config_path;
        QString hash;
        for (const auto& plan : kernels->front().plans) {
            if (!plan.is_current_best) {
                hash = QString::fromStdString(plan.source.triton_hash.substr(0, 10));
            }
        }
        QVERIFY(!hash.isEmpty());
        const std::string before = slurp(best_config);
        const auto backups = [&] {
            std::size_t count = 0;
            for (const auto& item : fs::directory_iterator(best_config.parent_path())) {
                count +=
                    item.path().filename().string().find(".cachelens-backup-") != std::string::npos;
            }
            return count;
        };

        // One indexed dir holds it: named, nothing written without --yes.
        for (const QStringList& json : {QStringList{}, QStringList{"--json"}}) {
            const auto asked = test::run_cli(
                QStringList{"bench", "accept", kernel, hash, "--catalog", catalog} + json);
            QCOMPARE(asked.exit_code, 2);
            QVERIFY2(asked.err.contains(
                         QByteArray::fromStdString("would write " + best_config.string() + " in " +
                                                   first.string() + "; give --dir DIR or --yes")),
                     asked.err.constData());
            // --json: the refusal typed on stdout; not one --force overrules.
            QCOMPARE(asked.out.isEmpty(), json.isEmpty());
            if (!json.isEmpty()) {
                const auto refusal = QJsonDocument::fromJson(asked.out).object();
                QCOMPARE(refusal["kind"].toString(), QString("invalid-argument"));
                QVERIFY(refusal["refusal"].isNull());
            }
            QCOMPARE(slurp(best_config), before);
            QCOMPARE(backups(), 0u);
        }

        const auto accepted = test::run_cli(
            {"bench", "accept", kernel, hash, "--catalog", catalog, "--yes", "--json", "--force"});
        QCOMPARE(accepted.exit_code, 0);
        const auto outcome = QJsonDocument::fromJson(accepted.out).object();
        QCOMPARE(outcome["target"].toString(), QString::fromStdString(first.string()));
        QCOMPARE(outcome["best_config"].toString(), QString::fromStdString(best_config.string()));
        QVERIFY(slurp(best_config) != before);
        QCOMPARE(backups(), 1u);

        // With --dir, spelled any way: echoed first, absolute.
        const std::string accepted_text = slurp(best_config);
        fs::create_directory(second);
        const auto named =
            test::run_cli({"bench", "accept", kernel, hash, "--force", "--dir",
                           QString::fromStdString((second / ".." / "first").string())});
        QCOMPARE(named.exit_code, 0);
        QCOMPARE(named.out.split('\n').first(),
                 QByteArray::fromStdString("into " + first.string() + ":"));
        // It is the best config now: accepting it again writes nothing.
        QVERIFY2(named.out.contains("is already the best config of " + kernel.toUtf8() +
                                    "; nothing written"),
                 named.out.constData());
        QCOMPARE(slurp(best_config), accepted_text);
        QCOMPARE(backups(), 1u);
        fs::remove(second);

        // Two indexed dirs hold it: both listed, nothing written anywhere.
        test::copy_tree(test::fixture("devset/cache"), second);
        {
            auto opened = catalog::Catalog::open(catalog.toStdString());
            QVERIFY_RESULT(opened);
            QVERIFY_RESULT(opened->index(second));
        }
        const auto several = test::run_cli(
            {"bench", "accept", kernel, hash, "--catalog", catalog, "--yes", "--force"});
        QCOMPARE(several.exit_code, 2);
        QVERIFY2(several.err.contains("is in 2 indexed cache dirs; name one with --dir") &&
                     several.err.contains(QByteArray::fromStdString("\n  " + first.string())) &&
                     several.err.contains(QByteArray::fromStdString("\n  " + second.string())),
                 several.err.constData());
        QCOMPARE(slurp(best_config), accepted_text);
        QCOMPARE(slurp(second / best_config.lexically_relative(first)), before);

        // None: named as such.
        const auto none = test::run_cli(
            {"bench", "accept", "triton_no_such_kernel", hash, "--catalog", catalog, "--yes"});
        QCOMPARE(none.exit_code, 2);
        QVERIFY2(none.err.contains("no indexed cache dir has kernel triton_no_such_kernel"),
                 none.err.constData());
    }

    // Without coordinate descent a candidate is launched as written; accept
    // then wants it faster side by side on a GPU, and says so where there is none.
    void acceptWantsTheCandidateConfirmedOnTheGpu() {
        if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
            dlclose(driver);
            QSKIP("a CUDA driver is here: the confirmation would run");
        }
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path dir = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("devset/cache"), dir);
        const fs::path module =
            dir / "2c" / "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w.py";
        std::string source = slurp(module);
        const std::string on = "'coordinate_descent_tuning': True";
        QVERIFY(source.find(on) != std::string::npos);
        source.replace(source.find(on), on.size(), "'coordinate_descent_tuning': False");
        std::ofstream(module, std::ios::binary | std::ios::trunc) << source;

        auto kernels = bench::plan_kernels(dir, {{"triton_red_fused_mul_sqrt_sum_0"}, true});
        QVERIFY_RESULT(kernels);
        QCOMPARE(kernels->size(), 1u);
        QVERIFY(!kernels->front().coordinate_descent_tuning);
        QString hash;
        for (const auto& plan : kernels->front().plans) {
            if (!plan.is_current_best) {
                hash = QString::fromStdString(plan.source.triton_hash.substr(0, 10));
            }
        }
        const fs::path best_config = *kernels->front().best_config_path;
        const std::string before = slurp(best_config);
        const auto unconfirmed =
            test::run_cli({"bench", "accept", "triton_red_fused_mul_sqrt_sum_0", hash, "--dir",
                           QString::fromStdString(dir.string())});
        QCOMPARE(unconfirmed.exit_code, 2);
        QVERIFY2(unconfirmed.err.contains("cannot confirm the candidate is faster: no CUDA "
                                          "driver") &&
                     unconfirmed.err.contains("nothing written; --force accepts it without a "
                                              "comparison"),
                 unconfirmed.err.constData());
        QCOMPARE(slurp(best_config), before);

        const auto forced =
            test::run_cli({"bench", "accept", "triton_red_fused_mul_sqrt_sum_0", hash, "--dir",
                           QString::fromStdString(dir.string()), "--force"});
        QCOMPARE(forced.exit_code, 0);
        QVERIFY(forced.out.contains("not re-timed (--force)"));
        const auto after =
            QJsonDocument::fromJson(QByteArray::fromStdString(slurp(best_config))).object();
        QCOMPARE(after["found_by_coordesc"].toBool(true), false);
    }

    void refusesBadArguments() {
        QCOMPARE(test::run_cli({"bench"}).exit_code, 2);
        const auto missing = test::run_cli({"bench", "/nonexistent/cache", "--plan"});
        QCOMPARE(missing.exit_code, 2);
        QVERIFY(missing.err.contains("/nonexistent/cache"));
        QVERIFY(test::run_cli({"bench", QString::fromStdString(cache_.string()), "--rep", "-1"})
                    .exit_code != 0);
        const auto none = test::run_cli(
            {"bench", QString::fromStdString(cache_.string()), "--plan", "no_such_kernel"});
        QCOMPARE(none.exit_code, 2); // nothing to plan: an error, as nothing to run is
        QVERIFY(none.err.contains("no kernel or module named no_such_kernel"));
    }
};

QTEST_MAIN(TestBenchCli)
#include "tst_bench_cli.moc"
