#pragma once

// What dir_handle.cpp and file_writes.cpp share: messages about paths.

#include <cstring>
#include <string>
#include <string_view>

namespace cachelens::detail {

inline std::string system_message(int error) {
    return std::strerror(error);
}

// "dir/name" for messages.
inline std::string joined(const std::string& dir, std::string_view name) {
    return dir + (dir.ends_with('/') ? "" : "/") + std::string(name);
}

} // namespace cachelens::detail
