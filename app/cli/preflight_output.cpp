#include "preflight_output.h"

#include <cstdio>

namespace cachelens::cli {

Json preflight_json(const explain::PreflightReport& checked) {
    Json entries = Json::array();
    for (const auto& entry : checked.entries) {
        Json reasons = Json::array();
        for (const auto& reason : entry.reasons) {
            reasons.push_back({{"category", reason.category},
                               {"text", text(reason.text)},
                               {"effect", explain::to_string(reason.effect)}});
        }
        entries.push_back({{"kind", cachedir::to_string(entry.kind)},
                           {"key", text(entry.key)},
                           {"path", text(entry.path)},
                           {"outcome", explain::to_string(entry.outcome)},
                           {"reasons", std::move(reasons)}});
    }
    Json incomplete = Json::array();
    for (const auto& gap : checked.incomplete) {
        incomplete.push_back({{"kind", cachedir::to_string(gap.kind)},
                              {"key", text(gap.key)},
                              {"text", text(gap.text)}});
    }
    return {{"entries", std::move(entries)},
            {"incomplete", std::move(incomplete)},
            {"notes", checked.notes},
            {"config_compared", checked.config_compared}};
}

void print_preflight_answer(const explain::PreflightReport& checked) {
    std::printf("%s\n", checked.answer().c_str());
}

void print_preflight_details(const explain::PreflightReport& checked) {
    for (const auto& entry : checked.entries) {
        const std::string outcome(explain::to_string(entry.outcome));
        std::printf("%-12s %-12s %s\n", outcome.c_str(),
                    std::string(cachedir::to_string(entry.kind)).c_str(), entry.key.c_str());
        for (const auto& reason : entry.reasons) {
            std::printf("    %s: %s\n", reason.category.c_str(), reason.text.c_str());
        }
    }
    if (!checked.incomplete.empty()) {
        std::printf("\nincomplete:\n");
        for (const auto& gap : checked.incomplete) {
            std::printf("  %s %s: %s\n", std::string(cachedir::to_string(gap.kind)).c_str(),
                        gap.key.c_str(), gap.text.c_str());
        }
    }
    for (const auto& note : checked.notes) {
        std::printf("\nnote: %s\n", note.c_str());
    }
}

} // namespace cachelens::cli
