#include "jobs/bundle_work.h"

#include "text/engine_text.h"
#include "text/stats_text.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/bundle/export.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/format.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>

#include <pwd.h>
#include <unistd.h>

#include <QDir>
#include <QObject>
#include <QStandardPaths>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

namespace cachelens::ui::bundle_work {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kStagingNameLength = 16; // hex digits of the file's sha256
constexpr const char* kOriginFile = "origin";
constexpr const char* kReportFile = "report";
constexpr const char* kBundleDir = "bundle";

// The staging dir's own dir (bundles/<hash>) when `root` is one, else nullopt.
std::optional<fs::path> stagingEntry(const fs::path& root, const fs::path& base) {
    const fs::path location = catalog::root_location(root);
    const fs::path baseLocation = catalog::root_location(base);
    const fs::path relative = location.lexically_relative(baseLocation);
    // bundles/<hash>/bundle/<name>: three components below the base.
    std::vector<std::string> parts;
    for (const auto& part : relative) {
        parts.push_back(part.string());
    }
    if (parts.size() != 3 || parts[1] != kBundleDir || parts[0].size() != kStagingNameLength ||
        !std::ranges::all_of(
            parts[0], [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
        return std::nullopt;
    }
    return baseLocation / parts[0];
}

// The base a root would be staged under if it is a staged bundle: the origin
// and report are found beside any staging dir, not only the GUI's own.
fs::path stagingBaseOf(const fs::path& root) {
    return fs::path(catalog::root_location(root)).parent_path().parent_path().parent_path();
}

std::optional<std::string> readSmallFile(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

Result<void> writeWhole(const fs::path& file, std::string_view bytes) {
    const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
    auto dir = DirHandle::open_root(parent);
    if (!dir) {
        return std::unexpected(dir.error());
    }
    auto written = dir->write_file(file.filename().string(), bytes, DirHandle::WriteMode::Replace);
    if (!written) {
        return std::unexpected(written.error());
    }
    return {};
}

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
    return stagingEntry(root, base).has_value();
}

std::optional<fs::path> stagedOrigin(const fs::path& root) {
    const auto entry = stagingEntry(root, stagingBaseOf(root));
    if (!entry) {
        return std::nullopt;
    }
    auto origin = readSmallFile(*entry / kOriginFile);
    if (!origin || origin->empty()) {
        return std::nullopt;
    }
    return fs::path(*origin);
}

QString stagedReport(const fs::path& root) {
    const auto entry = stagingEntry(root, stagingBaseOf(root));
    if (!entry) {
        return {};
    }
    return text(readSmallFile(*entry / kReportFile).value_or(std::string()));
}

QString StagedBundle::report() const {
    QString summary = QObject::tr("%1: %2 shown, %3 refused")
                          .arg(stats_text::count(artifacts, "artifact", "artifacts"))
                          .arg(staged)
                          .arg(refused);
    if (failed > 0) {
        summary += QObject::tr(", %1 not written").arg(failed);
    }
    summary += signer.isEmpty() ? QObject::tr("; unsigned")
                                : QObject::tr("; signed by %1 (not verified)").arg(signer);
    return (QStringList{summary} + problems).join(u'\n');
}

StagedBundle stageBundle(const fs::path& file, const fs::path& base) {
    StagedBundle staged;
    std::error_code error;
    staged.file = fs::absolute(file, error).lexically_normal();
    auto opened = bundle::open_bundle_file(staged.file);
    if (!opened) {
        staged.error = text(opened.error().describe());
        return staged;
    }
    auto bytes = MappedFile::open(staged.file);
    if (!bytes) {
        staged.error = text(bytes.error().describe());
        return staged;
    }
    const std::string hash = hash::sha256_hex((*bytes)->bytes()).substr(0, kStagingNameLength);
    const fs::path entry = base / hash;
    const fs::path root = entry / kBundleDir / staged.file.filename();
    // The staged copy is exactly the bundle: what an earlier staging left goes first.
    fs::remove_all(entry, error);
    if (error || !fs::create_directories(root, error)) {
        staged.error = QObject::tr("cannot create the staging dir %1: %2")
                           .arg(text(root.string()), text(error.message()));
        return staged;
    }
    staged.artifacts = opened->bundle.artifact_count();
    if (opened->manifest) {
        staged.signer = text(opened->manifest->signer_fingerprint);
    }
    auto plan = bundle::plan_import(opened->bundle, root);
    if (!plan) {
        staged.error = text(plan.error().describe());
        return staged;
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
    const std::string origin = staged.file.string();
    const std::string report = staged.report().toStdString();
    for (const auto& [name, content] :
         {std::pair<const char*, const std::string&>{kOriginFile, origin}, {kReportFile, report}}) {
        if (auto written = writeWhole(entry / name, content); !written) {
            staged.error = text(written.error().describe());
            return staged;
        }
    }
    staged.root = root;
    return staged;
}

fs::path defaultImportDir() {
    const QString fromEnv = qEnvironmentVariable("TORCHINDUCTOR_CACHE_DIR");
    if (!fromEnv.isEmpty()) {
        return fromEnv.toStdString();
    }
    // Python's getpass.getuser(): the first of these variables set, else the
    // password database.
    QString user;
    for (const char* name : {"LOGNAME", "USER", "LNAME", "USERNAME"}) {
        user = qEnvironmentVariable(name);
        if (!user.isEmpty()) {
            break;
        }
    }
    if (user.isEmpty()) {
        if (const passwd* entry = getpwuid(getuid()); entry != nullptr) {
            user = QString::fromLocal8Bit(entry->pw_name);
        }
    }
    return (QDir::tempPath() + QStringLiteral("/torchinductor_") + user).toStdString();
}

QString ExportOutcome::summary() const {
    QString line = QObject::tr("%1 written to %2 (%3), %4")
                       .arg(stats_text::count(artifacts, "artifact", "artifacts"),
                            text(file.string()), sections, text(format_bytes(size)));
    if (!signer.isEmpty()) {
        line += QObject::tr(", signed by %1").arg(signer);
    }
    return line;
}

ExportOutcome exportBundle(const fs::path& root, const std::vector<std::string>& keys,
                           const fs::path& file, const std::optional<fs::path>& privateKey) {
    ExportOutcome outcome;
    outcome.file = file;
    auto exported =
        bundle::export_bundle_file(root, {.keys = keys, .file = file, .signing_key = privateKey});
    if (!exported) {
        outcome.error = text(exported.error().describe());
        return outcome;
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
