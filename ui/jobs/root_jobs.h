#pragma once

// The roots the window shows and the background work that brings them in:
// indexing a cache dir, staging a bundle (jobs/bundle_work.h) and mirroring a
// Redis server (jobs/remote_work.h), each then indexed into the catalog. It
// knows which roots are read-only (a staged bundle, a server's mirror) and
// where each came from. No widgets: the window shows its progress and
// status, the Browse page follows its signals.

#include "data/root_provenance.h"
#include "jobs/job_tracker.h"

#include <cachelens/remote/redis_endpoint.h>

#include <QObject>
#include <QString>
#include <QStringList>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::ui {

namespace remote_work {
struct MirrorOutcome;
}

// Which root job a tracker runs: its purpose, and the root (an index) or a
// serial number (a bundle staged, a server mirrored). Indexing a dir again
// supersedes the older index of it; every bundle and mirror job is its own.
struct RootJobId {
    enum class Purpose { Index, Bundle, Mirror };
    Purpose purpose = Purpose::Index;
    std::string root; // Index: the dir's catalog location
    int serial = 0;   // Bundle, Mirror

    auto operator<=>(const RootJobId&) const = default;
};

class RootJobs : public QObject {
    Q_OBJECT

public:
    RootJobs(JobPool& pool, const QString& catalogPath, QObject* parent = nullptr);
    ~RootJobs() override;

    // Indexes `dir` in the background; rootIndexed() when done.
    void index(const std::filesystem::path& dir);
    // Indexes only the entries the files `paths` (relative to `dir`) belong
    // to (Catalog::index_paths): what a watch saw written; rootIndexed() too.
    void indexPaths(const std::filesystem::path& dir, std::vector<std::string> paths);
    // Stages the bundle `file`'s safe artifacts, then indexes the staged dir;
    // bundleOpened() when done.
    void openBundle(const std::filesystem::path& file);
    // Mirrors `endpoint`'s server, then indexes the mirror; redisRootAdded()
    // when done. Mirroring a server shown already refreshes its root.
    void addRedisServer(const remote::RedisEndpoint& endpoint);
    // A server mirrored elsewhere (the Add Redis Server dialog): indexes it.
    void addMirrored(const remote::RedisEndpoint& endpoint,
                     const remote_work::MirrorOutcome& outcome);
    // Mirrors a Redis root's server again; false when `root` is none.
    bool refreshRedisRoot(const std::filesystem::path& root);
    // Asks every index and mirror job to stop.
    void cancel();

    // A staged bundle or a Redis server's mirror: no prune, no bench accept.
    bool isReadOnlyRoot(const std::filesystem::path& root) const;
    bool isRedisRoot(const std::filesystem::path& root) const;
    RootProvenance provenance(const std::filesystem::path& root) const;
    // The server a Redis root mirrors, with the password it was added with
    // in this session.
    std::optional<remote::RedisEndpoint> endpointOf(const std::filesystem::path& root) const;
    // The dir a server is mirrored into.
    std::filesystem::path mirrorDirOf(const remote::RedisEndpoint& endpoint) const;
    // Roots asked for and not yet indexed (or failed).
    int pending() const { return pending_; }

signals:
    // An index or mirror job started, or the last one ended.
    void busyChanged(bool busy);
    // Of the running index or mirror jobs: `total` 0 while not known.
    void progress(qint64 done, qint64 total, const QString& what);
    void statusMessage(const QString& message);
    void failed(const QString& message);
    // The catalog's roots changed (indexed, or an index cancelled part way).
    void rootsChanged();
    void rootIndexed(const QString& root);
    // A bundle was staged and indexed (`root` is its staged dir).
    void bundleOpened(const QString& root);
    // A Redis server was mirrored and indexed (`root` is its mirror dir).
    void redisRootAdded(const QString& root);
    // A root asked for is in, or failed: pending() went down.
    void settled();

private:
    JobTracker* tracker(const RootJobId& job);
    void jobStarted(const RootJobId& job);
    void jobEnded(const RootJobId& job);
    void onIndexed(const QString& root);
    // index() and indexPaths(): the whole dir when `paths` is empty.
    void runIndex(const std::filesystem::path& dir, std::vector<std::string> paths);

    JobPool& pool_;
    std::map<RootJobId, JobTracker*> trackers_;
    QString catalogPath_;
    std::filesystem::path stagingBase_; // where opened bundles are staged
    std::filesystem::path mirrorBase_;  // where Redis servers are mirrored
    int pending_ = 0;
    std::vector<RootJobId> running_; // the index and mirror jobs running
    int jobCount_ = 0;               // for the serial numbers of bundle and mirror jobs
    QStringList bundlesIndexing_;    // staged roots to announce once indexed
    QStringList redisIndexing_;      // mirror roots to announce once indexed
    // Root location -> the server it mirrors (with its password, never
    // written to disk) and what its last mirroring reported.
    std::map<std::string, remote::RedisEndpoint> endpoints_;
    std::map<std::string, QStringList> mirrorReports_;
};

} // namespace cachelens::ui
