#include <cachelens/safety/verdict.h>

#include <algorithm>

namespace cachelens::safety {

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
    case Verdict::DataOnly:
        return "data only";
    case Verdict::InductorCode:
        return "Inductor code";
    case Verdict::CodeWithFindings:
        return "code with findings";
    case Verdict::Unreadable:
        return "unreadable";
    }
    return "unreadable";
}

std::string_view json_name(Verdict verdict) {
    switch (verdict) {
    case Verdict::DataOnly:
        return "data-only";
    case Verdict::InductorCode:
        return "inductor-code";
    case Verdict::CodeWithFindings:
        return "code-with-findings";
    case Verdict::Unreadable:
        return "unreadable";
    }
    return "unreadable";
}

CodeConsent consent_for(const std::vector<Finding>& findings, const CodeTrust& trust) {
    if (findings.empty()) {
        return CodeConsent::NotNeeded;
    }
    if (trust.signed_by_trusted_key) {
        return CodeConsent::TrustedSigner;
    }
    const bool all_allowed = std::ranges::all_of(findings, [&](const Finding& finding) {
        return std::ranges::find(trust.allowed_ids, finding.id) != trust.allowed_ids.end();
    });
    return all_allowed ? CodeConsent::AllowedByUser : CodeConsent::Refused;
}

} // namespace cachelens::safety
