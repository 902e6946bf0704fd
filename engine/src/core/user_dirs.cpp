#include <cachelens/core/user_dirs.h>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cachelens {

namespace fs = std::filesystem;

namespace {

fs::path home_dir() {
    if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
        return home;
    }
    // getpwuid_r: the buffer its record lives in is ours, not static.
    long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
    passwd record{};
    passwd* found = nullptr;
    if (::getpwuid_r(::geteuid(), &record, buffer.data(), buffer.size(), &found) == 0 &&
        found != nullptr && found->pw_dir != nullptr && found->pw_dir[0] == '/') {
        return found->pw_dir;
    }
    return {};
}

} // namespace

fs::path default_data_dir() {
    if (const char* data = std::getenv("XDG_DATA_HOME"); data != nullptr && *data == '/') {
        return fs::path(data) / "cachelens";
    }
    const fs::path home = home_dir();
    // No home at all (a uid without a passwd entry): the working dir, which
    // the user chose, rather than a dir every user can write.
    return (home.empty() ? fs::current_path() : home) / ".local" / "share" / "cachelens";
}

Result<void> ensure_private_dir(const fs::path& dir) {
    std::error_code ec;
    if (dir.has_parent_path()) {
        fs::create_directories(dir.parent_path(), ec);
        if (ec) {
            return fail(ErrorKind::Io, "cannot create the directory: " + ec.message(),
                        dir.parent_path().string());
        }
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        return fail(ErrorKind::Io,
                    std::string("cannot create the directory: ") + std::strerror(errno),
                    dir.string());
    }
    struct stat info {};
    if (::lstat(dir.c_str(), &info) != 0) {
        return fail(ErrorKind::Io, std::string("cannot stat: ") + std::strerror(errno),
                    dir.string());
    }
    if (S_ISLNK(info.st_mode) || !S_ISDIR(info.st_mode)) {
        return fail(ErrorKind::InvalidArgument,
                    std::string(S_ISLNK(info.st_mode) ? "a symlink" : "not a directory") +
                        " where cachelens keeps the user's own data: refused (another user "
                        "may have made it; remove it, or set XDG_DATA_HOME or --catalog)",
                    dir.string());
    }
    if (info.st_uid != ::geteuid()) {
        return fail(ErrorKind::InvalidArgument,
                    "owned by uid " + std::to_string(info.st_uid) + ", not by you (uid " +
                        std::to_string(::geteuid()) +
                        "): cachelens keeps its catalog and tune's compile scratch only in a "
                        "dir of yours (remove it, or set XDG_DATA_HOME or --catalog)",
                    dir.string());
    }
    if ((info.st_mode & 077) != 0 && ::chmod(dir.c_str(), info.st_mode & 0700) != 0) {
        return fail(ErrorKind::Io,
                    std::string("cannot make it private (chmod 0700): ") + std::strerror(errno),
                    dir.string());
    }
    return {};
}

} // namespace cachelens
