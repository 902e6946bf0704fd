#pragma once

// The safety report of `import` and `remote pull` (and the verdicts of
// `bundle ls`): for each artifact what happens to it, its verdict, the code
// PyTorch would run from it and every finding with its file, line and text
// (docs/SECURITY.md). One printer for both commands, so they read alike.

#include "output.h"

#include <cachelens/bundle/import.h>

#include <string>
#include <vector>

namespace cachelens::cli {

// {verdict, consent, code: [..], findings: [{id, rule, file, line, text, why}]}
// merged into an artifact's JSON object.
void add_check_json(const bundle::ArtifactCheck& check, Json& artifact);

// The artifacts of a plan as JSON: [{type, key, size, sha256, destination,
// parses_to, action, verdict, consent, code, findings, problems, notes}].
Json plan_artifacts_json(const bundle::ImportPlan& plan);

// The verdict, the code audited and each finding of one artifact, indented
// under its line: "Inductor code: source_code (wrapper module, 84 lines)" or
// "code with findings (refused):" and a line per finding.
void print_check_details(const bundle::ArtifactCheck& check);

// One line per artifact (action, type, size, destination) with its details.
void print_plan_artifacts(const bundle::ImportPlan& plan, bool dry_run);

// "verdicts: 4 data only, 2 Inductor code, 1 code with findings, 0 unreadable".
std::string verdict_summary(const std::vector<const bundle::ArtifactCheck*>& checks);
std::string verdict_summary(const bundle::ImportPlan& plan);

} // namespace cachelens::cli
