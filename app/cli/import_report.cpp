#include "import_report.h"

#include <cachelens/core/format.h>
#include <cachelens/core/text.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace cachelens::cli {

namespace {

Json texts(const std::vector<std::string>& lines) {
    Json array = Json::array();
    for (const auto& line : lines) {
        array.push_back(text(line));
    }
    return array;
}

std::string_view consent_json(safety::CodeConsent consent) {
    switch (consent) {
    case safety::CodeConsent::NotNeeded:
        return "not-needed";
    case safety::CodeConsent::Refused:
        return "refused";
    case safety::CodeConsent::AllowedByUser:
        return "allowed-by-user";
    case safety::CodeConsent::TrustedSigner:
        return "trusted-signer";
    }
    return "refused";
}

// The column the details of an artifact start in, under its line.
constexpr int kDetailIndent = 30;

void detail(const std::string& line) {
    std::printf("%*s %s\n", kDetailIndent, "", line.c_str());
}

} // namespace

void add_check_json(const bundle::ArtifactCheck& check, Json& artifact) {
    Json findings = Json::array();
    for (const auto& finding : check.findings) {
        findings.push_back({{"id", finding.id},
                            {"rule", finding.rule},
                            {"file", text(finding.file)},
                            {"line", finding.line},
                            {"text", text(finding.text)},
                            {"why", text(finding.why)}});
    }
    artifact["verdict"] = std::string(safety::json_name(check.verdict));
    artifact["consent"] = std::string(consent_json(check.consent));
    artifact["code"] = texts(check.code);
    artifact["findings"] = std::move(findings);
}

Json plan_artifacts_json(const bundle::ImportPlan& plan) {
    Json artifacts = Json::array();
    for (const auto& artifact : plan.artifacts) {
        Json json = {{"type", text(artifact.type)},
                     {"key", text(artifact.key)},
                     {"size", artifact.size},
                     {"sha256", artifact.sha256},
                     {"destination", text(artifact.check.destination)},
                     {"parses_to", text(artifact.check.parses_to)},
                     {"action", std::string(to_string(artifact.action))}};
        add_check_json(artifact.check, json);
        json["problems"] = texts(artifact.check.problems);
        json["notes"] = texts(artifact.notes);
        artifacts.push_back(std::move(json));
    }
    return artifacts;
}

void print_check_details(const bundle::ArtifactCheck& check) {
    if (!check.parses_to.empty()) {
        detail(check.parses_to);
    }
    std::string verdict(safety::to_string(check.verdict));
    switch (check.consent) {
    case safety::CodeConsent::NotNeeded:
        break;
    case safety::CodeConsent::Refused:
        verdict += check.readable ? " (refused unless allowed)" : " (refused)";
        break;
    case safety::CodeConsent::AllowedByUser:
        verdict += " (allowed with --allow-code)";
        break;
    case safety::CodeConsent::TrustedSigner:
        verdict += " (let in: signed by the key you trust)";
        break;
    }
    detail(check.code.empty() ? verdict : verdict + ": " + join(check.code));
    for (const auto& finding : check.findings) {
        detail("  " + finding.id + " " + safety::location(finding) + ": " + finding.text);
        detail("      " + finding.rule + ": " + finding.why);
    }
    for (const auto& problem : check.problems) {
        detail("refused: " + problem);
    }
}

void print_plan_artifacts(const bundle::ImportPlan& plan, bool dry_run) {
    for (const auto& artifact : plan.artifacts) {
        std::string action(to_string(artifact.action));
        if (dry_run && artifact.action == bundle::ImportAction::Write) {
            action = "would write";
        }
        std::printf("%-15s %-12s %10s  %s\n", action.c_str(), artifact.type.c_str(),
                    format_bytes(artifact.size).c_str(),
                    artifact.check.destination.empty() ? artifact.key.c_str()
                                                       : artifact.check.destination.c_str());
        print_check_details(artifact.check);
        for (const auto& note : artifact.notes) {
            detail(note);
        }
    }
}

std::string verdict_summary(const std::vector<const bundle::ArtifactCheck*>& checks) {
    constexpr std::array verdicts = {safety::Verdict::DataOnly, safety::Verdict::InductorCode,
                                     safety::Verdict::CodeWithFindings,
                                     safety::Verdict::Unreadable};
    std::string line = "verdicts:";
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        const auto count = std::ranges::count_if(checks, [&](const bundle::ArtifactCheck* check) {
            return check->verdict == verdicts[i];
        });
        line += (i == 0 ? " " : ", ") + std::to_string(count) + " " +
                std::string(safety::to_string(verdicts[i]));
    }
    return line;
}

std::string verdict_summary(const bundle::ImportPlan& plan) {
    std::vector<const bundle::ArtifactCheck*> checks;
    for (const auto& artifact : plan.artifacts) {
        checks.push_back(&artifact.check);
    }
    return verdict_summary(checks);
}

} // namespace cachelens::cli
