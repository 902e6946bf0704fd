#pragma once

// std::stable_sort for short lists (a few config values, a few causes)
// without its temporary buffer, whose std::get_temporary_buffer is deprecated
// under clang with libstdc++ 12: an error in the fuzz and sanitizer builds.

#include <cstddef>
#include <utility>

namespace cachelens {

// Sorts `items` so that `before(a, b)` holds for no later a; equal items keep
// their order. Quadratic: for lists of tens of items.
template <class Items, class Before>
void stable_sort_small(Items& items, Before before) {
    for (std::size_t i = 1; i < items.size(); ++i) {
        for (std::size_t j = i; j > 0 && before(items[j], items[j - 1]); --j) {
            std::swap(items[j - 1], items[j]);
        }
    }
}

} // namespace cachelens
