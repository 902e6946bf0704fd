#pragma once

// "1 entry", "3 entries": a count and its noun in the number it takes, the
// words the CLI uses (cachelens::plural), for every count the GUI shows.

#include <cachelens/core/format.h>

#include <QString>

#include <cstddef>
#include <string_view>

namespace cachelens::ui {

inline QString counted(std::size_t count, std::string_view noun) {
    return QString::fromStdString(plural(count, noun));
}

} // namespace cachelens::ui
