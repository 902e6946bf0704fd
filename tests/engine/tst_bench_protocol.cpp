// The records `bench --json-lines` and `bench accept --json` print, built
// here without a GPU (the first run on one crashed building a result record,
// a path no test had reached), and read back by the same code the GUI reads
// them with: every record survives the trip, a stream of another version or
// without a header is refused naming its writer, and a line that is not a
// record of this version is reported, never skipped.

#include <cachelens/bench/bench_protocol.h>

#include <nlohmann/json.hpp>

#include <QtTest>

using namespace cachelens;
namespace protocol = bench::protocol;
using Json = nlohmann::ordered_json;

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

QStringList keys(const Json& json) {
    QStringList out;
    for (const auto& [key, value] : json.items()) {
        out << QString::fromStdString(key);
    }
    return out;
}

Json json(const protocol::Record& record) {
    return Json::parse(protocol::to_line(record));
}

// The record a line parses to, or a failed check.
std::optional<protocol::Record> parsed(const std::string& line) {
    auto result = protocol::parse_line(line);
    if (auto* record = std::get_if<protocol::Record>(&result)) {
        return std::move(*record);
    }
    if (auto* bad = std::get_if<protocol::BadLine>(&result)) {
        qWarning("bad line: %s (%s)", bad->why.c_str(), bad->line.c_str());
    }
    return std::nullopt;
}

std::string header() {
    return protocol::to_line(protocol::Header{.program = "cachelens 9.9"}) + '\n';
}

bench::PairedResult pairFasterCandidate() {
    bench::PairedResult paired;
    paired.a = candidate("3ab4fc", 0.0174, true);
    paired.b = candidate("e6ad55", 0.0168, false);
    paired.rounds.assign(30, bench::PairedRound{0.0174, 0.0168});
    paired.verdict = bench::judge_pair(paired.rounds);
    return paired;
}

} // namespace

class TestBenchProtocol : public QObject {
    Q_OBJECT

private slots:
    void resultLineLeadsWithItsPlace() {
        const auto line = json(protocol::Result{3, 35, candidate("3ab4fc", 0.0172, true)});
        QCOMPARE(keys(line).mid(0, 4), (QStringList{"event", "index", "total", "kernel"}));
        QCOMPARE(line["event"], "result");
        QCOMPARE(line["index"], 3);
        QCOMPARE(line["total"], 35);
        QCOMPARE(line["config"]["kwargs"]["R0_BLOCK"], 2048);
        QCOMPARE(line["config_text"], "XBLOCK=1, R0_BLOCK=2048, num_warps=16, num_stages=1");
        QCOMPARE(line["median_ms"], 0.0172);
    }

    void verdictLineSaysWhoWon() {
        auto paired = pairFasterCandidate();
        const auto line = json(protocol::verdict_of(paired));
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
        const auto failed = json(protocol::verdict_of(paired));
        QCOMPARE(failed["status"], "resources");
        QCOMPARE(failed["outcome"], "no_difference");
        QCOMPARE(QString::fromStdString(failed["text"].get<std::string>()),
                 QStringLiteral("the candidate could not be re-timed: resources: needs 240000 "
                                "bytes of shared memory; the device allows 232448"));
    }

    void everyRecordSurvivesTheTrip() {
        const auto result = candidate("3ab4fc", 0.0172, true);
        const auto back = parsed(protocol::to_line(protocol::Result{3, 35, result}));
        QVERIFY(back);
        const auto& read = std::get<protocol::Result>(*back);
        QCOMPARE(read.index, 3u);
        QCOMPARE(read.result.config, result.config);
        QCOMPARE(read.result.samples_ms, result.samples_ms);
        QCOMPARE(read.result.stats.median_ms, result.stats.median_ms);
        QVERIFY(read.result.was_best);

        const auto verdict = protocol::verdict_of(pairFasterCandidate());
        const auto verdictBack = parsed(protocol::to_line(verdict));
        QVERIFY(verdictBack);
        QVERIFY(std::get<protocol::Verdict>(*verdictBack).candidate_faster());
        QCOMPARE(std::get<protocol::Verdict>(*verdictBack).text, verdict.text);

        protocol::Plan plan;
        plan.kernel = "triton_poi_fused_0";
        plan.module = "cabc";
        plan.triton_hash = "e6ad55";
        plan.config = result.config;
        plan.grid = {4096, 2, 1};
        bench::LaunchArg buffer;
        buffer.name = "in_ptr0";
        buffer.type = "*fp32";
        buffer.shape = {64, 64};
        buffer.stride = {64, 1};
        buffer.dtype = "float32";
        buffer.buffer_bytes = 16384;
        bench::LaunchArg count;
        count.kind = bench::LaunchArg::Kind::Int;
        count.name = "xnumel";
        count.type = "i32";
        count.bytes = 4;
        count.integer = 4096;
        plan.args = {buffer, count};
        const auto planBack = parsed(protocol::to_line(plan));
        QVERIFY(planBack);
        const auto& readPlan = std::get<protocol::Plan>(*planBack);
        QCOMPARE(readPlan.grid, plan.grid);
        QCOMPARE(readPlan.args.size(), 2u);
        QCOMPARE(readPlan.args[0].shape, buffer.shape);
        QCOMPARE(readPlan.args[1].integer, 4096);

        const protocol::Failure refused{ErrorKind::InvalidArgument, "not accepted: within noise",
                                        bench::AcceptRefusal::NotFaster};
        const auto failureBack = parsed(protocol::to_line(refused));
        QVERIFY(failureBack);
        const auto& readFailure = std::get<protocol::Failure>(*failureBack);
        QCOMPARE(readFailure.kind, ErrorKind::InvalidArgument);
        QCOMPARE(readFailure.refusal, std::optional(bench::AcceptRefusal::NotFaster));
        QCOMPARE(readFailure.message, refused.message);
    }

    void aStreamOfThisVersionIsRead() {
        protocol::StreamReader reader;
        const std::string stream = header() + protocol::to_line(protocol::End{12, 3, 1, 0}) + '\n';
        // Split anywhere: a record is read once its newline arrives.
        std::vector<protocol::StreamItem> items;
        for (std::size_t at = 0; at < stream.size(); at += 7) {
            for (auto& item : reader.feed(std::string_view(stream).substr(at, 7))) {
                items.push_back(std::move(item));
            }
        }
        QCOMPARE(items.size(), 2u);
        QVERIFY(std::holds_alternative<protocol::Header>(std::get<protocol::Record>(items[0])));
        QCOMPARE(std::get<protocol::End>(std::get<protocol::Record>(items[1])).run_id, 12);
        QVERIFY(!reader.incompatible());
    }

    void anotherVersionIsRefusedNamingItsWriter() {
        protocol::StreamReader reader;
        auto items =
            reader.feed(protocol::to_line(protocol::Header{.version = protocol::kVersion + 1,
                                                           .program = "cachelens 7.0"}) +
                        '\n' + protocol::to_line(protocol::End{}) + '\n');
        QCOMPARE(items.size(), 1u);
        const auto* refused = std::get_if<protocol::Incompatible>(&items[0]);
        QVERIFY(refused != nullptr);
        QVERIFY2(refused->why.find("cachelens 7.0 speaks cachelens-bench version") !=
                     std::string::npos,
                 refused->why.c_str());
        QVERIFY(reader.incompatible());
        // Nothing after the refusal is read.
        QVERIFY(reader.feed(header()).empty());

        // No header at all: an older cachelens.
        protocol::StreamReader old;
        items = old.feed(R"({"event":"start","cache_dir":"/c"})"
                         "\n");
        QCOMPARE(items.size(), 1u);
        QVERIFY(std::holds_alternative<protocol::Incompatible>(items[0]));
    }

    void linesThatAreNotRecordsAreReported() {
        const auto check = [](const std::string& line, const char* why) {
            const auto result = protocol::parse_line(line);
            const auto* bad = std::get_if<protocol::BadLine>(&result);
            QVERIFY2(bad != nullptr, line.c_str());
            QVERIFY2(bad->why.find(why) != std::string::npos, bad->why.c_str());
        };
        check("Traceback: not JSON", "not JSON");
        check("[1, 2]", "not a JSON object");
        check(R"({"kernel":"k"})", "no \"event\"");
        check(R"({"event":"fireworks"})", "an event this reader does not know: fireworks");
        check(R"({"event":"end","run_id":"twelve","results":1,"failed":0})",
              "\"run_id\" is not an integer");
        check(R"({"event":"error","kind":"oops","message":"m"})", "\"kind\" is not an error kind");
        QVERIFY(std::holds_alternative<std::monostate>(protocol::parse_line("   ")));
    }

    void anAcceptDocumentIsAcceptedOrARefusal() {
        bench::AcceptReport report;
        report.target = "/cache";
        report.best_config = "/cache/c2/cabc.best_config";
        report.backup = "/cache/c2/cabc.best_config.cachelens-backup-1";
        report.old_config = "XBLOCK=1";
        report.new_config = "XBLOCK=2";
        report.verdict = pairFasterCandidate();
        auto document =
            protocol::parse_accept_document(protocol::to_document(protocol::accepted_of(report)));
        const auto* accepted = std::get_if<protocol::Accepted>(&document);
        QVERIFY(accepted != nullptr);
        QCOMPARE(accepted->backup, std::optional<std::string>(report.backup->string()));
        QVERIFY(accepted->verdict && accepted->verdict->candidate_faster());

        document = protocol::parse_accept_document(protocol::to_document(
            protocol::Failure::of(Error{ErrorKind::InvalidArgument, "not accepted", "/cache"},
                                  bench::AcceptRefusal::NotLaunchedAsWritten)));
        const auto* failure = std::get_if<protocol::Failure>(&document);
        QVERIFY(failure != nullptr);
        QCOMPARE(failure->message, std::string("/cache: not accepted"));
        QCOMPARE(failure->refusal, std::optional(bench::AcceptRefusal::NotLaunchedAsWritten));

        // The documented object of an older cachelens: no version in it.
        document = protocol::parse_accept_document(R"({"best_config":"/c/x.best_config"})");
        QVERIFY(std::holds_alternative<protocol::Incompatible>(document));
        document = protocol::parse_accept_document("refused");
        QVERIFY(std::holds_alternative<protocol::BadLine>(document));
    }
};

QTEST_GUILESS_MAIN(TestBenchProtocol)
#include "tst_bench_protocol.moc"
