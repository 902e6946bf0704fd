#pragma once

// The GUI's Redis work that runs in jobs, kept out of the widgets: mirroring
// a server into a root, pulling and pushing selected entries, and what the
// sidebar and the dialogs need to know about a mirror root.
//
// A Redis server is one more root: its entries are mirrored into a dir
// beside the catalog and indexed like any other, with an origin file naming
// the server; remote/mirror.h owns that layout, the same for the CLI's
// `index redis://...`. The GUI treats a mirror root as read-only.

#include "data/entry_ref.h"
#include "jobs/job_tracker.h"

#include <cachelens/bundle/import.h>
#include <cachelens/explain/preflight.h>
#include <cachelens/remote/redis_endpoint.h>
#include <cachelens/remote/remote_ops.h>

#include <QString>
#include <QStringList>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::ui::remote_work {

// remote::mirror_base(): where mirror_dir_for puts every server's mirror.
std::filesystem::path mirrorBase(const std::filesystem::path& catalogPath);
// remote::is_mirror_root().
bool isMirrorRoot(const std::filesystem::path& root, const std::filesystem::path& base);
// remote::mirror_origin(): the server `root` mirrors, as display() wrote it.
std::optional<QString> mirrorOrigin(const std::filesystem::path& root);
// The endpoint to reach `root`'s server with: its origin, with the password
// of PyTorch's environment (TORCHINDUCTOR_REDIS_URL) when that names the
// same server.
std::optional<remote::RedisEndpoint> mirrorEndpoint(const std::filesystem::path& root);

// Where the Add Redis Server dialog starts: PyTorch's server
// (endpoint_from_environment()), as a URL without its password, and the
// password on its own.
QString defaultUrl();
QString defaultPassword();

// A URL as typed (redis://..., host:port) with `password`, when not empty,
// in place of the URL's own; the engine's message when it does not parse.
Result<remote::RedisEndpoint> parseEndpoint(const QString& url, const QString& password = {});

// Whether two endpoints name the same server and db (the same mirror dir).
bool sameServer(const remote::RedisEndpoint& a, const remote::RedisEndpoint& b);

enum class MirrorStage { Connecting, Scanning, Pulling };
// Called as the work goes on: `found` keys so far while scanning; false
// stops it (only before the values are pulled).
using MirrorProgress = std::function<bool(MirrorStage stage, std::size_t found)>;
// "Connecting to redis://...…", "Scanning redis://...: 120 keys found…", "Mirroring 19 keys of
// redis://...…".
QString progressText(MirrorStage stage, std::size_t found, const QString& server);
// A mirroring's error, naming the server once: the engine's words when they do.
QString mirrorErrorText(const Error& error, const QString& server);
// Reports each stage's progressText() through `context` (done: the keys
// found; total: 0, as the total is not known) when it says something new,
// and stops once it is cancelled.
MirrorProgress jobProgress(const JobContext& context, const QString& server);

struct MirrorOutcome {
    QString server;             // display()
    std::filesystem::path root; // the mirror dir
    std::size_t keys = 0;       // PyTorch's keys on the server
    std::size_t pulled = 0;
    std::size_t unchanged = 0;
    std::size_t removed = 0;
    QStringList notes; // refused values, skipped caches

    // "19 keys on redis://127.0.0.1:6379/0: 19 pulled, 0 unchanged, 0 removed"
    QString summary() const;
};

// Connects, scans PyTorch's keys (for progress and cancel), mirrors the
// server through remote::mirror_server() (which records its origin). An
// error when it could not connect, scan or mirror; a Cancelled one when
// `progress` stopped it.
Result<MirrorOutcome> mirrorServer(const remote::RedisEndpoint& endpoint,
                                   const std::filesystem::path& catalogPath,
                                   const MirrorProgress& progress = {});

// What a pull or a push is doing (the engine's Progress of it), for a
// dialog's status line: "Scanning redis://...: 120 keys found…", "Reading 19
// values from redis://...…", "Writing 19 files into DIR…"; a push: "Reading
// 12 files from DIR…", "Comparing 19 keys with redis://...…", "Storing 3
// values on redis://...…".
enum class Transfer { Pull, Push };
QString transferText(Transfer transfer, const Progress& progress, const QString& server,
                     const QString& dir);
// Reports the transferText() of each stage through `context` and stops the
// transfer once the job is cancelled.
ProgressFn transferProgress(const JobContext& context, Transfer transfer, const QString& server,
                            const QString& dir);

struct PullOutcome {
    QString server;
    bundle::ImportPlan plan; // as pull_remote returns it
    QStringList problems;    // values that do not decode, keys not on the server
    QStringList notes;       // values with nothing to pull
    bool dryRun = true;
    // A dry run: will the values hit on the machine `into` was made on (its
    // FX entries)? Unknown (NotFound) when it has none.
    Result<explain::TargetCheck> preflight;
};
// `cachelens remote pull URL --into DIR KEYS [--dry-run] [--allow-code ID...]`;
// an error when the server cannot be reached or read.
Result<PullOutcome> pullEntries(const remote::RedisEndpoint& endpoint,
                                const std::vector<std::string>& keys,
                                const std::filesystem::path& into, bool dryRun,
                                const std::vector<std::string>& allowedFindings,
                                const ProgressFn& progress = {});

struct PushOutcome {
    QString server;
    remote::PushResult result;
    bool dryRun = true;
    bool force = false;
};
// `cachelens remote push DIR URL KEYS [--dry-run] [--force]`; no keys: the whole
// dir. An error when the dir or the server cannot be read.
Result<PushOutcome> pushEntries(const remote::RedisEndpoint& endpoint,
                                const std::filesystem::path& dir,
                                const std::vector<std::string>& keys, bool dryRun, bool force,
                                const ProgressFn& progress = {});

} // namespace cachelens::ui::remote_work
