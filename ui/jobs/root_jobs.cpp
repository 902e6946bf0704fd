#include "jobs/root_jobs.h"

#include "jobs/bundle_work.h"
#include "jobs/remote_work.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/stats_text.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/remote/mirror.h>

#include <algorithm>

namespace cachelens::ui {

namespace fs = std::filesystem;

RootJobs::RootJobs(JobPool& pool, const QString& catalogPath, QObject* parent)
    : QObject(parent)
    , pool_(pool)
    , catalogPath_(catalogPath)
    , stagingBase_(bundle_work::stagingBase())
    , mirrorBase_(remote_work::mirrorBase(catalogPath.toStdString())) {
    connect(this, &RootJobs::rootIndexed, this, &RootJobs::onIndexed);
}

RootJobs::~RootJobs() = default;

JobTracker* RootJobs::tracker(const RootJobId& job) {
    JobTracker*& tracker = trackers_[job];
    if (tracker == nullptr) {
        tracker = new JobTracker(pool_, this);
        const bool mirror = job.purpose == RootJobId::Purpose::Mirror;
        connect(tracker, &JobTracker::progress, this,
                [this, mirror](qint64 done, qint64 total, const QString& what) {
                    // How many keys a server holds is not known while it is mirrored.
                    emit progress(mirror ? 0 : done, mirror ? 0 : total, what);
                });
    }
    return tracker;
}

void RootJobs::jobStarted(const RootJobId& job) {
    running_.push_back(job);
    if (running_.size() == 1) {
        emit busyChanged(true);
    }
}

void RootJobs::jobEnded(const RootJobId& job) {
    if (auto it = std::ranges::find(running_, job); it != running_.end()) {
        running_.erase(it);
    }
    --pending_;
    if (running_.empty()) {
        emit busyChanged(false);
    }
}

void RootJobs::cancel() {
    for (const RootJobId& job : running_) {
        tracker(job)->cancel();
    }
}

void RootJobs::index(const fs::path& dir) {
    runIndex(dir, {});
}

void RootJobs::indexPaths(const fs::path& dir, std::vector<std::string> paths) {
    if (!paths.empty()) {
        runIndex(dir, std::move(paths));
    }
}

void RootJobs::runIndex(const fs::path& dir, std::vector<std::string> paths) {
    const RootJobId job{RootJobId::Purpose::Index, catalog::root_location(dir), 0};
    ++pending_;
    jobStarted(job);
    emit progress(0, 0, {});
    emit statusMessage(tr("Indexing %1…").arg(text(dir.string())));
    const fs::path catalogPath = catalogPath_.toStdString();
    const bool whole = paths.empty();
    tracker(job)->run<Result<catalog::IndexReport>>(
        [catalogPath, dir,
         paths = std::move(paths)](const JobContext& context) -> Result<catalog::IndexReport> {
            auto catalog = catalog::Catalog::open(catalogPath);
            if (!catalog) {
                return std::unexpected(std::move(catalog.error()));
            }
            catalog::IndexOptions options;
            const QString name = text(dir.filename().string());
            options.progress = context.engineProgress([name](const Progress& progress) {
                if (progress.stage == ProgressStage::Scanning) {
                    return QObject::tr("Indexing %1: %2 found…")
                        .arg(name, counted(progress.done, "file"));
                }
                return QObject::tr("Indexing %1: %2 of %3 entries")
                    .arg(name)
                    .arg(progress.done)
                    .arg(progress.total);
            });
            return paths.empty() ? catalog->index(dir, options)
                                 : catalog->index_paths(dir, paths, options);
        },
        [this, job, whole](Result<catalog::IndexReport> report) {
            jobEnded(job);
            if (!report) {
                emit failed(text(report.error().describe()));
                emit settled();
                return;
            }
            const QString root = text(report->root);
            QString message =
                whole ? tr("%1: %2 entries (%3 parsed, %4 unchanged, %5 removed, %6 parse "
                           "errors)")
                            .arg(root)
                            .arg(report->entries)
                            .arg(report->parsed)
                            .arg(report->unchanged)
                            .arg(report->removed)
                            .arg(report->parse_errors)
                      : tr("%1: %2 entries (%3 written since, %4 removed, %5 parse errors)")
                            .arg(root)
                            .arg(report->entries)
                            .arg(report->parsed)
                            .arg(report->removed)
                            .arg(report->parse_errors);
            if (!report->being_written.empty()) {
                message += tr("; %n being written, indexed next time", nullptr,
                              static_cast<int>(report->being_written.size()));
            }
            emit statusMessage(message);
            emit rootsChanged();
            emit rootIndexed(root);
            emit settled();
        },
        [this, job](bool delivered) {
            if (delivered) {
                return; // ended above
            }
            // Cancelled (or indexed again meanwhile): no outcome comes.
            jobEnded(job);
            emit statusMessage(tr("Indexing cancelled; what was indexed is kept."));
            emit rootsChanged();
            emit settled();
        });
}

void RootJobs::openBundle(const fs::path& file) {
    ++pending_; // settled() waits for the bundle's root too
    emit statusMessage(tr("Reading bundle %1…").arg(text(file.string())));
    const fs::path base = stagingBase_;
    // One tracker per bundle opened: opening a second must not drop the first.
    const RootJobId job{RootJobId::Purpose::Bundle, {}, ++jobCount_};
    tracker(job)->run<Result<bundle_work::StagedBundle>>(
        [file, base](const JobContext&) { return bundle_work::stageBundle(file, base); },
        [this, file](Result<bundle_work::StagedBundle> staged) {
            if (!staged) {
                --pending_;
                emit failed(tr("Cannot open the bundle %1: %2")
                                .arg(text(file.string()), text(staged.error().describe())));
                emit settled();
                return;
            }
            bundlesIndexing_.append(text(catalog::root_location(staged->root)));
            index(staged->root); // counted in pending_ before this one is let go
            --pending_;
        });
}

void RootJobs::addRedisServer(const remote::RedisEndpoint& endpoint) {
    ++pending_; // settled() waits for the server's root too
    const QString server = text(endpoint.display());
    // One tracker per mirroring: adding a second server must not drop the first.
    const RootJobId job{RootJobId::Purpose::Mirror, {}, ++jobCount_};
    jobStarted(job);
    emit progress(0, 0, {});
    emit statusMessage(remote_work::progressText(remote_work::MirrorStage::Connecting, 0, server));
    const fs::path catalogPath = catalogPath_.toStdString();
    tracker(job)->run<Result<remote_work::MirrorOutcome>>(
        [endpoint, catalogPath, server](const JobContext& context) {
            return remote_work::mirrorServer(endpoint, catalogPath,
                                             remote_work::jobProgress(context, server));
        },
        [this, endpoint, job, server](Result<remote_work::MirrorOutcome> mirrored) {
            if (!mirrored) {
                jobEnded(job);
                emit failed(tr("Cannot add the Redis server: %1")
                                .arg(remote_work::mirrorErrorText(mirrored.error(), server)));
                emit settled();
                return;
            }
            addMirrored(endpoint, *mirrored); // indexes: counted before this one is let go
            jobEnded(job);
        },
        [this, job](bool delivered) {
            if (delivered) {
                return; // ended above
            }
            jobEnded(job);
            emit statusMessage(tr("Mirroring cancelled: nothing changed."));
            emit settled();
        });
}

void RootJobs::addMirrored(const remote::RedisEndpoint& endpoint,
                           const remote_work::MirrorOutcome& outcome) {
    const std::string location = catalog::root_location(outcome.root);
    endpoints_[location] = endpoint;
    mirrorReports_[location] = QStringList{outcome.summary()} + outcome.notes;
    redisIndexing_.append(text(location));
    index(outcome.root);
}

bool RootJobs::refreshRedisRoot(const fs::path& root) {
    const auto endpoint = endpointOf(root);
    if (!endpoint) {
        emit statusMessage(tr("%1 is not a Redis server's mirror.").arg(text(root.string())));
        return false;
    }
    addRedisServer(*endpoint);
    return true;
}

void RootJobs::onIndexed(const QString& root) {
    if (redisIndexing_.removeOne(root)) {
        const auto report = mirrorReports_.find(root.toStdString());
        if (report != mirrorReports_.end()) {
            emit statusMessage(tr("Mirrored %1").arg(report->second.value(0)));
        }
        emit redisRootAdded(root);
        return;
    }
    if (bundlesIndexing_.removeOne(root)) {
        const fs::path dir = root.toStdString();
        emit statusMessage(tr("Bundle %1 opened read-only: %2")
                               .arg(text(dir.filename().string()),
                                    bundle_work::stagedReport(dir).section(u'\n', 0, 0)));
        emit bundleOpened(root);
    }
}

bool RootJobs::isReadOnlyRoot(const fs::path& root) const {
    return bundle_work::isStagedBundle(root, stagingBase_) || isRedisRoot(root);
}

bool RootJobs::isRedisRoot(const fs::path& root) const {
    return remote_work::isMirrorRoot(root, mirrorBase_);
}

RootProvenance RootJobs::provenance(const fs::path& root) const {
    RootProvenance provenance;
    if (isRedisRoot(root)) {
        provenance.kind = RootProvenance::Kind::Redis;
        provenance.origin = remote_work::mirrorOrigin(root).value_or(QString());
        if (const auto report = mirrorReports_.find(catalog::root_location(root));
            report != mirrorReports_.end()) {
            provenance.report = report->second;
        }
    } else if (isReadOnlyRoot(root)) {
        provenance.kind = RootProvenance::Kind::Bundle;
        if (const auto origin = bundle_work::stagedOrigin(root)) {
            provenance.origin = text(origin->string());
        }
        provenance.report = bundle_work::stagedReport(root).split(u'\n', Qt::SkipEmptyParts);
    }
    return provenance;
}

std::optional<remote::RedisEndpoint> RootJobs::endpointOf(const fs::path& root) const {
    if (!isRedisRoot(root)) {
        return std::nullopt;
    }
    if (auto known = endpoints_.find(catalog::root_location(root)); known != endpoints_.end()) {
        return known->second;
    }
    return remote_work::mirrorEndpoint(root);
}

fs::path RootJobs::mirrorDirOf(const remote::RedisEndpoint& endpoint) const {
    return remote::mirror_dir_for(fs::absolute(catalogPath_.toStdString()), endpoint);
}

} // namespace cachelens::ui
