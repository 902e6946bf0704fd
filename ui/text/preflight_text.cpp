#include "text/preflight_text.h"

#include "text/engine_text.h"

#include <QCoreApplication>
#include <QStringList>

namespace cachelens::ui {

namespace {

QString tr(const char* source) {
    return QCoreApplication::translate("Preflight", source);
}

// Enough to act on without burying the dialog: the rest is in `preflight`.
constexpr int kShownEntries = 6;

} // namespace

QString preflightHtml(const Result<explain::TargetCheck>& check) {
    if (!check) {
        return tr("<b>Will it hit here?</b> Environment unknown (%1): run <tt>cachelens env "
                  "--output env.json</tt> on this machine and <tt>cachelens preflight FILE "
                  "--target env.json</tt>.")
            .arg(text(check.error().describe()).toHtmlEscaped());
    }
    const explain::PreflightReport& report = check->report;
    QStringList lines;
    lines << tr("<b>Will it hit here?</b> %1 — this machine: %2")
                 .arg(text(report.answer()).toHtmlEscaped(),
                      text(check->target.describe()).toHtmlEscaped());
    int shown = 0;
    for (const auto& entry : report.entries) {
        if (entry.outcome == explain::PreflightOutcome::CanHit) {
            continue;
        }
        if (++shown > kShownEntries) {
            lines << tr("… and more: <tt>cachelens preflight</tt> lists them all");
            break;
        }
        QStringList reasons;
        for (const auto& reason : entry.reasons) {
            reasons << text(reason.category + ": " + reason.text).toHtmlEscaped();
        }
        lines << QStringLiteral("%1 <tt>%2</tt>: %3")
                     .arg(text(explain::to_string(entry.outcome)).toHtmlEscaped(),
                          text(entry.key).toHtmlEscaped(), reasons.join(QStringLiteral("; ")));
    }
    for (const auto& gap : report.incomplete) {
        lines << tr("missing: %1").arg(text(gap.text).toHtmlEscaped());
    }
    for (const auto& note : report.notes) {
        lines << tr("note: %1").arg(text(note).toHtmlEscaped());
    }
    return lines.join(QStringLiteral("<br>"));
}

} // namespace cachelens::ui
