#include "verify_output.h"

#include "import_report.h"

#include <algorithm>
#include <cstdio>

namespace cachelens::cli {

namespace {

bool has_findings(const bundle::FileVerdict& file) {
    return file.check.verdict == safety::Verdict::CodeWithFindings;
}

} // namespace

Json problems_json(const std::vector<cachedir::Problem>& problems) {
    Json array = Json::array();
    for (const auto& problem : problems) {
        array.push_back({{"path", text(problem.path)},
                         {"problem", cachedir::to_string(problem.kind)},
                         {"message", text(problem.message)}});
    }
    return array;
}

Json verdicts_json(const std::vector<bundle::FileVerdict>& verdicts) {
    Json code = Json::array();
    for (const auto& file : verdicts) {
        Json json = {{"path", text(file.path)}};
        add_check_json(file.check, json);
        json["problems"] = Json::array();
        for (const auto& problem : file.check.problems) {
            json["problems"].push_back(text(problem));
        }
        code.push_back(std::move(json));
    }
    return code;
}

bool code_clean(const std::vector<bundle::FileVerdict>& verdicts) {
    return std::ranges::none_of(verdicts, has_findings);
}

void print_verify_findings(const std::vector<bundle::FileVerdict>& verdicts,
                           const cachedir::VerifyReport& report) {
    for (const auto& file : verdicts) {
        if (has_findings(file)) {
            std::printf("%s: %s\n", file.path.c_str(),
                        std::string(safety::to_string(file.check.verdict)).c_str());
            print_check_details(file.check);
        }
    }
    for (const auto& problem : report.problems) {
        std::printf("%s: %s: %s\n", problem.path.c_str(),
                    std::string(cachedir::to_string(problem.kind)).c_str(),
                    problem.message.c_str());
    }
    for (const auto& warning : report.warnings) {
        std::printf("%s: %s (warning): %s\n", warning.path.c_str(),
                    std::string(cachedir::to_string(warning.kind)).c_str(),
                    warning.message.c_str());
    }
}

} // namespace cachelens::cli
