#include "jobs/remote_work.h"

#include "jobs/bundle_work.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/stats_text.h"

#include <cachelens/remote/mirror.h>
#include <cachelens/remote/redis_client.h>

#include <QObject>

#include <algorithm>
#include <map>
#include <system_error>

namespace cachelens::ui::remote_work {

namespace fs = std::filesystem;

fs::path mirrorBase(const fs::path& catalogPath) {
    return remote::mirror_base(catalogPath);
}

bool isMirrorRoot(const fs::path& root, const fs::path& base) {
    return remote::is_mirror_root(root, base);
}

std::optional<QString> mirrorOrigin(const fs::path& root) {
    const auto origin = remote::mirror_origin(root);
    if (!origin) {
        return std::nullopt;
    }
    return text(*origin);
}

std::optional<remote::RedisEndpoint> mirrorEndpoint(const fs::path& root) {
    const auto origin = mirrorOrigin(root);
    if (!origin) {
        return std::nullopt;
    }
    auto endpoint = remote::parse_redis_endpoint(origin->toStdString());
    if (!endpoint) {
        return std::nullopt;
    }
    // The origin holds no password; PyTorch's environment may, for this server.
    if (auto environment = remote::try_endpoint_from_environment();
        environment && sameServer(*environment, *endpoint)) {
        endpoint->password = environment->password;
        if (!endpoint->username) {
            endpoint->username = environment->username;
        }
        endpoint->timeout = environment->timeout;
    }
    return std::move(*endpoint);
}

QString defaultUrl() {
    return text(remote::endpoint_from_environment().display());
}

QString defaultPassword() {
    return text(remote::endpoint_from_environment().password.value_or(std::string()));
}

Result<remote::RedisEndpoint> parseEndpoint(const QString& url, const QString& password) {
    auto endpoint = remote::parse_redis_endpoint(url.trimmed().toStdString());
    if (endpoint && !password.isEmpty()) {
        endpoint->password = password.toStdString();
    }
    return endpoint;
}

bool sameServer(const remote::RedisEndpoint& a, const remote::RedisEndpoint& b) {
    return a.host == b.host && a.port == b.port && a.db == b.db;
}

QString progressText(MirrorStage stage, std::size_t found, const QString& server) {
    switch (stage) {
    case MirrorStage::Connecting:
        return QObject::tr("Connecting to %1…").arg(server);
    case MirrorStage::Scanning:
        return QObject::tr("Scanning %1: %2 found…").arg(server, counted(found, "key"));
    case MirrorStage::Pulling:
        return QObject::tr("Mirroring %1 of %2…").arg(counted(found, "key"), server);
    }
    return {};
}

MirrorProgress jobProgress(const JobContext& context, const QString& server) {
    // Mirroring reports as each round of values is read and each file
    // written; the text changes with the stage and the keys found.
    return [&context, server, shown = QString()](MirrorStage stage, std::size_t found) mutable {
        QString text = progressText(stage, found, server);
        if (text != shown) {
            context.progress(static_cast<qint64>(found), 0, text);
            shown = std::move(text);
        }
        return !context.cancelled();
    };
}

QString MirrorOutcome::summary() const {
    return QObject::tr("%1 on %2: %3 pulled, %4 unchanged, %5 removed")
        .arg(counted(keys, "key"), server)
        .arg(pulled)
        .arg(unchanged)
        .arg(removed);
}

QString mirrorErrorText(const Error& error, const QString& server) {
    const QString described = text(error.describe());
    if (described.contains(server)) {
        return described;
    }
    return QObject::tr("%1: %2").arg(server, described);
}

Result<MirrorOutcome> mirrorServer(const remote::RedisEndpoint& endpoint,
                                   const fs::path& catalogPath, const MirrorProgress& progress) {
    MirrorOutcome outcome;
    outcome.server = text(endpoint.display());
    bool stopped = false;
    const auto report = [&progress, &stopped](MirrorStage stage, std::size_t found) {
        stopped = progress && !progress(stage, found);
        return !stopped;
    };
    report(MirrorStage::Connecting, 0);
    auto client = remote::RedisClient::connect(endpoint);
    if (!client) {
        return std::unexpected(std::move(client.error()));
    }
    auto mirrored =
        remote::mirror_server(*client, endpoint, catalogPath, [&](const Progress& reported) {
            if (reported.stage == ProgressStage::Scanning) {
                return report(MirrorStage::Scanning, reported.done);
            }
            if (reported.stage == ProgressStage::Reading) {
                outcome.keys = reported.total;
            }
            return report(MirrorStage::Pulling, outcome.keys);
        });
    if (!mirrored) {
        if (stopped) {
            return fail(ErrorKind::Cancelled, "cancelled");
        }
        return std::unexpected(std::move(mirrored.error()));
    }
    outcome.root = mirrored->dir;
    outcome.pulled = mirrored->pulled;
    outcome.unchanged = mirrored->unchanged;
    outcome.removed = mirrored->removed;
    for (const auto& note : mirrored->notes) {
        outcome.notes << text(note);
    }
    return outcome;
}

QString transferText(Transfer transfer, const Progress& progress, const QString& server,
                     const QString& dir) {
    const bool pull = transfer == Transfer::Pull;
    switch (progress.stage) {
    case ProgressStage::Scanning:
        return QObject::tr("Scanning %1: %2 found…").arg(server, counted(progress.done, "key"));
    case ProgressStage::Reading:
        return pull ? QObject::tr("Reading %1 from %2…")
                          .arg(counted(progress.total, "value"), server)
                    : QObject::tr("Reading %1 from %2…").arg(counted(progress.done, "file"), dir);
    case ProgressStage::Checking:
        return QObject::tr("Comparing %1 with %2…").arg(counted(progress.total, "key"), server);
    case ProgressStage::Writing:
        return pull
                   ? QObject::tr("Writing %1 into %2…").arg(counted(progress.total, "file"), dir)
                   : QObject::tr("Storing %1 on %2…").arg(counted(progress.total, "value"), server);
    case ProgressStage::Parsing:
    case ProgressStage::Deleting:
    case ProgressStage::Benchmarking:
        break; // not stages of a transfer
    }
    return {};
}

ProgressFn transferProgress(const JobContext& context, Transfer transfer, const QString& server,
                            const QString& dir) {
    return context.engineProgress([transfer, server, dir](const Progress& progress) {
        return transferText(transfer, progress, server, dir);
    });
}

Result<PullOutcome> pullEntries(const remote::RedisEndpoint& endpoint,
                                const std::vector<std::string>& keys, const fs::path& into,
                                bool dryRun, const std::vector<std::string>& allowedFindings,
                                const ProgressFn& progress) {
    auto client = remote::RedisClient::connect(endpoint);
    if (!client) {
        return std::unexpected(std::move(client.error()));
    }
    auto pulled = remote::pull_remote(
        *client, into,
        {.keys = keys,
         .dry_run = dryRun,
         .rules = {.max_artifact_bytes = bundle::ImportRules{}.max_artifact_bytes,
                   .trust = {.allowed_ids = allowedFindings, .signed_by_trusted_key = false}},
         .progress = progress});
    if (!pulled) {
        return std::unexpected(std::move(pulled.error()));
    }
    PullOutcome outcome{.server = text(endpoint.display()),
                        .plan = std::move(pulled->plan),
                        .problems = {},
                        .notes = {},
                        .dryRun = dryRun,
                        .preflight = fail(ErrorKind::NotFound, "not a dry run")};
    if (dryRun) {
        outcome.preflight = explain::preflight_against(
            explain::preflight_source(pulled->values, endpoint.display()), into, progress);
    }
    for (const auto& problem : pulled->problems) {
        outcome.problems << text(problem);
    }
    for (const auto& note : pulled->notes) {
        outcome.notes << text(note);
    }
    return outcome;
}

Result<PushOutcome> pushEntries(const remote::RedisEndpoint& endpoint, const fs::path& dir,
                                const std::vector<std::string>& keys, bool dryRun, bool force,
                                const ProgressFn& progress) {
    auto client = remote::RedisClient::connect(endpoint);
    if (!client) {
        return std::unexpected(std::move(client.error()));
    }
    auto pushed = remote::push_local(
        *client, dir, {.keys = keys, .dry_run = dryRun, .force = force, .progress = progress});
    if (!pushed) {
        return std::unexpected(std::move(pushed.error()));
    }
    return PushOutcome{.server = text(endpoint.display()),
                       .result = std::move(*pushed),
                       .dryRun = dryRun,
                       .force = force};
}

} // namespace cachelens::ui::remote_work
