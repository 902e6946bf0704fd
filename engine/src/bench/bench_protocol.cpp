#include "config_json.h"

#include <cachelens/bench/bench_protocol.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <utility>

namespace cachelens::bench::protocol {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// Enough of a bad line to recognise it; records can be long.
constexpr std::size_t kShownLineChars = 200;

constexpr std::array kErrorKinds{ErrorKind::Io,
                                 ErrorKind::NotFound,
                                 ErrorKind::Truncated,
                                 ErrorKind::Corrupt,
                                 ErrorKind::Unsupported,
                                 ErrorKind::LimitExceeded,
                                 ErrorKind::InvalidArgument,
                                 ErrorKind::Cancelled};

constexpr std::array kRefusals{AcceptRefusal::NotLaunchedAsWritten, AcceptRefusal::NoBestToCompare,
                               AcceptRefusal::CannotConfirm, AcceptRefusal::NotFaster};

std::string_view outcome_name(PairedVerdict::Outcome outcome) {
    switch (outcome) {
    case PairedVerdict::Outcome::Faster:
        return "faster";
    case PairedVerdict::Outcome::Slower:
        return "slower";
    case PairedVerdict::Outcome::NoDifference:
        break;
    }
    return "no_difference";
}

std::string_view arg_kind_name(LaunchArg::Kind kind) {
    switch (kind) {
    case LaunchArg::Kind::Buffer:
        return "buffer";
    case LaunchArg::Kind::Int:
        return "int";
    case LaunchArg::Kind::Float:
        return "float";
    case LaunchArg::Kind::GlobalScratch:
        return "global_scratch";
    case LaunchArg::Kind::ProfileScratch:
        return "profile_scratch";
    }
    return "buffer";
}

// ---- writing -------------------------------------------------------------

Json optional_json(const std::optional<std::int64_t>& value) {
    return value ? Json(*value) : Json(nullptr);
}

// A record's config always has num_warps and num_stages, null when unknown.
Json config_json(const cachedir::KernelConfig& config) {
    return {{"kwargs", detail::kwargs_json<Json>(config)},
            {"num_warps", optional_json(config.num_warps)},
            {"num_stages", optional_json(config.num_stages)}};
}

Json device_json(const DeviceFacts& device) {
    return {{"name", device.name},
            {"compute_capability", device.compute_capability},
            {"driver_version", device.driver_version},
            {"sm_clock_mhz", optional_json(device.sm_clock_mhz)},
            {"l2_bytes", device.l2_bytes}};
}

Json result_fields(const CandidateResult& result) {
    return {{"kernel", result.kernel_name},
            {"module", result.module_key},
            {"triton_hash", result.triton_hash},
            {"config", config_json(result.config)},
            {"config_text", result.config.describe()},
            {"was_best", result.was_best},
            {"origin", result.origin},
            {"registers", optional_json(result.registers)},
            {"local_bytes", optional_json(result.local_bytes)},
            {"status", result.status},
            {"message", result.message},
            {"samples_ms", result.samples_ms},
            {"median_ms", result.stats.median_ms},
            {"min_ms", result.stats.min_ms},
            {"p20_ms", result.stats.p20_ms},
            {"p80_ms", result.stats.p80_ms}};
}

Json arg_json(const LaunchArg& arg) {
    Json json = {{"name", arg.name},
                 {"type", arg.type},
                 {"kind", arg_kind_name(arg.kind)},
                 {"bytes", arg.bytes}};
    switch (arg.kind) {
    case LaunchArg::Kind::Buffer:
        json["shape"] = arg.shape;
        json["stride"] = arg.stride;
        json["dtype"] = arg.dtype;
        json["buffer_bytes"] = arg.buffer_bytes;
        json["random"] = arg.random_fill;
        break;
    case LaunchArg::Kind::Int:
        json["value"] = arg.integer;
        break;
    case LaunchArg::Kind::Float:
        json["value"] = arg.real;
        break;
    case LaunchArg::Kind::GlobalScratch:
    case LaunchArg::Kind::ProfileScratch:
        json["scratch_bytes_per_program"] = arg.scratch_bytes_per_program;
        break;
    }
    return json;
}

Json verdict_fields(const Verdict& verdict) {
    return {{"kernel", verdict.kernel},
            {"module", verdict.module},
            {"best", verdict.best_hash},
            {"candidate", verdict.candidate_hash},
            {"best_config_text", verdict.best_config_text},
            {"candidate_config_text", verdict.candidate_config_text},
            {"status", verdict.status},
            {"message", verdict.message},
            {"rounds", verdict.rounds},
            {"outcome", outcome_name(verdict.outcome)},
            {"difference_percent", verdict.difference_percent},
            {"agreement", verdict.agreement},
            {"p_value", verdict.p_value},
            {"best_median_ms", verdict.best_median_ms},
            {"candidate_median_ms", verdict.candidate_median_ms},
            {"text", verdict.text}};
}

// An object has no insert-at-front: the event's name comes first.
Json event(std::string_view name, Json fields) {
    Json json = {{"event", name}};
    json.update(std::move(fields));
    return json;
}

struct ToJson {
    Json operator()(const Header& header) const {
        return {{"event", "header"},
                {"format", header.format},
                {"version", header.version},
                {"program", header.program}};
    }
    Json operator()(const Start& start) const {
        return {{"event", "start"},
                {"cache_dir", start.cache_dir},
                {"device", device_json(start.device)},
                {"protocol", start.timing},
                {"kernels", start.kernels},
                {"candidates", start.candidates}};
    }
    Json operator()(const Unplannable& unplannable) const {
        return {{"event", "unplannable"},
                {"kernel", unplannable.kernel},
                {"module", unplannable.module},
                {"what", unplannable.what},
                {"why", unplannable.why}};
    }
    Json operator()(const Result& result) const {
        return event("result", [&] {
            Json json = {{"index", result.index}, {"total", result.total}};
            json.update(result_fields(result.result));
            return json;
        }());
    }
    Json operator()(const Verdict& verdict) const {
        return event("verdict", verdict_fields(verdict));
    }
    Json operator()(const Plan& plan) const {
        Json args = Json::array();
        for (const auto& arg : plan.args) {
            args.push_back(arg_json(arg));
        }
        return {{"event", "plan"},
                {"kernel", plan.kernel},
                {"module", plan.module},
                {"module_path", plan.module_path},
                {"triton_hash", plan.triton_hash},
                {"config", config_json(plan.config)},
                {"config_text", plan.config.describe()},
                {"is_current_best", plan.is_current_best},
                {"grid_type", plan.grid_type},
                {"grid", plan.grid},
                {"block_threads", plan.block_threads},
                {"shared_bytes", plan.shared_bytes},
                {"source", plan.source},
                {"args", std::move(args)}};
    }
    Json operator()(const End& end) const {
        return {{"event", "end"},
                {"run_id", end.run_id},
                {"results", end.results},
                {"failed", end.failed},
                {"verdicts", end.verdicts}};
    }
    Json operator()(const Failure& failure) const {
        return {{"event", "error"},
                {"kind", to_string(failure.kind)},
                {"refusal", failure.refusal ? Json(to_string(*failure.refusal)) : Json(nullptr)},
                {"message", failure.message}};
    }
    Json operator()(const TuneStart& start) const {
        return {{"event", "tune_start"},
                {"cache_dir", start.cache_dir},
                {"kernel", start.kernel},
                {"module", start.module},
                {"strategy", start.strategy},
                {"space", start.space},
                {"budget", start.budget},
                {"rules", start.rules},
                {"start_config", config_json(start.start_config)},
                {"start_config_text", start.start_config.describe()},
                {"planned", start.planned},
                {"device", device_json(start.device)},
                {"protocol", start.timing}};
    }
    Json operator()(const TuneCandidate& candidate) const {
        return {{"event", "candidate"},
                {"kernel", candidate.kernel},
                {"module", candidate.module},
                {"config", config_json(candidate.config)},
                {"config_text", candidate.config.describe()},
                {"origin", candidate.origin},
                {"is_current_best", candidate.is_current_best},
                {"phase", candidate.phase}};
    }
    Json operator()(const Compiled& compiled) const {
        return {{"event", "compiled"},
                {"kernel", compiled.kernel},
                {"config", config_json(compiled.config)},
                {"config_text", compiled.config.describe()},
                {"status", compiled.status},
                {"message", compiled.message},
                {"triton_hash", compiled.triton_hash},
                {"seconds", compiled.seconds}};
    }
    Json operator()(const TuneEnd& end) const {
        return {{"event", "tune_end"},
                {"run_id", end.run_id},
                {"answer", end.answer},
                {"kernel", end.kernel},
                {"module", end.module},
                {"best_config", config_json(end.best_config)},
                {"best_config_text", end.best_config.describe()},
                {"faster", end.faster},
                {"difference_percent", end.difference_percent},
                {"tried", end.tried},
                {"compiled", end.compiled},
                {"compile_failed", end.compile_failed},
                {"failed", end.failed},
                {"seconds", end.seconds},
                {"ended", end.ended}};
    }
    Json operator()(const Accepted& accepted) const {
        return {{"event", "accepted"},
                {"target", accepted.target},
                {"best_config", accepted.best_config},
                {"backup", accepted.backup ? Json(*accepted.backup) : Json(nullptr)},
                {"old_config", accepted.old_config},
                {"new_config", accepted.new_config},
                {"verdict", accepted.verdict ? verdict_fields(*accepted.verdict) : Json(nullptr)},
                {"explored_policy",
                 accepted.explored_policy ? Json(*accepted.explored_policy) : Json(nullptr)}};
    }
};

std::string dump(const Json& json, int indent) {
    return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// ---- reading -------------------------------------------------------------

// A field a record needs is missing or of another type.
struct Missing {
    std::string why;
};

class Fields {
public:
    explicit Fields(const Json& json)
        : json_(json) {}

    std::string string(const char* key) {
        const auto* value = find(key);
        if (value != nullptr && value->is_string()) {
            return value->get<std::string>();
        }
        fail(key, "a string");
        return {};
    }
    template <class Int>
    Int integer(const char* key) {
        const auto* value = find(key);
        if (value != nullptr && value->is_number_integer()) {
            return value->get<Int>();
        }
        fail(key, "an integer");
        return {};
    }
    std::optional<std::int64_t> optional_integer(const char* key) {
        const auto* value = find(key);
        if (value != nullptr && value->is_null()) {
            return std::nullopt;
        }
        return integer<std::int64_t>(key);
    }
    double number(const char* key) {
        const auto* value = find(key);
        if (value != nullptr && value->is_number()) {
            return value->get<double>();
        }
        fail(key, "a number");
        return 0;
    }
    bool boolean(const char* key) {
        const auto* value = find(key);
        if (value != nullptr && value->is_boolean()) {
            return value->get<bool>();
        }
        fail(key, "true or false");
        return false;
    }
    const Json& object(const char* key) { return typed(key, &Json::is_object, "an object"); }
    const Json& array(const char* key) { return typed(key, &Json::is_array, "an array"); }
    bool has(const char* key) const { return json_.contains(key) && !json_[key].is_null(); }

    const std::optional<std::string>& error() const { return error_; }
    // Records what is wrong beyond a field's type (the first problem is kept).
    void note(std::string why) {
        if (!error_) {
            error_ = std::move(why);
        }
    }

private:
    const Json* find(const char* key) const {
        const auto it = json_.find(key);
        return it == json_.end() ? nullptr : &*it;
    }
    const Json& typed(const char* key, bool (Json::*is)() const noexcept, const char* what) {
        static const Json kEmpty;
        const auto* value = find(key);
        if (value != nullptr && (value->*is)()) {
            return *value;
        }
        fail(key, what);
        return kEmpty;
    }
    void fail(const char* key, const char* what) {
        note(std::string("\"") + key + "\" is not " + what);
    }

    const Json& json_;
    std::optional<std::string> error_;
};

std::optional<ErrorKind> error_kind_of(std::string_view name) {
    const auto it =
        std::ranges::find_if(kErrorKinds, [&](ErrorKind kind) { return to_string(kind) == name; });
    return it == kErrorKinds.end() ? std::nullopt : std::optional(*it);
}

std::optional<AcceptRefusal> refusal_of(std::string_view name) {
    const auto it = std::ranges::find_if(
        kRefusals, [&](AcceptRefusal refusal) { return to_string(refusal) == name; });
    return it == kRefusals.end() ? std::nullopt : std::optional(*it);
}

std::optional<PairedVerdict::Outcome> outcome_of(std::string_view name) {
    for (const auto outcome : {PairedVerdict::Outcome::Faster, PairedVerdict::Outcome::Slower,
                               PairedVerdict::Outcome::NoDifference}) {
        if (outcome_name(outcome) == name) {
            return outcome;
        }
    }
    return std::nullopt;
}

std::optional<LaunchArg::Kind> arg_kind_of(std::string_view name) {
    for (const auto kind : {LaunchArg::Kind::Buffer, LaunchArg::Kind::Int, LaunchArg::Kind::Float,
                            LaunchArg::Kind::GlobalScratch, LaunchArg::Kind::ProfileScratch}) {
        if (arg_kind_name(kind) == name) {
            return kind;
        }
    }
    return std::nullopt;
}

cachedir::KernelConfig config_of(const Json& json, Fields& fields) {
    cachedir::KernelConfig config;
    Fields own(json);
    for (const auto& [name, value] : own.object("kwargs").items()) {
        if (value.is_boolean()) {
            config.kwargs.emplace_back(name, value.get<bool>());
        } else if (value.is_number_integer()) {
            config.kwargs.emplace_back(name, value.get<std::int64_t>());
        } else if (value.is_number()) {
            config.kwargs.emplace_back(name, value.get<double>());
        } else if (value.is_string()) {
            config.kwargs.emplace_back(name, value.get<std::string>());
        }
    }
    config.num_warps = own.optional_integer("num_warps");
    config.num_stages = own.optional_integer("num_stages");
    if (own.error()) {
        fields.note("config: " + *own.error());
    }
    return config;
}

DeviceFacts device_of(const Json& json, Fields& fields) {
    Fields own(json);
    DeviceFacts device{own.string("name"), own.string("compute_capability"),
                       own.string("driver_version"), own.optional_integer("sm_clock_mhz"),
                       own.integer<std::int64_t>("l2_bytes")};
    if (own.error()) {
        fields.note("device: " + *own.error());
    }
    return device;
}

CandidateResult result_of(Fields& fields) {
    CandidateResult result;
    result.kernel_name = fields.string("kernel");
    result.module_key = fields.string("module");
    result.triton_hash = fields.string("triton_hash");
    result.config = config_of(fields.object("config"), fields);
    result.was_best = fields.boolean("was_best");
    result.origin = fields.has("origin") ? fields.string("origin") : std::string();
    result.registers =
        fields.has("registers") ? fields.optional_integer("registers") : std::nullopt;
    result.local_bytes =
        fields.has("local_bytes") ? fields.optional_integer("local_bytes") : std::nullopt;
    result.status = fields.string("status");
    result.message = fields.string("message");
    for (const auto& sample : fields.array("samples_ms")) {
        result.samples_ms.push_back(sample.is_number() ? sample.get<double>() : 0.0);
    }
    result.stats.median_ms = fields.number("median_ms");
    result.stats.min_ms = fields.number("min_ms");
    result.stats.p20_ms = fields.number("p20_ms");
    result.stats.p80_ms = fields.number("p80_ms");
    if (!fields.error() && (result.kernel_name.empty() || result.status.empty())) {
        fields.note("kernel or status is empty");
    }
    return result;
}

Verdict verdict_of_json(Fields& fields) {
    Verdict verdict;
    verdict.kernel = fields.string("kernel");
    verdict.module = fields.string("module");
    verdict.best_hash = fields.string("best");
    verdict.candidate_hash = fields.string("candidate");
    verdict.best_config_text = fields.string("best_config_text");
    verdict.candidate_config_text = fields.string("candidate_config_text");
    verdict.status = fields.string("status");
    verdict.message = fields.string("message");
    verdict.rounds = fields.integer<int>("rounds");
    const auto outcome = outcome_of(fields.string("outcome"));
    verdict.outcome = outcome.value_or(PairedVerdict::Outcome::NoDifference);
    if (!outcome) {
        fields.note("\"outcome\" is not faster, slower or no_difference");
    }
    verdict.difference_percent = fields.number("difference_percent");
    verdict.agreement = fields.number("agreement");
    verdict.p_value = fields.number("p_value");
    verdict.best_median_ms = fields.number("best_median_ms");
    verdict.candidate_median_ms = fields.number("candidate_median_ms");
    verdict.text = fields.string("text");
    if (!fields.error() && (verdict.kernel.empty() || verdict.text.empty())) {
        fields.note("kernel or text is empty");
    }
    return verdict;
}

LaunchArg arg_of(const Json& json, Fields& fields) {
    Fields own(json);
    LaunchArg arg;
    arg.name = own.string("name");
    arg.type = own.string("type");
    const auto kind = arg_kind_of(own.string("kind"));
    arg.kind = kind.value_or(LaunchArg::Kind::Buffer);
    arg.bytes = own.integer<std::uint32_t>("bytes");
    switch (arg.kind) {
    case LaunchArg::Kind::Buffer:
        for (const auto& dim : own.array("shape")) {
            arg.shape.push_back(dim.is_number_integer() ? dim.get<std::int64_t>() : 0);
        }
        for (const auto& step : own.array("stride")) {
            arg.stride.push_back(step.is_number_integer() ? step.get<std::int64_t>() : 0);
        }
        arg.dtype = own.string("dtype");
        arg.buffer_bytes = own.integer<std::uint64_t>("buffer_bytes");
        arg.random_fill = own.boolean("random");
        break;
    case LaunchArg::Kind::Int:
        arg.integer = own.integer<std::int64_t>("value");
        break;
    case LaunchArg::Kind::Float:
        arg.real = own.number("value");
        break;
    case LaunchArg::Kind::GlobalScratch:
    case LaunchArg::Kind::ProfileScratch:
        arg.scratch_bytes_per_program = own.integer<std::uint64_t>("scratch_bytes_per_program");
        break;
    }
    if (!kind) {
        own.note("\"kind\" is not buffer, int, float, global_scratch or profile_scratch");
    }
    if (own.error()) {
        fields.note("args: " + *own.error());
    }
    return arg;
}

Plan plan_of_json(Fields& fields) {
    Plan plan;
    plan.kernel = fields.string("kernel");
    plan.module = fields.string("module");
    plan.module_path = fields.string("module_path");
    plan.triton_hash = fields.string("triton_hash");
    plan.config = config_of(fields.object("config"), fields);
    plan.is_current_best = fields.boolean("is_current_best");
    plan.grid_type = fields.string("grid_type");
    const Json& grid = fields.array("grid");
    for (std::size_t i = 0; i < plan.grid.size() && i < grid.size(); ++i) {
        plan.grid[i] = grid[i].is_number_unsigned() ? grid[i].get<std::uint32_t>() : 0;
    }
    plan.block_threads = fields.integer<std::uint32_t>("block_threads");
    plan.shared_bytes = fields.integer<std::uint32_t>("shared_bytes");
    plan.source = fields.string("source");
    for (const auto& arg : fields.array("args")) {
        plan.args.push_back(arg_of(arg, fields));
    }
    return plan;
}

Failure failure_of(Fields& fields) {
    Failure failure;
    const auto kind = error_kind_of(fields.string("kind"));
    failure.kind = kind.value_or(ErrorKind::InvalidArgument);
    if (!kind) {
        fields.note("\"kind\" is not an error kind");
    }
    if (fields.has("refusal")) {
        failure.refusal = refusal_of(fields.string("refusal"));
        if (!failure.refusal) {
            fields.note("\"refusal\" is not an accept refusal");
        }
    }
    failure.message = fields.string("message");
    return failure;
}

Accepted accepted_of(Fields& fields) {
    Accepted accepted;
    accepted.target = fields.string("target");
    accepted.best_config = fields.string("best_config");
    if (fields.has("backup")) {
        accepted.backup = fields.string("backup");
    }
    accepted.old_config = fields.string("old_config");
    accepted.new_config = fields.string("new_config");
    if (fields.has("verdict")) {
        Fields verdict(fields.object("verdict"));
        accepted.verdict = verdict_of_json(verdict);
        if (verdict.error()) {
            fields.note("verdict: " + *verdict.error());
        }
    }
    if (fields.has("explored_policy")) {
        accepted.explored_policy = fields.string("explored_policy");
    }
    return accepted;
}

std::string shortened(std::string_view line) {
    if (line.size() <= kShownLineChars) {
        return std::string(line);
    }
    // Not inside a UTF-8 sequence.
    std::size_t end = kShownLineChars;
    while (end > 0 && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) {
        --end;
    }
    return std::string(line.substr(0, end)) + "…";
}

std::string_view trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

std::variant<Record, std::string> record_of(const Json& json) {
    Fields fields(json);
    const std::string name = json.contains("event") && json["event"].is_string()
                                 ? json["event"].get<std::string>()
                                 : std::string();
    if (name.empty()) {
        return std::string("no \"event\"");
    }
    Record record;
    if (name == "header") {
        record = Header{fields.string("format"), fields.integer<int>("version"),
                        fields.has("program") ? fields.string("program") : std::string()};
    } else if (name == "start") {
        record = Start{fields.string("cache_dir"), device_of(fields.object("device"), fields),
                       fields.string("protocol"), fields.integer<std::size_t>("kernels"),
                       fields.integer<std::size_t>("candidates")};
    } else if (name == "unplannable") {
        record = Unplannable{fields.string("kernel"), fields.string("module"),
                             fields.string("what"), fields.string("why")};
    } else if (name == "result") {
        Result result{
            fields.integer<std::size_t>("index"), fields.integer<std::size_t>("total"), {}};
        result.result = result_of(fields);
        record = std::move(result);
    } else if (name == "verdict") {
        record = verdict_of_json(fields);
    } else if (name == "plan") {
        record = plan_of_json(fields);
    } else if (name == "end") {
        record = End{fields.integer<std::int64_t>("run_id"), fields.integer<std::size_t>("results"),
                     fields.integer<std::size_t>("failed"),
                     fields.has("verdicts") ? fields.integer<std::size_t>("verdicts") : 0};
    } else if (name == "error") {
        record = failure_of(fields);
    } else if (name == "accepted") {
        record = accepted_of(fields);
    } else if (name == "tune_start") {
        record = TuneStart{fields.string("cache_dir"),
                           fields.string("kernel"),
                           fields.string("module"),
                           fields.string("strategy"),
                           fields.string("space"),
                           fields.string("budget"),
                           fields.string("rules"),
                           config_of(fields.object("start_config"), fields),
                           fields.integer<std::size_t>("planned"),
                           device_of(fields.object("device"), fields),
                           fields.string("protocol")};
    } else if (name == "candidate") {
        record = TuneCandidate{fields.string("kernel"),
                               fields.string("module"),
                               config_of(fields.object("config"), fields),
                               fields.string("origin"),
                               fields.boolean("is_current_best"),
                               fields.string("phase")};
    } else if (name == "compiled") {
        record = Compiled{fields.string("kernel"),      config_of(fields.object("config"), fields),
                          fields.string("status"),      fields.string("message"),
                          fields.string("triton_hash"), fields.number("seconds")};
    } else if (name == "tune_end") {
        record = TuneEnd{fields.integer<std::int64_t>("run_id"),
                         fields.string("answer"),
                         fields.string("kernel"),
                         fields.string("module"),
                         config_of(fields.object("best_config"), fields),
                         fields.boolean("faster"),
                         fields.number("difference_percent"),
                         fields.integer<std::size_t>("tried"),
                         fields.integer<std::size_t>("compiled"),
                         fields.integer<std::size_t>("compile_failed"),
                         fields.integer<std::size_t>("failed"),
                         fields.number("seconds"),
                         fields.string("ended")};
    } else {
        return "an event this reader does not know: " + name;
    }
    if (fields.error()) {
        return "a " + name + " record whose " + *fields.error();
    }
    return record;
}

std::variant<Json, std::string> json_of(std::string_view text) {
    Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
        return std::string("not JSON");
    }
    if (!json.is_object()) {
        return std::string("not a JSON object");
    }
    return json;
}

} // namespace

Accepted accepted_of(const AcceptReport& report) {
    Accepted accepted{report.target.string(), report.best_config.string(), std::nullopt,
                      report.old_config,      report.new_config,           std::nullopt,
                      report.explored_policy};
    if (report.backup) {
        accepted.backup = report.backup->string();
    }
    if (report.verdict) {
        accepted.verdict = verdict_of(*report.verdict);
    }
    return accepted;
}

Failure Failure::of(const Error& error, std::optional<AcceptRefusal> refusal) {
    return {error.kind, error.describe(), refusal};
}

Verdict verdict_of(const PairedResult& paired) {
    const bool ok = paired.ok();
    const CandidateResult& failed = paired.a.status != "ok" ? paired.a : paired.b;
    Verdict verdict;
    verdict.kernel = paired.b.kernel_name;
    verdict.module = paired.b.module_key;
    verdict.best_hash = paired.a.triton_hash;
    verdict.candidate_hash = paired.b.triton_hash;
    verdict.best_config_text = paired.a.config.describe();
    verdict.candidate_config_text = paired.b.config.describe();
    verdict.status = ok ? std::string("ok") : failed.status;
    verdict.message = ok ? std::string() : failed.message;
    verdict.rounds = paired.verdict.rounds;
    verdict.outcome = paired.verdict.outcome;
    verdict.difference_percent = paired.verdict.difference_percent;
    verdict.agreement = paired.verdict.agreement;
    verdict.p_value = paired.verdict.p_value;
    verdict.best_median_ms = paired.a.stats.median_ms;
    verdict.candidate_median_ms = paired.b.stats.median_ms;
    verdict.text = describe_pair(paired);
    return verdict;
}

Plan plan_of(const KernelCandidates& kernel, const LaunchPlan& plan, const fs::path& cache_dir) {
    return Plan{plan.kernel_name,
                plan.module_key,
                kernel.module.lexically_relative(cache_dir).string(),
                plan.source.triton_hash,
                plan.config,
                plan.is_current_best,
                plan.grid_type,
                plan.grid,
                plan.block_threads,
                plan.shared_bytes,
                !plan.source.dir.empty() ? plan.source.dir.lexically_relative(cache_dir).string()
                                         : plan.source.fx_entry,
                plan.args};
}

std::string to_line(const Record& record) {
    return dump(std::visit(ToJson{}, record), -1);
}

std::string to_document(const Record& record) {
    Json json = std::visit(ToJson{}, record);
    const Header header;
    json["format"] = header.format;
    json["version"] = header.version;
    return dump(json, 2);
}

std::string history_json(const std::vector<HistoryRowView>& rows) {
    Json array = Json::array();
    for (const auto& row : rows) {
        Json json = {{"run_id", row.run_id},
                     {"started", row.started},
                     {"device", device_json(row.device)},
                     {"protocol", row.timing},
                     {"kind", row.kind.empty() ? Json(nullptr) : Json(row.kind)},
                     {"strategy", row.strategy.empty() ? Json(nullptr) : Json(row.strategy)}};
        if (row.result != nullptr) {
            json.update(result_fields(*row.result));
        }
        array.push_back(std::move(json));
    }
    return dump(array, 2);
}

std::variant<std::monostate, Record, BadLine> parse_line(std::string_view line) {
    const std::string_view text = trimmed(line);
    if (text.empty()) {
        return std::monostate{};
    }
    auto json = json_of(text);
    if (const auto* why = std::get_if<std::string>(&json)) {
        return BadLine{shortened(text), *why};
    }
    auto record = record_of(std::get<Json>(json));
    if (auto* why = std::get_if<std::string>(&record)) {
        return BadLine{shortened(text), std::move(*why)};
    }
    return std::get<Record>(std::move(record));
}

std::optional<std::string> why_incompatible(const Header& header) {
    const std::string writer = header.program.empty() ? "its writer" : header.program;
    if (header.format != kFormat) {
        return writer + " printed a " + header.format + " stream, not " + std::string(kFormat);
    }
    if (header.version != kVersion) {
        return writer + " speaks " + std::string(kFormat) + " version " +
               std::to_string(header.version) + "; this reader speaks version " +
               std::to_string(kVersion);
    }
    return std::nullopt;
}

void StreamReader::take(std::string_view line, std::vector<StreamItem>& items) {
    if (state_ == State::Refused) {
        return;
    }
    auto parsed = parse_line(line);
    if (std::holds_alternative<std::monostate>(parsed)) {
        return;
    }
    if (state_ == State::AwaitingHeader) {
        const auto* record = std::get_if<Record>(&parsed);
        const auto* header = record != nullptr ? std::get_if<Header>(record) : nullptr;
        if (header == nullptr) {
            state_ = State::Refused;
            items.emplace_back(Incompatible{
                "its output does not start with a " + std::string(kFormat) + " version " +
                std::to_string(kVersion) +
                " header (an older or other program?); first line: " + shortened(trimmed(line))});
            return;
        }
        if (auto why = why_incompatible(*header)) {
            state_ = State::Refused;
            items.emplace_back(Incompatible{std::move(*why)});
            return;
        }
        state_ = State::Reading;
    }
    if (auto* record = std::get_if<Record>(&parsed)) {
        items.emplace_back(std::move(*record));
    } else {
        items.emplace_back(std::get<BadLine>(std::move(parsed)));
    }
}

std::vector<StreamItem> StreamReader::feed(std::string_view bytes) {
    std::vector<StreamItem> items;
    pending_.append(bytes);
    std::size_t start = 0;
    for (auto newline = pending_.find('\n', start); newline != std::string::npos;
         newline = pending_.find('\n', start)) {
        take(std::string_view(pending_).substr(start, newline - start), items);
        start = newline + 1;
    }
    pending_.erase(0, start);
    return items;
}

std::vector<StreamItem> StreamReader::finish() {
    std::vector<StreamItem> items;
    take(pending_, items);
    pending_.clear();
    return items;
}

void StreamReader::reset() {
    pending_.clear();
    state_ = State::AwaitingHeader;
}

std::variant<Accepted, Failure, Incompatible, BadLine>
parse_accept_document(std::string_view json_text) {
    const std::string_view text = trimmed(json_text);
    auto json = json_of(text);
    if (const auto* why = std::get_if<std::string>(&json)) {
        return BadLine{shortened(text), *why};
    }
    const Json& object = std::get<Json>(json);
    Fields fields(object);
    Header header{fields.string("format"), fields.integer<int>("version"), {}};
    if (fields.error()) {
        return Incompatible{"its output has no " + std::string(kFormat) +
                            " version (an older or other program?): " + shortened(text)};
    }
    if (auto why = why_incompatible(header)) {
        return Incompatible{std::move(*why)};
    }
    auto record = record_of(object);
    if (auto* why = std::get_if<std::string>(&record)) {
        return BadLine{shortened(text), std::move(*why)};
    }
    if (auto* accepted = std::get_if<Accepted>(&std::get<Record>(record))) {
        return std::move(*accepted);
    }
    if (auto* failure = std::get_if<Failure>(&std::get<Record>(record))) {
        return std::move(*failure);
    }
    return BadLine{shortened(text), "neither an accepted nor an error record"};
}

} // namespace cachelens::bench::protocol
