#pragma once

// What the commands that compare graphs (diff, why) print alike: line
// counts, aligned inputs and causes, in one wording and one JSON shape.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/key_diff.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cachelens::cli {

// How diff and why both count two keys' debug lines, in one wording:
// "shares 539 of 566 debug lines; 27 differ, and 1 is only in the other key".
std::string describe_line_counts(const explain::LineCounts& counts, bool from_facts = false);
// {"shared", "left", "right", "changed", "only_left", "only_right", "differ"}
nlohmann::ordered_json line_counts_json(const explain::LineCounts& counts);

// Two graphs' example inputs aligned, as diff and why both print them:
// [{"left": i | null, "right": j | null, "changes": [...]}], and one line per
// input that differs: "  input 1 -> 2: dim 0: 4 -> s72 (became dynamic)".
nlohmann::ordered_json inputs_json(const std::vector<explain::AlignedInput>& aligned);
std::vector<std::string> changed_inputs_text(const std::vector<explain::AlignedInput>& aligned);

// Why two keys differ, as diff and why both give it: "verdict" and
// "causes": [{"category", "text", "attributes": [...]}], most decisive first;
// and as text, the verdict then one "  category: text" line per cause.
void add_causes_json(nlohmann::ordered_json& object, const explain::KeyCauses& causes);
// The verdict, the verdict of what the entries hold (where they were compared
// so), then a line per cause. `verdict_said`: the verdict was said above
// (why's first line), so a comparison by what entries hold starts at `held`.
std::vector<std::string> causes_text(const explain::KeyCauses& causes, bool verdict_said = false);

} // namespace cachelens::cli
