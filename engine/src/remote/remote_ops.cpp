#include <cachelens/bundle/export.h>
#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/remote/remote_ops.h>

#include <algorithm>
#include <map>
#include <span>

namespace cachelens::remote {

namespace fs = std::filesystem;

namespace {

bool is_entry_key(std::string_view key, char first) {
    return key.size() == 52 && key[0] == first;
}

// PyTorch's time_taken_ms for a value: the FX graph's compile time, or the
// AOT entry's forward plus backward, in whole milliseconds.
std::optional<std::int64_t> time_taken_ms(const std::string& type, std::string_view key,
                                          std::string_view content) {
    auto document = pickle::unpickle(content);
    if (!document) {
        return std::nullopt;
    }
    if (type == "inductor") {
        auto entry = cachedir::read_fx_graph_entry(*document, key);
        if (entry && entry->time_taken_ns) {
            return *entry->time_taken_ns / 1'000'000;
        }
        return entry ? std::optional<std::int64_t>(0) : std::nullopt;
    }
    auto entry = cachedir::read_aot_autograd_entry(*document);
    if (!entry) {
        return std::nullopt;
    }
    return (entry->forward_time_taken_ns.value_or(0) + entry->backward_time_taken_ns.value_or(0)) /
           1'000'000;
}

// PyTorch's FX or AOT key: "f" or "a", then 51 lowercase base32 characters.
bool is_strict_entry_key(std::string_view key, char first) {
    return is_entry_key(key, first) && std::ranges::all_of(key.substr(1), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
           });
}

// The local file an artifact came from, relative to the cache dir, as the
// import's checks name its destination. For an FX or AOT entry under a key
// of PyTorch's shape that is the file export read (whose name export checked
// is the hash of its bytes): the checks themselves (unpickle, code audit,
// hash) were an eighth of a push's CPU (perf). Anything else still goes
// through them, which leave the destination empty for a key they refuse.
std::string source_of(const std::string& type, const std::string& key, std::string_view content,
                      const std::string& file) {
    const bool entry = (type == "inductor" && is_strict_entry_key(key, 'f')) ||
                       (type == "aot_autograd" && is_strict_entry_key(key, 'a'));
    if (entry && content.size() <= bundle::ImportRules{}.max_artifact_bytes) {
        return file;
    }
    const auto check = bundle::check_artifact(type, key, content);
    return check.destination;
}

// Values go to and come from the server this many at a time (each round
// pipelined), so that progress is heard and a stop is honoured between
// rounds; a round trip per 256 values costs little even to a distant server.
constexpr std::size_t kValuesPerRound = 256;

// SCAN as the Scanning stage: the keys found so far, then all of them.
Result<std::vector<std::string>> scan_keys(RedisClient& client, const std::string& pattern,
                                           const ProgressFn& progress) {
    Progress found{.stage = ProgressStage::Scanning,
                   .unit = ProgressUnit::Keys,
                   .done = 0,
                   .total = 0,
                   .bytes = 0,
                   .item = {}};
    if (!report_progress(progress, found)) {
        return cancelled();
    }
    auto keys = client.scan_all(pattern, [&](std::size_t count) {
        found.done = count;
        return report_progress(progress, found);
    });
    if (!keys) {
        return keys;
    }
    found.done = found.total = keys->size();
    if (!report_progress(progress, found)) {
        return cancelled();
    }
    return keys;
}

// GET of every key, a round at a time, as `stage`: the values read so far.
Result<std::vector<std::optional<std::string>>> read_values(RedisClient& client,
                                                            const std::vector<std::string>& keys,
                                                            ProgressStage stage, ProgressUnit unit,
                                                            const ProgressFn& progress) {
    Progress read{
        .stage = stage, .unit = unit, .done = 0, .total = keys.size(), .bytes = 0, .item = {}};
    if (!report_progress(progress, read)) {
        return cancelled();
    }
    std::vector<std::optional<std::string>> values;
    values.reserve(keys.size());
    for (std::size_t start = 0; start < keys.size(); start += kValuesPerRound) {
        const std::size_t count = std::min(kValuesPerRound, keys.size() - start);
        auto round = client.get_many(std::span(keys).subspan(start, count));
        if (!round) {
            return std::unexpected(round.error());
        }
        for (auto& value : *round) {
            read.bytes += value ? value->size() : 0;
            values.push_back(std::move(value));
        }
        read.done = values.size();
        read.item = keys[read.done - 1];
        if (!report_progress(progress, read)) {
            return cancelled();
        }
    }
    return values;
}

} // namespace

Result<std::vector<RemoteEntry>> list_remote(RedisClient& client, std::optional<CacheKind> kind,
                                             const ProgressFn& progress) {
    auto keys = scan_keys(client, scan_pattern(kind), progress);
    if (!keys) {
        return std::unexpected(keys.error());
    }
    std::vector<RemoteEntry> entries;
    std::vector<std::string> listed;
    for (const auto& redis_key : *keys) {
        auto parsed = parse_redis_key(redis_key);
        if (!parsed || (kind && parsed->kind != *kind)) {
            continue;
        }
        entries.push_back({std::move(*parsed), 0, -1});
        listed.push_back(redis_key);
    }
    auto facts = client.value_facts(listed);
    if (!facts) {
        return std::unexpected(facts.error());
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
        entries[i].size = (*facts)[i].size;
        entries[i].ttl = (*facts)[i].ttl;
    }
    return entries;
}

std::optional<RemoteKey> remote_key_from_argument(std::string_view argument) {
    if (argument.starts_with("pt2:")) {
        return parse_redis_key(argument);
    }
    if (is_entry_key(argument, 'f')) {
        return parse_redis_key(redis_key_for(cache_id_of(CacheKind::FxGraph), argument));
    }
    if (is_entry_key(argument, 'a')) {
        return parse_redis_key(redis_key_for(cache_id_of(CacheKind::AotAutograd), argument));
    }
    return std::nullopt;
}

Result<PullResult> pull_remote(RedisClient& client, const fs::path& cache_dir,
                               const PullOptions& options) {
    PullResult result;
    std::vector<RemoteKey> keys;
    if (options.keys.empty()) {
        // The keys only: list_remote's size and TTL are two round trips a key.
        auto found = scan_keys(client, scan_pattern(std::nullopt), options.progress);
        if (!found) {
            return std::unexpected(found.error());
        }
        for (const auto& redis_key : *found) {
            if (auto key = parse_redis_key(redis_key)) {
                keys.push_back(std::move(*key));
            }
        }
    } else {
        for (const auto& argument : options.keys) {
            auto key = remote_key_from_argument(argument);
            if (!key) {
                return fail(ErrorKind::InvalidArgument,
                            "'" + argument +
                                "' is neither a Redis key (pt2:...), an FX graph key (f…) nor an "
                                "AOTAutograd key (a…)");
            }
            keys.push_back(std::move(*key));
        }
    }
    std::vector<std::string> redis_keys;
    for (const auto& key : keys) {
        redis_keys.push_back(key.redis_key);
    }
    auto values = read_values(client, redis_keys, ProgressStage::Reading, ProgressUnit::Values,
                              options.progress);
    if (!values) {
        return std::unexpected(values.error());
    }
    std::vector<PulledValue> pulled;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!(*values)[i]) {
            result.problems.push_back(keys[i].redis_key + ": not on the server");
            continue;
        }
        pulled.push_back({keys[i], std::move(*(*values)[i])});
    }
    auto artifacts = artifacts_to_pull(pulled);
    result.notes = std::move(artifacts.notes);
    result.problems.insert(result.problems.end(), artifacts.unreadable.begin(),
                           artifacts.unreadable.end());
    auto plan = bundle::plan_import(artifacts.bundle, cache_dir, options.rules);
    if (!plan) {
        return std::unexpected(plan.error());
    }
    if (const auto unknown = bundle::unknown_finding_ids(*plan, options.rules); !unknown.empty()) {
        return fail(ErrorKind::InvalidArgument,
                    "--allow-code " + unknown.front() +
                        ": no finding of the values pulled has that id (nothing was written; a "
                        "dry run lists the ids)");
    }
    if (options.dry_run) {
        result.plan = std::move(*plan);
        result.values = std::move(artifacts.bundle);
        return result;
    }
    result.plan = bundle::run_import(std::move(*plan), artifacts.bundle, options.progress);
    if (result.plan.cancelled) {
        return cancelled();
    }
    return result;
}

std::string_view to_string(PushAction action) {
    switch (action) {
    case PushAction::Set:
        return "set";
    case PushAction::AlreadyThere:
        return "already there";
    case PushAction::Conflict:
        return "conflict";
    case PushAction::Replaced:
        return "replaced";
    }
    return "unknown";
}

std::size_t PushResult::count(PushAction action) const {
    return static_cast<std::size_t>(std::ranges::count(items, action, &PushItem::action));
}

Result<PushResult> push_local(RedisClient& client, const fs::path& cache_dir,
                              const PushOptions& options) {
    auto exported = bundle::export_bundle(cache_dir, {.keys = options.keys}, options.progress);
    if (!exported) {
        return std::unexpected(exported.error());
    }
    PushResult result;
    result.notes = std::move(exported->notes);
    std::map<std::string, std::size_t> by_redis_key; // -> index in result.items
    for (std::size_t s = 0; s < exported->bundle.sections.size(); ++s) {
        const auto& section = exported->bundle.sections[s];
        const bool fx = section.type == "inductor";
        const bool aot = section.type == "aot_autograd";
        const bool pgo = section.type == "pgo";
        if (!fx && !aot && !pgo) {
            if (section.type == "autotune") {
                result.notes.push_back(std::to_string(section.artifacts.size()) +
                                       " best_configs not pushed: PyTorch's remote autotune key "
                                       "hashes the torch build, which a cache dir does not hold");
            }
            continue;
        }
        const CacheKind kind = fx    ? CacheKind::FxGraph
                               : aot ? CacheKind::AotAutograd
                                     : CacheKind::DynamoPgo;
        for (std::size_t i = 0; i < section.artifacts.size(); ++i) {
            const auto& artifact = section.artifacts[i];
            PushItem item;
            item.key = *parse_redis_key(redis_key_for(cache_id_of(kind), artifact.key));
            item.source =
                source_of(section.type, artifact.key, artifact.content, exported->sources[s][i]);
            item.size = artifact.content.size();
            item.value = encode_value(
                artifact.content,
                pgo ? std::nullopt : time_taken_ms(section.type, artifact.key, artifact.content));
            if (auto seen = by_redis_key.find(item.key.redis_key); seen != by_redis_key.end()) {
                // Redis holds one value per key; PyTorch's last save wins too.
                result.notes.push_back(item.key.key + ": several local entries; pushed " +
                                       item.source + ", not " + result.items[seen->second].source);
                result.items[seen->second] = std::move(item);
                continue;
            }
            by_redis_key.emplace(item.key.redis_key, result.items.size());
            result.items.push_back(std::move(item));
        }
    }

    std::vector<std::string> redis_keys;
    for (const auto& item : result.items) {
        redis_keys.push_back(item.key.redis_key);
    }
    auto existing = read_values(client, redis_keys, ProgressStage::Checking, ProgressUnit::Keys,
                                options.progress);
    if (!existing) {
        return std::unexpected(existing.error());
    }
    // Views of the items' keys and values: a copy of every value was a
    // quarter of a push's CPU (perf).
    std::vector<std::pair<std::string_view, std::string_view>> to_set;
    std::vector<std::size_t> set_index;
    for (std::size_t i = 0; i < result.items.size(); ++i) {
        auto& item = result.items[i];
        const auto& there = (*existing)[i];
        if (there) {
            // The same pickle with another time_taken_ms is the same entry.
            auto stored = decode_value(item.key.kind, *there);
            auto ours = decode_value(item.key.kind, item.value);
            if (stored && ours && stored->payload == ours->payload) {
                item.action = PushAction::AlreadyThere;
                continue;
            }
            item.action = options.force ? PushAction::Replaced : PushAction::Conflict;
            if (!options.force) {
                continue;
            }
        }
        to_set.emplace_back(item.key.redis_key, item.value);
        set_index.push_back(i);
    }
    if (options.dry_run || to_set.empty()) {
        return result;
    }
    Progress stored{.stage = ProgressStage::Writing,
                    .unit = ProgressUnit::Values,
                    .done = 0,
                    .total = to_set.size(),
                    .bytes = 0,
                    .item = {}};
    if (!report_progress(options.progress, stored)) {
        return cancelled();
    }
    const SetMode mode = options.force ? SetMode::Always : SetMode::OnlyIfAbsent;
    std::vector<bool> written;
    for (std::size_t start = 0; start < to_set.size(); start += kValuesPerRound) {
        const std::size_t count = std::min(kValuesPerRound, to_set.size() - start);
        auto round = client.set_many(std::span(to_set).subspan(start, count), mode);
        if (!round) {
            return std::unexpected(round.error());
        }
        written.insert(written.end(), round->begin(), round->end());
        for (std::size_t j = start; j < start + count; ++j) {
            stored.bytes += to_set[j].second.size();
        }
        stored.done = written.size();
        stored.item = to_set[stored.done - 1].first;
        // Each value is set whole; a stop leaves the rest unset.
        if (!report_progress(options.progress, stored) && stored.done < stored.total) {
            return cancelled();
        }
    }
    for (std::size_t j = 0; j < set_index.size(); ++j) {
        if (!written[j]) {
            // Someone set it between our GET and SET: theirs stays.
            result.items[set_index[j]].action = PushAction::Conflict;
            result.notes.push_back(result.items[set_index[j]].key.redis_key +
                                   ": set by someone else meanwhile; left alone");
        }
    }
    return result;
}

} // namespace cachelens::remote
