#include <cachelens/bundle/import.h>
#include <cachelens/core/dir_handle.h>

#include <system_error>

namespace cachelens::bundle {

namespace {

void fail_artifact(PlannedArtifact& artifact, const Error& error) {
    artifact.action = ImportAction::Failed;
    artifact.notes.push_back((error.path.empty() ? "" : error.path + ": ") + error.message);
}

void write_artifact(const DirHandle& root, std::string_view content, PlannedArtifact& artifact) {
    const std::string& destination = artifact.check.destination;
    const auto slash = destination.rfind('/');
    const std::string dir_path = slash == std::string::npos ? "" : destination.substr(0, slash);
    const std::string name =
        slash == std::string::npos ? destination : destination.substr(slash + 1);
    auto dir = root.make_beneath(dir_path);
    if (!dir) {
        // A directory swapped for a symlink since planning lands here.
        artifact.action = ImportAction::Refused;
        artifact.check.problems.push_back(dir.error().path + ": " + dir.error().message);
        return;
    }
    auto placed = dir->write_file(name, content, DirHandle::WriteMode::CreateOnly);
    if (!placed) {
        fail_artifact(artifact, placed.error());
        return;
    }
    if (*placed) {
        artifact.action = ImportAction::Written;
        return;
    }
    // Someone (PyTorch, most likely) wrote it meanwhile.
    auto existing = dir->read_file(name, content.size());
    if (existing && *existing && **existing == content) {
        artifact.action = ImportAction::AlreadyPresent;
    } else {
        artifact.action = ImportAction::Conflict;
        artifact.notes.push_back(destination + " appeared with other bytes while importing: left "
                                               "alone");
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
    for (auto& artifact : plan.artifacts) {
        if (artifact.action != ImportAction::Write) {
            continue;
        }
        const auto& content = bundle.sections[artifact.section].artifacts[artifact.index].content;
        if (error) {
            fail_artifact(artifact,
                          Error{ErrorKind::Io, "cannot create the cache dir: " + error.message(),
                                plan.cache_dir.string()});
        } else if (!root) {
            fail_artifact(artifact, root.error());
        } else {
            write_artifact(*root, content, artifact);
        }
        ++written.done;
        written.bytes += content.size();
        written.item = artifact.check.destination;
        // Between files: each one is renamed into place whole, or is not there.
        if (!report_progress(progress, written) && written.done < written.total) {
            plan.cancelled = true;
            break;
        }
    }
    return plan;
}

} // namespace cachelens::bundle
