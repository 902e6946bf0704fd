#pragma once

// The engine's strings (UTF-8 in std::string) as Qt's, the one way the
// models, jobs and panels convert them.

#include <QString>

#include <string_view>

namespace cachelens::ui {

inline QString text(std::string_view value) {
    return QString::fromUtf8(value.data(), static_cast<qsizetype>(value.size()));
}

} // namespace cachelens::ui
