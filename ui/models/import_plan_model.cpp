#include "models/import_plan_model.h"

#include "text/counted.h"
#include "text/engine_text.h"
#include "text/stats_text.h"
#include "widgets/highlight_colors.h"

#include <cachelens/core/format.h>

#include <QBrush>
#include <QStringList>

namespace cachelens::ui {

namespace {

using bundle::ImportAction;

// Why a row is not (or was not) written: its problems, then its notes.
QStringList reasons(const bundle::PlannedArtifact& artifact) {
    QStringList lines;
    for (const auto& problem : artifact.check.problems) {
        lines << text(problem);
    }
    for (const auto& note : artifact.notes) {
        lines << text(note);
    }
    return lines;
}

bool isTrouble(ImportAction action) {
    return action == ImportAction::Refused || action == ImportAction::Conflict ||
           action == ImportAction::Failed;
}

} // namespace

ImportPlanModel::ImportPlanModel(QObject* parent)
    : PlanTableModel({.headers = {tr("Action"), tr("Verdict"), tr("Type"), tr("Key"), tr("Size"),
                                  tr("Destination"), tr("Parses to"), tr("Problems")},
                      .action = ActionColumn,
                      .size = SizeColumn,
                      .fixedFont = {KeyColumn, DestinationColumn}},
                     parent) {}

void ImportPlanModel::setPlan(bundle::ImportPlan plan, bool dryRun) {
    beginResetModel();
    plan_ = std::move(plan);
    dryRun_ = dryRun;
    endResetModel();
}

void ImportPlanModel::clear() {
    beginResetModel();
    plan_.reset();
    endResetModel();
}

std::size_t ImportPlanModel::count(ImportAction action) const {
    return plan_ ? plan_->count(action) : 0;
}

const bundle::PlannedArtifact* ImportPlanModel::artifact(int row) const {
    if (!plan_ || row < 0 || row >= static_cast<int>(plan_->artifacts.size())) {
        return nullptr;
    }
    return &plan_->artifacts[static_cast<std::size_t>(row)];
}

QString ImportPlanModel::actionText(ImportAction action, bool dryRun) {
    if (dryRun && action == ImportAction::Write) {
        return tr("would write");
    }
    return QString::fromUtf8(bundle::to_string(action));
}

QString ImportPlanModel::summaryText() const {
    if (!plan_) {
        return {};
    }
    QString summary = counted(plan_->artifacts.size(), "artifact") + u':' + u' ' +
                      (dryRun_ ? tr("%1 to write").arg(count(ImportAction::Write))
                               : tr("%1 written").arg(count(ImportAction::Written))) +
                      tr(", %1 already present, %2 conflicts, %3 refused")
                          .arg(count(ImportAction::AlreadyPresent))
                          .arg(count(ImportAction::Conflict))
                          .arg(count(ImportAction::Refused));
    if (const auto failed = count(ImportAction::Failed)) {
        summary += tr(", %1 failed").arg(failed);
    }
    return summary;
}

QString ImportPlanModel::confirmationText() const {
    if (!plan_) {
        return {};
    }
    std::error_code error;
    const auto dir = std::filesystem::absolute(plan_->cache_dir, error);
    QString question = tr("Write %1 into %2%3?")
                           .arg(counted(count(ImportAction::Write), "file"),
                                text((error ? plan_->cache_dir : dir).lexically_normal().string()),
                                plan_->creates_cache_dir ? tr(" (a new dir)") : QString());
    if (const auto refused = count(ImportAction::Refused)) {
        question +=
            u' ' + (refused == 1
                        ? tr("1 artifact is refused and will not be written.")
                        : tr("%1 artifacts are refused and will not be written.").arg(refused));
    }
    if (const auto conflicts = count(ImportAction::Conflict)) {
        question +=
            u' ' + (conflicts == 1
                        ? tr("1 file there holds other bytes and is left alone.")
                        : tr("%1 files there hold other bytes and are left alone.").arg(conflicts));
    }
    return question;
}

int ImportPlanModel::rows() const {
    return plan_ ? static_cast<int>(plan_->artifacts.size()) : 0;
}

QString ImportPlanModel::display(int row, int column) const {
    const auto& artifact = plan_->artifacts[static_cast<std::size_t>(row)];
    switch (column) {
    case ActionColumn:
        return actionText(artifact.action, dryRun_);
    case VerdictColumn:
        return verdictText(artifact.check);
    case TypeColumn:
        return text(artifact.type);
    case KeyColumn:
        return text(artifact.key);
    case SizeColumn:
        return text(format_bytes(artifact.size));
    case DestinationColumn:
        return text(artifact.check.destination);
    case ParsesToColumn:
        return text(artifact.check.parses_to);
    case ProblemsColumn:
        return reasons(artifact).join(QStringLiteral("; "));
    }
    return {};
}

std::uint64_t ImportPlanModel::bytes(int row) const {
    return plan_->artifacts[static_cast<std::size_t>(row)].size;
}

int ImportPlanModel::action(int row) const {
    return static_cast<int>(plan_->artifacts[static_cast<std::size_t>(row)].action);
}

bool ImportPlanModel::needsALook(int row) const {
    return isTrouble(plan_->artifacts[static_cast<std::size_t>(row)].action);
}

QVariant ImportPlanModel::background(int row) const {
    switch (plan_->artifacts[static_cast<std::size_t>(row)].action) {
    case ImportAction::Refused:
    case ImportAction::Failed:
        return QBrush(highlight::fail());
    case ImportAction::Conflict:
        return QBrush(highlight::changed());
    case ImportAction::Written:
        return QBrush(highlight::pass());
    default:
        return {};
    }
}

QString ImportPlanModel::verdictText(const bundle::ArtifactCheck& check) {
    const QString verdict = text(safety::to_string(check.verdict));
    if (!check.readable && !check.findings.empty()) {
        // Another problem refuses it: neither Allow nor a signature lets it in.
        return tr("%1 (refused)").arg(verdict);
    }
    switch (check.consent) {
    case safety::CodeConsent::NotNeeded:
        return verdict;
    case safety::CodeConsent::Refused:
        return tr("%1 (%n refusing)", nullptr, static_cast<int>(check.findings.size()))
            .arg(verdict);
    case safety::CodeConsent::AllowedByUser:
        return tr("%1 (allowed)").arg(verdict);
    case safety::CodeConsent::TrustedSigner:
        return tr("%1 (trusted signer)").arg(verdict);
    }
    return verdict;
}

QString ImportPlanModel::toolTip(int row) const {
    const auto& artifact = plan_->artifacts[static_cast<std::size_t>(row)];
    QStringList lines;
    lines << tr("%1 %2").arg(text(artifact.type), text(artifact.key));
    lines << tr("%L1 bytes, sha256 %2")
                 .arg(static_cast<qulonglong>(artifact.size))
                 .arg(text(artifact.sha256));
    if (!artifact.check.destination.empty()) {
        lines << tr("goes to %1").arg(text(artifact.check.destination));
    }
    if (!artifact.check.parses_to.empty()) {
        lines << tr("parses to %1").arg(text(artifact.check.parses_to));
    }
    lines << verdictText(artifact.check);
    for (const auto& code : artifact.check.code) {
        lines << tr("runs %1").arg(text(code));
    }
    for (const auto& finding : artifact.check.findings) {
        lines << tr("finding %1 at %2 (%3): %4")
                     .arg(text(finding.id), text(safety::location(finding)), text(finding.rule),
                          text(finding.text));
    }
    for (const auto& problem : artifact.check.problems) {
        lines << tr("refused: %1").arg(text(problem));
    }
    for (const auto& note : artifact.notes) {
        lines << text(note);
    }
    return lines.join(u'\n');
}

} // namespace cachelens::ui
