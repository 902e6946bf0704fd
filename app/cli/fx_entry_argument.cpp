#include "fx_entry_argument.h"

#include <cachelens/core/format.h>

#include <fmt/format.h>

namespace cachelens::cli {

std::string describe_line_counts(const explain::LineCounts& counts, bool from_facts) {
    std::string text = "shares " + format_count(counts.shared) + " of " +
                       (from_facts ? plural(counts.left(), "line") + " read from the entries"
                                   : plural(counts.left(), "debug line"));
    if (counts.differ() == 0 && counts.only_right == 0) {
        return text +
               (from_facts ? ": the same, as far as the entries say" : ": the same key inputs");
    }
    text +=
        "; " + std::to_string(counts.differ()) + (counts.differ() == 1 ? " differs" : " differ");
    if (counts.only_right > 0) {
        text += ", and " + std::to_string(counts.only_right) +
                (counts.only_right == 1 ? " is" : " are") + " only in the other key";
    }
    return text;
}

nlohmann::ordered_json line_counts_json(const explain::LineCounts& counts) {
    return {{"shared", counts.shared},       {"left", counts.left()},
            {"right", counts.right()},       {"changed", counts.changed},
            {"only_left", counts.only_left}, {"only_right", counts.only_right},
            {"differ", counts.differ()}};
}

nlohmann::ordered_json inputs_json(const std::vector<explain::AlignedInput>& aligned) {
    auto inputs = nlohmann::ordered_json::array();
    for (const auto& pair : aligned) {
        inputs.push_back({{"left", pair.left ? nlohmann::ordered_json(*pair.left) : nullptr},
                          {"right", pair.right ? nlohmann::ordered_json(*pair.right) : nullptr},
                          {"changes", pair.change_texts()}});
    }
    return inputs;
}

std::vector<std::string> changed_inputs_text(const std::vector<explain::AlignedInput>& aligned) {
    std::vector<std::string> lines;
    for (const auto& pair : aligned) {
        if (pair.changed()) {
            lines.push_back("  " + pair.describe());
        }
    }
    return lines;
}

void add_causes_json(nlohmann::ordered_json& object, const explain::KeyCauses& causes) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& cause : causes.causes) {
        list.push_back({{"category", explain::to_string(cause.category)},
                        {"text", cause.text},
                        {"attributes", cause.attributes}});
    }
    object["verdict"] = causes.verdict;
    if (!causes.held.empty()) {
        object["held"] = causes.held;
    }
    object["causes"] = std::move(list);
}

std::vector<std::string> causes_text(const explain::KeyCauses& causes, bool verdict_said) {
    std::vector<std::string> lines;
    if (!verdict_said || causes.held.empty()) {
        lines.push_back(causes.verdict + ".");
    }
    if (!causes.held.empty()) {
        lines.push_back(causes.held + ".");
    }
    for (const auto& cause : causes.causes) {
        lines.push_back(fmt::format("  {:<11} {}", explain::to_string(cause.category), cause.text));
    }
    return lines;
}

} // namespace cachelens::cli
