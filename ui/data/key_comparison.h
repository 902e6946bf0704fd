#pragma once

// Two FX graph entries' cache-key debug lines and how they differ (what
// `cachelens diff` prints), loaded together off the GUI thread and handed to
// KeyDiffModel. Owns the decoded entries, since the lines are views into them.

#include "data/entry_ref.h"

#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/error.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/key_diff.h>

#include <memory>

namespace cachelens::ui {

struct KeyComparison {
    EntryRef left;
    EntryRef right;
    cachedir::FxGraphEntry leftFx;
    cachedir::FxGraphEntry rightFx;
    explain::KeyDiff diff; // views into leftFx/rightFx
    // The example inputs aligned by what they are, and why the right key
    // misses the left one (read left -> right, as `cachelens diff` does).
    std::vector<explain::AlignedInput> inputs;
    explain::KeyCauses causes;
    // Compared by what the entries hold (an entry without debug lines):
    // `diff` then views lines owned by keepAlive.
    bool fromFacts = false;
    std::vector<std::string_view> leftLines;  // the lines compared: debug lines, or
    std::vector<std::string_view> rightLines; // what the entries hold
    std::shared_ptr<const void> keepAlive;
};

// An FX graph entry by reference. Another kind is an error that says what to
// give instead (an AOTAutograd entry names its forward and backward graphs).
Result<cachedir::FxGraphEntry> loadFxGraph(const EntryRef& ref);

// Loads both entries and aligns their debug lines (explain::diff_keys). Slow
// (reads two pickles): call it off the GUI thread.
Result<std::shared_ptr<const KeyComparison>> compareEntries(const EntryRef& left,
                                                            const EntryRef& right);

} // namespace cachelens::ui
