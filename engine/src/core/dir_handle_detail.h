#pragma once

// What dir_handle.cpp, file_writes.cpp and trash.cpp share.

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

// 16 random hex digits (file_writes.cpp): names that no other process, pid 1
// of another container included, picks too.
std::string random_suffix();

} // namespace cachelens::detail
