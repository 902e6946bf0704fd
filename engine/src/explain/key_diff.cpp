#include <cachelens/explain/key_diff.h>

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
    const auto right_slots = slots_of(right);
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
                {left_slots[i].first, Change::OnlyLeft, left[i], std::nullopt, {}});
            continue;
        }
        const cachedir::DebugLine& other = right[it->second];
        matched[it->second] = true;
        if (equal_lines(left[i], other)) {
            ++diff.same;
            continue;
        }
        AttributeDifference changed{left_slots[i].first, Change::Changed, left[i], other, {}};
        if (left[i].value.find('\n') != std::string_view::npos ||
            other.value.find('\n') != std::string_view::npos) {
            changed.value_diff = diff_lines(left[i].value, other.value);
        }
        diff.differences.push_back(std::move(changed));
    }
    for (std::size_t j = 0; j < right.size(); ++j) {
        if (!matched[j]) {
            diff.differences.push_back(
                {right_slots[j].first, Change::OnlyRight, std::nullopt, right[j], {}});
        }
    }
    return diff;
}

} // namespace cachelens::explain
