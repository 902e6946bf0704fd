#include "jobs/bundle_work.h"

#include "text/counted.h"
#include "text/engine_text.h"
#include "text/stats_text.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/bundle/export.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/bundle/staging.h>
#include <cachelens/cachedir/default_dir.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/format.h>
#include <cachelens/core/mapped_file.h>

#include <QObject>
#include <QStandardPaths>

#include <algorithm>
#include <map>
#include <system_error>

namespace cachelens::ui::bundle_work {

namespace fs = std::filesystem;

namespace {

QString describeProblem(const bundle::PlannedArtifact& artifact) {
    QStringList why;
    for (const auto& problem : artifact.check.problems) {
        why << text(problem);
    }
    for (const auto& note : artifact.notes) {
        why << text(note);
    }
    return QObject::tr("%1 %2 %3: %4")
        .arg(text(std::string(bundle::to_string(artifact.action))), text(artifact.type),
             text(artifact.key), why.join(QStringLiteral("; ")));
}

} // namespace

fs::path stagingBase() {
    return fs::path(QStandardPaths::writableLocation(QStandardPaths::CacheLocation).toStdString()) /
           "bundles";
}

bool isStagedBundle(const fs::path& root, const fs::path& base) {
    return bundle::is_staged_bundle(root, base);
}

std::optional<fs::path> stagedOrigin(const fs::path& root) {
    return bundle::staged_origin(root);
}

QString stagedReport(const fs::path& root) {
    return text(bundle::staged_report(root).value_or(std::string()));
}

QString StagedBundle::report() const {
    QString summary = QObject::tr("%1: %2 shown, %3 refused")
                          .arg(counted(artifacts, "artifact"))
                          .arg(staged)
                          .arg(refused);
    if (failed > 0) {
        summary += QObject::tr(", %1 not written").arg(failed);
    }
    summary += signer.isEmpty() ? QObject::tr("; unsigned")
                                : QObject::tr("; signed by %1 (not verified)").arg(signer);
    return (QStringList{summary} + problems).join(u'\n');
}

Result<StagedBundle> stageBundle(const fs::path& file, const fs::path& base) {
    StagedBundle staged;
    std::error_code error;
    staged.file = fs::absolute(file, error).lexically_normal();
    auto opened = bundle::open_bundle_file(staged.file);
    if (!opened) {
        return std::unexpected(std::move(opened.error()));
    }
    auto bytes = MappedFile::open(staged.file);
    if (!bytes) {
        return std::unexpected(std::move(bytes.error()));
    }
    const bundle::StagingPaths paths = bundle::staging_paths(base, staged.file, (*bytes)->bytes());
    // The staged copy is exactly the bundle: what an earlier staging left goes first.
    if (auto prepared = bundle::prepare_staging(paths); !prepared) {
        return std::unexpected(std::move(prepared.error()));
    }
    const fs::path& root = paths.root;
    staged.artifacts = opened->bundle.artifact_count();
    if (opened->manifest) {
        staged.signer = text(opened->manifest->signer_fingerprint);
    }
    auto plan = bundle::plan_import(opened->bundle, root);
    if (!plan) {
        return std::unexpected(std::move(plan.error()));
    }
    const auto done = bundle::run_import(std::move(*plan), opened->bundle);
    for (const auto& artifact : done.artifacts) {
        switch (artifact.action) {
        case bundle::ImportAction::Written:
        case bundle::ImportAction::AlreadyPresent:
            ++staged.staged;
            continue;
        case bundle::ImportAction::Refused:
            ++staged.refused;
            break;
        default:
            ++staged.failed;
            break;
        }
        staged.problems << describeProblem(artifact);
    }
    if (auto recorded = bundle::record_staging(paths, staged.file, staged.report().toStdString());
        !recorded) {
        return std::unexpected(std::move(recorded.error()));
    }
    staged.root = root;
    return staged;
}

fs::path defaultImportDir() {
    return cachedir::inductor_cache_dir();
}

QString ExportOutcome::summary() const {
    QString line = QObject::tr("%1 written to %2 (%3), %4")
                       .arg(counted(artifacts, "artifact"), text(file.string()), sections,
                            text(format_bytes(size)));
    if (!signer.isEmpty()) {
        line += QObject::tr(", signed by %1").arg(signer);
    }
    return line;
}

Result<ExportOutcome> exportBundle(const fs::path& root, const std::vector<std::string>& keys,
                                   const fs::path& file,
                                   const std::optional<fs::path>& privateKey) {
    ExportOutcome outcome;
    outcome.file = file;
    auto exported =
        bundle::export_bundle_file(root, {.keys = keys, .file = file, .signing_key = privateKey});
    if (!exported) {
        return std::unexpected(std::move(exported.error()));
    }
    QStringList sections;
    for (const auto& section : exported->bundle.sections) {
        sections << QStringLiteral("%1 %2").arg(section.artifacts.size()).arg(text(section.type));
    }
    outcome.artifacts = exported->bundle.artifact_count();
    outcome.sections = sections.join(QStringLiteral(", "));
    outcome.size = exported->size;
    outcome.signer = text(exported->signer.value_or(std::string()));
    for (const auto& note : exported->notes) {
        outcome.notes << text(note);
    }
    return outcome;
}

} // namespace cachelens::ui::bundle_work
