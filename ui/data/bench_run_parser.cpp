#include "data/bench_run_parser.h"

#include <concepts>

namespace cachelens::ui {

namespace {

namespace protocol = bench::protocol;

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

BenchResultEvent resultEvent(const protocol::Result& record) {
    const auto& result = record.result;
    BenchResultEvent event;
    event.index = static_cast<int>(record.index);
    event.total = static_cast<int>(record.total);
    event.kernel = qs(result.kernel_name);
    event.module = qs(result.module_key);
    event.tritonHash = qs(result.triton_hash);
    event.configText = qs(result.config.describe());
    event.wasBest = result.was_best;
    event.status = qs(result.status);
    event.message = qs(result.message);
    event.samplesMs = result.samples_ms;
    event.medianMs = result.stats.median_ms;
    event.minMs = result.stats.min_ms;
    event.p20Ms = result.stats.p20_ms;
    event.p80Ms = result.stats.p80_ms;
    event.registersText = qs(bench::describe_registers(result));
    return event;
}

BenchVerdictEvent verdictEvent(const protocol::Verdict& record) {
    BenchVerdictEvent verdict;
    verdict.kernel = qs(record.kernel);
    verdict.module = qs(record.module);
    verdict.bestHash = qs(record.best_hash);
    verdict.candidateHash = qs(record.candidate_hash);
    verdict.bestConfigText = qs(record.best_config_text);
    verdict.candidateConfigText = qs(record.candidate_config_text);
    verdict.status = qs(record.status);
    verdict.message = qs(record.message);
    verdict.rounds = record.rounds;
    switch (record.outcome) {
    case bench::PairedVerdict::Outcome::Faster:
        verdict.outcome = QStringLiteral("faster");
        break;
    case bench::PairedVerdict::Outcome::Slower:
        verdict.outcome = QStringLiteral("slower");
        break;
    case bench::PairedVerdict::Outcome::NoDifference:
        verdict.outcome = QStringLiteral("no_difference");
        break;
    }
    verdict.differencePercent = record.difference_percent;
    verdict.agreement = record.agreement;
    verdict.text = qs(record.text);
    return verdict;
}

BenchPlanEvent planEvent(const protocol::Plan& record) {
    BenchPlanEvent plan;
    plan.kernel = qs(record.kernel);
    plan.module = qs(record.module);
    plan.tritonHash = qs(record.triton_hash);
    plan.configText = qs(record.config.describe());
    plan.isCurrentBest = record.is_current_best;
    plan.gridType = qs(record.grid_type);
    plan.grid.assign(record.grid.begin(), record.grid.end());
    plan.blockThreads = static_cast<int>(record.block_threads);
    plan.sharedBytes = record.shared_bytes;
    plan.source = qs(record.source);
    plan.args = record.args;
    return plan;
}

BenchErrorEvent errorEvent(const protocol::Failure& failure) {
    return {qs(failure.message), failure.kind, failure.refusal};
}

struct ToEvent {
    std::optional<BenchEvent> operator()(const protocol::Header&) const { return std::nullopt; }
    std::optional<BenchEvent> operator()(const protocol::Start& start) const {
        const auto& device = start.device;
        return BenchStartEvent{qs(start.cache_dir),
                               {qs(device.name), qs(device.compute_capability),
                                qs(device.driver_version), device.sm_clock_mhz, device.l2_bytes},
                               qs(start.timing),
                               static_cast<int>(start.kernels),
                               static_cast<int>(start.candidates)};
    }
    std::optional<BenchEvent> operator()(const protocol::Unplannable& record) const {
        return BenchUnplannableEvent{qs(record.kernel), qs(record.module), qs(record.what),
                                     qs(record.why)};
    }
    std::optional<BenchEvent> operator()(const protocol::Result& record) const {
        return resultEvent(record);
    }
    std::optional<BenchEvent> operator()(const protocol::Verdict& record) const {
        return verdictEvent(record);
    }
    std::optional<BenchEvent> operator()(const protocol::Plan& record) const {
        return planEvent(record);
    }
    std::optional<BenchEvent> operator()(const protocol::End& end) const {
        return BenchEndEvent{end.run_id, static_cast<int>(end.results),
                             static_cast<int>(end.failed)};
    }
    std::optional<BenchEvent> operator()(const protocol::Failure& failure) const {
        return errorEvent(failure);
    }
    std::optional<BenchEvent> operator()(const protocol::Accepted&) const {
        // A document of `bench accept`, not a record of a run: not for this page's streams.
        return BenchBadLine{QStringLiteral("accepted"),
                            QStringLiteral("an accept's record in a bench stream")};
    }
    template <class TuneRecord>
    requires std::same_as<TuneRecord, protocol::TuneStart> ||
        std::same_as<TuneRecord, protocol::TuneCandidate> ||
        std::same_as<TuneRecord, protocol::Compiled> || std::same_as<TuneRecord, protocol::TuneEnd>
            std::optional<BenchEvent>
    operator()(const TuneRecord&) const {
        // `cachelens tune`'s records: the Tune panel reads those streams.
        return BenchBadLine{QStringLiteral("tune"),
                            QStringLiteral("a tune's record in a bench stream")};
    }
    std::optional<BenchEvent> operator()(const protocol::BadLine& bad) const {
        return BenchBadLine{qs(bad.line), qs(bad.why)};
    }
    std::optional<BenchEvent> operator()(const protocol::Incompatible& refused) const {
        return BenchIncompatible{qs(refused.why)};
    }
    std::optional<BenchEvent> operator()(const protocol::Record& record) const {
        return std::visit(*this, record);
    }
};

std::vector<BenchEvent> eventsOf(std::vector<protocol::StreamItem> items) {
    std::vector<BenchEvent> events;
    for (const auto& item : items) {
        if (auto event = std::visit(ToEvent{}, item)) {
            events.push_back(std::move(*event));
        }
    }
    return events;
}

std::string_view view(QByteArrayView bytes) {
    return {bytes.data(), static_cast<std::size_t>(bytes.size())};
}

} // namespace

std::vector<BenchEvent> BenchRunParser::feed(QByteArrayView bytes) {
    return eventsOf(reader_.feed(view(bytes)));
}

std::vector<BenchEvent> BenchRunParser::finish() {
    return eventsOf(reader_.finish());
}

std::optional<BenchEvent> BenchRunParser::parseLine(QByteArrayView line) {
    auto parsed = protocol::parse_line(view(line));
    if (auto* record = std::get_if<protocol::Record>(&parsed)) {
        return ToEvent{}(*record);
    }
    if (auto* bad = std::get_if<protocol::BadLine>(&parsed)) {
        return ToEvent{}(*bad);
    }
    return std::nullopt;
}

Result<BenchAcceptOutcome> parseAcceptOutput(QByteArrayView json, BenchErrorEvent* refusal) {
    auto document = protocol::parse_accept_document(view(json));
    if (const auto* accepted = std::get_if<protocol::Accepted>(&document)) {
        return BenchAcceptOutcome{qs(accepted->best_config),
                                  accepted->backup ? qs(*accepted->backup) : QString(),
                                  qs(accepted->old_config),
                                  qs(accepted->new_config),
                                  accepted->verdict ? qs(accepted->verdict->text) : QString(),
                                  accepted->explored_policy ? qs(*accepted->explored_policy)
                                                            : QString()};
    }
    if (const auto* failure = std::get_if<protocol::Failure>(&document)) {
        if (refusal != nullptr) {
            *refusal = errorEvent(*failure);
        }
        return fail(failure->kind, failure->message);
    }
    if (const auto* refused = std::get_if<protocol::Incompatible>(&document)) {
        return fail(ErrorKind::Unsupported, refused->why);
    }
    const auto& bad = std::get<protocol::BadLine>(document);
    if (bad.why.starts_with("not JSON") || bad.why.starts_with("not a JSON object")) {
        return fail(ErrorKind::Corrupt,
                    "cachelens bench accept printed no JSON object: " + bad.line);
    }
    return fail(ErrorKind::Corrupt,
                "cachelens bench accept printed no record of its outcome: " + bad.why);
}

} // namespace cachelens::ui
