#include <cachelens/bundle/import.h>
#include <cachelens/core/dir_handle.h>

#include <system_error>

namespace cachelens::bundle {

namespace {

void fail_artifact(PlannedArtifact& artifact, const Error& error) {
    artifact.action = ImportAction::Failed;
    artifact.notes.push_back((error.path.empty() ? "" : error.path + ": ") + error.message);
}

// At most this many files (each holding its directory open) or bytes wait
// for one flush: two syncfs per 64 files instead of two fsyncs per file, and
// a cancel or a crash leaves at most one batch's temp files behind.
constexpr std::size_t kBatchFiles = 64;
constexpr std::size_t kBatchBytes = std::size_t{64} << 20;

struct Destination {
    std::string dir;
    std::string name;
};

Destination split_destination(const std::string& destination) {
    const auto slash = destination.rfind('/');
    if (slash == std::string::npos) {
        return {"", destination};
    }
    return {destination.substr(0, slash), destination.substr(slash + 1)};
}

// Stages `artifact`'s bytes in `batch`; false when it was refused or failed
// (its action says which).
bool stage_artifact(const DirHandle& root, std::string_view content, PlannedArtifact& artifact,
                    DurableWriteBatch& batch) {
    const auto [dir_path, name] = split_destination(artifact.check.destination);
    auto dir = root.make_beneath(dir_path);
    if (!dir) {
        // A directory swapped for a symlink since planning lands here.
        artifact.action = ImportAction::Refused;
        artifact.check.problems.push_back(dir.error().path + ": " + dir.error().message);
        return false;
    }
    if (auto staged = batch.stage(*dir, name, content, DirHandle::WriteMode::CreateOnly); !staged) {
        fail_artifact(artifact, staged.error());
        return false;
    }
    return true;
}

// What the batch's commit did with `artifact`'s file.
void settle_artifact(const DirHandle& root, std::string_view content, PlannedArtifact& artifact,
                     const Result<bool>& placed) {
    if (!placed) {
        fail_artifact(artifact, placed.error());
        return;
    }
    if (*placed) {
        artifact.action = ImportAction::Written;
        return;
    }
    // Someone (PyTorch, most likely) wrote it meanwhile.
    const auto [dir_path, name] = split_destination(artifact.check.destination);
    auto dir = root.open_beneath(dir_path);
    auto existing = dir ? dir->read_file(name, content.size())
                        : Result<std::optional<std::string>>(std::unexpected(dir.error()));
    if (existing && *existing && **existing == content) {
        artifact.action = ImportAction::AlreadyPresent;
    } else {
        artifact.action = ImportAction::Conflict;
        artifact.notes.push_back(artifact.check.destination +
                                 " appeared with other bytes while importing: left alone");
    }
}

} // namespace

ImportPlan run_import(ImportPlan plan, const MegaBundle& bundle, const ProgressFn& progress) {
    Progress written{.stage = ProgressStage::Writing,
                     .unit = ProgressUnit::Files,
                     .done = 0,
                     .total = plan.count(ImportAction::Write),
                     .bytes = 0,
                     .item = {}};
    if (written.total == 0) {
        return plan;
    }
    if (!report_progress(progress, written)) {
        plan.cancelled = true;
        return plan;
    }
    std::error_code error;
    if (plan.creates_cache_dir) {
        std::filesystem::create_directories(plan.cache_dir, error);
    }
    auto root = DirHandle::open_root(plan.cache_dir);
    const auto content_of = [&](const PlannedArtifact& artifact) -> std::string_view {
        return bundle.sections[artifact.section].artifacts[artifact.index].content;
    };
    // Files are written to temp files in batches, flushed once per batch and
    // only then renamed into place: each is whole or absent after a crash.
    DurableWriteBatch batch;
    std::vector<PlannedArtifact*> staged;
    const auto commit = [&] {
        const auto outcomes = batch.commit();
        for (std::size_t i = 0; i < staged.size(); ++i) {
            settle_artifact(*root, content_of(*staged[i]), *staged[i], outcomes[i]);
        }
        staged.clear();
    };
    for (auto& artifact : plan.artifacts) {
        if (artifact.action != ImportAction::Write) {
            continue;
        }
        const std::string_view content = content_of(artifact);
        if (error) {
            fail_artifact(artifact,
                          Error{ErrorKind::Io, "cannot create the cache dir: " + error.message(),
                                plan.cache_dir.string()});
        } else if (!root) {
            fail_artifact(artifact, root.error());
        } else if (stage_artifact(*root, content, artifact, batch)) {
            staged.push_back(&artifact);
            if (batch.staged() >= kBatchFiles || batch.staged_bytes() >= kBatchBytes) {
                commit();
            }
        }
        ++written.done;
        written.bytes += content.size();
        written.item = artifact.check.destination;
        // Between files: what was staged is still put in place, whole; the
        // rest stays Write.
        if (!report_progress(progress, written) && written.done < written.total) {
            plan.cancelled = true;
            break;
        }
    }
    if (!staged.empty()) {
        commit();
    }
    return plan;
}

} // namespace cachelens::bundle
