#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/graph_code.h>
#include <cachelens/explain/key_diff.h>

#include <algorithm>
#include <charconv>
#include <map>

namespace cachelens::explain {

namespace {

// A line's place for alignment: its name and which occurrence of it it is.
using Slot = std::pair<std::string, std::size_t>;

std::vector<Slot> slots_of(const std::vector<cachedir::DebugLine>& lines) {
    std::map<std::string, std::size_t> seen;
    std::vector<Slot> slots;
    slots.reserve(lines.size());
    for (const auto& line : lines) {
        std::string name = line.name();
        const std::size_t occurrence = seen[name]++;
        slots.emplace_back(std::move(name), occurrence);
    }
    return slots;
}

// The example input positions written ("example_inputs[3]" -> 3), sorted:
// example_inputs_of()'s k-th input is at the k-th of them.
std::vector<std::size_t> input_positions(const std::vector<cachedir::DebugLine>& lines) {
    std::vector<std::size_t> positions;
    for (const auto& line : lines) {
        std::size_t index = 0;
        const auto* end = line.subkey.data() + line.subkey.size();
        if (line.attribute == "example_inputs" && line.has_subkey &&
            std::from_chars(line.subkey.data(), end, index).ptr == end) {
            positions.push_back(index);
        }
    }
    std::ranges::sort(positions);
    return positions;
}

// Example inputs pair by what they are (align_inputs), as the verdict reads
// them, not by position: a SymInt put in front shifts every index while the
// tensors stay the same. Each right input paired with a left one takes the
// left's slot; one paired with none takes a slot nothing on the left has.
void pair_inputs_by_alignment(std::span<const std::string_view> left_text,
                              std::span<const std::string_view> right_text,
                              const std::vector<cachedir::DebugLine>& left,
                              const std::vector<cachedir::DebugLine>& right,
                              std::vector<Slot>& right_slots) {
    const auto left_inputs = example_inputs_of(left_text);
    const auto right_inputs = example_inputs_of(right_text);
    const auto left_positions = input_positions(left);
    const auto right_positions = input_positions(right);
    if (left_inputs.size() != left_positions.size() ||
        right_inputs.size() != right_positions.size() || right_inputs.empty()) {
        return; // positions written twice: keep the plain alignment
    }
    std::map<std::size_t, std::size_t> left_of; // right position -> left position
    for (const auto& pair : align_inputs(left_inputs, right_inputs)) {
        if (pair.left && pair.right) {
            left_of[right_positions[*pair.right]] = left_positions[*pair.left];
        }
    }
    constexpr std::size_t kUnpaired = std::size_t{1} << 40; // an occurrence no line has
    for (std::size_t j = 0; j < right.size(); ++j) {
        std::size_t index = 0;
        const auto& line = right[j];
        const auto* end = line.subkey.data() + line.subkey.size();
        if (line.attribute != "example_inputs" || !line.has_subkey ||
            std::from_chars(line.subkey.data(), end, index).ptr != end) {
            continue;
        }
        if (const auto it = left_of.find(index); it != left_of.end()) {
            right_slots[j].first = "example_inputs[" + std::to_string(it->second) + "]";
        } else {
            right_slots[j].second += kUnpaired;
        }
    }
}

bool equal_lines(const cachedir::DebugLine& a, const cachedir::DebugLine& b) {
    // Equal hashes mean equal pickles; lines without a hash compare by text.
    return a.hash.empty() || b.hash.empty() ? a.text == b.text : a.hash == b.hash;
}

} // namespace

std::string_view to_string(Change change) {
    switch (change) {
    case Change::Changed:
        return "changed";
    case Change::OnlyLeft:
        return "only-left";
    case Change::OnlyRight:
        return "only-right";
    }
    return "changed";
}

LineCounts KeyDiff::counts() const {
    LineCounts counts;
    counts.shared = same;
    for (const auto& difference : differences) {
        switch (difference.change) {
        case Change::Changed:
            ++counts.changed;
            break;
        case Change::OnlyLeft:
            ++counts.only_left;
            break;
        case Change::OnlyRight:
            ++counts.only_right;
            break;
        }
    }
    return counts;
}

KeyDiff diff_keys(std::span<const std::string_view> left_text,
                  std::span<const std::string_view> right_text) {
    const auto left = cachedir::parse_debug_lines(left_text);
    const auto right = cachedir::parse_debug_lines(right_text);
    const auto left_slots = slots_of(left);
    auto right_slots = slots_of(right);
    pair_inputs_by_alignment(left_text, right_text, left, right, right_slots);
    std::map<Slot, std::size_t> right_index;
    for (std::size_t i = 0; i < right_slots.size(); ++i) {
        right_index.emplace(right_slots[i], i);
    }
    KeyDiff diff;
    std::vector<bool> matched(right.size(), false);
    for (std::size_t i = 0; i < left.size(); ++i) {
        auto it = right_index.find(left_slots[i]);
        if (it == right_index.end()) {
            diff.differences.push_back(
                {left_slots[i].first, Change::OnlyLeft, left[i], std::nullopt, {}, {}, {}});
            continue;
        }
        const cachedir::DebugLine& other = right[it->second];
        matched[it->second] = true;
        if (equal_lines(left[i], other)) {
            ++diff.same;
            continue;
        }
        AttributeDifference changed{
            left_slots[i].first, Change::Changed, left[i], other, {}, {}, {}};
        // An input that moved is named where it is now, and where it was.
        if (const std::string now = other.name(); now != left_slots[i].first) {
            changed.name = now + " (" + left_slots[i].first + " before)";
        }
        if (left[i].value.find('\n') != std::string_view::npos ||
            other.value.find('\n') != std::string_view::npos) {
            changed.value_diff = diff_lines(left[i].value, other.value);
            if (left[i].attribute == "gm" && !left[i].has_subkey) {
                changed.raw_value_diff = std::move(changed.value_diff);
                changed.aligned = std::make_shared<const AlignedCode>(
                    aligned_graph_code(left[i].value, other.value));
                changed.value_diff = diff_lines(changed.aligned->left, changed.aligned->right);
            }
        }
        diff.differences.push_back(std::move(changed));
    }
    for (std::size_t j = 0; j < right.size(); ++j) {
        if (!matched[j]) {
            diff.differences.push_back(
                {right_slots[j].first, Change::OnlyRight, std::nullopt, right[j], {}, {}, {}});
        }
    }
    return diff;
}

} // namespace cachelens::explain
