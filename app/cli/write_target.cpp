#include "write_target.h"

#include <cstdio>

namespace cachelens::cli {

std::string target_path(const std::filesystem::path& named) {
    // As the kernel will resolve it: symlinks and ".." of the part that
    // exists, then the rest as spelled (the catalog names its roots so too).
    std::error_code error;
    auto resolved =
        std::filesystem::weakly_canonical(std::filesystem::absolute(named, error), error);
    if (error) {
        resolved = std::filesystem::absolute(named, error).lexically_normal();
    }
    if (!resolved.has_filename() && resolved.has_relative_path()) {
        resolved = resolved.parent_path(); // "/a/b/" names /a/b
    }
    return resolved.string();
}

void print_into(const std::string& target, bool creates_dir, bool dry_run) {
    std::printf("into %s%s%s\n", target.c_str(), creates_dir ? " (to be created)" : "",
                dry_run ? ": dry run, nothing is written" : ":");
}

} // namespace cachelens::cli
