#include <cachelens/cachedir/default_dir.h>

#include <pwd.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <vector>

namespace cachelens::cachedir {

namespace fs = std::filesystem;

namespace {

// An environment variable's value; empty when unset.
std::string_view environment(const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string_view() : std::string_view(value);
}

// Python's os.path.abspath(): absolute, normalised, no trailing separator.
fs::path absolute_normal(const fs::path& dir) {
    std::error_code error;
    fs::path absolute = fs::absolute(dir, error).lexically_normal();
    if (absolute.has_relative_path() && !absolute.has_filename()) {
        absolute = absolute.parent_path();
    }
    return absolute;
}

} // namespace

fs::path python_temp_dir() {
    // tempfile tries to create a file in each candidate; a writable, searchable
    // dir is where that succeeds.
    std::vector<fs::path> candidates;
    for (const char* name : {"TMPDIR", "TEMP", "TMP"}) {
        if (const auto value = environment(name); !value.empty()) {
            candidates.emplace_back(value);
        }
    }
    for (const char* dir : {"/tmp", "/var/tmp", "/usr/tmp"}) {
        candidates.emplace_back(dir);
    }
    for (const fs::path& candidate : candidates) {
        const fs::path dir = absolute_normal(candidate);
        std::error_code error;
        if (fs::is_directory(dir, error) && ::access(dir.c_str(), W_OK | X_OK) == 0) {
            return dir;
        }
    }
    std::error_code error;
    return fs::current_path(error);
}

std::string python_user_name() {
    for (const char* name : {"LOGNAME", "USER", "LNAME", "USERNAME"}) {
        if (const auto value = environment(name); !value.empty()) {
            return std::string(value);
        }
    }
    std::array<char, 4096> buffer{};
    passwd entry{};
    passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
        found != nullptr) {
        return found->pw_name;
    }
    return {};
}

fs::path default_inductor_cache_dir() {
    std::string user = python_user_name();
    for (char& c : user) {
        if (std::string_view(R"(\/:*?"<>|)").contains(c)) {
            c = '_';
        }
    }
    return python_temp_dir() / ("torchinductor_" + user);
}

fs::path inductor_cache_dir() {
    if (const auto value = environment("TORCHINDUCTOR_CACHE_DIR"); !value.empty()) {
        return fs::path(value);
    }
    return default_inductor_cache_dir();
}

} // namespace cachelens::cachedir
