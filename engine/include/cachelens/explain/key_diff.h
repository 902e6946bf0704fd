#pragma once

// Why two cache keys differ: their debug lines aligned by what each line is
// about (attribute and subkey), with a line diff inside multi-line values.

#include <cachelens/cachedir/debug_line.h>
#include <cachelens/explain/line_diff.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

struct AlignedCode; // graph_code.h

enum class Change { Changed, OnlyLeft, OnlyRight };

std::string_view to_string(Change change);

struct AttributeDifference {
    std::string name; // "inductor_config[benchmark_kernel]"
    Change change = Change::Changed;
    std::optional<cachedir::DebugLine> left;
    std::optional<cachedir::DebugLine> right;
    // For a changed value that spans several lines: its line diff. For the
    // `gm` graph code, over the code aligned (graph_code.h
    // aligned_graph_code: frees and sym_size lines dropped, values renamed
    // as the left's), so that a renumbering shows as no change;
    // raw_value_diff is the code as written.
    std::vector<DiffLine> value_diff;
    std::vector<DiffLine> raw_value_diff;
    std::shared_ptr<const AlignedCode> aligned; // what value_diff views, for `gm`
};

// Two keys' debug lines counted the one way `why` and `diff` both say it
// ("shares 539 of 566 debug lines; 27 differ"): each line of the left key is
// shared (its attribute has the same hash on the right), changed, or only the
// left's; the right's other lines are only the right's.
struct LineCounts {
    std::size_t shared = 0;
    std::size_t changed = 0;
    std::size_t only_left = 0;
    std::size_t only_right = 0;

    std::size_t left() const { return shared + changed + only_left; }
    std::size_t right() const { return shared + changed + only_right; }
    std::size_t differ() const { return changed + only_left; } // the left's lines not shared
};

struct KeyDiff {
    std::vector<AttributeDifference> differences; // left's order, then right-only ones
    std::size_t same = 0;                         // attributes whose hash is equal

    LineCounts counts() const;
};

// Aligns two entries' debug lines. A name that appears several times is
// aligned by occurrence.
KeyDiff diff_keys(std::span<const std::string_view> left, std::span<const std::string_view> right);

} // namespace cachelens::explain
