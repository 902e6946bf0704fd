#include "data/bench_run_parser.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

namespace cachelens::ui {

namespace {

// Enough of a bad line to recognise it; the CLI's lines can be long.
constexpr qsizetype kShownLineChars = 200;

QString shortened(QByteArrayView line) {
    QString text = QString::fromUtf8(line);
    if (text.size() > kShownLineChars) {
        text = text.left(kShownLineChars) + QStringLiteral("…");
    }
    return text;
}

BenchDevice deviceOf(const QJsonObject& object) {
    BenchDevice device;
    device.name = object.value(QLatin1String("name")).toString();
    device.computeCapability = object.value(QLatin1String("compute_capability")).toString();
    device.driverVersion = object.value(QLatin1String("driver_version")).toString();
    const auto clock = object.value(QLatin1String("sm_clock_mhz"));
    if (clock.isDouble()) {
        device.smClockMhz = clock.toInteger();
    }
    device.l2Bytes = object.value(QLatin1String("l2_bytes")).toInteger();
    return device;
}

QString string(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toString();
}

double number(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toDouble();
}

int integer(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toInt();
}

BenchEvent resultOf(const QJsonObject& object) {
    BenchResultEvent result;
    result.index = integer(object, "index");
    result.total = integer(object, "total");
    result.kernel = string(object, "kernel");
    result.module = string(object, "module");
    result.tritonHash = string(object, "triton_hash");
    result.configText = string(object, "config_text");
    result.wasBest = object.value(QLatin1String("was_best")).toBool();
    result.status = string(object, "status");
    result.message = string(object, "message");
    for (const auto& sample : object.value(QLatin1String("samples_ms")).toArray()) {
        result.samplesMs.push_back(sample.toDouble());
    }
    result.medianMs = number(object, "median_ms");
    result.minMs = number(object, "min_ms");
    result.p20Ms = number(object, "p20_ms");
    result.p80Ms = number(object, "p80_ms");
    return result;
}

BenchEvent planOf(const QJsonObject& object) {
    BenchPlanEvent plan;
    plan.kernel = string(object, "kernel");
    plan.module = string(object, "module");
    plan.tritonHash = string(object, "triton_hash");
    plan.configText = string(object, "config_text");
    plan.isCurrentBest = object.value(QLatin1String("is_current_best")).toBool();
    plan.gridType = string(object, "grid_type");
    for (const auto& dim : object.value(QLatin1String("grid")).toArray()) {
        plan.grid.push_back(dim.toInteger());
    }
    plan.blockThreads = integer(object, "block_threads");
    plan.sharedBytes = object.value(QLatin1String("shared_bytes")).toInteger();
    plan.source = string(object, "source");
    plan.args = object.value(QLatin1String("args")).toArray();
    return plan;
}

BenchVerdictEvent verdictOf(const QJsonObject& object) {
    BenchVerdictEvent verdict;
    verdict.kernel = string(object, "kernel");
    verdict.module = string(object, "module");
    verdict.bestHash = string(object, "best");
    verdict.candidateHash = string(object, "candidate");
    verdict.bestConfigText = string(object, "best_config_text");
    verdict.candidateConfigText = string(object, "candidate_config_text");
    verdict.status = string(object, "status");
    verdict.message = string(object, "message");
    verdict.rounds = integer(object, "rounds");
    verdict.outcome = string(object, "outcome");
    verdict.differencePercent = number(object, "difference_percent");
    verdict.agreement = number(object, "agreement");
    verdict.text = string(object, "text");
    return verdict;
}

} // namespace

std::vector<BenchEvent> BenchRunParser::feed(QByteArrayView bytes) {
    std::vector<BenchEvent> events;
    pending_.append(bytes);
    qsizetype start = 0;
    for (qsizetype newline = pending_.indexOf('\n', start); newline != -1;
         newline = pending_.indexOf('\n', start)) {
        if (auto event = parseLine(QByteArrayView(pending_).sliced(start, newline - start))) {
            events.push_back(std::move(*event));
        }
        start = newline + 1;
    }
    pending_.remove(0, start);
    return events;
}

std::vector<BenchEvent> BenchRunParser::finish() {
    std::vector<BenchEvent> events;
    if (auto event = parseLine(pending_)) {
        events.push_back(std::move(*event));
    }
    pending_.clear();
    return events;
}

std::optional<BenchEvent> BenchRunParser::parseLine(QByteArrayView line) {
    const QByteArrayView text = line.trimmed();
    if (text.isEmpty()) {
        return std::nullopt;
    }
    QJsonParseError error;
    const auto document = QJsonDocument::fromJson(text.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError) {
        return BenchBadLine{shortened(text), QStringLiteral("not JSON: %1 at character %2")
                                                 .arg(error.errorString())
                                                 .arg(error.offset)};
    }
    if (!document.isObject()) {
        return BenchBadLine{shortened(text), QStringLiteral("not a JSON object")};
    }
    const QJsonObject object = document.object();
    const QString event = string(object, "event");
    if (event.isEmpty()) {
        return BenchBadLine{shortened(text), QStringLiteral("no \"event\"")};
    }
    if (event == QLatin1String("result")) {
        // A result that names no kernel or status cannot be shown or accepted.
        if (string(object, "kernel").isEmpty() || string(object, "status").isEmpty()) {
            return BenchBadLine{shortened(text),
                                QStringLiteral("a result without kernel or status")};
        }
        return resultOf(object);
    }
    if (event == QLatin1String("start")) {
        return BenchStartEvent{
            string(object, "cache_dir"), deviceOf(object.value(QLatin1String("device")).toObject()),
            string(object, "protocol"), integer(object, "kernels"), integer(object, "candidates")};
    }
    if (event == QLatin1String("unplannable")) {
        return BenchUnplannableEvent{string(object, "kernel"), string(object, "module"),
                                     string(object, "what"), string(object, "why")};
    }
    if (event == QLatin1String("verdict")) {
        if (string(object, "kernel").isEmpty() || string(object, "text").isEmpty()) {
            return BenchBadLine{shortened(text),
                                QStringLiteral("a verdict without kernel or text")};
        }
        return verdictOf(object);
    }
    if (event == QLatin1String("end")) {
        return BenchEndEvent{object.value(QLatin1String("run_id")).toInteger(),
                             integer(object, "results"), integer(object, "failed")};
    }
    if (event == QLatin1String("error")) {
        return BenchErrorEvent{string(object, "message")};
    }
    if (event == QLatin1String("plan")) {
        return planOf(object);
    }
    return std::nullopt;
}

Result<BenchAcceptOutcome> parseAcceptOutput(QByteArrayView json) {
    QJsonParseError error;
    const auto document = QJsonDocument::fromJson(json.trimmed().toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        return fail(ErrorKind::Corrupt, "cachelens bench accept printed no JSON object: " +
                                            shortened(json.trimmed()).toStdString());
    }
    const QJsonObject object = document.object();
    BenchAcceptOutcome outcome{string(object, "best_config"), string(object, "backup"),
                               string(object, "old_config"), string(object, "new_config"),
                               string(object.value(QLatin1String("verdict")).toObject(), "text")};
    if (outcome.bestConfig.isEmpty()) {
        return fail(ErrorKind::Corrupt, "cachelens bench accept named no best_config file");
    }
    return outcome;
}

} // namespace cachelens::ui
