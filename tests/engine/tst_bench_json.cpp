// The records `bench --json-lines` prints from a GPU run (result, verdict),
// built here without a GPU: the first run on one crashed building a result
// record, a path no test had reached.

#include "bench_json.h"

#include <QtTest>

using namespace cachelens;

namespace {

bench::CandidateResult candidate(const char* hash, double median_ms, bool was_best) {
    bench::CandidateResult result;
    result.kernel_name = "triton_red_fused_mul_sqrt_sum_0";
    result.module_key = "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w";
    result.triton_hash = hash;
    result.config.kwargs = {{"XBLOCK", std::int64_t{1}}, {"R0_BLOCK", std::int64_t{2048}}};
    result.config.num_warps = 16;
    result.config.num_stages = 1;
    result.was_best = was_best;
    result.samples_ms = {median_ms, median_ms};
    result.stats = bench::stats_of(result.samples_ms);
    return result;
}

QStringList keys(const cli::Json& json) {
    QStringList out;
    for (const auto& [key, value] : json.items()) {
        out << QString::fromStdString(key);
    }
    return out;
}

} // namespace

class TestBenchJson : public QObject {
    Q_OBJECT

private slots:
    void resultLineLeadsWithItsPlace() {
        const auto line = cli::result_line_json(candidate("3ab4fc", 0.0172, true), 3, 35);
        QCOMPARE(keys(line).mid(0, 4), (QStringList{"event", "index", "total", "kernel"}));
        QCOMPARE(line["event"], "result");
        QCOMPARE(line["index"], 3);
        QCOMPARE(line["total"], 35);
        QCOMPARE(line["config"]["kwargs"]["R0_BLOCK"], 2048);
        QCOMPARE(line["config_text"], "XBLOCK=1, R0_BLOCK=2048, num_warps=16, num_stages=1");
        QCOMPARE(line["median_ms"], 0.0172);
    }

    void verdictLineSaysWhoWon() {
        bench::PairedResult paired;
        paired.a = candidate("3ab4fc", 0.0174, true);
        paired.b = candidate("e6ad55", 0.0168, false);
        paired.rounds.assign(30, bench::PairedRound{0.0174, 0.0168});
        paired.verdict = bench::judge_pair(paired.rounds);
        const auto line = cli::verdict_line_json(paired);
        QCOMPARE(line["event"], "verdict");
        QCOMPARE(line["best"], "3ab4fc");
        QCOMPARE(line["candidate"], "e6ad55");
        QCOMPARE(line["status"], "ok");
        QCOMPARE(line["outcome"], "faster");
        QCOMPARE(line["rounds"], 30);
        QCOMPARE(QString::fromStdString(line["text"].get<std::string>()),
                 QStringLiteral("the candidate is 3.4% faster than the current best: 30 of 30 "
                                "paired rounds agree (100%)"));

        // A side that failed: its status, and a text that says which.
        paired.b.status = "resources";
        paired.b.message = "needs 240000 bytes of shared memory; the device allows 232448";
        paired.rounds.clear();
        paired.verdict = bench::judge_pair(paired.rounds);
        const auto failed = cli::verdict_line_json(paired);
        QCOMPARE(failed["status"], "resources");
        QCOMPARE(failed["outcome"], "no_difference");
        QCOMPARE(QString::fromStdString(failed["text"].get<std::string>()),
                 QStringLiteral("the candidate could not be re-timed: resources: needs 240000 "
                                "bytes of shared memory; the device allows 232448"));
    }
};

QTEST_GUILESS_MAIN(TestBenchJson)
#include "tst_bench_json.moc"
