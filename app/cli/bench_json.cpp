#include "bench_json.h"

#include <string>
#include <variant>

namespace cachelens::cli {

Json config_json(const cachedir::KernelConfig& config) {
    Json kwargs = Json::object();
    for (const auto& [name, value] : config.kwargs) {
        kwargs[name] = std::visit([](const auto& v) { return Json(v); }, value);
    }
    Json json = {{"kwargs", std::move(kwargs)}};
    json["num_warps"] = config.num_warps ? Json(*config.num_warps) : Json(nullptr);
    json["num_stages"] = config.num_stages ? Json(*config.num_stages) : Json(nullptr);
    return json;
}

Json device_json(const bench::DeviceFacts& device) {
    Json json = {{"name", device.name},
                 {"compute_capability", device.compute_capability},
                 {"driver_version", device.driver_version}};
    json["sm_clock_mhz"] = device.sm_clock_mhz ? Json(*device.sm_clock_mhz) : Json(nullptr);
    json["l2_bytes"] = device.l2_bytes;
    return json;
}

Json result_json(const bench::CandidateResult& result) {
    return {{"kernel", result.kernel_name},
            {"module", result.module_key},
            {"triton_hash", result.triton_hash},
            {"config", config_json(result.config)},
            {"config_text", result.config.describe()},
            {"was_best", result.was_best},
            {"status", result.status},
            {"message", text(result.message)},
            {"samples_ms", result.samples_ms},
            {"median_ms", result.stats.median_ms},
            {"min_ms", result.stats.min_ms},
            {"p20_ms", result.stats.p20_ms},
            {"p80_ms", result.stats.p80_ms}};
}

Json result_line_json(const bench::CandidateResult& result, std::size_t index, std::size_t total) {
    // An object has no insert-at-front: the record's own keys come first.
    Json line = {{"event", "result"}, {"index", index}, {"total", total}};
    line.update(result_json(result));
    return line;
}

std::string verdict_text(const bench::PairedResult& paired) {
    if (!paired.ok()) {
        const bench::CandidateResult& failed = paired.a.status != "ok" ? paired.a : paired.b;
        return std::string(&failed == &paired.a ? "the current best" : "the candidate") +
               " could not be re-timed: " + failed.status + ": " + failed.message;
    }
    return paired.verdict.describe();
}

Json verdict_line_json(const bench::PairedResult& paired) {
    const auto outcome = [&] {
        switch (paired.verdict.outcome) {
        case bench::PairedVerdict::Outcome::Faster:
            return "faster";
        case bench::PairedVerdict::Outcome::Slower:
            return "slower";
        case bench::PairedVerdict::Outcome::NoDifference:
            break;
        }
        return "no_difference";
    }();
    const bool ok = paired.ok();
    const bench::CandidateResult& failed = paired.a.status != "ok" ? paired.a : paired.b;
    return {{"event", "verdict"},
            {"kernel", paired.b.kernel_name},
            {"module", paired.b.module_key},
            {"best", paired.a.triton_hash},
            {"candidate", paired.b.triton_hash},
            {"best_config_text", paired.a.config.describe()},
            {"candidate_config_text", paired.b.config.describe()},
            {"status", ok ? std::string("ok") : failed.status},
            {"message", ok ? Json("") : text(failed.message)},
            {"rounds", paired.verdict.rounds},
            {"outcome", outcome},
            {"difference_percent", paired.verdict.difference_percent},
            {"agreement", paired.verdict.agreement},
            {"p_value", paired.verdict.p_value},
            {"best_median_ms", paired.a.stats.median_ms},
            {"candidate_median_ms", paired.b.stats.median_ms},
            {"text", text(verdict_text(paired))}};
}

} // namespace cachelens::cli
