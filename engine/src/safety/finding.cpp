#include <cachelens/hash/sha256.h>
#include <cachelens/safety/finding.h>

#include <unordered_set>

namespace cachelens::safety {

Finding make_finding(std::string rule, std::string file, std::size_t line, std::string text,
                     std::string why) {
    // The line as written, without the blanks that end it.
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
        text.pop_back();
    }
    std::string identity = rule;
    for (const std::string_view part : {std::string_view(file), std::string_view(text)}) {
        identity += '\0';
        identity += part;
    }
    identity += '\0' + std::to_string(line);
    Finding finding{.id = "F" + hash::sha256_hex(identity).substr(0, 12),
                    .rule = std::move(rule),
                    .file = std::move(file),
                    .line = line,
                    .text = std::move(text),
                    .why = std::move(why)};
    return finding;
}

void drop_repeated(std::vector<Finding>& findings) {
    std::unordered_set<std::string> seen;
    std::erase_if(findings,
                  [&](const Finding& finding) { return !seen.insert(finding.id).second; });
}

std::string location(const Finding& finding) {
    return finding.line == 0 ? finding.file : finding.file + ":" + std::to_string(finding.line);
}

} // namespace cachelens::safety
