#pragma once

// A preflight report (explain/preflight.h) as `preflight` and `import
// --dry-run` print it.

#include "output.h"

#include <cachelens/explain/preflight.h>

namespace cachelens::cli {

// {entries: [{kind, key, path, outcome, reasons: [{category, text}]}],
//  incomplete: [{kind, key, text}], notes: [text], config_compared}
Json preflight_json(const explain::PreflightReport& checked);

// "17 of 19 entries can hit on the target; 2 will miss, 0 cannot tell"
void print_preflight_answer(const explain::PreflightReport& checked);
// Every entry with its reasons, then what is missing and the notes.
void print_preflight_details(const explain::PreflightReport& checked);

} // namespace cachelens::cli
