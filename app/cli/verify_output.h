#pragma once

// What `verify` prints, for a cache dir and for a vLLM or SGLang tree alike:
// the problems and warnings (cachedir::VerifyReport) and the code audit's
// verdicts (bundle::FileVerdict), as JSON and as lines.

#include "output.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/verify.h>

#include <vector>

namespace cachelens::cli {

// [{path, problem, message}]
Json problems_json(const std::vector<cachedir::Problem>& problems);
// [{path, verdict, consent, code, findings, problems}]
Json verdicts_json(const std::vector<bundle::FileVerdict>& verdicts);
// No file holds code with findings.
bool code_clean(const std::vector<bundle::FileVerdict>& verdicts);

// Each file with code with findings (its findings below it), then "path:
// problem: message" for each problem and "... (warning): ..." for each warning.
void print_verify_findings(const std::vector<bundle::FileVerdict>& verdicts,
                           const cachedir::VerifyReport& report);

} // namespace cachelens::cli
