#include "json_fields.h"

#include <cachelens/core/mapped_file.h>
#include <cachelens/trace/cache_artifact.h>
#include <cachelens/trace/compile_id.h>
#include <cachelens/trace/glog_line.h>
#include <cachelens/trace/trace_log.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <system_error>
#include <unordered_map>

namespace cachelens::trace {

namespace {

// Logs of long training jobs run to many GB; a mapping costs address space,
// not memory.
constexpr std::size_t kMaxLogSize = std::size_t{1} << 40;
// compilation_metrics has about ten cache counters; a hostile record with a
// million of them must not make summing them quadratic.
constexpr std::size_t kMaxCacheCounters = 64;
// A payload of several lines has to be joined (a cache payload is one line);
// past this it is skipped rather than copied.
constexpr std::size_t kMaxJoinedPayload = std::size_t{256} << 20;

// The keys trace_structured adds beside the event's own (its name).
constexpr std::array<std::string_view, 7> kContextKeys{
    "rank",    "compiled_autograd_id", "frame_id", "frame_compile_id",
    "attempt", "has_payload",          "stack",
};

// compilation_metrics and its relatives: one record per compile phase.
constexpr std::array<std::string_view, 5> kMetricsEvents{
    "compilation_metrics", "compilation_metrics_runtime", "bwd_compilation_metrics",
    "bwd_compilation_metrics_runtime", "aot_autograd_backward_compilation_metrics"};

// The PGO artifacts of torch/_dynamo/pgo.py: a profile loaded, or written.
constexpr std::array<std::string_view, 5> kProfileArtifacts{
    "get_local_code_state", "get_remote_code_state", "get_extra_remote_code_state",
    "put_local_code_state", "put_remote_code_state"};

// Phases begun and not yet ended, per compile and name; a log cut off
// mid-compile leaves some open, and hostile input must not grow this forever.
constexpr std::size_t kMaxOpenPhases = 4096;
// A triton_kernel_info lists the kernels of one compile: tens, not millions.
constexpr std::size_t kMaxKernelsPerArtifact = 100000;

enum class EventKind {
    Ignored,
    InternedString,
    DynamoStart,
    Artifact,
    GraphDump,
    Metrics,
    Chromium
};

// vLLM's events, each with a JSON object or a graph as its payload.
constexpr std::string_view kVllmConfig = "vllm_compilation_config";
constexpr std::string_view kVllmSplitGraph = "vllm_piecewise_split_graph";
constexpr std::string_view kVllmPiecewiseStart = "vllm_piecewise_compile_start";
// A config has about 15 fields; a hostile one is not kept whole.
constexpr std::size_t kMaxVllmFields = 256;

bool is_context_key(std::string_view key) {
    return std::ranges::find(kContextKeys, key) != kContextKeys.end();
}

EventKind kind_of(std::string_view name) {
    if (name == "str") {
        return EventKind::InternedString;
    }
    if (name == "dynamo_start") {
        return EventKind::DynamoStart;
    }
    if (name == "artifact") {
        return EventKind::Artifact;
    }
    if (name == "graph_dump") {
        return EventKind::GraphDump;
    }
    if (std::ranges::find(kMetricsEvents, name) != kMetricsEvents.end()) {
        return EventKind::Metrics;
    }
    if (name == "chromium_event") {
        return EventKind::Chromium;
    }
    return EventKind::Ignored; // graphs, guards, ...
}

// The event's name: the one key that is not context.
std::optional<std::string_view> event_name(const Json& header) {
    for (const auto& [key, value] : header.items()) {
        if (!is_context_key(key)) {
            return std::string_view(key);
        }
    }
    return std::nullopt;
}

CompileId compile_id_of(const Json& header) {
    return CompileId{int_member(header, "compiled_autograd_id"), int_member(header, "frame_id"),
                     int_member(header, "frame_compile_id"), int_member(header, "attempt")};
}

bool is_cache_counter(std::string_view name) {
    return name.ends_with("_cache_hit_count") || name.ends_with("_cache_miss_count");
}

// Reads a log line by line: events, their payloads, and the context that
// names the compiles. Memory is what it keeps, never a copy of the log.
class TraceReader {
public:
    // `owns_payloads`: the text a line is read from may go away before its
    // event ends (a log followed as it grows): payloads are copied, never viewed.
    explicit TraceReader(std::string path, bool owns_payloads = false)
        : owns_payloads_(owns_payloads) {
        log_.path = std::move(path);
    }

    void read_line(std::size_t number, std::string_view line);
    // `settled`: the log ends here, and the event whose payload lines were
    // being read ends with it; else that event is left out (its lines may
    // still be coming).
    Result<TraceLog> finish(bool empty_input, bool settled = true);

private:
    // An event whose payload lines are still coming: a cache artifact, a
    // triton_kernel_info artifact or a chromium event.
    enum class PayloadOf { CacheEvent, KernelInfo, Chromium, Vllm };
    struct OpenPayload {
        PayloadOf of = PayloadOf::CacheEvent;
        CacheEvent event; // the cache event, or for the others their line and compile id
        std::string artifact_name;
        std::string expected_md5; // has_payload
        std::size_t payload_lines = 0;
        std::string_view first_line; // the payload when it is one line (it is, for cache events)
        std::string joined;          // the payload when it is more
        bool too_large = false;
    };
    // A compile whose file is an interned string not seen yet.
    struct UnresolvedFilename {
        std::size_t compile;
        std::int64_t index;
    };

    void read_event(std::size_t number, std::string_view json);
    void read_interned_string(std::size_t number, const Json& header);
    void read_dynamo_start(const Json& header);
    void read_metrics(const Json& header, std::string_view name);
    void read_artifact(std::size_t number, const Json& header);
    void read_graph_dump(std::size_t number, const Json& header);
    void read_vllm(const OpenPayload& open, std::string_view payload);
    void open_payload(PayloadOf of, std::size_t number, const Json& header, std::string name);
    void add_payload_line(std::string_view text);
    void close_payload();
    void close_cache_event(OpenPayload& open, std::string_view payload);
    void read_kernel_info(const OpenPayload& open, std::string_view payload);
    void read_chromium_event(const OpenPayload& open, std::string_view payload);
    void attach_to_compiles();
    CompileRecord& compile(const std::string& compile_id);
    void warn(std::size_t line, std::string_view what);

    bool owns_payloads_ = false;
    TraceLog log_;
    std::size_t trace_events_ = 0;
    std::size_t unlisted_warnings_ = 0;
    bool in_event_ = false;        // payload lines now belong to an event
    bool in_orphan_lines_ = false; // payload lines with no event, already warned about
    std::optional<OpenPayload> open_;
    // Begun phases by compile id and name (a stack: the same name may nest).
    std::unordered_map<std::string, std::vector<TimedPhase>> open_phases_;
    std::size_t open_phase_count_ = 0;
    std::unordered_map<std::int64_t, std::string> interned_;
    std::unordered_map<std::string, std::size_t> compile_index_;
    std::vector<UnresolvedFilename> unresolved_filenames_;
};

void TraceReader::warn(std::size_t line, std::string_view what) {
    if (log_.warnings.size() < TraceLog::kMaxWarnings) {
        log_.warnings.push_back(fmt::format("line {}: {}", line, what));
    } else {
        ++unlisted_warnings_;
    }
}

CompileRecord& TraceReader::compile(const std::string& compile_id) {
    const auto [it, added] = compile_index_.try_emplace(compile_id, log_.compiles.size());
    if (added) {
        log_.compiles.emplace_back().compile_id = compile_id;
    }
    return log_.compiles[it->second];
}

void TraceReader::read_line(std::size_t number, std::string_view line) {
    if (line.ends_with('\r')) {
        line.remove_suffix(1); // CRLF: a log that passed through Windows
    }
    if (line.empty()) {
        return; // never part of an event: an empty payload line is still "\t"
    }
    if (line.front() == '\t') {
        if (in_event_) {
            add_payload_line(line.substr(1));
        } else if (!in_orphan_lines_) {
            warn(number, "payload lines with no event before them");
            in_orphan_lines_ = true;
        }
        return;
    }
    close_payload();
    in_event_ = false;
    in_orphan_lines_ = false;
    const auto glog = parse_glog_line(line);
    if (!glog) {
        warn(number, "not a trace line");
        return;
    }
    if (!glog->event.starts_with('{')) {
        warn(number, "a log line without a JSON event");
        return;
    }
    ++trace_events_;
    in_event_ = true;
    read_event(number, glog->event);
}

void TraceReader::read_event(std::size_t number, std::string_view json) {
    // Most events (chromium events, graphs, guards) are not needed: their name
    // comes first, so they are passed over without parsing.
    std::optional<Json> header;
    auto name = first_json_key(json);
    if (!name || is_context_key(*name)) {
        header = parse_json(json);
        if (!header || !header->is_object()) {
            warn(number, "event is not a JSON object");
            return;
        }
        name = event_name(*header);
        if (!name) {
            warn(number, "event has no name");
            return;
        }
    }
    const EventKind kind = kind_of(*name);
    if (kind == EventKind::Ignored) {
        return;
    }
    if (!header) {
        header = parse_json(json);
        if (!header || !header->is_object()) {
            warn(number, fmt::format("{} event is not JSON", *name));
            return;
        }
    }
    switch (kind) {
    case EventKind::InternedString:
        read_interned_string(number, *header);
        break;
    case EventKind::DynamoStart:
        read_dynamo_start(*header);
        break;
    case EventKind::Artifact:
        read_artifact(number, *header);
        break;
    case EventKind::GraphDump:
        read_graph_dump(number, *header);
        break;
    case EventKind::Metrics:
        read_metrics(*header, *name);
        break;
    case EventKind::Chromium:
        open_payload(PayloadOf::Chromium, number, *header, "chromium_event");
        break;
    case EventKind::Ignored:
        break;
    }
}

// {"str": ["/path/to/file.py", 3]}: file names in stacks are these indices.
void TraceReader::read_interned_string(std::size_t number, const Json& header) {
    const Json* entry = member(header, "str");
    if (entry == nullptr || !entry->is_array() || entry->size() != 2 || !(*entry)[0].is_string() ||
        !as_int((*entry)[1])) {
        warn(number, "interned string is not [text, index]");
        return;
    }
    interned_[*as_int((*entry)[1])] = (*entry)[0].get<std::string>();
}

// The stack dynamo started compiling from; its last frame is the user's
// function being compiled.
void TraceReader::read_dynamo_start(const Json& header) {
    const std::string id = compile_id_of(header).str();
    const Json* start = member(header, "dynamo_start");
    const Json* stack = start != nullptr ? member(*start, "stack") : nullptr;
    if (id.empty() || stack == nullptr || !stack->is_array() || stack->empty()) {
        return;
    }
    const Json& frame = stack->back();
    CompileRecord& record = compile(id);
    if (const auto* name = string_member(frame, "name")) {
        record.function = *name;
    }
    record.line = int_member(frame, "line");
    record.filename.clear();
    if (const auto* uninterned = string_member(frame, "uninterned_filename")) {
        record.filename = *uninterned;
    } else if (const Json* filename = member(frame, "filename"); filename != nullptr) {
        if (filename->is_string()) {
            record.filename = filename->get<std::string>();
        } else if (filename->is_array() && !filename->empty() && (*filename)[0].is_string()) {
            record.filename = (*filename)[0].get<std::string>(); // [path, index]
        } else if (const auto index = as_int(*filename)) {
            unresolved_filenames_.push_back({compile_index_.at(id), *index});
        }
    }
}

void TraceReader::read_metrics(const Json& header, std::string_view name) {
    const Json* metrics = member(header, std::string(name).c_str());
    if (metrics == nullptr || !metrics->is_object()) {
        return;
    }
    // Metrics are logged outside the compile's context: the id is inside.
    const auto* logged_id = string_member(*metrics, "compile_id");
    const std::string id = logged_id != nullptr ? *logged_id : compile_id_of(header).str();
    if (id.empty()) {
        return;
    }
    CompileRecord& record = compile(id);
    if (record.function.empty()) {
        if (const auto* co_name = string_member(*metrics, "co_name")) {
            record.function = *co_name;
            const auto* co_filename = string_member(*metrics, "co_filename");
            record.filename = co_filename != nullptr ? *co_filename : std::string();
            record.line = int_member(*metrics, "co_firstlineno");
        }
    }
    for (const auto& [field, reason] : {std::pair{"fail_type", &record.fail_type},
                                        std::pair{"fail_reason", &record.fail_reason}}) {
        if (const auto* text = string_member(*metrics, field); text != nullptr && reason->empty()) {
            *reason = *text;
        }
    }
    for (const auto& [field, value] : metrics->items()) {
        const auto count = as_int(value);
        if (!count || !is_cache_counter(field)) {
            continue;
        }
        auto it = std::ranges::find(record.cache_counts, field,
                                    &std::pair<std::string, std::int64_t>::first);
        if (it != record.cache_counts.end()) {
            it->second += *count;
        } else if (record.cache_counts.size() < kMaxCacheCounters) {
            record.cache_counts.emplace_back(field, *count);
        }
    }
}

void TraceReader::read_artifact(std::size_t number, const Json& header) {
    const Json* artifact = member(header, "artifact");
    const auto* artifact_name = artifact != nullptr ? string_member(*artifact, "name") : nullptr;
    if (artifact_name == nullptr) {
        return;
    }
    if (*artifact_name == "triton_kernel_info") {
        open_payload(PayloadOf::KernelInfo, number, header, *artifact_name);
        return;
    }
    if (*artifact_name == kVllmConfig || *artifact_name == kVllmPiecewiseStart) {
        open_payload(PayloadOf::Vllm, number, header, *artifact_name);
        return;
    }
    if (std::ranges::find(kProfileArtifacts, *artifact_name) != kProfileArtifacts.end()) {
        // The payload is the profile rendered for people: that it was logged is the news.
        log_.profiles.push_back({compile_id_of(header).str(), *artifact_name, number});
        return;
    }
    const auto cache = classify_cache_artifact(*artifact_name);
    if (!cache) {
        return; // graphs, configs: not read
    }
    open_payload(PayloadOf::CacheEvent, number, header, *artifact_name);
    open_->event.cache = cache->cache;
    open_->event.status = std::string(cache->status);
}

// Graphs are not read, but for vLLM's split graph: how many pieces.
void TraceReader::read_graph_dump(std::size_t number, const Json& header) {
    const Json* dump = member(header, "graph_dump");
    const auto* name = dump != nullptr ? string_member(*dump, "name") : nullptr;
    if (name != nullptr && *name == kVllmSplitGraph) {
        open_payload(PayloadOf::Vllm, number, header, *name);
    }
}

void TraceReader::read_vllm(const OpenPayload& open, std::string_view payload) {
    VllmEvent event;
    event.compile_id = open.event.compile_id;
    event.line = open.event.line;
    if (open.artifact_name == kVllmSplitGraph) {
        event.kind = VllmEvent::Kind::SplitGraph;
        for (std::size_t at = payload.find("class submod_"); at != std::string_view::npos;
             at = payload.find("class submod_", at + 1)) {
            ++event.submodules;
        }
        log_.vllm.push_back(std::move(event));
        return;
    }
    const auto json = parse_json(payload);
    if (!json || !json->is_object()) {
        warn(open.event.line, fmt::format("{} payload is not a JSON object", open.artifact_name));
        return;
    }
    if (open.artifact_name == kVllmConfig) {
        event.kind = VllmEvent::Kind::Config;
        for (const auto& [field, value] : json->items()) {
            if (event.fields.size() == kMaxVllmFields) {
                warn(open.event.line,
                     "vllm_compilation_config has too many fields: the rest not read");
                break;
            }
            event.fields.emplace_back(field,
                                      value.is_string() ? value.get<std::string>() : value.dump());
        }
    } else {
        event.kind = VllmEvent::Kind::PiecewiseCompile;
        if (const auto* submodule = string_member(*json, "submod_name")) {
            event.submodule = *submodule;
        }
        event.index = int_member(*json, "piecewise_index");
        event.total = int_member(*json, "total_piecewise_compiles");
        event.range_start = int_member(*json, "compile_range_start");
        event.range_end = int_member(*json, "compile_range_end");
        const Json* single = member(*json, "is_single_size");
        event.single_size = single != nullptr && single->is_boolean() && single->get<bool>();
    }
    log_.vllm.push_back(std::move(event));
}

void TraceReader::open_payload(PayloadOf of, std::size_t number, const Json& header,
                               std::string name) {
    OpenPayload open;
    open.of = of;
    open.event.compile_id = compile_id_of(header).str();
    open.event.line = number;
    open.artifact_name = std::move(name);
    if (const auto* md5 = string_member(header, "has_payload")) {
        open.expected_md5 = *md5;
    }
    open_ = std::move(open);
}

void TraceReader::add_payload_line(std::string_view text) {
    if (!open_) {
        return; // the payload of an event that is not read
    }
    OpenPayload& open = *open_;
    ++open.payload_lines;
    if (open.payload_lines == 1) {
        if (owns_payloads_) {
            open.joined = text;
        } else {
            open.first_line = text;
        }
        return;
    }
    if (open.too_large) {
        return;
    }
    if (open.payload_lines == 2 && !owns_payloads_) {
        open.joined = open.first_line;
    }
    if (open.joined.size() + 1 + text.size() > kMaxJoinedPayload) {
        open.too_large = true;
        std::string().swap(open.joined);
        return;
    }
    open.joined += '\n';
    open.joined += text;
}

void TraceReader::close_payload() {
    if (!open_) {
        return;
    }
    OpenPayload open = std::move(*open_);
    open_.reset();
    const std::string_view payload =
        open.payload_lines > 1 || owns_payloads_ ? std::string_view(open.joined) : open.first_line;
    if (open.of != PayloadOf::CacheEvent) {
        if (open.payload_lines == 0 || open.too_large) {
            warn(open.event.line, fmt::format("{} has no readable payload", open.artifact_name));
        } else if (open.of == PayloadOf::KernelInfo) {
            read_kernel_info(open, payload);
        } else if (open.of == PayloadOf::Vllm) {
            read_vllm(open, payload);
        } else {
            read_chromium_event(open, payload);
        }
        return;
    }
    close_cache_event(open, payload);
}

void TraceReader::close_cache_event(OpenPayload& open, std::string_view payload) {
    CacheEvent& event = open.event;
    if (open.payload_lines == 0) {
        warn(event.line,
             fmt::format("{} has no payload: no key or debug lines", open.artifact_name));
    } else if (open.too_large) {
        warn(event.line, fmt::format("{} payload is larger than {} MiB: not read",
                                     open.artifact_name, kMaxJoinedPayload >> 20));
    } else {
        // An unreadable payload says enough; a readable one that fails its
        // checksum was edited after PyTorch wrote it.
        if (auto problem = read_cache_payload(payload, event)) {
            warn(event.line, *problem);
        } else if (!open.expected_md5.empty() &&
                   !payload_matches_checksum(payload, open.expected_md5)) {
            warn(event.line, "payload does not match its has_payload checksum (edited?)");
        }
    }
    if (event.status == "hash") {
        event.status = std::string(kStatusNotLogged); // no payload to say it
    }
    const std::size_t index = log_.events.size();
    if (!event.compile_id.empty()) {
        compile(event.compile_id).events.push_back(index);
    }
    log_.events.push_back(std::move(event));
}

// {"kernel_name": {"autotune_cache_state": "miss", "num_configs": 3,
// "compile_time_us": 618338}, ...}, sorted by name (async_compile._compile_end).
void TraceReader::read_kernel_info(const OpenPayload& open, std::string_view payload) {
    const auto json = parse_json(payload);
    if (!json || !json->is_object()) {
        warn(open.event.line, "triton_kernel_info payload is not a JSON object");
        return;
    }
    std::size_t read = 0;
    for (const auto& [kernel, info] : json->items()) {
        if (++read > kMaxKernelsPerArtifact) {
            warn(open.event.line, "triton_kernel_info lists too many kernels: the rest not read");
            break;
        }
        TritonKernelInfo entry;
        entry.compile_id = open.event.compile_id;
        entry.kernel = kernel;
        entry.line = open.event.line;
        if (const auto* state = string_member(info, "autotune_cache_state")) {
            entry.autotune_cache_state = *state;
        }
        entry.num_configs = int_member(info, "num_configs");
        entry.compile_time_us = int_member(info, "compile_time_us");
        log_.kernels.push_back(std::move(entry));
    }
}

std::optional<std::int64_t> timestamp_ns(const Json& event) {
    const Json* ts = member(event, "ts");
    if (ts == nullptr || !ts->is_number()) {
        return std::nullopt;
    }
    const double micros = ts->get<double>();
    // Past ~292 years of nanoseconds an int64 overflows: not a timestamp.
    if (!std::isfinite(micros) || std::fabs(micros) > 9.0e15) {
        return std::nullopt;
    }
    // Whole microseconds are exact in a double (below 2^53); multiplying
    // the whole timestamp by 1000 would not be.
    const double whole = std::floor(micros);
    return static_cast<std::int64_t>(whole) * 1000 + std::llround((micros - whole) * 1000.0);
}

// {"name": "inductor_compile", "ts": 1795344469648345.8, "args": {"compile_id":
// "0/0", ...}, "ph": "B", "cat": "dynamo_timed", ...}: a begin or end of a
// phase. Instant events ("i") repeat the cache artifacts and are not kept.
void TraceReader::read_chromium_event(const OpenPayload& open, std::string_view payload) {
    const auto json = parse_json(payload);
    if (!json || !json->is_object()) {
        warn(open.event.line, "chromium_event payload is not a JSON object");
        return;
    }
    const auto* phase = string_member(*json, "ph");
    const auto* name = string_member(*json, "name");
    const auto start = timestamp_ns(*json);
    if (phase == nullptr || name == nullptr || !start || (*phase != "B" && *phase != "E")) {
        return;
    }
    const Json* args = member(*json, "args");
    std::string id = open.event.compile_id;
    if (id.empty() && args != nullptr) {
        // Autotune benchmarks run after the compile, outside its context.
        if (const auto* logged = string_member(*args, "compile_id")) {
            id = *logged;
        }
    }
    std::string slot = id + '\n' + *name;
    if (*phase == "B") {
        if (open_phase_count_ >= kMaxOpenPhases) {
            warn(open.event.line, "too many phases begun and not ended: this one not timed");
            return;
        }
        TimedPhase begun;
        begun.name = *name;
        begun.compile_id = std::move(id);
        begun.start_ns = *start;
        begun.line = open.event.line;
        if (args != nullptr) {
            if (const auto* kernel = string_member(*args, "kernel_name")) {
                begun.kernel_name = *kernel;
            }
        }
        open_phases_[std::move(slot)].push_back(std::move(begun));
        ++open_phase_count_;
        return;
    }
    const auto it = open_phases_.find(slot);
    if (it == open_phases_.end() || it->second.empty()) {
        return; // its begin was before the log started
    }
    TimedPhase ended = std::move(it->second.back());
    it->second.pop_back();
    --open_phase_count_;
    if (it->second.empty()) {
        open_phases_.erase(it);
    }
    ended.duration_ns = std::max<std::int64_t>(0, *start - ended.start_ns);
    log_.phases.push_back(std::move(ended));
}

// Phases, kernels and profiles name their compile only by id; a compile is
// known once something else (dynamo_start, a cache event, metrics) named it.
void TraceReader::attach_to_compiles() {
    const auto attach = [this](const std::string& id, auto member_of, std::size_t index) {
        if (const auto it = compile_index_.find(id); it != compile_index_.end()) {
            (log_.compiles[it->second].*member_of).push_back(index);
        }
    };
    for (std::size_t i = 0; i < log_.phases.size(); ++i) {
        attach(log_.phases[i].compile_id, &CompileRecord::phases, i);
    }
    for (std::size_t i = 0; i < log_.kernels.size(); ++i) {
        attach(log_.kernels[i].compile_id, &CompileRecord::kernels, i);
    }
    for (std::size_t i = 0; i < log_.profiles.size(); ++i) {
        attach(log_.profiles[i].compile_id, &CompileRecord::profiles, i);
    }
}

Result<TraceLog> TraceReader::finish(bool empty_input, bool settled) {
    if (settled) {
        close_payload();
    } else {
        open_.reset();
    }
    if (trace_events_ == 0) {
        return fail(ErrorKind::Corrupt,
                    empty_input ? "empty file: not a TORCH_TRACE log"
                                : "not a TORCH_TRACE log: no line is a trace event "
                                  "(`V1122 10:47:51.509000 444 file.py:12] {...}`)",
                    log_.path);
    }
    for (const auto& [compile_index, string_index] : unresolved_filenames_) {
        if (const auto it = interned_.find(string_index); it != interned_.end()) {
            log_.compiles[compile_index].filename = it->second;
        }
    }
    // A restarted attempt ("0/0_1") runs the function its first attempt named.
    for (auto& record : log_.compiles) {
        if (!record.function.empty()) {
            continue;
        }
        const auto first = compile_index_.find(without_attempt(record.compile_id));
        if (first != compile_index_.end()) {
            const CompileRecord& named = log_.compiles[first->second];
            record.function = named.function;
            record.filename = named.filename;
            record.line = named.line;
        }
    }
    for (auto& record : log_.compiles) {
        std::ranges::sort(record.cache_counts);
    }
    attach_to_compiles();
    if (unlisted_warnings_ > 0) {
        log_.warnings.push_back(fmt::format("... and {} more problems", unlisted_warnings_));
    }
    return std::move(log_);
}

} // namespace

Result<TraceLog> parse_trace_log(std::string_view text, std::string path_label) {
    TraceReader reader(std::move(path_label));
    std::size_t number = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t newline = text.find('\n', pos);
        const std::size_t end = newline == std::string_view::npos ? text.size() : newline;
        reader.read_line(++number, text.substr(pos, end - pos));
        pos = end + 1;
    }
    return reader.finish(text.empty());
}

struct TraceLogFollower::State {
    explicit State(std::string path)
        : reader(std::move(path), true) {}
    TraceReader reader;
    std::string partial_line; // the last line, its newline not written yet
    std::size_t lines = 0;
    std::uint64_t bytes = 0;
};

TraceLogFollower::TraceLogFollower(std::string path_label)
    : state_(std::make_unique<State>(std::move(path_label))) {}

TraceLogFollower::~TraceLogFollower() = default;
TraceLogFollower::TraceLogFollower(TraceLogFollower&&) noexcept = default;
TraceLogFollower& TraceLogFollower::operator=(TraceLogFollower&&) noexcept = default;

void TraceLogFollower::feed(std::string_view appended) {
    State& state = *state_;
    state.bytes += appended.size();
    std::size_t pos = 0;
    while (pos < appended.size()) {
        const std::size_t newline = appended.find('\n', pos);
        if (newline == std::string_view::npos) {
            state.partial_line.append(appended.substr(pos));
            return;
        }
        const std::string_view rest = appended.substr(pos, newline - pos);
        if (state.partial_line.empty()) {
            state.reader.read_line(++state.lines, rest);
        } else {
            state.partial_line.append(rest);
            state.reader.read_line(++state.lines, state.partial_line);
            state.partial_line.clear();
        }
        pos = newline + 1;
    }
}

std::uint64_t TraceLogFollower::bytes_read() const {
    return state_->bytes;
}

Result<TraceLog> TraceLogFollower::snapshot(bool settled) const {
    TraceReader copy = state_->reader;
    if (settled && !state_->partial_line.empty()) {
        copy.read_line(state_->lines + 1, state_->partial_line);
    }
    return copy.finish(state_->bytes == 0, settled);
}

Result<TraceLog> read_trace_log(const std::filesystem::path& file) {
    auto mapped = MappedFile::open(file, kMaxLogSize);
    if (!mapped) {
        return std::unexpected(std::move(mapped.error()).at(file.string()));
    }
    return parse_trace_log((*mapped)->bytes(), file.string());
}

Result<std::vector<TraceLog>> read_trace_dir(const std::filesystem::path& dir) {
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) {
        return fail(ErrorKind::NotFound, "not a directory", dir.string());
    }
    std::vector<std::filesystem::path> files;
    for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
         it.increment(error)) {
        std::error_code type_error;
        if (it->path().extension() == ".log" && it->is_regular_file(type_error)) {
            files.push_back(it->path());
        }
    }
    if (error) {
        return fail(ErrorKind::Io, fmt::format("cannot list the directory: {}", error.message()),
                    dir.string());
    }
    if (files.empty()) {
        return fail(ErrorKind::NotFound, "no TORCH_TRACE logs (*.log) in this directory",
                    dir.string());
    }
    std::ranges::sort(files);
    std::vector<TraceLog> logs;
    logs.reserve(files.size());
    for (const auto& file : files) {
        auto log = read_trace_log(file);
        if (!log) {
            return std::unexpected(std::move(log.error()));
        }
        logs.push_back(std::move(*log));
    }
    return logs;
}

} // namespace cachelens::trace
