// `cachelens remote ls|show|pull|push`: PyTorch's Redis remote cache,
// browsed and moved to and from local cache dirs.

#include "commands.h"
#include "entry_json.h"
#include "entry_text.h"
#include "import_report.h"
#include "output.h"
#include "progress_line.h"
#include "write_target.h"

#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/format.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/policy/root_policy.h>
#include <cachelens/remote/redis_endpoint.h>
#include <cachelens/remote/remote_ops.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct RemoteOptions {
    std::string url;
    std::string cache;
    std::string key;
    std::string dir;
    std::vector<std::string> keys;
    std::vector<std::string> allow_code; // finding ids
    bool dry_run = false;
    bool force = false;
    bool json = false;
    bool source = false;
};

Result<remote::RedisClient> connect(const std::string& url) {
    auto endpoint = remote::parse_redis_endpoint(url);
    if (!endpoint) {
        return std::unexpected(endpoint.error());
    }
    return remote::RedisClient::connect(*endpoint);
}

int run_ls(const RemoteOptions& options) {
    std::optional<remote::CacheKind> kind;
    if (!options.cache.empty()) {
        kind = remote::cache_kind_from_name(options.cache);
        if (!kind) {
            return report("--cache: '" + options.cache +
                          "' is not one of fx-graph, aot, autotune, bundled-autotune, pgo");
        }
    }
    auto client = connect(options.url);
    if (!client) {
        return report(client.error());
    }
    auto entries = remote::list_remote(*client, kind);
    if (!entries) {
        return report(entries.error());
    }
    if (options.json) {
        Json out = Json::array();
        for (const auto& entry : *entries) {
            out.push_back({{"cache", std::string(to_string(entry.key.kind))},
                           {"cache_id", text(entry.key.cache_id)},
                           {"key", text(entry.key.key)},
                           {"redis_key", text(entry.key.redis_key)},
                           {"size", entry.size},
                           {"ttl", entry.ttl}});
        }
        print_json(out);
        return kExitOk;
    }
    std::uint64_t total = 0;
    for (const auto& entry : *entries) {
        total += static_cast<std::uint64_t>(entry.size);
        std::printf("%-16s %10s  %-8s %s\n", std::string(to_string(entry.key.kind)).c_str(),
                    format_bytes(static_cast<std::uint64_t>(entry.size)).c_str(),
                    entry.ttl < 0 ? "-" : (std::to_string(entry.ttl) + "s").c_str(),
                    entry.key.key.c_str());
    }
    std::printf("%s, %s on %s\n", plural(entries->size(), "entry").c_str(),
                format_bytes(total).c_str(), client->endpoint().display().c_str());
    return kExitOk;
}

// A value parsed with the same code as a local entry of its kind.
Result<cachedir::EntryContent> parse_payload(const remote::RemoteKey& key,
                                             std::shared_ptr<const std::string> payload) {
    auto document = pickle::unpickle(*payload, payload);
    if (!document) {
        return std::unexpected(document.error());
    }
    if (key.kind == remote::CacheKind::FxGraph) {
        auto entry = cachedir::read_fx_graph_entry(*document, key.key);
        if (!entry) {
            return std::unexpected(entry.error());
        }
        return cachedir::EntryContent(std::move(*entry));
    }
    if (key.kind == remote::CacheKind::AotAutograd) {
        auto entry = cachedir::read_aot_autograd_entry(*document);
        if (!entry) {
            return std::unexpected(entry.error());
        }
        return cachedir::EntryContent(std::move(*entry));
    }
    return cachedir::EntryContent(cachedir::DynamoProfile{*document});
}

int run_show(const RemoteOptions& options) {
    auto key = remote::remote_key_from_argument(options.key);
    if (!key) {
        return report("'" + options.key +
                      "' is neither a Redis key (pt2:...), an FX graph key (f…) nor an "
                      "AOTAutograd key (a…)");
    }
    auto client = connect(options.url);
    if (!client) {
        return report(client.error());
    }
    auto stored = client->get(key->redis_key);
    if (!stored) {
        return report(stored.error());
    }
    if (!*stored) {
        return report(Error{ErrorKind::NotFound, "no such key on the server",
                            client->endpoint().display() + " " + key->redis_key});
    }
    auto ttl = client->ttl(key->redis_key);
    auto value = remote::decode_value(key->kind, **stored);
    if (!value) {
        return report(std::move(value.error()).at(key->redis_key));
    }
    const bool pickled = key->kind == remote::CacheKind::FxGraph ||
                         key->kind == remote::CacheKind::AotAutograd ||
                         key->kind == remote::CacheKind::DynamoPgo;
    if (!pickled) {
        // Autotune results are JSON already: show them as stored.
        if (options.json) {
            print_json(Json::parse(**stored, nullptr, false));
        } else {
            std::printf("%s %s\n%s\n", std::string(to_string(key->kind)).c_str(),
                        key->redis_key.c_str(), (*stored)->c_str());
        }
        return kExitOk;
    }
    auto payload = std::make_shared<const std::string>(std::move(value->payload));
    auto content = parse_payload(*key, payload);
    if (!content) {
        return report(std::move(content.error()).at(key->redis_key));
    }
    cachedir::Entry entry;
    entry.kind = key->kind == remote::CacheKind::FxGraph       ? cachedir::FileKind::FxGraph
                 : key->kind == remote::CacheKind::AotAutograd ? cachedir::FileKind::AotAutograd
                                                               : cachedir::FileKind::DynamoProfile;
    entry.key = key->key;
    entry.path = key->redis_key;
    entry.size = payload->size();
    if (options.json) {
        Json json = entry_json(entry, *content);
        json["redis_key"] = text(key->redis_key);
        json["time_taken_ms"] = value->time_taken_ms ? Json(*value->time_taken_ms) : Json(nullptr);
        json["ttl"] = ttl ? Json(*ttl) : Json(nullptr);
        print_json(json);
        return kExitOk;
    }
    print_entry(entry, *content, {.source = options.source});
    if (value->time_taken_ms) {
        std::printf("  %-22s %lld ms\n", "time_taken_ms",
                    static_cast<long long>(*value->time_taken_ms));
    }
    return kExitOk;
}

int run_pull(const RemoteOptions& options) {
    if (auto allowed = policy::allow_write(options.dir, policy::RootWrite::Import); !allowed) {
        return report(allowed.error());
    }
    auto client = connect(options.url);
    if (!client) {
        return report(client.error());
    }
    ProgressLine progress("pulling from " + client->endpoint().display() + " into " + options.dir,
                          options.json);
    auto pulled = remote::pull_remote(*client, options.dir,
                                      {.keys = options.keys,
                                       .dry_run = options.dry_run,
                                       .rules = {.trust = {.allowed_ids = options.allow_code}},
                                       .progress = progress.callback()});
    progress.clear();
    if (!pulled) {
        return report_failure(progress, pulled.error(),
                              "pull stopped; the files written are whole, none half; "
                              "run pull again to finish");
    }
    const auto& plan = pulled->plan;
    const std::string target = target_path(options.dir);
    if (options.json) {
        const auto texts = [](const std::vector<std::string>& lines) {
            Json array = Json::array();
            for (const auto& line : lines) {
                array.push_back(text(line));
            }
            return array;
        };
        print_json({{"server", client->endpoint().display()},
                    {"into", text(options.dir)},
                    {"target", text(target)},
                    {"dry_run", options.dry_run},
                    {"clean", pulled->clean()},
                    {"artifacts", plan_artifacts_json(plan)},
                    {"problems", texts(pulled->problems)},
                    {"notes", texts(pulled->notes)}});
    } else {
        print_into(target, plan.creates_cache_dir, options.dry_run);
        print_plan_artifacts(plan, options.dry_run);
        std::printf("%s\n", verdict_summary(plan).c_str());
        for (const auto& problem : pulled->problems) {
            std::printf("not pulled: %s\n", problem.c_str());
        }
        for (const auto& note : pulled->notes) {
            std::printf("note: %s\n", note.c_str());
        }
        std::printf("%zu pulled from %s into %s: %zu %s, %zu already present, %zu conflicts, "
                    "%zu refused, %zu not pulled\n",
                    plan.artifacts.size(), client->endpoint().display().c_str(), target.c_str(),
                    plan.count(options.dry_run ? bundle::ImportAction::Write
                                               : bundle::ImportAction::Written),
                    options.dry_run ? "to write" : "written",
                    plan.count(bundle::ImportAction::AlreadyPresent),
                    plan.count(bundle::ImportAction::Conflict),
                    plan.count(bundle::ImportAction::Refused), pulled->problems.size());
    }
    return pulled->clean() ? kExitOk : kExitProblems;
}

int run_push(const RemoteOptions& options) {
    auto client = connect(options.url);
    if (!client) {
        return report(client.error());
    }
    ProgressLine progress("pushing " + options.dir + " to " + client->endpoint().display(),
                          options.json);
    auto pushed = remote::push_local(*client, options.dir,
                                     {.keys = options.keys,
                                      .dry_run = options.dry_run,
                                      .force = options.force,
                                      .progress = progress.callback()});
    progress.clear();
    if (!pushed) {
        return report_failure(progress, pushed.error(),
                              "push stopped; the values stored are whole, none half; "
                              "run push again to finish");
    }
    if (options.json) {
        Json items = Json::array();
        for (const auto& item : pushed->items) {
            items.push_back({{"cache", std::string(to_string(item.key.kind))},
                             {"key", text(item.key.key)},
                             {"redis_key", text(item.key.redis_key)},
                             {"source", text(item.source)},
                             {"size", item.size},
                             {"action", std::string(to_string(item.action))}});
        }
        Json notes = Json::array();
        for (const auto& note : pushed->notes) {
            notes.push_back(text(note));
        }
        print_json({{"server", client->endpoint().display()},
                    {"target", client->endpoint().display()},
                    {"dry_run", options.dry_run},
                    {"items", items},
                    {"notes", notes}});
    } else {
        for (const auto& item : pushed->items) {
            std::string action(to_string(item.action));
            if (options.dry_run && item.action == remote::PushAction::Set) {
                action = "would set";
            }
            std::printf("%-14s %-9s %10s  %s\n", action.c_str(),
                        std::string(to_string(item.key.kind)).c_str(),
                        format_bytes(item.size).c_str(), item.key.redis_key.c_str());
        }
        for (const auto& note : pushed->notes) {
            std::printf("note: %s\n", note.c_str());
        }
        std::printf("%s to %s: %zu %s, %zu already there, %s%s\n",
                    plural(pushed->items.size(), "entry").c_str(),
                    client->endpoint().display().c_str(), pushed->count(remote::PushAction::Set),
                    options.dry_run ? "to set" : "set",
                    pushed->count(remote::PushAction::AlreadyThere),
                    plural(pushed->count(remote::PushAction::Conflict), "conflict").c_str(),
                    pushed->count(remote::PushAction::Replaced) > 0
                        ? (", " + std::to_string(pushed->count(remote::PushAction::Replaced)) +
                           " replaced (--force)")
                              .c_str()
                        : "");
    }
    return pushed->count(remote::PushAction::Conflict) == 0 ? kExitOk : kExitProblems;
}

} // namespace

void add_remote_command(CLI::App& app, int& exit_code) {
    auto* command = app.add_subcommand(
        "remote", "PyTorch's Redis remote cache (TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE=1, ...): "
                  "browse it, pull entries into a cache dir, push local entries to it. URL: "
                  "redis://[[user]:password@]host[:port][/db], or host[:port]");
    command->require_subcommand(1);
    auto options = std::make_shared<RemoteOptions>();
    const char* url_help = "the Redis server: redis://[[user]:password@]host[:port][/db]";

    auto* ls = command->add_subcommand(
        "ls", "List the entries of PyTorch's caches on the server (SCAN, never KEYS): cache, "
              "size, time to live, key");
    ls->add_option("URL", options->url, url_help)->required();
    ls->add_option("--cache", options->cache,
                   "only fx-graph, aot, autotune, bundled-autotune or pgo");
    ls->add_flag("--json", options->json, "print [{cache, cache_id, key, redis_key, size, ttl}]");
    ls->callback([options, &exit_code] { exit_code = run_ls(*options); });

    auto* show = command->add_subcommand(
        "show", "Show one entry, parsed as `cachelens show` parses a local one (guards, debug "
                "lines, kernels, graphs), without running anything");
    show->add_option("URL", options->url, url_help)->required();
    show->add_option("KEY", options->key, "an FX graph key (f…), an AOT key (a…) or a Redis key")
        ->required();
    show->add_flag("--source", options->source, "print source code and graphs in full");
    show->add_flag("--json", options->json,
                   "print what `show --json` prints, plus redis_key, "
                   "time_taken_ms and ttl");
    show->callback([options, &exit_code] { exit_code = run_show(*options); });

    auto* pull = command->add_subcommand(
        "pull", "Write remote entries into a cache dir where PyTorch writes a remote hit, with "
                "the safety checks and verdicts of `cachelens import` (refused entries are "
                "never written; a value is as untrusted as a bundle). Exit 1 when something was "
                "refused or conflicts, a value does not decode or a named key is not on the "
                "server; 2 when an --allow-code id is not one of the findings");
    pull->add_option("URL", options->url, url_help)->required();
    pull->add_option("--into", options->dir, "the cache dir (created when missing)")->required();
    pull->add_option("KEY", options->keys, "FX graph, AOT or Redis keys (default: everything)");
    pull->add_flag("--dry-run", options->dry_run, "show what would be written; write nothing");
    pull->add_option("--allow-code", options->allow_code,
                     "finding ids (as the report prints them) to let in after reading them");
    pull->add_flag("--json", options->json,
                   "print {server, into, target (into, absolute), dry_run, clean, artifacts: "
                   "[{type, key, size, sha256, destination, parses_to, action, verdict, consent, "
                   "code, findings: [{id, rule, file, line, text, why}], problems, notes}], "
                   "problems, notes}");
    pull->callback([options, &exit_code] { exit_code = run_pull(*options); });

    auto* push = command->add_subcommand(
        "push", "Store local FX graph and AOT entries (with what they link to) and dynamo "
                "profiles on the server, as PyTorch stores them ({\"data\": base64(pickle), "
                "\"time_taken_ms\": N}). A key holding other data is a conflict, left alone "
                "unless --force. Exit 1 on conflicts");
    push->add_option("DIR", options->dir, "the cache dir")->required();
    push->add_option("URL", options->url, url_help)->required();
    push->add_option("KEY", options->keys, "FX graph or AOT keys (default: the whole dir)");
    push->add_flag("--dry-run", options->dry_run, "show what would be stored; store nothing");
    push->add_flag("--force", options->force, "replace other data under existing keys");
    push->add_flag("--json", options->json,
                   "print {server, target (the server), dry_run, items: [{cache, key, redis_key, "
                   "source, size, action}], notes}");
    push->callback([options, &exit_code] { exit_code = run_push(*options); });
}

} // namespace cachelens::cli
